"""orgbench: simulated organisations and benchmarks for evaluating LLM judges and agents.

This package imports nothing, so a layer that imports ``orgbench.core`` pulls in no CLI.
The front door is ``orgbench.cli``; the ground floor every layer shares is ``orgbench.core``.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
