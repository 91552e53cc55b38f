"""The registries: what a spec can do comes from its backend's registration; a study refuses what cannot serve it."""

from __future__ import annotations

import json

import pytest

from judges.backends.registry import BACKENDS, Backend, _accept, find, is_builtin, takes_base_url
from orgbench.core.errors import InputError
from orgbench.core.registry import Registry
from orgbench.studies.descriptor import STUDIES, study
from tests.orgbench.clitools import fails, ok


def test_what_a_spec_is_comes_from_its_registration():
    assert [is_builtin(s) for s in ("builtin:literal", "builtin:step", "oracle", "zero-shot", "stub")] == [True] * 5
    assert [is_builtin(s) for s in ("openai:gpt", "local:smollm2", "replay:run", "paper (gpt-oss-120b)")] == [False] * 4
    assert takes_base_url("openai:m") and not takes_base_url("local:smollm2") and not takes_base_url("builtin:grounded")
    assert [b.roles for b in find("replay:x")] == [("judge",), ("agent",)]
    assert [b.kind for b in find("builtin:step")] == ["builtin:step", "builtin"]   # the exact spec first


def test_each_study_says_what_it_takes():
    assert [s.name for s in STUDIES.all()] == ["cargo", "groundeval", "assurance"]
    cargo, groundeval, assurance = (study(n) for n in ("cargo", "groundeval", "assurance"))
    from judges.backends.builtin import JUDGES
    from judges.groundeval.agents import BUILTIN_AGENTS

    assert cargo.builtin_names() == tuple(f"builtin:{name}" for name in JUDGES)
    assert groundeval.builtin_names() == BUILTIN_AGENTS and assurance.builtin_names() == ("builtin:step",)
    assert cargo.takes("openai:m") and groundeval.takes("openai:m") and assurance.takes("local:m")
    assert cargo.takes("builtin:noref") and not cargo.takes("builtin:nosuch") and not cargo.takes("builtin:step")
    assert groundeval.takes("bm25") and not groundeval.takes("builtin:literal") and not assurance.takes("bm25")
    with pytest.raises(InputError, match=r"--judge 'builtin:literal': cannot serve study groundeval \(it needs an "
                                         r"agent; builtin:literal is a judge for cargo\)"):
        groundeval.check("builtin:literal")


def test_a_bare_factory_is_a_judge_and_an_agent_and_a_name_twice_is_refused():
    def make(wanted):
        raise AssertionError("not called")

    legacy = _accept("acme", make)
    assert legacy == Backend(kind="acme", roles=("judge", "agent"), make=make, usage="acme:MODEL")
    with pytest.raises(InputError, match="its Backend's kind is 'other'"):
        _accept("acme", Backend(kind="other"))
    twice = Registry("backend", "orgbench.test-twice", lambda: [*BACKENDS.all(), BACKENDS.all()[0]],
                     lambda b: b.key, _accept)
    with pytest.raises(InputError, match="orgbench.test-twice: backend 'builtin@judge' is registered twice"):
        twice.all()


@pytest.mark.parametrize("study_name, judge, says", [
    ("groundeval", "builtin:literal", "cannot serve study groundeval (it needs an agent; builtin:literal is a judge "
                                      "for cargo)"),
    ("all", "builtin:grounded", "cannot serve study groundeval"),
    ("cargo", "oracle", "cannot serve study cargo (it needs a judge; oracle is a named agent for contracts, tasks)"),
    ("assurance", "builtin:literal", "cannot serve study assurance"),
    ("cargo", "nosuch:x", "unknown kind 'nosuch'"),
    ("nosuch", "builtin:literal", "STUDY: unknown study 'nosuch' (known: cargo, groundeval, assurance)"),
])
def test_reproduce_refuses_a_judge_that_cannot_serve_a_study(tmp_path, study_name, judge, says):
    fails("reproduce", study_name, "--judge", judge, "--out", tmp_path / "out", "--work-dir", tmp_path / "work",
          says=(says,))
    assert not (tmp_path / "out").exists() and not (tmp_path / "work").exists()


def test_list_is_exactly_what_is_registered():
    listed = json.loads(ok("list", "--json"))
    assert list(listed["judge and agent backends (SPEC kinds)"]) == list(dict.fromkeys(b.kind for b in BACKENDS.all()))
    assert listed["studies (reproduce STUDY)"]["groundeval"] == "GroundEval; --judge is its agent; by tracks"
    from benchmark_builders.export.formats import OWN

    scope = {("world",): "world", ("suite",): "suite", ("world", "suite"): "world or suite"}
    assert [k for k in listed["export formats"] if k.startswith("export")] == [
        f"export --format {f.name} ({scope[f.scopes]})" for f in OWN]
    assert "export --format hf (world or suite)" in listed["export formats"]


@pytest.mark.parametrize("declaration, says", [
    ('BACKEND = Backend(kind="x", roles=ROLES)', "field 'roles' is not a literal (ROLES)"),
    ('BACKEND = Backend(kind="x", roles=("oracle",))', "roles must be some of judge, agent"),
    ('BACKEND = Backend(kind="x", colour="red")', "unexpected keyword argument 'colour'"),
    ('BACKEND = make_backend("x")', "must be Backend(field=..., ...) with keyword arguments only"),
])
def test_a_declaration_orgbench_cannot_read_is_one_line_naming_file_and_field(tmp_path, declaration, says):
    from orgbench.core.registry import declared

    module = tmp_path / "mine.py"
    module.write_text(f"ROLES = ('judge',)\n{declaration}\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        declared(module, "BACKEND", Backend, make="x:make")
    assert str(caught.value).startswith(f"{module}: BACKEND: ") and says in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_plugin_that_fails_to_load_is_one_line_naming_it_and_list_exits_2(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    site = tmp_path / "site"
    info = site / "orgbench_broken-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: orgbench-broken\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[orgbench.backends]\nbroken = orgbench_broken:BACKEND\n", encoding="utf-8")
    (site / "orgbench_broken.py").write_text(
        "from judges.backends.registry import Backend\nBACKEND = Backend(kind='broken', roles=('oracle',))\n",
        encoding="utf-8")
    repo = Path(__file__).resolve().parents[2]
    ran = subprocess.run([sys.executable, "-m", "orgbench.cli", "list"], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), str(site)])})
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr.strip().splitlines() == [
        "error: orgbench.backends entry point 'broken' (package orgbench-broken): loading orgbench_broken:BACKEND "
        "failed: TypeError: backend 'broken': roles must be some of judge, agent, got ('oracle',)"]


def test_installed_entry_points_are_importlib_metadata_s(tmp_path):
    """orgbench's one-pass reader finds exactly the entry points importlib.metadata finds, a first distribution of a
    name hiding a later one, and names a plugin's package as its metadata spells it."""
    import sys
    from importlib.metadata import distributions

    from orgbench.core.registry import installed_entry_points

    for where, version in (("a", "0.2"), ("b", "0.1")):
        info = tmp_path / where / f"orgbench_twice-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: orgbench-twice\nVersion: {version}\n",
                                       encoding="utf-8")
        (info / "entry_points.txt").write_text(f"# comment\n[orgbench.backends]\ntwice{where} = m{where}:B\n\n"
                                               "[console_scripts]\nx = y:z\n", encoding="utf-8")
    path = [str(tmp_path / "a"), str(tmp_path / "b"), *sys.path]
    mine = sorted((p.group, p.name, p.value) for p in installed_entry_points(path))
    expected = sorted({(e.group, e.name, e.value) for d in _unique(distributions(path=path)) for e in d.entry_points})
    assert mine == expected
    ours = [p for p in installed_entry_points(path) if p.group == "orgbench.backends" and p.name.startswith("twice")]
    assert [(p.name, p.value, p.package) for p in ours] == [("twicea", "ma:B", "orgbench-twice")]


def _unique(distributions):
    """Distributions by normalized name, the first of each (as importlib.metadata's entry_points keeps them)."""
    import re

    seen, kept = set(), []
    for d in distributions:
        name = re.sub(r"[-_.]+", "_", d.metadata["Name"] or "").lower()
        if name not in seen:
            seen.add(name)
            kept.append(d)
    return kept


def test_declared_literal_and_keys_read_the_source_alone(tmp_path):
    from orgbench.core.registry import declared_keys, declared_literal

    module = tmp_path / "m.py"
    module.write_text("import nothing_installed\nKIND = {'.md': 'Markdown',\n        '.csv': 'CSV'}\n"
                      "JUDGES: dict = {\n    'a': f, 'b': g,\n}\nOTHER = make()\n", encoding="utf-8")
    assert declared_literal(module, "KIND") == {".md": "Markdown", ".csv": "CSV"}
    assert declared_keys(module, "JUDGES") == ("a", "b")
    assert declared_keys(module, "OTHER") is None and declared_keys(module, "MISSING") is None
    with pytest.raises(InputError, match="OTHER must be assigned a literal"):
        declared_literal(module, "OTHER")


def test_builtin_judge_names_read_from_source_are_the_modules():
    from judges.backends.builtin import JUDGES
    from judges.backends.registry import BACKENDS

    builtin = next(b for b in BACKENDS.all() if b.kind == "builtin")
    assert builtin.specs() == [f"builtin:{name}" for name in JUDGES]
