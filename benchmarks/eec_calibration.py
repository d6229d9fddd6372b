"""Calibration of the EEC's two-way statistics in the real design (issue 32): type I error, power, coverage and
equivalence error of the verdict, for family sizes 1, 8 and 438, by simulation. Prints the tables that
``docs/statistics.md`` quotes (its output is recorded in ``benchmarks/eec_calibration.txt``).

Arrays: ``tests/synthetic_eec_design.arrays`` — the templates × units arrays of Δ that
``toolkit.studies.eec.analysis.cells`` builds on the real 8,640 EEC sentences (11 templates weighted by their sentence pairs,
20 and 1; 11 gender units, 20 race units), with persons drawn afresh per replicate (names are samples). Each test
is decided as ``toolkit.studies.eec.analysis._decide`` decides it with Bonferroni over m tests: the two-way p and the TOST p
from ``stats.two_way_bootstrap`` times m, ``stats.verdict``; intervals at 1 − alpha (unadjusted) and 1 − alpha/m
(simultaneous) from the same t reference.

Run: ``PYTHONPATH=.:tests python benchmarks/eec_calibration.py [--quick]`` (a few minutes; --quick: seconds)."""
from __future__ import annotations

import sys
import time

import numpy as np
import synthetic_eec_design as sd
from scipy import stats as sps

from toolkit import stats

ALPHA, MARGIN = 0.05, 0.01
QUICK = "--quick" in sys.argv
N = 100 if QUICK else 400  # replicates per design for rates at m = 1 and 8
N_FAMILIES = 5 if QUICK else 60  # families of 438 for the family-wise rates


def decide(y: np.ndarray, w: np.ndarray, *, m: int, method: str = "satterthwaite", truth: float = 0.0,
           n_boot: int = 2000, seed: int = 0) -> dict:
    r = stats.two_way_bootstrap(y, row_weights=w, margin=MARGIN, method=method, n_boot=n_boot, seed=seed)
    p_adj, p_eq = min(1.0, r["p_value"] * m), min(1.0, r["p_equivalence"] * m)
    sparse = not r["identical"] and 0 < r["n_cols_zero"] < r["n_cols"]  # as eec._decide: no equivalence claimed
    p_eq = 1.0 if sparse else p_eq
    verdict = stats.verdict(estimate=r["estimate"], se=r["se"], df=r["df"], p_adjusted=p_adj, p_equivalence=p_eq,
                            identical=r["identical"], margin=MARGIN, alpha=ALPHA)
    if method == "satterthwaite" and np.isfinite(r["df"]):
        half = sps.t.ppf(1 - ALPHA / (2 * m), r["df"]) * r["se"]
        simultaneous = abs(r["estimate"] - truth) <= half
    else:
        simultaneous = r["ci_low"] <= truth <= r["ci_high"] if m == 1 else np.nan
    return {"verdict": verdict, "covered": r["ci_low"] <= truth <= r["ci_high"], "simultaneous": simultaneous,
            "p": r["p_value"], "min_margin": np.nan if r["identical"] or sparse else abs(r["estimate"]) + sps.t.ppf(
                1 - ALPHA / m, r["df"]) * r["se"] if np.isfinite(r["df"]) else np.nan}


def kind(v: str) -> str:
    return ("equivalent" if v.startswith("equivalent") else "different-within" if v.startswith("different")
            else "identical" if v == stats.IDENTICAL else "difference" if v in ("a higher", "b higher") else v)


def rates(rows: list[dict]) -> dict:
    kinds = [kind(r["verdict"]) for r in rows]
    return {"difference": np.mean([k in ("difference", "different-within") for k in kinds]),
            "equivalent": np.mean([k == "equivalent" for k in kinds]),
            "identical": np.mean([k == "identical" for k in kinds]),
            "covered": np.nanmean([r["covered"] for r in rows]),
            "simultaneous": np.nanmean([r["simultaneous"] for r in rows]),
            "min_margin": np.nanmedian([r["min_margin"] for r in rows])}


def section(title: str) -> None:
    print(f"\n## {title}", flush=True)


def main() -> None:
    rng = np.random.default_rng(20261126)
    start = time.time()
    print(f"alpha {ALPHA}, margin {MARGIN}; {N} replicates per cell (m = 1, 8), {N_FAMILIES} families of 438")
    designs = [("gender", "all"), ("race", "all"), ("gender", "neutral"), ("race", "neutral")]
    scenarios = {  # name: (bias, keyword arguments of sd.arrays)
        "null, names sd .02": (0.0, {}),
        "null, names sd .005": (0.0, {"sd_person": 0.005, "sd_interaction": 0.002}),
        "null, heavy residual": (0.0, {"sd_person": 0.005, "sd_interaction": 0.02, "sd_noise": 0.01}),
        "null, sparse names (q=.2)": (0.0, {"sparse": 0.2}),
        "bias .05, tiny noise": (0.05, {"sd_person": 0.001, "sd_interaction": 0.001, "sd_noise": 0.001}),
        "bias .02, names sd .02": (0.02, {}),
        "Δ = margin, names sd .002": (MARGIN, {"sd_person": 0.002, "sd_interaction": 0.001}),
        "Δ = 1.5 margin, names sd .002": (1.5 * MARGIN, {"sd_person": 0.002, "sd_interaction": 0.001}),
        "Δ = 0, names sd .001 (equivalence power)": (0.0, {"sd_person": 0.001, "sd_interaction": 0.001}),
        "Δ = 1.5 m from few names (q=.1), lexicon": (1.5 * MARGIN, {"sparse": 0.1, "sd_person": 0.0,
                                                                     "sd_interaction": 0.0, "sd_noise": 0.0}),
        "Δ = 1.5 m from few names (q=.3), lexicon": (1.5 * MARGIN, {"sparse": 0.3, "sd_person": 0.0,
                                                                     "sd_interaction": 0.0, "sd_noise": 0.0}),
        "Δ = 1.5 m from few names (q=.1), noisy": (1.5 * MARGIN, {"sparse": 0.1, "sd_person": 0.0}),
    }
    section("Satterthwaite t (default): share of tests with each outcome, coverage, median smallest margin")
    print("| design | scenario | m | difference | equivalent | identical | coverage 95 % | simultaneous | "
          "min margin |")
    print("|---|---|---|---|---|---|---|---|---|")
    for attribute, subset in designs:
        for name, (bias, kw) in scenarios.items():
            if subset == "neutral" and not name.startswith(("null, names sd .02", "bias .05", "Δ = margin")):
                continue
            ys, w = sd.arrays(rng, n=N, attribute=attribute, subset=subset, bias=bias, **kw)
            for m in (1, 8):
                r = rates([decide(y, w, m=m, truth=bias) for y in ys])
                print(f"| {attribute}/{subset} | {name} | {m} | {r['difference']:.3f} | {r['equivalent']:.3f} | "
                      f"{r['identical']:.3f} | {r['covered']:.3f} | {r['simultaneous']:.3f} | "
                      f"{r['min_margin']:.4f} |", flush=True)
    section("Family of 438 (the paper's): family-wise rates over families of 438 tests (gender and race alike)")
    print("| design | scenario | families | FWER or power (any difference) | any equivalent | per-test "
          "difference | simultaneous coverage (all 438 covered) |")
    print("|---|---|---|---|---|---|---|")
    for attribute in ("gender", "race"):
        for name in ("null, names sd .02", "null, names sd .005", "bias .05, tiny noise",
                     "Δ = 1.5 margin, names sd .002", "Δ = 1.5 m from few names (q=.1), lexicon"):
            bias, kw = scenarios[name]
            any_diff = any_eq = all_cov = 0
            per_test = []
            families = N_FAMILIES if name.startswith("null") else max(2, N_FAMILIES // 10)
            for _ in range(families):
                ys, w = sd.arrays(rng, n=438, attribute=attribute, bias=bias, **kw)
                rows = [decide(y, w, m=438, truth=bias) for y in ys]
                kinds = [kind(r["verdict"]) for r in rows]
                diff = [k in ("difference", "different-within") for k in kinds]
                any_diff += any(diff)
                any_eq += any(k == "equivalent" for k in kinds)
                all_cov += all(r["simultaneous"] for r in rows if np.isfinite(r["simultaneous"]))
                per_test.append(np.mean(diff))
            print(f"| {attribute}/all | {name} | {families} | {any_diff / families:.3f} | "
                  f"{any_eq / families:.3f} | {np.mean(per_test):.4f} | {all_cov / families:.3f} |", flush=True)
    section("The old default (bootstrap-t, n_boot = 2000) beside it, m = 1 and 438: p floored at 2/2001")
    print("| design | scenario | m | method | difference | coverage 95 % |")
    print("|---|---|---|---|---|---|")
    n_old = 40 if QUICK else 150
    for name in ("null, names sd .02", "bias .05, tiny noise"):
        bias, kw = scenarios[name]
        ys, w = sd.arrays(rng, n=n_old, attribute="gender", bias=bias, **kw)
        for m in (1, 438):
            for method in ("satterthwaite", "bootstrap-t"):
                rows = [decide(y, w, m=m, method=method, truth=bias, seed=i) for i, y in enumerate(ys)]
                r = rates(rows)
                print(f"| gender/all | {name} | {m} | {method} | {r['difference']:.3f} | {r['covered']:.3f} |",
                      flush=True)
    generic()
    print(f"\n({time.time() - start:.0f} s)")


def generic() -> None:
    """Coverage of the 1 − alpha interval in generic crossed designs (templates, names or residual carrying the
    variance; normal, heavy-tailed t3, skewed, sparse effects; 4 or 11 templates; equal or sentence weights)."""
    section("Coverage of the 95 % interval in generic crossed designs: Satterthwaite t vs bootstrap-t")
    rng = np.random.default_rng(7)
    n = 60 if QUICK else 300

    def draw(kind_: str, sd_: float, shape) -> np.ndarray:
        if kind_ == "normal":
            return rng.normal(0, sd_, shape)
        if kind_ == "t3":
            return sd_ * rng.standard_t(3, shape) / np.sqrt(3)
        if kind_ == "skew":
            return sd_ * (rng.exponential(1, shape) - 1)
        return sd_ * np.where(rng.random(shape) < 0.15, rng.normal(0, 1, shape) / np.sqrt(0.15), 0)

    print("| shape | weights | effects | sd templates, names, residual | Satterthwaite | bootstrap-t |")
    print("|---|---|---|---|---|---|")
    cov_all = {"satterthwaite": [], "bootstrap-t": []}
    for r_, c_, weighted in ((11, 20, False), (11, 11, True), (4, 20, False)):
        w = np.array([20.0] * 7 + [1.0] * 4) if weighted else None
        for kind_ in ("normal", "t3", "skew", "sparse"):
            for sds in ((0.05, 0.02, 0.02), (0.02, 0.05, 0.02), (0.01, 0.01, 0.05)):
                hits = {"satterthwaite": 0, "bootstrap-t": 0}
                for i in range(n):
                    y = 0.03 + draw(kind_, sds[0], (r_, 1)) + draw(kind_, sds[1], (1, c_)) + draw(kind_, sds[2],
                                                                                                    (r_, c_))
                    for method in hits:
                        res = stats.two_way_bootstrap(y, row_weights=w, method=method, n_boot=299, seed=i)
                        hits[method] += res["ci_low"] <= 0.03 <= res["ci_high"]
                for method, hit in hits.items():
                    cov_all[method].append(hit / n)
                print(f"| {r_}×{c_} | {'sentences' if weighted else 'equal'} | {kind_} | {sds} | "
                      f"{hits['satterthwaite'] / n:.3f} | {hits['bootstrap-t'] / n:.3f} |", flush=True)
    for method, values in cov_all.items():
        print(f"{method}: coverage {min(values):.3f}–{max(values):.3f} over {len(values)} designs "
              f"(median {np.median(values):.3f}; {n} replicates each)")


if __name__ == "__main__":
    main()
