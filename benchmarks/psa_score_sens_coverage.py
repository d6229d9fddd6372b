"""Coverage of PSA's per-name ScoreSens intervals (``psa.score_sens``) in PSA's real design.

The 48 names of the default name set (their genders and categories) × ``n`` sentences (56: what the sample corpus
yields and the quick size; 1,000: the paper's), f(x) uniform in [0.2, 0.8] and f(x_n) = f(x) + the name's effect +
a per-sentence effect. Designs of the per-sentence effect (its mean is part of each name's true ScoreSens):

- ``symmetric``: normal, sd 0.05, independent over names;
- ``lognormal σ``: a sentence's sensitivity exp(σZ), shared by every name and scaled by the name's loading
  (1 + 0.3 Z), times 0.03, plus normal noise sd 0.01 (skewness 1.8 at σ = 0.5, 6.2 at σ = 1);
- ``mixture p``: a share p of the sentences carries a big shift (0.25 × the name's loading), the rest none,
  plus normal noise sd 0.02.

Each replicate is one simulated model in one scored table (``--reps`` models per design, in chunks), analysed by
``psa.score_sens`` with each interval method; coverage is the share of (replicate, name) intervals holding the name's
true ScoreSens, with its Monte-Carlo SE over replicates (names within a replicate share sentences, so the
replicate is the independent unit). Prints one row per design and method.

    python benchmarks/psa_score_sens_coverage.py --reps 2000
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from toolkit.studies.psa import analysis as psa
from toolkit.studies.psa.generator import load_names

DESIGNS = {  # name: (kind, parameter)
    "symmetric": ("normal", 0.0),
    "lognormal σ 0.5": ("lognormal", 0.5),
    "lognormal σ 1": ("lognormal", 1.0),
    "mixture 5 %": ("mixture", 0.05),
    "mixture 10 %": ("mixture", 0.10),
}


def simulate(design: str, *, n_sentences: int, reps: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A scored PSA table of ``reps`` simulated models (``model`` = r0, r1, …) on the default 48 names and the true
    ScoreSens per model × name (columns model, name, truth)."""
    kind, par = DESIGNS[design]
    rng = np.random.default_rng(seed)
    names = load_names(None)
    k = len(names)
    base = rng.uniform(0.2, 0.8, (reps, n_sentences))
    effect = rng.normal(0, 0.03, (reps, 1, k))
    load = 1 + 0.3 * rng.standard_normal((reps, 1, k))
    if kind == "normal":
        shift, mean_shift = rng.normal(0, 0.05, (reps, n_sentences, k)), 0.0 * load
    elif kind == "lognormal":
        sensitivity = np.exp(par * rng.standard_normal((reps, n_sentences, 1)))
        shift = 0.03 * sensitivity * load + rng.normal(0, 0.01, (reps, n_sentences, k))
        mean_shift = 0.03 * np.exp(par * par / 2) * load
    else:
        big = rng.random((reps, n_sentences, 1)) < par
        shift = np.where(big, 0.25 * load, 0.0) + rng.normal(0, 0.02, (reps, n_sentences, k))
        mean_shift = par * 0.25 * load
    perturbed = base[:, :, None] + effect + shift
    models = np.array([f"r{r}" for r in range(reps)])
    cases = np.array([f"x{i}" for i in range(n_sentences)])
    original = pd.DataFrame({"model": np.repeat(models, n_sentences), "case_id": np.tile(cases, reps),
                             "fill": "", "is_original": True, "gender": "", "category": "",
                             "score": base.ravel()})
    filled = pd.DataFrame({"model": np.repeat(models, n_sentences * k),
                           "case_id": np.tile(np.repeat(cases, k), reps),
                           "fill": np.tile(names["name"].to_numpy(), reps * n_sentences), "is_original": False,
                           "gender": np.tile(names["gender"].to_numpy(), reps * n_sentences),
                           "category": np.tile(names["category"].to_numpy(), reps * n_sentences),
                           "score": perturbed.ravel()})
    scored = pd.concat([original, filled], ignore_index=True).assign(corpus="sim")
    truth = pd.DataFrame({"model": np.repeat(models, k), "name": np.tile(names["name"].to_numpy(), reps),
                          "truth": (effect + mean_shift).reshape(reps, k).ravel()})
    return scored, truth


def coverage(design: str, *, n_sentences: int, reps: int, seed: int = 0, chunk: int | None = None,
             methods: tuple[str, ...] = psa.SCORE_SENS_INTERVALS) -> dict[str, tuple[float, float, float]]:
    """Method → (coverage, its Monte-Carlo SE, the median interval width) over ``reps`` replicates."""
    chunk = chunk or max(5, 5600 // n_sentences)  # replicates per scored table: ~270,000 rows
    hits: dict[str, list[np.ndarray]] = {m: [] for m in methods}
    widths: dict[str, list[np.ndarray]] = {m: [] for m in methods}
    for start in range(0, reps, chunk):
        scored, truth = simulate(design, n_sentences=n_sentences, reps=min(chunk, reps - start), seed=seed + start)
        for method in methods:
            table = psa.score_sens(scored, interval=method).merge(truth, on=["model", "name"])
            inside = (table["score_sens_low"] <= table["truth"]) & (table["truth"] <= table["score_sens_high"])
            hits[method].append(inside.groupby(table["model"]).mean().to_numpy())
            widths[method].append((table["score_sens_high"] - table["score_sens_low"]).to_numpy())
    out = {}
    for method in methods:
        per_rep = np.concatenate(hits[method])
        out[method] = (float(per_rep.mean()), float(per_rep.std(ddof=1) / np.sqrt(len(per_rep))),
                       float(np.median(np.concatenate(widths[method]))))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--sentences", type=int, nargs="+", default=[56, 1000])
    args = parser.parse_args()
    start = time.time()
    print(f"{'design':18} {'n':>5} " + "  ".join(f"{m:>22}" for m in psa.SCORE_SENS_INTERVALS))
    for n_sentences in args.sentences:
        for design in DESIGNS:
            found = coverage(design, n_sentences=n_sentences, reps=args.reps if n_sentences <= 100 else
                             max(200, args.reps // 10))
            cells = "  ".join(f"{c:.3f}±{se:.3f} w {w:.4f}" for c, se, w in found.values())
            print(f"{design:18} {n_sentences:>5} {cells}", flush=True)
    print(f"({time.time() - start:.0f} s, {args.reps} replicates per design at ≤ 100 sentences, a tenth at more)")


if __name__ == "__main__":
    main()
