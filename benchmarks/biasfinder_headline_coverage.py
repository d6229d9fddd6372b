"""Coverage of the BiasFinder headline's interval in agreement across methods, in BiasFinder's real design.

The headline is the BTC rate between classes over the gender templates (``agreement``'s ``biasfinder`` row). Its
percentile interval resampled the templates alone; it now resamples the templates and, within each class, the names
(:meth:`toolkit.studies.biasfinder.BiasFinder.resampled_sums`: the rates' two-way pigeonhole bootstrap, a pair
weighing by its two names' draws). This script measures both on the same simulated systems.

Each simulated system is ``tests/synthetic_bias.biasfinder_same_names``: T templates filled with the SAME K names
per class, score = 0.5 + template effect + name effect (one per name, the same in every template) + residual, + δ
on female names, label = score ≥ 0.5. The truth is the population BTC rate between classes (Monte Carlo, 4 million
draws, ``stats_simulation._truth``). Coverage is the share of systems whose 95 % interval holds it, ± its binomial
Monte-Carlo SE.

    PYTHONPATH=. python benchmarks/biasfinder_headline_coverage.py --systems 1000
"""
from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from stats_simulation import _truth  # noqa: E402
from synthetic_bias import biasfinder_same_names  # noqa: E402

from toolkit.studies import get  # noqa: E402
from toolkit.studies.agreement import _replicates  # noqa: E402

VARIANCE = {"names carry the variance": dict(name_sd=0.15, template_sd=0.15, residual_sd=0.05),
            "templates carry the variance": dict(name_sd=0.02, template_sd=0.3, residual_sd=0.1)}
DESIGNS = [(v, t, k, d) for v in VARIANCE for t, k, d in ((60, 10, 0.0), (60, 30, 0.0), (60, 10, 0.05),
                                                          (20, 10, 0.0))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=400)
    args = parser.parse_args()
    study = get("biasfinder")
    start = time.perf_counter()
    print(f"{'design':30s} {'T':>3s} {'K':>3s} {'delta':>5s} {'truth':>6s} {'templates only':>14s} "
          f"{'templates × names':>17s}")
    for variance, n_templates, n_names, delta in DESIGNS:
        truth, _ = _truth(delta, **VARIANCE[variance])
        models = [f"s{i:04d}" for i in range(args.systems)]
        scored = pd.concat([biasfinder_same_names(n_templates=n_templates, n_names=n_names, delta=delta, seed=i,
                                                  model=m, **VARIANCE[variance]) for i, m in enumerate(models)],
                           ignore_index=True)
        units = study.units(scored)
        cover = {}
        for label, resample in (("templates", None),
                                ("crossed", partial(study.resampled_sums, scored, units=units, models=models))):
            _, boot, _, _ = _replicates(units, models, n_boot=args.n_boot, rng=np.random.default_rng(0),
                                        absolute=False, resample=resample)
            low, high = np.nanquantile(boot, [0.025, 0.975], axis=0)
            share = float(np.mean((low <= truth) & (truth <= high)))
            cover[label] = f"{share:.3f}±{np.sqrt(share * (1 - share) / len(models)):.3f}"
        print(f"{variance:30s} {n_templates:3d} {n_names:3d} {delta:5.2f} {truth:6.3f} {cover['templates']:>14s} "
              f"{cover['crossed']:>17s}", flush=True)
    print(f"({time.perf_counter() - start:.0f} s, {args.systems} systems per line, n_boot {args.n_boot})")


if __name__ == "__main__":
    main()
