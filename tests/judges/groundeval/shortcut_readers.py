"""Shortcut readers: agents that try to score without doing the work, written apart from the scorer.

Each reader answers one question from what an agent is shown (``question``: the contract as ``start_contract``
shows it) through ``Tools`` (two methods, ``search`` and ``fetch``), or from a context-mode ``Context``. None
reads the truth except ``oracle`` and ``always_wrong`` (which gathers the oracle's evidence and flips every
verdict). ``drive_mcp`` runs readers over a suite through the suite-mode MCP server with the official MCP
client, in tool or context mode, in process or as ``serve-mcp`` processes on stdio, and scores them with the
project's scorer; ``bounds_broken`` lists the bounds of issue 29 a reader's scores break, and ``main`` (``python -m
tests.judges.groundeval.shortcut_readers SUITE...``) prints every reader's scores on each suite in both modes.
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

VERDICT = {"perspective": "could_actor_have_known", "counterfactual": "outcome_changed", "silence": "exists"}
_ID = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-[0-9][A-Za-z0-9]*\b")
_TS = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("""a an the of to in on at by for or is it as was were be been had have has did do does and that
this with from what which who whom could would should there their them they any every each where when one out
before after following follow answer cite artifacts artifact evidence list name names subsystems subsystem kept
known know learned possible seen see using only use time moment wants look place places recorded relied find
""".split())
IRRELEVANT_QUERY = "quarterly offsite lunch menu vegetarian options"


class Tools(Protocol):
    def search(self, query: str, subsystem: str | None = None, limit: int = 10) -> list[dict[str, Any]]: ...
    def fetch(self, ref: str) -> dict[str, Any] | None: ...


Reader = Callable[[dict[str, Any], "Tools | None", Any, Any], dict[str, Any]]


# -- what a reader can get from the question text alone ---------------------------------------------------

def named_ids(question: dict[str, Any]) -> list[str]:
    """Record ids the question names (not the actor), in order."""
    return [i for i in dict.fromkeys(_ID.findall(question["question"])) if i != question["actor"]]


def event_ids(question: dict[str, Any]) -> tuple[str, str]:
    """(cause, effect) event ids as a counterfactual question states them ("... event X ...")."""
    found = re.findall(r"\bevent (\S+?)[,;)\s]", question["question"] + " ")
    found = [f.rstrip(".,;)") for f in found]
    if len(found) < 2:
        return "", ""
    return (found[1], found[0]) if "came after" in question["question"] else (found[0], found[1])


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2 and not w.isdigit()}


def _text(item: dict[str, Any]) -> str:
    return f"{item.get('artifact_id', '')} {item.get('title', '')} {item.get('body', item.get('snippet', ''))}"


def mentions(item: dict[str, Any], ident: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9-]){re.escape(ident)}(?![A-Za-z0-9-])", _text(item)) is not None


def answer(question: dict[str, Any], verdict: bool, evidence: list[str] | None = None) -> dict[str, Any]:
    """A well-formed answer with ``verdict``; counterfactual fields copied from the question where it states them."""
    track = question["track"]
    out: dict[str, Any] = {VERDICT[track]: verdict, "evidence_artifacts": list(evidence or []), "reasoning": "shortcut"}
    if track == "perspective":
        out["blocked_subsystems"] = []
    elif track == "counterfactual":
        cause, effect = event_ids(question)
        mechanisms = [m for m in question.get("options", {}).get("mechanisms", []) if m != "no_causal_link"]
        out |= {"cause_event_id": cause, "effect_event_id": effect, "actors": [],
                "causal_mechanism": (mechanisms[0] if mechanisms else "causal_link") if verdict else "no_causal_link",
                "mechanism_direction": "cause_to_effect" if verdict else "no_causal_link"}
    return out


class ContextTools:
    """``Tools`` over a context-mode context: search = the items sharing a word with the query."""

    def __init__(self, context: Any) -> None:
        self.items = {item["id"]: item for item in context.items}

    def search(self, query: str, subsystem: str | None = None, limit: int = 10) -> list[dict[str, Any]]:
        words = content_words(query) | {i.lower() for i in _ID.findall(query)}
        hits = [i for i in self.items.values() if (subsystem is None or i["subsystem"] == subsystem)
                and words & (content_words(_text(i)) | {x.lower() for x in _ID.findall(_text(i))})]
        return hits[:limit]

    def fetch(self, ref: str) -> dict[str, Any] | None:
        if ref in self.items:
            return self.items[ref]
        current = [i for i in self.items.values() if i["artifact_id"] == ref]
        return max(current, key=lambda i: i["version"]) if current else None


def _tools(tools: Tools | None, context: Any) -> Tools:
    return tools if tools is not None else ContextTools(context)


# -- the readers ------------------------------------------------------------------------------------------

def always_yes(question, tools, context, truth):
    return answer(question, True)


def always_no(question, tools, context, truth):
    return answer(question, False)


def yes_after_irrelevant_search(question, tools, context, truth):
    if tools is not None:
        tools.search(IRRELEVANT_QUERY, None, 5)
    return answer(question, True)


def no_after_irrelevant_search(question, tools, context, truth):
    if tools is not None:
        tools.search(IRRELEVANT_QUERY, None, 5)
    return answer(question, False)


def _gather(question, tools: Tools) -> list[dict[str, Any]]:
    """The question searched as written, then each record it names, unfiltered; hits fetched (each once)."""
    seen: dict[str, dict[str, Any]] = {}
    for query in [question["question"], *named_ids(question)]:
        for hit in tools.search(query, None, 10):
            if hit["id"] not in seen:
                seen[hit["id"]] = tools.fetch(hit["id"]) or hit
    return list(seen.values())


def keyword_overlap(question, tools, context, truth):
    """Yes when what the question's words find mentions what the question names (most of it, or with its words)."""
    tools = _tools(tools, context)
    ids = named_ids(question)
    words = content_words(question["question"])
    after = min(_TS.findall(question["question"]), default="")
    found = []
    for item in _gather(question, tools):
        named = [i for i in ids if mentions(item, i)]
        overlap = words & content_words(_text(item))
        if question["track"] == "perspective":
            hit = bool(ids) and mentions(item, ids[0])
        elif question["track"] == "counterfactual":
            hit = len(named) >= 2
        else:
            hit = bool(named) and len(overlap) >= 2 and item.get("created_at", "") > after
        if hit:
            found.append(item["id"])
    return answer(question, bool(found), found[:5])


def latest_timestamp(question, tools, context, truth):
    """Answers from the latest record its searches found: yes when that record came after the question's first moment."""
    tools = _tools(tools, context)
    items = _gather(question, tools)
    if not items:
        return answer(question, False)
    latest = max(items, key=lambda i: (i.get("created_at", ""), i["id"]))
    ids = named_ids(question)
    if question["track"] == "silence":
        verdict = latest.get("created_at", "") > min(_TS.findall(question["question"]), default="")
    elif question["track"] == "counterfactual":      # the cause is the latest record before the effect
        entities = [i for i in ids if i not in event_ids(question)]
        if "came after" in question["question"]:
            entities.reverse()
        times = sorted(set(_TS.findall(question["question"])))
        effect_at = times[-2] if len(times) >= 2 else ""
        before = [i for i in items if i.get("created_at", "") < effect_at
                  and not (len(entities) > 1 and i.get("artifact_id") == entities[1])]
        if before:
            latest = max(before, key=lambda i: (i.get("created_at", ""), i["id"]))
        verdict = bool(before) and bool(entities) and mentions(latest, entities[0])
    else:
        verdict = any(mentions(latest, i) for i in ids)
    return answer(question, verdict, [latest["id"]])


def _oracle_answer(question, tools, context, truth, flip: bool) -> dict[str, Any]:
    gold = dict(truth.gold)
    cited = list(truth.required_evidence)
    if tools is not None:
        for record in named_ids(question)[:1]:        # in scope: the record the question is about
            if not tools.search(record, None, 10):     # nothing visible names it: the question itself, then
                tools.search(question["question"], None, 5)
        for item in truth.required_search_space:
            tools.search(str(item["selector"]), str(item["subsystem"]), 10)
        for ref in truth.required_evidence:
            tools.fetch(ref)
    if context is not None:                            # where it looked: the context's searches in scope
        searched = {s["id"] for s in context.searches}
        wanted = ["search:*"] + [f"search:{item['subsystem']}" for item in truth.required_search_space]
        cited += [c for c in dict.fromkeys(wanted) if c in searched]
    out = {**gold, "evidence_artifacts": cited, "reasoning": truth.why}
    if flip:
        track = question["track"]
        out[VERDICT[track]] = not gold[VERDICT[track]]
        if track == "counterfactual":
            flipped = answer(question, out[VERDICT[track]])
            out["causal_mechanism"] = flipped["causal_mechanism"]
            out["mechanism_direction"] = flipped["mechanism_direction"]
        if track == "perspective":
            out["blocked_subsystems"] = []
    return out


def oracle(question, tools, context, truth):
    return _oracle_answer(question, tools, context, truth, flip=False)


def always_wrong(question, tools, context, truth):
    """The oracle's evidence, every verdict flipped."""
    return _oracle_answer(question, tools, context, truth, flip=True)


READERS: dict[str, Reader] = {
    "always-yes": always_yes, "always-no": always_no,
    "yes-after-irrelevant-search": yes_after_irrelevant_search,
    "no-after-irrelevant-search": no_after_irrelevant_search,
    "keyword-overlap": keyword_overlap, "latest-timestamp": latest_timestamp,
    "always-wrong": always_wrong, "oracle": oracle,
}
NO_EVIDENCE = ("always-yes", "always-no", "lazy", "zero-shot")
CONSTANT = ("always-yes", "always-no", "yes-after-irrelevant-search", "no-after-irrelevant-search", "lazy")
RETRIEVAL = ("keyword-overlap", "latest-timestamp")


# -- driving them -----------------------------------------------------------------------------------------

def _project_agent(name: str) -> Reader | None:
    from judges.groundeval.agent_registry import AGENTS

    agent = AGENTS.get(name) if name in ("lazy", "proximity", "bm25", "zero-shot") else None
    return None if agent is None else agent.procedure(Path(), None)   # type: ignore[return-value]


class _McpTools:
    """``Tools`` over an MCP client session running on its own event loop (calls made synchronously)."""

    def __init__(self, call: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
        self.call = call

    def search(self, query, subsystem=None, limit=10):
        return list(self.call("search_artifacts", {"query": query, "subsystem": subsystem, "limit": limit})
                    .get("results", ()))

    def fetch(self, ref):
        return self.call("fetch_artifact", {"artifact_id": ref}).get("artifact")


@dataclass(frozen=True)
class ShownContext:
    """A context as ``start_contract`` shows it in context mode (what ``ContextTools`` and the oracle read)."""

    items: tuple[dict[str, Any], ...]
    searches: tuple[dict[str, Any], ...]

    @classmethod
    def of(cls, shown_contract: dict[str, Any]) -> "ShownContext | None":
        view = shown_contract.get("context")
        return None if view is None else cls(tuple(view["items"]), tuple(view["searches"]))


def _answer_over_mcp(name: str, call: Callable[[str, dict[str, Any]], dict[str, Any]], contracts: dict[str, Any],
                     truths: dict[str, Any]) -> None:
    """Reader ``name`` through one MCP session: every contract started, answered (from its context) and submitted."""
    for row in call("list_contracts", {})["contracts"]:
        started = call("start_contract", {"question_id": row["question_id"]})["contract"]
        context = ShownContext.of(started)
        agent = _project_agent(name)
        if agent is not None:        # lazy / zero-shot: they read nothing
            got = agent(contracts[row["question_id"]], None, context)
        else:
            tools = _McpTools(call) if context is None else None
            got = READERS[name](started, tools, context, truths[row["question_id"]])
        done = call("submit_answer", {"answer": got})
        assert done.get("status") == "submitted", done


def drive_mcp(suite: Path, names: tuple[str, ...], out: Path, mode: str = "tool",
              transport: str = "memory", profile: str = "orgbench") -> dict[str, list[Any]]:
    """Run each reader over the suite through the suite-mode MCP server (official client, one session each).

    ``transport`` "memory" connects the ``mcp`` package's ``Client`` to the server in process; "stdio" starts
    ``python -m orgbench serve-mcp --mode MODE`` and talks to it with ``ClientSession`` on ``stdio_client``.
    The client lives in one task on the event loop; the reader runs in a worker thread and sends each call to it.
    The answers are scored under scoring profile ``profile``.
    """
    import os
    import sys

    from mcp import Client, ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from judges.groundeval.mcp_server import make_server
    from judges.groundeval.run import score_run
    from judges.groundeval.question_score import load_scores
    from judges.groundeval.traces import load_suite, load_truth

    truths = load_truth(suite)
    contracts = {c.question_id: c for c in load_suite(suite)[1]}

    def work(name: str, client: Any, loop: asyncio.AbstractEventLoop) -> None:
        def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            return asyncio.run_coroutine_threadsafe(client.call_tool(tool, args), loop).result().structured_content

        _answer_over_mcp(name, call, contracts, truths)

    async def session(name: str) -> None:
        loop = asyncio.get_running_loop()
        if transport == "memory":
            server = make_server(suite, None, out / name, name, record_latency=False, mode=mode)
            async with Client(server) as client:
                await loop.run_in_executor(None, work, name, client, loop)
            return
        root = Path(__file__).resolve().parents[3]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
        params = StdioServerParameters(command=sys.executable, cwd=str(root), env=env, args=[
            "-m", "orgbench", "serve-mcp", "--suite", str(suite), "--out", str(out / name), "--agent-name", name,
            "--mode", mode])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            await loop.run_in_executor(None, work, name, client, loop)

    result: dict[str, list[Any]] = {}
    for name in names:
        asyncio.run(session(name))
        score_run(suite, out / name, out / f"{name}-scores", profile=profile)
        result[name] = load_scores(out / f"{name}-scores" / "questions.jsonl")
    return result


def means(rows: list[Any]) -> dict[str, dict[str, float]]:
    """Per track, per track/kind and overall: n, verdict accuracy and mean S_adj (rounded to 3 places)."""
    groups: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        if row.track is None:
            continue
        groups[row.track].append(row)
        groups[f"{row.track}/{row.kind}"].append(row)
        groups["all"].append(row)
    return {key: {"n": len(rs), "verdict": round(sum(r.answer_correct for r in rs) / len(rs), 3),
                  "s_adj": round(sum(r.s_adj for r in rs) / len(rs), 3),
                  "s_traj": round(sum(r.s_traj for r in rs) / len(rs), 3)} for key, rs in sorted(groups.items())}


def bounds_broken(name: str, scores: dict[str, dict[str, float]]) -> list[str]:
    """Every bound of issue 29's "what must hold" that reader ``name``'s scores (``means``) break."""
    from benchmark_builders.groundeval.contracts import HARD_KINDS, TRACKS

    hard = {f"{track}/{kind}" for track, kinds in HARD_KINDS.items() for kind in kinds}
    broken = []
    for key, got in scores.items():
        s_adj = got["s_adj"]
        if name in NO_EVIDENCE and key in TRACKS and s_adj > 0.55:
            broken.append(f"{key}: no evidence gathered, S_adj {s_adj}")
        if name in CONSTANT and "/" in key and s_adj > 0.45:
            broken.append(f"{key}: constant verdict, S_adj {s_adj}")
        if name in RETRIEVAL and key in hard and s_adj > 0.55:
            broken.append(f"{key}: retrieval on a hard kind, S_adj {s_adj}")
        if "/" in key and got["verdict"] == 0.0 and s_adj > 0.45:
            broken.append(f"{key}: every verdict wrong, S_adj {s_adj}")
        if name == "oracle" and s_adj != 1.0:
            broken.append(f"{key}: oracle S_adj {s_adj}")
    return broken


ALL = (*READERS, "lazy", "zero-shot")


def main(argv: list[str] | None = None) -> int:
    """Audit: every reader over each SUITE through ``serve-mcp`` (stdio) in both modes; one JSON line per run."""
    import argparse
    import json
    import tempfile

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("suites", nargs="+", type=Path)
    parser.add_argument("--modes", default="tool,context")
    parser.add_argument("--readers", default=",".join(ALL))
    parser.add_argument("--transport", default="stdio", choices=("stdio", "memory"))
    args = parser.parse_args(argv)
    failed = 0
    for suite in args.suites:
        for mode in args.modes.split(","):
            with tempfile.TemporaryDirectory() as tmp:
                runs = drive_mcp(suite, tuple(args.readers.split(",")), Path(tmp), mode, args.transport)
            for name, rows in runs.items():
                scores = means(rows)
                broken = bounds_broken(name, scores)
                failed += bool(broken)
                print(json.dumps({"suite": suite.name, "mode": mode, "reader": name,
                                  "scoring": sorted({r.scoring for r in rows}), "broken": broken,
                                  "scores": scores}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
