"""Where the engine's tokenisation time goes, and the previous tokenise-ahead path against the current one, in one run.

    python benchmarks/bench_tokenise.py [--n 1500] [--repeats 3] [--max-length 256] [--cases F.parquet]

Workload: ``bench_scoring.mutants`` (IMDB reviews, ten names each; or ``--cases F``), MiniLM's tokenizer, scored by
the 1-layer, 64-wide BERT of ``bench_ceiling.py --tiny`` (a cheap forward pass: the host side is what is measured).

1. **Tokenisation alone**, per text, CPU time of the whole process (all threads: immune to the other jobs on a
   shared machine) and wall time, best of ``--repeats``: the plain Rust backend (``encode_batch`` with truncation,
   no Python around it), the transformers wrapper (``tokenizer(texts, truncation=True, max_length=L)``), the
   engine's two-pass path (``tokenise_ahead=False``), the previous tokenise-ahead path (one pass, 2 worker threads,
   no prefix) and the current one (one pass, a character prefix where it decides the ids, one worker thread per
   core), each with the tokenizer's own parallelism as the process found it and after
   ``TOKENIZERS_PARALLELISM=false`` (what ``transformers.pipeline`` sets for the process on its first call, as
   ``bench_ceiling.py`` does before any timed run; the previous path also with its agreement check reading each
   checked text whole). The ids and ``truncated`` flags of every path are compared with
   the two-pass path's.
2. **The engine**: ``score(...)`` with the previous settings (``TOKENISE_THREADS=2``, ``TOKENISE_PREFIX=False``,
   the whole-text agreement check)
   and the current ones, interleaved, cache off; the pure forward pass over the same batches (the ceiling); the
   ceiling share of each, the tokenise phase per text from the telemetry, and whether the answers are the same bit
   for bit.

The load average is printed first and last; on a shared machine read the ratios, not the absolute times.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from toolkit import scoring
from toolkit.models import hf, load
from toolkit.scoring import CPU_BATCH_TOKENS, score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ceiling import identical  # noqa: E402
from bench_scoring import DEFAULT_IMDB, build_model, ceiling_seconds, mutants, read_cases  # noqa: E402


def previous(fn, *args, **kwargs):
    """``fn`` with the previous agreement check (each checked text read whole)."""
    kept = hf.CHECK_CHARS_PER_TOKEN
    hf.CHECK_CHARS_PER_TOKEN = 10**9
    try:
        return fn(*args, **kwargs)
    finally:
        hf.CHECK_CHARS_PER_TOKEN = kept


def clocked(fn, repeats: int) -> tuple[float, float, object]:
    """Best CPU seconds (all threads) and best wall seconds over ``repeats`` calls, and the last output."""
    cpu, wall, out = [], [], None
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return min(cpu), min(wall), out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imdb", type=Path, default=DEFAULT_IMDB)
    parser.add_argument("--cases", type=Path)
    parser.add_argument("--n", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-length", type=int, default=256)
    args = parser.parse_args()
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    torch.set_num_threads(1)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
          f"TOKENIZERS_PARALLELISM={os.environ.get('TOKENIZERS_PARALLELISM')!r}; engine threads "
          f"{scoring.tokenise_threads()}", flush=True)
    folder = build_model(Path(tempfile.mkdtemp()) / "tiny", tiny=True)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    cases = read_cases(args.cases) if args.cases else mutants(args.imdb, n=args.n, seed=args.seed,
                                                              tokenizer=tokenizer)
    texts = list(dict.fromkeys(cases["text"].tolist()))
    model = load(f"hf:{folder}?max_length={args.max_length}&device=cpu")
    length = args.max_length
    chars = np.array([len(t) for t in texts])
    ref_ids, ref_lengths = model.encode(texts)
    ref = [x.tolist() for x in ref_ids]
    cut = ref_lengths > length
    print(f"workload: {len(texts)} distinct texts, {chars.mean():.0f} characters on average, "
          f"{np.median(ref_lengths):.0f} tokens median, {cut.mean():.1%} cut at {length}", flush=True)
    backend = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())
    backend.no_padding()
    backend.enable_truncation(length)
    tokenize = model._rust_tokenize()
    model._rust_agrees(texts)
    prefix_chars = tokenize.prefix_chars
    long_ = chars > (prefix_chars or 10**12)
    print(f"character prefix: {prefix_chars} characters; {long_.mean():.1%} of the texts are longer; used: "
          f"{bool(tokenize.prefix_agrees)}", flush=True)

    paths = {
        "rust encode_batch (truncating)": lambda: backend.encode_batch(texts),
        "transformers tokenizer(truncation=True)": lambda: tokenizer(texts, truncation=True, max_length=length),
        "engine two-pass (tokenise_ahead=False)": lambda: model.encode(texts),
        "previous ahead (one pass, 2 threads)": lambda: previous(model.encode, texts, threads=2, one_pass=True),
        "current ahead (one pass + prefix, cores)": lambda: model.encode(texts, threads=scoring.tokenise_threads(),
                                                                          one_pass=True, prefix=True),
    }
    per_text: dict[tuple[str, str], tuple[float, float]] = {}
    for parallelism in ("as found", "false"):
        if parallelism == "false":
            os.environ["TOKENIZERS_PARALLELISM"] = "false"
        print(f"\ntokenisation, TOKENIZERS_PARALLELISM {parallelism} (us per text: CPU of all threads / wall; "
              f"best of {args.repeats})", flush=True)
        for name, fn in paths.items():
            cpu, wall, out = clocked(fn, args.repeats)
            per_text[parallelism, name] = (cpu * 1e6 / len(texts), wall * 1e6 / len(texts))
            same = ""
            if name.startswith(("previous", "current")):
                ids, lengths = out
                same = (f"; ids {'=' if [x.tolist() for x in ids] == ref else '!='} two-pass, truncated flags "
                        f"{'=' if ((lengths > length) == cut).all() else '!='}")
            print(f"  {name:42s} {cpu * 1e6 / len(texts):8.0f} / {wall * 1e6 / len(texts):8.0f}{same}",
                  flush=True)
        prev = per_text[parallelism, "previous ahead (one pass, 2 threads)"]
        cur = per_text[parallelism, "current ahead (one pass + prefix, cores)"]
        print(f"  previous / current: CPU {prev[0] / cur[0]:.2f}x, wall {prev[1] / cur[1]:.2f}x", flush=True)

    print("\nengine: score(...) previous settings vs current, interleaved (cache off; tiny BERT, 1 torch thread)",
          flush=True)
    settings = {"previous": (2, False), "current": (None, True)}
    seconds: dict[str, list[float]] = {k: [] for k in (*settings, "ceiling")}
    tokenise: dict[str, list[float]] = {k: [] for k in settings}
    outputs = {}
    score(cases, models=model, cache=False, progress=False)  # warm-up
    for rep in range(args.repeats):
        names = list(seconds)
        for name in names[rep % len(names):] + names[:rep % len(names)]:
            if name == "ceiling":
                seconds[name].append(ceiling_seconds(model, texts, batch_tokens=CPU_BATCH_TOKENS))
                continue
            scoring.TOKENISE_THREADS, scoring.TOKENISE_PREFIX = settings[name]
            record = scoring.ScoreRecord()
            started = time.perf_counter()
            run = previous if name == "previous" else (lambda fn, *a, **k: fn(*a, **k))
            outputs[name] = run(score, cases, models=model, cache=False, progress=False, record=record)
            seconds[name].append(time.perf_counter() - started)
            tokenise[name].append(record.inputs[model.spec]["telemetry"]["seconds"]["tokenise"])
        scoring.TOKENISE_THREADS, scoring.TOKENISE_PREFIX = None, True
        print(f"  repetition {rep + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in seconds.items())
              + f"; load {os.getloadavg()[0]:.1f}", flush=True)
    median = {k: statistics.median(v) for k, v in seconds.items()}
    for name in settings:
        share = statistics.median(c / e for c, e in zip(seconds["ceiling"], seconds[name]))
        print(f"  {name:9s} engine {median[name]:.2f} s, tokenise {statistics.median(tokenise[name]):.2f} s "
              f"({statistics.median(tokenise[name]) * 1e6 / len(texts):.0f} us per text), ceiling share "
              f"{share:.3f} (pure forward {median['ceiling']:.2f} s)", flush=True)
    speed = statistics.median(p / c for p, c in zip(seconds["previous"], seconds["current"]))
    tok = statistics.median(p / c for p, c in zip(tokenise["previous"], tokenise["current"]))
    same = identical(outputs["previous"], outputs["current"])
    print(f"  current vs previous: engine {speed:.2f}x, tokenise phase {tok:.2f}x (medians of paired ratios); "
          f"answers identical bit for bit: {same}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
