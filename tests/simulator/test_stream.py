"""A world written while it runs (in chunks) has the same bytes as one simulated in memory and saved."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from simulator.config import load_config
from simulator.simulate import simulate, simulate_to
from simulator.world import WORLD_FILES, load_world, save_world


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


@pytest.mark.parametrize("chunk", [1, 997, 10**9])
def test_streamed_world_is_byte_identical_to_a_saved_one(tmp_path, small_config_path, chunk):
    config = load_config(small_config_path)
    save_world(simulate(config), tmp_path / "saved")
    meta = simulate_to(config, tmp_path / "streamed", chunk=chunk)
    saved, streamed = _files(tmp_path / "saved"), _files(tmp_path / "streamed")
    assert sorted(saved) == sorted(WORLD_FILES + ("MANIFEST.json",))
    assert saved == streamed
    assert meta == load_world(tmp_path / "streamed").meta


def test_the_chunks_split_what_prose_cites_and_claims(small_config_path):
    """With a chunk handed over every day (chunk=1 above), the world has citations that cross chunks.

    Replies to messages of an earlier day, postmortems of an incident recorded days before, pages whose
    history spans days, and labelled claims: the byte-identity above covers each across a chunk boundary.
    """
    world = simulate(load_config(small_config_path))
    day = {v.ref: v.created_at.date() for v in world.artifacts}
    asked = {v.facts[k]: v for v in world.artifacts for k in ("message_id", "email_id") if k in v.facts}
    replies = [v for v in world.artifacts if "in_reply_to" in v.facts and v.facts["in_reply_to"] in asked]
    assert sum(asked[v.facts["in_reply_to"]].created_at.date() < v.created_at.date() for v in replies) >= 20
    postmortems = [v for v in world.artifacts if v.kind == "postmortem"]
    assert postmortems and all(world.versions(v.facts["incident_id"])[-1].created_at.date() < v.created_at.date()
                               for v in postmortems)
    assert all("## Timeline" in v.body and v.facts["incident_id"] in v.body for v in postmortems)
    pages = [world.versions(a) for a in world.artifact_ids() if a.startswith("WIKI-")]
    assert sum(day[h[0].ref] < day[h[-1].ref] for h in pages if len(h) > 1) >= 3
    assert sum(v.body.count("\n- r") for h in pages for v in h[-1:]) >= len(pages)  # histories are listed
    assert len(world.claims) >= 5 and world.meta["counts"]["labelled_claims"] == len(world.claims)


def test_latest_refuses_a_record_that_left_with_a_chunk(small_config_path):
    """After a chunk is handed over, asking ``latest`` about a chat message it took is an error, not None."""
    from simulator.simulate import _run_days

    ctx = _run_days(load_config(small_config_path, days=3), None, {}, lambda ctx: ctx.release())
    released = sorted(a for a in ctx.ledger.latest if a.startswith("MSG-"))
    assert released
    with pytest.raises(RuntimeError, match="left memory with a streamed chunk"):
        ctx.latest(released[0])
    cases = sorted(a for a in ctx.ledger.latest if a.startswith("CASE-"))
    assert cases and ctx.latest(cases[0]) is not None  # news sources stay: processes ask about them


def test_streamed_event_ids_keep_counting_across_chunks(tmp_path, small_config_path):
    simulate_to(load_config(small_config_path), tmp_path / "w", chunk=50)
    ids = [e.event_id for e in load_world(tmp_path / "w").events]
    assert ids == [f"EV-{n:07d}" for n in range(1, len(ids) + 1)]
    assert len(ids) > 500  # many chunks were handed over


def _traced_peak(run) -> int:
    """The peak of memory traced by tracemalloc while ``run()`` runs (bytes allocated: no clock involved)."""
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow          # four traced simulations of 40 and 120 days (18-36 s, loaded machine)
def test_a_streamed_worlds_memory_grows_a_small_fraction_of_what_the_whole_worlds_does(tmp_path, small_config_path):
    """From 40 to 120 days, the streamed run's peak grows by under a sixth of the in-memory run's growth.

    Records leave in chunks; what stays is the current state (the organisation, open cases, the latest
    record of each news source, each artifact's version number). Traced allocations count bytes, not
    time, so this holds at any machine speed (measured: streamed about 4.4 -> 6.6 MB, growing 2.2 MB; in
    memory about 13.8 -> 34.7 MB, growing 20.9 MB, of which the world itself, ``simulate`` alone, 20.1).
    The bound was a tenth while ``save_world`` joined each whole file before writing it (in memory then
    29 -> 82 MB); it writes line by line since cd66725, so the in-memory run grows by little more than its
    world, while the streamed growth is what it was (2.3 MB then). A short warm-up run first keeps one-off
    loads (templates, grammars) out of the peaks.
    """
    simulate_to(load_config(small_config_path, days=3), tmp_path / "warm-up")
    streamed, in_memory = {}, {}
    for days in (40, 120):
        config = load_config(small_config_path, days=days)
        streamed[days] = _traced_peak(lambda: simulate_to(config, tmp_path / f"streamed-{days}", chunk=2000))
        in_memory[days] = _traced_peak(lambda: save_world(simulate(config), tmp_path / f"saved-{days}"))
    assert _files(tmp_path / "streamed-120") == _files(tmp_path / "saved-120")
    assert streamed[120] < 0.6 * in_memory[120], (streamed, in_memory)
    assert streamed[120] - streamed[40] < (in_memory[120] - in_memory[40]) / 6, (streamed, in_memory)
