"""Do the framework adapters score a policy exactly as run-agent does? Printed as JSON, per policy and framework.

Each built-in tool-mode policy runs through ``run-agent`` (no latency); the
in-repo chat server (127.0.0.1, no key) then replays exactly its tool calls
to a real OpenAI Agents SDK agent and a real LangGraph agent through
``orgbench observe``'s adapters. Per (policy, framework): contracts scored,
contracts whose score row (every field but the agent name) is identical to
run-agent's, identical traces, and mean S_adj of both. The synthetic suite
is the tests' (seed 11, 16 days, 16 people) unless ``--suite`` is given.

    python benchmarks/adapter_parity.py [--suite DIR] [--policies oracle,leaky]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judges.groundeval.adapters.base import ModelConfig  # noqa: E402
from judges.groundeval.adapters.observe import observe  # noqa: E402
from judges.groundeval.agents import BUILTIN_AGENTS  # noqa: E402
from judges.groundeval.run import run_agent, score_run  # noqa: E402
from tests.judges.chat_server import ChatServer  # noqa: E402
from tests.judges.groundeval.policy_script import PolicyScript  # noqa: E402

FACTORIES = {"openai-agents": "tests.judges.groundeval.adapter_agents:openai_agent",
             "langgraph": "tests.judges.groundeval.adapter_agents:langgraph_agent"}
POLICIES = BUILTIN_AGENTS


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _scores(path: Path) -> dict[str, dict]:
    return {r["question_id"]: {k: v for k, v in r.items() if k != "agent"} for r in _lines(path / "questions.jsonl")}


def main() -> None:
    """Run every policy through run-agent and each adapter; print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=None)
    parser.add_argument("--policies", default=",".join(POLICIES))
    args = parser.parse_args()
    os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
    os.environ["LANGSMITH_TRACING"] = "false"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        suite = args.suite
        if suite is None:
            from benchmark_builders.groundeval.build import build_suite
            from benchmark_builders.groundeval.synthetic import synthetic_world

            suite = root / "suite"
            build_suite(suite, world=synthetic_world(seed=11, days=16, people=16), name="syn-11")
        report = []
        for policy in args.policies.split(","):
            ref = root / f"ref-{policy}"
            run_agent(suite, policy, "tool", ref, record_latency=False)
            score_run(suite, ref, root / f"s-ref-{policy}")
            expected = _scores(root / f"s-ref-{policy}")
            ref_traces = {t["question_id"]: t["calls"] for t in _lines(ref / "traces.jsonl")}
            turns = max(len(c) for c in ref_traces.values()) + 2
            for framework, factory in FACTORIES.items():
                out = root / f"obs-{policy}-{framework}"
                with ChatServer(answer=PolicyScript(ref), record=False) as server:
                    observe(suite, framework, factory, out, ModelConfig("scripted", server.base_url, max_turns=turns),
                            record_latency=False)
                score_run(suite, out, root / f"s-{policy}-{framework}")
                got = _scores(root / f"s-{policy}-{framework}")
                traces = {t["question_id"]: t["calls"] for t in _lines(out / "traces.jsonl")}
                mean = lambda rows: round(sum(r["s_adj"] for r in rows.values()) / len(rows), 4)   # noqa: E731
                report.append({"policy": policy, "framework": framework, "contracts": len(expected),
                               "identical_scores": sum(got.get(q) == row for q, row in expected.items()),
                               "identical_traces": sum(traces.get(q) == c for q, c in ref_traces.items()),
                               "s_adj_run_agent": mean(expected), "s_adj_adapter": mean(got)})
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
