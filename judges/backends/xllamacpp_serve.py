"""``python -m judges.backends.xllamacpp_serve``: llama.cpp's C++ server from the ``xllamacpp`` wheel, run like llama-server.

It takes the llama-server flags orgbench sends (see
``judges.backends.server_programs.server_command``), serves HTTP on the
given host and port from the library's own server threads, and exits on
SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading


def parse(argv: list[str]) -> argparse.Namespace:
    """The llama-server flags this wrapper understands."""
    parser = argparse.ArgumentParser(prog="xllamacpp_serve", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ctx-size", type=int, default=0)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--cont-batching", action="store_true")
    parser.add_argument("--threads", type=int, default=-1)
    parser.add_argument("--threads-batch", type=int, default=-1)
    parser.add_argument("--poll", type=int, default=None, help="busy-wait level 0-100 (0: threads sleep)")
    parser.add_argument("--alias", default=None)
    parser.add_argument("--no-webui", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Serve until SIGTERM or SIGINT."""
    args = parse(sys.argv[1:] if argv is None else argv)
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.ctx_size
    params.n_parallel = args.parallel
    params.cont_batching = args.cont_batching
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads_batch
    if args.poll is not None:
        params.cpuparams.poll = params.cpuparams_batch.poll = args.poll
    params.ui = not args.no_webui
    if args.alias:
        params.model_alias = {args.alias}
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    server = xllamacpp.Server(params)      # listens from its own threads once the model is loaded
    print(f"xllamacpp_serve: listening on {server.listening_address}", flush=True)
    while not stop.wait(0.5):
        pass
    del server


if __name__ == "__main__":
    main()
