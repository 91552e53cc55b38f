"""The collaboration graph: interaction growth, daily decay, Dijkstra over 1/weight, centrality on distance."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from simulator.calendar import DAY
from simulator.graph import CollaborationGraph, betweenness_centrality


def _triangle() -> CollaborationGraph:
    graph = CollaborationGraph(daily_decay=0.5, interaction_weight=1.0)
    for node in "abc":
        graph.add_person(node, team="t")
    for _ in range(10):
        graph.interact("a", "b", 0.0)
        graph.interact("b", "c", 0.0)
    graph.interact("a", "c", 0.0)
    return graph


def test_strong_ties_make_short_routes():
    graph = _triangle()
    # cost a-b-c = 1/10 + 1/10 = 0.2 < cost a-c = 1/1
    assert graph.route("a", ["c"], 0.0) == ["a", "b", "c"]
    assert graph.route("a", ["c"], 0.0, allowed={"a", "c"}) == ["a", "c"]
    assert graph.route("a", ["a"], 0.0) == ["a"]
    assert graph.route("a", [], 0.0) == []


def test_weights_decay_daily():
    graph = _triangle()
    assert graph.weight("a", "b", 0.0) == pytest.approx(10.0)
    assert graph.weight("a", "b", 3 * DAY + 5) == pytest.approx(10.0 * 0.5 ** 3)
    graph.interact("a", "b", 3 * DAY)
    assert graph.weight("a", "b", 3 * DAY) == pytest.approx(10.0 * 0.125 + 1.0)


def test_centrality_uses_distance_not_weight():
    graph = _triangle()
    data = graph.node_link(0.0, seed=1)
    nodes = {n["id"]: n for n in data["nodes"]}
    # b lies on the cheapest a-c path, so with distance = 1/weight it is the broker
    assert nodes["b"]["betweenness"] > 0 and nodes["a"]["betweenness"] == 0
    g = nx.node_link_graph(data, edges="links")
    for _, _, edge in g.edges(data=True):
        assert edge["distance"] == pytest.approx(1 / edge["weight"], rel=1e-5)


def test_world_graph_covers_everyone(small_world):
    g = small_world.org_graph()
    assert set(g.nodes) == {a.actor_id for a in small_world.actors}
    assert nx.is_connected(g)
    assert all(d["interactions"] >= 1 for _, _, d in g.edges(data=True))


def test_routes_prefer_working_ties_and_fall_back_to_weak_ones():
    graph = CollaborationGraph(daily_decay=0.5, interaction_weight=1.0)
    for node in "abcd":
        graph.add_person(node)
    graph.interact("a", "b", 0.0)
    graph.interact("b", "c", 0.0)
    graph.interact("c", "d", 0.0, amount=0.1)  # too weak to be a working tie
    assert graph.route("a", ["c"], 0.0) == ["a", "b", "c"]
    assert graph.route("a", ["d"], 0.0) == ["a", "b", "c", "d"]  # only weak ties reach d
    # ten days later every tie has decayed below a working tie; routes still exist over the weak ones
    assert graph.route("a", ["c"], 10 * DAY) == ["a", "b", "c"]


def test_betweenness_equals_networkx_exactly_with_and_without_sampling():
    rng = random.Random(2)
    for n in (4, 40, 95):
        graph = nx.Graph()
        graph.add_nodes_from(f"P-{i:04d}" for i in range(n))
        for _ in range(3 * n):
            a, b = rng.sample(range(n), 2)
            distance = rng.choice([1.0, 0.5, 2.0, round(rng.random() + 0.1, 6)])
            graph.add_edge(f"P-{a:04d}", f"P-{b:04d}", distance=distance)
        k = None if n <= 80 else 80
        ours = betweenness_centrality(graph, k, seed=7)
        assert ours == nx.betweenness_centrality(graph, k=k, weight="distance", seed=7)
        assert list(ours) == list(graph)


def test_interact_all_is_interact_for_each_other_person():
    one, many = (CollaborationGraph(daily_decay=0.9, interaction_weight=0.7) for _ in range(2))
    for graph in (one, many):
        for node in "abcd":
            graph.add_person(node, team="t")
    moments = [0.0, 10.0, 3 * DAY + 5.0, 3 * DAY + 5.0, 9 * DAY]
    for minute in moments:
        for other in "bcad":
            one.interact("a", other, minute, 0.4)
        many.interact_all("a", "bcad", minute, 0.4)
    assert one._adj == many._adj and one._ties == many._ties
