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

