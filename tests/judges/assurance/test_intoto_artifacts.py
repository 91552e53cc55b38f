"""In-toto artifacts look at each folder once and give what a per-member check of the disk gives."""

import hashlib
from pathlib import Path

from judges.assurance.intoto import _artifacts


def _per_member(work: Path, names: dict[str, str]) -> dict[str, dict[str, str]]:
    """The artifacts by the rule stated member by member: a member not on disk beside its folder's pack is the pack."""
    out: dict[str, dict[str, str]] = {}
    for name, digest in names.items():
        if name.startswith("source:"):
            out[f"source/{name[len('source:'):]}"] = {"sha256": digest}
            continue
        folder = name.rpartition("/")[0]
        pack = work / f"{folder}.pack"
        rel = f"{folder}.pack" if pack.is_file() and not (work / name).is_file() else name
        if rel not in out and (work / rel).is_file():
            out[rel] = {"sha256": hashlib.sha256((work / rel).read_bytes()).hexdigest()}
    return dict(sorted(out.items()))


def test_artifacts_fold_members_into_packs_as_a_per_member_check_does(tmp_path):
    (tmp_path / "packets").mkdir()
    (tmp_path / "packets.pack").write_bytes(b"pack of packets")
    (tmp_path / "packets" / "loose.txt").write_text("a loose member beside the pack\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "run.sh").write_text("echo run\n")
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "build.json").write_text("{}\n")
    (tmp_path / "top.json").write_text("{}\n")
    (tmp_path / "sealed.pack").write_bytes(b"a pack whose folder is gone")
    names = {f"packets/p{i:03d}.txt": "" for i in range(40)}
    names.update({"packets/loose.txt": "", "scripts/run.sh": "", "scripts/missing.sh": "", "records/build.json": "",
                  "top.json": "", "sealed/x.txt": "", "nowhere/y.txt": "", "source:trajectories.jsonl": "ab" * 32})
    got = _artifacts(tmp_path, names)
    assert got == _per_member(tmp_path, names)
    assert list(got) == ["packets.pack", "packets/loose.txt", "records/build.json", "scripts/run.sh", "sealed.pack",
                         "source/trajectories.jsonl", "top.json"]
