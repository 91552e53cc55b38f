"""``make_backend(spec)`` turns a judge or agent spec into a backend, through ``judges.backends.registry``.

Specs (a plugin package adds its own kinds, see ``judges.backends.registry``):

- ``openai:MODEL`` — any OpenAI-compatible chat-completions endpoint
  (vLLM, Ollama, llama.cpp server, OpenAI, …) at ``base_url``;
- ``local:MODEL`` — a llama.cpp server orgbench starts and stops itself
  (``smollm2``, ``gemma3-270m`` or ``PATH.gguf``; ``judges.backends.local``),
  with ``slots`` requests answered at once;
- ``replay`` / ``replay:PATH`` — recorded responses (a ``judgments.jsonl`` or a
  responses file), looked up by request hash;
- ``stub`` / ``stub:LOG.jsonl`` — the recording stub (``judges.backends.stub.from_spec``);
- ``builtin:NAME`` — a procedural judge (``judges.backends.builtin.make_builtin``).

Generation options given here (temperature, max_tokens, extra) are the
user's and override what a request carries; the request's seed is always
kept. Backends apply them in ``prepare(request)``, and the runner hashes and
caches the prepared request, i.e. exactly what is sent.

The names here are imported from their modules on first use, so reading the
registry's records (``orgbench list``) imports no backend and not even the seams in
``judges.backends.base``; heavy modules (aiohttp) are imported only when a backend that needs them is made.
"""

from typing import TYPE_CHECKING

from orgbench.core.exports import lazy_exports

if TYPE_CHECKING:
    from judges.backends.base import (
        AgentBackend as AgentBackend, AgentTurn as AgentTurn, BackendError as BackendError,
        BackendSpec as BackendSpec, EndpointConfig as EndpointConfig, FatalBackendError as FatalBackendError,
        GenerationParams as GenerationParams, JudgeBackend as JudgeBackend, JudgeRequest as JudgeRequest,
        JudgeResponse as JudgeResponse, Message as Message, Usage as Usage,
        apply_generation_options as apply_generation_options,
    )
    from judges.backends.registry import make_backend as make_backend, parse_extra as parse_extra
else:                   # type checkers read the imports above; at run time each is made on first use
    __all__, __getattr__ = lazy_exports(__name__)
