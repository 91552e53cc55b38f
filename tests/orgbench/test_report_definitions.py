"""The report's GroundEval definitions are read from the track records and the scoring profile, not typed again."""

from __future__ import annotations

from benchmark_builders.groundeval.tracks import BUILTIN_TRACKS
from judges.groundeval.scoring_profile import DEFAULT_PROFILE, PROFILES
from orgbench.report.definitions import DEFINITIONS


def _defined() -> dict[str, str]:
    return dict(DEFINITIONS["groundeval"])


def test_each_track_is_defined_by_its_record() -> None:
    defined = _defined()
    for track in BUILTIN_TRACKS:
        text = defined[track.name.capitalize()]
        assert track.summary[1:] in text and track.truth and text.endswith(f"Truth: {track.truth}")


def test_the_weights_and_the_trajectory_rule_are_the_default_profiles() -> None:
    defined, profile = _defined(), PROFILES[DEFAULT_PROFILE]
    for track in BUILTIN_TRACKS:
        w_answer, w_traj = profile.weights[track.name]
        assert f"{w_answer:.2f}/{w_traj:.2f} {track.name.capitalize()}".replace("0.", ".") in defined["S_adj"]
    assert profile.evidence_sought and profile.verdict_gates_trajectory     # what the S_traj sentence says
    assert profile.label in defined["S_traj"] and "0 when the verdict is wrong" in defined["S_traj"]
    assert "no call scores" not in defined["S_traj"]                        # the preprint's rule, no longer ours
