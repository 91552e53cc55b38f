"""Coverage closed: targets re-derived from the labels on disk, one source across stages, no weaker dispatch."""

from __future__ import annotations

import json
import shutil

import pytest

from judges.assurance.pipeline import Controls, PipelineConfig, StageRefused, build, check, emit, run_step, stage
from judges.assurance.source import SourceSnapshot
from judges.assurance.targets import Targets, select_targets
from judges.backends.stub import RecordingStub
from orgbench.core.storage import write_manifest


def _cfg(source, work, level=3, **kw):
    return PipelineConfig(source, work, Controls(level), **kw)


def _swapped(trajectory, labels):
    targets = select_targets(trajectory, labels)
    return None if targets is None else Targets(targets.trajectory_id, targets.comparison, targets.error)


def test_a_selector_that_swaps_targets_is_stopped_by_the_disk_check(suite_dir, tmp_path):
    cfg = _cfg(suite_dir, tmp_path / "w", selector=_swapped)
    assert build(cfg).return_code == 0                     # the inline checker holds packets to their own specs
    result = check(cfg)
    assert result.return_code == 1 and result.requirement == "disk:targets-from-labels"
    assert "not implied by the labels" in result.reason or "missing" in result.reason


def test_labels_changed_and_resealed_after_build_are_refused(suite_dir, tmp_path):
    for level in (1, 2, 3):
        source = tmp_path / f"suite{level}"
        shutil.copytree(suite_dir, source)
        cfg = _cfg(source, tmp_path / f"w{level}", level)
        assert build(cfg).return_code == 0
        lines = (source / "labels.jsonl").read_text().splitlines()
        row = json.loads(lines[0])
        row["labels"] = {k: (1 if v == -1 else v) for k, v in row["labels"].items()}
        lines[0] = json.dumps(row)
        (source / "labels.jsonl").write_text("\n".join(lines) + "\n")
        write_manifest(source)
        with pytest.raises(StageRefused) as refused:
            check(cfg)
        assert refused.value.requirement == "source-materials-identical"
        assert "source:labels.jsonl" in refused.value.reason or "source:MANIFEST.json" in refused.value.reason


def test_dispatch_under_weaker_controls_than_its_stages_is_refused(suite_dir, tmp_path):
    cfg = _cfg(suite_dir, tmp_path / "w")
    for step in (build, check, stage, emit):
        assert step(cfg).return_code == 0
    for level in (0, 1, 2):
        with pytest.raises(StageRefused) as refused:
            run_step(_cfg(suite_dir, tmp_path / "w", level), "dispatch", RecordingStub())
        assert refused.value.requirement == "controls-not-weaker" and "ran under P3" in refused.value.reason


def test_a_stage_parses_the_bytes_it_hashed(suite_dir, tmp_path):
    source = tmp_path / "suite"
    shutil.copytree(suite_dir, source)
    snapshot = SourceSnapshot.read(source)
    before = snapshot.trajectories()
    (source / "trajectories.jsonl").write_text("")          # changed after the read: the snapshot is unaffected
    assert snapshot.trajectories() == before and snapshot.manifest_problems() == []
    assert snapshot.materials(lambda b: str(len(b)))["source:trajectories.jsonl"] != "0"
    assert SourceSnapshot.read(source).manifest_problems()
