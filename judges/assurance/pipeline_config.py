"""The checked pipeline's vocabulary: its steps, controls P0..P3, its own requirements, a run's configuration,
a refusal and a stage's result (split from ``pipeline``, which re-exports every name)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from benchmark_builders.trajectories.records import StepLabels, Trajectory
from judges.assurance.checks import Finding
from judges.assurance.intoto import ChainKey
from judges.assurance.manifest import Hasher, exact_sha256
from judges.assurance.render import EXTENTS, PacketSpec
from judges.assurance.source import ParsedSources
from judges.assurance.targets import Targets, select_targets
from orgbench.core.errors import InputError, OrgbenchError

STEPS = ("build", "check", "stage", "emit", "dispatch")
SCRIPT_SHARD = 500   # jobs per dispatch script
CONTROLS = ("P0", "P1", "P2", "P3")

#: Requirements the pipeline itself enforces (the checkers' are in checks.REQUIREMENTS).
PIPELINE_REQUIREMENTS: dict[str, str] = {
    "render-completed": "the renderer produced every packet",
    "bad-input": "the suite and options are readable input (else exit 2, one line naming file and field)",
    "previous-step-succeeded": "the previous step has a record, finished with return code 0 and chains to its own predecessor",
    "controls-not-weaker": "every step runs under the same controls: none after weaker ones (P1+), none weaker "
                           "than an earlier one (dispatch under P1 after stages under P3 is refused)",
    "source-materials-identical": "every step read the same source bytes (identical source:* materials)",
    "records-chain": "each record's materials are its predecessor's products: no stale or substituted outputs",
    "previous-products-unchanged": "the previous step's materials and products still match byte for byte",
    "source-sealed": "the source records still match their suite manifest",
    "packet-bytes-match-manifest": "each packet's exact bytes match the hash recorded at build",
    "staged-files-exact": "staging admits exactly the packets the build manifest lists",
    "staged-bytes-match-manifest": "each staged copy's exact bytes match the hash recorded at build",
    "scripts-exact": "dispatch runs exactly the scripts emission wrote, unchanged",
    "bytes-before-dispatch": "staged packets match their build and staging hashes before dispatch",
    "staged-packets-match-source": "(P2+) each staged packet is its job's target as the labels give it and equals "
                                   "the packet the source requires (the contract, rederived at staging)",
    "scripts-cover-staged": "(P2+) the scripts hold exactly one job per staged packet, tied to it by name and "
                            "hash, each with the run's draws",
    "read-time-bytes": "the buffer handed to the judge hashes to the value recorded at build",
}

#: Checks whose failure means the workspace is not what the signed chain (or the source) vouches for: exit 4.
TAMPER_CHECKS: dict[str, str] = {
    "trusted-key": "the chain is signed with the key the user gave (file or fingerprint), not one the workspace "
                   "substituted",
    "signed-chain": "each earlier stage's in-toto link verifies against the trusted key, finished with 0, chains "
                    "to the links before it and to the source as read now, and its products hash on disk as signed "
                    "(the staged pack and scripts as the very buffers dispatch read)",
    "packet-rederived": "each packet handed to the judge equals, byte for byte, the packet rendered again from "
                        "the source snapshot for its job's target (re-selected from the labels)",
}
PIPELINE_REQUIREMENTS.update(TAMPER_CHECKS)



@dataclass(frozen=True, slots=True)
class Controls:
    """Which controls are on (cumulative P0..P3)."""

    level: int = 3

    @staticmethod
    def parse(name: str) -> "Controls":
        """``P0`` .. ``P3``."""
        if name not in CONTROLS:
            raise InputError(f"--controls: expected one of {', '.join(CONTROLS)}, got {name!r}")
        return Controls(CONTROLS.index(name))

    @property
    def name(self) -> str:
        """The control's name, P0..P3."""
        return CONTROLS[self.level]

    @property
    def stop_on_failure(self) -> bool:
        """P1+: a failed or missing earlier step stops later ones."""
        return self.level >= 1

    @property
    def byte_checks(self) -> bool:
        """P2+: exact-byte checks of earlier outputs, before dispatch and at read."""
        return self.level >= 2

    @property
    def reverse_matching(self) -> bool:
        """P3: every tool result must answer a call."""
        return self.level >= 3


Hook = Callable[["PipelineConfig"], None]
RenderHook = Callable[[PacketSpec, bytes], bytes]


@dataclass(frozen=True)
class PipelineConfig:
    """One pipeline run: source suite, workspace, controls, draws, and (for the fault study) injection hooks."""

    source: Path
    work: Path
    controls: Controls = Controls(3)
    draws: int = 2
    extents: tuple[str, ...] = EXTENTS
    renderings: tuple[str, ...] = ("restored",)    # the contrast adds "original" (calls omitted) on purpose
    hasher: Hasher = exact_sha256
    reverse_matching: bool | None = None          # None: as the controls say; False: the weakened one-way checker
    hooks: Mapping[str, Hook] = field(default_factory=dict)
    render_hook: RenderHook | None = None
    selector: Callable[[Trajectory, StepLabels], Targets | None] = select_targets
    checkers: tuple[str, ...] = ("inline", "audit")  # inline: at build (again on disk without the audit); audit: on disk
    key: ChainKey | None = None                      # sign in-toto links (and, at build, the layout) with it
    journal: Path | None = None                      # dispatch's journal (default: beside the workspace)
    parsed: ParsedSources = field(default_factory=ParsedSources, compare=False)   # the run's parses, by exact bytes

    @property
    def disk_checkers(self) -> tuple[str, ...]:
        """What the check stage runs: the audit, or (when it is switched off) the inline checker again."""
        return ("audit",) if "audit" in self.checkers else ("inline",) if "inline" in self.checkers else ()

    @property
    def reverse(self) -> bool:
        """Whether the checkers match results to calls (the controls, unless weakened for a test)."""
        return self.controls.reverse_matching if self.reverse_matching is None else self.reverse_matching

    def hook(self, point: str) -> None:
        """Run the injection hook at ``point`` (fault study only)."""
        if point in self.hooks:
            self.hooks[point](self)


class StageRefused(OrgbenchError):
    """A stage refused to start or to hand anything on; carries the requirement and the reason."""

    def __init__(self, step: str, requirement: str, reason: str) -> None:
        super().__init__(f"{step} refused ({requirement}): {reason}")
        self.step, self.requirement, self.reason = step, requirement, reason


@dataclass(frozen=True, slots=True)
class StageResult:
    """What a stage did: return code and, on failure, every failed requirement in the order found."""

    step: str
    return_code: int
    failures: tuple[Finding, ...] = ()

    @property
    def requirement(self) -> str:
        """The first failed requirement ("" when none failed)."""
        return self.failures[0].requirement if self.failures else ""

    @property
    def reason(self) -> str:
        """Why the first requirement failed ("" when none failed)."""
        return self.failures[0].detail if self.failures else ""

    def summary(self, shown: int = 3) -> str:
        """One line: the first failure, then how many more and the next few (all are in the step record)."""
        line = f"{self.step}: failed ({self.requirement}): {self.reason}"
        rest = self.failures[1:]
        if rest:
            more = "; ".join(f"{f.requirement}: {f.detail}" for f in rest[:shown - 1])
            tail = "; ..." if len(rest) > shown - 1 else ""
            line += (f" [{len(self.failures)} failures; also {more}{tail}; all in "
                     f"records/{self.step}.record.json]")
        return line
