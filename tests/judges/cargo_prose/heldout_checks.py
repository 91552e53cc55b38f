"""Checks shared by the held-out prose sets' format tests (items_heldout3..6.jsonl). Each reads only what a judge is
shown and the label beside it; a set's test passes its own value reader (``values``, ``normal``) and layouts."""
import datetime as dt
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from tests.judges.cargo_prose.item_labels import LABELS, OPTIONAL, P2_KINDS, P4_KINDS, RUNBOOKS, SHOWN, WORDS

STATUS = re.compile(r"status\W+(closed|resolved|in progress|pending customer)", re.I)
Values = Callable[[str], set[str]]


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def live_case(it: dict) -> str:
    return re.search(r"Case (CASE-\d+),", it["question"]).group(1)


def context_date(ctx: str, pattern: str) -> dt.date:
    return dt.date.fromisoformat(re.search(pattern + r"\W+(\d{4}-\d\d-\d\d)", ctx, re.I).group(1))


def earlier_count(it: dict) -> int:
    """Distinct case ids in the live context other than the live case: the account's earlier cases."""
    return len(set(re.findall(r"CASE-\d+", it["live_context"])) - {live_case(it)})


def check_ids_and_fields(items: list[dict], prefix: str, author: str, styles: set, context_formats: set,
                         reference_formats: set, states: bool = True) -> None:
    assert len(items) >= 64
    assert [it["item_id"] for it in items] == [f"{prefix}-{i:02d}" for i in range(1, len(items) + 1)]
    for it in items:
        assert set(SHOWN + LABELS) <= set(it) <= set(SHOWN + LABELS + OPTIONAL), it["item_id"]
        assert it["author"] == author and it["condition"] == "cargo", it["item_id"]
        assert it["procedure_id"] in RUNBOOKS and it["style"] in styles, it["item_id"]
        assert it["context_format"] in context_formats and it["reference_format"] in reference_formats
        if states:
            assert it["reference_revision"] in ("original", "revised") and it["case_state"] in ("closed", "open")
        assert all(isinstance(it[k], str) and it[k].strip() for k in SHOWN + ("why",)), it["item_id"]


def check_family_runs(items: list[dict], longest: int) -> None:
    """The ids were given after a seeded shuffle: no family holds a run of more than ``longest`` ids."""
    runs, last = [1], None
    for it in items:
        runs[-1:] = [runs[-1] + 1] if it["family"] == last else [runs[-1], 1]
        last = it["family"]
    assert max(runs) <= longest
    assert {it["family"] for it in items[:16]} == {"P1", "P2", "P3", "P4"}


def check_live_and_reference_case(items: list[dict]) -> None:
    for it in items:
        case = live_case(it)
        assert case in it["candidate"] and case in it["live_context"], it["item_id"]
        ref_case = re.search(r"CASE-\d+", it["reference"]).group(0)
        assert ref_case != case and case not in it["reference"] and ref_case not in it["candidate"], it["item_id"]


def check_reference_shares_no_value(items: list[dict], values: Values) -> None:
    for it in items:
        shared = values(it["reference"]) & values(it["live_context"] + it["question"])
        assert not shared, (it["item_id"], shared)


def check_correct_values(items: list[dict], values: Values, any_case: bool = False) -> None:
    """P1, P3 and P4 state only values the live context or question shows (read back from any format), and the
    context's status."""
    for it in items:
        if it["family"] == "P2":
            continue
        shown = values(it["live_context"] + it["question"])
        assert values(it["candidate"]) <= shown, (it["item_id"], values(it["candidate"]) - shown)
        status = STATUS.search(it["live_context"]).group(1)
        assert status in (it["candidate"].lower() if any_case else it["candidate"]), it["item_id"]
        assert (it["case_state"] == "closed") is (status == "closed"), it["item_id"]


def derived_seen(items: list[dict], truth: dict[str, Callable[[dict], int]], patterns: dict[str, str]) -> Counter:
    """Assert every stated earlier-case count, asset age and visit delay is the context's own (except a P2's changed
    one); return how many of each were stated. ``patterns`` maps count/age/delay to a regex whose group 1 is the
    number (a word for count and delay)."""
    fields = {"count": "earlier_cases", "age": "asset_age_days", "delay": "visit_delay_days"}
    seen: Counter = Counter()
    for it in items:
        changed = {c["field"] for c in it.get("changes", [])}
        for what, pattern in patterns.items():
            if (m := re.search(pattern, it["candidate"])) and fields[what] not in changed:
                stated = int(m.group(1)) if what == "age" else WORDS.index(m.group(1))
                assert stated == truth[fields[what]](it), it["item_id"]
                seen[what] += 1
    return seen


def check_labels_follow_family(items: list[dict], one_change: bool = True) -> None:
    for it in items:
        fam = it["family"]
        assert it["should_penalize"] is (fam in ("P2", "P4")), it["item_id"]
        if fam in ("P1", "P3"):
            assert it["kind"] is None and "changes" not in it and "perturbation" not in it, it["item_id"]
        if fam == "P1":
            assert "extras" not in it
        if fam == "P3":
            assert it["extras"]
        if fam == "P2":
            assert it["kind"] in P2_KINDS and it["changes"] and "perturbation" not in it, it["item_id"]
            assert len(it["changes"]) == 1 or not one_change, it["item_id"]
        if fam == "P4":
            assert it["kind"] in P4_KINDS and "changes" not in it, it["item_id"]
            assert it["perturbation"]["kind"] == P4_KINDS[it["kind"]], it["item_id"]


def check_p2_one_change(items: list[dict], values: Values, normal: Callable[[str], str],
                        truth: dict[str, Callable[[dict], int]]) -> None:
    """Each P2 differs from its context in exactly its one change; a derived change is recomputed from the context."""
    for it in (it for it in items if it["family"] == "P2"):
        cand, ctx = it["candidate"], it["live_context"]
        (change,) = it["changes"]
        assert change["new"] != change["original"] and change["new"] in cand, it["item_id"]
        if "derived" in change:
            assert change["computed"] == truth[change["field"]](it) != change["stated"], it["item_id"]
            assert str(change["stated"]) in change["new"] or WORDS[change["stated"]] in change["new"], it["item_id"]
            continue
        assert change["original"] in ctx and change["original"] not in cand, it["item_id"]
        assert normal(change["new"]) != normal(change["original"]), it["item_id"]
        assert not re.search(r"(?<![\w.])" + re.escape(normal(change["new"])) + r"(?![\w])", ctx), it["item_id"]
        unexplained = values(cand) - values(ctx + it["question"])
        assert unexplained <= {normal(change["new"])}, (it["item_id"], unexplained)


def check_family_balance(items: list[dict], styles: set, context_formats: set, reference_formats: set) -> None:
    """16 items a family, one per style, every runbook (at most 4) and layout, a revised reference and an open case;
    P4's four kinds 4 each; every P2 kind; extras on half of P2 and of P4."""
    families = Counter(it["family"] for it in items)
    assert families == {"P1": 16, "P2": 16, "P3": 16, "P4": 16}
    for fam in families:
        group = [it for it in items if it["family"] == fam]
        assert Counter(it["style"] for it in group) == Counter(styles), fam
        assert {it["procedure_id"] for it in group} == RUNBOOKS, fam
        assert max(Counter(it["procedure_id"] for it in group).values()) <= 4, fam
        assert {it["context_format"] for it in group} == context_formats, fam
        assert {it["reference_format"] for it in group} == reference_formats, fam
        assert sum(it["reference_revision"] == "revised" for it in group) >= 1, fam
        assert sum(it["case_state"] == "open" for it in group) >= 1, fam
    assert Counter(it["kind"] for it in items if it["family"] == "P4") == {"skip": 4, "order": 4, "action": 4, "escalation": 4}
    assert sum(it["perturbation"]["same_role"] for it in items if it["kind"] == "action") >= 2
    assert {it["kind"] for it in items if it["family"] == "P2"} == P2_KINDS
    assert {c["derived"] for it in items for c in it.get("changes", []) if "derived" in c} == {"count", "days"}
    for fam in ("P2", "P4"):  # extra sentences: every P3, none of P1, half of P2 and of P4 (the spec's plain/extra split)
        assert sum("extras" in it for it in items if it["family"] == fam) == 8


def check_no_reference_value_in_a_candidate(items: list[dict], values: Values) -> None:
    for it in items:
        own = values(it["live_context"] + it["question"])
        assert not (values(it["reference"]) - own) & values(it["candidate"]), it["item_id"]


def length_figures(items: list[dict]) -> tuple[dict[str, int], float]:
    """Mean candidate length per family, and the in-sample accuracy of the best one-threshold length rule."""
    means = {fam: round(sum(len(it["candidate"]) for it in items if it["family"] == fam) / 16) for fam in ("P1", "P3", "P2", "P4")}
    lengths = [(len(it["candidate"]), it["should_penalize"]) for it in items]
    best = max(sum(((n >= cut) is (sign > 0)) == label for n, label in lengths)
               for cut, _ in lengths for sign in (1, -1))
    return means, round(best / len(items), 3)


MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
MON = "(?:" + "|".join(MONTHS) + ")"
# The id-, code-, e-mail- and ISO-date-shaped tokens every set's contexts use; a set adds its restated forms.
ID_TOKENS = (r"CASE-\d+|ACC-\d+|SN-[0-9A-F]{8}|DSP-\d+|RMA-\d+|BKP-\d+|LOG-\d+|RJ-\d+|INV-\d+|CRD-\d+"
             r"|[A-Z]+-0x[0-9A-F]+|[\w.]+@[\w.]+\.example|\d{4}-\d\d-\d\d")


def normal(token: str) -> str:
    """A value token read back to the context's form: dates to ISO, amounts to plain ``1234.00``, versions bare."""
    if m := re.fullmatch(r"(\d\d)[./](\d\d)[./](\d{4})", token):
        return dt.date(int(m[3]), int(m[2]), int(m[1])).isoformat()
    if m := re.fullmatch(r"(\d{1,2}) (\w{3}) (\d{4})", token):
        return dt.date(int(m[3]), MONTHS.index(m[2]) + 1, int(m[1])).isoformat()
    if m := re.fullmatch(r"(\w{3}) (\d{1,2}), (\d{4})", token):
        return dt.date(int(m[3]), MONTHS.index(m[1]) + 1, int(m[2])).isoformat()
    if m := re.fullmatch(r"(\d+(?:\.\d+)?)k USD", token):
        return f"{round(float(m[1]) * 1000):d}.00"
    if re.fullmatch(r"(?:USD |\$)?[\d,]+\.\d\d", token):
        return re.sub(r"USD |\$|,", "", token)
    return token[1:] if re.fullmatch(r"v\d+\.\d+\.\d+", token) else token


def truth(opened: Callable[[str], dt.date]) -> dict[str, Callable[[dict], int]]:
    """The derived values recomputed from a live context whose opening date ``opened`` reads."""
    def asset_age(it: dict) -> int:
        ctx = it["live_context"]
        return (opened(ctx) - context_date(ctx, r"purchase(?:d| date|_date)")).days

    def visit_delay(it: dict) -> int:
        ctx = it["live_context"]
        return (context_date(ctx, r"visit(?: date|_date)") - opened(ctx)).days
    return {"earlier_cases": earlier_count, "asset_age_days": asset_age, "visit_delay_days": visit_delay}


def earlier_sets(here: Path, numbers: tuple[int, ...]) -> list[dict]:
    return [it for n in numbers for it in load(here / f"items_heldout{n}.jsonl")]


def check_styles_are_new(styles: set, earlier: list[dict], at_least: int) -> None:
    used = {it["style"] for it in earlier}
    assert len(used) >= at_least and not styles & used


def check_layouts_are_the_sets_own(items: list[dict], earlier: list[dict], context_mark: dict, reference_mark: dict) -> None:
    """Each context and reference is in its labelled layout; apart from the generator's own (gen), each is rendered
    differently from the earlier sets'."""
    for it in items:
        assert it["live_context"].startswith(context_mark[it["context_format"]]), it["item_id"]
        assert reference_mark[it["reference_format"]] in it["reference"], it["item_id"]

    def first_line(it: dict) -> str:
        return it["live_context"].split("\n")[0].split("CASE-")[0]
    assert not {first_line(it) for it in items if it["context_format"] != "gen"} & {first_line(it) for it in earlier}
    assert not any(reference_mark[fmt] in it["reference"] for it in earlier for fmt in set(reference_mark) - {"gen"})


def check_active_entitlements_in_date(items: list[dict], opened: Callable[[str], dt.date]) -> None:
    """An active entitlement's warranty ends after the case opened; an expired one's before."""
    for it in items:
        ctx = it["live_context"]
        ent = re.search(r"entitlement(?: recorded as)?\W+(active|expired)", ctx, re.I)
        warranty = context_date(ctx, r"warranty(?: end|_end)")
        if ent:
            assert (warranty > opened(ctx)) is (ent.group(1) == "active"), it["item_id"]
        assert context_date(ctx, r"purchase(?:d| date|_date)") < opened(ctx) < warranty or ent.group(1) == "expired"


def context_version(ctx: str, label: str) -> str:
    return re.search(label + r"[^\n]*?(\d+\.\d+\.\d+)", ctx, re.I).group(1)


def check_p2_values_plausible(items: list[dict], opened: Callable[[str], dt.date]) -> None:
    """No arithmetic giveaway: a changed rollback keeps running above target by one to four patches, a changed
    warranty end stays a whole number of years after purchase and after opening, a changed visit stays within a
    week of opening."""
    for it in (it for it in items if it["family"] == "P2"):
        ctx, (change,) = it["live_context"], it["changes"]
        if change["field"] in ("firmware_version", "target_firmware"):
            run = normal(change["new"]) if change["field"] == "firmware_version" else context_version(ctx, "firmware")
            target = normal(change["new"]) if change["field"] == "target_firmware" else context_version(ctx, "target")
            assert 1 <= int(run.split(".")[2]) - int(target.split(".")[2]) <= 4, it["item_id"]
        if change["field"] == "warranty_end":
            new, bought = dt.date.fromisoformat(normal(change["new"])), context_date(ctx, r"purchase(?:d| date|_date)")
            assert (new.month, new.day) == (bought.month, bought.day) and new > opened(ctx), it["item_id"]
        if change["field"] == "visit_date":
            assert 1 <= (dt.date.fromisoformat(normal(change["new"])) - opened(ctx)).days <= 7, it["item_id"]


def check_p4_contexts_consistent(items: list[dict], missing: dict[str, str], escalations: bool = True) -> None:
    """A skipped or replaced step that records a value leaves that value out of the context (and, with
    ``escalations``, out of the question; a wrong escalation then names its wrong team and not the runbook's)."""
    for it in items:
        pert = it.get("perturbation", {})
        if pert.get("kind") in ("skip_step", "wrong_action") and (pert["step"] in missing or not escalations):
            shown = it["live_context"] + (it["question"] if escalations else "")
            assert missing[pert["step"]] not in shown, it["item_id"]
        if escalations and pert.get("kind") == "wrong_escalation":
            cand = it["candidate"].lower()
            assert pert["new"].lower() in cand and pert["original"].lower() not in cand, it["item_id"]
            assert pert["original"] in it["reference"], it["item_id"]


def count_figures(items: list[dict]) -> tuple[Counter, Counter, Counter, int]:
    """Items per runbook, revised references and open cases per family, and the items to penalise."""
    return (Counter(it["procedure_id"] for it in items),
            Counter(it["family"] for it in items if it["reference_revision"] == "revised"),
            Counter(it["family"] for it in items if it["case_state"] == "open"),
            sum(it["should_penalize"] for it in items))
