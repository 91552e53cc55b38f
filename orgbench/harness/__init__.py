"""Front doors for other harnesses: orgbench's suites as inspect_ai tasks, and inspect logs read back as runs."""
