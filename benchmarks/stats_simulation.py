"""Issue 32: the BiasFinder, PSA and agreement statistics under simulated models whose truth is known, run through
the studies' own functions in BiasFinder's real design (every template filled with the SAME names). Prints type I
error, power and coverage with their Monte-Carlo standard errors; docs/statistics.md records one run's output.

    PYTHONPATH=. python benchmarks/stats_simulation.py [--runs 200]

BiasFinder: score = 0.5 + template effect + name effect (one per name, the same in every template) + residual,
+ delta on female names; label = score ≥ 0.5. Each run is one model of one scored table, so one rates() call
decides a batch of runs (the family correction is not used here: p_value is the per-row p).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from synthetic_bias import biasfinder_same_names  # noqa: E402

from toolkit.studies.agreement import exact_p, two_way_taus  # noqa: E402
from toolkit.studies.biasfinder import analysis as biasfinder  # noqa: E402


def _se(p: float, n: int) -> float:
    return float(np.sqrt(max(p * (1 - p), 1e-9) / n))


def _truth(delta: float, name_sd: float, template_sd: float, residual_sd: float) -> tuple[float, float]:
    """Population BTC rate between classes and excess (between − within) by Monte Carlo (4 million draws)."""
    rng = np.random.default_rng(2024)
    n = 4_000_000
    base = 0.5 + rng.normal(0, template_sd, n)

    def label(shift):
        return base + rng.normal(0, name_sd, n) + rng.normal(0, residual_sd, n) + shift >= 0.5

    f1, f2, m1, m2 = label(delta), label(delta), label(0.0), label(0.0)
    between = np.mean(f1 != m1)
    return float(between), float(between - (np.mean(f1 != f2) + np.mean(m1 != m2)) / 2)


def biasfinder_block(runs: int, n_boot: int) -> None:
    print("== BiasFinder rates(): same names in every template ==")
    designs = [  # (label, design)
        ("names carry the variance", dict(name_sd=0.15, template_sd=0.15, residual_sd=0.05)),
        ("templates carry the variance", dict(name_sd=0.02, template_sd=0.3, residual_sd=0.1)),
    ]
    header = f"{'design':30s} {'T':>3s} {'K':>3s} {'delta':>5s} {'interval':>9s} {'reject':>7s} {'cover rate':>10s} " \
             f"{'cover excess':>12s}"
    print(header)
    for name, design in designs:
        for n_templates, n_names, delta, interval in [
                (60, 10, 0.0, "templates"), (60, 10, 0.0, "cluster"), (60, 30, 0.0, "templates"),
                (60, 30, 0.0, "cluster"), (60, 10, 0.05, "cluster"), (60, 30, 0.05, "cluster"),
                (60, 10, 0.1, "cluster"), (60, 30, 0.1, "cluster"),
                (5, 10, 0.0, "templates"), (8, 10, 0.0, "cluster"), (10, 10, 0.0, "templates"),
                (10, 10, 0.0, "cluster"), (20, 10, 0.0, "cluster")]:
            truth_rate, truth_excess = _truth(delta, **design)
            frames = [biasfinder_same_names(n_templates=n_templates, n_names=n_names, delta=delta, seed=s,
                                            model=f"r{s:04d}", **design) for s in range(runs)]
            table = biasfinder.rates(pd.concat(frames, ignore_index=True), n_boot=n_boot, interval=interval)
            reject = float((table["p_value"] < 0.05).mean())
            rate_cov = ((table["rate_low"] <= truth_rate) & (truth_rate <= table["rate_high"]))
            excess_cov = ((table["ci_low"] <= truth_excess) & (truth_excess <= table["ci_high"]))
            has = table["rate_low"].notna()
            fmt = (lambda s: f"{s[has].mean():.3f}±{_se(s[has].mean(), has.sum()):.3f}" if has.any() else "none")
            print(f"{name:30s} {n_templates:3d} {n_names:3d} {delta:5.2f} {interval:>9s} "
                  f"{reject:.3f}±{_se(reject, runs):.3f} {fmt(rate_cov):>10s} {fmt(excess_cov):>12s}", flush=True)


def agreement_block(runs: int) -> None:
    print("== agreement: exact permutation p and the τ interval over units and models ==")
    rng = np.random.default_rng(7)
    for n in (4, 5, 6, 8):
        reject = np.mean([exact_p(rng.normal(size=n), rng.normal(size=n))[0] < 0.05 for _ in range(runs)])
        print(f"independent rankings, {n} models: reject {reject:.3f}±{_se(reject, runs):.3f}; "
              f"p_min {exact_p(np.arange(n), np.arange(n))[1]:.4f}")
    for n_models, s in ((6, 0.5), (8, 0.5), (12, 0.5), (20, 0.5), (8, 2.0), (12, 2.0)):
        truth = 2 / np.pi * np.arcsin(1 / (1 + s * s))
        covered, covered_units = [], []
        for r in range(runs):
            g = np.random.default_rng(r)
            mu = g.normal(size=n_models)
            units = [mu + g.normal(0, s, n_models) + g.normal(0, 0.5, (40, n_models)) for _ in range(2)]
            boots = [g.multinomial(40, np.full(40, 1 / 40), size=500) @ u / 40 for u in units]
            picks = g.integers(0, n_models, (500, n_models))
            low, high = np.nanquantile(two_way_taus(*boots, picks=picks), [0.025, 0.975])
            covered.append(low <= truth <= high)
            fixed = np.tile(np.arange(n_models), (500, 1))
            low, high = np.nanquantile(two_way_taus(*boots, picks=fixed), [0.025, 0.975])
            covered_units.append(low <= truth <= high)
        c, cu = float(np.mean(covered)), float(np.mean(covered_units))
        print(f"τ interval, {n_models} models, population τ {truth:.2f}: units and models {c:.3f}±{_se(c, runs):.3f}; "
              f"units only {cu:.3f}±{_se(cu, runs):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=400)
    args = parser.parse_args()
    started = time.perf_counter()
    biasfinder_block(args.runs, args.n_boot)
    agreement_block(args.runs)
    print(f"({time.perf_counter() - started:.0f} s, {args.runs} runs per line, n_boot {args.n_boot})")


if __name__ == "__main__":
    main()
