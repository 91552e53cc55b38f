"""Bulk rendering calls each template's macro directly; the text must be what jinja2's public path renders."""

from __future__ import annotations

import jinja2
import pytest

from simulator.artifacts import environment, render_bodies
from simulator.prose import COMPOSERS
from simulator.calendar import DAY
from simulator.config import load_config
from simulator.simulate import _context, _start_processes


@pytest.fixture(scope="module")
def drafts_and_names():
    ctx = _context(load_config(seed=4, days=15, people=24))
    _start_processes(ctx)
    ctx.env.run(until=15 * DAY)
    return ctx.ledger.drafts, {a: p.name for a, p in ctx.org.people.items()}


def test_direct_macro_calls_render_what_the_public_macro_call_renders(drafts_and_names):
    drafts, names = drafts_and_names
    by_template: dict[str, list] = {}
    for draft in drafts:
        by_template.setdefault(draft.template, []).append(draft)
    assert len(by_template) >= 20
    for template, group in sorted(by_template.items()):
        if template in COMPOSERS:  # composed in Python (simulator.prose), not by a template
            continue
        sample = group[:: max(1, len(group) // 25)]
        public = environment().from_string(
            "{% from '" + template + ".j2' import render with context %}"
            "{{ render(d.facts, d.context, d.variant % 3, name(d.author)) }}")
        expected = [public.render(d=d, names=names).strip() for d in sample]
        assert render_bodies(template, sample, names) == expected, template
        assert all(expected)


def test_attribute_lookup_on_facts_behaves_as_in_jinja2():
    source = "{{ f.case_id }}|{{ f.missing }}|{{ f.items is callable }}|{{ f['items'] }}|{{ o.real }}"
    ours = environment().from_string(source)
    stock = jinja2.Environment(undefined=jinja2.ChainableUndefined).from_string(source)
    values = {"f": {"case_id": "CASE-1", "items": [1, 2]}, "o": 3}
    assert ours.render(**values) == stock.render(**values) == "CASE-1||True|[1, 2]|3"


def test_a_template_cache_that_cannot_be_written_or_read_is_only_a_miss(tmp_path):
    from simulator.artifacts import _QuietBytecodeCache

    cache = _QuietBytecodeCache(str(tmp_path / "gone"))  # the folder does not exist: every write fails
    env = jinja2.Environment(loader=jinja2.DictLoader({"t.j2": "{{ x }}!"}), bytecode_cache=cache)
    assert env.get_template("t.j2").render(x="ok") == "ok!"
    assert not (tmp_path / "gone").exists()
