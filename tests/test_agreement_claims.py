"""Which numbers of models can support an agreement claim: ``agreement.claim_support`` against scipy's exact Kendall
p, and by simulation (benchmarks/agreement_claims.py) how often the study claims agreement for m = 4…12 models."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import kendalltau

from toolkit.errors import InputError
from toolkit.studies.agreement import claim_support, claim_table


def _simulation():
    from conftest import benchmark_module

    return benchmark_module("agreement_claims")


def _smallest_significant_by_scipy(m: int, alpha: float) -> float:
    """The smallest |τ| with scipy's exact two-sided p < alpha, over orderings with every inversion count."""
    best = np.nan
    x = np.arange(m)
    for inversions in range(m * (m - 1) // 2 + 1):
        y = list(range(m))
        left = inversions
        for i in range(m):  # a permutation with this many inversions: move later items forward greedily
            j = i
            while left and j > 0 and y[j - 1] < y[j]:
                y[j - 1], y[j] = y[j], y[j - 1]
                j, left = j - 1, left - 1
        result = kendalltau(x, y, method="exact")
        if result.pvalue < alpha and not abs(result.statistic) >= best:
            best = abs(result.statistic)
    return float(best)


@pytest.mark.parametrize("m", [3, 4, 5, 6, 7, 8, 9, 10, 12])
def test_agreement_claim_support_matches_scipys_exact_kendall_p(m):
    found = claim_support(n_models=m, alpha=0.05)
    expected = _smallest_significant_by_scipy(m, 0.05)
    assert found["claim_possible"] == bool(np.isfinite(expected))
    if found["claim_possible"]:
        assert found["min_abs_tau"] == pytest.approx(expected)
    else:
        assert np.isnan(found["min_abs_tau"])
    assert found["null_sd"] == pytest.approx(np.sqrt(2 * (2 * m + 5) / (9 * m * (m - 1))))


@pytest.mark.parametrize("m", [5, 6, 8, 12])
def test_the_first_claim_under_holm_over_six_pairs_matches_scipys_exact_kendall_p(m):
    """Four studies, 6 pairs: Holm's first step (and every Bonferroni claim) needs p < .05/6; what |τ| that takes
    for m models, from scipy's exact p (5 models: none; 6: only τ = ±1)."""
    found = claim_support(n_models=m, alpha=0.05 / 6)
    expected = _smallest_significant_by_scipy(m, 0.05 / 6)
    assert found["claim_possible"] == bool(np.isfinite(expected))
    if found["claim_possible"]:
        assert found["min_abs_tau"] == pytest.approx(expected)
    assert (m != 5 or not found["claim_possible"]) and (m != 6 or found["min_abs_tau"] == 1)


def _family():
    from conftest import benchmark_module

    return benchmark_module("agreement_family")


def test_holm_over_the_pairs_holds_the_family_wise_error_in_the_studys_design():
    """4 studies, 8 models (``make figures``' agreement run), 80 simulated studies per truth: unrelated studies'
    pairs are claimed by Holm in at most about alpha of the runs, and uncorrected more often than by Holm (the
    benchmark's 400 runs: docs/statistics.md); a true pair keeps some power."""
    sim = _family()
    independent = sim.rates(8, truth="independent", runs=80, seed=1)
    assert independent["holm"]["fwer"] <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 80)
    assert independent["none"]["fwer"] >= independent["holm"]["fwer"]
    two = sim.rates(8, truth="two agree", runs=80, seed=1)
    assert two["holm"]["fwer"] <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 80)
    assert two["none"]["power"] >= two["holm"]["power"] >= two["bonferroni"]["power"] > 0

    """Kendall's table of critical S (two-sided 5 %): 6 models S = 13 of 15, 8 models 18 of 28, 10 models 23 of 45."""
    table = claim_table(n_models=[4, 5, 6, 8, 10], alpha=0.05).set_index("n_models")
    assert not table.loc[4, "claim_possible"] and table.loc[5, "p_at_min"] == pytest.approx(2 / 120)
    assert table.loc[[6, 8, 10], "min_abs_tau"].tolist() == pytest.approx([13 / 15, 18 / 28, 23 / 45])
    permutations = list(itertools.permutations(range(5)))  # 5 models: only τ = ±1 reaches p < .05
    assert sum(abs(kendalltau(range(5), p).statistic) >= 1 for p in permutations) / len(permutations) < 0.05
    with pytest.raises(InputError):
        claim_support(n_models=1)
    with pytest.raises(InputError):
        claim_support(n_models=6, alpha=1.5)


def _rates(runs: int, *, seed: int = 3) -> dict[int, tuple[dict, dict]]:
    sim = _simulation()
    return {m: (sim.claims(m, s=0.5, runs=runs, seed=seed), sim.claims(m, s=None, runs=runs, seed=seed))
            for m in range(4, 13)}


def test_agreement_claims_by_simulation_never_below_the_minimum():
    """m = 4…12 models whose two studies' measures agree at population τ = 0.59 (and independent ones), 40 runs
    each (~20 s): no claim where ``claim_support`` says none is possible (4 models), every claim at |τ| ≥ the
    minimum, the claim rate rising with m, and false claims near alpha at most."""
    found = _rates(40)
    for m, (agree, none) in found.items():
        support = claim_support(n_models=m)
        if not support["claim_possible"]:
            assert agree["claim_rate"] == 0 and none["claim_rate"] == 0
        else:
            assert np.isnan(agree["smallest_claimed_tau"]) or agree["smallest_claimed_tau"] >= \
                support["min_abs_tau"] - 1e-9
        assert none["claim_rate"] <= 0.15  # one-sided claims of independent rankings: about alpha / 2
    assert found[12][0]["claim_rate"] > found[6][0]["claim_rate"] >= found[4][0]["claim_rate"] == 0
    assert found[12][0]["claim_rate"] >= 0.6


@pytest.mark.slow
def test_agreement_claims_by_simulation_full():
    """The docs' table (the benchmark's seed): 300 runs per m and truth."""
    found = _rates(300, seed=0)
    for m, (agree, none) in found.items():
        if not claim_support(n_models=m)["claim_possible"]:
            assert agree["claim_rate"] == 0
        assert none["claim_rate"] <= 0.05
