"""BiasFinder's excess interval before and after it became the inverted permutation test, in BiasFinder's real
design (every template filled with the SAME names; tests/synthetic_bias.py's ``biasfinder_same_names``), through
``rates()`` itself. Per design, the same simulated runs are read by ``interval="cluster-bootstrap"`` (before: the
two-way bootstrap interval beside the permutation p) and ``interval="cluster"`` (after: the interval that inverts
that permutation test, the same draws), and by the inverted permutation test alone (``inverted-alone``: the data's
between-class pairs shifted by δ, the same draws; not an option of ``rates()``, shown for why). Prints, ± one
Monte-Carlo SE:

- ``reject``: runs with p < 0.05 (type I error at delta = 0, power otherwise; the p is the same in both);
- ``higher∋0``: of the runs read as "a higher" (p < 0.05, excess > 0: the verdict's test in a family of one),
  the share whose printed excess interval holds 0;
- ``cover``: intervals holding the population excess (between − within; Monte Carlo, benchmarks/stats_simulation.py);
- ``width``: mean interval width, and after / before.

    PYTHONPATH=. python benchmarks/biasfinder_interval.py [--runs 100] [--n-boot 400]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from stats_simulation import _se, _truth  # noqa: E402
from synthetic_bias import biasfinder_same_names  # noqa: E402

from toolkit.studies.biasfinder import analysis as biasfinder  # noqa: E402
from toolkit.studies.biasfinder import btc_rates  # noqa: E402

NAMES = dict(name_sd=0.15, template_sd=0.15, residual_sd=0.05)
SMALL = dict(name_sd=0.05, template_sd=0.15, residual_sd=0.05)
NEAR = dict(name_sd=0.05, template_sd=0.05, residual_sd=0.05)
DESIGNS = [  # (label, design, templates, names per class, delta)
    ("no bias, names carry the variance", NAMES, 8, 10, 0.0),
    ("no bias, names carry the variance", NAMES, 20, 10, 0.0),
    ("no bias, names carry the variance", NAMES, 60, 30, 0.0),
    ("small bias (+.05, name sd .05)", SMALL, 8, 30, 0.05),
    ("small bias (+.05, name sd .05)", SMALL, 20, 30, 0.05),
    ("small bias (+.05, name sd .05)", SMALL, 60, 30, 0.05),
    ("bias +.10, names carry the variance", NAMES, 60, 30, 0.10),
    ("large near-threshold (+.15, sds .05)", NEAR, 8, 10, 0.15),
    ("large near-threshold (+.15, sds .05)", NEAR, 20, 10, 0.15),
    ("large near-threshold (+.15, sds .05)", NEAR, 60, 10, 0.15),
]


def _inverted_alone(scored: pd.DataFrame, table: pd.DataFrame, *, n_boot: int) -> dict[str, list[float]]:
    """Per run (model), the interval of the inverted permutation test alone, from rates()'s own draws (seed 0)."""
    ends = []
    for model, estimate in zip(table["model"], table["estimate"]):
        design = btc_rates._pair_design(scored[scored["model"] == model])
        permuted, slope = btc_rates._permuted_excess(design, n_perm=n_boot, seed=0)
        ends.append(btc_rates._inverted_interval(estimate, permuted, slope, alpha=0.05))
    return {"ci_low": [e[0] for e in ends], "ci_high": [e[1] for e in ends]}


def measure(runs: int, n_boot: int) -> list[dict]:
    rows = []
    for label, design, n_templates, n_names, delta in DESIGNS:
        _, truth = _truth(delta, **design)
        scored = pd.concat([biasfinder_same_names(n_templates=n_templates, n_names=n_names, delta=delta, seed=s,
                                                  model=f"r{s:04d}", **design) for s in range(runs)],
                           ignore_index=True)
        tables = {method: biasfinder.rates(scored, n_boot=n_boot, interval=method)
                  for method in ("cluster-bootstrap", "cluster")}
        before, after = tables["cluster-bootstrap"], tables["cluster"]
        tables["inverted-alone"] = after.assign(**_inverted_alone(scored, after, n_boot=n_boot))
        assert (before["p_value"].to_numpy() == after["p_value"].to_numpy()).all()  # one p, before and after
        width_before = float((before["ci_high"] - before["ci_low"]).mean())
        for method, table in tables.items():
            higher = (table["p_value"] < 0.05) & (table["estimate"] > 0)
            holds0 = (table["ci_low"] <= 0) & (0 <= table["ci_high"])
            covered = (table["ci_low"] <= truth) & (truth <= table["ci_high"])
            width = float((table["ci_high"] - table["ci_low"]).mean())
            rows.append({"design": label, "T": n_templates, "K": n_names, "delta": delta, "truth": truth,
                         "interval": method, "reject": float((table["p_value"] < 0.05).mean()),
                         "higher": int(higher.sum()),
                         "higher_holds_0": float(holds0[higher].mean()) if higher.any() else float("nan"),
                         "cover": float(covered.mean()), "width": width, "width_ratio": width / width_before})
            r = rows[-1]
            print(f"{label:38s} {n_templates:3d} {n_names:3d} {delta:4.2f} {truth:6.3f} {method:>17s} "
                  f"{r['reject']:.3f}±{_se(r['reject'], runs):.3f} "
                  f"{r['higher_holds_0']:.3f} ({r['higher']:3d}) "
                  f"{r['cover']:.3f}±{_se(r['cover'], runs):.3f} {width:.4f} {r['width_ratio']:.2f}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--n-boot", type=int, default=400)
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"{'design':38s} {'T':>3s} {'K':>3s} {'δ':>4s} {'truth':>6s} {'interval':>17s} {'reject':>11s} "
          f"{'higher∋0 (n)':>13s} {'cover':>11s} {'width':>6s} {'ratio':>5s}")
    measure(args.runs, args.n_boot)
    load = os.getloadavg()[0]
    print(f"({time.perf_counter() - started:.0f} s, {args.runs} runs per line, n_boot {args.n_boot}, "
          f"load average {load:.1f})")


if __name__ == "__main__":
    main()
