"""Why BiasFinder's excess interval is wider than needed at no bias: which resampling over-counts the spread.

In BiasFinder's real design (every template filled with the SAME names; tests/synthetic_bias.py's
``biasfinder_same_names``, the designs of benchmarks/biasfinder_interval.py), per design and simulated run, the
standard deviation of the excess's replicates under four resamplings of ``btc_rates``' own pair sums:

- ``two-way``: templates and, within each class, names with replacement (the interval's bootstrap);
- ``templates``: templates only, names fixed;
- ``names``: names only, templates fixed;
- ``moments``: 2(templates + names) − two-way, the crossed design's method-of-moments combination (it removes the
  interaction the pigeonhole bootstrap counts three times);
- ``permutation``: the permutation null's spread (names reassigned to classes; the p's distribution).

and ``actual``, the standard deviation of the estimate over the runs (the spread an interval needs). Prints one
row per design: each spread and its ratio to ``actual``.

    PYTHONPATH=. python benchmarks/biasfinder_interval_width.py [--runs 100] [--n-boot 400]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from biasfinder_interval import DESIGNS  # noqa: E402
from synthetic_bias import biasfinder_same_names  # noqa: E402

from toolkit.studies.biasfinder import btc_rates  # noqa: E402


def excess_draws(design: dict, *, n_boot: int, seed: int, templates: bool, names: bool) -> np.ndarray:
    """``n_boot`` replicates of the excess (between − within over the templates with a within-class pair) drawing
    templates and/or each class's names with replacement; neither: the data's excess."""
    x, name_class, matched = design["x"], design["name_class"], design["matched"].astype(float)
    n_names, n_templates = x.shape[:2]
    n_classes = int(name_class.max()) + 1
    rng = np.random.default_rng(seed)
    v = (rng.multinomial(n_templates, np.full(n_templates, 1.0 / n_templates), size=n_boot).astype(float)
         if templates else np.ones((n_boot, n_templates)))
    w = np.ones((n_boot, n_names))
    if names:
        for c in range(n_classes):
            idx = np.flatnonzero(name_class == c)
            w[:, idx] = rng.multinomial(len(idx), np.full(len(idx), 1.0 / len(idx)), size=n_boot)
    member = w[:, :, None] * btc_rates._one_hot(name_class, n_classes)[None]
    fill_in = btc_rates._fill_in(x, name_class) if names else None
    rates = btc_rates._rates_of(btc_rates._pair_sums(x, member, fill_in), v, matched)
    return rates[:, 1] - rates[:, 2]


def measure(runs: int, n_boot: int) -> None:
    print(f"{'design':38s} {'T':>3s} {'K':>3s} {'actual':>7s} " + " ".join(
        f"{k:>16s}" for k in ("two-way", "templates", "names", "moments", "permutation")))
    for label, design, n_templates, n_names, delta in DESIGNS:
        estimates, var = [], {k: [] for k in ("two-way", "templates", "names", "permutation")}
        for s in range(runs):
            scored = biasfinder_same_names(n_templates=n_templates, n_names=n_names, delta=delta, seed=s,
                                           model="m", **design)
            pair = btc_rates._pair_design(scored)
            estimates.append(float(excess_draws(pair, n_boot=1, seed=0, templates=False, names=False)[0]))
            for key, (t, n) in {"two-way": (True, True), "templates": (True, False),
                                "names": (False, True)}.items():
                var[key].append(np.var(excess_draws(pair, n_boot=n_boot, seed=s, templates=t, names=n), ddof=1))
            permuted, _ = btc_rates._permuted_excess(pair, n_perm=n_boot, seed=s)
            var["permutation"].append(np.var(permuted, ddof=1))
        mean = {k: float(np.mean(v)) for k, v in var.items()}
        mean["moments"] = max(2 * (mean["templates"] + mean["names"]) - mean["two-way"], 0.0)
        actual = float(np.std(estimates, ddof=1))
        cells = " ".join(f"{np.sqrt(mean[k]):.4f} ({np.sqrt(mean[k]) / actual:4.2f}×)"
                         for k in ("two-way", "templates", "names", "moments", "permutation"))
        print(f"{label:38s} {n_templates:3d} {n_names:3d} {actual:7.4f} {cells}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--n-boot", type=int, default=400)
    args = parser.parse_args()
    started = time.perf_counter()
    measure(args.runs, args.n_boot)
    print(f"({time.perf_counter() - started:.0f} s, {args.runs} runs per line, n_boot {args.n_boot}, "
          f"load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
