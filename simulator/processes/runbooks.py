"""The runbook pages on the wiki: published at the start, revised mid-run, copied, misfiled and left stale.

Every runbook has one page whose versions state its steps (action, facts read
and written, required steps, escalation). A revision (the pack's
``[[runbooks.revisions]]``) is published at a seeded business moment in the middle of the run: from then on
new cases follow it (``SimContext.runbooks``), while cases already open keep
the revision they started with, so the page as of a case's opening shows the
steps that applied. Pages are edited for wording too. A few copies exist: a
near-duplicate that nobody updates when the runbook changes (its later
versions state the old steps: a conflict, labelled) and a copy filed under
the wrong category (labelled wrong).
"""

from __future__ import annotations

from simulator.context import SimContext
from simulator.messaging import author_acl
from simulator.model import EntityRef
from simulator.procedures import Procedure, Step

#: The wiki space a restricted runbook's page lives in.
RESTRICTED_SPACE = "SP-WIKI-RESTRICTED"
WORDING_NOTES = ("clarified wording", "added an example", "updated contacts", "fixed a broken link",
                 "added a troubleshooting note")


def step_details(step: Step) -> dict:
    """A runbook step as its wiki page states it: action, facts read and written, required steps, escalation."""
    details = {"step_id": step.step_id, "action": step.action, "reads": list(step.reads),
               "writes": list(step.writes), "requires": list(step.requires)}
    if step.escalates_to:
        details["escalates_to"] = step.escalates_to
    return details


def page_facts(procedure: Procedure, wiki_id: str, note: str, category: str | None = None) -> dict:
    """What a runbook page states (``category`` overrides the runbook's own, for a misfiled copy)."""
    return {"procedure_id": procedure.procedure_id, "name": procedure.name,
            "category": category or procedure.category, "revision": procedure.revision,
            "steps": [s.step_id for s in procedure.steps],
            "step_details": [step_details(step) for step in procedure.steps], "wiki_id": wiki_id,
            "revision_note": note}


class _Page:
    """One runbook page or copy: what it shows, and which runbook it copies."""

    def __init__(self, wiki_id: str, title: str, procedure: Procedure, space: str | None,
                 copy: bool = False, category: str | None = None) -> None:
        self.wiki_id, self.title, self.procedure, self.space = wiki_id, title, procedure, space
        self.copy, self.category = copy, category


def _publish(ctx: SimContext, page: _Page, author: str, note: str, event_type: str) -> str:
    entity = EntityRef("wiki_page", page.wiki_id)
    facts = page_facts(page.procedure, page.wiki_id, note, page.category)
    ref = ctx.ledger.draft(page.wiki_id, "wiki", "runbook", author, entity, page.title, "wiki_runbook", facts,
                           author_acl(ctx, page.space, author))
    ctx.ledger.emit(event_type, (author,), "wiki", entity,
                    {"wiki_id": page.wiki_id, "restricted": page.space is not None,
                     "procedure_id": page.procedure.procedure_id, "revision": page.procedure.revision}, (), (ref,))
    if page.category is not None:
        ctx.label(ref, "category", page.category, page.procedure.category, "wrong", ctx.runbooks_page[
            page.procedure.procedure_id])
    current = ctx.runbooks[page.procedure.procedure_id]
    if page.copy and current.revision != page.procedure.revision:
        ctx.label(ref, "step_details", facts["step_details"], [step_details(s) for s in current.steps], "conflict",
                  ctx.runbooks_page[current.procedure_id])
    return ref


def _author(ctx: SimContext, rng, page: _Page) -> str:
    if page.space is not None:
        return ctx.pick(rng, ctx.org.space_members(page.space))
    return ctx.pick(rng, ctx.org.active())


def _open_pages(ctx: SimContext, rng, revisions: tuple[Procedure, ...]) -> list[_Page]:
    """The runbook pages, then one stale-prone copy per revised runbook and one misfiled copy."""
    manager = ctx.org.with_role("support_manager")[0]
    pages = []
    procedures = ctx.pack.procedures
    for procedure in procedures:
        page = _Page(ctx.ledger.next_id("WIKI"), f"Runbook: {procedure.name}", procedure,
                     RESTRICTED_SPACE if procedure.restricted else None)
        ctx.runbooks[procedure.procedure_id] = procedure
        ctx.runbooks_page[procedure.procedure_id] = page.wiki_id
        author = manager if page.space is None else _author(ctx, rng, page)
        _publish(ctx, page, author, "created", "wiki.page_created")
        pages.append(page)
    revised = sorted({r.procedure_id for r in revisions})
    for procedure_id in revised:
        original = ctx.runbooks[procedure_id]
        copy = _Page(ctx.ledger.next_id("WIKI"), f"Copy of Runbook: {original.name}", original, None, copy=True)
        _publish(ctx, copy, _author(ctx, rng, copy), "copied for team notes", "wiki.page_created")
        pages.append(copy)
    original = ctx.pick(rng, [p for p in procedures if not p.restricted])
    wrong = ctx.pick(rng, sorted({p.category for p in procedures} - {original.category}))
    misfiled = _Page(ctx.ledger.next_id("WIKI"), f"Runbook: {original.name} ({wrong})", original, None,
                     copy=True, category=wrong)
    _publish(ctx, misfiled, _author(ctx, rng, misfiled), "moved from the old wiki", "wiki.page_created")
    pages.append(misfiled)
    return pages


def _revision_plan(ctx: SimContext, rng, count: int) -> list[tuple[float, int]]:
    """(minute, index into the pack's revisions) of every revision, at business moments in the middle of the run."""
    days = ctx.calendar.working_days()
    middle = [d for d in days if 0.3 * ctx.config.days <= d < 0.7 * ctx.config.days] or days
    workday = ctx.calendar.work_end - ctx.calendar.open_minute
    plan = [(ctx.calendar.day_open(rng.choice(middle)) + rng.uniform(0, workday), i) for i in range(count)]
    return sorted(plan)


def runbook_pages(ctx: SimContext):
    """Publish the runbooks, revise them at their moments, and edit pages (and copies) for wording meanwhile."""
    rng = ctx.rng("runbooks")
    revisions = ctx.pack.revisions
    pages = _open_pages(ctx, rng, revisions)
    ctx.wiki_pages["runbooks"] = len(pages)
    plan = _revision_plan(ctx, rng, len(revisions))
    yield ctx.until(ctx.now)  # the other wiki pages are created too before edits are shared out
    while True:
        rate = ctx.wiki_share("runbooks") * ctx.config.workload.wiki_edits_per_person * len(ctx.org.active())
        gap = ctx.gap(rate, rng)
        next_edit = ctx.calendar.after(ctx.now, gap) if gap != float("inf") else float("inf")
        if plan and plan[0][0] <= next_edit:
            minute, index = plan.pop(0)
            yield ctx.until(minute)
            revision = revisions[index]
            ctx.runbooks[revision.procedure_id] = revision
            page = next(p for p in pages if not p.copy and p.procedure.procedure_id == revision.procedure_id)
            page.procedure = revision
            _publish(ctx, page, _author(ctx, rng, page), f"revision {revision.revision}: {revision.change_note}",
                     "wiki.runbook_revised")
            continue
        yield ctx.work(gap)
        page = ctx.pick(rng, pages)
        _publish(ctx, page, _author(ctx, rng, page), ctx.pick(rng, WORDING_NOTES), "wiki.page_edited")
