"""Front doors for other harnesses: orgbench's suites as inspect_ai tasks (``inspect_tasks``, inspect's entry point)
and inspect logs read back as runs (``inspect_log``). Nothing is imported here: inspect_ai is an optional extra."""

__all__: list[str] = []
