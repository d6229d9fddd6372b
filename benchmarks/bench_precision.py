"""Reduced precision against fp32 on real BiasFinder mutants and the EEC: speed, scores, labels, BTC sets, verdicts.

    python benchmarks/bench_precision.py [--reviews 60 --max-templates 8 --repeats 3] [--paths fp32,bf16,int8]
    python benchmarks/bench_precision.py --device cuda --reviews 25000 --n-mutants 164000 --n-process 14

Mutants: the toolkit's BiasFinder generator (spaCy, curated lists, default coherence rules) on a seeded sample of
``--reviews`` IMDB train reviews of at most ``--max-words`` words (short reviews keep a CPU run to minutes); with
``--near-boundary W`` only the templates whose unperturbed review fp32 scores within W of 0.5 (where BTCs live: a
stress sample, so a few templates still hold BTCs) (``--generate-budget`` seconds at most, in chunks), then at most
``--max-templates`` seeded templates per characteristic (0: all). ``--n-mutants N`` wants N mutants: when generation
gave fewer, whole templates are repeated as new cases whose texts carry a copy number in front (``"[2] "``), so
every text stays distinct and the engine cannot dedup them; the count of repeated rows is printed. ``--cases F``
reads a case table instead (.pkl or .parquet, e.g. saved with ``--save-cases``).

Paths (``--paths``, comma-separated; default ``fp32,bf16,bf16-autocast,int8`` on a CPU, ``fp32,bf16,fp16`` on a
GPU; a path this machine cannot run is skipped with its reason):

- ``fp32`` — the reference (the papers' precision).
- ``bf16`` — ``minilm-imdb?dtype=bfloat16``, the shipped recipe: the encoder's weights cast to bf16, its final
  layer norm and the pooling in fp32 (:func:`toolkit.models.quantize.keep_tail_fp32`), on a CPU the linear layers
  through oneDNN with the bias fused (:func:`toolkit.models.quantize.fuse_cpu_linear`); on a CPU it needs
  avx512_bf16/amx_bf16.
- ``bf16-v1`` — last round's recipe: the weights cast, every op in bf16 (``F.linear``), pooling in fp32.
- ``bf16-tail`` — ``bf16-v1`` with the final layer norm in fp32 (the accuracy part of the recipe alone).
- ``bf16-norms32`` — ``bf16`` with every layer norm in fp32, so the residual stream stays fp32
  (:func:`toolkit.models.quantize.keep_norms_fp32`).
- ``bf16-fused`` — ``bf16-v1`` with the oneDNN fused linear layers, the feed-forward GELU fused too (measured: a
  label lost near the boundary, so the shipped recipe fuses the bias only).
- ``bf16-autocast`` — the alternative: ``torch.autocast`` over the fp32 model (matrix products in bf16; weights,
  layer norms and softmax in fp32).
- ``bf16-recheck`` — ``minilm-imdb?dtype=bfloat16&recheck=M`` (``--recheck M``, default
  :data:`toolkit.models.hf.RECHECK_MARGIN`): ``bf16``, then every text whose bf16 P(positive) lies within M of 0.5
  re-scored by an fp32 copy of the model (the share of texts rechecked is printed).
- ``int8-recheck`` (CPU) — ``int8`` with the same fp32 recheck at ``--int8-recheck M`` (int8 moves scores by far more
  than bf16, so its margin must be wider to protect the labels).
- ``ort-fp32`` (CPU, the ``int8`` extra) — the encoder exported to ONNX (offline) and run by ONNX Runtime in fp32:
  the runtime's own speed, for the static int8 path below.
- ``int8-static`` (CPU, the ``int8`` extra) — ONNX Runtime static quantisation
  (:func:`toolkit.models.quantize.quantize_onnx_static`): QDQ, int8 weights per channel, uint8 activations with
  scales calibrated (``--calibration N`` texts, ``--calibration-method``) on a seeded sample of the texts being
  scored; the weight matrix products of the groups ``--int8-keep`` names (regular expressions over ONNX node names,
  e.g. ``/intermediate/dense/``) kept fp32. ``--int8-sweep`` first quantises each group of
  :data:`toolkit.models.quantize.ONNX_GROUPS` and each layer alone and prints its max |Δ| and label agreement on the
  calibration texts (the per-layer sensitivity).
- ``int8-static-recheck`` — ``int8-static`` with the fp32 recheck at ``--int8-recheck``.
- ``fp16`` — ``dtype=float16`` (a GPU, or a CPU with avx512_fp16/amx_fp16).
- ``int8`` — ``minilm-imdb?dtype=int8`` (CPU): torch dynamic quantisation, per-channel weights, every encoder
  linear layer (:func:`toolkit.models.hf.quantize_int8`).
- ``int8-tensor`` (CPU) — the naive recipe: per-tensor weights, every linear layer.
- ``int8-attention`` (CPU) — per-channel, the attention projections only (the feed-forward layers, the most
  sensitive in a one-group-at-a-time sweep, kept in fp32).

Speed: every path scores the same case table through the engine (cache off; the same sorted token-budget batches,
since every path shares the tokenizer), ``--repeats`` times, the paths interleaved within each repetition; the
speed ratio is the median over repetitions of fp32's time / the path's time in the same repetition (robust to a
machine whose load changes). ``ceiling_share``: the pure forward pass over the engine's batches (tensors built
beforehand) / the engine's time. Answers, per path vs fp32: max |Δscore|, label agreement, the BTC set (every pair of
mutants of one template, of different classes, with different labels, as :func:`toolkit.studies.biasfinder.analysis.btcs`
counts them) and its Jaccard index with fp32's, the change in BTCs and in templates with a BTC per characteristic
(Table 4), and on all 8,640 EEC sentences the agreement of :func:`toolkit.studies.eec.analysis.ttests`' verdict columns
(``significant``, ``direction``, ``significant_two_way``, ``verdict``) over every attribute × subset.

``rechecked``: the share of the mutants' distinct texts a recheck path re-scored in fp32 (``eec_rechecked``: of the
EEC's); the weights each path holds in memory are printed first.

Last line: ``best=<path> speed=<ratio>x label_agreement=<%> btc_jaccard=<J> eec_verdicts=<equal>/<total>`` for the
fastest reduced-precision path with label agreement ≥ 99.5 %, BTC Jaccard ≥ 0.98 and every EEC verdict equal (or,
when none qualifies, the one with the highest BTC Jaccard, then labels, then speed, marked ``goal=missed``).
"""
from __future__ import annotations

import argparse
import atexit
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from toolkit.errors import InputError
from toolkit.models import hf, quantize
from toolkit.models.minilm import MiniLMSentimentModel
from toolkit.scoring import CPU_BATCH_TOKENS, GPU_BATCH_TOKENS, score

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmark's ceiling measure
from bench_scoring import ceiling_seconds, read_cases

DEFAULT_IMDB = Path(__file__).resolve().parents[2] / "shared" / "data" / "imdb" / "imdb_train.csv.gz"
CPU_PATHS = ("fp32", "bf16", "bf16-recheck", "bf16-v1", "bf16-tail", "bf16-fused", "bf16-norms32", "bf16-autocast",
             "fp16", "int8", "int8-recheck", "int8-tensor", "int8-attention", "ort-fp32", "int8-static",
             "int8-static-recheck")
STATIC_PATHS = ("ort-fp32", "int8-static", "int8-static-recheck")
DEFAULT_CPU_PATHS = ("fp32", "bf16", "bf16-recheck", "bf16-autocast", "int8")
GPU_PATHS = ("fp32", "bf16", "bf16-recheck", "fp16", "bf16-autocast")
VERDICT_COLUMNS = ("significant", "direction", "significant_two_way", "verdict")
GOAL = {"label_agreement": 0.995, "btc_jaccard": 0.98}


def build(path: str, *, device: str, recheck: float = hf.RECHECK_MARGIN,
          int8_recheck: float = 0.15) -> MiniLMSentimentModel | None:
    """The minilm-imdb model of ``path`` (None, with the reason printed, when this machine cannot run it)."""
    dtype = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16", "int8": "int8"}.get(path)
    try:
        if dtype is not None:
            model = MiniLMSentimentModel(device=device, dtype=dtype)
        elif path in ("bf16-recheck", "int8-recheck"):
            model = MiniLMSentimentModel(device=device, dtype="bfloat16" if path == "bf16-recheck" else "int8",
                                         recheck=recheck if path == "bf16-recheck" else int8_recheck)
        else:
            model = MiniLMSentimentModel(device=device)
            if path in ("bf16-v1", "bf16-tail", "bf16-fused"):  # the default bf16 recipe's parts, one at a time
                hf.check_cpu_half_precision("bfloat16") if not str(model.device).startswith("cuda") else None
                model.model.to(dtype=torch.bfloat16)
                if path == "bf16-tail":
                    quantize.keep_tail_fp32(model.model)
                elif path == "bf16-fused" and model.device == "cpu":
                    quantize.fuse_cpu_linear(model.model, gelu=True)
            elif path == "bf16-norms32":  # the shipped recipe with every layer norm (the residual stream) in fp32
                model = MiniLMSentimentModel(device=device, dtype="bfloat16")
                quantize.keep_norms_fp32(model.model)
            elif path == "bf16-autocast":
                hf.check_cpu_half_precision("bfloat16") if not str(model.device).startswith("cuda") else None
                model.model.forward = torch.autocast(str(model.device).split(":")[0],
                                                     dtype=torch.bfloat16)(model.model.forward)
            elif path == "int8-tensor":
                import warnings

                from torch.ao.quantization import quantize_dynamic

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    quantize_dynamic(model.model, {torch.nn.Linear}, dtype=torch.qint8, inplace=True)
            elif path == "int8-attention":
                hf.quantize_int8(model.model, keep_float=(r"\.intermediate\.dense$", r"layer\.\d+\.output\.dense$"))
            else:
                raise ValueError(path)
    except Exception as exc:  # noqa: BLE001 - reported, the path is skipped
        print(f"{path}: skipped ({type(exc).__name__}: {str(exc).splitlines()[0][:160]})")
        return None
    model.spec = f"minilm-imdb[{path}]"
    return model


def build_static(paths: list[str], cases: pd.DataFrame, *, args) -> dict:
    """The ONNX Runtime paths (:data:`STATIC_PATHS`) asked for, calibrated on a seeded sample of ``cases``' texts;
    {} with the reason printed when onnx/onnxruntime are missing."""
    wanted = [p for p in paths if p in STATIC_PATHS]
    if not wanted:
        return {}
    try:
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        print(f"{', '.join(wanted)}: skipped ({exc}; pip install '.[int8]')")
        return {}
    started = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix="bench_precision_"))  # the ONNX graphs, removed at exit
    atexit.register(shutil.rmtree, workdir, True)
    base = MiniLMSentimentModel(device="cpu")
    source = quantize.export_onnx(base.model, workdir / "encoder.onnx")
    texts = cases["text"].drop_duplicates().sample(n=min(args.calibration, cases["text"].nunique()),
                                                   random_state=args.seed).tolist()
    calibration = []
    for start in range(0, len(texts), 16):
        encoded = base.tokenizer(texts[start:start + 16], padding=True, truncation=True, max_length=base.max_length,
                                 return_tensors="np")
        calibration.append({k: v.astype(np.int64) for k, v in encoded.items()})
    nodes = quantize.weight_matmuls(source)
    print(f"ONNX export {time.perf_counter() - started:.1f} s; {len(nodes)} weight matrix products; calibration on "
          f"{len(texts)} texts of the workload ({args.calibration_method})")

    def quantised(keep: list[str], name: str) -> MiniLMSentimentModel:
        chosen = [n for n in nodes if not any(re.search(k, n) for k in keep)]
        target = quantize.quantize_onnx_static(source, workdir / f"{name}.onnx", calibration=calibration,
                                               nodes=chosen, method=args.calibration_method,
                                               cache=workdir / "calibration.cache")
        model = MiniLMSentimentModel(device="cpu")
        model.model = quantize.OrtEncoder(target)
        return model

    if args.int8_sweep:
        reference = base.predict(texts)
        print("per-group sensitivity (only that group quantised, the rest fp32; on the calibration texts):")
        groups = dict(quantize.ONNX_GROUPS) | {f"layer {i}": rf"/layer\.{i}/" for i in range(6)}
        for label, pattern in groups.items():
            keep = [f"^(?!.*{pattern})"]  # keep fp32 every node outside the group
            q = quantised(keep, "sweep").predict(texts)
            diff = np.abs(q.score - reference.score)
            agree = np.mean(np.array(q.label) == np.array(reference.label))
            print(f"  {label:18s} nodes {sum(bool(re.search(pattern, n)) for n in nodes):3d}  max |Δ| "
                  f"{diff.max():.4f}  mean |Δ| {diff.mean():.4f}  labels {agree:.2%}")
    out = {}
    for path in wanted:
        if path == "ort-fp32":
            model = MiniLMSentimentModel(device="cpu")
            model.model = quantize.OrtEncoder(source)
        else:
            model = quantised(list(args.int8_keep), path)
            if path == "int8-static-recheck":
                model.recheck, model.reference_model = args.int8_recheck, base.model
                model.recheck_counts = {"texts": 0, "rechecked": 0}
        model.spec = f"minilm-imdb[{path}]"
        out[path] = model
    print(f"static int8 set up in {time.perf_counter() - started:.1f} s (kept fp32: {list(args.int8_keep) or 'none'})")
    return out


def weights_mib(model, *, reference: bool = False) -> float:
    """MiB of parameters and buffers held by ``model`` (and its fp32 recheck copy), or by that copy alone."""
    def size(module) -> int:
        if module is None:
            return 0
        tensors = list(module.parameters()) + list(module.buffers())
        packed = sum(t.numel() * t.element_size() for t in tensors)
        for m in module.modules():  # torch dynamic-quantised linear layers keep their weights packed, not as parameters
            if hasattr(m, "_packed_params") and callable(getattr(m, "weight", None)):
                w, b = m.weight(), m.bias()
                packed += w.numel() * w.element_size() + (0 if b is None else b.numel() * b.element_size())
        return packed
    ref = size(model.reference_model)
    return (ref if reference else size(model.model) + ref) / 2 ** 20


def generate_cases(imdb: Path, *, reviews: int, seed: int, n_process: int,
                   budget_s: float, max_words: int) -> pd.DataFrame:
    """Real BiasFinder mutants of a seeded sample of IMDB train reviews of at most ``max_words`` words (0: any),
    generated in chunks until ``reviews`` are mined or ``budget_s`` seconds have passed."""
    from toolkit import corpora
    from toolkit.studies.biasfinder.generator import generate
    corpus = corpora.load(imdb)
    if max_words:
        corpus = corpus[corpus["text"].str.split().str.len() <= max_words]
    corpus = corpus.sample(n=min(reviews, len(corpus)), random_state=seed).reset_index(drop=True)
    chunk = max(200, 400 * n_process)
    parts, started, mined = [], time.perf_counter(), 0
    for start in range(0, len(corpus), chunk):
        try:
            part = generate(corpus.iloc[start:start + chunk], n_process=n_process, progress=False)
        except InputError as exc:  # a chunk without any template
            print(f"reviews {start}-{start + chunk}: {exc.message[:120]}")
        else:
            part["case_id"] = part["case_id"].astype(str) + f"@{start}"  # case ids are per call: keep them apart
            parts.append(part)
        mined = min(start + chunk, len(corpus))
        if time.perf_counter() - started > budget_s:
            break
    if not parts:
        raise InputError(f"no template in {mined} reviews.", fix="pass more --reviews or a larger --generate-budget.")
    cases = pd.concat(parts, ignore_index=True)
    print(f"templating {mined} reviews ({n_process} processes): {time.perf_counter() - started:.1f} s, "
          f"{cases['case_id'].nunique()} templates")
    return cases.reset_index(drop=True)


def near_boundary(cases: pd.DataFrame, model, *, width: float) -> pd.DataFrame:
    """The templates whose unperturbed review scores within ``width`` of 0.5 under ``model`` (fp32): where BTCs
    live, so a small sample still holds some (a stress sample, not a random one)."""
    originals = cases[cases["is_original"]]
    scored = score(originals, models=model, cache=False, progress=False)
    keep = set(scored.loc[(scored["score"] - 0.5).abs() <= width, "case_id"])
    print(f"near the boundary (|fp32 score of the review - 0.5| <= {width}): {len(keep)} of "
          f"{cases['case_id'].nunique()} templates")
    return cases[cases["case_id"].isin(keep)]


def repeat_to(cases: pd.DataFrame, n: int) -> pd.DataFrame:
    """``cases`` grown to at least ``n`` rows by whole-template copies whose texts start with ``"[k] "``."""
    if n <= len(cases) or not len(cases):
        return cases
    copies = [cases]
    k = 1
    while sum(len(c) for c in copies) < n:
        k += 1
        copy_ = cases.copy()
        copy_["case_id"] = copy_["case_id"].astype(str) + f"#{k}"
        copy_["variant_id"] = copy_["variant_id"].astype(str) + f"#{k}"
        copy_["text"] = f"[{k}] " + copy_["text"].astype(str)
        copies.append(copy_)
    grown = pd.concat(copies, ignore_index=True)
    print(f"--n-mutants {n}: {len(cases)} generated mutants repeated {k} times ({len(grown) - len(cases)} rows are "
          "copies with a copy number in front)")
    return grown


def btc_set(scored: pd.DataFrame) -> set[tuple[str, str, str]]:
    """Every BTC as (case_id, variant, variant): mutants of one template, of different classes, different labels."""
    mutants = scored[scored["group"] != ""]
    out: set[tuple[str, str, str]] = set()
    for case_id, block in mutants.groupby("case_id", observed=True, sort=False):
        rows = list(zip(block["variant_id"], block["group"], block["label"]))
        for i, (va, ga, la) in enumerate(rows):
            for vb, gb, lb in rows[i + 1:]:
                if ga != gb and la != lb:
                    out.add((str(case_id), *sorted((str(va), str(vb)))))
    return out


def table4(scored: pd.DataFrame) -> pd.DataFrame:
    from toolkit.studies.biasfinder import analysis as biasfinder

    return biasfinder.table4(biasfinder.btcs(scored)).set_index("attribute")


def eec_verdicts(model, *, n_boot: int, batch_tokens: int) -> pd.DataFrame:
    from toolkit.studies.eec import generator as eec_generator
    from toolkit.studies.eec import analysis as eec

    scored = score(eec_generator.generate(), models=model, cache=False, progress=False, batch_tokens=batch_tokens)
    tests = eec.ttests(scored, n_boot=n_boot)
    return tests.set_index(["attribute", "subset"])[list(VERDICT_COLUMNS)], scored


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imdb", type=Path, default=DEFAULT_IMDB)
    parser.add_argument("--reviews", type=int, default=60, help="IMDB train reviews to mine (the sample size)")
    parser.add_argument("--max-templates", type=int, default=8, help="templates per characteristic (0: all)")
    parser.add_argument("--near-boundary", type=float, default=0.0,
                        help="keep templates whose review's fp32 score is within this of 0.5 (0: all)")
    parser.add_argument("--max-words", type=int, default=120, help="mine reviews of at most this many words (0: any)")
    parser.add_argument("--n-mutants", type=int, default=0, help="repeat templates up to this many mutants")
    parser.add_argument("--n-process", type=int, default=2, help="spaCy processes for the generator")
    parser.add_argument("--generate-budget", type=float, default=600.0, help="seconds of templating at most")
    parser.add_argument("--cases", type=Path, help="a saved case table (.pkl or .parquet) instead of generating")
    parser.add_argument("--save-cases", type=Path, help="save the case table here")
    parser.add_argument("--paths", help=f"comma-separated, of {', '.join(CPU_PATHS)} (default: "
                                         f"{','.join(DEFAULT_CPU_PATHS)} on a CPU, {','.join(GPU_PATHS)} on a GPU)")
    parser.add_argument("--recheck", type=float, default=hf.RECHECK_MARGIN,
                        help="the bf16-recheck path's margin around 0.5")
    parser.add_argument("--int8-recheck", type=float, default=0.15, help="the int8-recheck path's margin")
    parser.add_argument("--calibration", type=int, default=128, help="texts to calibrate static int8 on")
    parser.add_argument("--calibration-method", default="minmax", choices=("minmax", "percentile", "entropy"))
    parser.add_argument("--int8-keep", action="append", default=[],
                        help="regular expression of ONNX node names kept fp32 by int8-static (repeatable)")
    parser.add_argument("--int8-sweep", action="store_true", help="print static int8's per-group sensitivity")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--batch-tokens", type=int, help="token budget per batch (default: the engine's)")
    parser.add_argument("--n-boot", type=int, default=2000, help="EEC bootstrap resamples (the toolkit's default)")
    parser.add_argument("--no-eec", action="store_true", help="skip the EEC verdict comparison")
    parser.add_argument("--no-ceiling", action="store_true", help="skip the pure forward pass measure (NaN)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    on_gpu = args.device.startswith("cuda")
    names = args.paths.split(",") if args.paths else list(GPU_PATHS if on_gpu else DEFAULT_CPU_PATHS)
    if names[0] != "fp32":
        names = ["fp32"] + [n for n in names if n != "fp32"]
    budget = args.batch_tokens or (GPU_BATCH_TOKENS if on_gpu else CPU_BATCH_TOKENS)
    wall = time.perf_counter()

    if args.cases:
        cases = read_cases(args.cases)
    elif not args.imdb.exists():
        print(f"IMDB file {args.imdb} not found; pass --imdb PATH or --cases FILE.", file=sys.stderr)
        return 2
    else:
        cases = generate_cases(args.imdb, reviews=args.reviews, seed=args.seed,
                               n_process=args.n_process, budget_s=args.generate_budget,
                               max_words=args.max_words)
    models = {name: m for name in names if name not in STATIC_PATHS
              and (m := build(name, device=args.device, recheck=args.recheck, int8_recheck=args.int8_recheck))
              is not None}
    for name, model in models.items():
        print(f"{name}: weights in memory {weights_mib(model):.1f} MiB"
              + (f" (of which the fp32 recheck copy {weights_mib(model, reference=True):.1f} MiB)"
                 if model.recheck is not None else ""))
    if "fp32" not in models:
        print("fp32 cannot run here", file=sys.stderr)
        return 2
    if not args.cases:
        from toolkit.studies.biasfinder.analysis import sample_templates

        if args.near_boundary:
            cases = near_boundary(cases, models["fp32"], width=args.near_boundary)
        if args.max_templates:
            cases = sample_templates(cases, max_templates=args.max_templates, seed=args.seed).reset_index(drop=True)
    cases = repeat_to(cases, args.n_mutants)
    models |= build_static(names, cases, args=args)
    if args.save_cases:
        cases.to_parquet(args.save_cases) if args.save_cases.suffix == ".parquet" else cases.to_pickle(args.save_cases)
    device = models["fp32"].device
    print(f"torch {torch.__version__}, device {device}" + (f" ({torch.cuda.get_device_name()})" if on_gpu else
                                                           f", {torch.get_num_threads()} threads, CPU capability "
                                                           f"{torch.backends.cpu.get_cpu_capability()}")
          + f", batch tokens {budget}; paths: {', '.join(models)}")
    print("workload: " + ", ".join(f"{a} {n} templates" for a, n in cases.groupby("attribute")["case_id"].nunique()
                                   .items()) + f"; {len(cases)} mutants, {cases['text'].nunique()} distinct texts")

    for model in models.values():  # warm-up: kernels, allocator, oneDNN primitives
        score(cases.head(64), models=model, cache=False, progress=False, batch_tokens=budget)
    seconds: dict[str, list[float]] = {name: [] for name in models}
    scored: dict[str, pd.DataFrame] = {}
    rechecked: dict[str, float] = {}
    for rep in range(args.repeats):
        for name, model in models.items():  # interleaved: every repetition runs every path once
            if model.recheck is not None:
                model.recheck_counts = {"texts": 0, "rechecked": 0}
            if on_gpu:
                torch.cuda.synchronize()
            started = time.perf_counter()
            scored[name] = score(cases, models=model, cache=False, progress=False, batch_tokens=budget)
            seconds[name].append(time.perf_counter() - started)
            if model.recheck is not None:
                rechecked[name] = model.recheck_counts["rechecked"] / max(model.recheck_counts["texts"], 1)
        print(f"repetition {rep + 1}: " + ", ".join(f"{n} {s[-1]:.1f} s" for n, s in seconds.items())
              + f" (load average {os.getloadavg()[0]:.1f})")
    ceiling = {name: float("nan") if args.no_ceiling else ceiling_seconds(model, cases["text"].tolist(),
                                                                           batch_tokens=budget)
               for name, model in models.items()}

    reference = scored["fp32"]
    ref_btcs = btc_set(reference)
    ref_table = table4(reference)
    ref_verdicts, ref_eec = (None, None) if args.no_eec else eec_verdicts(models["fp32"], n_boot=args.n_boot,
                                                                          batch_tokens=budget)
    assert len(ref_btcs) == int(ref_table["btcs"].sum()), "BTC set disagrees with toolkit.studies.biasfinder.analysis.btcs"
    rows = []
    for name, model in models.items():
        frame = scored[name]
        ratio = statistics.median(f / s for f, s in zip(seconds["fp32"], seconds[name]))
        diff = np.abs(frame["score"].to_numpy() - reference["score"].to_numpy())
        agree = float(np.mean(frame["label"].to_numpy() == reference["label"].to_numpy()))
        btcs = btc_set(frame)
        union = ref_btcs | btcs
        jaccard = len(ref_btcs & btcs) / len(union) if union else 1.0
        table = table4(frame)
        delta = (table[["btcs", "templates_with_btc"]] - ref_table[["btcs", "templates_with_btc"]]).astype(int)
        row = {"path": name, "engine_s": statistics.median(seconds[name]), "speed": ratio,
               "rechecked": rechecked.get(name, 0.0),
               "texts_per_s": len(cases) / statistics.median(seconds[name]),
               "ceiling_share": ceiling[name] / statistics.median(seconds[name]),
               "max_abs_diff": float(diff.max()), "label_agreement": agree, "btcs": len(btcs), "btc_jaccard": jaccard,
               "btc_change": "; ".join(f"{a} {r.btcs:+d} ({r.templates_with_btc:+d} tpl)" for a, r in delta.iterrows())}
        if ref_verdicts is not None:
            if model.recheck is not None:
                model.recheck_counts = {"texts": 0, "rechecked": 0}
            verdicts, eec_scored = (ref_verdicts, ref_eec) if name == "fp32" else eec_verdicts(
                model, n_boot=args.n_boot, batch_tokens=budget)
            if model.recheck is not None:
                row["eec_rechecked"] = model.recheck_counts["rechecked"] / max(model.recheck_counts["texts"], 1)
            aligned = verdicts.reindex(ref_verdicts.index)
            equal = (aligned.astype(str).to_numpy() == ref_verdicts.astype(str).to_numpy())
            row.update(eec_equal=int(equal.sum()), eec_total=int(equal.size),
                       eec_max_abs_diff=float(np.abs(eec_scored["score"].to_numpy()
                                                     - ref_eec["score"].to_numpy()).max()),
                       eec_label_agreement=float(np.mean(eec_scored["label"].to_numpy()
                                                         == ref_eec["label"].to_numpy())))
            changed = ref_verdicts.index[~equal.all(axis=1)]
            if len(changed):
                print(f"{name}: EEC verdicts that differ from fp32: "
                      + "; ".join(f"{a}/{s}: {dict(aligned.loc[(a, s)])} vs {dict(ref_verdicts.loc[(a, s)])}"
                                  for a, s in changed[:6]))
        rows.append(row)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 80):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"fp32 BTCs per characteristic: {ref_table['btcs'].to_dict()}; wall {time.perf_counter() - wall:.0f} s; "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    reduced = table[~table["path"].isin(("fp32", "ort-fp32"))]  # the reduced-precision paths only
    if reduced.empty:
        return 0
    ok = (reduced["label_agreement"] >= GOAL["label_agreement"]) & (reduced["btc_jaccard"] >= GOAL["btc_jaccard"])
    if "eec_equal" in reduced:
        ok &= reduced["eec_equal"] == reduced["eec_total"]
    best = reduced[ok].sort_values("speed").iloc[-1] if ok.any() else reduced.sort_values(["btc_jaccard", "label_agreement", "speed"]).iloc[-1]
    eec_text = f" eec_verdicts={best['eec_equal']}/{best['eec_total']}" if "eec_equal" in best else ""
    print(f"best={best['path']} speed={best['speed']:.2f}x label_agreement={best['label_agreement']:.2%} "
          f"btc_jaccard={best['btc_jaccard']:.4f}{eec_text} ceiling_share={best['ceiling_share']:.2f}"
          + (f" rechecked={best['rechecked']:.2%}" if best["rechecked"] else "")
          + ("" if ok.any() else " goal=missed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
