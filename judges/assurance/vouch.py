"""What dispatch checks immediately before the judge reads: the signed chain vouches for every byte it hands over.

Two checks, on the very buffers dispatch is about to hand to the judge:

- ``signed-chain`` (when the chain is signed): the layout and each earlier stage's in-toto
  link verify against the trusted key, finished with return value 0, chains
  to the links before it (its materials are their products, the build's
  ``source/*`` are the suite as read now) and every product it lists hashes on
  disk as signed -- the staged pack and the scripts as the buffers dispatch
  read them.
- ``packet-rederived`` (P2+): each packet is rendered from the source
  snapshot -- its target re-selected from the labels -- and must equal the
  buffer byte for byte (within one run the renderer's output for the same
  exact source bytes is rendered once, before any render hook, and reused).

The dispatch journal is signed too (``seals``): batches of its lines are
sealed by the chain's key over the run's header and the lines' digests, so a
planted or edited line is never resumed from and its work is redone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from in_toto.models.metadata import Metablock

from judges.assurance.intoto import FOLDER, JOURNAL, STEP_NAMES
from judges.assurance.render import PacketSpec, render_packets
from judges.assurance.source import SourceSnapshot
from judges.assurance.targets import select_targets
from judges.assurance.trust import ChainTampered, Trust, key_dict



def _load_link(work: Path, step: str, trust: Trust) -> dict[str, Any]:
    path = Path(work) / FOLDER / f"{step}.{trust.public.keyid[:8]}.link"
    if not path.is_file():
        raise ChainTampered("signed-chain", f"{path.relative_to(work)}: no link signed by the trusted key "
                            f"{trust.public.keyid[:16]}...")
    try:
        block = Metablock.load(str(path))
        block.verify_signature(key_dict(trust.public))
    except Exception as exc:                       # in-toto raises many kinds; each means: not vouched for
        raise ChainTampered("signed-chain", f"{path.relative_to(work)}: does not verify against the trusted key "
                            f"({type(exc).__name__})") from None
    signed = block.signed
    if signed.name != step or signed.byproducts.get("return-value") != 0:
        raise ChainTampered("signed-chain", f"{path.relative_to(work)}: is not a finished {step} "
                            f"(return value {signed.byproducts.get('return-value')})")
    return {"materials": {k: v.get("sha256") for k, v in signed.materials.items()},
            "products": {k: v.get("sha256") for k, v in signed.products.items()}}


def _check_layout(work: Path, trust: Trust) -> None:
    """Raise unless ``in-toto/root.layout`` is there and signed by the trusted key (what a third party verifies)."""
    path = Path(work) / FOLDER / "root.layout"
    try:
        block = Metablock.load(str(path))
        block.verify_signature(key_dict(trust.public))
    except Exception as exc:                       # missing, unreadable or signed by another key: not vouched for
        raise ChainTampered("signed-chain", f"{path.relative_to(work)}: does not verify against the trusted key "
                            f"({type(exc).__name__})") from None


def check_signed_chain(work: Path, trust: Trust, snapshot_materials: Mapping[str, str],
                       on_disk: Callable[[str], str | None], upto: str = "dispatch") -> None:
    """Raise ``ChainTampered('signed-chain', why)`` unless the links of the stages before ``upto`` vouch for the
    workspace as ``on_disk`` (path -> sha256 of the buffer read, None if missing) sees it."""
    _check_layout(work, trust)
    links = {step: _load_link(work, step, trust) for step in STEP_NAMES[:STEP_NAMES.index(upto)]}
    source = {f"source/{k[len('source:'):]}": v for k, v in snapshot_materials.items()}
    signed_source = {k: v for k, v in links["build"]["materials"].items() if k.startswith("source/")}
    if signed_source != source:
        odd = sorted(k for k in set(source) | set(signed_source) if source.get(k) != signed_source.get(k))
        raise ChainTampered("signed-chain", f"{odd[0]}: the suite differs from what the signed build read")
    made: dict[str, str] = {}
    for step, link in links.items():
        for path, digest in link["materials"].items():
            if not path.startswith(("source/", "journal/")) and made.get(path) != digest:
                raise ChainTampered("signed-chain", f"{step} link: material {path} is not what an earlier "
                                    f"signed stage produced")
        made.update(link["products"])
    for path in sorted(made):
        digest = on_disk(path)
        if digest != made[path]:
            raise ChainTampered("signed-chain", f"{path}: {'missing' if digest is None else 'changed'} on disk "
                                f"since the signed stage that produced it")


def check_rederived(snapshot: SourceSnapshot, specs: Mapping[str, PacketSpec],
                    handed: Sequence[tuple[str, bytes]]) -> str:
    """Why a handed buffer is not its packet rendered again from the source (``job id, bytes`` pairs), or ''."""
    trajectories = {t.trajectory_id: t for t in snapshot.trajectories()}
    labels = snapshot.labels()
    by_trajectory: dict[str, list[tuple[str, bytes]]] = {}
    for job_id, data in handed:
        spec = specs.get(job_id)
        if spec is None:
            return f"job {job_id}: the build listed no such packet"
        by_trajectory.setdefault(spec.trajectory_id, []).append((job_id, data))
    for trajectory_id, jobs in by_trajectory.items():
        trajectory = trajectories.get(trajectory_id)
        if trajectory is None or trajectory_id not in labels:
            return f"job {jobs[0][0]}: trajectory {trajectory_id} has no record or no labels in the source"
        targets = select_targets(trajectory, labels[trajectory_id])
        wanted = [specs[job_id] for job_id, _ in jobs]
        for spec in wanted:
            index = None if targets is None else {"error": targets.error,
                                                  "comparison": targets.comparison}.get(spec.target_kind)
            if index != spec.target_index:
                return f"job {spec.packet_id}: target {spec.target_index} is not the labels' {spec.target_kind} " \
                       f"target ({index})"
        for (job_id, data), expected in zip(jobs, render_packets(trajectory, wanted,
                                                                 snapshot.derived("packets", trajectory_id, dict))):
            if data != expected:
                return f"job {job_id}: the packet differs from the one the source renders"
    return ""


def default_journal(work: Path) -> Path:
    """The dispatch journal of a workspace: inside it, a material of the dispatch step, kept as evidence."""
    return Path(work) / JOURNAL
