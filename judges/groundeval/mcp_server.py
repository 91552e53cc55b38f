"""Serve one contract's gated runtime over MCP (stdio): search_artifacts, fetch_artifact, submit_answer.

Any MCP-capable agent can then be evaluated: the server applies exactly the
gates of ``GatedRuntime`` for the contract's actor and ``as_of``, records every
call, and on ``submit_answer`` writes the answer and the trace into the output
directory (``answers.jsonl`` / ``traces.jsonl``, one line per question, merged
with the lines already there) so ``orgbench score groundeval --answers DIR``
scores it. The truth file is never opened.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judges.groundeval.runtime import Corpus, GatedRuntime
from judges.groundeval.traces import load_corpus_world, load_suite
from orgbench.core.errors import InputError
from orgbench.core.storage import dumps, write_text_atomic


def _merge_line(path: Path, row: dict[str, Any]) -> None:
    lines = []
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if (obj.get("question_id"), obj.get("agent"), obj.get("mode")) != (row["question_id"], row["agent"], row["mode"]):
                lines.append(dumps(obj))
    lines.append(dumps(row))
    lines.sort()
    write_text_atomic(path, "".join(line + "\n" for line in lines))


def make_server(suite: Path, question_id: str, out: Path, agent_name: str = "mcp-agent"):
    """An MCPServer exposing the three tools for one contract."""
    from mcp.server.mcpserver import MCPServer

    _, contracts = load_suite(Path(suite))
    by_id = {c.question_id: c for c in contracts}
    if question_id not in by_id:
        raise InputError(f"--contract: no question {question_id!r} in {Path(suite) / 'contracts.jsonl'}")
    contract = by_id[question_id]
    runtime = GatedRuntime(Corpus(load_corpus_world(Path(suite))), contract.actor, contract.as_of)
    state = {"submitted": False}
    shown = contract.to_json()
    instructions = (
        "You are answering one GroundEval question as the actor named below, at the moment as_of. "
        "Use search_artifacts and fetch_artifact to gather evidence, then call submit_answer once with a JSON "
        "object following answer_schema, citing artifact ids.\n"
        + json.dumps({k: shown[k] for k in ("question_id", "track", "question", "actor", "role", "subsystems", "as_of",
                                            "answer_schema", "options")}, ensure_ascii=False))
    server = MCPServer(name="orgbench-groundeval", instructions=instructions)

    @server.tool()
    def get_contract() -> dict[str, Any]:
        """The question you must answer: text, actor, role, readable subsystems, as_of and the answer schema."""
        return {k: shown[k] for k in ("question_id", "track", "question", "actor", "role", "subsystems", "as_of",
                                      "answer_schema", "options")}

    @server.tool()
    def search_artifacts(query: str, subsystem: str | None = None, limit: int = 10) -> dict[str, Any]:
        """Search the artifacts the actor could see at as_of (BM25 over title and body)."""
        if state["submitted"]:
            return {"error": "closed", "message": "the answer was already submitted"}
        return runtime.search_artifacts(query, subsystem, limit)

    @server.tool()
    def fetch_artifact(artifact_id: str) -> dict[str, Any]:
        """Read one artifact: ID (its version at as_of) or ID@N."""
        if state["submitted"]:
            return {"error": "closed", "message": "the answer was already submitted"}
        return runtime.fetch_artifact(artifact_id)

    @server.tool()
    def submit_answer(answer: dict[str, Any] | str) -> dict[str, Any]:
        """Submit the final answer (a JSON object following answer_schema); writes the answer and the trace."""
        if state["submitted"]:
            return {"error": "closed", "message": "the answer was already submitted"}
        state["submitted"] = True
        out_dir = Path(out)
        out_dir.mkdir(parents=True, exist_ok=True)
        base = {"question_id": contract.question_id, "agent": agent_name, "mode": "tool"}
        _merge_line(out_dir / "traces.jsonl", {**base, "actor": contract.actor, "as_of": shown["as_of"],
                                               "calls": runtime.trace()})
        _merge_line(out_dir / "answers.jsonl", {**base, "answer": answer})
        return {"status": "submitted", "calls_recorded": len(runtime.calls)}

    return server


def serve(suite: Path, question_id: str, out: Path, agent_name: str = "mcp-agent") -> None:
    """Run the server on stdio until the client disconnects."""
    make_server(suite, question_id, out, agent_name).run("stdio")
