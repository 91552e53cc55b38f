"""Stages are rebuilt when their inputs change — including the code that builds them."""

from pathlib import Path

import pytest

from orgbench.stages import module_fingerprint, run_stage


def _package(root: Path) -> None:
    """pkg.entry imports pkg.helper; pkg.dispatch imports pkg.heavy lazily; a template and a note beside them."""
    (root / "pkg" / "templates").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "entry.py").write_text("from pkg import helper\n")
    (root / "pkg" / "helper.py").write_text("V = 1\n")
    (root / "pkg" / "dispatch.py").write_text("def build():\n    import pkg.heavy\n")
    (root / "pkg" / "heavy.py").write_text("H = 1\n")
    (root / "pkg" / "templates" / "t.j2").write_text("{{ x }}\n")
    (root / "pkg" / "notes.txt").write_text("not code\n")


def test_module_fingerprint_follows_imports_data_files_and_alone_files(tmp_path, monkeypatch):
    import orgbench.stages as stages

    monkeypatch.setattr(stages, "OUR_PACKAGES", ("pkg",))
    monkeypatch.setattr(stages, "_SPEC", stages.re.compile(r"^pkg(\.[A-Za-z_][A-Za-z0-9_]*)*(:[A-Za-z_.]*)?$"))
    _package(tmp_path)

    def key() -> str:
        return module_fingerprint("pkg.entry", alone=("pkg.dispatch",), root=tmp_path)

    first = key()
    assert first == key() != module_fingerprint("pkg.entry", root=tmp_path)
    edits = {"notes.txt": False, "heavy.py": False,                  # not code / imported only by an alone module
             "helper.py": True, "templates/t.j2": True, "dispatch.py": True}
    for name, changes in edits.items():
        before = key()
        with open(tmp_path / "pkg" / name, "a", encoding="utf-8") as handle:
            handle.write("\n# edited\n")
        assert (key() != before) is changes, name
    with pytest.raises(ValueError, match="pkg.gone"):
        module_fingerprint("pkg.entry", alone=("pkg.gone",), root=tmp_path)
    with pytest.raises(ValueError, match="pkg.moved"):
        module_fingerprint("pkg.moved", root=tmp_path)


def test_a_stage_whose_code_changed_is_rebuilt(tmp_path):
    root = _scratch_tree(tmp_path)
    built: list[str] = []

    def build(tmp: Path) -> None:
        built.append("built")
        (tmp / "out.txt").write_text("out\n")

    def inputs() -> dict:
        return {"stage": "demo", "code": module_fingerprint("orgbench.core.jsonl", alone=("orgbench.sweep.builders",),
                                                            root=root)}

    stage = tmp_path / "stage"
    assert run_stage(stage, inputs(), build) is False
    assert run_stage(stage, inputs(), build) is True          # same code: reused
    with open(root / "orgbench" / "sweep" / "builders.py", "a", encoding="utf-8") as handle:
        handle.write("\n# edited\n")
    assert run_stage(stage, inputs(), build) is False         # new code: rebuilt
    assert built == ["built", "built"]


def _scratch_tree(tmp_path: Path) -> Path:
    """A scratch copy of the source packages (the stages' code), to edit without touching the checkout."""
    import shutil

    from orgbench.stages import OUR_PACKAGES

    source = Path(__file__).resolve().parents[2]
    root = tmp_path / "src"
    for package in OUR_PACKAGES:
        shutil.copytree(source / package, root / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return root


def test_a_stage_rebuilds_when_a_transitively_imported_module_changes(tmp_path):
    from orgbench.stages import module_fingerprint

    root = _scratch_tree(tmp_path)
    entry = ("benchmark_builders.trajectories.simulate", "benchmark_builders.trajectories.records")
    builds: list[str] = []

    def build(tmp: Path) -> None:
        builds.append("built")
        (tmp / "out.txt").write_text("suite\n")

    def inputs() -> dict:
        return {"stage": "assurance-suite", "code": module_fingerprint(*entry, root=root)}

    stage = tmp_path / "stage"
    assert run_stage(stage, inputs(), build) is False
    assert run_stage(stage, inputs(), build) is True
    # simulator.procedures and simulator.case_facts are imported by the builder's imports, not by it directly
    for module in ("simulator/procedures.py", "simulator/case_facts.py", "orgbench/core/storage.py"):
        with open(root / module, "a", encoding="utf-8") as handle:
            handle.write("\n# edited\n")
        assert run_stage(stage, inputs(), build) is False, module
    # a module the builder never imports leaves the stage as it is
    with open(root / "judges" / "assurance" / "contrast.py", "a", encoding="utf-8") as handle:
        handle.write("\n# edited\n")
    assert run_stage(stage, inputs(), build) is True
    assert builds == ["built"] * 4


def test_the_cargo_judging_closure_holds_the_backend_seam_and_the_prompts():
    from orgbench.stages import import_closure

    root = Path(__file__).resolve().parents[2]
    files = {p.relative_to(root).as_posix() for p in import_closure("orgbench.commands.cargo", "judges.conditions")}
    for needed in ("judges/backends/__init__.py", "judges/backends/base.py", "judges/cache.py",
                   "judges/backends/builtin.py", "judges/prompts/cargo.j2", "judges/verdict.py"):
        assert needed in files, needed
    files = {p.relative_to(root).as_posix() for p in import_closure("benchmark_builders.trajectories.simulate")}
    assert {"simulator/procedures.py", "simulator/case_facts.py"} <= files
    assert not any(f.startswith("judges/") for f in files)        # builders never import judges


def test_lazy_module_strings_and_function_level_imports_are_followed(tmp_path):
    from orgbench.stages import import_closure

    pkg = tmp_path / "judges"
    (pkg / "prompts").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "entry.py").write_text("def run():\n    from judges import inner\n    return inner\n")
    (pkg / "inner.py").write_text('TABLE = {"mine": "judges.plugin:Backend"}\n')
    (pkg / "plugin.py").write_text("class Backend: ...\n")
    (pkg / "unused.py").write_text("X = 1\n")
    (pkg / "prompts" / "p.j2").write_text("{{ x }}\n")
    names = [p.relative_to(tmp_path).as_posix() for p in import_closure("judges.entry", root=tmp_path)]
    assert names == ["judges/__init__.py", "judges/entry.py", "judges/inner.py", "judges/plugin.py",
                     "judges/prompts/p.j2"]


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_published_stage_copies_the_bytes_it_built_and_rebuilds_on_a_changed_or_tampered_input(tmp_path):
    from orgbench.stages import published_stage, stage_digest

    source = tmp_path / "runs"
    runs: list[str] = []
    built: list[str] = []

    def run(tmp: Path) -> None:
        runs.append("run")
        (tmp / "answers.jsonl").write_text(f"answer {len(runs)}\n")

    def tables(tmp: Path) -> None:          # what a study publishes, from its run stage's files
        built.append("tables")
        (tmp / "sub").mkdir()
        (tmp / "table.md").write_text("table of " + (source / "answers.jsonl").read_text())
        (tmp / "sub" / "figure.png").write_bytes(bytes(range(256)))
        (tmp / ".journal.jsonl").write_text("scratch\n")    # hidden: neither hashed nor published

    def publish(out: Path, rules: int = 1) -> bool:
        run_stage(source, {"stage": "run"}, run)
        return published_stage(tmp_path / "tables", {"stage": "tables", "rules": rules,
                                                     "run": stage_digest(source)}, tables, out)

    assert publish(tmp_path / "fresh") is False
    fresh = _tree(tmp_path / "fresh")
    assert fresh == {"table.md": b"table of answer 1\n", "sub/figure.png": bytes(range(256))}
    assert publish(tmp_path / "cached") is True and built == ["tables"]
    assert _tree(tmp_path / "cached") == fresh                         # a hit publishes the fresh bytes

    (tmp_path / "tables" / "table.md").write_text("forged\n")          # a stale or forged copy is not published
    assert publish(tmp_path / "after-forgery") is False and built == ["tables"] * 2
    assert _tree(tmp_path / "after-forgery") == fresh

    assert publish(tmp_path / "new-rules", rules=2) is False           # a changed input: recomputed
    (source / "answers.jsonl").write_text("edited\n")                  # the run rebuilt: a new digest, new tables
    assert publish(tmp_path / "new-run", rules=2) is False and runs == ["run", "run"]
    assert _tree(tmp_path / "new-run")["table.md"] == b"table of answer 2\n"
    assert built == ["tables"] * 4


def test_a_stage_built_in_a_folder_its_command_holds_does_not_wait_for_itself(tmp_path):
    """A command holds its --out folder (outdir's ``.NAME.lock``) and may build a stage there: the stage's own lock
    is another file, so the process does not block on its own flock (a sweep hung so in CI)."""
    import subprocess
    import sys

    out = tmp_path / "out"
    program = (
        "import sys; from pathlib import Path\n"
        "from orgbench.outdir import one_writer\n"
        "from orgbench.stages import run_stage\n"
        "out = Path(sys.argv[1])\n"
        "with one_writer([('--out', out)], 'test'):\n"
        "    run_stage(out, {'x': 1}, lambda tmp: (tmp / 'f.txt').write_text('built'))\n"
        "print((out / 'f.txt').read_text())\n")
    done = subprocess.run([sys.executable, "-c", program, str(out)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "built"), done.stderr
