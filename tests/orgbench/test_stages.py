"""Stages are rebuilt when their inputs change — including the code that builds them."""

from pathlib import Path

from orgbench.stages import code_fingerprint, run_stage


def test_code_fingerprint_follows_the_source_files(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("A = 1\n")
    (tmp_path / "pkg" / "sub" / "t.j2").write_text("{{ x }}\n")
    (tmp_path / "pkg" / "notes.txt").write_text("not code\n")
    first = code_fingerprint("pkg", root=tmp_path)
    assert first == code_fingerprint("pkg", root=tmp_path)
    (tmp_path / "pkg" / "notes.txt").write_text("still not code\n")
    assert code_fingerprint("pkg", root=tmp_path) == first
    (tmp_path / "pkg" / "sub" / "t.j2").write_text("{{ y }}\n")
    assert code_fingerprint("pkg", root=tmp_path) != first


def test_a_stage_whose_code_changed_is_rebuilt(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("V = 1\n")
    built: list[str] = []

    def build(tmp: Path) -> None:
        built.append((tmp_path / "src" / "m.py").read_text())
        (tmp / "out.txt").write_text(built[-1])

    def inputs() -> dict:
        return {"stage": "demo", "code": code_fingerprint("src", root=tmp_path)}

    stage = tmp_path / "stage"
    assert run_stage(stage, inputs(), build) is False
    assert run_stage(stage, inputs(), build) is True          # same code: reused
    (tmp_path / "src" / "m.py").write_text("V = 2\n")
    assert run_stage(stage, inputs(), build) is False         # new code: rebuilt
    assert (stage / "out.txt").read_text() == "V = 2\n" and built == ["V = 1\n", "V = 2\n"]



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
