"""Which numbers of models can support an agreement claim (``agreement.claim_support``), and how often the agreement
study makes one when two studies' measures truly agree.

Design (as benchmarks/stats_simulation.py's agreement block): m models drawn from a population, true bias
μ ~ N(0, 1); each study measures μ + a model-specific deviation (sd ``s``) + the mean of 40 noisy units (sd 0.5), so
the population τ between the two studies' measures is 2/π·asin(1/(1 + s²)) (s = 0.5: τ = 0.59; s = ∞: τ = 0,
independent rankings). A claim is what the study prints as ``rankings agree``: the exact permutation p
(``agreement.exact_p``) below alpha with τ > 0. The interval is the study's: resampling units and models
(``agreement.two_way_taus``). Prints per m: the smallest |τ| that can be significant, the null width, the
share of runs that claim agreement, and the median width of the τ interval.

    python benchmarks/agreement_claims.py --runs 400
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from toolkit.studies.agreement import claim_support, exact_p, tau_b, two_way_taus

UNITS = 40


def one_run(n_models: int, *, s: float | None, rng: np.random.Generator, n_boot: int = 300) -> dict[str, float]:
    """One simulated pair of studies on ``n_models`` models (``s`` None: independent measures): τ, the exact p,
    whether agreement is claimed at alpha = 0.05, and the width of the units-and-models interval."""
    mu = rng.normal(size=n_models)
    if s is None:
        truths = [rng.normal(size=n_models), rng.normal(size=n_models)]
    else:
        truths = [mu + rng.normal(0, s, n_models) for _ in range(2)]
    units = [t + rng.normal(0, 0.5, (UNITS, n_models)) for t in truths]
    x, y = (u.mean(0) for u in units)
    tau = float(tau_b(x, y)[0])
    p, _ = exact_p(x, y, seed=int(rng.integers(1 << 31)))
    boots = [rng.multinomial(UNITS, np.full(UNITS, 1 / UNITS), size=n_boot) @ u / UNITS for u in units]
    picks = rng.integers(0, n_models, (n_boot, n_models))
    low, high = np.nanquantile(two_way_taus(*boots, picks=picks), [0.025, 0.975])
    return {"tau": tau, "p": p, "claim": bool(p < 0.05 and tau > 0), "width": float(high - low)}


def claims(n_models: int, *, s: float | None, runs: int, seed: int = 0) -> dict[str, float]:
    """Over ``runs`` simulated pairs: the share claiming agreement, the smallest |τ| among the claims, the median
    interval width."""
    rng = np.random.default_rng([seed, n_models])
    found = [one_run(n_models, s=s, rng=rng) for _ in range(runs)]
    claimed = [f["tau"] for f in found if f["claim"]]
    return {"claim_rate": float(np.mean([f["claim"] for f in found])),
            "smallest_claimed_tau": float(min(claimed)) if claimed else float("nan"),
            "median_width": float(np.median([f["width"] for f in found]))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    args = parser.parse_args()
    start = time.time()
    print("  m  min|τ|  p at min  null width  claims τ=0.59  claims τ=0  width τ=0.59  width τ=0")
    for m in range(4, 13):
        support = claim_support(n_models=m)
        agree = claims(m, s=0.5, runs=args.runs)
        none = claims(m, s=None, runs=args.runs)
        print(f"{m:3d}  {support['min_abs_tau']:6.3f}  {support['p_at_min']:8.4f}  {support['width_null']:10.2f}  "
              f"{agree['claim_rate']:13.3f}  {none['claim_rate']:10.3f}  {agree['median_width']:12.2f}  "
              f"{none['median_width']:9.2f}", flush=True)
    print(f"({time.time() - start:.0f} s, {args.runs} runs per m and truth)")


if __name__ == "__main__":
    main()
