"""toolkit.stats on synthetic data whose truth is known: interval coverage over seeded simulations, TOST verdicts,
null baselines, Kendall's τ, corrections checked against hand-computed values."""
from __future__ import annotations

import numpy as np
import pytest

from toolkit import stats
from toolkit.errors import InputError, UnknownNameError

N_SIM = 400


def _crossed(rng, *, rows: int, cols: int, sd_rows: float, sd_cols: float, sd_resid: float, mean: float):
    return (mean + rng.normal(0, sd_rows, (rows, 1)) + rng.normal(0, sd_cols, (1, cols))
            + rng.normal(0, sd_resid, (rows, cols)))


@pytest.mark.parametrize("sd_rows, sd_cols, sd_resid", [
    (0.05, 0.02, 0.02),   # templates carry the variance: the plain percentile bootstrap under-covers here
    (0.02, 0.05, 0.02),   # names carry it
    (0.01, 0.01, 0.05),   # the residual dominates: the pigeonhole variance counts it up to three times
])
def test_two_way_bootstrap_covers_the_true_mean_with_as_few_templates_as_the_eec(sd_rows, sd_cols, sd_resid):
    rng = np.random.default_rng(7)
    truth, covered = 0.03, 0
    for i in range(N_SIM):
        y = _crossed(rng, rows=11, cols=20, sd_rows=sd_rows, sd_cols=sd_cols, sd_resid=sd_resid, mean=truth)
        result = stats.two_way_bootstrap(y, n_boot=499, seed=i)
        covered += result["ci_low"] <= truth <= result["ci_high"]
    assert 0.91 <= covered / N_SIM <= 0.98, covered / N_SIM


def test_two_way_interval_is_wider_than_the_sentence_level_one_when_templates_vary():
    rng = np.random.default_rng(3)
    y = _crossed(rng, rows=11, cols=20, sd_rows=0.05, sd_cols=0.01, sd_resid=0.01, mean=0.0)
    two_way = stats.two_way_bootstrap(y, seed=0)
    flat = stats.paired_t(y.ravel())
    assert (two_way["ci_high"] - two_way["ci_low"]) > 3 * (flat["ci_high"] - flat["ci_low"])
    parts = stats.variance_components(y)
    assert parts["share_template"] > 0.8 and parts["se_two_way"] > 3 * parts["se_sentences"]


def test_variance_components_recover_known_variances():
    rng = np.random.default_rng(11)
    found = [stats.variance_components(_crossed(rng, rows=40, cols=40, sd_rows=0.03, sd_cols=0.02, sd_resid=0.01,
                                                mean=0.0)) for _ in range(50)]
    assert np.mean([f["var_template"] for f in found]) == pytest.approx(0.03 ** 2, rel=0.15)
    assert np.mean([f["var_name"] for f in found]) == pytest.approx(0.02 ** 2, rel=0.15)
    assert np.mean([f["var_residual"] for f in found]) == pytest.approx(0.01 ** 2, rel=0.05)


def test_wilson_interval_covers_the_true_proportion():
    rng = np.random.default_rng(5)
    for p, n in ((0.1, 50), (0.5, 30), (0.02, 400)):
        covered = 0
        for _ in range(N_SIM):
            k = int(rng.binomial(n, p))
            _, low, high = stats.wilson(k, n)
            covered += low <= p <= high
        assert 0.91 <= covered / N_SIM <= 0.98, (p, n, covered / N_SIM)


def test_wilson_matches_the_closed_form():
    rate, low, high = stats.wilson(3, 10)
    z = 1.959963984540054
    centre = (0.3 + z * z / 20) / (1 + z * z / 10)
    half = z / (1 + z * z / 10) * np.sqrt(0.3 * 0.7 / 10 + z * z / 400)
    assert rate == 0.3 and low == pytest.approx(centre - half) and high == pytest.approx(centre + half)


def test_tost_says_equivalent_for_a_name_blind_model_and_a_higher_for_an_injected_bias():
    rng = np.random.default_rng(0)
    blind = rng.normal(0, 0.002, (11, 20))
    biased = blind + 0.05
    for y, expected in ((blind, "equivalent within ±0.01"), (biased, "a higher"), (-biased, "b higher")):
        r = stats.two_way_bootstrap(y, seed=0)
        p = stats.adjust([r["p_value"], 0.5], method="bonferroni")[0]
        assert stats.verdict(estimate=r["estimate"], se=r["se"], df=10, p_adjusted=p) == expected


def test_noisy_small_sample_is_inconclusive():
    y = np.array([0.03, -0.04, 0.05, -0.02, 0.01])
    r = stats.paired_t(y)
    assert stats.verdict(estimate=r["estimate"], se=r["se"], df=r["df"], p_adjusted=r["p_value"]) == "inconclusive"


def test_paired_t_matches_scipy_and_gives_d_z():
    d = np.array([0.1, 0.2, 0.15, 0.05, 0.12])
    r = stats.paired_t(d)
    assert r["estimate"] == pytest.approx(0.124)
    assert r["effect_size"] == pytest.approx(0.124 / np.std(d, ddof=1))
    half = 2.7764451051977987 * np.std(d, ddof=1) / np.sqrt(5)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((0.124 - half, 0.124 + half))


def test_adjust_methods_against_hand_computed_values():
    p = [0.01, 0.04, 0.03, 0.5]
    assert stats.adjust(p, method="bonferroni") == pytest.approx([0.04, 0.16, 0.12, 1.0])
    assert stats.adjust(p, method="holm") == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert stats.adjust(p, method="fdr_bh") == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.5])
    assert np.isnan(stats.adjust([np.nan, 0.01], method="bonferroni")[0])
    with pytest.raises(UnknownNameError, match="bonferroni, fdr_bh, holm"):
        stats.adjust(p, method="sidak")


def _flip_counts(rng, *, bias: float, n_templates: int = 300, names: int = 6):
    """BTC counts of a synthetic model over templates × names of two classes: each name shifts the score by its own
    random amount (name-sensitive), the first class by ``bias`` more; a BTC is a pair on two sides of 0.5."""
    between = within = n_between = n_within = 0
    for _ in range(n_templates):
        base = rng.normal(0.5, 0.05)
        shift = rng.normal(0, 0.05, 2 * names)
        shift[:names] += bias
        label = (base + shift) >= 0.5
        a, b = label[:names], label[names:]
        between += int(np.sum(a[:, None] != b[None, :]))
        n_between += names * names
        for cls in (a, b):
            within += int(sum(cls[i] != cls[j] for i in range(names) for j in range(i + 1, names)))
            n_within += names * (names - 1) // 2
    return between, n_between, within, n_within


def test_placebo_rate_equals_the_between_class_rate_for_an_unbiased_name_sensitive_model():
    rng = np.random.default_rng(1)
    unbiased = stats.rate_difference(*_flip_counts(rng, bias=0.0))
    assert unbiased["rate_a"] > 0.2  # name-sensitive: many BTCs either way
    assert unbiased["ci_low"] <= 0 <= unbiased["ci_high"]
    biased = stats.rate_difference(*_flip_counts(rng, bias=0.06))
    assert biased["ci_low"] > 0 and biased["rate_a"] > biased["rate_b"]


def test_kendall_tau_is_one_when_two_studies_rank_by_the_same_bias():
    bias = np.array([0.01, 0.05, 0.02, 0.08, 0.03])
    r = stats.kendall_tau(bias * 2 + 0.1, np.sqrt(bias), seed=0)
    assert r["tau"] == pytest.approx(1.0) and r["ci_low"] == pytest.approx(1.0)
    assert stats.kendall_tau(bias, -bias)["tau"] == pytest.approx(-1.0)


def test_kappa_interval_brackets_kappa():
    a = ["y", "y", "n", "n", "y", "n", "y", "y", "n", "y"] * 3
    b = ["y", "n", "n", "n", "y", "n", "y", "y", "y", "y"] * 3
    kappa, low, high = stats.kappa_interval(a, b, seed=0)
    assert low < kappa < high and kappa == pytest.approx(0.5833333, abs=1e-6)


def test_bad_arguments_are_coded_errors():
    with pytest.raises(InputError, match="at least 2 differences"):
        stats.paired_t([0.1])
    with pytest.raises(InputError, match="margin must be positive"):
        stats.verdict(estimate=0.0, se=0.01, df=10, p_adjusted=1.0, margin=0)
    with pytest.raises(UnknownNameError, match="bootstrap-t, percentile"):
        stats.two_way_bootstrap(np.zeros((3, 3)) + np.arange(3), method="bca")


def test_row_weighted_bootstrap_gives_the_sentence_weighted_mean_and_a_bracketing_interval():
    """The EEC's ``all`` subset: 7 templates of 20 sentences and 4 of 1; the paper's mean Δ weights sentences.
    (Its coverage in this design, 89-93 % over seeds, is below the equal-weight default's: not the default.)"""
    rng = np.random.default_rng(21)
    weights = np.array([20.0] * 7 + [1.0] * 4)
    y = _crossed(rng, rows=11, cols=11, sd_rows=0.04, sd_cols=0.02, sd_resid=0.02, mean=0.03)
    result = stats.two_way_bootstrap(y, row_weights=weights)
    assert result["estimate"] == pytest.approx(float((weights * y.mean(axis=1)).sum() / weights.sum()))
    assert result["ci_low"] < result["estimate"] < result["ci_high"]
    with pytest.raises(InputError, match="row_weights must be 11"):
        stats.two_way_bootstrap(y, row_weights=[1.0, 2.0])


def test_one_name_alone_moving_the_score_falls_back_to_a_finite_percentile_interval():
    y = np.zeros((11, 20))
    y[:, 3] = 0.2  # one name shifts every template: replicates that miss it have no variance
    result = stats.two_way_bootstrap(y, seed=0)
    assert result["method"] == "percentile (bootstrap-t undefined)"
    assert result["estimate"] == pytest.approx(0.01)
    assert 0 <= result["ci_low"] <= result["estimate"] <= result["ci_high"] <= 0.2


def test_variance_shares_of_a_constant_array_are_nan():
    parts = stats.variance_components(np.full((11, 20), -0.05))
    assert np.isnan(parts["share_template"]) and np.isnan(parts["share_residual"])


def test_wilson_bounds_never_exclude_the_rate_through_float_noise():
    rate, low, high = stats.wilson(0, 2812)
    assert rate == 0.0 and low == 0.0 < high
    rate, low, high = stats.wilson(2812, 2812)
    assert rate == 1.0 and high == 1.0 > low


def test_kappa_interval_resamples_whole_groups_when_items_come_in_pairs():
    """A BTC's two mutants are labelled together: resampling them apart treats 2n correlated items as independent."""
    a = ["y", "y", "n", "n", "y", "n", "y", "y", "n", "y"] * 2
    b = ["y", "n", "n", "n", "y", "n", "y", "y", "y", "y"] * 2
    groups = list(range(10)) * 2  # each item twice: one group per duplicated pair
    _, low, high = stats.kappa_interval(a, b, seed=0)
    _, g_low, g_high = stats.kappa_interval(a, b, seed=0, groups=groups)
    assert (g_high - g_low) > 1.2 * (high - low)
