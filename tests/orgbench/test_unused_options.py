"""An option typed where it would have no effect is refused (one line naming it, exit 2, nothing written), never
silently ignored: request options with a spec that sends no such request, --world with the simulation options of
build cargo, run-agent's model options with a named agent and --budget in tool mode, simulate's prose options.

Every refusal comes before anything is read, so the inputs are empty folders."""

from __future__ import annotations

import pytest

from tests.orgbench.clitools import fails, run, tree

URL = "http://127.0.0.1:9/v1"


def _refused(tmp_path, args, says):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "kept").write_text("mine\n")
    fails(*[str(a).replace("IN", str(tmp_path / "in")).replace("OUT", str(tmp_path / "out")) for a in args],
          says=says)
    assert [p.name for p in tmp_path.iterdir()] == ["in"] and tree(tmp_path / "in") == {"kept": b"mine\n"}


@pytest.mark.parametrize("args, says", [
    (("run-agent", "--suite", "IN", "--agent", "oracle", "--base-url", URL, "--out", "OUT"),
     ("--base-url: oracle is a built-in agent", "drop --base-url, or use it with openai:MODEL")),
    (("run-agent", "--suite", "IN", "--agent", "local:smollm2", "--base-url", URL, "--out", "OUT"),
     ("--base-url: local:smollm2 is not reached at --base-url",)),
    (("judge", "--suite", "IN", "--judge", "local:smollm2", "--api-key-env", "K", "--out", "OUT"),
     ("--api-key-env: local:smollm2 is not reached at --base-url",)),
    (("judge", "--suite", "IN", "--judge", "openai:m", "--slots", "2", "--out", "OUT"),
     ("--slots: openai:m starts no local server", "use it with local:MODEL")),
    (("judge", "--suite", "IN", "--judge", "builtin:literal", "--structured", "on", "--out", "OUT"),
     ("--structured: builtin:literal is a built-in judge",)),
    (("assure", "run", "--source", "IN", "--work", "OUT", "--base-url", URL), ("--base-url: stub is a built-in judge",)),
    (("assure", "dispatch", "--source", "IN", "--work", "OUT", "--judge", "builtin:step", "--base-url", URL),
     ("--base-url: builtin:step is a built-in judge",)),
    (("assure", "contrast", "--source", "IN", "--out", "OUT", "--base-url", URL),
     ("--base-url: builtin:step is a built-in judge",)),
    (("tables", "assurance", "--source", "IN", "--out", "OUT", "--judge", "stub", "--base-url", URL),
     ("--base-url: stub is a built-in judge",)),
    (("reproduce", "--out", "OUT", "--work-dir", "OUT2", "--base-url", URL),
     ("--base-url: with no --judge given, the built-in judges send no request",)),
    (("reproduce", "--out", "OUT", "--work-dir", "OUT2", "--judge", "local:smollm2", "--judge", "builtin:grounded",
      "--base-url", URL), ("--base-url: none of local:smollm2, builtin:grounded is reached at --base-url",)),
    (("simulate", "--out", "OUT", "--prose", "llm:local:smollm2", "--base-url", URL),
     ("--base-url: local:smollm2 is not reached at --base-url",)),
    (("simulate", "--out", "OUT", "--prose-timeout", "5"), ("--prose-timeout: needs --prose llm:SPEC",)),
    (("build", "cargo", "--out", "OUT", "--world", "IN", "--seeds", "0-9"),      # typed, even at its default
     ("--seeds: shapes only the worlds build cargo simulates", "drop --seeds or --world")),
    (("build", "cargo", "--out", "OUT", "--world", "IN", "--days", "5"), ("--days:", "drop --days or --world")),
    (("run-agent", "--suite", "IN", "--agent", "oracle", "--budget", "100", "--out", "OUT"),
     ("--budget: sizes the context of --mode context", "tool mode")),
    (("run-agent", "--suite", "IN", "--agent", "bm25", "--max-turns", "3", "--out", "OUT"),
     ("--max-turns: bm25 is a named agent that calls no model",)),
])
def test_an_option_with_no_effect_is_refused(tmp_path, args, says):
    _refused(tmp_path, args, says)


def test_options_that_take_effect_are_not_refused(tmp_path):
    """The same options where they are used go on to the next check (here: the empty suite or world)."""
    (tmp_path / "w").mkdir()
    for args in (("judge", "--suite", tmp_path / "w", "--judge", "local:smollm2", "--temperature", "0.2", "--dry-run",
                  "--out", tmp_path / "o"),
                 ("run-agent", "--suite", tmp_path / "w", "--agent", "oracle", "--mode", "context", "--budget", "100",
                  "--out", tmp_path / "o"),
                 ("build", "cargo", "--out", tmp_path / "o", "--world", tmp_path / "w")):
        result = run(*args)
        assert result.exit_code == 2 and result.stderr.startswith("error: "), result.stderr
        assert not any(option in result.stderr for option in ("--temperature", "--budget", "--seeds")), result.stderr


@pytest.mark.parametrize("args, says", [
    (("--executor", "serial", "--workers", "4"), ("--workers: --executor serial runs the stages in this process",)),
    (("--executor", "serial", "--address", "ray://head:10001"), ("--address: --executor serial",)),
    (("--workers", "4", "--address", "ray://head:10001"),
     ("--workers: sizes the local Ray", "ray://head:10001", "drop --workers or the address")),
])
def test_sweep_ray_options_without_a_local_ray_are_refused(tmp_path, monkeypatch, args, says):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    _refused(tmp_path, ("sweep", "IN/kept", "--out", "OUT", "--work-dir", "OUT2", *args), says)
