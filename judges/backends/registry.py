"""One registry of judge and agent backends: a spec ``KIND:ARG`` resolved lazily to a factory.

A backend orgbench ships is one module in ``judges/backends/`` that says
which specs it makes and has a ``make`` factory::

    BACKEND_KINDS = ("openai",)        # spec kinds, exact specs such as "builtin:step",
                                       # or KIND@ROLE such as "replay@agent" (a kind whose agent is another class)

    def make(wanted: BackendSpec) -> JudgeBackend: ...

The registry reads those declarations from the modules' source (nothing is
imported to find them), so adding a backend is adding its module. A separate
package adds its own under the entry-point group ``orgbench.backends`` (name =
the spec's kind, value = ``module:attr`` of a factory), e.g. in its pyproject.toml::

    [project.entry-points."orgbench.backends"]
    mycorp = "mycorp_backend:make"

A factory takes one ``BackendSpec`` (the spec, its kind and argument, the
``EndpointConfig`` and the user's generation options) and returns a
``JudgeBackend`` (for ``role == "judge"``) or an ``AgentBackend`` (for
``role == "agent"``). Nothing is imported until a spec of that kind is made.
"""

from __future__ import annotations

import ast
import functools
import importlib
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable, Mapping

from judges.backends.base import AgentBackend, GenerationParams, JudgeBackend
from orgbench.core.errors import InputError

ENTRY_POINT_GROUP = "orgbench.backends"

#: The name a backend module declares its spec kinds (or exact specs) under, at its top level.
DECLARATION = "BACKEND_KINDS"
#: Where orgbench's own backends are: every module of this package may declare some ("pkg.*": all its modules).
BACKEND_MODULES = "judges.backends.*"

#: What each role's backend must be.
ROLES: dict[str, type] = {"judge": JudgeBackend, "agent": AgentBackend}


@dataclass(frozen=True)
class EndpointConfig:
    """How to reach a model: base URL, the variable holding the key, timeout, retries, concurrency, extra parameters."""

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    max_retries: int = 5
    concurrency: int = 64
    backoff_base: float = 0.5
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class BackendSpec:
    """Everything a factory needs: the spec and its parts, the endpoint, the user's options and the role."""

    spec: str
    kind: str
    arg: str
    endpoint: EndpointConfig = field(default_factory=EndpointConfig)
    options: GenerationParams = field(default_factory=GenerationParams)
    role: str = "judge"
    structured: str | None = None
    slots: int = 1
    replay_path: Path | None = None

    @property
    def where(self) -> str:
        """How an error names this spec: ``judge spec 'X'`` or ``--agent 'X'``."""
        return f"--agent {self.spec!r}" if self.role == "agent" else f"judge spec {self.spec!r}"

    def model(self, example: str) -> str:
        """The spec's argument; InputError naming the spec when it names no model."""
        if not self.arg:
            raise InputError(f"{self.where}: name the model, e.g. {example}")
        return self.arg


def _declared_kinds(path: Path) -> tuple[str, ...]:
    """The specs a module's source declares under DECLARATION (a tuple of strings), without importing it."""
    source = path.read_text(encoding="utf-8")
    if DECLARATION not in source:
        return ()
    for node in ast.parse(source, filename=str(path)).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == DECLARATION for t in targets) and node.value is not None:
            kinds = ast.literal_eval(node.value)
            if not isinstance(kinds, tuple) or not all(isinstance(k, str) and k for k in kinds):
                raise TypeError(f"{path}: {DECLARATION} must be a tuple of spec kinds, e.g. (\"openai\",)")
            return kinds
    return ()


@functools.cache
def declared() -> dict[str, str]:
    """orgbench's own backends: each declared kind or exact spec -> ``module:make`` (read once, imported never)."""
    package = BACKEND_MODULES.removesuffix(".*")
    found: dict[str, str] = {}
    for path in sorted(Path(__file__).parent.glob("*.py")):
        for kind in _declared_kinds(path):
            if kind in found:
                raise TypeError(f"{path}: backend {kind!r} is declared by {found[kind]} already")
            found[kind] = f"{package}.{path.stem}:make"
    return found


def _entry_point(kind: str) -> str | None:
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == kind]
    return found[0].value if found else None


def factory_path(spec: str, role: str = "judge") -> str | None:
    """The ``module:attr`` that makes ``spec`` for ``role``: exact spec, ``KIND@ROLE``, kind; orgbench's own, then entry points."""
    kind = spec.partition(":")[0]
    ours = declared()
    return ours.get(spec) or ours.get(f"{kind}@{role}") or ours.get(kind) or _entry_point(kind)


def known_kinds() -> list[str]:
    """Every spec kind the registry can make, orgbench's and the installed plugins'."""
    kinds = {name.partition(":")[0].partition("@")[0] for name in declared()}
    kinds.update(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))
    return sorted(kinds)


def _load(path: str, spec: str) -> Callable[[BackendSpec], Any]:
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise InputError(f"spec {spec!r}: {module_name} is not available ({exc})") from None
        raise
    try:
        return getattr(module, attr)
    except AttributeError:
        raise InputError(f"spec {spec!r}: {module_name} has no {attr}") from None


def resolve(wanted: BackendSpec) -> Any:
    """The backend ``wanted`` names, checked to be a backend of its role."""
    path = factory_path(wanted.spec, wanted.role)
    if path is None:
        raise InputError(f"{wanted.where}: unknown kind {wanted.kind!r}; use one of "
                         f"{', '.join(k + ':…' for k in known_kinds())}")
    backend = _load(path, wanted.spec)(wanted)
    expected = ROLES[wanted.role]
    if not isinstance(backend, expected):
        raise InputError(f"{wanted.where}: {path} made a {type(backend).__name__}, "
                         f"not a {expected.__name__}")
    return backend
