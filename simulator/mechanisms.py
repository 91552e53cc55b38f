"""Failure mechanisms a faulty change can cause: how people name each one, and the symptom it shows.

Kept apart from ``simulator.processes.engineering`` so a domain pack's change kinds can be checked
against them without importing the processes.
"""

from __future__ import annotations

#: Failure mechanisms: label → (aliases, symptom).
MECHANISMS: dict[str, tuple[tuple[str, ...], str]] = {
    "config_regression": (("configuration regression", "bad config push", "config change"), "elevated 5xx error rate"),
    "memory_leak": (("memory leak", "heap exhaustion", "out of memory"), "pods restarting with OOM kills"),
    "schema_migration": (("database migration", "schema change", "migration lock"), "write latency above 5 s"),
    "dependency_upgrade": (("library upgrade", "dependency bump", "incompatible dependency"), "TLS handshake failures"),
    "feature_flag": (("feature flag rollout", "flag misconfiguration", "toggle"),
                     "requests routed to the wrong region"),
    "connection_pool_exhaustion": (("connection pool exhaustion", "pool saturation", "too many connections"),
                                   "database connection timeouts"),
}
#: How people name each mechanism in passing (its first alias).
MECHANISM_PHRASES: dict[str, str] = {label: aliases[0] for label, (aliases, _) in MECHANISMS.items()}
