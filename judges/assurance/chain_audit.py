"""Re-audit a whole pipeline workspace after the fact (``orgbench assure verify WORK``), for CI.

Each stage's record is checked on its own -- present, finished with return
code 0, under the build's controls, chained to its predecessor's products,
the build's ``source:*`` materials, every listed file still hashing as
recorded (and, with the suite, the suite's files as recorded) -- then the
in-toto chain is verified with the ``in-toto`` library against the trusted key
(``trust.Trust``: the user's, or the workspace's own -- accidents only), its
inspection comparing every file on disk with the signed links. Every check is
one JUnit test case named by the link it is about, so a failure names the link.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

from judges.assurance.intoto import verify_chain
from judges.assurance.manifest import exact_sha256, read_record, record_path
from judges.assurance.pipeline import STEPS
from judges.assurance.source import SourceSnapshot
from judges.assurance.trust import Trust
from judges.assurance.workspace import Workspace
from orgbench.core.errors import InputError


@dataclass(frozen=True, slots=True)
class AuditCase:
    """One check of the audit: the link it is about, the check's name, and why it failed ('' when it passed)."""

    link: str
    check: str
    problem: str = ""


def _record_cases(work: Path, source: Path | None) -> list[AuditCase]:
    out: list[AuditCase] = []
    ws = Workspace(work, exact_sha256)
    records = {}
    for step in STEPS:
        link = str(record_path(work, step).relative_to(work))
        try:
            record = read_record(work, step)
        except InputError as exc:
            out.append(AuditCase(link, "record-present", str(exc)))
            continue
        out.append(AuditCase(link, "record-present", "" if record else "missing: the stage never ran"))
        if record is None:
            continue
        records[step] = record
        out.append(AuditCase(link, "finished-ok", "" if record.return_code == 0 else
                             f"return_code {record.return_code} ({record.requirement}: {record.reason})"))
        build = records.get("build")
        if build is not None and step != "build":
            out.append(AuditCase(link, "controls-equal", "" if record.controls == build.controls else
                                 f"ran under {record.controls}, build under {build.controls}"))
            theirs = {k: v for k, v in record.materials.items() if k.startswith("source:")}
            ours = {k: v for k, v in build.materials.items() if k.startswith("source:")}
            odd = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
            out.append(AuditCase(link, "source-identical", f"{odd[0]} differs from the build's" if odd else ""))
        previous = records.get(STEPS[STEPS.index(step) - 1]) if step != "build" else None
        if step != "build":
            if previous is None:
                out.append(AuditCase(link, "chains-to-predecessor", "the previous stage has no record"))
            else:
                stale = sorted(p for p, d in previous.products.items() if record.materials.get(p) != d)
                out.append(AuditCase(link, "chains-to-predecessor", f"made from other {previous.step} outputs "
                                     f"({stale[0]})" if stale else ""))
        listed = {p: d for p, d in {**record.materials, **record.products}.items() if not p.startswith("source:")}
        problems = ws.changed(listed)
        out.append(AuditCase(link, "files-unchanged", f"{problems[0]} ({len(problems)} file(s))" if problems else ""))
    if source is not None and "build" in records:
        current = SourceSnapshot.read(source).materials(exact_sha256)
        recorded = {k: v for k, v in records["build"].materials.items() if k.startswith("source:")}
        odd = sorted(k for k in set(current) | set(recorded) if current.get(k) != recorded.get(k))
        out.append(AuditCase(str(record_path(work, "build").relative_to(work)), "source-unchanged",
                             f"{odd[0]} no longer hashes as recorded ({source})" if odd else ""))
    return out


#: Checks signed by the trusted key: their failure is tampering (``assure verify`` exits 4).
SIGNED_CHECKS = ("in-toto-verify",)


def audit_chain(work: Path, trust: Trust, source: Path | None = None) -> list[AuditCase]:
    """Every check of a workspace's chain, records first, then in-toto's verification against ``trust``."""
    work = Path(work)
    if not (work / "records").is_dir():
        raise InputError(f"{work}: no records/ folder (not a pipeline workspace)")
    cases = _record_cases(work, source)
    cases.append(AuditCase("in-toto/root.layout", "in-toto-verify", verify_chain(work, trust)))
    return cases


def junit_xml(cases: list[AuditCase]) -> str:
    """The audit as JUnit XML: one test suite, one test case per check (classname = the link)."""
    failed = sum(bool(c.problem) for c in cases)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<testsuites tests="{len(cases)}" failures="{failed}">',
             f'  <testsuite name="orgbench assure verify" tests="{len(cases)}" failures="{failed}" errors="0">']
    for case in cases:
        head = f'    <testcase classname={quoteattr(case.link)} name={quoteattr(case.check)}'
        if case.problem:
            lines += [head + ">", f"      <failure message={quoteattr(case.problem)}/>", "    </testcase>"]
        else:
            lines.append(head + "/>")
    lines += ["  </testsuite>", "</testsuites>"]
    return "\n".join(lines) + "\n"
