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


def test_streamed_event_ids_keep_counting_across_chunks(tmp_path, small_config_path):
    simulate_to(load_config(small_config_path), tmp_path / "w", chunk=50)
    ids = [e.event_id for e in load_world(tmp_path / "w").events]
    assert ids == [f"EV-{n:07d}" for n in range(1, len(ids) + 1)]
    assert len(ids) > 500  # many chunks were handed over


def test_streaming_holds_less_than_the_whole_world(tmp_path, small_config_path):
    """Peak traced memory of the streamed run is below the in-memory run's (records leave as chunks)."""
    config = load_config(small_config_path, days=60)

    def peak(run) -> int:
        tracemalloc.start()
        try:
            run()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    in_memory = peak(lambda: save_world(simulate(config), tmp_path / "a"))
    streamed = peak(lambda: simulate_to(config, tmp_path / "b", chunk=2000))
    assert (tmp_path / "a" / "artifacts.jsonl").read_bytes() == (tmp_path / "b" / "artifacts.jsonl").read_bytes()
    assert streamed < 0.6 * in_memory, (streamed, in_memory)
