"""One registry of judge and agent backends: a spec ``KIND:ARG`` resolved lazily to a factory.

A backend orgbench ships is one module in ``judges/backends/`` that
registers itself in one ``Backend`` record and has a ``make`` factory::

    BACKEND = Backend(kind="openai", roles=("judge", "agent"), base_url=True, usage="openai:MODEL",
                      summary="any OpenAI-compatible chat-completions endpoint")

    def make(wanted: BackendSpec) -> JudgeBackend: ...

``kind`` is a spec kind (``openai`` for ``openai:MODEL``) or an exact spec
(``builtin:step``); ``roles`` say what its specs can be (a judge, an agent),
``builtin`` that its rows are procedural baselines rather than a model's,
``studies`` which studies it serves (default: every study that takes one of
its roles). The registry reads those records from the modules' source
(nothing is imported to find them), so adding a backend is adding its module.
A separate package adds its own under the entry-point group
``orgbench.backends`` (name = the spec's kind, value = ``module:attr`` of its
``Backend``, whose ``make`` is the factory itself; a bare factory is taken as
a judge and agent), e.g. in its pyproject.toml::

    [project.entry-points."orgbench.backends"]
    mycorp = "orgbench_mycorp:BACKEND"

A factory takes one ``BackendSpec`` (the spec, its kind and argument, the
``EndpointConfig`` and the user's generation options) and returns a
``JudgeBackend`` (for ``role == "judge"``) or an ``AgentBackend`` (for
``role == "agent"``). Nothing is imported until a spec of that kind is made
(or, for a plugin, until the registry is first asked about plugins).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from orgbench.core.errors import InputError
from orgbench.core.registry import Registry, declared, declared_keys, load_attr

if TYPE_CHECKING:       # the seams are imported where a backend is made: ``orgbench list`` reads records only
    from judges.backends.base import BackendSpec, EndpointConfig

ENTRY_POINT_GROUP = "orgbench.backends"

#: The name a backend module registers its ``Backend`` under, at its top level.
DECLARATION = "BACKEND"
#: Where orgbench's own backends are: every module of this package may declare one ("pkg.*": all its modules).
BACKEND_MODULES = "judges.backends.*"

#: The roles a backend's specs can take; a judge is a ``JudgeBackend``, an agent an ``AgentBackend``.
ROLES = ("judge", "agent")


@dataclass(frozen=True)
class Backend:
    """One kind of spec and what it can do: the roles it serves, the studies it serves, how it is written."""

    kind: str                                   # spec kind ("openai" for openai:MODEL) or exact spec ("builtin:step")
    roles: tuple[str, ...] = ("judge",)         # "judge", "agent"
    make: Any = ""                              # the factory, or its "module:attr" (orgbench's: filled in)
    builtin: bool = False                       # procedural and offline: its rows are baselines, not a model's
    studies: tuple[str, ...] | None = None      # studies it serves; None: every study that takes one of its roles
    base_url: bool = False                      # reached at --base-url (an OpenAI-compatible endpoint)
    usage: str = ""                             # how a spec is written, e.g. "openai:MODEL"
    names: str = ""                             # "module:attr" of the exact names it answers (builtin:NAME)
    summary: str = ""

    def __post_init__(self) -> None:
        if not self.kind or not self.roles or any(role not in ROLES for role in self.roles):
            raise TypeError(f"backend {self.kind!r}: roles must be some of {', '.join(ROLES)}, got {self.roles!r}")

    @property
    def key(self) -> str:
        """The registry's name for it: kind and roles (``replay`` answers as a judge and, elsewhere, an agent)."""
        return f"{self.kind}@{'+'.join(self.roles)}"

    def specs(self) -> list[str]:
        """How its specs are written: its exact names (builtin:literal, …), else its usage, else its kind."""
        if self.names:
            return [f"{self.kind}:{name}" for name in self._exact_names()]
        return [self.usage or self.kind]

    def _exact_names(self) -> tuple[str, ...]:
        """The names ``names`` points at: read from the module's source when they are a dict literal's keys and the
        module is not loaded yet (``orgbench list`` imports no backend), else from the loaded object."""
        module, _, attr = self.names.partition(":")
        if module not in sys.modules and "." not in attr:
            spec = importlib.util.find_spec(module)
            if spec is not None and spec.origin and spec.origin.endswith(".py"):
                keys = declared_keys(Path(spec.origin), attr)
                if keys is not None and all(isinstance(key, str) for key in keys):
                    return tuple(keys)
        return tuple(load_attr(self.names, f"backend {self.kind!r}"))

    def answers(self, spec: str) -> bool:
        """Whether ``spec`` is one of its specs (any argument, unless it lists its exact names)."""
        return not self.names or spec in self.specs()

    def serves(self, study: str, role: str) -> bool:
        """Whether its specs can be ``role`` in ``study``."""
        return role in self.roles and (self.studies is None or study in self.studies)


def _own() -> list[Backend]:
    """orgbench's own backends, one per module that registers one (read once, imported never)."""
    package = BACKEND_MODULES.removesuffix(".*")
    return [backend for path in sorted(Path(__file__).parent.glob("*.py"))
            for backend in declared(path, DECLARATION, Backend, make=f"{package}.{path.stem}:make")]


def _accept(name: str, value: Any) -> Backend:
    if isinstance(value, Backend):
        if value.kind != name:
            raise InputError(f"{ENTRY_POINT_GROUP} entry point {name!r}: its Backend's kind is {value.kind!r}")
        return value
    if callable(value):             # a bare factory: a judge and an agent, its class checked when one is made
        return Backend(kind=name, roles=("judge", "agent"), make=value, usage=f"{name}:MODEL")
    raise InputError(f"{ENTRY_POINT_GROUP} entry point {name!r}: expected a Backend or a factory, "
                     f"got {type(value).__name__}")


BACKENDS: Registry[Backend] = Registry("backend", ENTRY_POINT_GROUP, _own, lambda b: b.key, _accept)


def find(spec: str, role: str | None = None) -> list[Backend]:
    """The backends answering ``spec`` (for ``role``, or any): an exact spec first, then its kind."""
    kind = spec.partition(":")[0]
    every = [b for b in BACKENDS.all() if role is None or role in b.roles]
    return [b for b in every if b.kind == spec] + [b for b in every if b.kind == kind and b.kind != spec]


def backend_for(spec: str, role: str) -> Backend | None:
    """The backend that makes ``spec`` as ``role``, or None."""
    found = find(spec, role)
    return found[0] if found else None


def is_builtin(spec: str) -> bool:
    """Whether ``spec`` names a built-in, procedural judge or agent (its rows are baselines, not a model's).

    A bare name is a built-in GroundEval agent (``oracle``) when the agent registry has it.
    """
    if ":" not in spec:
        from judges.groundeval.agent_registry import AGENTS

        if AGENTS.get(spec) is not None:
            return True
    found = find(spec)
    return bool(found) and all(b.builtin for b in found)


def takes_base_url(spec: str) -> bool:
    """Whether ``spec`` is reached at ``--base-url`` (its backend says so)."""
    return any(b.base_url for b in find(spec))


def factory_path(spec: str, role: str = "judge") -> Any:
    """The ``module:attr`` (or the factory itself, for a plugin) that makes ``spec`` for ``role``."""
    found = backend_for(spec, role)
    return None if found is None else found.make


def known_kinds() -> list[str]:
    """Every spec kind the registry can make, orgbench's and the installed plugins'."""
    return sorted({b.kind.partition(":")[0] for b in BACKENDS.all()})


def _load(path: Any, spec: str) -> Callable[[BackendSpec], Any]:
    return path if callable(path) else load_attr(path, f"spec {spec!r}")


def resolve(wanted: BackendSpec) -> Any:
    """The backend ``wanted`` names, checked to be a backend of its role."""
    path = factory_path(wanted.spec, wanted.role)
    if path is None and find(wanted.spec):
        roles = sorted({role for b in find(wanted.spec) for role in b.roles})
        raise InputError(f"{wanted.where}: a {' or '.join(roles)} spec, not a {wanted.role}")
    if path is None:
        raise InputError(f"{wanted.where}: unknown kind {wanted.kind!r}; use one of "
                         f"{', '.join(k + ':…' for k in known_kinds())}")
    backend = _load(path, wanted.spec)(wanted)
    from judges.backends.base import AgentBackend, JudgeBackend

    expected = {"judge": JudgeBackend, "agent": AgentBackend}[wanted.role]
    if not isinstance(backend, expected):
        raise InputError(f"{wanted.where}: {path} made a {type(backend).__name__}, "
                         f"not a {expected.__name__}")
    return backend


def parse_extra(pairs: Iterable[str]) -> dict[str, Any]:
    """``key=value`` strings (e.g. from ``--extra``) as a dict; values are JSON when they parse, else text."""
    extra: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--extra {pair!r}: expected key=value, e.g. reasoning_effort=high")
        try:
            extra[key.strip()] = json.loads(raw)
        except ValueError:
            extra[key.strip()] = raw
    return extra


def make_backend(
    spec: str,
    *,
    endpoint: EndpointConfig | None = None,
    role: str = "judge",
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    timeout: float = 60.0,
    max_retries: int = 5,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    extra: Mapping[str, Any] | None = None,
    replay_path: str | Path | None = None,
    concurrency: int = 64,
    backoff_base: float = 0.5,
    structured: str | None = None,
    slots: int = 1,
) -> Any:
    """Make the backend named by ``spec`` through the registry (``resolve``).

    ``endpoint`` gives how to reach a model in one record; without it one is
    made from ``base_url`` … ``backoff_base`` and ``extra``. ``role`` is
    ``judge`` (a JudgeBackend) or ``agent`` (an AgentBackend).
    ``structured`` (auto | on | off; see ``judges.backends.structured``) defaults to auto for
    ``local:`` and off for ``openai:``, whose existing runs must keep resuming with what they sent.
    """
    from judges.backends.base import BackendSpec, EndpointConfig, GenerationParams

    if endpoint is None:
        endpoint = EndpointConfig(base_url=base_url, api_key_env=api_key_env, timeout=timeout,
                                  max_retries=max_retries, concurrency=concurrency, backoff_base=backoff_base,
                                  extra=dict(extra or {}))
    kind, _, arg = spec.partition(":")
    options = GenerationParams(temperature=temperature, max_tokens=max_tokens, extra=dict(endpoint.extra))
    return resolve(BackendSpec(spec, kind, arg, endpoint, options, role=role, structured=structured, slots=slots,
                               replay_path=Path(replay_path) if replay_path else None))
