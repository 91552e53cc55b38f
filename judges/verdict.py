"""A judge's structured verdict, and parsing it out of whatever text the judge returned.

The schema every judge prompt asks for (one JSON object, last in the answer)::

    {
      "dimensions": {"<dimension name>": <number>, ...},
      "claims": [{"text": "<claim>", "status": "supported" | "contradicted" | "unverifiable"}, ...],
      "verdict": "pass" | "fail" | "cannot_decide"
    }

Parsing is forgiving in the ways real models are sloppy: code fences, reasoning
text before the answer (the *last* valid JSON object carrying a ``verdict`` is
taken), trailing commas, spaces or hyphens in ``cannot decide``. Anything that
still yields no valid verdict is recorded as ``unparsed`` with the raw text
kept by the caller, and is never folded into pass or fail.

*Penalised* means ``fail``: True for fail, False for pass, None for
cannot_decide and unparsed (the runner also uses None for errors).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

VERDICTS = ("pass", "fail", "cannot_decide")
CLAIM_STATUSES = ("supported", "contradicted", "unverifiable")
UNPARSED = "unparsed"

_DECODER = json.JSONDecoder()
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_SMART_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"'})


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim the judge extracted from the answer, with its status against the evidence."""

    text: str
    status: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """A parsed judgment: overall verdict (or ``unparsed``), dimension scores and claims."""

    verdict: str
    dimensions: Mapping[str, float] = field(default_factory=dict)
    claims: tuple[Claim, ...] = ()

    @property
    def parsed(self) -> bool:
        """True when a valid verdict was found."""
        return self.verdict != UNPARSED

    @property
    def penalized(self) -> bool | None:
        """True for fail, False for pass, None for cannot_decide or unparsed."""
        if self.verdict == "fail":
            return True
        if self.verdict == "pass":
            return False
        return None

    def to_json(self) -> dict[str, Any]:
        """The verdict as a JSON object (dimension names sorted)."""
        return {
            "verdict": self.verdict,
            "dimensions": {name: self.dimensions[name] for name in sorted(self.dimensions)},
            "claims": [{"status": claim.status, "text": claim.text} for claim in self.claims],
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "Verdict":
        """A verdict as ``to_json`` wrote it (a missing label is ``unparsed``); ValueError when a part is malformed."""
        label = obj.get("verdict", UNPARSED)
        dimensions, claims = obj.get("dimensions") or {}, obj.get("claims") or []
        if not isinstance(label, str) or not isinstance(dimensions, Mapping) or not isinstance(claims, list):
            raise ValueError("verdict, dimensions or claims of the wrong type")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in dimensions.values()):
            raise ValueError("a dimension score is not a number")
        if not all(isinstance(c, Mapping) for c in claims):
            raise ValueError("a claim is not an object")
        return Verdict(label, {str(k): float(v) for k, v in dimensions.items()},
                       tuple(Claim(str(c.get("text", "")), str(c.get("status", ""))) for c in claims))


UNPARSED_VERDICT = Verdict(UNPARSED)


def _normalise_label(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return re.sub(r"[\s\-]+", "_", value.strip().lower()) or None


def _verdict_from_object(obj: Any) -> Verdict | None:
    """A Verdict if ``obj`` is a dict with a valid ``verdict``; None otherwise."""
    if not isinstance(obj, dict) or "verdict" not in obj:
        return None
    label = _normalise_label(obj["verdict"])
    if label not in VERDICTS:
        return None
    dimensions: dict[str, float] = {}
    raw_dims = obj.get("dimensions")
    if isinstance(raw_dims, dict):
        for name, score in raw_dims.items():
            if isinstance(score, bool):
                continue
            if isinstance(score, (int, float)):
                dimensions[str(name)] = float(score)
            elif isinstance(score, str):
                try:
                    dimensions[str(name)] = float(score.strip())
                except ValueError:
                    continue
    claims: list[Claim] = []
    raw_claims = obj.get("claims")
    if isinstance(raw_claims, list):
        for claim in raw_claims:
            if isinstance(claim, dict) and isinstance(claim.get("text"), str):
                status = _normalise_label(claim.get("status")) or ""
                claims.append(Claim(claim["text"], status))
    return Verdict(label, dimensions, tuple(claims))


def _last_verdict(text: str) -> Verdict | None:
    """Scan JSON objects from the end of ``text``; the first with a valid verdict wins."""
    pos = text.rfind("{")
    while pos >= 0:
        try:
            obj, _ = _DECODER.raw_decode(text, pos)
        except ValueError:
            obj = None
        if obj is not None:
            verdict = _verdict_from_object(obj)
            if verdict is not None:
                return verdict
        pos = text.rfind("{", 0, pos)
    return None


def parse_verdict(text: str | None) -> Verdict:
    """Parse a judge's raw answer into a Verdict (``unparsed`` when no valid verdict is found)."""
    if not text:
        return UNPARSED_VERDICT
    verdict = _last_verdict(text)
    if verdict is not None:
        return verdict
    repaired = _TRAILING_COMMA.sub(r"\1", text.translate(_SMART_QUOTES))
    if repaired != text:
        verdict = _last_verdict(repaired)
        if verdict is not None:
            return verdict
    return UNPARSED_VERDICT


#: Every dimension the rubrics name; the schema allows these keys only (any subset), because free keys let a
#: small model under a grammar add keys until its tokens run out (Gemma 3 270M did).
RUBRIC_DIMENSIONS = ("factual_grounding", "correctness", "procedure", "completeness", "coherence", "plausibility")
