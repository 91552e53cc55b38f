"""Model prose for worlds (``simulate --prose llm:SPEC``): the rewrite hook, the rules a rewrite must pass, its cache.

``rewrite`` asks a model for each artifact body, ``rules`` decides whether a
rewrite may replace the grammar text, ``store`` keeps the answers in the
judges' response cache beside the world. The simulator sees only the hook.
"""

from __future__ import annotations

from orgbench.prose.rewrite import DEFAULT_KINDS, ModelRewrite, open_rewrite

__all__ = ["DEFAULT_KINDS", "ModelRewrite", "open_rewrite"]
