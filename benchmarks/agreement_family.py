"""The agreement study's family of pairs: how often it claims "rankings agree" for a pair whose studies are unrelated
(the family-wise error) and for a pair whose studies truly agree (power), with each correction over the pairs
(``agreement.adjust_pairs``: Holm, the default; Bonferroni; none).

Design (the study's real one: 4 studies, so 6 pairs of studies, each pair's exact permutation p from
``agreement.exact_p``): m models with true bias μ ~ N(0, 1); a study that follows μ measures μ + a model-specific
deviation (sd 0.5; two such studies agree at population τ = 0.59), a study that does not measures an independent
N(0, 1); every headline is the mean of 40 noisy units (sd 0.5). Truths: ``independent`` (no study follows μ: all 6
pairs null), ``two agree`` (EEC and PSA follow μ: 1 true pair, 5 null), ``all agree`` (every study follows μ: no null
pair). A claim is the study's verdict: τ > 0 and the corrected p below alpha = 0.05. Prints, per truth × m ×
correction, the share of runs with any claim on a null pair (± one Monte-Carlo SE) and the share of true pairs
claimed.

    PYTHONPATH=. python benchmarks/agreement_family.py --runs 400
"""
from __future__ import annotations

import argparse
import time
from itertools import combinations

import numpy as np

from toolkit.studies.agreement import CORRECTIONS, adjust_pairs, exact_p, tau_b

STUDIES = ("eec", "psa", "biasfinder", "btcsam")
TRUTHS = {"independent": (), "two agree": ("eec", "psa"), "all agree": STUDIES}
UNITS = 40
ALPHA = 0.05


def one_run(n_models: int, *, follows: tuple[str, ...], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One simulated agreement study: per correction, which of the 6 pairs are claimed; and which pairs are true."""
    mu = rng.normal(size=n_models)
    headlines = {}
    for study in STUDIES:
        truth = mu + rng.normal(0, 0.5, n_models) if study in follows else rng.normal(size=n_models)
        headlines[study] = (truth + rng.normal(0, 0.5, (UNITS, n_models))).mean(0)
    pairs = list(combinations(STUDIES, 2))
    found = [exact_p(headlines[a], headlines[b], seed=int(rng.integers(1 << 31))) for a, b in pairs]
    p, p_min = np.array([f[0] for f in found]), np.array([f[1] for f in found])
    positive = np.array([tau_b(headlines[a], headlines[b])[0] > 0 for a, b in pairs])
    out = {"true": np.array([a in follows and b in follows for a, b in pairs])}
    for correction in CORRECTIONS:
        adjusted, _, _ = adjust_pairs(p, p_min, alpha=ALPHA, correction=correction)
        out[correction] = (adjusted < ALPHA) & positive
    return out


def rates(n_models: int, *, truth: str, runs: int, seed: int = 0) -> dict[str, dict[str, float]]:
    """Per correction over ``runs`` simulated studies: ``fwer`` (any null pair claimed; NaN without null pairs),
    its Monte-Carlo SE, and ``power`` (the share of true pairs claimed; NaN without true pairs)."""
    rng = np.random.default_rng([seed, n_models, list(TRUTHS).index(truth)])
    found = [one_run(n_models, follows=TRUTHS[truth], rng=rng) for _ in range(runs)]
    true = found[0]["true"]
    out = {}
    for correction in CORRECTIONS:
        claims = np.array([f[correction] for f in found])
        fwer = float(np.mean(claims[:, ~true].any(1))) if (~true).any() else float("nan")
        out[correction] = {"fwer": fwer, "se": float(np.sqrt(fwer * (1 - fwer) / runs)),
                           "power": float(claims[:, true].mean()) if true.any() else float("nan")}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--models", type=int, nargs="+", default=[6, 8, 12])
    args = parser.parse_args()
    start = time.time()
    print("truth         m  correction  any null pair claimed  true pairs claimed")
    for truth in TRUTHS:
        for m in args.models:
            found = rates(m, truth=truth, runs=args.runs)
            for correction, r in found.items():
                fwer = "—" if np.isnan(r["fwer"]) else f"{r['fwer']:.3f} ± {r['se']:.3f}"
                power = "—" if np.isnan(r["power"]) else f"{r['power']:.3f}"
                print(f"{truth:12s} {m:2d}  {correction:10s}  {fwer:>21s}  {power:>18s}", flush=True)
    print(f"({time.time() - start:.0f} s, {args.runs} runs per truth and m; alpha {ALPHA})")


if __name__ == "__main__":
    main()
