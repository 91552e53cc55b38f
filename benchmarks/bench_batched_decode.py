"""Does decoding several sequences in one batch cost less CPU per token than one at a time? (SmolLM2-135M, llama.cpp)

llama-cpp-python's server answers one request at a time per process (a lock
around one model and one sequence), so orgbench's ``local:`` slots are
processes and four slots cost four times the CPU of one per token. This
script asks the question below that: with llama.cpp's own batched decoding
(several sequences in one ``llama_decode``, as llama.cpp's C++ server does
with ``--parallel``), what does a token cost? It loads the model through
llama-cpp-python's low-level bindings, prefills the same prompt into S
sequences, then decodes G tokens for each (greedy), and prints JSON per S:
wall seconds and process CPU seconds of the decode steps, tokens per second
and CPU milliseconds per token, with the load average beside them.

    python benchmarks/bench_batched_decode.py [--threads 2] [--tokens 32] [--seqs 1,2,4,8]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from bench_record import add_record_option, print_result


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _add(batch, index: int, token: int, pos: int, seq: int, logits: bool) -> None:
    batch.token[index] = token
    batch.pos[index] = pos
    batch.n_seq_id[index] = 1
    batch.seq_id[index][0] = seq
    batch.logits[index] = logits


def decode_case(llama, model, vocab, prompt: list[int], seqs: int, tokens: int, threads: int) -> dict:
    """Prefill ``prompt`` into ``seqs`` sequences, decode ``tokens`` each; the decode steps' figures."""
    params = llama.llama_context_default_params()
    params.n_ctx, params.n_batch, params.n_seq_max = 2048, 512, seqs
    params.n_threads = params.n_threads_batch = threads
    ctx = llama.llama_init_from_model(model, params)
    n_vocab = llama.llama_vocab_n_tokens(vocab)
    batch = llama.llama_batch_init(max(512, seqs), 0, seqs)
    try:
        batch.n_tokens = 0
        for seq in range(seqs):                      # prefill: one batch of seqs × prompt tokens
            for pos, token in enumerate(prompt):
                _add(batch, batch.n_tokens, token, pos, seq, pos == len(prompt) - 1)
                batch.n_tokens += 1
        if llama.llama_decode(ctx, batch) != 0:
            raise SystemExit("llama_decode failed on the prompt")
        last = [(seq + 1) * len(prompt) - 1 for seq in range(seqs)]
        wall = cpu = 0.0
        for step in range(tokens):
            picks = [int(np.ctypeslib.as_array(llama.llama_get_logits_ith(ctx, i), shape=(n_vocab,)).argmax())
                     for i in last]
            batch.n_tokens = seqs
            for seq, token in enumerate(picks):
                _add(batch, seq, token, len(prompt) + step, seq, True)
            started, cpu_started = time.perf_counter(), time.process_time()
            if llama.llama_decode(ctx, batch) != 0:
                raise SystemExit("llama_decode failed while decoding")
            wall += time.perf_counter() - started
            cpu += time.process_time() - cpu_started
            last = list(range(seqs))
    finally:
        llama.llama_batch_free(batch)
        llama.llama_free(ctx)
    made = seqs * tokens
    return {"sequences": seqs, "tokens": made, "decode_wall_s": round(wall, 3), "decode_cpu_s": round(cpu, 3),
            "tokens_per_s": round(made / wall, 2), "cpu_ms_per_token": round(1000 * cpu / made, 3)}


def main() -> None:
    """Run the cases and print their JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tokens", type=int, default=32, help="tokens decoded per sequence")
    parser.add_argument("--seqs", default="1,2,4,8", help="sequence counts to try")
    add_record_option(parser)
    args = parser.parse_args()
    import llama_cpp as llama
    from judges.backends.local_server import resolve_model

    path = str(resolve_model("smollm2", "local:smollm2").path)
    llama.llama_backend_init()
    model = llama.llama_model_load_from_file(path.encode(), llama.llama_model_default_params())
    vocab = llama.llama_model_get_vocab(model)
    text = b"<|im_start|>user\nRewrite this note: the case CASE-10001 is open, priority P4.<|im_end|>\n" \
           b"<|im_start|>assistant\n"
    buffer = (llama.llama_token * 256)()
    count = llama.llama_tokenize(vocab, text, len(text), buffer, 256, True, True)
    prompt = list(buffer[:count])
    cases = []
    for seqs in (int(s) for s in args.seqs.split(",")):
        load = loadavg()
        cases.append({**decode_case(llama, model, vocab, prompt, seqs, args.tokens, args.threads),
                      "loadavg_before": load, "loadavg_after": loadavg()})
    llama.llama_model_free(model)
    one = cases[0]["tokens_per_s"]
    print_result({"model": Path(path).name, "threads": args.threads, "cpus": os.cpu_count(),
                      "prompt_tokens": len(prompt), "cases": cases,
                      "tokens_per_s_over_one_sequence": {c["sequences"]: round(c["tokens_per_s"] / one, 2)
                                                         for c in cases}}, args.record, indent=2)


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
