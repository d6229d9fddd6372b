"""The agreement study's rank intervals (``agreement.rank_interval``): how often a model's 95 % interval holds its
true rank, in one study of the agreement design.

Design (as ``benchmarks/agreement_family.py`` and ``agreement_tau_coverage.py``): m models with true headlines
μ ~ N(0, 1); each headline the mean of 40 units with noise sd ``unit_sd`` (0.5: a headline's SE 0.08, small against
the models' spread; 2.0: SE 0.32, neighbours often within noise of each other); the replicates resample the 40
units (``n_boot`` multinomial draws), the models fixed, as ``agreement._replicates`` does. The true rank is μ's
(1 = highest). Prints per m × unit_sd the share of models whose interval holds the true rank (± one Monte-Carlo
SE), and the same for the models whose nearest neighbour is within one headline SE (the hard cases).

    PYTHONPATH=. python benchmarks/agreement_rank_coverage.py --runs 1000
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.stats as sps

from toolkit.studies.agreement import rank_interval

UNITS, ALPHA = 40, 0.05


def one_run(n_models: int, *, unit_sd: float, n_boot: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Whether each model's interval holds its true rank, and whether its nearest neighbour is within one SE."""
    mu = rng.normal(size=n_models)
    units = mu + rng.normal(0, unit_sd, (UNITS, n_models))
    boot = rng.multinomial(UNITS, np.full(UNITS, 1 / UNITS), size=n_boot) @ units / UNITS
    low, high = rank_interval(boot, alpha=ALPHA)
    truth = sps.rankdata(-mu)
    gaps = np.abs(mu[:, None] - mu[None, :]) + np.eye(n_models) * 1e9
    close = gaps.min(1) < unit_sd / np.sqrt(UNITS)
    return (low <= truth) & (truth <= high), close


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=2000)
    args = parser.parse_args()
    start = time.time()
    print(" m  unit sd  coverage (all models)  coverage (neighbour within 1 SE)  share close")
    for m in (6, 8, 12):
        for unit_sd in (0.5, 2.0):
            rng = np.random.default_rng([13, m, int(unit_sd * 10)])
            found = [one_run(m, unit_sd=unit_sd, n_boot=args.n_boot, rng=rng) for _ in range(args.runs)]
            covered = np.concatenate([f[0] for f in found])
            close = np.concatenate([f[1] for f in found])
            c, cc = covered.mean(), covered[close].mean() if close.any() else float("nan")
            se, sec = np.sqrt(c * (1 - c) / covered.size), np.sqrt(cc * (1 - cc) / max(close.sum(), 1))
            print(f"{m:2d}  {unit_sd:7.1f}  {c:.3f} ± {se:.3f}  {cc:>21.3f} ± {sec:.3f}  {close.mean():>10.3f}",
                  flush=True)
    print(f"({time.time() - start:.0f} s, {args.runs} runs per line, n_boot {args.n_boot}; alpha {ALPHA})")


if __name__ == "__main__":
    main()
