"""Per-packet cost of each check issue 34 added, printed as JSON (issue 36 owns the throughput goal).

Runs the P3 pipeline (recording stub, one draw) over a simulated suite, once
unsigned and once signed with a key from outside the workspace, then times
each check on its own over the finished workspace: signing the five links,
``signed-chain`` and ``packet-rederived`` at dispatch, signing and verifying
the journal's lines (sealed in batches), and in-toto's verification with its inspection
(``assure verify``). Each cost is microseconds per packet; ``signed_over_unsigned``
is the whole pipeline's time signed over unsigned.

    python benchmarks/bench_assurance_checks.py [--trajectories 250] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from benchmark_builders.trajectories.records import write_suite
from benchmark_builders.trajectories.simulate import simulate_trajectories, synthetic_cases
from judges.assurance.disk_check import job_specs
from judges.assurance.intoto import ChainKey, verify_chain, write_link
from judges.assurance.manifest import read_record
from judges.assurance.pack import read_pack
from judges.assurance.pipeline import STEPS, Controls, PipelineConfig, run_pipeline
from judges.assurance.source import SourceSnapshot
from judges.assurance.seals import SealingAppender, check_journal
from judges.assurance.vouch import check_rederived, check_signed_chain
from judges.journal import Appender
from judges.assurance.workspace import Workspace
from judges.assurance.manifest import exact_sha256
from judges.backends.stub import RecordingStub
from securesystemslib.signer import CryptoSigner
from bench_record import add_record_option, print_result


def _timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=250)
    parser.add_argument("--dir", type=Path, default=None)
    add_record_option(parser)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(dir=args.dir))
    try:
        trajectories, labels = simulate_trajectories(synthetic_cases(40, 5), args.trajectories, 5)
        write_suite(root / "suite", trajectories, labels, {"seed": 5})
        key = ChainKey(CryptoSigner.generate_ed25519(), False, True)
        unsigned = _timed(lambda: run_pipeline(PipelineConfig(root / "suite", root / "u", Controls(3), draws=1),
                                               RecordingStub()))
        cfg = PipelineConfig(root / "suite", root / "w", Controls(3), draws=1, key=key)
        signed = _timed(lambda: run_pipeline(cfg, RecordingStub()))
        work = cfg.work
        members = read_pack(work / "staged" / "packets.pack")
        packets = len(members)
        snapshot = SourceSnapshot.read(cfg.source)
        ws = Workspace(work, exact_sha256)
        ws.read("staged/packets/x")
        chain = _timed(lambda: check_signed_chain(work, key.trust, snapshot.materials(exact_sha256),
                                                  lambda rel: ws.pack_sha256.get(rel[:-5]) or ws.digest(rel)))
        _, specs = job_specs((work / "build" / "jobs.jsonl").read_bytes())
        by_id = {s.packet_id: s for s in specs}
        handed = [(name[:-len(".txt")], data) for name, data in sorted(members.items())]
        rederive = _timed(lambda: check_rederived(snapshot, by_id, handed))
        records = {step: read_record(work, step) for step in STEPS}
        links = _timed(lambda: [write_link(work, key, step, dict(r.materials), dict(r.products), 0)
                                for step, r in records.items() if r is not None])
        header = {"journal": 1, "signer": key.keyid}
        rows = [{"job_id": n, "draw": 0, "response": "{}", "error": None} for n, _ in handed]
        journal = root / "journal.jsonl"
        journal.write_text(json.dumps(header, sort_keys=True, separators=(",", ":")) + "\n")

        def seal_all() -> None:
            appender = SealingAppender(Appender(journal), key, header, root / "journal.seals.jsonl")
            for row in rows:
                appender.add(row, flush=True)
            appender.close()

        signing = _timed(seal_all)
        verifying = _timed(lambda: check_journal(journal, key.trust, header))
        intoto = _timed(lambda: verify_chain(work, key.trust))

        def per_packet(seconds: float) -> float:
            return round(1e6 * seconds / packets, 1)

        print_result({
            "packets": packets,
            "us_per_packet": {"sign_five_links": per_packet(links), "signed_chain_at_dispatch": per_packet(chain),
                              "packet_rederived_at_dispatch": per_packet(rederive),
                              "journal_sign_line": per_packet(signing), "journal_verify_line": per_packet(verifying),
                              "in_toto_verify_with_inspection": per_packet(intoto),
                              "pipeline_unsigned": per_packet(unsigned), "pipeline_signed": per_packet(signed)},
            "signed_over_unsigned": round(signed / unsigned, 3)}, args.record, indent=1)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
