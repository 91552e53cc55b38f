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
