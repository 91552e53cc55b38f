"""A newcomer's mistakes (issue 12), one test each: the one line, the exit code, and what is left on disk."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.orgbench.clitools import closed_port, copy, fails, ok, run, tree

REPO = Path(__file__).resolve().parents[2]


# --- work lost or left looking valid --------------------------------------------------------------------------

def test_run_agent_over_another_agents_run_is_refused(fx, tmp_path):
    """`run-agent --agent bm25` over the oracle's run: refused, the run kept; the same run may be redone."""
    answered = copy(fx["answered"], tmp_path)
    before = tree(answered)
    fails("run-agent", "--suite", fx["ge"], "--agent", "bm25", "--out", answered,
          says=(f"--out {answered}: holds a GroundEval agent run made from other inputs",
                'agent is "oracle" there, "bm25" now',
                "--overwrite"))
    assert tree(answered) == before
    ok("run-agent", "--suite", fx["ge"], "--agent", "oracle", "--out", answered)     # the same run: allowed
    ok("run-agent", "--suite", fx["ge"], "--agent", "bm25", "--out", answered, "--overwrite")
    assert '"agent": "bm25"' in (answered / "run.json").read_text()


def test_score_over_other_scores_is_refused(fx, tmp_path):
    """`score --out` over scores of other answers: refused and kept; the same scoring again is allowed."""
    scores = tmp_path / "scores"
    ok("score", "groundeval", "--suite", fx["ge"], "--answers", fx["answered"], "--out", scores)
    ok("score", "groundeval", "--suite", fx["ge"], "--answers", fx["answered"], "--out", scores)
    other = copy(fx["answered"], tmp_path / "other")
    lines = (other / "answers.jsonl").read_text().splitlines()
    (other / "answers.jsonl").write_text("\n".join(reversed(lines)) + "\n")     # the same answers, another file
    before = tree(scores)
    fails("score", "groundeval", "--suite", fx["ge"], "--answers", other, "--out", scores,
          says=(f"--out {scores}: holds GroundEval scores made from other inputs (answers.jsonl differs)",
                "--overwrite"))
    assert tree(scores) == before


def test_tables_cargo_into_an_unrelated_folder_is_refused(fx, tmp_path):
    mydata = tmp_path / "mydata"
    mydata.mkdir()
    (mydata / "notes.txt").write_text("mine\n")
    fails("tables", "cargo", fx["judged"], "--out", mydata, "--resamples", 10,
          says=(f"--out {mydata}: holds other files, not CARGO tables",))
    assert tree(mydata) == {"notes.txt": b"mine\n"}
    ok("tables", "cargo", fx["judged"], "--out", tmp_path / "t", "--resamples", 10)
    ok("tables", "cargo", fx["judged"], "--out", tmp_path / "t", "--resamples", 10)     # the same tables again
    fails("tables", "cargo", fx["judged"], "--out", tmp_path / "t", "--resamples", 20,
          says=("holds CARGO tables made from other inputs (resamples is 10 there, 20 now)",))


def test_judge_with_an_unreachable_endpoint_writes_nothing(fx, tmp_path):
    port = closed_port()
    fails("judge", "--suite", fx["cargo"], "--judge", "openai:x", "--base-url", f"http://127.0.0.1:{port}/v1",
          "--out", tmp_path / "r", says=(f"--base-url: http://127.0.0.1:{port}/v1 is unreachable",
                                          "Connection refused", "nothing was written"))
    assert not (tmp_path / "r").exists()        # no run.json, no empty judgments.jsonl, no cache.sqlite


def test_failed_reproduce_leaves_no_output_folder(tmp_path):
    port = closed_port()
    fails("reproduce", "cargo", "--judge", "openai:x", "--base-url", f"http://127.0.0.1:{port}/v1",
          "--out", tmp_path / "results", "--work-dir", tmp_path / "work",
          says=(f"--base-url: http://127.0.0.1:{port}/v1 is unreachable",))
    assert not (tmp_path / "results").exists() and not (tmp_path / "work").exists()


# --- errors alike everywhere ----------------------------------------------------------------------------------

def test_a_broken_answers_line_stops_scoring_with_file_and_line(fx, tmp_path):
    answered = copy(fx["answered"], tmp_path)
    count = len((answered / "answers.jsonl").read_text().splitlines())
    with open(answered / "answers.jsonl", "a") as handle:
        handle.write('{"question_id": "Q-1", "answer": \n')
    fails("score", "groundeval", "--suite", fx["ge"], "--answers", answered, "--out", tmp_path / "s",
          says=(f"{answered / 'answers.jsonl'}:{count + 1}: invalid JSON (Expecting value)", "nothing written"))
    assert not (tmp_path / "s").exists()


def test_tables_cargo_on_a_groundeval_run_says_what_it_is(fx, tmp_path):
    fails("tables", "cargo", fx["answered"], "--out", tmp_path / "t",
          says=(f"{fx['answered']}: holds a GroundEval agent run, not a CARGO judge run",
                "orgbench score groundeval"))
    assert not (tmp_path / "t").exists()


def test_a_misspelt_builtin_judge_names_the_nearest_one(fx, tmp_path):
    line = fails("judge", "--suite", fx["cargo"], "--judge", "builtin:grounde", "--out", tmp_path / "r",
                 says=("no built-in CARGO judge is called 'grounde'", "did you mean builtin:grounded?"))
    assert "(\"'" not in line                    # no Python repr of a KeyError
    assert not (tmp_path / "r").exists()


@pytest.mark.slow          # a simulate subprocess interrupted (4-5 s, loaded machine)
def test_ctrl_c_on_simulate_does_not_promise_a_resume(tmp_path):
    """A real SIGINT: simulate cannot resume, so its line says nothing was written; nothing is left at --out."""
    out = tmp_path / "w"
    proc = subprocess.Popen([sys.executable, "-m", "orgbench", "simulate", "--out", str(out), "--days", "400",
                             "--people", "80"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ), preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    import time
    time.sleep(4)                                  # well inside the simulation (it takes far longer)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1] == ("interrupted: nothing was written (the output is put in place only "
                                               "when complete); run the command again to start over")
    assert "resume" not in stderr and not out.exists()


def test_ctrl_c_inside_code_built_from_a_string_still_exits_130(tmp_path):
    """A Ctrl-C that lands in string-exec'd code (dataclasses build methods so) is handled: 130, not SIGINT's -2."""
    (tmp_path / "interrupted_cli.py").write_text(
        "from orgbench.cli import cli\n"
        "@cli.command('boom')\n"
        "def boom():\n"
        "    exec('raise KeyboardInterrupt', {})\n"
        "cli(prog_name='orgbench')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]))
    run = subprocess.run([sys.executable, "-m", "interrupted_cli", "boom"], cwd=REPO, capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.returncode == 130, run
    from orgbench.cli import ATOMIC

    assert run.stderr.strip() == f"interrupted: {ATOMIC}"


def test_interrupt_lines_differ_by_command() -> None:
    from orgbench.cli import interrupt_message

    assert "resume" in interrupt_message(["judge", "--suite"]) and "resume" in interrupt_message(["run-agent"])
    assert "reuse" in interrupt_message(["reproduce", "cargo"])
    for words in (["simulate"], ["build", "cargo"], ["score", "groundeval"], ["tables", "cargo"], ["view"]):
        assert "resume" not in interrupt_message(words) and "nothing was written" in interrupt_message(words)


# --- orientation ----------------------------------------------------------------------------------------------

def test_list_is_read_from_the_registries():
    from benchmark_builders.groundeval.contracts import KINDS, TRACKS
    from benchmark_builders.trajectories.importers import FORMATS
    from judges.backends.builtin import JUDGES
    from judges.conditions import ALL_CONDITIONS
    from judges.groundeval.agents import BUILTIN_AGENTS
    from judges.groundeval.task_track import TASK_AGENTS

    text = ok("list")
    for name in [*(f"builtin:{j}" for j in JUDGES), *BUILTIN_AGENTS, *TASK_AGENTS, *ALL_CONDITIONS, *TRACKS, *FORMATS,
                 "builtin:step", "stub"]:
        assert re.search(rf"(^|[\s,]){re.escape(name)}([\s,]|$)", text, re.M), name
    for track in TRACKS:
        assert ", ".join(KINDS[track]) in text


def test_judge_help_names_every_judge():
    text = ok("judge", "--help")
    assert "builtin:step" in text and "stub" in text and "orgbench list" in text


def _every_command(command, words=()):
    """``command`` and, under a group, every command below it, each with the words that name it."""
    import click

    yield words, command
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from _every_command(sub, (*words, name))


def test_every_command_option_and_argument_is_explained_by_help():
    """Walks the whole tree: each command has help, each option its own help text, and each argument (click's take
    no help) is named in its command's help; every --help renders."""
    import click

    from orgbench.cli import cli

    unexplained = []
    for words, command in _every_command(cli):
        text = command.help or ""
        if not text.strip():
            unexplained.append(f"orgbench {' '.join(words)}: no help")
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden and not (param.help or "").strip():
                unexplained.append(f"orgbench {' '.join(words)} {param.opts[0]}: no help")
            elif isinstance(param, click.Argument):
                name = param.human_readable_name        # RUNS is named by RUN
                if name not in text and name.removesuffix("S") not in text:
                    unexplained.append(f"orgbench {' '.join(words)}: help does not name {name}")
        assert ok(*words, "--help").startswith("Usage: ")
    assert unexplained == []


@pytest.mark.parametrize("words", [(), ("score",), ("assure",)])
def test_orgbench_or_a_group_alone_shows_its_help_not_an_error(words):
    result = run(*words)
    text = result.stdout + result.stderr
    assert text.startswith(f"Usage: {' '.join(('cli',) + words)} [OPTIONS] COMMAND") and "error:" not in text
    assert result.exit_code in (0, 2)           # click 8.1 exits 0, 8.2 on 2 (no command given)


def test_simulate_help_names_every_builtin_pack():
    from simulator.packs import BUILTIN_PACKS

    text = " ".join(ok("simulate", "--help").split())
    assert f"a built-in name ({', '.join(sorted(BUILTIN_PACKS))})" in text


def test_assure_run_does_the_five_stages_in_order(fx, tmp_path):
    work = tmp_path / "work"
    text = ok("assure", "run", "--source", fx["tr"], "--work", work, "--draws", 1)
    assert [line.split(":")[0] for line in text.splitlines()] == ["build", "check", "stage", "emit", "dispatch"]
    assert sorted(p.name for p in (work / "records").glob("*.record.json")) == sorted(
        f"{s}.record.json" for s in ("build", "check", "stage", "emit", "dispatch"))


def test_readme_and_docs_link_only_inside_the_repository():
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "shared/design" not in text and "../papers" not in text, page
        for target in re.findall(r"\]\(([^)#\s]+)", text):
            if not re.match(r"https?://", target):
                assert (page.parent / target).resolve().exists(), f"{page}: link to {target}"
                assert REPO in (page.parent / target).resolve().parents, f"{page}: {target} leaves the repository"


def test_readme_cites_the_three_papers():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    for needle in ("CARGO: Context-Aware Retrieval-Gated Evaluation of Agentic AI in Production",
                   "Chhabra", "GroundEval: A Deterministic Replacement for LLM-as-Judge", "Flynt", "2606.22737",
                   "Does the Judge See What the Evaluation Requires?", "Xia", "2611.02676"):
        assert needle in text, needle


def test_a_hand_scored_groundeval_run_gets_tables_and_a_page(fx, tmp_path):
    scores = tmp_path / "scores"
    ok("score", "groundeval", "--suite", fx["ge"], "--answers", fx["answered"], "--out", scores)
    ok("tables", "groundeval", scores, "--out", tmp_path / "ge-tables")
    header = (tmp_path / "ge-tables" / "table_agents.csv").read_text().splitlines()
    assert header[0].startswith("agent,mode,track") and any(r.startswith("oracle,tool,all,") for r in header)
    for folder in (scores, tmp_path / "ge-tables", fx["answered"], fx["judged"]):
        text = ok("view", folder, "--out", tmp_path / f"{folder.name}.html")
        html = (tmp_path / f"{folder.name}.html").read_text()
        assert text.strip().endswith(("GroundEval scores", "GroundEval tables", "a GroundEval agent run",
                                      "a CARGO judge run")), text
        assert '"records":[{' in html, folder
    assert "oracle" in (tmp_path / "ge-tables.html").read_text()
    fails("view", fx["world"], says=(f"{fx['world']}: holds a world; view renders",))


def test_builds_over_another_suite_are_refused_the_same_one_rebuilt(fx, tmp_path):
    suite = tmp_path / "traj"
    ok("build", "trajectories", "--world", fx["world"], "--out", suite, "--n", 3)
    ok("build", "trajectories", "--world", fx["world"], "--out", suite, "--n", 3)      # the same suite again
    before = tree(suite)
    fails("build", "trajectories", "--world", fx["world"], "--out", suite, "--n", 4,
          says=(f"--out {suite}: holds a trajectory suite made from other inputs (n is 3 there, 4 now)",))
    assert tree(suite) == before
    cargo = copy(fx["cargo"], tmp_path)
    fails("build", "cargo", "--world", fx["world"], "--out", cargo, "--sizes", "P1=2,P3=3,P2=3,P4=3",
          says=(f"--out {cargo}: holds a CARGO suite made from other inputs (P1 is 3 there, 2 now)",))
    assert tree(cargo) == tree(fx["cargo"])


def test_build_groundeval_over_another_suite_is_refused_the_same_one_rebuilt(fx, tmp_path):
    suite = tmp_path / "ge"
    ok("build", "groundeval", "--world", fx["world"], "--out", suite, "--seed", 1)
    ok("build", "groundeval", "--world", fx["world"], "--out", suite, "--seed", 1)       # the same suite again
    before = tree(suite)
    fails("build", "groundeval", "--world", fx["world"], "--out", suite, "--seed", 2,
          says=(f"--out {suite}: holds a GroundEval suite made from other inputs (seed is 1 there, 2 now)",))
    assert tree(suite) == before
    ok("build", "groundeval", "--world", fx["world"], "--out", suite, "--seed", 2, "--overwrite")
    assert tree(suite) != before
