"""BiasFinder's BTC-rate statistics in the paper preset's gender design (``noun_fills="all"``: a template with a
name and a noun filled with every name times every noun of the class; tests/synthetic_bias.py's
``biasfinder_names_and_nouns``), through ``rates()`` itself, read two ways: on every row, and on the rows
:func:`toolkit.studies.biasfinder.analysis.rate_rows` keeps (such a template's own noun pair: what ``rates()``
does). Two designs: the preset's on 1,000 IMDB train reviews (80 templates with the same 30 names per class, 11 with
a class's 11 nouns, 1 with 30 names × 11 nouns) and a heavier one with 12 crossed templates. Nouns without any
effect (``noun_sd`` 0) so that a zero ``delta`` is a model with no class effect. Prints, ± one Monte-Carlo SE:
``reject`` (p < 0.05: type I error at delta 0, power otherwise), ``cover`` (the excess interval holds the population
excess of the same-names design, benchmarks/stats_simulation.py's Monte Carlo; 0 at delta 0) and the mean excess.

    PYTHONPATH=. python benchmarks/biasfinder_noun_fills.py [--runs 100] [--n-boot 200]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from stats_simulation import _se, _truth  # noqa: E402
from synthetic_bias import biasfinder_names_and_nouns  # noqa: E402

from toolkit.studies.biasfinder import analysis as biasfinder  # noqa: E402

DESIGN = dict(name_sd=0.15, template_sd=0.15, residual_sd=0.05)
LAYOUTS = {"preset on IMDB train (80 / 11 / 1)": dict(n_plain=80, n_noun_only=11, n_crossed=1),
           "12 crossed (80 / 0 / 12)": dict(n_plain=80, n_noun_only=0, n_crossed=12)}
DELTAS = (0.0, 0.05, 0.10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--n-boot", type=int, default=200)
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"{'design':>36s} {'delta':>5s} {'truth':>6s} {'rows':>10s} {'reject':>11s} {'cover':>11s} "
          f"{'mean excess':>11s}")
    for layout, counts in LAYOUTS.items():
        for delta in DELTAS:
            truth = _truth(delta, **DESIGN)[1]
            scored = pd.concat([biasfinder_names_and_nouns(delta=delta, seed=s, model=f"r{s:04d}", **counts,
                                                           **DESIGN) for s in range(args.runs)], ignore_index=True)
            for label, rows in (("every row", scored.drop(columns="noun_fill")), ("rate_rows", scored)):
                table = biasfinder.rates(rows, n_boot=args.n_boot)
                reject = float((table["p_value"] < 0.05).mean())
                cover = float(((table["ci_low"] <= truth) & (truth <= table["ci_high"])).mean())
                print(f"{layout:>36s} {delta:5.2f} {truth:6.3f} {label:>10s} {reject:.3f}±{_se(reject, args.runs):.3f} "
                      f"{cover:.3f}±{_se(cover, args.runs):.3f} {table['estimate'].mean():11.4f}", flush=True)
    print(f"({time.perf_counter() - started:.0f} s, {args.runs} runs per line, n_boot {args.n_boot}, "
          f"load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
