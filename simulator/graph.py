"""The collaboration graph: edge weights grow with every interaction and decay daily.

Weights decay lazily: an edge remembers the day it was last touched and is
multiplied by ``daily_decay`` once per day since. Escalation routes are
shortest paths (Dijkstra) over cost = 1 / weight, so strong working ties are
short. Routing first searches only working ties (weight ≥ ``ROUTE_TIE``),
whose number per person does not grow with headcount, and falls back to every
tie when those do not connect. Centrality uses the same distance
(1 / weight), never the raw weight.
"""

from __future__ import annotations

import heapq
import math
import random
from itertools import count
from typing import Any, Collection, Iterable, Mapping

import networkx as nx

from simulator.calendar import DAY

MIN_WEIGHT = 1e-9
#: Ties at least this strong (one direct interaction, not yet decayed) are "working ties", searched first.
ROUTE_TIE = 1.0
#: What one interaction adds, times ``graph.interaction_weight``: a direct exchange (a direct message, review, deploy,
#: escalation hop or incident response), case triage or a proposed change with one's manager, consecutive posts in a
#: channel or a reply in its thread.
DIRECT = 1.0
WITH_MANAGER = 0.2
CHANNEL_NEIGHBOUR = 0.3
#: A broadcast is one interaction shared among its audience, at most this much per member (email, meeting, a hire's
#: introductions to the team).
EMAIL_SHARE = 0.5
MEETING_SHARE = 0.3
INTRODUCTION_SHARE = 0.3
#: Ties everyone starts with: to their manager, and min(COLLEAGUE_TIE, COLLEAGUE_SPREAD / team size) to each colleague.
MANAGER_TIE = 1.0
COLLEAGUE_TIE = 0.25
COLLEAGUE_SPREAD = 2.0
#: Betweenness is sampled over this many sources when there are more people than that (exact otherwise).
BETWEENNESS_SOURCES = 80


class CollaborationGraph:
    """Who works with whom, and how much, over time."""

    def __init__(self, daily_decay: float, interaction_weight: float) -> None:
        self.decay = daily_decay
        self.step = interaction_weight
        self.nodes: dict[str, dict[str, Any]] = {}
        self._adj: dict[str, dict[str, list[float]]] = {}  # a -> b -> [weight, day, interactions]
        self._ties: dict[str, dict[str, list[float]]] = {}  # the working ties (may hold stale ones)
        self._powers: list[float] = [1.0]

    def add_person(self, actor_id: str, **attrs: Any) -> None:
        """Add a node (or update its attributes)."""
        self.nodes.setdefault(actor_id, {}).update(attrs)
        self._adj.setdefault(actor_id, {})
        self._ties.setdefault(actor_id, {})

    def _weight(self, edge: list[float], day: float) -> float:
        if day <= edge[1]:
            return edge[0]
        gap = int(day - edge[1])
        powers = self._powers
        while len(powers) <= gap:
            powers.append(powers[-1] * self.decay)
        return edge[0] * powers[gap]

    def interact(self, a: str, b: str, minute: float, amount: float = 1.0) -> None:
        """Strengthen the tie between ``a`` and ``b`` at simulation ``minute``."""
        if a == b:
            return
        day = minute // DAY
        near = self._adj[a]
        edge = near.get(b)
        if edge is None:
            edge = near[b] = self._adj[b][a] = [0.0, 0.0, 0]
        if day <= edge[1]:
            weight = edge[0]
        else:  # decayed since last touched (inline _weight: this runs for every interaction)
            gap = int(day - edge[1])
            powers = self._powers
            while len(powers) <= gap:
                powers.append(powers[-1] * self.decay)
            weight = edge[0] * powers[gap]
        weight = edge[0] = weight + self.step * amount
        edge[1] = day
        edge[2] += 1
        if weight >= ROUTE_TIE:
            self._ties[a][b] = edge
            self._ties[b][a] = edge

    def interact_all(self, author: str, others: Iterable[str], minute: float, amount: float = 1.0) -> None:
        """Strengthen the ties between ``author`` and each of ``others``."""
        day = minute // DAY
        adjacency, ties, powers = self._adj, self._ties, self._powers
        near = adjacency[author]
        added = self.step * amount
        for other in others:  # interact(author, other, minute, amount), inlined: emails reach whole teams
            if other == author:
                continue
            edge = near.get(other)
            if edge is None:
                edge = near[other] = adjacency[other][author] = [0.0, 0.0, 0]
            if day <= edge[1]:
                weight = edge[0]
            else:
                gap = int(day - edge[1])
                while len(powers) <= gap:
                    powers.append(powers[-1] * self.decay)
                weight = edge[0] * powers[gap]
            weight = edge[0] = weight + added
            edge[1] = day
            edge[2] += 1
            if weight >= ROUTE_TIE:
                ties[author][other] = edge
                ties[other][author] = edge

    def weight(self, a: str, b: str, minute: float) -> float:
        """The tie strength between two people at ``minute`` (0 if none)."""
        edge = self._adj.get(a, {}).get(b)
        return 0.0 if edge is None else self._weight(edge, minute // DAY)

    def route(self, source: str, targets: Iterable[str], minute: float,
              allowed: Collection[str] | None = None) -> list[str]:
        """The cheapest path (cost = 1/weight) from ``source`` to any of ``targets``; [] if none.

        With ``allowed``, the path only passes through those people (e.g. the ones employed now).
        """
        goals = set(targets)
        if not goals:
            return []
        if source in goals:
            return [source]
        day = minute // DAY
        return (self._dijkstra(self._ties, source, goals, day, allowed, prune=True)
                or self._dijkstra(self._adj, source, goals, day, allowed, prune=False))

    def _dijkstra(self, adjacency: dict[str, dict[str, list[float]]], source: str, goals: set[str], day: float,
                  allowed: Collection[str] | None, prune: bool) -> list[str]:
        best = {source: 0.0}
        previous: dict[str, str] = {}
        heap = [(0.0, source)]
        done: set[str] = set()
        powers = self._powers
        decay = self.decay
        push, pop, inf, lookup = heapq.heappush, heapq.heappop, math.inf, best.get
        while heap:
            cost, node = pop(heap)
            if node in done:
                continue
            if node in goals:
                path = [node]
                while path[-1] != source:
                    path.append(previous[path[-1]])
                return path[::-1]
            done.add(node)
            stale = []
            # adjacency is built in a deterministic order and ties break on the node id in the heap
            for other, edge in adjacency[node].items():
                if day <= edge[1]:
                    weight = edge[0]
                else:
                    gap = int(day - edge[1])
                    while len(powers) <= gap:
                        powers.append(powers[-1] * decay)
                    weight = edge[0] * powers[gap]
                if prune and weight < ROUTE_TIE:
                    stale.append(other)
                    continue
                if other in done or (allowed is not None and other not in allowed) or weight <= MIN_WEIGHT:
                    continue
                candidate = cost + 1.0 / weight
                if candidate < lookup(other, inf):
                    best[other] = candidate
                    previous[other] = node
                    push(heap, (candidate, other))
            for other in stale:  # a working tie that has decayed: forget it until it is renewed
                del adjacency[node][other]
                del adjacency[other][node]
        return []

    def to_networkx(self, minute: float) -> nx.Graph:
        """The graph at ``minute``: edge ``weight`` (tie strength), ``distance`` = 1/weight, ``interactions``."""
        day = minute // DAY
        graph = nx.Graph()
        for node in sorted(self.nodes):
            graph.add_node(node, **{k: self.nodes[node][k] for k in sorted(self.nodes[node])})
        for a in sorted(self._adj):
            for b in sorted(self._adj[a]):
                if a < b:
                    edge = self._adj[a][b]
                    weight = max(self._weight(edge, day), MIN_WEIGHT)
                    graph.add_edge(a, b, weight=round(weight, 6), distance=round(1.0 / weight, 6),
                                   interactions=int(edge[2]))
        return graph

    def node_link(self, minute: float, seed: int) -> dict[str, Any]:
        """node-link data with strength and betweenness (distance = 1/weight) on every node."""
        graph = self.to_networkx(minute)
        n = graph.number_of_nodes()
        sample = None if n <= BETWEENNESS_SOURCES else BETWEENNESS_SOURCES
        betweenness = betweenness_centrality(graph, sample, seed)
        for node in graph.nodes:
            graph.nodes[node]["strength"] = round(sum(d["weight"] for _, _, d in graph.edges(node, data=True)), 6)
            graph.nodes[node]["betweenness"] = round(betweenness[node], 6)
        data: Mapping[str, Any] = nx.node_link_data(graph, edges="links")
        return dict(data)


def betweenness_centrality(graph: nx.Graph, k: int | None, seed: int) -> dict[str, float]:
    """Normalised betweenness over edge ``distance``, from ``k`` sampled sources (all if None).

    The same computation as ``nx.betweenness_centrality(graph, k=k, weight="distance", seed=seed)``
    (Brandes' algorithm, networkx 3.x: same visiting order, sampling and rescaling, so the same
    floats), run over plain lists of (neighbour, distance) instead of networkx's views.
    """
    nodes = list(graph)
    neighbours = {v: [(w, data.get("distance", 1)) for w, data in graph[v].items()] for v in nodes}
    if k == len(nodes):
        k = None
    sources = nodes if k is None else random.Random(seed).sample(nodes, k)
    betweenness = dict.fromkeys(nodes, 0.0)
    for source in sources:
        order, preds, sigma = _shortest_paths(neighbours, nodes, source)
        delta = dict.fromkeys(order, 0)
        while order:
            w = order.pop()
            coeff = (1 + delta[w]) / sigma[w]
            for v in preds[w]:
                delta[v] += sigma[v] * coeff
            if w != source:
                betweenness[w] += delta[w]
    pairs = len(nodes) - 1  # endpoints excluded
    if pairs < 2:
        return betweenness
    if k is None:
        scale = 1 / (pairs * (pairs - 1))
        if scale != 1:
            for v in betweenness:
                betweenness[v] *= scale
        return betweenness
    scale_source = 1 / ((k - 1) * (pairs - 1)) if k > 1 else math.nan
    scale_other = 1 / (k * (pairs - 1))
    sampled = set(sources)
    for v in betweenness:
        betweenness[v] *= scale_source if v in sampled else scale_other
    return betweenness


def _shortest_paths(neighbours: dict[str, list[tuple[str, float]]], nodes: list[str], source: str):
    """Dijkstra from ``source``: nodes in visiting order, their shortest-path predecessors and path counts."""
    order: list[str] = []
    preds: dict[str, list[str]] = {v: [] for v in nodes}
    sigma = dict.fromkeys(nodes, 0.0)
    done: dict[str, float] = {}
    sigma[source] = 1.0
    seen: dict[str, float] = {source: 0}
    tick = count()
    heap: list = [(0, next(tick), source, source)]
    push, pop = heapq.heappush, heapq.heappop
    while heap:
        dist, _, pred, v = pop(heap)
        if v in done:
            continue
        sigma[v] += sigma[pred]
        order.append(v)
        done[v] = dist
        for w, length in neighbours[v]:
            vw_dist = dist + length
            if w not in done and (w not in seen or vw_dist < seen[w]):
                seen[w] = vw_dist
                push(heap, (vw_dist, next(tick), v, w))
                sigma[w] = 0.0
                preds[w] = [v]
            elif vw_dist == seen[w]:
                sigma[w] += sigma[v]
                preds[w].append(v)
    return order, preds, sigma
