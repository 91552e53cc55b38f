"""orgbench: simulated organisations and benchmarks for evaluating LLM judges and agents."""

__version__ = "0.1.0"
