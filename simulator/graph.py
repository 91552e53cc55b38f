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
from typing import TYPE_CHECKING, Any, Collection, Iterable, Mapping

from simulator.calendar import DAY

if TYPE_CHECKING:  # networkx costs a quarter of a second to import; the graph is built without it
    import networkx as nx

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
        while len(powers) <= day:  # every gap up to today's (edges are touched on day 0 or later)
            powers.append(powers[-1] * self.decay)
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
                weight = edge[0] if day <= edge[1] else edge[0] * powers[int(day - edge[1])]
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

    def node_link(self, minute: float, seed: int) -> dict[str, Any]:
        """The graph at ``minute`` as networkx node-link data (``nx.node_link_data(graph, edges="links")`` of the
        graph whose edges have ``weight`` (tie strength), ``distance`` = 1/weight and ``interactions``), with
        ``strength`` and ``betweenness`` (over distance) on every node.

        Built from the adjacency directly, in networkx's order (nodes sorted, each edge once from its lesser
        end, neighbours sorted), so the data and every float are what the networkx graph gives.
        """
        day = minute // DAY
        nodes = sorted(self.nodes)
        links: list[dict[str, Any]] = []
        neighbours: dict[str, list[tuple[str, float]]] = {v: [] for v in nodes}
        strengths: dict[str, list[float]] = {v: [] for v in nodes}
        for a in nodes:
            near = self._adj.get(a, {})
            for b in sorted(near):
                if a < b:
                    edge = near[b]
                    weight = max(self._weight(edge, day), MIN_WEIGHT)
                    link: dict[str, Any] = dict(weight=round(weight, 6), distance=round(1.0 / weight, 6), interactions=int(edge[2]),
                                source=a, target=b)
                    links.append(link)
                    neighbours[a].append((b, link["distance"]))
                    neighbours[b].append((a, link["distance"]))
                    strengths[a].append(link["weight"])
                    strengths[b].append(link["weight"])
        sample = None if len(nodes) <= BETWEENNESS_SOURCES else BETWEENNESS_SOURCES
        betweenness = _betweenness(nodes, neighbours, sample, seed)
        # each node's edges in networkx's adjacency order: its neighbours sorted, the lesser ones added first
        return {"directed": False, "multigraph": False, "graph": {},
                "nodes": [{**{k: self.nodes[v][k] for k in sorted(self.nodes[v])},
                           "strength": round(sum(strengths[v]), 6), "betweenness": round(betweenness[v], 6),
                           "id": v} for v in nodes],
                "links": links}


def betweenness_centrality(graph: nx.Graph, k: int | None, seed: int) -> dict[str, float]:
    """Normalised betweenness over edge ``distance``, from ``k`` sampled sources (all if None).

    The same computation as ``nx.betweenness_centrality(graph, k=k, weight="distance", seed=seed)``
    (Brandes' algorithm, networkx 3.x: same visiting order, sampling and rescaling, so the same
    floats), run over plain lists of (neighbour, distance) instead of networkx's views.
    """
    nodes = list(graph)
    neighbours = {v: [(w, data.get("distance", 1)) for w, data in graph[v].items()] for v in nodes}
    return _betweenness(nodes, neighbours, k, seed)


def _betweenness(nodes: list[str], neighbours: Mapping[str, list[tuple[str, float]]], k: int | None,
                 seed: int) -> dict[str, float]:
    """``betweenness_centrality`` of the graph with these nodes (in the graph's order) and adjacency lists.

    Nodes are numbered in order, so the search keeps its state in lists, not dicts keyed by name.
    """
    n = len(nodes)
    number = {v: i for i, v in enumerate(nodes)}
    adjacency = [[(number[w], length) for w, length in neighbours[v]] for v in nodes]
    if k == n:
        k = None
    sources = nodes if k is None else random.Random(seed).sample(nodes, k)
    betweenness = [0.0] * n
    for source in sources:
        s = number[source]
        order, preds, sigma = _shortest_paths(adjacency, n, s)
        delta = [0.0] * n  # networkx starts from int 0: the sums are the same floats
        while order:
            w = order.pop()
            coeff = (1 + delta[w]) / sigma[w]
            for v in preds[w]:
                delta[v] += sigma[v] * coeff
            if w != s:
                betweenness[w] += delta[w]
    scores = dict(zip(nodes, betweenness))
    pairs = n - 1  # endpoints excluded
    if pairs < 2:
        return scores
    if k is None:
        scale = 1 / (pairs * (pairs - 1))
        if scale != 1:
            for name in scores:
                scores[name] *= scale
        return scores
    scale_source = 1 / ((k - 1) * (pairs - 1)) if k > 1 else math.nan
    scale_other = 1 / (k * (pairs - 1))
    sampled = set(sources)
    for name in scores:
        scores[name] *= scale_source if name in sampled else scale_other
    return scores


def _shortest_paths(adjacency: list[list[tuple[int, float]]], n: int, source: int
                    ) -> tuple[list[int], list[list[int]], list[float]]:
    """Dijkstra from ``source``: nodes in visiting order, their shortest-path predecessors and path counts."""
    order: list[int] = []
    preds: list[list[int]] = [[] for _ in range(n)]
    sigma = [0.0] * n
    done = [False] * n
    sigma[source] = 1.0
    seen: list[float | None] = [None] * n
    seen[source] = 0
    tick = count()
    heap: list = [(0, next(tick), source, source)]
    push, pop = heapq.heappush, heapq.heappop
    while heap:
        dist, _, pred, v = pop(heap)
        if done[v]:
            continue
        sigma[v] += sigma[pred]
        order.append(v)
        done[v] = True
        for w, length in adjacency[v]:
            vw_dist = dist + length
            known = seen[w]
            if not done[w] and (known is None or vw_dist < known):
                seen[w] = vw_dist
                push(heap, (vw_dist, next(tick), v, w))
                sigma[w] = 0.0
                preds[w] = [v]
            elif vw_dist == known:
                sigma[w] += sigma[v]
                preds[w].append(v)
    return order, preds, sigma
