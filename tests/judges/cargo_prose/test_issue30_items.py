"""The issue-30 hand-written items (items_issue30.jsonl): 16 per family, written apart from the builder and the
judge, in free formats (contexts as tables, key=value lines, CRM prose; references as prose, bullets, lettered
or arrowed steps), and builtin:grounded's DI on them beside its DI on the default suite.

The items were committed before the judge was changed for issue 30 (the DI then: see the module's history).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmark_builders" / "cargo"))

from judges.backends.builtin import make_builtin
from judges.conditions import CONDITIONS, render
from judges.verdict import parse_verdict

PATH = Path(__file__).with_name("items_issue30.jsonl")
SHOWN = ("item_id", "question", "live_context", "reference", "candidate")
P4_KINDS = {"skip", "order", "action", "escalation"}


def _items() -> list[dict]:
    return [json.loads(line) for line in PATH.read_text(encoding="utf-8").splitlines() if line.strip()]


def grounded_counts(rows: list[dict]) -> dict[str, tuple[int, int]]:
    """builtin:grounded under the cargo condition: (penalised, items) per family (labels never shown)."""
    judge = make_builtin("grounded")
    penalised: dict[str, list[bool]] = {}
    for row in rows:
        shown = {k: row[k] for k in SHOWN}
        verdict = parse_verdict(judge.judge_text(render(CONDITIONS["cargo"], shown, 0)))
        penalised.setdefault(row["family"], []).append(verdict.penalized)
    return {f: (sum(v), len(v)) for f, v in sorted(penalised.items())}


def grounded_rates(rows: list[dict]) -> dict[str, float]:
    """builtin:grounded under the cargo condition: penalty rate per family, and DI (labels never shown)."""
    counts = grounded_counts(rows)
    rate = {f: round(k / n, 4) for f, (k, n) in counts.items()}
    pos = [counts[f] for f in ("P2", "P4")]
    neg = [counts[f] for f in ("P1", "P3")]
    rate["DI"] = round(sum(k for k, _ in pos) / sum(n for _, n in pos) - sum(k for k, _ in neg) / sum(n for _, n in neg), 4)
    return rate


def wilson_rates(rows: list[dict]) -> dict[str, str]:
    """Each family's penalty rate with its 95% Wilson interval, as the docs quote it."""
    from independent_readers import wilson

    out = {}
    for family, (k, n) in grounded_counts(rows).items():
        low, high = wilson(k, n)
        out[family] = f"{k}/{n} {k / n:.2f} [{low:.2f}, {high:.2f}]"
    return out


def test_sixteen_items_per_family_in_free_formats():
    rows = _items()
    assert Counter(r["family"] for r in rows) == {"P1": 16, "P3": 16, "P2": 16, "P4": 16}
    assert Counter(r["kind"] for r in rows if r["family"] == "P4") == dict.fromkeys(P4_KINDS, 4)
    for row in rows:
        assert all(isinstance(row[k], str) and row[k] for k in SHOWN)
        assert row["should_penalize"] is (row["family"] in ("P2", "P4"))
        assert not row["live_context"].startswith("Case record for") or "Case: " not in row["live_context"]
    assert len({r["live_context"] for r in rows}) == 8 and len({r["reference"] for r in rows}) == 8


def test_grounded_on_the_hand_written_items():
    rates = grounded_rates(_items())
    print(f"\nbuiltin:grounded under cargo on the issue-30 hand-written items: {rates}")
    assert rates == EXPECTED
    assert wilson_rates(_items()) == {"P1": "0/16 0.00 [0.00, 0.19]", "P2": "16/16 1.00 [0.81, 1.00]",
                                      "P3": "0/16 0.00 [0.00, 0.19]", "P4": "14/16 0.88 [0.64, 0.97]"}


#: Before the judge changes of issue 30 (commit with the items): P1 .125, P2 .875, P3 .0625, P4 .1875, DI .4375.
#: After the first change (reading instructions by condition, records in any layout): P1 .375, P2 .9375, P3 .4375,
#: P4 .5, DI .3125 -- it penalised correct answers in formats it could not read. After the second (claims read as a
#: judge reads them: steps evidenced by their results, derived counts and ages worked out, order of any two steps
#: whose results are stated, a result reached by another action): the figures below. The items were looked at
#: while making the second change, so they are no longer held out (the older prose sets were scored alongside). The
#: third change (a check of what an entitlement covers, done on something else: claims._object_errors) left them as they were.
#: The sixth (rules 9: an error only on positive evidence) was not drawn from these items; it loses one wrong action
#: ("Then we schedule a field technician visit, DSP-56301" states a dispatch but names no past-tense verb and object,
#: so it is no longer read as another action than shipping the unit: P4 .9375, DI .9688 before).
EXPECTED: dict[str, float] = {"P1": 0.0, "P2": 1.0, "P3": 0.0, "P4": 0.875, "DI": 0.9375}


def _held_out(n: int) -> list[dict]:
    """The n-th held-out set's items."""
    path = PATH.with_name(f"items_heldout{n}.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_grounded_on_the_third_held_out_set():
    """items_heldout3.jsonl was written by another helper who read no judge code, and scored once the judge's third
    change for issue 30 was final: P1 5/16, P3 6/16, P2 15/16, P4 11/16, DI .469 (the same before that change). It
    was then the development set of the fourth change (records, references and values in more layouts and forms,
    delays worked out), with the other prose sets and the suite, so these figures are no longer held out: DI .844
    after the fourth change. The fifth change's rules drawn from the fourth set alone took it to .875 (a P2 amount
    read again once a count's number no longer hid every number of its sentence); the one drawn from this set (an
    action no step names, told with a step's value) to .906."""
    counts = grounded_counts(_held_out(3))
    print(f"\nbuiltin:grounded under cargo on the third held-out set: {grounded_rates(_held_out(3))}")
    assert counts == {"P1": (0, 16), "P2": (16, 16), "P3": (0, 16), "P4": (13, 16)}
    assert grounded_rates(_held_out(3))["DI"] == 0.9062


def test_grounded_on_the_fourth_held_out_set():
    """items_heldout4.jsonl was written by another helper who read no judge code, in parallel with the judge's fourth
    change for issue 30, and scored ONCE, after that change was final and committed (rules 7): P1 3/16, P3 1/16,
    P2 13/16, P4 6/16, DI .469 against the suite's .916, .447 apart -- issue 30's bound did not hold. It was then the
    development set of the fifth change (rules 8: steps of arrow-joined and 'we <verb>' prose references, bulleted
    records, a status word's field by its group, only a count's own number exempt from the value check, the order of
    any two steps each told once by its verb, a state is no step, record fields matched to a step's label by their
    words, more role nouns), so these figures are development figures, not held out (DI .9375 after it). The sixth
    change (rules 9: a skipped step only when no clause names its verb with another of its words) no longer penalises
    a correct rollback told as "rolled back to 4.4.8": P3 0/16, DI .969 (one of its items was looked at for that change)."""
    counts = grounded_counts(_held_out(4))
    print(f"\nbuiltin:grounded under cargo on the fourth held-out set: {grounded_rates(_held_out(4))}")
    assert counts == {"P1": (0, 16), "P2": (16, 16), "P3": (0, 16), "P4": (15, 16)}
    assert grounded_rates(_held_out(4))["DI"] == 0.9688
    assert wilson_rates(_held_out(4)) == {"P1": "0/16 0.00 [0.00, 0.19]", "P2": "16/16 1.00 [0.81, 1.00]",
                                         "P3": "0/16 0.00 [0.00, 0.19]", "P4": "15/16 0.94 [0.72, 0.99]"}


#: docs/cargo.md's sentence stating the fifth and sixth sets' figures after the judge's seventh change (rules 10).
SEVENTH = ("The fifth set now reads P1 .06, P3 .00, P2 .81, P4 .81, DI .78 and the sixth P1 .06, P3 .00, P2 .75, P4 .81, "
           "DI .75: development figures, .15 and .18 below the suite's .93")
#: docs/cargo.md's sentence stating the fifth, sixth and seventh sets' figures since the judge's eighth change (rules 11).
EIGHTH = ("the fifth set reads P1 .06, P3 .00, P2 .88, P4 .81, DI .81, the sixth P1 .00, P3 .00, P2 .75, P4 .88, DI .81 "
          "and the seventh P1 .06, P3 .00, P2 .88, P4 .94, DI .88")


#: docs/cargo.md's sentence stating the eighth set's figures since the judge's ninth change (rules 12).
NINTH = "the eighth set reads P1 .00, P3 .00, P2 .88, P4 .75, DI .81"


def _scored(n: int, name: str, counts: dict, di: float, wilson: dict, said: str) -> None:
    """builtin:grounded under cargo on the n-th held-out set: its counts, DI and Wilson intervals, and docs/cargo.md's
    sentences stating them (when it was scored held out, and now)."""
    items = _held_out(n)
    print(f"\nbuiltin:grounded under cargo on the {name} held-out set: {grounded_rates(items)} {wilson_rates(items)}")
    assert grounded_counts(items) == counts
    assert grounded_rates(items)["DI"] == di
    assert wilson_rates(items) == wilson
    docs = " ".join((Path(__file__).parents[3] / "docs" / "cargo.md").read_text(encoding="utf-8").split())
    assert said in docs and SEVENTH in docs and EIGHTH in docs and NINTH in docs


def test_grounded_on_the_fifth_held_out_set():
    """items_heldout5.jsonl was written by another helper who read no judge code, in parallel with the judge's fifth
    change for issue 30 (rules 8), and scored ONCE, after that change was final and merged; nothing was changed
    after. Issue 30's bound does not hold on it: DI .406 against the suite's .926, .520 apart. docs/cargo.md says so.
    It was then the development set of the judge's sixth change (rules 9: errors only on positive evidence; a heading
    inside the candidate is its text; "Step 2," is a counter; an "after X" clause ends at its comma): P1 1/16, P3 2/16,
    P2 12/16, P4 10/16, DI .594, .332 below the suite -- a development figure, and the bound still does not hold.
    With the sixth set, it was the development set of the seventh change (rules 10: layouts read by shape, a summary
    told first orders nothing, status fields outside the lexicon, negated statuses, amounts in thousands): P2 13/16,
    P4 13/16, P3 0/16, DI .781 (.625 with only the rules drawn from the sixth set). The eighth change (rules 11:
    lists and records read by the lead and the separator their lines repeat) reads its quoted records ("> Contract
    level: standard": P2 14/16) and its ">>" and "<...>" step details (one skip caught, one lost to a code read as the
    log bundle's): DI .812."""
    _scored(5, "fifth", {"P1": (1, 16), "P2": (14, 16), "P3": (0, 16), "P4": (13, 16)}, 0.8125,
            {"P1": "1/16 0.06 [0.01, 0.28]", "P2": "14/16 0.88 [0.64, 0.97]", "P3": "0/16 0.00 [0.00, 0.19]",
             "P4": "13/16 0.81 [0.57, 0.93]"},
            "it is far from the suite again: P1 .25, P3 .44, P2 .75, P4 .75, DI .41, .52 below the suite's .93, more "
            "than the .15 issue 30 asks")


def test_grounded_on_the_sixth_held_out_set():
    """items_heldout6.jsonl was written by another helper who read no judge code, in parallel with the judge's sixth
    change for issue 30 (rules 9), merged before that change, and scored ONCE, after it was final and merged; nothing
    was changed after until the seventh change. Issue 30's bound did not hold on it: DI .438 against the suite's .926,
    .489 apart. It was then, with the fifth, the development set of the seventh change (rules 10): P1 1/16, P3 0/16,
    P2 12/16, P4 13/16, DI .750 (.688 before the three rules drawn from the fifth set), .176 below the suite -- a
    development figure. The eighth change (rules 11) passes its one penalised correct answer (a step's one group of
    details no longer read as what it produced, a dependency the order check used) and catches one more wrong
    escalation (to a "team lead", by the role rule drawn from the seventh set): DI .812."""
    _scored(6, "sixth", {"P1": (0, 16), "P2": (12, 16), "P3": (0, 16), "P4": (14, 16)}, 0.8125,
            {"P1": "0/16 0.00 [0.00, 0.19]", "P2": "12/16 0.75 [0.51, 0.90]", "P3": "0/16 0.00 [0.00, 0.19]",
             "P4": "14/16 0.88 [0.64, 0.97]"},
            "it is far from the suite again: P1 .19, P3 .12, P2 .62, P4 .56, DI .44, .49 below the suite's .93.")


def test_grounded_on_the_seventh_held_out_set():
    """items_heldout7.jsonl was written by another helper who read no judge code (realistic support prose, the
    generator's own layouts for half of each family), merged before the judge's seventh change (rules 10) was final,
    and scored ONCE, after it was final and merged. Issue 30's bound did not hold on it: DI .594 against the suite's
    .926, .332 apart. Of its 10 penalised correct answers, all 8 whose reference lists its steps as
    ``step[1] = ...`` lines were penalised for their procedure; docs/cargo.md says so. It was then a development set of
    the eighth change (rules 11: lists read by the lead their lines repeat, records by the separator theirs share):
    those 8 pass, and so does one read as contradicted ("CASE-16088/ACC-3226" is two identifiers); a wrong escalation
    to "the team lead", caught before only as a skipped ``step``, is caught as handed to the wrong role (a role named
    by two role nouns is qualified by the first). DI .875, a development figure, .051 below the suite."""
    _scored(7, "seventh", {"P1": (1, 16), "P2": (14, 16), "P3": (0, 16), "P4": (15, 16)}, 0.875,
            {"P1": "1/16 0.06 [0.01, 0.28]", "P2": "14/16 0.88 [0.64, 0.97]", "P3": "0/16 0.00 [0.00, 0.19]",
             "P4": "15/16 0.94 [0.72, 0.99]"},
            "it is far from the suite again: P1 .38, P3 .25, P2 .88, P4 .94, DI .59, .33 below the suite's .93.")
    judge = make_builtin("grounded")
    faulted = {}
    for row in _held_out(7):
        verdict = parse_verdict(judge.judge_text(render(CONDITIONS["cargo"], {k: row[k] for k in SHOWN}, 0)))
        if verdict.penalized and not row["should_penalize"]:
            faulted[row["item_id"]] = verdict.dimensions["procedure"] < 1
    assert sum("step[1] =" in row["reference"] for row in _held_out(7) if not row["should_penalize"]) == 8
    assert faulted == {"h7-38": True}     # a backwards narration read with two steps out of order


def test_grounded_on_the_eighth_held_out_set():
    """items_heldout8.jsonl was written by another helper who read no judge code (realistic support prose; the
    generator's layouts for half of each family, the rest JSON, CSV and Markdown records and "Step 1 of 6" and
    checklist references), merged (acdfacc) before the judge's eighth change (rules 11) was final, and scored ONCE,
    after it was final and merged (02b5977); nothing was changed after. Issue 30's bound does not hold on it: DI .625
    against the suite's .926, .301 apart. Its 7 penalised correct answers come from two surface forms new to the
    judge: 5 of the 6 whose record is comma-separated ``field,value`` lines (a separator the eighth change does not
    read, so no field was read), and the 2 chat messages opening with an @-mention (the mention's sentence read as
    contradicted). docs/cargo.md says so. It was then a development set of the ninth change (rules 12: a record's
    separator counted from its lines, not chosen from a list; a value compared only in its whole shape, so an
    @-mention is a name): no correct answer is penalised, and a wrong action told in an @-mention message, caught
    before only through the mention, is missed (P4 12/16): DI .812, a development figure, .114 below the suite."""
    _scored(8, "eighth", {"P1": (0, 16), "P2": (14, 16), "P3": (0, 16), "P4": (12, 16)}, 0.8125,
            {"P1": "0/16 0.00 [0.00, 0.19]", "P2": "14/16 0.88 [0.64, 0.97]", "P3": "0/16 0.00 [0.00, 0.19]",
             "P4": "12/16 0.75 [0.51, 0.90]"},
            "it is far from the suite again: P1 .25, P3 .19, P2 .88, P4 .81, DI .62, .30 below the suite's .93.")
    comma = {row["item_id"] for row in _held_out(8)
             if not row["should_penalize"] and "\nfield,value\n" in row["live_context"]}
    mention = {row["item_id"] for row in _held_out(8)
               if not row["should_penalize"] and row["candidate"].startswith("@")}
    assert len(comma) == 6 and len(mention) == 2      # the forms its held-out penalties came from; none is penalised now


def test_grounded_on_the_ninth_held_out_set():
    """items_heldout9.jsonl was written by another helper who read no judge code, merged (9615c34) before the judge's
    ninth change (rules 12) was final, and scored ONCE, after it was final and merged (1d2d144); nothing was changed
    after. It is the weakest held-out set: written under a deadline, it re-renders the eighth set's answers (new
    values, names, wrappers and layouts -- XML, YAML and two-column table records, "(1) step; recorded:" and
    "Stage 1:" references -- but the eighth set's wording), and the eighth set was the ninth change's development set.
    DI .781 against the suite's .926, .145 apart: inside issue 30's .15, but only just, and on wording the change was
    drawn from. No correct answer is penalised, in any of its new layouts; it misses 4 P2 and 3 P4. docs/cargo.md
    says so."""
    _scored(9, "ninth", {"P1": (0, 16), "P2": (12, 16), "P3": (0, 16), "P4": (13, 16)}, 0.7812,
            {"P1": "0/16 0.00 [0.00, 0.19]", "P2": "12/16 0.75 [0.51, 0.90]", "P3": "0/16 0.00 [0.00, 0.19]",
             "P4": "13/16 0.81 [0.57, 0.93]"},
            "P1 .00, P3 .00, P2 .75, P4 .81, DI .78, .15 below the suite's .93 (.145 unrounded)")


def test_grounded_on_the_tenth_held_out_set():
    """items_heldout10.jsonl was written by another helper who read no judge code, with every candidate newly worded
    (nothing copied or templated from an earlier set) and layouts no earlier set used (``[CASE-...]`` ini, ``CASE_ID=``
    env and dot-leader sheet records; ``#1 step :: values`` and ``T+1 step -> values`` references), after the judge's
    ninth change (rules 12) was final; merged as d5af14b and scored ONCE on it, the judge unchanged since. DI .906
    against the suite's .926, .020 apart: issue 30's bound holds on it. Its three errors: a derived P2 missed, and two
    correct answers' earlier-case counts read as contradicted (an env and a sheet record). docs/cargo.md says so."""
    _scored(10, "tenth", {"P1": (0, 16), "P2": (15, 16), "P3": (2, 16), "P4": (16, 16)}, 0.9062,
            {"P1": "0/16 0.00 [0.00, 0.19]", "P2": "15/16 0.94 [0.72, 0.99]", "P3": "2/16 0.12 [0.03, 0.36]",
             "P4": "16/16 1.00 [0.81, 1.00]"},
            "P1 .00, P3 .12, P2 .94, P4 1.00, DI .91, .02 below the suite's .93")


#: The commit at which the judge's third change for issue 30 was final and the third held-out set was scored, once.
THIRD_CHANGE = "b8661b4"
#: Run inside that commit's tree: the judge of then on the set of then, one line per item (family, verdict, its note).
THEN = """
import json, sys
from judges.backends.builtin import make_builtin
from judges.conditions import CONDITIONS, render
from judges.verdict import parse_verdict
judge = make_builtin("grounded")
for line in open(sys.argv[1], encoding="utf-8"):
    if line.strip():
        row = json.loads(line)
        text = judge.judge_text(render(CONDITIONS["cargo"], {k: row[k] for k in %r}, 0))
        print(json.dumps([row["family"], parse_verdict(text).penalized, text.splitlines()[0]]))
""" % (SHOWN,)


@pytest.mark.slow          # extracts the judge of THIRD_CHANGE with git archive and runs it on the set (a few seconds)
def test_the_third_held_out_sets_penalised_correct_answers_as_the_third_change_scored_them(tmp_path):
    """docs/cargo.md says why builtin:grounded, as its third change left it, penalised 11 correct answers of the third
    held-out set: value claims it read as contradicted, and steps it did not find in the wording. Recomputed by the
    judge of that commit (its packages and the set, extracted with ``git archive``) in a process of its own; each
    verdict's note opens with its reason ("contradicted: …" or "step not performed: …")."""
    root = Path(__file__).parents[3]
    archive = subprocess.run(["git", "-C", str(root), "archive", THIRD_CHANGE, "judges", "orgbench", "simulator",
                              "benchmark_builders", "tests/judges/cargo_prose/items_heldout3.jsonl"],
                             capture_output=True, check=False)
    if archive.returncode != 0:      # a copy without the history (an export, a shallow clone)
        pytest.skip(f"no commit {THIRD_CHANGE} in this copy's git history: {archive.stderr.decode(errors='replace')}")
    subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=archive.stdout, check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")} | {"PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", THEN, "tests/judges/cargo_prose/items_heldout3.jsonl"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    counts = {f: (sum(p for g, p, _ in rows if g == f), sum(g == f for g, _, _ in rows)) for f in ("P1", "P2", "P3", "P4")}
    assert counts == {"P1": (5, 16), "P2": (15, 16), "P3": (6, 16), "P4": (11, 16)}    # DI .469, as the docstrings say
    reasons = Counter(note.removeprefix("Reasoning: ").split(":")[0] for family, penalised, note in rows
                      if penalised and family in ("P1", "P3"))
    docs = " ".join((root / "docs" / "cargo.md").read_text(encoding="utf-8").split())
    said = re.search(r"Its (\d+) penalised correct answers came from value claims it read as contradicted \((\d+) of their "
                     r"notes\) and steps it did not find in the wording \((\d+)\)", docs)
    assert said is not None
    assert [int(n) for n in said.groups()] == [counts["P1"][0] + counts["P3"][0], reasons["contradicted"],
                                               reasons["step not performed"]]
    assert sum(reasons.values()) == int(said[1])         # no other reason


@pytest.mark.slow          # the default suite (built once per session)
def test_grounded_di_on_hand_written_items_against_its_suite_di():
    """Issue 30 asks for the hand-written DI within .15 of the suite's. Before the third judge change the gap was
    .233 (suite .736): the judge missed all 19 of the suite's same-role wrong actions (a check of what an entitlement
    covers, done on another service or on the warranty alone; an email of the dispatch details for the visit date).
    It now reads what a step's check covers against what the candidate's sentence checks (claims._object_errors)
    and catches 18 of them; the hand-written items' figures did not move. They were looked at while the judge's
    second change was made, so they are tuning items, not held out. On the held-out third set the judge was far from
    its suite DI (.469 against .916, .447 apart); after the fourth change, made with that set in view, it was .072
    apart there (a development figure). On the fourth set, held out from that change, it was .447 apart (.469 against
    .916): the bound did not hold there. The fifth change (rules 8) was made with the fourth set in view; it catches
    one more suite P4 (a skipped contact confirmation, seen as a step told out of order: DI .926), and the third and
    fourth sets are now .020 and .012 apart (development figures). The fifth held-out set is the held-out measure."""
    from cargo_synthetic import default_world_suite

    suite = default_world_suite()
    families = {t["item_id"]: t["family"] for t in suite.truth}
    rows = [{**item, "family": families[item["item_id"]]} for item in suite.items]
    on_suite, by_hand = grounded_rates(rows), grounded_rates(_items())
    print(f"\nbuiltin:grounded under cargo: suite {on_suite} {wilson_rates(rows)}; hand-written {by_hand}")
    assert round(abs(by_hand["DI"] - on_suite["DI"]), 3) == 0.012 <= 0.15   # .043 before the sixth change (rules 9)
    held_out = grounded_rates(_held_out(3))
    print(f"builtin:grounded under cargo on the third held-out set: {held_out}")
    # .447 apart when scored held out (.267 before the third change, the suite then .736); a development set since
    assert round(abs(held_out["DI"] - on_suite["DI"]), 3) == 0.020
    fourth = grounded_rates(_held_out(4))
    print(f"builtin:grounded under cargo on the fourth held-out set: {fourth}")
    # .447 apart when scored held out, after the fourth change; the fifth change's development set since (.012 apart
    # after it); the sixth change (rules 9) was made with one of its items in view
    assert round(abs(fourth["DI"] - on_suite["DI"]), 3) == 0.043
    assert wilson_rates(rows) == SUITE_WILSON
    truth = {t["item_id"]: t for t in suite.truth}
    same_role = [r for r in rows if r["family"] == "P4" and truth[r["item_id"]]["perturbation"].get("same_role")]
    assert grounded_counts(same_role) == {"P4": (18, 19)}


#: builtin:grounded under cargo on the default suite, per family with 95% Wilson intervals (DI .926; .916 before
#: the fifth change, P4 45/50; .736 before the third, P4 27/50).
SUITE_WILSON = {"P1": "1/50 0.02 [0.00, 0.10]", "P2": "50/50 1.00 [0.93, 1.00]", "P3": "4/96 0.04 [0.02, 0.10]",
                "P4": "46/50 0.92 [0.81, 0.97]"}
