"""Off a terminal, a long command prints a progress line per tenth of its items (never silent until the end)."""

from judges.run_log import Progress


def test_off_a_terminal_progress_prints_a_line_per_tenth(capsys):
    bar = Progress(True, 200, 0, "builtin:grounded")
    for done in range(1, 201):
        bar.update(done)
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "builtin:grounded: 0/200 done, starting"
    assert [line.split(" (")[0] for line in lines[1:]] == [f"builtin:grounded: {n}/200" for n in range(20, 201, 20)]


def test_a_disabled_progress_prints_nothing(capsys):
    bar = Progress(False, 200, 0, "x")
    bar.update(100)
    bar.close()
    assert capsys.readouterr().err == ""


def test_a_run_of_few_items_prints_no_progress_line(capsys):
    bar = Progress(True, Progress.LINES_FROM - 1, 0, "x")
    for done in range(1, Progress.LINES_FROM):
        bar.update(done)
    assert capsys.readouterr().err == ""


def test_the_error_helper_knows_a_progress_line():
    from tests.orgbench.clitools import PROGRESS

    assert PROGRESS.match("openai:m: 0/200 done, starting") and PROGRESS.match("openai:m: 20/200 (10%, 140.9/s)")
    assert not PROGRESS.match("error: x: 2/3 (bad)")
