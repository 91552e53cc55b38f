"""Sentences in README, docs and the report that state a number or a property, checked against results/.

Each claim's numbers are read from the committed results files when the test runs (never typed here), so a
regenerated results/ either still matches the sentence or fails naming it. The claims checked:

README.md
  11. "246 items from 10 world seeds" (results/cargo/drilldown.jsonl's items, NOTES.md's seeds);
  1. what ``builtin:grounded`` penalises under CARGO (wrong escalation targets, wrong actions, derived values)
     and under CARGO+Auth beside the paper's judge (results/cargo/breakdown.csv, table1_headline.csv);
  2. "`oracle` proves a valid evidence path exists for every question" (groundeval/summary.json).
docs/groundeval.md
  3. oracle "scores S_adj = 1.0 on every contract of the default worlds" (groundeval/summary.json);
  4. which built-in agents read the truth or the raw world — the same in the docs and the report;
  18. the history paragraph ("What changed with issue 13's worlds") states no figure of an earlier state (those
      worlds and scorers are no longer in results/), and its "Now" sentence (the contracts, oracle's S_adj on every
      one, the hard-kind bounds, bm25's verdicts per track in both modes, S_adj per agent, lazy and zero-shot with
      S_traj 0) against groundeval/summary.json and table_agents.csv;
  10. the hard-kind table (S_answer tool / context, verdicts in brackets, per agent and kind) against
      groundeval/summary.json["hard_kinds"], and the per-seed sentence under it (proximity's S_answer per seed,
      bm25 the same on every seed, follow and oracle at 1.000).
docs/cargo.md
  15. the issue-30 and issue-14 paragraphs' current figures for ``builtin:grounded`` under ``cargo`` (wrong
      escalations, skips and swaps caught, P4, DI, wrong derived values, P2) against breakdown.csv and
      table1_headline.csv, and their open-case and hand-written-item figures against the figures table (which test_cargo_docs
      recomputes). The judge's and the suite's states before issue 30 are told without figures (none is in
      results/ to check them against).
docs/assurance.md
  12. the fault study's result (under P0 all 20 faults reach the stub, under P3 none, the controls complete under
      every control) against results/assurance/faults.csv;
  13. the contrast's G, its CIs, trajectories and clusters (both sentences) against results/assurance/contrast.json,
      and the share of correct steps with double-encoded arguments against the generator's constant.
docs/world.md
  14. the default world's figures (share of events in 09-17 UTC, busy UTC hours, incidents paged after hours,
      the after-hours, stall, decoy and off-day shares) recomputed from ``simulate(load_config())`` and the
      simulator's constants, and its size in events and artifact versions as docs/simulator.md and docs/exports.md
      state it (slow: simulates the default world);
  16. the event table's chat share of case steps, the decoys' share on another service and the median time to
      mitigate: the simulator's constants.
docs/assurance.md (16 continued)
  17. the default suite's trajectories, cases, distinct tool sequences and the ``arguments-json`` flags (17
      trajectories, 18 calls: truncated / double encoded, on -1 / correct steps), recomputed by building the
      suite that results/assurance/NOTES.md names (slow: simulates its world).
docs/groundeval.md (results files)
  20. the drill-down file "near 3.7 MB" (MiB, within 0.1) "for the three default worlds (seven agents)" against
      results/groundeval/drilldown.jsonl and summary.json's seeds.
  21. the warm-up's bounds ("until eight contracts in a row ... or 64 contracts") against mcp_warmup's constants.
docs/groundeval.md (measured)
  19. the MCP load figures (calls/s, p50, p99, RSS growth from minute 1 to 2 with and without a pause after each
      reply, and before the warm-up; the answers written by minute 1 and 2; the load averages around the runs)
      against the benchmark outputs recorded under benchmarks/measured/ (``bench_mcp_load.py --record``: command,
      commit, load average and what it printed). tests/orgbench/test_measured_records.py checks that each record's
      commit is in the history.
Checked elsewhere: docs/groundeval.md's task-fixture scores in context mode (oracle 1.0, skip-precondition 0.75,
wrong-field 0.25) by tests/benchmark_builders/groundeval/test_ge_domains.py; its upstream comparison (orgbench
S_adj and upstream's overall on the task fixture and on upstream's demo) by
tests/judges/groundeval/test_ge_upstream_tasks.py, which runs upstream's scorer (it skips without a copy of
upstream, GROUNDEVAL_UPSTREAM); docs/cargo.md's figures table by tests/judges/test_cargo_docs.py.
docs/judges.md (local models)
  22. the quick run's judge calls, agent turns, model time per study and seconds per judgment against results-local/
      (the committed run of the two local models); the slot, thread and decode measurements of 2026-12-01/02 are told
      as history with their date and commit (no record of them is committed; re-measuring needs slow model runs).
docs/simulator.md and docs/sweeps.md (measured)
  23. the 1x-64x rows, their load and wall/CPU span, the cost ratios and the 64x world's peak against
      benchmarks/measured/simulate_scales.json (``bench_simulate.py --scales --record``); the 32-world sweep of
      2026-12-01 is told as history with its commit (two hours of both cores to measure again).
docs/groundeval.md and docs/spec/groundeval.md (recorded and pinned)
  24. the default reproduce's calls and distinct claims against benchmarks/measured/groundeval_claims.json
      (``benchmarks/groundeval_claims.py --record``); the search goals at 1M versions, and which the run met, against
      benchmarks/measured/search_1m.json; the upstream commit the spec names against tests/upstream_groundeval.py's
      ``PINS`` (the commit the upstream-comparison tests extract).
Checked elsewhere too: docs/cargo.md's billing-credit tickets behind a recorded breach (recounted from the ten worlds'
event logs) by tests/benchmark_builders/cargo/test_open_and_derived.py, its third held-out set's penalised correct
answers and their notes (the judge of the commit that scored them, run again) by
tests/judges/cargo_prose/test_issue30_items.py; docs/groundeval.md's preprint-profile figures (rescored under that
profile) by tests/judges/groundeval/test_ge_hard_kinds.py; docs/judges.md's llama.cpp whitespace bound (read from the
llama.cpp the local extra installs) by tests/judges/test_verdict_schema.py.
Every sentence, list item and table row of README.md, docs/*.md and docs/spec/*.md that states a figure is keyed in
tests/orgbench/doc_registry.py with its class (result, measured, design, tested, paper, history, example,
unchecked) and the test that checks it; ``test_every_sentence_stating_a_figure_is_registered`` fails on one that is not (list them:
``python -m tests.orgbench.doc_figures --counts``).
results/index.html (the report, rendered here from results/)
  5. every tagged number of the first screen and the findings boxes, recomputed from its source key;
  6. the first screen names all three studies;
  7. P2 and P4 definitions name exactly the kinds results/cargo/breakdown.csv holds;
  8. zero-shot's Perspective explanation: no violation, S_traj 0 (no evidence sought), S_adj below S_answer;
  9. no "Figure: figure:" caption.
"""

from __future__ import annotations

import csv
import html
import json
import re
import subprocess
from pathlib import Path

import pytest

from orgbench.report import write_report
from tests.orgbench.test_report_findings import recompute

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"
pytestmark = pytest.mark.skipif(not (RESULTS / "cargo").is_dir(), reason="results/ not committed")


def _csv(path: str) -> list[dict[str, str]]:
    with open(RESULTS / path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _flat(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


def _kinds(judge: str, condition: str, by: str) -> dict[str, tuple[int, int]]:
    return {r["group"]: (int(r["penalised"]), int(r["judged"])) for r in _csv("cargo/breakdown.csv")
            if r["judge"] == judge and r["condition"] == condition and r["by"] == by}


def _summary() -> dict:
    return json.loads((RESULTS / "groundeval" / "summary.json").read_text(encoding="utf-8"))


#: The last prose set scored while still held out: its name, builtin:grounded's DI on it and on the suite when it was
#: scored (tests/judges/cargo_prose/test_issue30_items.py pins both).
LAST_HELD_OUT = ("fifth", ".41", ".93")


def test_readme_says_what_builtin_grounded_penalises():
    p4 = _kinds("builtin:grounded", "cargo", "P4 kind")
    p2 = _kinds("builtin:grounded", "cargo", "P2 value kind")
    derived = [p2[k] for k in ("count", "days")]
    headline = {r["judge"]: r for r in _csv("cargo/table1_headline.csv") if r["condition"] == "cargo+auth"}
    paper = next(j for j in headline if j.startswith("paper"))
    suite = next(r["DI"] for r in _csv("cargo/table1_headline.csv") if r["condition"] == "cargo" and r["judge"] == "builtin:grounded")
    said = (f"penalises {p4['wrong_escalation'][0]} of {p4['wrong_escalation'][1]} wrong escalation targets, "
            f"{p4['wrong_action'][0]} of {p4['wrong_action'][1]} wrong actions and {sum(p for p, _ in derived)} of "
            f"{sum(n for _, n in derived)} contradicted derived values (counts and day spans); on the last hand-written "
            f"prose set held out when scored (the {LAST_HELD_OUT[0]}, docs/cargo.md) its DI was "
            f"{LAST_HELD_OUT[1]} against {LAST_HELD_OUT[2]} on the suite then, which is {suite} now; under CARGO+Auth it "
            f"penalises {headline['builtin:grounded']['P4']} of procedural corruptions, the paper's LLM judge "
            f"{headline[paper]['P4']}")
    assert said in _flat(ROOT / "README.md")
    assert "catches every" not in _flat(ROOT / "README.md")


def test_oracle_has_a_valid_path_on_every_contract_as_readme_and_docs_say():
    assert "`oracle` proves a valid evidence path exists for every question" in _flat(ROOT / "README.md")
    assert "it scores S_adj = 1.0 on every contract of the default worlds" in _flat(ROOT / "docs" / "groundeval.md")
    summary = _summary()
    assert summary["checks"]["oracle_s_adj_min"] == 1.0
    assert all(modes[mode]["all"]["min_s_adj"] == 1.0 for name, modes in summary["agents"].items()
               if name == "oracle" for mode in modes)


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> str:
    return write_report(RESULTS, tmp_path_factory.mktemp("report") / "index.html").read_text(encoding="utf-8")


def test_the_report_and_the_docs_agree_on_what_the_built_in_agents_read(page):
    docs = _flat(ROOT / "docs" / "groundeval.md")
    assert "`oracle` (reads the truth file" in docs and "`leaky` (reads the raw world files" in docs
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "oracle reads the truth file to choose what to fetch" in text and "leaky reads the raw world files" in text
    assert "never the truth files" not in text.split("GroundEval: answers reached")[1].split("Judge-input")[0]


def test_every_tagged_number_on_the_page_is_its_source_files_value(page):
    spans = re.findall(r'<span class="num" data-key="([^"]+)">([^<]*)</span>', page)
    first = page[page.index('id="summary"'):page.index("</section>", page.index('id="summary"'))]
    assert len(re.findall('class="num"', first)) >= 10 and len(spans) > 40
    for key, text in spans:
        assert html.unescape(text) == recompute(html.unescape(key)), key


def test_the_first_screen_names_all_three_studies(page):
    first = page[page.index('id="summary"'):page.index("</section>", page.index('id="summary"'))]
    assert [m for m in re.findall(r'class="card" data-study="(\w+)"', first)] == ["cargo", "groundeval", "assurance"]
    assert page.index('id="summary"') < page.index('id="cargo"')


def test_p2_and_p4_are_defined_by_the_kinds_the_results_hold(page):
    defs = dict(re.findall(r"<dt>(P[24] [^<]+)</dt><dd>([^<]+)</dd>", page))
    for family, by, word in (("P2", "P2 value kind", "value kinds"), ("P4", "P4 kind", "corruptions")):
        kinds = sorted({r["group"] for r in _csv("cargo/breakdown.csv") if r["by"] == by})
        text = next(v for k, v in defs.items() if k.startswith(family))
        assert text.endswith(f"In these results, {word}: {', '.join(kinds)}."), text
        for absent in {w for w in ("status", "entitlement", "skip", "swap") if not any(k.startswith(w) for k in kinds)}:
            assert absent not in text, (family, absent)


def test_zero_shots_perspective_explanation_holds():
    perspective = _summary()["agents"]["zero-shot"]["tool"]["perspective"]
    assert perspective["s_traj"] == 0 and perspective["s_adj"] < perspective["s_answer"]
    assert perspective["violation_rate"] == 0


def test_no_caption_repeats_figure(page):
    assert "Figure: figure" not in page and "Figure: Figure" not in page


def _three(x: float) -> str:
    return "0" if x == 0 else f"{x:.3f}".replace("0.", ".", 1) if x < 1 else f"{x:.3f}"


def test_the_hard_kind_table_in_the_docs_is_summary_json():
    hard = _summary()["hard_kinds"]
    docs = (ROOT / "docs" / "groundeval.md").read_text(encoding="utf-8")
    for kind in ("counterfactual/indirect", "counterfactual/named_decoy", "silence/indirect", "all hard kinds"):
        cells = [kind, str(hard[kind]["bm25"]["tool"]["n"])]
        for agent in ("bm25", "proximity", "follow", "oracle"):
            tool, context = hard[kind][agent]["tool"], hard[kind][agent]["context"]
            cell = f"{_three(tool['s_answer'])} / {_three(context['s_answer'])}"
            if agent in ("bm25", "proximity") and kind != "all hard kinds":
                cell += f" ({_three(tool['verdict_correct'])} / {_three(context['verdict_correct'])})"
            cells.append(cell)
        row = "| " + " | ".join(cells) + " |"
        assert row in docs, row


def test_the_per_seed_hard_kind_sentence_is_summary_json():
    seeds = _summary()["hard_kinds"]["per_seed"]
    docs = _flat(ROOT / "docs" / "groundeval.md")
    kinds = ("counterfactual/indirect", "counterfactual/named_decoy", "silence/indirect")

    def pair(seed: str, kind: str) -> str:
        scores = seeds[seed][kind]["proximity"]
        return f"{_three(scores['tool']['s_answer'])} / {_three(scores['context']['s_answer'])}"

    sizes = [{seeds[s][k]["bm25"]["tool"]["n"] for s in seeds} for k in kinds]
    assert all(len(n) == 1 for n in sizes)          # the same on every seed
    n_indirect, n_named, n_si = (next(iter(n)) for n in sizes)
    said = (f"Per seed (n = {n_indirect}, {n_named}, {n_si} per seed), S_answer of proximity on counterfactual/indirect is "
            f"{pair('0', kinds[0])}, {pair('1', kinds[0])} and {pair('2', kinds[0])} on seeds 0, 1, 2, and on "
            f"named_decoy {pair('0', kinds[1])}, {pair('1', kinds[1])} and {pair('2', kinds[1])}")
    assert said in docs, said
    bm25 = {}
    for kind in kinds:
        values = {_three(seeds[s][kind]["bm25"][m]["s_answer"]) for s in seeds for m in ("tool", "context")}
        assert len(values) == 1, (kind, values)             # "on every seed and mode"
        bm25[kind] = values.pop()
    assert (f"bm25 is {bm25[kinds[0]]} on indirect, {bm25[kinds[1]]} on named_decoy and {bm25[kinds[2]]} on "
            "silence/indirect on every seed and mode") in docs
    assert all(seeds[s][k][a][m]["s_answer" if a == "follow" else "s_adj"] == 1.0 for s in seeds
               for k in seeds[s] for a in ("follow", "oracle") for m in ("tool", "context"))


def test_readme_states_the_default_suites_size_and_seeds():
    items = {json.loads(line)["fields"]["item"] for line in (RESULTS / "cargo" / "drilldown.jsonl").read_text().splitlines()}
    notes = (RESULTS / "cargo" / "NOTES.md").read_text(encoding="utf-8")
    seeds = re.search(r"from (\d+) simulated worlds \(seeds ([\d, ]+);", notes)
    assert seeds is not None and int(seeds.group(1)) == len(seeds.group(2).split(","))
    assert f"{len(items)} items from {seeds.group(1)} world seeds" in _flat(ROOT / "README.md")


def test_the_fault_studys_result_sentence_is_faults_csv():
    rows = _csv("assurance/faults.csv")
    controls = {r["case"] for r in rows if r["case"].startswith("control")}
    faults = {r["case"] for r in rows} - controls
    reached = {level: {r["case"] for r in rows if r["control"] == level and r["reached_judge"] == "true"}
               for level in ("P0", "P3")}
    assert reached["P0"] == faults and not reached["P3"] and controls
    assert all(r["stopped_at"] == "" for r in rows if r["case"] in controls)       # controls complete everywhere
    assert (f"Result: under P0 all {len(faults)} faults reach the stub, under P3 none; the controls complete under "
            "every control.") in _flat(ROOT / "docs" / "assurance.md")


def test_the_contrast_sentence_is_contrast_json():
    c = json.loads((RESULTS / "assurance" / "contrast.json").read_text(encoding="utf-8"))
    g, ci = c["G"], c["G_ci95"]
    said = (f"On the default suite ({c['trajectories']} trajectories in {c['clusters_by_request']} clusters, "
            f"`{c['judge']}`): G original {g['original']} (95% CI {ci['original'][0]:.1f} to {ci['original'][1]:.1f}), "
            f"restored {g['restored']} ({ci['restored'][0]:.1f} to {ci['restored'][1]:.1f}), reduction {g['reduction']};")
    assert said in _flat(ROOT / "docs" / "assurance.md")
    cohort = (f"so the contrast cohort of the default suite is {c['trajectories']} trajectories in "
              f"{c['clusters_by_request']} clusters")
    assert cohort in _flat(ROOT / "docs" / "assurance.md")


def test_the_odd_argument_share_in_docs_assurance_md_is_the_generators():
    from benchmark_builders.trajectories.simulate import ODD_BUT_ACCEPTED

    assert f"about {round(100 * ODD_BUT_ACCEPTED)}% of correct steps (+1) carry double-encoded arguments" in \
        _flat(ROOT / "docs" / "assurance.md")


@pytest.mark.slow          # simulates the default 60-person, 90-day world
def test_the_default_worlds_figures_in_docs_world_md():
    from simulator.config import load_config
    from simulator.simulate import simulate
    from simulator.processes import engineering, support

    world = simulate(load_config())
    events = list(world.events)
    in_hours = sum(1 for e in events if 9 <= e.ts.hour < 17) / len(events)
    busy = sum(1 for hour in range(24) if sum(1 for e in events if e.ts.hour == hour) >= 0.005 * len(events))
    incidents = [e for e in events if e.type == "incident.opened"]
    paged = [e for e in events if e.type == "incident.paged" and e.payload["after_hours"]]
    text = _flat(ROOT / "docs" / "world.md")
    assert f"{100 * in_hours:.1f}% of events in 09–17 UTC; {busy} of 24 UTC hours hold at least 0.5% of them" in text
    assert f"({len(paged)} of {len(incidents)} incidents in the default world" in text
    assert f"({round(100 * engineering.AFTER_HOURS_SHARE)}% of deploys in the last 6 working hours" in text
    assert f"and {round(100 * engineering.STALL_SHARE)}% of incidents stall" in text
    assert f"weekends and holidays at {round(100 * support.OFF_DAY_LOAD)}%" in text
    size = f"{len(events):,} events"
    assert f"wrote {len(events):,} events and {len(world.artifacts):,} artifact versions per world" in \
        _flat(ROOT / "docs" / "simulator.md")
    assert f"| 1× | 60 × 90 | {len(events):,} |" in _flat(ROOT / "docs" / "simulator.md")
    assert f"(`orgbench simulate`, {size}) `generate` exits 0" in _flat(ROOT / "docs" / "exports.md")
    # the artifact-kind table's kinds of one version each: every artifact of those kinds has exactly one
    single = re.findall(r"\| `(\w+)` \| \w+ \| `[A-Z]+-n` \| [^|]+ \| 1 \|", text)
    versions: dict[str, dict[str, int]] = {}
    for artifact in world.artifacts:
        kind = versions.setdefault(artifact.kind, {})
        kind[artifact.artifact_id] = max(kind.get(artifact.artifact_id, 0), artifact.version)
    assert len(single) == 11 and all(versions.get(kind) for kind in single), single
    assert {kind: max(versions[kind].values()) for kind in single} == dict.fromkeys(single, 1)
    # docs/groundeval.md: an artifact's versions count from 1, at the artifact's own timestamp
    first: dict[str, tuple[int, object]] = {}
    for artifact in world.artifacts:
        if artifact.artifact_id not in first or artifact.version < first[artifact.artifact_id][0]:
            first[artifact.artifact_id] = (artifact.version, artifact.created_at)
    assert {version for version, _ in first.values()} == {1}
    assert "Artifacts are versioned so that no future state leaks into the past: version 1, at the artifact's own " \
           "timestamp" in _flat(ROOT / "docs" / "groundeval.md")


@pytest.mark.slow          # simulates the default 60-person, 90-day world
def test_the_default_worlds_cases_ids_and_prose_size_in_docs_world_md():
    from orgbench.prose.rewrite import DEFAULT_KINDS
    from simulator.config import load_config
    from simulator.simulate import simulate

    world = simulate(load_config())
    events, versions = list(world.events), list(world.artifacts)
    text = _flat(ROOT / "docs" / "world.md")
    opened = [e.payload["procedure_id"] for e in events if e.type == "case.opened"]
    runbooks = len(set(opened))
    assert f"each of the {runbooks} runbooks gets about an eighth of the cases (≈ {round(len(opened) / runbooks)} each" in text
    prose = [v for v in versions if v.kind in DEFAULT_KINDS]
    assert (f"a default world has {len(versions):,} versions, {len(prose):,} of them of the default kinds "
            f"({round(sum(len(v.body) for v in prose) / len(prose))} characters on average)") in text
    every = json.dumps([[e.event_id, e.actors, e.payload] for e in events] + [[v.artifact_id, v.facts] for v in versions],
                       default=str)
    rows = re.findall(r"^\| [^|]+ \| (`[A-Z]+-` (?:from \d+|\+ \d+ digits)[^|]*)\|", (ROOT / "docs" / "world.md").read_text(
        encoding="utf-8"), re.M)
    assert len(rows) >= 7
    for row in rows:
        for prefix, rule, value in re.findall(r"`([A-Z]+)-` (from|\+) (\d+)", row):
            ids = re.findall(rf"\b{prefix}-(\d+)\b", every)
            assert ids, prefix
            if rule == "from":
                assert min(int(i) for i in ids) == int(value), (prefix, min(ids))
            else:
                assert {len(i) for i in ids} == {int(value)}, prefix


def test_docs_cargo_paragraphs_state_the_current_grounded_figures():
    p4 = _kinds("builtin:grounded", "cargo", "P4 kind")
    p2 = _kinds("builtin:grounded", "cargo", "P2 value kind")
    row = next(r for r in _csv("cargo/table1_headline.csv")
               if r["condition"] == "cargo" and r["judge"] == "builtin:grounded")
    derived = [p2[k] for k in ("count", "days")]
    text = _flat(ROOT / "docs" / "cargo.md")
    caught, judged = sum(p for p, _ in p4.values()), sum(n for _, n in p4.values())
    assert all(p == n for p, n in p2.values())
    assert f"catches on the suite every P2 and {caught} of {judged} P4 (DI {row['DI']};" in text
    assert f"It now works both out from the record and catches all {sum(n for _, n in derived)}." in text
    assert sum(p for p, _ in derived) == sum(n for _, n in derived)
    assert f"{p4['wrong_action'][0]} of the {p4['wrong_action'][1]} same-role wrong actions it missed before" in text
    assert f"It catches {p4['wrong_action'][0]} of the suite's {p4['wrong_action'][1]} same-role wrong actions" in text
    table = re.search(r"open-case items: P1/P3 penalised / P2/P4 caught \| (\d+) of (\d+) / (\d+) of (\d+) \|", text)
    assert table is not None
    assert (f"On open cases it penalises {table.group(1)} of {table.group(2)} correct answers and catches "
            f"{table.group(3)} of {table.group(4)} P2/P4 (the table above)") in text
    hand = re.search(r"issue-30 hand-written items, `builtin:grounded` under `cargo`, penalised per family \[95% Wilson "
                     r"interval\] \| P1 (\d+)/(\d+) \S+ \S+ P3 (\d+)/(\d+) \S+ \S+ P2 (\d+)/(\d+) \S+ \S+ P4 (\d+)/(\d+) ", text)
    assert hand is not None
    p1, n1, p3, n3, c2, n2, c4, n4 = hand.groups()
    assert p1 == p3 == "0"
    assert (f"penalises no correct answer (0 of {n1} P1, 0 of {n3} P3) and catches {c2} of {n2} P2 and {c4} of {n4} P4 "
            "(DI ") in text
    gap = re.search(r"issue-30 hand-written items, absolute difference \(issue 30 asks at most \.15\) \| (\S+) \|", text)
    assert gap is not None and f"two DIs are {gap.group(1)} apart." in text
    third = re.search(r"third held-out items \(64; the fourth change's development set since they were scored\), "
                      r"`builtin:grounded` under `cargo`, P1 / P3 / P2 / P4, DI \| (\S+) / (\S+) / (\S+) / (\S+), DI (\S+) \|", text)
    assert third is not None
    assert f"and the third P1 {third.group(1)}, P3 {third.group(2)}, P2 {third.group(3)}, P4 {third.group(4)}, DI {third.group(5)}" in text
    held = re.search(r"fourth held-out items \(64; the fifth change's development set since they were scored\), "
                     r"`builtin:grounded` under `cargo`, P1 / P3 / P2 / P4, DI \| (\S+) / (\S+) / (\S+) / (\S+), DI (\S+) \|", text)
    assert held is not None
    assert f"The fourth set then reads P1 {held.group(1)}, P3 {held.group(2)}, P2 {held.group(3)}, P4 {held.group(4)}, DI {held.group(5)}" in text


def test_the_event_tables_shares_in_docs_world_md_are_the_simulators():
    from simulator.processes import engineering, support

    text = _flat(ROOT / "docs" / "world.md")
    assert (f"case_id (about {round(100 * support.CHAT_UPDATE_SHARE)} % of steps, never for strategic accounts)"
            in text)
    assert f"at least one **decoy** change — {round(100 * engineering.DECOY_OTHER_SERVICE)} % on another service" in text
    assert f"mitigation takes a log-normal time (median {engineering.MITIGATION_MEDIAN:g} min)" in text


@pytest.mark.slow          # simulates the assurance world (60 days)
def test_the_assurance_suites_figures_in_docs_assurance_md():
    from benchmark_builders.trajectories.simulate import cases_from_world, simulate_trajectories
    from judges.assurance.checks import check_source
    from simulator.config import load_config
    from simulator.simulate import simulate

    notes = (RESULTS / "assurance" / "NOTES.md").read_text(encoding="utf-8")
    named = re.search(r"World seed (\d+), (\d+) days; (\d+) simulated support-agent trajectories", notes)
    assert named is not None
    seed, days, n = (int(x) for x in named.groups())
    trajectories, labels = simulate_trajectories(cases_from_world(simulate(load_config(seed=seed, days=days))), n, seed)
    clusters = {t.cluster for t in trajectories}
    sequences = {tuple(c.name for m in t.messages for c in m.tool_calls) for t in trajectories}
    flagged: list[tuple[str, str, int]] = []          # (trajectory, kind, label) per flagged call
    for trajectory, label in zip(trajectories, labels):
        (finding,) = [f for f in check_source(trajectory) if f.requirement == "arguments-json"]
        for call in finding.detail.removeprefix("invalid JSON: ").split(", ") if finding.detail else ():
            kind = call.split(" (")[1].rstrip(")") if " (" in call else "truncated"
            flagged.append((trajectory.trajectory_id, kind, label.labels[int(call.split("@")[1].split()[0])]))
    text = _flat(ROOT / "docs" / "assurance.md")
    assert f"{n} trajectories work the first {len(clusters)} cases, round robin" in text
    assert f"{n} trajectories show {len(sequences)} distinct tool sequences" in text
    kinds = [kind for _, kind, _ in flagged]
    on_wrong = sum(1 for _, _, label in flagged if label == -1)
    assert set(kinds) <= {"truncated", "double encoded"}
    assert (f"on the default suite (seed {seed}, {n} trajectories) it flags {len({t for t, _, _ in flagged})} "
            f"trajectories, {len(flagged)} calls: {kinds.count('truncated')} truncated, {kinds.count('double encoded')} "
            f"double encoded; {on_wrong} of the {len(flagged)} are on -1 steps and {len(flagged) - on_wrong} on correct "
            "ones") in text


def test_the_history_paragraphs_current_figures_are_summary_json_and_table_agents_csv():
    rows = {(r["agent"], r["mode"], r["track"]): r for r in _csv("groundeval/table_agents.csv")}
    summary = _summary()

    def adj(agent: str, mode: str = "tool", track: str = "all") -> str:
        return rows[agent, mode, track]["S_adj"].removeprefix("0")

    doc = _flat(ROOT / "docs" / "groundeval.md")
    history = doc[doc.index("**What changed with issue 13's worlds.**"):doc.index("**Now**")]
    assert re.search(r"[.0-9]\d*\s*(→|->)", history) is None            # no figure of an earlier state
    said = re.search(r"\*\*Now\*\* \(the (\d+) contracts of the default worlds; [^)]*\): oracle S_adj (\S+) on every "
                     r"contract; on the hard kinds bm25 and proximity S_answer at most (\S+) on every kind in both modes, "
                     r"follow and oracle (\S+); bm25 verdict correct (\S+) Perspective, (\S+) Counterfactual, (\S+) "
                     r"Silence in both modes; S_adj: bm25 tool (\S+)/(\S+)/(\S+) \(Perspective/Counterfactual/Silence\), "
                     r"all (\S+); bm25 context (\S+)/(\S+)/(\S+), all (\S+); lazy (\S+) and zero-shot (\S+) in both "
                     r"modes \(S_traj 0: they never look\); proximity tool (\S+); leaky tool (\S+); follow tool (\S+), "
                     r"context (\S+); oracle (\S+)\.", doc)
    assert said is not None
    contracts, oracle_min, bound, follow, *verdicts = said.groups()[:7]
    assert int(contracts) == summary["contracts"]
    oracle = summary["agents"]["oracle"]
    assert all(float(oracle_min) == oracle[m]["all"]["min_s_adj"] for m in ("tool", "context"))
    kinds = {k: v for k, v in summary["hard_kinds"].items() if "/" in k}
    assert kinds and all(v[a][m]["s_answer"] <= float(bound) for v in kinds.values() for a in ("bm25", "proximity")
                         for m in ("tool", "context"))
    assert all(v[a][m]["s_answer"] == float(follow) for v in kinds.values() for a in ("follow", "oracle")
                         for m in ("tool", "context"))
    bm25 = summary["agents"]["bm25"]
    assert verdicts == [f"{bm25['tool'][t]['verdict_correct']:.3f}".removeprefix("0")
                        for t in ("perspective", "counterfactual", "silence")]
    assert all(bm25["tool"][t]["verdict_correct"] == bm25["context"][t]["verdict_correct"] for t in bm25["tool"])
    tracks = ("perspective", "counterfactual", "silence", "all")
    assert list(said.groups()[7:]) == [
        *(adj("bm25", "tool", t) for t in tracks), *(adj("bm25", "context", t) for t in tracks),
        adj("lazy"), adj("zero-shot"), adj("proximity"), adj("leaky"), adj("follow"), adj("follow", "context"),
        adj("oracle")]
    for agent in ("lazy", "zero-shot"):                      # "in both modes", "S_traj 0"
        assert adj(agent) == adj(agent, "context")
        assert all(float(r["S_traj"]) == 0 for key, r in rows.items() if key[0] == agent)


def _measured(name: str) -> dict:
    """A benchmark's recorded output (``--record``): its command, commit, load and what it printed."""
    return json.loads((ROOT / "benchmarks" / "measured" / name).read_text(encoding="utf-8"))


def _recorded_on(name: str, commit: str) -> list[dict]:
    """The versions of ``benchmarks/measured/<name>`` in git history whose record names ``commit`` (a prefix), newest
    first; none in a shallow clone or an archive."""
    history = subprocess.run(["git", "log", "--format=%H", "--", f"benchmarks/measured/{name}"], cwd=ROOT,
                             capture_output=True, text=True)
    records = [json.loads(subprocess.run(["git", "show", f"{rev}:benchmarks/measured/{name}"], cwd=ROOT,
                                         capture_output=True, text=True, check=True).stdout)
               for rev in history.stdout.split()] if history.returncode == 0 else []
    return [record for record in records if record["commit"].startswith(commit)]


def test_the_mcp_load_figures_in_docs_groundeval_md_are_the_recorded_benchmark_outputs():
    text = _flat(ROOT / "docs" / "groundeval.md")
    said = re.search(r"50 stdio clients for two minutes \(`benchmarks/measured/(\S+)`\) made (\S+) calls/s at p50 (\S+) ms "
                     r"and p99 (\S+) ms, and the 50 servers' summed RSS grew (\S+) MB from minute 1 to minute 2 \((\S+) of "
                     r"(\S+) answers written by minute 1: every client had been through the suite\); with each "
                     r"client pausing (\d+) ms after every reply \(`(\S+)`: the servers still in their first pass through "
                     r"the suite at minute 2, (\S+) of (\S+) answers written by then\) it grew (\S+) MB, where the servers "
                     r"before the warm-up \(`(\S+)`\) grew (\S+) MB\.", text)
    assert said is not None
    (plain, rate, p50, p99, growth, at_1, all_1, think, paced, at_2, expected, paced_growth, before,
     before_growth) = said.groups()
    run, slow, old = _measured(plain)["printed"], _measured(paced)["printed"], _measured(before)["printed"]
    assert (run["clients"], run["servers"], run["think_ms"], run["seconds"] >= 120) == (50, 50, 0, True)
    assert [rate, p50, p99, growth] == [str(run["calls_per_s"]), str(run["p50_ms"]), str(run["p99_ms"]),
                                        str(run["rss_growth_mb"])]
    assert [at_1, all_1] == [f"{run['answers_by_minute'][0]:,}", f"{run['answers_expected_at_most']:,}"] and at_1 == all_1
    loads = re.search(r"Measured on 2 cores shared with other developers \(1-minute load average ([\d.]+)–([\d.]+) around "
                      r"the three runs, the 50 servers' own load included\)", text)
    assert loads is not None
    around = [load for name in (plain, paced, before) for load in _measured(name)["load_average"]]
    assert [float(x) for x in loads.groups()] == [min(around), max(around)]
    said = re.search(r"That run measured the warm-up commit's parent on main \(`(\w+)`\) with `bench_mcp_load.py` as the "
                     r"commit that gave it `--record` has it \(`\w+`; `--think-ms` came with the warm-up\), the same pace: "
                     r"([\d,]+) answers by minute 2\.", text)
    assert said is not None
    assert _measured(before)["commit"].startswith(said.group(1))
    assert said.group(2) == f"{old['answers_by_minute'][1]:,}"
    for printed in (slow, old):
        assert (printed["clients"], printed["think_ms"], printed["seconds"] >= 120) == (50, int(think), True)
        assert printed["answers_by_minute"][1] < printed["answers_expected_at_most"]     # still in the first pass
    assert [int(at_2.replace(",", "")), int(expected.replace(",", ""))] == [slow["answers_by_minute"][1],
                                                                           slow["answers_expected_at_most"]]
    assert [paced_growth, before_growth] == [str(slow["rss_growth_mb"]), str(old["rss_growth_mb"])]
    assert run["rss_growth_mb"] <= 5 and slow["rss_growth_mb"] <= 5             # the bound
    assert _measured(before)["commit"] != _measured(paced)["commit"]


def test_the_simulator_figures_in_docs_simulator_md_are_the_recorded_benchmark_output():
    said = re.search(r"The recorded run \(`benchmarks/measured/(\S+)`, 1-minute load average (\S+) before and (\S+) after, "
                     r"on 2 shared cores\) wrote (\S+) events and (\S+) artifact versions per world; over (\d+) rounds "
                     r"the simulator ran at a median (\S+) events per CPU-second, the floor at (\S+) and the bare loop "
                     r"at (\S+) timeouts per CPU-second \(`python -c pass`: (\S+) CPU-s\)\. The simulator's share of "
                     r"the floor \(`share_of_floor`, the median of the rounds' ratios\) is (\S+) \(rounds (\S+)–(\S+)\)",
                     _flat(ROOT / "docs" / "simulator.md"))
    assert said is not None
    name, before, after, events, versions, rounds, sim, flo, bare, passed, share, low, high = said.groups()
    record = _measured(name)
    printed = record["printed"]
    assert record["command"].startswith("python benchmarks/bench_simulate.py --quick")
    assert [float(before), float(after)] == record["load_average"]
    number = lambda text: int(text.replace(",", ""))  # noqa: E731
    assert [number(events), number(versions), int(rounds)] == [printed["events"], printed["artifact_versions"],
                                                                printed["repeats"]]
    assert len(printed["rounds"]) == printed["repeats"]
    assert [number(sim), number(flo), number(bare)] == [printed["simulator_events_per_cpu_s"],
                                                        printed["floor_events_per_cpu_s"],
                                                        printed["bare_simpy_timeouts_per_cpu_s"]]
    assert float(passed) == printed["python_pass_cpu_s"]
    assert [float(share), float(low), float(high)] == [printed["share_of_floor"], *printed["share_of_floor_range"]]
    shares = sorted(r["share_of_floor"] for r in printed["rounds"])
    assert shares[len(shares) // 2] == printed["share_of_floor"]            # the median of the rounds
    said = re.search(r"is \S+ \(rounds \S+\): above the ([\d.]+) issue 36 asks for, by little, and no round under it\. "
                     r"The record before this session's changes .*? said ([\d.]+) \(rounds ([\d.]+)–([\d.]+)\), on (\w+) at a "
                     r"load of ([\d.]+)–([\d.]+);", _flat(ROOT / "docs" / "simulator.md"))
    assert said is not None
    goal, share_before, low_before, high_before, commit, load_before, load_after = said.groups()
    assert min(r["floor_cpu_s"] / r["simulator_cpu_s"] for r in printed["rounds"]) >= float(goal)     # no round under it
    befores = _recorded_on(name, commit)
    if befores:     # the record before, from the repository's history (absent from a shallow clone or an archive)
        before = befores[0]
        assert [float(x) for x in (share_before, low_before, high_before, load_before, load_after)] == [
            before["printed"]["share_of_floor"], *before["printed"]["share_of_floor_range"], *before["load_average"]]


def test_the_scale_rows_in_docs_simulator_md_and_sweeps_md_are_the_recorded_benchmark_output():
    text = _flat(ROOT / "docs" / "simulator.md")
    said = re.search(r"The rows below were recorded by `python benchmarks/bench_simulate.py --scales --record "
                     r"benchmarks/measured/(\S+)` on 2 shared cores \(1-minute load average ([\d.]+)–([\d.]+) around "
                     r"its four children, so the wall times are ([\d.]+)–([\d.]+) times the CPU times; the CPU figures "
                     r"are the comparable ones\)", text)
    assert said is not None
    name, low, high, slow, fast = said.groups()
    record = _measured(name)
    scales = record["printed"]["scales"]
    assert record["command"] == f"python benchmarks/bench_simulate.py --scales --record benchmarks/measured/{name}"
    loads = [row[k] for row in scales.values() for k in ("load_before", "load_after")]
    ratios = [row["seconds"] / row["cpu_seconds"] for row in scales.values()]
    assert [low, high, slow, fast] == [f"{min(loads):.1f}", f"{max(loads):.1f}", f"{min(ratios):.1f}", f"{max(ratios):.1f}"]
    sizes = re.search(r"simulates worlds of (\d+)×, (\d+)×, (\d+)× and (\d+)× the default size", text)
    assert sizes is not None and [f"{s}x" for s in sizes.groups()] == list(scales)
    for size, row in scales.items():
        assert (f"| {size[:-1]}× | {row['people']} × {row['days']} | {row['events']:,} | {row['seconds']:.1f} | "
                f"{row['cpu_seconds']:.1f} | {row['us_per_event']:.1f} | {row['cpu_us_per_event']:.1f} | "
                f"{row['peak_rss_mb']:.0f} MB |") in text, size
    printed = record["printed"]
    cost = {k: f"{printed[k]:.2f}" for k in ("cpu_cost_ratio_64x_vs_1x", "cost_ratio_64x_vs_1x", "cpu_cost_ratio_16x_vs_1x",
                                             "cost_ratio_16x_vs_1x")}
    assert (f"64×/1× cost per event: {cost['cpu_cost_ratio_64x_vs_1x']} in CPU time, {cost['cost_ratio_64x_vs_1x']} in "
            f"wall time (16×/1×: {cost['cpu_cost_ratio_16x_vs_1x']} and {cost['cost_ratio_16x_vs_1x']})") in text
    largest = scales["64x"]
    assert "The 64× world stays under 1 GB" in text and largest["peak_rss_mb"] < 1024
    assert (f"the 64× world ({largest['people']} people × {largest['days']} days, {largest['events']:,} events) peaks at "
            f"{largest['peak_rss_mb']:.0f} MB RSS, at {cost['cpu_cost_ratio_64x_vs_1x']}× the 1× world's CPU cost per event "
            f"({cost['cost_ratio_64x_vs_1x']}× in wall time, on a shared machine at load {min(loads):.1f}–{max(loads):.1f}; "
            f"`benchmarks/measured/{name}`;") in _flat(ROOT / "docs" / "sweeps.md")
    seeds = _bench_default("bench_sweep.py", "--seeds")
    assert f"`python benchmarks/bench_sweep.py` measures the {seeds}-world sweep" in _flat(ROOT / "docs" / "sweeps.md")


def test_the_drilldown_size_in_docs_groundeval_md_is_the_committed_files():
    said = re.search(r"keeps the file near (\S+) MB for the (\w+) default worlds \((\w+) agents\)",
                     _flat(ROOT / "docs" / "groundeval.md"))
    assert said is not None
    path = RESULTS / "groundeval" / "drilldown.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert abs(path.stat().st_size / 2**20 - float(said[1])) <= 0.1          # "near": within 0.1 MiB
    words = {"three": 3, "seven": 7}
    assert words[said[2]] == len(_summary()["seeds"])
    assert words[said[3]] == len({r["fields"]["agent"] for r in records})


def test_the_warm_up_sentence_names_its_bounds():
    from judges.groundeval.mcp_warmup import MAX_CONTRACTS, STEADY

    said = re.search(r"until (\w+) contracts in a row leave the process's resident size no larger, or (\d+) contracts",
                     _flat(ROOT / "docs" / "groundeval.md"))
    assert said is not None
    assert ({"eight": 8}.get(said[1]), int(said[2])) == (STEADY, MAX_CONTRACTS)


def _local(study: str) -> dict:
    """results-local/STUDY/compare.json: the committed quick run of the two local models (docs/judges.md)."""
    return json.loads((ROOT / "results-local" / study / "compare.json").read_text(encoding="utf-8"))


def test_the_local_model_figures_in_docs_judges_md_are_results_local():
    from orgbench.studies.models import CONTRAST_DRAWS, QUICK

    text = _flat(ROOT / "docs" / "judges.md")
    cargo, ge, contrast = _local("cargo")["judges"], _local("groundeval")["agents"], _local("assurance")["judges"]
    models = {"SmolLM2": "local:smollm2", "Gemma 3 270M": "local:gemma3-270m"}
    judgments = {m: sum(c["judgments"] for c in cargo[m]["conditions"].values()) for m in models.values()}
    said = re.search(r"the quick subset is (\d+) judge calls per model \((\d+) CARGO, (\d+) contrast\) plus the agent "
                     r"turns \((\d+) here: neither model ever called a tool, both answered every contract in text at once, "
                     r"so S_adj is (\d+)\)", text)
    assert said is not None
    calls, on_cargo, on_contrast, turns, s_adj = (int(x) for x in said.groups())
    for model in models.values():
        assert (judgments[model], contrast[model]["draws"], ge[model]["turns"]) == (on_cargo, on_contrast, turns)
        assert ge[model]["tool_call_turns"] == 0 and ge[model]["tracks"]["all"]["s_adj"] == s_adj
        assert contrast[model]["packets"] * CONTRAST_DRAWS == contrast[model]["draws"]
    assert calls == on_cargo + on_contrast
    said = re.search(r"\| assurance \| the later-context contrast on the first (\d+) cohort trajectories \((\d+) packets, "
                     r"(\d+) draws each\)", text)
    assert said is not None
    assert [int(x) for x in said.groups()] == [QUICK.contrast_trajectories, contrast["local:smollm2"]["packets"], CONTRAST_DRAWS]
    number = lambda text: round(float(text.replace(",", "")))  # noqa: E731
    totals = {}
    for name, model in models.items():
        said = re.search(rf"\*\*{name} ([\d,]+) s\*\* \((?:CARGO )?([\d,]+), (?:GroundEval )?([\d,]+), (?:contrast )?([\d,]+)\)",
                         text)
        assert said is not None, name
        parts = [cargo[model]["wall_s"], ge[model]["wall_s"], contrast[model]["wall_s"]]
        assert [number(x) for x in said.groups()] == [round(sum(parts)), *(round(p) for p in parts)]
        totals[model] = sum(parts)
    said = re.search(r"one after the other: about the sum of their totals, (\d+) h (\d+) min", text)
    assert said is not None
    assert 60 * int(said[1]) + int(said[2]) == round(sum(totals.values()) / 60)
    said = re.search(r"These are (\d+)M and (\d+)M models on two CPU cores: in the committed quick run \(results-local/\) a "
                     r"CARGO judgment took ([\d.]+) s \(SmolLM2\) and ([\d.]+) s \(Gemma 3 270M\) on average", text)
    assert said is not None
    readme = (ROOT / "results-local" / "README.md").read_text(encoding="utf-8")
    assert f"SmolLM2-{said[1]}M" in readme and f"Gemma 3 {said[2]}M" in readme
    assert [said[3], said[4]] == [f"{cargo[m]['wall_s'] / judgments[m]:.1f}" for m in models.values()]


CLASSES = ("result", "measured", "design", "tested", "paper", "history", "example", "unchecked")
#: Units whose figure no test ties to a source yet (doc_registry.py's ``unchecked``): lower it when you tie one; a new
#: figure gets a check, not a place here.
UNCHECKED_AT_MOST = 0


def test_every_sentence_stating_a_figure_is_registered():
    from tests.orgbench.doc_figures import classify, stating, units
    from tests.orgbench.doc_registry import REGISTRY

    unregistered = [f"{u.path}:{u.line}: {u.text[:120]}" for u in stating() if not classify(u, REGISTRY)]
    assert not unregistered, "figures no test or reason covers (add them to doc_registry.py):\n" + "\n".join(unregistered)
    unchecked = sum(kind == "unchecked" for quotes in REGISTRY.values() for kind, _ in quotes.values())
    assert unchecked <= UNCHECKED_AT_MOST, f"{unchecked} unchecked figures, {UNCHECKED_AT_MOST} allowed: give the new ones a check"
    for path, quotes in REGISTRY.items():
        texts = [" ".join(u.text.split()) for u in units(ROOT / path)]
        for quote, (kind, check) in quotes.items():
            assert kind in CLASSES and check, (path, quote)
            assert sum(quote in t for t in texts) == 1, f"{path}: {quote!r} quotes {sum(quote in t for t in texts)} units"
            if kind in ("result", "measured", "tested") or "::" in check:
                test_file, name = check.split("::")
                assert f"def {name}(" in (ROOT / test_file).read_text(encoding="utf-8"), check
            if check.endswith("::test_figure_checks"):      # one of FIGURE_CHECKS reads this very unit
                unit = next(t for t in texts if quote in t)
                flat = _flat(ROOT / path)
                assert any((m := re.search(pattern, flat)) and kind == k and (
                    m.group(0) in unit or unit in m.group(0) or m.group(0)[:30] in unit or m.group(0)[-30:] in unit)
                    for doc, pattern, k, _ in FIGURE_CHECKS if doc == path), (path, quote)
            for named in re.findall(r"tests/[\w/]+\.py", check):         # a reason's test files exist
                assert (ROOT / named).is_file(), (path, quote, named)


def _cli_default(command: str, option: str):
    """The default of ``option`` of ``orgbench COMMAND`` (words separated by spaces), as click holds it."""
    import click

    from orgbench.cli import cli

    group: click.Command = cli
    for word in command.split():
        assert isinstance(group, click.Group)
        group = group.commands[word]
    return next(p.default for p in group.params if option in p.opts)


def _weights() -> tuple[str, ...]:
    from judges.groundeval.scoring_profile import WEIGHTS

    return tuple(f"{_three(a)[:3]}/{_three(t)[:3]}" for a, t in (WEIGHTS[k] for k in ("perspective", "counterfactual", "silence")))


def _design(name: str):
    """A constant of the code, by dotted name."""
    import importlib

    module, _, attribute = name.rpartition(".")
    value = importlib.import_module(module)
    for part in attribute.split(":"):
        value = getattr(value, part)
    return value


def _runner_record() -> tuple[str, ...]:
    record = _measured("runner.json")
    run = record["printed"]
    return (str(record["load_average"][0]), f"{run['ratio']:.2f}", f"{1000 * run['server_delay_s']:g}",
            str(run["concurrency"]))


def _gating_from_the_figures_table() -> tuple[str, ...]:
    """Plain and near-vocabulary out-of-scope questions at margin 0 and near the in-scope margins, from docs/cargo.md's
    figures table (which tests/judges/test_cargo_docs.py recomputes from the suite)."""
    text = _flat(ROOT / "docs" / "cargo.md")
    zero, total = re.search(r"\| out-of-scope questions with retrieval margin 0 \| (\d+) of (\d+) \|", text).groups()
    near_zero, near_kept, near = re.search(r"\| near-vocabulary out-of-scope questions: at margin 0 / at or above the "
                                           r"in-scope items' 10th-percentile margin \| (\d+) / (\d+) of (\d+) \|", text).groups()
    assert near_zero == "0"                                  # "none of the near-vocabulary ones does"
    return str(int(zero) - int(near_zero)), str(int(total) - int(near)), near_kept, near


def _mutation_study() -> tuple[str, ...]:
    rows = _csv("assurance/mutations.csv")
    completed = [r for r in rows if r["first_stop"] == "completed"]
    assert all(r["defended_both"] == "true" for r in rows)                      # "none through"
    assert not any(r["defended_audit_only"] == "false" for r in rows)          # "with the inline checker off, none"
    return (str(len(rows)), str(sum(r["stopped_before_read"] == "true" for r in rows)), str(len(completed)),
            {1: "one"}.get(sum(r["defended_inline_only"] == "false" for r in rows), "?"))


def _mutation_origins() -> tuple[str, ...]:
    origins = [r["origin"] for r in _csv("assurance/mutations.csv")]
    return str(origins.count("paper")), str(origins.count("independent")), str(origins.count("issue"))


def _hard_kind_bound() -> tuple[str, ...]:
    hard = _summary()["hard_kinds"]
    figures = [hard[k][a][m][f] for k in hard if "/" in k for a in ("bm25", "proximity") for m in ("tool", "context")
               for f in ("s_answer", "verdict_correct")]
    return (_three(max(figures)),)


def _world_split(track: str) -> tuple[str, ...]:
    from benchmark_builders.groundeval.build import WORLD_CONFIG, _split
    from benchmark_builders.groundeval.tracks import track as named

    split = _split(WORLD_CONFIG.counts[track], WORLD_CONFIG.ratios[track], named(track).kinds)
    return (str(WORLD_CONFIG.counts[track]), *(str(n) for n in split.values()))


def _family_size(family: str) -> tuple[str, ...]:
    from benchmark_builders.cargo.records import DEFAULT_SIZES

    return (str(DEFAULT_SIZES[family]),)


def _quick_cargo() -> tuple[str, ...]:
    from judges.conditions import VARIANTS, parse_conditions
    from orgbench.studies.models import CARGO_JUDGE_SEEDS, QUICK

    per_family, cells = QUICK.cargo_per_family, len(parse_conditions("all", rubric_swap=True) + list(VARIANTS.values()))
    assert per_family is not None and len(CARGO_JUDGE_SEEDS) == 1
    return (str(per_family), str(4 * per_family), str(cells), str(4 * per_family * cells), str(CARGO_JUDGE_SEEDS[0]))


def _bench_default(script: str, option: str) -> str:
    """The default of a benchmark script's integer ``option``, as its argparse line gives it."""
    source = (ROOT / "benchmarks" / script).read_text(encoding="utf-8")
    found = re.search(rf'add_argument\("{option}", type=int, default=(\d+)', source)
    assert found is not None, (script, option)
    return found[1]


def _bench_sweep_workers() -> str:
    """The Ray workers ``bench_sweep.py`` gives each Ray sweep (``--workers N`` on the command it runs)."""
    found = re.findall(r'"--workers", "(\d+)"', (ROOT / "benchmarks" / "bench_sweep.py").read_text(encoding="utf-8"))
    assert len(set(found)) == 1, found
    return found[0]


def _kwarg_default(name: str, parameter: str):
    """The default of a function's parameter, the function by dotted name."""
    import inspect

    return inspect.signature(_design(name)).parameters[parameter].default


def _bench_groundeval_targets() -> tuple[str, str]:
    """benchmarks/bench_groundeval.py's scoring anchor (its ``goals``) and its search world's version target."""
    source = _source("benchmarks/bench_groundeval.py")
    anchor = re.findall(r'"scoring_questions_per_s": ([\d_]+)', source)
    target = re.findall(r"bench_search\(([\d_]+),", source)
    assert len(anchor) == len(target) == 1, (anchor, target)
    return f"{int(anchor[0]):,}", f"{int(target[0]):,}"


def _bootstrap_level() -> str:
    import inspect

    from judges.metrics import bootstrap_di

    return f"{100 * inspect.signature(bootstrap_di).parameters['level'].default:g}"


def _minute_zero() -> tuple[str, str]:
    """The UTC time of day of simulation minute 0 (``BusinessCalendar.moment(0)``), as HH, MM."""
    from simulator.calendar import BusinessCalendar
    from simulator.config import load_config

    config = load_config()
    zero = BusinessCalendar(config.start, config.days, config.calendar).moment(0)
    assert zero.utcoffset() is not None and zero.utcoffset().total_seconds() == 0 and zero.date() == config.start
    return f"{zero.hour:02d}", f"{zero.minute:02d}"


def _cluster_level() -> str:
    """The cluster bootstrap's interval (``judges.bootstrap.cluster_interval``: its percentiles' span), in %."""
    import inspect

    from judges.bootstrap import percentile_interval

    bounds = inspect.signature(percentile_interval).parameters
    return f"{bounds['high'].default - bounds['low'].default:g}"


def _source(path: str) -> str:
    """A file of the repository, as text (for a literal the code holds inline)."""
    return (ROOT / path).read_text(encoding="utf-8")


def _inspect_temperature() -> str:
    """``orgbench/cargo_bench``'s default temperature, as its signature in orgbench/harness/inspect_tasks.py gives it."""
    found = re.search(r"temperature: float = ([\d.]+)", _source("orgbench/harness/inspect_tasks.py"))
    assert found is not None
    return f"{float(found[1]):g}"


def _cold_goal(goal: int) -> tuple[str, str]:
    """The cold-scoring goal, and whether the recorded rate with the index built reaches it."""
    rate = _measured("groundeval_cold_scoring.json")["printed"]["cold_scoring"]["index_built_questions_per_cpu_s"]
    return f"{goal:,}", "reached" if rate >= goal else "not reached"


def _search_goals() -> tuple[str, ...]:
    """The goals at 1M versions as benchmarks/measured/search_1m.json records them (load in s, memory in GB, p99 in ms),
    and what its run met: the memory and the p99 ("met" or "not met", both alike), the load in CPU time."""
    printed = _measured("search_1m.json")["printed"]
    goals, search = printed["goals"], printed["rounds"][0]["search"]
    met = {search["peak_rss_mb"] <= goals["peak_rss_mb"], search["query_cpu_ms_p99"] <= goals["query_cpu_ms_p99"]}
    return (f"{goals['load_s']:g}", f"{goals['peak_rss_mb'] / 1024:g}", f"{goals['query_cpu_ms_p99']:g}",
            {frozenset({True}): "met", frozenset({False}): "not met"}.get(frozenset(met), "?"),
            "in CPU time" if search["load_cpu_s"] <= goals["load_s"] else "?")


def _index_build() -> tuple[str, str]:
    """Building the 1M-version index as benchmarks/measured/search_1m.json records it (CPU seconds, peak RSS in MB):
    the record must come from a run that built it."""
    printed = _measured("search_1m.json")["printed"]
    assert "index_built" in printed, "search_1m.json was recorded with a kept index: no build figures to quote"
    built = printed["index_built"]
    assert built["peak_rss_mb"] <= printed["goals"]["peak_rss_mb"]
    return f"{built['index_build_cpu_s']:.1f}", f"{built['peak_rss_mb']:,.0f}"


def _claims_record(name: str) -> tuple[str, ...]:
    """The default reproduce's calls and distinct claims, as ``benchmarks/groundeval_claims.py`` recorded them."""
    record = _measured(name)
    assert record["command"].startswith("python benchmarks/groundeval_claims.py") and record["command"].endswith(
        f"--record benchmarks/measured/{name}")
    return f"{record['printed']['calls']:,}", f"{record['printed']['distinct_claims']:,}", name


def _upstream_pin() -> tuple[str]:
    """The short commit of upstream main that the upstream-comparison tests extract (tests/upstream_groundeval.py)."""
    from tests.upstream_groundeval import MAIN, PINS

    return (PINS[MAIN][:7],)


def _drilldown_decimals() -> tuple[str]:
    """The decimals of every ``s_adj`` filter field in results/groundeval/drilldown.jsonl (one count for all)."""
    lines = (RESULTS / "groundeval" / "drilldown.jsonl").read_text(encoding="utf-8").splitlines()
    places = {len(json.loads(line)["fields"]["s_adj"].split(".")[1]) for line in lines}
    assert len(places) == 1, places
    return (str(places.pop()),)


def _no_link_floor() -> tuple[str, ...]:
    """What a constant "no link" earns on a Counterfactual question (the parts it gets right over the parts that count,
    times its verdict accuracy, at chance), and bm25's S_answer and verdict on the indirect kind, the same on every seed
    (results/groundeval/summary.json)."""
    parts = _design("judges.groundeval.scoring_profile._PREPRINT_CF")
    right = sum(parts[k] for k in ("outcome", "mechanism", "direction"))
    kept = _design("judges.groundeval.scoring_profile._KEPT")
    per_seed = _summary()["hard_kinds"]["per_seed"]
    bm25 = {(r["s_answer"], r["verdict_correct"]) for seed in per_seed.values()
            for r in seed["counterfactual/indirect"]["bm25"].values()}
    assert len(bm25) == 1, bm25
    answer, verdict = bm25.pop()
    return (_three(right)[:3], _three(kept)[:3], _three(right / kept * 0.5), _three(0.5), _three(answer), _three(verdict))


def _verdict_bounds() -> tuple[str, ...]:
    from judges.backends.local import DEFAULT_MAX_TOKENS
    from judges.verdict_schema import longest_answer, token_bound, verdict_schema

    schema = verdict_schema()
    return str(len(longest_answer(schema).encode())), str(token_bound(schema)), str(DEFAULT_MAX_TOKENS)


def _question_id_digits() -> tuple[str, ...]:
    from benchmark_builders.groundeval.contracts import question_id

    return (str(len(question_id("silence", {}).split("-")[1])),)


def _cargo_suite() -> tuple[str, ...]:
    items = {json.loads(line)["fields"]["item"] for line in (RESULTS / "cargo" / "drilldown.jsonl").read_text().splitlines()}
    seeds = re.search(r"simulated worlds \(seeds ([\d, ]+);", (RESULTS / "cargo" / "NOTES.md").read_text(encoding="utf-8"))
    assert seeds is not None
    numbers = [int(x) for x in seeds.group(1).split(",")]
    assert numbers == list(range(numbers[0], numbers[-1] + 1))          # "seeds 0-9": a range
    return str(len(numbers)), str(numbers[0]), str(numbers[-1]), str(len(items))


def _default_world() -> tuple[str, ...]:
    from simulator.config import load_config

    config = load_config()
    return str(config.people), str(config.days), str(config.seed)


def _same_bound() -> str:
    accounts, weight = _design("simulator.config.MAX_ACCOUNTS_PER_PERSON"), _design("simulator.config.MAX_INTERACTION_WEIGHT")
    assert accounts == weight
    return f"{accounts:g}"


def _same_rate(*kinds: str) -> str:
    """The one rate key of ``kinds`` (the docs give them one bound), after checking they share it."""
    maxima = _design("simulator.config.RATE_MAXIMA")
    assert len({maxima[f"{k}_per_person"] for k in kinds}) == 1, kinds
    return f"{kinds[0]}_per_person"


def _prose_record() -> tuple[str, ...]:
    record = _measured("prose_emulated.json")
    run = record["printed"]
    return (f"{run['rewrites_per_s']:.0f}", str(run["concurrency"]), str(record["load_average"][0]),
            f"{60 * run['hours_for_versions']:.1f}", f"{run['versions']:,}", str(run["cached"]["from_cache"]),
            f"{run['cached']['wall_s']:g}")


def _graph(*names: str) -> tuple[str, ...]:
    """Constants of the collaboration graph (``simulator/graph.py``), as the docs print them."""
    return tuple(f"{_design('simulator.graph.' + n):g}" for n in names)


def _offices() -> tuple[str, ...]:
    """London's, New York's and Singapore's UTC offsets and the UTC hours of the company's working day there."""
    from simulator.config import load_config

    calendar, offices = load_config().calendar, _design("simulator.offices.OFFICES")
    start, end = calendar.workday_start, calendar.workday_end
    hours = {o: tuple(f"{(h - offices[o][0]) % 24:02d}" for h in (start, end)) for o in ("New York", "Singapore")}
    return (str(offices["London"][0]), str(-offices["New York"][0]), *hours["New York"], str(offices["Singapore"][0]),
            *hours["Singapore"])


def _counterfactual_parts() -> tuple[str, ...]:
    parts = _design("judges.groundeval.scoring_profile._PREPRINT_CF")
    kept = _design("judges.groundeval.scoring_profile._KEPT")
    stated = {parts[k] for k in _design("judges.groundeval.scoring_profile._STATED")}
    assert len(stated) == 1                                     # ".20 each"
    return (_three(parts["outcome"])[:3], _three(kept)[:3], *(_three(parts[k])[:3] for k in ("mechanism", "direction",
            "evidence", "actor")), _three(stated.pop())[:3])


def _held_out_items(name: str, shape: bool = False) -> tuple[str, ...]:
    """How many items a hand-written CARGO item file holds (and, with ``shape``, how many per family and per P4 kind)."""
    from collections import Counter

    path = ROOT / "tests" / "judges" / "cargo_prose" / name
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not shape:
        return (str(len(rows)),)
    families, kinds = Counter(r["family"] for r in rows), Counter(r["kind"] for r in rows if r["family"] == "P4")
    assert set(families) == {"P1", "P2", "P3", "P4"} and len(set(families.values())) == 1 and len(set(kinds.values())) == 1
    return str(len(rows)), str(families["P1"]), {4: "four"}.get(next(iter(kinds.values())), "?")


def _max_turns() -> tuple[str, ...]:
    pytest.importorskip("inspect_ai", reason="the inspect extra")
    import inspect

    from orgbench.harness.inspect_tasks import groundeval

    return (str(inspect.signature(groundeval).parameters["max_turns"].default),)


def _assurance_record() -> tuple[str, ...]:
    record = _measured("assurance.json")
    run = record["printed"]
    rates = run["packets_per_cpu_s"]
    return (str(record["load_average"][0]), f"{rates['signed']['full_pipeline']:,}",
            f"{rates['unsigned']['full_pipeline']:,}", f"{run['signed_share_of_unsigned']:.2f}",
            ", ".join(f"{r:.2f}" for r in run["signed_share_of_unsigned_rounds"]))


#: Figures checked here: (doc, a pattern of its flattened text whose groups are the figures, class, what they must be).
#: ``doc_registry.py`` points each unit one of these patterns matches at ``test_figure_checks``.
FIGURE_CHECKS: tuple[tuple[str, str, str, object], ...] = (
    ("docs/adapter-openai-agents.md", r"`--max-turns` \(default (\d+)\) caps model turns", "design",
     lambda: (str(_cli_default("observe", "--max-turns")),)),
    ("docs/groundeval.md", r"packs them into `--budget` characters \(default ([\d,]+)\)", "design",
     lambda: (f"{_cli_default('run-agent', '--budget'):,}",) if _cli_default("run-agent", "--budget") ==
     _design("judges.groundeval.context.DEFAULT_BUDGET") else ("differs",)),
    ("docs/groundeval.md", r"paired bootstrap 95% CI \(`--resamples`, default ([\d,]+);", "design",
     lambda: (f"{_cli_default('compare', '--resamples'):,}",)),
    ("docs/spec/cargo.md", r"95% CI by item-level bootstrap, ([\d,]+) resamples, seeded", "design",
     lambda: (f"{_design('judges.bootstrap.RESAMPLES'):,}",)),
    ("docs/groundeval.md", r"the anchor the preprint's ([\d,]+) questions/s refers to\).*?search / fetch latency on a world "
     r"with more than ([\d,]+) artifact versions", "design", lambda: _bench_groundeval_targets()),
    ("docs/judges.md", r"DI with its (\d+)% bootstrap CI \(none where.*? Cohen's κ for every pair of judges with its (\d+)% "
     r"CI \(items resampled, ([\d,]+) resamples, seed (\d+)\).*? differ \(the first (\d+) per condition in the Markdown",
     "design", lambda: (_bootstrap_level(), _cluster_level(), f"{_cli_default('compare', '--resamples'):,}",
                        str(_kwarg_default("judges.agreement.kappa_interval", "seed")),
                        str(_design("judges.comparison.DISAGREEMENTS_SHOWN")))),
    ("docs/judges.md", r"`--timeout` \(default (\d+) s\)", "design", lambda: (f"{_cli_default('judge', '--timeout'):g}",)),
    ("docs/judges.md", r"\(`--max-retries`, default (\d+)\)", "design", lambda: (str(_cli_default("judge", "--max-retries")),)),
    ("docs/judges.md", r"Temperature \(default (\d+)\), max tokens", "design",
     lambda: (f"{_cli_default('judge', '--temperature'):g}",)),
    ("docs/harnesses.md", r"`orgbench judge` uses are temperature (\d+) and the judge seed \((\d+) by default\)", "design",
     lambda: (f"{_cli_default('judge', '--temperature'):g}", str(_cli_default("judge", "--seeds")))),
    ("docs/assurance.md", r"The id charset: non-empty, at most (\d+) characters", "design",
     lambda: (str(_design("benchmark_builders.trajectories.identifiers.MAX_ID")),)),
    ("docs/cargo.md", r"`cb-` \+ the first (\d+) hex digits", "design",
     lambda: (str(_design("benchmark_builders.cargo.identity.ID_HEX_DIGITS")),)),
    ("docs/cargo.md", r"simulates its worlds at (\d+) people over (\d+) days each", "design",
     lambda: tuple(str(_design("benchmark_builders.cargo.worlds.CARGO_WORLD")[k]) for k in ("people", "days"))),
    ("docs/cargo.md", r"licence transfer, password reset\), (\d+) per world", "design",
     lambda: (str(_design("benchmark_builders.cargo.plan.SuiteConfig:gating_per_world")),)),
    ("docs/cargo.md", r"\*\*Case states\*\* \(`benchmark_builders/cargo/cases.py`\)\. (\d+)% of every family's items", "design",
     lambda: (str(round(100 * _design("benchmark_builders.cargo.plan.SuiteConfig:open_share"))),)),
    ("docs/cargo.md", r"the correct live answer with 1–(\d) extra sentences", "design",
     lambda: (str(_design("benchmark_builders.cargo.plan.SuiteConfig:max_extras")),)),
    ("docs/cargo.md", r"the correct answer with one value \((\d+)%: two\)", "design",
     lambda: (str(round(100 * _design("benchmark_builders.cargo.plan.SuiteConfig:two_value_share"))),)),
    ("docs/cargo.md", r"hashed \(([\d,]+) buckets\) TF-IDF", "design",
     lambda: (f"{_design('benchmark_builders.cargo.retrieval.DIMENSIONS'):,}",)),
    ("docs/groundeval.md", r"no request reached it for (\d+) minutes", "design",
     lambda: (f"{_design('judges.groundeval.mcp_transports.SESSION_IDLE_S') / 60:g}",)),
    ("docs/groundeval.md", r"answered with HTTP 400 and its JSON-RPC error, or 413 over (\d) MiB", "design",
     lambda: (f"{_design('judges.groundeval.jsonrpc_screen.MAX_MESSAGE_BYTES') / 2**20:g}",)),
    ("docs/groundeval.md", r"or error, or a line over (\d) MiB", "design",
     lambda: (f"{_design('judges.groundeval.jsonrpc_screen.MAX_MESSAGE_BYTES') / 2**20:g}",)),
    ("docs/groundeval.md", r"or is over ([\d,]+) characters", "design",
     lambda: (f"{_design('judges.groundeval.mcp_session.MAX_ANSWER_CHARS'):,}",)),
    ("docs/groundeval.md", r"\?agent=NAME`: 1-(\d+) letters, digits", "design",
     lambda: (str(1 + int(re.search(r"\{0,(\d+)\}", _design("judges.groundeval.mcp_transports.AGENT_NAME").pattern)[1])),)),
    ("docs/groundeval.md", r"v = 0 when n = 0\); weights (\.\d\d/\.\d\d), (\.\d\d/\.\d\d), (\.\d\d/\.\d\d)\.", "design", _weights),
    ("docs/spec/groundeval.md", r"Default weights \(w_a, w_t\): Perspective (\.\d\d/\.\d\d), Counterfactual (\.\d\d/\.\d\d), "
     r"Silence (\.\d\d/\.\d\d)\.", "design", _weights),
    ("docs/judges.md", r"\(load average ([\d.]+)\) the client sustained ([\d.]+) of the bound a (\d+) ms server allows at "
     r"(\d+) in flight \(`python benchmarks/bench_runner.py`, recorded in `benchmarks/measured/runner.json`\)", "measured",
     lambda: _runner_record()),
    ("docs/cargo.md", r"now (\d+) of the (\d+) plain ones do, none of the near-vocabulary ones does, and (\d+) of the (\d+) have",
     "result", _gating_from_the_figures_table),
    ("docs/assurance.md", r"Result \(`results/assurance/NOTES.md`\): (\d+) cases, (\d+) stopped before the stub read a byte, "
     r"(\d+) neutralised, none through; with the disk audit off (\w+) gets through", "result", _mutation_study),
    ("docs/assurance.md", r"Its cases: the paper's (\d+) and CRLF; (\d+) written by a helper", "result",
     lambda: _mutation_origins()[:2]),
    ("docs/assurance.md", r"and (\d+) more that issue 15 names", "result", lambda: _mutation_origins()[2:]),
    ("docs/assurance.md", r"is one test per case \((\d+)\)", "result", lambda: (str(len({r["case"] for r in _csv("assurance/faults.csv")})),)),
    ("docs/groundeval.md", r"every hard-kind figure of bm25 and proximity is at or below (\.\d+)\.", "result", _hard_kind_bound),
    ("docs/groundeval.md", r"Counterfactual count (\d+) = (\d+) causal \+ (\d+) decoy \+ (\d+) indirect \+ (\d+) named_decoy", "design",
     lambda: _world_split("counterfactual")),
    ("docs/groundeval.md", r"Silence (\d+) = (\d+) \+ (\d+) \+ (\d+) indirect", "design", lambda: _world_split("silence")),
    *((doc, rf"\| {family} [a-z ]+ \|[^|]+\| (?:pass|fail|no|yes) \| (\d+) \|", "design", lambda f=family: _family_size(f))
      for doc in ("docs/cargo.md", "docs/spec/cargo.md") for family in ("P1", "P3", "P2", "P4")),
    ("docs/judges.md", r"the first (\d+) items of each family P1–P4 in id order \((\d+) items\) × all (\d+) condition cells "
     r"\((\d+) judgments\), judge seed (\d+)", "design", _quick_cargo),
    ("docs/judges.md", r"\| GroundEval \| (\d+) contracts of world seed (\d+) taking turns", "design",
     lambda: (str(_design("orgbench.studies.models.QUICK").groundeval_contracts),
              str(_design("orgbench.studies.models.GROUNDEVAL_SEED")))),
    ("docs/judges.md", r"Its longest answer is (\d+) bytes .* a verdict needs at most (\d+) tokens, below the local default "
     r"of (\d+)\.", "design", _verdict_bounds),
    ("docs/judges.md", r"A `--max-tokens` below (\d+) can cut verdicts off", "design", lambda: _verdict_bounds()[1:2]),
    ("docs/judges.md", r"verdict, at most (\d) claims of 1-(\d+) printable ASCII characters", "design",
     lambda: (str(_design("judges.verdict_schema.MAX_CLAIMS")), str(_design("judges.verdict_schema.CLAIM_CHARS")))),
    ("docs/sweeps.md", r"\(`\[endpoints.\"URL\"\] concurrency`, default (\d+)\)", "design",
     lambda: (str(_design("orgbench.sweep.spec.DEFAULT_CONCURRENCY")),)),
    ("docs/sweeps.md", r"in chunks of about ([\d,]+) records", "design", lambda: (f"{_design('simulator.stream.CHUNK'):,}",)),
    ("docs/plugins.md", r"question ids are `PREFIX-` \+ (\d+) hex digits", "design", _question_id_digits),
    ("docs/groundeval.md", r"Question ids are `PER-`/`CF-`/`SIL-` \+ (\d+) hex digits", "design", _question_id_digits),
    ("docs/groundeval.md", r"builds contracts from the default worlds \(seeds (\d+), (\d+), (\d+)\)", "result",
     lambda: tuple(str(s) for s in _summary()["seeds"])),
    ("docs/groundeval.md", r"\[\"hard_kinds\"\]`, seeds (\d+), (\d+), (\d+) pooled", "result",
     lambda: tuple(str(s) for s in _summary()["seeds"])),
    ("docs/cargo.md", r"# (\d+) worlds \(seeds (\d+)-(\d+)\), (\d+) items", "result", _cargo_suite),
    ("docs/simulator.md", r"# the default: ~(\d+) people, (\d+) days, seed (\d+)", "design", _default_world),
    ("docs/world.md", r"during its first hours (\d)–(\d) \(SEV1\), (\d)–(\d) \(SEV2\) or (\d)–(\d) \(SEV3\) customers", "design",
     lambda: tuple(str(n) for s in ("SEV1", "SEV2", "SEV3") for n in _design("simulator.processes.cascades.REPORTS")[s])),
    ("docs/world.md", r"and the credit \(USD (\d+) or (\d+) per started hour over, at most ([\d,]+)\)",
     "design", lambda: (*(str(_design("simulator.processes.cascades.CREDIT_PER_HOUR")[k]) for k in ("four_hour", "next_business_day")),
                        f"{_design('simulator.processes.cascades.MAX_CREDIT'):,}")),
    ("docs/world.md", r"Rates per person per business day are at most: cases, changes and wiki edits (\d+); chat (\d+); direct "
     r"messages (\d+); email (\d+)\. `accounts_per_person` and `interaction_weight` are at most (\d+), staffing counts (\d+) and "
     r"team shares (\d+)\.", "design",
     lambda: (*(f"{_design('simulator.config.RATE_MAXIMA')[k]:g}" for k in (_same_rate("cases", "changes", "wiki_edits"),
                                                                           "chat_messages_per_person",
                                                                           "direct_messages_per_person", "emails_per_person")),
              _same_bound(), str(_design("simulator.config.MAX_STAFFING_COUNT")),
              str(_design("simulator.config.MAX_TEAM_SHARE")))),
    ("docs/world.md", r"which answers at once, (\d+) rewrites/s with (\d+) in flight \(`python benchmarks/bench_prose.py --server "
     r"emulated`, recorded in `benchmarks/measured/prose_emulated.json`, load average ([\d.]+) on 2 cores; runs minutes apart "
     r"differ by half\), i.e. about ([\d.]+) minutes for ([\d,]+) rewrites, and a rerun from the cache reads (\d+) answers in "
     r"([\d.]+) s\.", "measured", _prose_record),
    ("docs/assurance.md", r"one seal per batch of at most (\d+) lines", "design",
     lambda: (str(_design("judges.assurance.seals.SEAL_ROWS")),)),
    ("docs/assurance.md", r"Recorded in `benchmarks/measured/assurance.json` \(load ([\d.]+) when it started\): signed "
     r"([\d,]+) and unsigned ([\d,]+) packets per CPU-second, `signed_share_of_unsigned` ([\d.]+) \(rounds ([\d., ]+)\)",
     "measured", _assurance_record),
    ("docs/world.md", r"against `SLA_HOURS` \(SEV1 (\d+) h, SEV2 (\d+) h, SEV3 (\d+) h\)", "design",
     lambda: tuple(f"{_design('simulator.processes.cascades.SLA_HOURS')[s]:g}" for s in ("SEV1", "SEV2", "SEV3"))),
    ("docs/world.md", r"a direct message (\d), a review, deploy, escalation hop or incident response (\d), case triage or a "
     r"proposed change with one's manager ([\d.]+), consecutive posts in a channel or a reply in its thread ([\d.]+); a broadcast "
     r"is one interaction shared among its audience \(an email adds min\(([\d.]+), 1/recipients\) per recipient, a meeting "
     r"min\(([\d.]+), 1/attendees\) per attendee\)", "design",
     lambda: _graph("DIRECT", "DIRECT", "WITH_MANAGER", "CHANNEL_NEIGHBOUR", "EMAIL_SHARE", "MEETING_SHARE")),
    ("docs/world.md", r"Everyone starts with a tie of (\d) to their manager and min\(([\d.]+), (\d)/team size\) to each colleague; "
     r"hires get introductions to their team, min\(([\d.]+), 1/team size\) each", "design",
     lambda: _graph("MANAGER_TIE", "COLLEAGUE_TIE", "COLLEAGUE_SPREAD", "INTRODUCTION_SHARE")),
    ("docs/world.md", r"searched first over working ties \(weight ≥ (\d), `ROUTE_TIE`", "design", lambda: _graph("ROUTE_TIE")),
    ("docs/world.md", r"\(sampled over (\d+) sources above (\d+) people, seeded\)", "design",
     lambda: _graph("BETWEENNESS_SOURCES", "BETWEENNESS_SOURCES")),
    ("docs/world.md", r"(About half) the staff book one block of leave \((\d)–(\d) working days", "design",
     lambda: ({0.5: "About half"}.get(_design("simulator.offices.LEAVE_SHARE"), "?"),
              *(str(n) for n in _design("simulator.offices.LEAVE_DAYS")))),
    ("docs/world.md", r"London \(UTC\+(\d), the company calendar itself\), New York \(UTC−(\d): (\d\d):00–(\d\d):00 UTC\), "
     r"Singapore \(UTC\+(\d): (\d\d):00–(\d\d):00 UTC", "design", _offices),
    ("docs/world.md", r"`closed` \((\d)–(\d) business days later\)", "design",
     lambda: tuple(str(n) for n in _design("simulator.processes.support.CLOSE_AFTER_DAYS"))),
    ("docs/world.md", r"Counts are config `\[staffing\]` per (\d+) people", "design",
     lambda: (f"{_design('simulator.config.STAFFING_PER_PEOPLE'):g}",)),
    ("docs/spec/groundeval.md", r"keep the trajectory worth more than the answer \((\.\d\d) here\)", "design",
     lambda: (_three(_design("judges.groundeval.scoring_profile.WEIGHTS")["silence"][1])[:3],)),
    ("docs/spec/groundeval.md", r"a coin flip without searching expects (\.\d\d)\)", "design",
     lambda: (_three(0.5 * _design("judges.groundeval.scoring_profile.WEIGHTS")["silence"][0])[:3],)),
    ("docs/spec/groundeval.md", r"keep their proportions: (\.\d\d)/(\.\d\d) outcome, (\.\d\d)/\.\d\d mechanism, (\.\d\d)/\.\d\d "
     r"direction, (\.\d\d)/\.\d\d evidence, (\.\d\d)/\.\d\d actor \| (\.\d\d) each", "design", _counterfactual_parts),
    *(("docs/cargo.md", rf"`{name}` \((\d+)\)", "design", lambda n=name: _held_out_items(n))
      for name in ("items_own.jsonl", "items_independent.jsonl", "items_heldout2.jsonl")),
    *(("docs/cargo.md", rf"`{name}` \((\d+): (\d+) per family, P4 (\w+) of each kind\)", "design",
       lambda n=name: _held_out_items(n, shape=True)) for name in ("items_issue30.jsonl", "items_heldout3.jsonl")),
    ("docs/cargo.md", r"before the judge was changed, over (\w+) live cases whose contexts", "design",
     lambda: ({8: "eight"}.get(len({json.loads(line)["live_context"] for line in (
         ROOT / "tests/judges/cargo_prose/items_issue30.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()}), "?"),)),
    ("docs/world.md", r"\| `world.json` \| `format_version` \((\d+)\), `generator`", "design",
     lambda: (str(_design("simulator.world.FORMAT_VERSION")),)),
    ("docs/world.md", r"\| `incident_id`, `service`, `severity` \(SEV(\d)–(\d)\), `status`", "design",
     lambda: tuple(s[-1] for s in (min(_design("simulator.processes.cascades.SLA_HOURS")),
                                   max(_design("simulator.processes.cascades.SLA_HOURS"))))
     if len(_design("simulator.processes.cascades.SLA_HOURS")) == 3 else ("?",)),
    ("docs/cargo.md", r"`token-f1`: SQuAD-style token F1 with the reference, pass at ≥ ([\d.]+)\.", "design",
     lambda: (f"{_design('judges.backends.builtin.F1_THRESHOLD'):g}",)),
    ("docs/cargo.md", r"Scored by (\d)×(\d)-fold stratified CV beside the training fold's majority label", "design",
     lambda: tuple(str(__import__("inspect").signature(_design("benchmark_builders.cargo.readers.cross_validate"))
                       .parameters[k].default) for k in ("repeats", "folds"))),
    ("docs/judges.md", r"A local judge writes at most (\d+) tokens unless `--max-tokens` says otherwise \(a constrained verdict "
     r"needs at most (\d+): see Structured outputs\); a local agent's turn at most ([\d,]+):", "design",
     lambda: (str(_design("judges.backends.local.DEFAULT_MAX_TOKENS")), _verdict_bounds()[1],
              f"{_design('judges.backends.local.AGENT_MAX_TOKENS'):,}")),
    ("docs/judges.md", r"A local answer may take up to (\d+) × `--timeout`", "design",
     lambda: (str(_design("judges.backends.local.LOCAL_TIMEOUT_FACTOR")),)),
    ("docs/harnesses.md", r"`-T max_turns=(\d+)`", "design", _max_turns),
    ("docs/world.md", r"alphabetic tokens of (\d)\+ letters", "design", lambda: (str(_design("simulator.realism.MIN_WORD_LETTERS")),)),
    ("docs/world.md", r"covered by its (\d+) most common messages", "design", lambda: (str(_design("simulator.realism.TOP_CHAT")),)),
    ("docs/world.md", r"\| `WIKI-7` \| WIKI-1\.\.(\d+) are the runbooks, in `PROCEDURES` order", "design",
     lambda: (str(len(_design("simulator.procedures.PROCEDURES"))),)),
    ("docs/groundeval.md", r"\(medium's share goes to both in proportion\); defaults (\.\d\d) / (\.\d\d) / (\.\d\d) \|", "design",
     lambda: tuple(_three(_design("benchmark_builders.groundeval.domain_config.DEFAULT_RATIOS")[k])[:3]
                   for k in ("easy_ratio", "medium_ratio", "hard_ratio"))),
    ("docs/sweeps.md", r"# a local Ray with (\d) CPUs, started and stopped by orgbench", "design",
     lambda: (str(_cli_default("sweep", "--workers")),)),
    ("docs/sweeps.md", r"penalty rate per family, DI and its (\d+)% bootstrap CI", "design", lambda: (_bootstrap_level(),)),
    ("docs/sweeps.md", r"# the issue's measurement: (\d+) worlds, best of (\d+)", "design",
     lambda: (_bench_default("bench_sweep.py", "--seeds"), _bench_default("bench_sweep.py", "--repeats"))),
    ("docs/sweeps.md", r"One invocation runs `--repeats` rounds \(default (\d+)\) of the whole sweep from nothing, serially "
     r"and on a local Ray with (\d+) workers", "design",
     lambda: (_bench_default("bench_sweep.py", "--repeats"), _bench_sweep_workers())),
    ("docs/groundeval.md", r"the verdict earns (\.\d\d)/(\.\d\d), the mechanism (\.\d\d)/\.\d\d, the direction (\.\d\d)/\.\d\d "
     r"and evidence and people (\.\d\d)/\.\d\d", "design",
     lambda: (*_counterfactual_parts()[:4], _three(sum(_design("judges.groundeval.scoring_profile._PREPRINT_CF")[k]
                                                       for k in ("evidence", "actor")))[:3])),
    ("docs/spec/architecture.md", r"- Python ≥ (\d+\.\d+), type hints everywhere", "design",
     lambda: (re.search(r'requires-python = ">=([\d.]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"))[1],)),
    ("docs/spec/assurance.md", r"for a reader as well as a parser \(packet format (\d), issue 34\)", "design",
     lambda: (str(_design("judges.assurance.make_escape_table.PACKET_FORMAT")),)),
    ("docs/assurance.md", r"Packet format (\d) \(issue 34; `render.PACKET_FORMAT`", "design",
     lambda: (str(_design("judges.assurance.make_escape_table.PACKET_FORMAT")),)),
    ("docs/assurance.md", r"from a pinned Unicode version \(([\d.]+), CPython 3.11's", "design",
     lambda: (_design("judges.assurance.make_escape_table.UNICODE_VERSION"),)),
    ("docs/cargo.md", r"shortcut readers \((\d)×(\d)-fold CV accuracy beside the majority label", "design",
     lambda: tuple(str(__import__("inspect").signature(_design("benchmark_builders.cargo.readers.cross_validate"))
                       .parameters[k].default) for k in ("repeats", "folds"))),
    ("docs/world.md", r"the grammar text; temperature (\d), seed (\d), at most about twice", "design",
     lambda: (re.search(r"temperature=([\d.]+)", (ROOT / "orgbench" / "prose" / "rewrite.py").read_text(encoding="utf-8"))[1]
              .rstrip("0").rstrip("."), str(_design("orgbench.prose.rewrite.SEED")))),
    ("docs/plugins.md", r"rendered with the question's wording values and `variant` (\d)–(\d);", "design",
     lambda: ("0", str(_design("benchmark_builders.groundeval.wording.VARIANTS") - 1))),
    ("docs/groundeval.md", r"`benchmarks/bench_mcp_load.py` runs (\d+) official clients against (\d+) `serve-mcp` processes",
     "design", lambda: (_bench_default("bench_mcp_load.py", "--clients"),) * 2),
    ("docs/groundeval.md", r"`limit` must be an integer ≥ (\d) \(.*?; above (\d+) it is capped at (\d+)\), `subsystem` a string or "
     r"null, `query` and `artifact_id` strings of at most ([\d,]+) characters", "design",
     lambda: (re.search(r"limit an integer of at least (\d+)", _design("judges.groundeval.call_args.SEARCH_RULE"))[1],
              str(_design("judges.groundeval.call_args.MAX_LIMIT")), str(_design("judges.groundeval.call_args.MAX_LIMIT")),
              f"{_design('judges.groundeval.call_args.MAX_ARG_CHARS'):,}")),
    ("docs/world.md", r"Simulation time is minutes since `start` (\d\d):(\d\d) UTC", "design", _minute_zero),
    ("docs/world.md", r"`crm.asset_registered` at the start \((\d\d):(\d\d) of day one\)", "design", _minute_zero),
    ("docs/world.md", r"`weight` = tie strength at the end of the run, `distance` = (\d)/weight", "design",
     lambda: (re.search(r"distance=round\((\d)\.0 / weight", (ROOT / "simulator" / "graph.py").read_text(encoding="utf-8"))[1],)),
    ("docs/assurance.md", r"all of a cluster's trajectories together; (\d+)% intervals for G per trajectory", "design",
     lambda: (_cluster_level(),)),
    ("docs/harnesses.md", r"their difference, each with its cluster-bootstrap (\d+)% interval\.", "design", lambda: (_cluster_level(),)),
    ("docs/judges.md", r"reduction per trajectory\) with (\d+)% cluster-bootstrap CIs", "design", lambda: (_cluster_level(),)),
    ("docs/harnesses.md", r"TP, FP and DI with its item-level bootstrap (\d+)% CI", "design", lambda: (_bootstrap_level(),)),
    ("docs/harnesses.md", r"without it the default suite of world seeds (\d)-(\d), built on first use .*?`temperature` \(default (\d)\)",
     "design", lambda: (*(str(s) for s in (min(_design("benchmark_builders.cargo.worlds.DEFAULT_SEEDS")),
                                          max(_design("benchmark_builders.cargo.worlds.DEFAULT_SEEDS")))),
                       _inspect_temperature())),
    ("docs/harnesses.md", r"default: the default world of seed (\d)'s suite, built on first use and cached", "design",
     lambda: (re.search(r'_suite_stage\(cache_dir\(\) / "groundeval", (\d+),', _source("orgbench/harness/suites.py"))[1],)),
    ("docs/groundeval.md", r"The goal, ([\d,]+) per CPU-second with the index built, is (reached|not reached)", "measured",
     lambda: _cold_goal(1000)),
    ("docs/groundeval.md", r"`outcome` \(correct \| wrong verdict\) and `s_adj` \((\d) decimals\)", "result", _drilldown_decimals),
    ("docs/groundeval.md", r"\(the goals are (\d+) s, (\d+) GB and (\d+) ms at p99: the memory and the p99 are (met|not met), "
     r"and the load (in CPU time);", "measured", _search_goals),
    ("docs/groundeval.md", r"nor building the index \(its own process, once per suite, the artifacts file streamed through "
     r"it: `judges/groundeval/index_build\.py`; in the recorded run ([\d.]+) CPU-seconds with a peak RSS of ([\d,]+) MB, "
     r"under the goal's 1 GB\)", "measured", _index_build),
    ("docs/groundeval.md", r"\(the default reproduce's ([\d,]+) calls are ([\d,]+) distinct claims: `python "
     r"benchmarks/groundeval_claims\.py`, recorded in `benchmarks/measured/(groundeval_claims\.json)`\)", "measured",
     lambda: _claims_record("groundeval_claims.json")),
    ("docs/spec/groundeval.md", r"\(`tenurehq/GroundEval`, `src/groundeval/scorers\.py` at ([0-9a-f]{7}), read for comparison",
     "design", _upstream_pin),
    ("docs/cargo.md", r"\| `cargo` \| \"Reference \(resolved example\)\" \| yes \|[^|]*?; (\d)-way claims;", "design",
     lambda: (str(len(_design("judges.conditions.CONDITIONS")["cargo"].statuses)),)),
    ("docs/groundeval.md", r"A reader that always says \"no link\" and cites nothing therefore scores (\.\d\d)/(\.\d\d) × its "
     r"verdict accuracy \((\.\d+) at (\.\d+);.*? scores (\.\d+) at verdict (\.\d+) on every seed\.", "result", _no_link_floor),
)


@pytest.mark.parametrize("doc, pattern, kind, expected", FIGURE_CHECKS, ids=[c[1][:40] for c in FIGURE_CHECKS])
def test_figure_checks(doc, pattern, kind, expected):
    said = re.search(pattern, _flat(ROOT / doc))
    assert said is not None, (doc, pattern)
    assert said.groups() == expected(), (doc, said.group(0))


def test_the_scoring_and_search_figures_in_docs_groundeval_md_are_the_recorded_benchmark_outputs():
    text = _flat(ROOT / "docs" / "groundeval.md")
    said = re.search(r"\(`python benchmarks/bench_groundeval.py --only cold-scoring --repeats (\d+)`, recorded in "
                     r"`benchmarks/measured/(\S+)`; load average ([\d.]+)\): on the ([\d,]+) questions of every built-in "
                     r"agent in both modes, `score_submissions` scores (\d+) questions per CPU-second with the suite's "
                     r"index built in the run \(an empty cache\) and (\d+) with it kept \(the median of the rounds\); "
                     r"`python -c pass` costs ([\d.]+) CPU-seconds and `orgbench score groundeval --help` ([\d.]+)\.", text)
    assert said is not None
    repeats, name, load, questions, built, kept, bare, cli = said.groups()
    record = _measured(name)
    run = record["printed"]["cold_scoring"]
    assert record["command"].endswith(f"--only cold-scoring --repeats {repeats} --record benchmarks/measured/{name}")
    assert [load, int(questions.replace(",", "")), int(built), int(kept), bare, cli] == [
        str(record["load_average"][0]), run["questions"], run["index_built_questions_per_cpu_s"],
        run["index_kept_questions_per_cpu_s"], f"{run['python_pass_cpu_s']:.2f}", f"{run['cli_help_cpu_s']:.2f}"]
    said = re.search(r"is (?:not )?reached in this record, by little: (\d+) of its (\d+) rounds fall under it "
                     r"\(([\d,]+) to ([\d,]+)\)", text)
    assert said is not None
    rates = sorted(r["index_built_questions_per_cpu_s"] for r in run["rounds"])
    assert [int(said[1]), int(said[2]), int(said[3].replace(",", "")), int(said[4].replace(",", ""))] == [
        sum(rate < 1000 for rate in rates), len(rates), rates[0], rates[-1]]
    said = re.search(r"The machine ran (slower|faster) that day than for the record before it \((\w+), ([\d,]+) per "
                     r"CPU-second\): the bare simpy loop the record times in the same run took a median ([\d.]+) "
                     r"CPU-seconds against ([\d.]+), and measured against that loop scoring costs ([\d.]+) times the "
                     r"loop's CPU against ([\d.]+)", text)
    assert said is not None
    pace_word, commit, earlier_rate, pace, earlier_pace, ratio, earlier_ratio = said.groups()
    assert [pace, ratio] == [f"{run['bare_simpy_cpu_s']:.3f}", f"{run['index_built_score_per_bare_simpy']:.2f}"]
    befores = _recorded_on(name, commit)
    if befores:     # the record before, from the repository's history (absent from a shallow clone or an archive)
        earlier = befores[0]["printed"]["cold_scoring"]
        assert [int(earlier_rate.replace(",", "")), earlier_pace, earlier_ratio] == [
            earlier["index_built_questions_per_cpu_s"], f"{earlier['bare_simpy_cpu_s']:.3f}",
            f"{earlier['index_built_score_per_bare_simpy']:.2f}"]
        assert (float(pace) > float(earlier_pace)) == (pace_word == "slower")     # the loop took longer: slower
    said = re.search(r"At ([\d,]+) versions \(`python benchmarks/bench_search_1m.py`, recorded in "
                     r"`benchmarks/measured/(\S+)`; load average ([\d.]+)\), loading the kept index takes ([\d.]+) "
                     r"CPU-seconds \(([\d.]+) s of wall time\), the process's peak RSS is ([\d,]+) MB, and a search costs "
                     r"([\d.]+) ms of CPU at p50 and ([\d.]+) ms at p99 over the fixed query set \(([\d,]+) queries, each in "
                     r"(\d+) sessions\); the exhaustive numpy floor ([\d.]+) and ([\d.]+) ms\.", text)
    assert said is not None
    versions, name, load, load_cpu, load_wall, rss, p50, p99, queries, sessions, f50, f99 = said.groups()
    record = _measured(name)
    printed = record["printed"]
    search, floor = printed["rounds"][0]["search"], printed["rounds"][0]["exhaustive_floor"]
    assert [int(versions.replace(",", "")), load, load_cpu, load_wall, rss, p50, p99, int(queries.replace(",", "")),
            int(sessions), f50, f99] == [
        printed["versions"], str(record["load_average"][0]), f"{search['load_cpu_s']:.2f}", f"{search['load_wall_s']:.2f}",
        f"{search['peak_rss_mb']:,.0f}", f"{search['query_cpu_ms_p50']:.2f}", f"{search['query_cpu_ms_p99']:.1f}",
        search["queries"], search["searches"] // search["queries"], f"{floor['query_cpu_ms_p50']:.2f}",
        f"{floor['query_cpu_ms_p99']:.1f}"]
