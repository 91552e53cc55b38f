"""Turn a pack's TOML tables into a validated :class:`~simulator.packs.Pack`, failing on the first bad field."""

from __future__ import annotations

from simulator.packs.wording import parse_wording
from dataclasses import replace
from typing import Any, Mapping

from simulator.model import ROLES, TEAMS
from simulator.mechanisms import MECHANISMS
from simulator.packs.pack import Pack
from simulator.packs.checks import DOMAIN, FIRMWARE_LINE, ID_FACT, Fields
from simulator.runbook import CASE_FACTS, OPENING_FACTS, WRITABLE_FACTS, Procedure, Step

#: Chatter topics the prose has wordings for (a pack picks from these and weights them by repetition).
CHATTER_TOPICS: tuple[str, ...] = ("standup", "question", "fyi", "thanks", "lunch", "reminder", "status")
TOP_TABLES = ("pack", "engineering", "chatter", "teams", "products", "wiki_pages", "runbooks", "wording")
#: Roles whose holders get a title from the pack (executives take ``executive_titles``).
TITLED_ROLES = tuple(r for r in ROLES if r != "executive")


def parse_pack(raw: Mapping[str, Any], source: str, digest: str) -> Pack:
    """A Pack from parsed TOML ``raw`` read from ``source``."""
    f = Fields(source)
    for key in raw:
        if key not in TOP_TABLES:
            raise f.fail(key, f"unknown key (a pack has {', '.join(TOP_TABLES)})")
    head = f.check_table(raw.get("pack"), "pack", ("name", "company", "industry", "domain"))
    engineering = f.check_table(raw.get("engineering"), "engineering", ("services", "changes", "service_categories"))
    chatter = f.check_table(raw.get("chatter"), "chatter", ("topics",))
    executives, reports_to, titles = _teams(f, raw.get("teams"))
    services = f.texts(engineering, "engineering", "services", unique=True)
    procedures, revisions, out_of_scope = _runbooks(f, raw)
    return Pack(
        name=f.text(head, "pack", "name"), company=f.text(head, "pack", "company"),
        industry=f.text(head, "pack", "industry"),
        domain=f.matching(head, "pack", "domain", DOMAIN, "a lower-case domain name such as example.example"),
        services=services, change_kinds=_changes(f, engineering),
        service_categories=_service_categories(f, engineering, services, procedures),
        chatter_topics=f.texts(chatter, "chatter", "topics", allowed=CHATTER_TOPICS),
        executive_titles=executives, reports_to=reports_to, titles=titles,
        products=_products(f, raw), wiki_pages=_wiki_pages(f, raw), procedures=procedures, revisions=revisions,
        out_of_scope=out_of_scope, sha256=digest, wording=parse_wording(f, raw.get("wording")),
    )


def _teams(f: Fields, value: Any):
    teams = f.check_table(value, "teams", ("executive_titles", "reports_to", "titles"))
    executives = f.texts(teams, "teams", "executive_titles", unique=True)
    reports = f.check_table(teams.get("reports_to", {}), "teams.reports_to", tuple(t for t in TEAMS if t != "leadership"))
    for team, title in reports.items():
        if title not in executives:
            raise f.fail(f"teams.reports_to.{team}", f"{title!r} is not one of teams.executive_titles")
    titles = f.check_table(teams.get("titles"), "teams.titles", TITLED_ROLES)
    for role in TITLED_ROLES:
        if role not in titles:
            raise f.fail("teams.titles", f"missing role {role!r} (every role but executive needs titles)")
    return (executives, tuple((t, reports[t]) for t in TEAMS if t in reports),
            tuple((role, f.texts(titles, "teams.titles", role)) for role in TITLED_ROLES))


def _changes(f: Fields, engineering: Mapping[str, Any]) -> tuple[tuple[str, str, str], ...]:
    out = []
    for i, item in enumerate(f.array(engineering, "changes", "engineering.changes")):
        where = f"engineering.changes[{i}]"
        f.check_table(item, where, ("type", "summary", "mechanism"))
        summary = f.text(item, where, "summary")
        if "{svc}" not in summary or summary.count("{") != 1 or summary.count("}") != 1:
            raise f.fail(f"{where}.summary", "must name the service once as {svc} (and use no other braces)")
        mechanism = f.text(item, where, "mechanism")
        if mechanism not in MECHANISMS:
            raise f.fail(f"{where}.mechanism", f"unknown mechanism {mechanism!r} (known: {', '.join(MECHANISMS)})")
        out.append((f.text(item, where, "type"), summary, mechanism))
    return tuple(out)


def _service_categories(f: Fields, engineering: Mapping[str, Any], services: tuple[str, ...],
                        procedures: tuple[Procedure, ...]) -> tuple[tuple[str, str], ...]:
    """(service, case category) pairs in service order; a service left out makes no customer cases."""
    value = engineering.get("service_categories", {})
    table = f.check_table(value, "engineering.service_categories", services)
    categories = tuple(p.category for p in procedures)
    for service, category in table.items():
        if category not in categories:
            raise f.fail(f"engineering.service_categories.{service}",
                         f"unknown case category {category!r} (the runbooks' categories: {', '.join(categories)})")
    return tuple((s, table[s]) for s in services if s in table)


def _products(f: Fields, raw: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    out = []
    for i, item in enumerate(f.array(raw, "products")):
        where = f"products[{i}]"
        f.check_table(item, where, ("name", "firmware_line"))
        out.append((f.text(item, where, "name"),
                    f.matching(item, where, "firmware_line", FIRMWARE_LINE, "MAJOR.MINOR such as 4.2")))
    return tuple(out)


def _wiki_pages(f: Fields, raw: Mapping[str, Any]) -> tuple[tuple[str, str, bool], ...]:
    if "wiki_pages" not in raw:
        return ()
    out = []
    for i, item in enumerate(f.array(raw, "wiki_pages")):
        where = f"wiki_pages[{i}]"
        f.check_table(item, where, ("title", "topic", "restricted"))
        out.append((f.text(item, where, "title"), f.text(item, where, "topic"), f.flag(item, where, "restricted")))
    return tuple(out)


def _ids(f: Fields, value: Any, where: str) -> tuple[tuple[str, str, int], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise f.fail(where, "must be a table of fact = \"PREFIX-FIRST\"")
    out = []
    for fact, spec in value.items():
        if fact in CASE_FACTS:
            raise f.fail(f"{where}.{fact}", "is one of the engine's own facts; name a new fact")
        match = ID_FACT.match(spec) if isinstance(spec, str) else None
        if match is None:
            raise f.fail(f"{where}.{fact}", "must be \"PREFIX-FIRST\" such as \"CBK-7001\"")
        out.append((fact, match.group(1), int(match.group(2))))
    return tuple(out)


def _runbooks(f: Fields, raw: Mapping[str, Any]) -> tuple[tuple[Procedure, ...], tuple[Procedure, ...], tuple[str, ...]]:
    """The runbooks, the revisions some of them get mid-run (in runbook order), and the ids of those marked
    ``out_of_scope`` (CARGO's gating runbooks)."""
    out: list[Procedure] = []
    revisions: list[Procedure] = []
    out_of_scope: list[str] = []
    for i, item in enumerate(f.array(raw, "runbooks")):
        where = f"runbooks[{i}]"
        f.check_table(item, where, ("id", "name", "category", "restricted", "diagnostics", "symptoms", "ids",
                                    "steps", "revisions", "out_of_scope"))
        procedure_id, category = f.text(item, where, "id"), f.text(item, where, "category")
        for earlier in out:
            if earlier.procedure_id == procedure_id:
                raise f.fail(f"{where}.id", f"{procedure_id!r} is used by an earlier runbook")
            if earlier.category == category:
                raise f.fail(f"{where}.category", f"{category!r} is used by an earlier runbook")
        ids = _ids(f, item.get("ids"), f"{where}.ids")
        diagnostics = f.texts(item, where, "diagnostics", unique=True, empty=True)
        id_facts = tuple(name for name, _, _ in ids)
        steps = _steps(f, item, where, id_facts, bool(diagnostics))
        out.append(Procedure(procedure_id=procedure_id, name=f.text(item, where, "name"), category=category,
                             steps=steps, restricted=f.flag(item, where, "restricted"), diagnostics=diagnostics,
                             ids=ids, symptoms=f.texts(item, where, "symptoms")))
        if "revisions" in item:
            revisions.append(_revision(f, item, where, out[-1], id_facts))
        if f.flag(item, where, "out_of_scope"):
            out_of_scope.append(procedure_id)
    return tuple(out), tuple(revisions), tuple(out_of_scope)


def _revision(f: Fields, item: Mapping[str, Any], where: str, first: Procedure,
              id_facts: tuple[str, ...]) -> Procedure:
    """Revision 2 of ``first``: its own steps and change note, every other field kept."""
    tables = f.array(item, "revisions", f"{where}.revisions")
    if len(tables) != 1:
        raise f.fail(f"{where}.revisions", "a runbook has at most one revision ([[runbooks.revisions]] once)")
    at = f"{where}.revisions[0]"
    table = f.check_table(tables[0], at, ("note", "steps"))
    revised = replace(first, steps=_steps(f, table, at, id_facts, bool(first.diagnostics)), revision=2,
                      change_note=f.text(table, at, "note"))
    if revised.steps == first.steps:
        raise f.fail(f"{at}.steps", "are the runbook's own steps (a revision must change them)")
    if first.covers_entitled_units_only and not revised.covers_entitled_units_only:
        raise f.fail(f"{at}.steps", "must still write entitlement (revision 1 verifies it)")
    return revised


def _steps(f: Fields, item: Mapping[str, Any], where: str, id_facts: tuple[str, ...],
           has_diagnostics: bool) -> tuple[Step, ...]:
    known = (*CASE_FACTS, *id_facts)
    writable = (*WRITABLE_FACTS, *id_facts)
    targets = (*TEAMS, *ROLES)
    steps: list[Step] = []
    tables = f.array(item, "steps", f"{where}.steps")
    written = {fact for table in tables for fact in (table.get("writes") or []) if isinstance(fact, str)}
    for j, table in enumerate(tables):
        at = f"{where}.steps[{j}]"
        f.check_table(table, at, ("id", "action", "reads", "writes", "requires", "escalates_to"))
        step_id = f.text(table, at, "id")
        if any(s.step_id == step_id for s in steps):
            raise f.fail(f"{at}.id", f"{step_id!r} is used by an earlier step of this runbook")
        reads = f.texts(table, at, "reads", allowed=known, empty=True)
        for k, fact in enumerate(reads):
            if fact not in OPENING_FACTS and fact not in written:
                raise f.fail(f"{at}.reads[{k}]", f"{fact!r} is neither known when a case opens nor written by a step")
        writes = f.texts(table, at, "writes", allowed=writable, unique=True, empty=True)
        if "diagnostic_code" in writes and not has_diagnostics:
            raise f.fail(f"{where}.diagnostics", "must list the codes a step writing diagnostic_code draws from")
        requires = f.texts(table, at, "requires", allowed=tuple(s.step_id for s in steps), empty=True)
        escalates_to = None
        if "escalates_to" in table:
            escalates_to = f.text(table, at, "escalates_to")
            if escalates_to not in targets:
                raise f.fail(f"{at}.escalates_to", f"unknown team or role {escalates_to!r}")
        steps.append(Step(step_id, f.text(table, at, "action"), reads, writes, requires, escalates_to))
    return tuple(steps)
