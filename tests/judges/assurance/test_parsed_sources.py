"""A pipeline run parses the suite's bytes once: the same bytes give the same records, other bytes are parsed anew."""

from __future__ import annotations

import shutil

from benchmark_builders.trajectories.records import TRAJECTORIES_FILE
from judges.assurance.source import ParsedSources, SourceSnapshot


def test_the_same_bytes_are_parsed_once_and_changed_bytes_again(suite_dir, tmp_path):
    parsed = ParsedSources()
    first = SourceSnapshot.read(suite_dir, parsed)
    again = SourceSnapshot.read(suite_dir, parsed)
    assert again.trajectories() == first.trajectories() == SourceSnapshot.read(suite_dir).trajectories()
    assert all(a is b for a, b in zip(again.trajectories(), first.trajectories()))      # taken, not parsed
    assert again.labels() == first.labels() == SourceSnapshot.read(suite_dir).labels()
    copy = tmp_path / "suite"
    shutil.copytree(suite_dir, copy)
    path = copy / TRAJECTORIES_FILE
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([lines[1], lines[0], *lines[2:]]))      # the same records in another order
    changed = SourceSnapshot.read(copy, parsed).trajectories()
    assert [t.trajectory_id for t in changed[:2]] == [t.trajectory_id for t in first.trajectories()[1::-1]]
