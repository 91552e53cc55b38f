"""Shortcut readers: agents that try to score without doing the work, written apart from the scorer.

Each reader answers one question from what an agent is shown (``question``: the contract as ``start_contract``
shows it) through ``Tools`` (two methods, ``search`` and ``fetch``), or from a context-mode ``Context``. None
reads the truth except ``oracle`` and ``always_wrong`` (which gathers the oracle's evidence and flips every
verdict). ``drive`` runs a reader over a suite in process, through the gated runtime and the context builder,
and ``drive_mcp`` through the suite-mode MCP server with the official MCP client; both score with the project's
scorer and return the rows.
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
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

class RuntimeTools:
    """``Tools`` over an in-process ``GatedRuntime``."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime

    def search(self, query, subsystem=None, limit=10):
        return list(self.runtime.search_artifacts(query, subsystem, limit).get("results", ()))

    def fetch(self, ref):
        return self.runtime.fetch_artifact(ref).get("artifact")


def _project_agent(name: str) -> Reader | None:
    from judges.groundeval.agent_registry import AGENTS

    agent = AGENTS.get(name) if name in ("lazy", "proximity", "bm25", "zero-shot") else None
    return None if agent is None else agent.procedure(Path(), None)   # type: ignore[return-value]


def drive(suite: Path, name: str, mode: str, corpus: Any = None) -> list[Any]:
    """Run reader ``name`` (or a project agent: lazy, zero-shot, bm25) over ``suite`` in process; scored rows."""
    from judges.groundeval.context import build_context, check_citations
    from judges.groundeval.mcp_session import shown
    from judges.groundeval.run import score_submissions
    from judges.groundeval.runtime import Corpus, GatedRuntime
    from judges.groundeval.traces import Submission, load_corpus_world, load_suite, load_truth

    corpus = corpus or Corpus(load_corpus_world(suite))
    truths = load_truth(suite)
    subs = []
    for contract in load_suite(suite)[1]:
        runtime = GatedRuntime(corpus, contract.actor, contract.as_of, record_latency=False)
        context = build_context(contract, runtime) if mode == "context" else None
        agent = _project_agent(name)
        if agent is not None:
            got = agent(contract, runtime if context is None else None, context)
        else:
            tools = RuntimeTools(runtime) if context is None else None
            got = READERS[name](shown(contract), tools, context, truths[contract.question_id])
        if context is not None:
            check_citations(runtime, got.get("evidence_artifacts"))
        subs.append(Submission(contract.question_id, name, mode, got, runtime.trace()))
    rows, _ = score_submissions(suite, subs, corpus=corpus)
    return rows


class _McpTools:
    """``Tools`` over an MCP client session running on its own event loop (calls made synchronously)."""

    def __init__(self, call: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
        self.call = call

    def search(self, query, subsystem=None, limit=10):
        return list(self.call("search_artifacts", {"query": query, "subsystem": subsystem, "limit": limit})
                    .get("results", ()))

    def fetch(self, ref):
        return self.call("fetch_artifact", {"artifact_id": ref}).get("artifact")


def drive_mcp(suite: Path, names: tuple[str, ...], out: Path) -> dict[str, list[Any]]:
    """Run each reader over the suite through the suite-mode MCP server (official client, one session each).

    The client lives in one task on the event loop; the reader runs in a worker thread and sends each call to it.
    """
    from mcp import Client

    from judges.groundeval.mcp_server import make_server
    from judges.groundeval.run import score_run
    from judges.groundeval.question_score import load_scores
    from judges.groundeval.traces import load_suite, load_truth

    truths = load_truth(suite)
    contracts = {c.question_id: c for c in load_suite(suite)[1]}

    def work(name: str, client: Any, loop: asyncio.AbstractEventLoop) -> None:
        def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            return asyncio.run_coroutine_threadsafe(client.call_tool(tool, args), loop).result().structured_content

        for row in call("list_contracts", {})["contracts"]:
            started = call("start_contract", {"question_id": row["question_id"]})["contract"]
            agent = _project_agent(name)
            if agent is not None:        # lazy / zero-shot: they read nothing
                got = agent(contracts[row["question_id"]], None, None)
            else:
                got = READERS[name](started, _McpTools(call), None, truths[row["question_id"]])
            call("submit_answer", {"answer": got})

    async def session(name: str) -> None:
        server = make_server(suite, None, out / name, name, record_latency=False)
        async with Client(server) as client:
            await asyncio.get_running_loop().run_in_executor(None, work, name, client, asyncio.get_running_loop())

    result: dict[str, list[Any]] = {}
    for name in names:
        asyncio.run(session(name))
        score_run(suite, out / name, out / f"{name}-scores")
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
