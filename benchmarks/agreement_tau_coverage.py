"""The agreement study's τ intervals in its real design: how often each pair's interval covers the pair's population
τ (marginal) and how often all 6 pairs' intervals cover theirs at once (simultaneous), for the interval the study
prints (``agreement.tau_interval``: Bonferroni-simultaneous over the 6 pairs, 1 − 0.05/6) and the unadjusted 95 %
one it printed before.

Design (as ``benchmarks/agreement_family.py``): 4 studies, so 6 pairs; m models with true bias μ ~ N(0, 1); a study
that follows μ measures μ + a model-specific deviation (sd 0.5), one that does not an independent N(0, 1); each
headline the mean of 40 noisy units (sd 0.5). Population τ of a pair: 2/π · arcsin(1/(1 + 0.5²)) = 0.59 when both
follow μ, else 0. The intervals come from the study's own replicates: each study's units resampled
(``n_boot`` multinomial draws) and the models drawn with replacement once per replicate for every pair
(``agreement.two_way_taus``). Prints, per truth × m, marginal and simultaneous coverage (± one Monte-Carlo SE).

    PYTHONPATH=. python benchmarks/agreement_tau_coverage.py --runs 300
"""
from __future__ import annotations

import argparse
import time
from itertools import combinations

import numpy as np

from toolkit.studies.agreement import tau_interval, two_way_taus

STUDIES = ("eec", "psa", "biasfinder", "btcsam")
TRUTHS = {"independent": (), "two agree": ("eec", "psa"), "all agree": STUDIES}
UNITS, ALPHA, FOLLOW_SD = 40, 0.05, 0.5
AGREE_TAU = 2 / np.pi * np.arcsin(1 / (1 + FOLLOW_SD ** 2))


def one_run(n_models: int, *, follows: tuple[str, ...], n_boot: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Per interval kind, whether each of the 6 pairs' intervals covers its population τ."""
    mu = rng.normal(size=n_models)
    boots = {}
    for study in STUDIES:
        truth = mu + rng.normal(0, FOLLOW_SD, n_models) if study in follows else rng.normal(size=n_models)
        units = truth + rng.normal(0, 0.5, (UNITS, n_models))
        boots[study] = rng.multinomial(UNITS, np.full(UNITS, 1 / UNITS), size=n_boot) @ units / UNITS
    picks = rng.integers(0, n_models, (n_boot, n_models))  # one draw of models per replicate, every pair
    out = {"simultaneous": [], "unadjusted": []}
    for a, b in combinations(STUDIES, 2):
        population = AGREE_TAU if a in follows and b in follows else 0.0
        both = two_way_taus(boots[a], boots[b], picks=picks)
        for kind, correction in (("simultaneous", "holm"), ("unadjusted", "none")):
            low, high, _ = tau_interval(both, alpha=ALPHA, family_size=6, correction=correction)
            out[kind].append(low <= population <= high)
    return {kind: np.array(v) for kind, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--models", type=int, nargs="+", default=[6, 8, 12])
    args = parser.parse_args()
    start = time.time()
    print("truth         m  interval       marginal coverage  all 6 pairs covered")
    for t, (truth, follows) in enumerate(TRUTHS.items()):
        for m in args.models:
            rng = np.random.default_rng([11, m, t])
            found = [one_run(m, follows=follows, n_boot=args.n_boot, rng=rng) for _ in range(args.runs)]
            for kind in ("simultaneous", "unadjusted"):
                covered = np.array([f[kind] for f in found])
                marginal, joint = float(covered.mean()), float(covered.all(1).mean())
                se_m = np.sqrt(marginal * (1 - marginal) / covered.size)
                se_j = np.sqrt(joint * (1 - joint) / args.runs)
                print(f"{truth:12s} {m:2d}  {kind:12s}  {marginal:.3f} ± {se_m:.3f}  {joint:>13.3f} ± {se_j:.3f}",
                      flush=True)
    print(f"({time.time() - start:.0f} s, {args.runs} runs per truth and m, n_boot {args.n_boot}; alpha {ALPHA}, "
          "simultaneous level 1 - 0.05/6)")


if __name__ == "__main__":
    main()
