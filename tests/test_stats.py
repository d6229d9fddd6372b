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


@pytest.mark.parametrize("method", ["satterthwaite", "bootstrap-t"])
@pytest.mark.parametrize("sd_rows, sd_cols, sd_resid", [
    (0.05, 0.02, 0.02),   # templates carry the variance: the plain percentile bootstrap under-covers here
    (0.02, 0.05, 0.02),   # names carry it
    (0.01, 0.01, 0.05),   # the residual dominates: the pigeonhole variance counts it up to three times
])
def test_two_way_bootstrap_covers_the_true_mean_with_as_few_templates_as_the_eec(sd_rows, sd_cols, sd_resid,
                                                                                 method):
    rng = np.random.default_rng(7)
    truth, covered = 0.03, 0
    for i in range(N_SIM):
        y = _crossed(rng, rows=11, cols=20, sd_rows=sd_rows, sd_cols=sd_cols, sd_resid=sd_resid, mean=truth)
        result = stats.two_way_bootstrap(y, n_boot=499, seed=i, method=method)
        covered += result["ci_low"] <= truth <= result["ci_high"]
    assert 0.91 <= covered / N_SIM <= 0.98, covered / N_SIM


@pytest.mark.parametrize("kind, rows, weights", [("t3", 4, None), ("t3", 11, [20.0] * 7 + [1.0] * 4),
                                                 ("skew", 11, [20.0] * 7 + [1.0] * 4)])
def test_satterthwaite_covers_with_heavy_tails_skew_few_templates_and_sentence_weights(kind, rows, weights):
    """The EEC's neutral subset has 4 templates; its ``all`` subset weighs 7 templates by 20 sentences and 4 by 1.
    (Skewed effects with 4 templates cover 84-90 %: a documented limit, docs/statistics.md.)"""
    rng = np.random.default_rng(17)
    draw = ((lambda sd, shape: sd * rng.standard_t(3, shape) / np.sqrt(3)) if kind == "t3" else
            (lambda sd, shape: sd * (rng.exponential(1.0, shape) - 1.0)))
    covered = 0
    for _ in range(N_SIM):
        y = 0.03 + draw(0.02, (rows, 1)) + draw(0.04, (1, 20)) + draw(0.02, (rows, 20))
        r = stats.two_way_bootstrap(y, row_weights=weights)
        covered += r["ci_low"] <= 0.03 <= r["ci_high"]
    assert 0.91 <= covered / N_SIM <= 0.98, covered / N_SIM


def _anova(y):
    """Mean squares of a two-way array without replication, by hand (for the tests)."""
    r, c = y.shape
    grand = y.mean()
    ms_r = c * ((y.mean(axis=1) - grand) ** 2).sum() / (r - 1)
    ms_c = r * ((y.mean(axis=0) - grand) ** 2).sum() / (c - 1)
    resid = y - y.mean(axis=1, keepdims=True) - y.mean(axis=0, keepdims=True) + grand
    return ms_r, ms_c, (resid ** 2).sum() / ((r - 1) * (c - 1))


def test_satterthwaite_se_df_and_p_match_the_closed_form():
    rng = np.random.default_rng(4)
    y = _crossed(rng, rows=11, cols=20, sd_rows=0.03, sd_cols=0.03, sd_resid=0.01, mean=0.01)
    ms_r, ms_c, ms_e = _anova(y)
    var = (ms_r + ms_c - ms_e) / (11 * 20)
    df = var ** 2 / ((ms_r / 220) ** 2 / 10 + (ms_c / 220) ** 2 / 19 + (ms_e / 220) ** 2 / 190)
    r = stats.two_way_bootstrap(y)
    assert r["se"] == pytest.approx(np.sqrt(var)) and r["df"] == pytest.approx(df)
    t = y.mean() / np.sqrt(var)
    from scipy import stats as sps
    assert r["p_value"] == pytest.approx(2 * sps.t.sf(abs(t), df))
    half = sps.t.ppf(0.975, df) * np.sqrt(var)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((y.mean() - half, y.mean() + half))
    assert r["effect_size"] == pytest.approx(y.mean() / np.sqrt((ms_r - ms_e) / 20 + (ms_c - ms_e) / 11 + ms_e))


def test_a_satterthwaite_p_is_not_floored_by_a_resample_count():
    """Issue 32: a bootstrap p is at least 2/(n_boot + 1); 438 tests need p < 1.1e-4."""
    rng = np.random.default_rng(0)
    y = 0.05 + rng.normal(0, 0.002, (11, 20))
    assert stats.two_way_bootstrap(y)["p_value"] < 1e-12
    assert stats.two_way_bootstrap(y, method="bootstrap-t", n_boot=2000)["p_value"] == pytest.approx(2 / 2001)


def test_verdict_reads_lakens_four_outcomes_and_identical_scores():
    v = stats.verdict
    assert v(estimate=0.05, se=0.001, df=10, p_adjusted=1e-9, p_equivalence=1.0) == "a higher"
    assert v(estimate=-0.05, se=0.001, df=10, p_adjusted=1e-9, p_equivalence=1.0) == "b higher"
    assert v(estimate=0.004, se=0.001, df=10, p_adjusted=1e-3, p_equivalence=1e-4) == "different but within ±0.01"
    assert v(estimate=0.0, se=0.001, df=10, p_adjusted=1.0, p_equivalence=1e-4) == "equivalent within ±0.01"
    assert v(estimate=0.0, se=0.02, df=10, p_adjusted=1.0, p_equivalence=0.6) == "inconclusive"
    assert v(estimate=0.0, se=0.0, df=10, p_adjusted=1.0, identical=True) == stats.IDENTICAL
    # without a corrected equivalence p: TOST at alpha with se and df (the 90 % t interval inside ±m)
    assert v(estimate=0.004, se=0.001, df=10, p_adjusted=1e-3) == "different but within ±0.01"
    assert v(estimate=0.0, se=0.0058, df=10, p_adjusted=1.0) == "inconclusive"  # 1.812 × .0058 > .01
    assert v(estimate=0.0, se=0.0054, df=10, p_adjusted=1.0) == "equivalent within ±0.01"


def test_equivalence_p_and_margin_match_the_tost_closed_form():
    from scipy import stats as sps
    p = stats.equivalence_p(estimate=0.003, se=0.002, df=12, margin=0.01)
    assert p == pytest.approx(max(sps.t.sf(0.013 / 0.002, 12), sps.t.cdf(-0.007 / 0.002, 12)))
    q = sps.t.ppf(0.95, 12)
    assert stats.equivalence_margin(low=0.003 - q * 0.002, high=0.003 + q * 0.002) == pytest.approx(0.003 + q * 0.002)
    # TOST rejects at alpha exactly when the margin exceeds that smallest margin
    smallest = 0.003 + q * 0.002
    assert stats.equivalence_p(estimate=0.003, se=0.002, df=12, margin=smallest * 1.001) < 0.05
    assert stats.equivalence_p(estimate=0.003, se=0.002, df=12, margin=smallest * 0.999) > 0.05


def test_adjust_over_a_family_larger_than_the_tests_at_hand():
    p = [1e-5, 0.01]
    assert stats.adjust(p, method="bonferroni", family_size=438) == pytest.approx([438e-5, 1.0])
    assert stats.adjust(p, method="holm", family_size=438) == pytest.approx([438e-5, 1.0])
    assert stats.adjust(p, method="fdr_bh", family_size=4) == pytest.approx([4e-5 / 1, 0.02])
    with pytest.raises(InputError, match="family_size=1 is smaller"):
        stats.adjust(p, family_size=1)


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
        r = stats.two_way_bootstrap(y, seed=0, margin=0.01)
        p = stats.adjust([r["p_value"], 0.5], method="bonferroni")[0]
        p_eq = stats.adjust([r["p_equivalence"], 0.5], method="bonferroni")[0]
        assert stats.verdict(estimate=r["estimate"], se=r["se"], df=r["df"], p_adjusted=p,
                             p_equivalence=p_eq) == expected


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
    with pytest.raises(UnknownNameError, match="bootstrap-t, percentile, satterthwaite"):
        stats.two_way_bootstrap(np.zeros((3, 3)) + np.arange(3), method="bca")


def test_row_weighted_bootstrap_gives_the_sentence_weighted_mean_and_a_bracketing_interval():
    """The EEC's ``all`` subset: 7 templates of 20 sentences and 4 of 1; the paper's mean Δ weights sentences.
    (The bootstrap-t covers 87-93 % in this design; the Satterthwaite t, the default, 91-98 %.)"""
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
    result = stats.two_way_bootstrap(y, seed=0, method="bootstrap-t")
    assert result["method"] == "percentile (bootstrap-t undefined)"
    assert result["estimate"] == pytest.approx(0.01)
    assert 0 <= result["ci_low"] <= result["estimate"] <= result["ci_high"] <= 0.2


def test_one_name_alone_moving_the_score_has_a_t_interval_with_the_names_df_and_counts_the_still_names():
    y = np.zeros((11, 20))
    y[:, 3] = 0.2
    r = stats.two_way_bootstrap(y)
    assert r["df"] == pytest.approx(19) and r["estimate"] == pytest.approx(0.01)
    assert r["se"] == pytest.approx(np.sqrt(0.2 ** 2 / 20 / 20))  # sd of the names / √20
    assert r["n_cols_zero"] == 19 and not r["identical"]
    zero = stats.two_way_bootstrap(np.zeros((11, 20)), margin=0.01)
    assert zero["identical"] and zero["p_value"] == 1.0 and np.isnan(zero["effect_size"])


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


def test_stats_rate_difference_against_a_zero_rate_warns_nothing():
    """A zero rate on one side (a BTC-SAM group without failures) gives its p and interval without the divide-by-zero
    warnings statsmodels raises forming ratios this test does not use (they read as failures in a notebook)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = stats.rate_difference(3, 10, 0, 10)
    assert result["estimate"] == pytest.approx(0.3) and 0 < result["p_value"] < 1
    assert result["ci_low"] < 0.3 < result["ci_high"]
