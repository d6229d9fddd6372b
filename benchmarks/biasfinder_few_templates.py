"""BiasFinder's intervals below 8 templates (``rates(few_templates="names")``, the default): the names bootstrap
with the templates fixed, checked in BiasFinder's real design (every template filled with the SAME names;
tests/synthetic_bias.py's ``biasfinder_same_names``) through ``rates()`` itself. The estimand is conditional on the
run's templates: for a population of names (name effect + residual, normal), the BTC rate between classes, the
within-class null and their difference in THESE templates, computed exactly from each run's template effects
(excess = mean over templates of (p_female − p_male)², p = Φ((template + δ) / √(name sd² + residual sd²))).
Each run is read three ways: ``cluster`` (the default: the names bootstrap joined with the inverted permutation
test, 0 by the p), ``cluster-bootstrap`` (the names bootstrap alone) and the inverted permutation test alone (not an
option; shown for why). Prints, ± one Monte-Carlo SE:

- ``reject``: runs with p < 0.05 (type I error at δ = 0, power otherwise; one p for all three);
- ``has CI``: runs given an interval;
- ``cover``: of those, excess intervals holding the run's true excess; ``null`` and ``rate``: the same for the
  null's and the rate's intervals;
- ``width``: mean width of the excess interval;
- ``alike``: runs where every name of a class is labelled alike (no bootstrap spread: the Clopper-Pearson bounds),
  and their coverage of the excess.

    PYTHONPATH=. python benchmarks/biasfinder_few_templates.py [--runs 200] [--n-boot 400]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from biasfinder_interval import _inverted_alone  # noqa: E402
from stats_simulation import _se  # noqa: E402
from synthetic_bias import biasfinder_same_names  # noqa: E402

from toolkit.studies.biasfinder import analysis as biasfinder  # noqa: E402

NAMES = dict(name_sd=0.15, template_sd=0.15, residual_sd=0.05)
SMALL = dict(name_sd=0.05, template_sd=0.15, residual_sd=0.05)
DESIGNS = [  # (label, design, templates, names per class, delta)
    ("no bias, names carry the variance", NAMES, 1, 30, 0.0),
    ("no bias, names carry the variance", NAMES, 3, 30, 0.0),
    ("no bias, names carry the variance", NAMES, 1, 10, 0.0),
    ("no bias, names carry the variance", NAMES, 7, 10, 0.0),
    ("bias +.10, names carry the variance", NAMES, 1, 30, 0.10),
    ("bias +.10, names carry the variance", NAMES, 3, 30, 0.10),
    ("bias +.10, names carry the variance", NAMES, 1, 10, 0.10),
    ("small bias (+.05, name sd .05)", SMALL, 1, 30, 0.05),
    ("small bias (+.05, name sd .05)", SMALL, 3, 30, 0.05),
    ("small bias (+.05, name sd .05)", SMALL, 7, 10, 0.05),
]


def conditional_truth(seed: int, *, n_templates: int, delta: float, name_sd: float, template_sd: float,
                      residual_sd: float) -> tuple[float, float, float]:
    """The run's population rate between classes, null and excess given its templates (the generator's first draw
    from ``default_rng(seed)`` is the template effects)."""
    template = np.random.default_rng(seed).normal(0, template_sd, n_templates)
    scale = np.hypot(name_sd, residual_sd)
    female, male = stats.norm.cdf((template + delta) / scale), stats.norm.cdf(template / scale)
    between = female * (1 - male) + male * (1 - female)
    within = female * (1 - female) + male * (1 - male)
    return float(between.mean()), float(within.mean()), float((between - within).mean())


def measure(runs: int, n_boot: int) -> list[dict]:
    rows = []
    for label, design, n_templates, n_names, delta in DESIGNS:
        truths = np.array([conditional_truth(s, n_templates=n_templates, delta=delta, **design)
                           for s in range(runs)])
        scored = pd.concat([biasfinder_same_names(n_templates=n_templates, n_names=n_names, delta=delta, seed=s,
                                                  model=f"r{s:04d}", **design) for s in range(runs)],
                           ignore_index=True)
        tables = {method: biasfinder.rates(scored, n_boot=n_boot, interval=method)
                  for method in ("cluster", "cluster-bootstrap")}
        assert (tables["cluster"]["model"] == [f"r{s:04d}" for s in range(runs)]).all()
        tables["inverted-alone"] = tables["cluster"].assign(**_inverted_alone(scored, tables["cluster"],
                                                                              n_boot=n_boot))
        for method, table in tables.items():
            has = table["ci_low"].notna().to_numpy()
            alike = table["ci_method"].str.contains("Clopper-Pearson").to_numpy()
            alike_cover = float(((table["ci_low"] <= truths[:, 2]) & (truths[:, 2] <= table["ci_high"]))[alike].mean()
                                if alike.any() else float("nan"))

            def covers(low: str, high: str, truth: np.ndarray) -> float:  # among the runs with an interval
                return float(((table[low] <= truth) & (truth <= table[high]))[has].mean())
            r = {"design": label, "T": n_templates, "K": n_names, "delta": delta, "interval": method,
                 "truth": float(truths[:, 2].mean()), "reject": float((table["p_value"] < 0.05).mean()),
                 "with_interval": float(has.mean()), "cover": covers("ci_low", "ci_high", truths[:, 2]),
                 "null": covers("null_low", "null_high", truths[:, 1]),
                 "rate": covers("rate_low", "rate_high", truths[:, 0]),
                 "width": float((table["ci_high"] - table["ci_low"])[has].mean()),
                 "alike": float(alike.mean()), "alike_cover": alike_cover}
            rows.append(r)
            print(f"{label:36s} {n_templates:2d} {n_names:3d} {delta:4.2f} {r['truth']:6.3f} {method:>17s} "
                  f"{r['reject']:.3f}±{_se(r['reject'], runs):.3f} {r['with_interval']:5.3f} "
                  f"{r['cover']:.3f}±{_se(r['cover'], int(has.sum())):.3f} "
                  f"{r['null']:.3f} {r['rate']:.3f} {r['width']:.4f} {r['alike']:.3f} {r['alike_cover']:.3f}",
                  flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=400)
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"{'design':36s} {'T':>2s} {'K':>3s} {'δ':>4s} {'truth':>6s} {'interval':>17s} {'reject':>11s} "
          f"{'has CI':>6s} {'cover':>11s} {'null':>5s} {'rate':>5s} {'width':>6s} {'alike':>5s} {'cover':>5s}")
    measure(args.runs, args.n_boot)
    print(f"({time.perf_counter() - started:.0f} s, {args.runs} runs per line, n_boot {args.n_boot}, "
          f"load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
