"""BiasFinder's BTC-rate statistics in BiasFinder's own design (issue 32): every template filled with the SAME
names, 60 templates, 10 or 30 names per class; simulated models whose truth is known (tests/synthetic_bias.py),
run through :func:`toolkit.studies.biasfinder.analysis.rates`. Each simulated run is one model of one scored table, so one
call decides them all. Bounds allow the Monte-Carlo error of the run counts (docs/statistics.md has the larger
simulation, benchmarks/stats_simulation.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from synthetic_bias import biasfinder_names_and_nouns, biasfinder_same_names

from toolkit.studies.biasfinder import analysis as study
from toolkit.studies.biasfinder import btc_rates


def _runs(n: int, **design) -> pd.DataFrame:
    return pd.concat([biasfinder_same_names(seed=s, model=f"run{s:03d}", **design) for s in range(n)],
                     ignore_index=True)


@pytest.mark.parametrize("n_names", [10, 30])
def test_a_name_sensitive_unbiased_model_is_rejected_near_alpha_with_the_same_names(n_names):
    """The template-only bootstrap (names fixed) read the names' own effects as bias in 52-60 % of runs; the
    permutation of names between classes rejects near alpha (40 runs: 5 % ± 3.4 %)."""
    scored = _runs(40, n_names=n_names)
    table = study.rates(scored, n_boot=200)
    rejected = (table["p_value"] < 0.05).mean()
    assert rejected <= 0.125
    assert (table["p_method"].str.startswith("names permuted")).all()
    # the excess interval holds the true excess (0) exactly where the p does not reject it
    holds_zero = (table["ci_low"] <= 0) & (0 <= table["ci_high"])
    assert (holds_zero == (table["p_value"] >= 0.05)).all()
    old = study.rates(scored, n_boot=200, interval="templates")
    assert (old["p_value"] < 0.05).mean() >= 0.3  # the bug this replaces, on the same runs


def test_a_real_bias_is_still_found_with_the_same_names():
    """+0.05 on every female name's score (name sd 0.05): found in most runs (power, 30 names per class)."""
    table = study.rates(_runs(20, n_names=30, delta=0.05, name_sd=0.05), n_boot=200)
    assert (table["p_value"] < 0.05).mean() >= 0.7
    assert (table["estimate"] > 0).all()


def _true_rate_between(*, name_sd: float, template_sd: float, residual_sd: float) -> float:
    """P(two mutants of different classes get different labels) in the population of templates and names."""
    rng = np.random.default_rng(12345)
    n = 1_000_000
    base = 0.5 + rng.normal(0, template_sd, n)
    a = base + rng.normal(0, name_sd, n) + rng.normal(0, residual_sd, n) >= 0.5
    b = base + rng.normal(0, name_sd, n) + rng.normal(0, residual_sd, n) >= 0.5
    return float(np.mean(a != b))


@pytest.mark.parametrize("n_templates,method", [(8, "two-way SE, t(7)"), (12, "two-way percentile")])
def test_few_templates_the_rate_interval_still_covers(n_templates, method):
    """Templates carry the variance (template sd 0.3, names 0.02): the template bootstrap covered 76 % with 5
    templates and 84 % with 10; the interval the study picks for so few covers 91-98 % (100 runs: ± 2.8 %)."""
    design = dict(name_sd=0.02, template_sd=0.3, residual_sd=0.1)
    truth = _true_rate_between(**design)
    table = study.rates(_runs(100, n_templates=n_templates, **design), n_boot=200)
    assert table["ci_method"].str.startswith(f"rate: {method}; excess: {method} + inverted permutation").all()
    covered = ((table["rate_low"] <= truth) & (truth <= table["rate_high"])).mean()
    assert 0.87 <= covered <= 0.99


def test_below_the_minimum_of_templates_no_interval_and_the_reason():
    table = study.rates(biasfinder_same_names(n_templates=3), n_boot=100, few_templates="none")
    row = table.iloc[0]
    assert np.isnan(row["rate_low"]) and np.isnan(row["ci_low"]) and np.isnan(row["null_low"])
    assert "3 template(s): fewer than 8" in row["no_interval_reason"] and row["excess_scope"] == ""
    assert np.isfinite(row["p_value"])  # the permutation test needs no more templates


def test_below_the_minimum_of_templates_the_names_bootstrap_given_them():
    row = study.rates(biasfinder_same_names(n_templates=3, delta=0.1), n_boot=200).iloc[0]
    assert row["excess_scope"] == "names, given 3 templates" and row["no_interval_reason"] == ""
    assert row["ci_method"] == ("rate: names bootstrap given the 3 templates; excess: names bootstrap given the 3 "
                                "templates + inverted permutation test, 0 by the p")
    for low, value, high in (("rate_low", "rate_between", "rate_high"), ("null_low", "rate_within", "null_high"),
                             ("ci_low", "estimate", "ci_high")):
        assert row[low] <= row[value] <= row[high] and row[low] < row[high]
    assert (row["ci_low"] > 0) == (row["p_value"] < 0.05)  # one family of tests with the p, as with 8 or more


def test_below_the_minimum_of_templates_too_few_names_or_no_spread_say_why():
    few = study.rates(biasfinder_same_names(n_templates=2, n_names=9), n_boot=100).iloc[0]
    assert np.isnan(few["ci_low"]) and "fewer than 10 names in a class" in few["no_interval_reason"]
    three = biasfinder_same_names(n_templates=2, n_names=30)
    three = three.assign(group=np.where(three["fill"].str.endswith(("0", "1", "2")), "third", three["group"]),
                         label="positive")
    row = study.rates(three, n_boot=100).iloc[0]
    assert np.isnan(row["ci_low"]) and btc_rates.SAME_LABELS in row["no_interval_reason"]


def test_every_name_of_a_class_alike_the_clopper_pearson_bounds_by_hand():
    """make figures' svm-unigrams: in the one template with a null every female name gives one label and every male
    name the other, so the names bootstrap has no spread. With n = 30 names per class all alike the share of the
    class's label is at least b = (0.05 / 2)^(1/30) (Clopper-Pearson, one-sided, Bonferroni over 2 bounds); in one
    template, whatever the model's other labels, two names of different classes disagree with chance at least
    1 − 2a(1 − a) and two of one class at most 1 − a² (a: each class's share of its label), so the excess is at
    least 3b² − 2b (at a = b) and at most 1; the null lies in [0, 1 − b²]."""
    split = biasfinder_same_names(n_templates=1, n_names=30)
    split = split.assign(label=np.where(split["group"] == "female", "positive", "negative"))
    row = study.rates(split, n_boot=200).iloc[0]
    b = 0.025 ** (1 / 30)
    assert row["estimate"] == 1.0 and row["ci_low"] == pytest.approx(3 * b * b - 2 * b, abs=2e-3)
    assert row["ci_high"] == pytest.approx(1.0) and row["p_value"] < 0.01 and row["verdict"] == "a higher"
    assert row["null_low"] == pytest.approx(0.0) and row["null_high"] == pytest.approx(1 - b * b, abs=2e-3)
    assert row["ci_method"].startswith("rate: Clopper-Pearson given the 1 template, each class alike")
    alike = split.assign(label="neutral")  # no BTC at all (a three-label model's neutral): 0 is inside, the
    row = study.rates(alike, n_boot=200).iloc[0]  # excess at most (1 − b)², the rate at most 1 − b²
    assert row["estimate"] == 0 and row["ci_low"] <= 0 and row["ci_high"] == pytest.approx((1 - b) ** 2, abs=2e-3)
    assert row["rate_high"] == pytest.approx(1 - b * b, abs=2e-3) and row["verdict"] == "inconclusive"


def test_given_the_templates_no_equivalence_is_claimed():
    """Review: one template, 10 names a class, every male name positive and 9 of 10 female names too. A female share
    of 0.75 (true excess 0.0625, past a margin of 0.05) gives that with chance 0.24, yet the names bootstrap's SE
    and the permuted excesses collapse near 0, and the verdict read "equivalent within ±0.05". Given the templates
    no equivalence is claimed: the interval reaches past the margin and the verdict is inconclusive."""
    one = biasfinder_same_names(n_templates=1, n_names=10)
    one = one.assign(label=np.where(one["fill"] == "female0", "negative", "positive"))
    row = study.rates(one, n_boot=1000, margin=0.05).iloc[0]
    assert row["excess_scope"] == "names, given 1 template" and row["ci_high"] > 0
    assert row["verdict"] == "inconclusive"


@pytest.mark.parametrize("interval", ["cluster", "cluster-bootstrap", "templates", "pairs"])
@pytest.mark.parametrize("few_templates", ["names", "none"])
def test_the_rate_on_the_null_templates_and_its_interval(interval, few_templates):
    """``rate_matched`` is the BTCs over the pairs of the templates with a within-class pair (by hand from the
    pair counts), so estimate = rate_matched − rate_within; its interval exists exactly where the null's does and
    holds it."""
    one = biasfinder_same_names(n_templates=1, n_names=12, delta=0.1, seed=3)
    pronouns = biasfinder_same_names(n_templates=9, n_names=1, delta=0.1, seed=4)
    table = pd.concat([one, pronouns.assign(case_id="p" + pronouns["case_id"], fill=pronouns["fill"] + "p")])
    row = study.rates(table, n_boot=200, interval=interval, few_templates=few_templates).iloc[0]
    pairs = study.pair_counts(table).set_index("case_id")
    assert row["rate_matched"] == pairs.loc["t0", "btcs_between"] / pairs.loc["t0", "pairs_between"]
    assert row["rate_matched"] != row["rate_between"]  # the 9 one-pair templates count in the rate, not here
    assert row["estimate"] == pytest.approx(row["rate_matched"] - row["rate_within"])
    assert np.isnan(row["matched_low"]) == np.isnan(row["null_low"])
    if np.isfinite(row["matched_low"]):
        assert row["matched_low"] <= row["rate_matched"] <= row["matched_high"]


def test_a_class_split_between_labels_is_not_bounded_as_alike():
    """Review: female names split between positive and neutral, every male name negative: the between-class rate
    has no bootstrap spread, yet no class is alike, so no Clopper-Pearson claim and no zero-width interval."""
    d = biasfinder_same_names(n_templates=1, n_names=30)
    label = np.where(d["group"] == "male", "negative",
                     np.where(d["fill"].str[-1].isin(list("01234")), "neutral", "positive"))
    row = study.rates(d.assign(label=label), n_boot=200).iloc[0]
    assert "Clopper-Pearson" not in row["ci_method"] and np.isnan(row["matched_low"])
    assert btc_rates.SAME_LABELS in row["no_interval_reason"]
    assert row["null_low"] < row["null_high"]  # the null has its spread and its interval


def _true_given_templates(seed: int, *, n_templates: int, delta: float, name_sd: float, template_sd: float,
                          residual_sd: float) -> float:
    """The excess (between − within) for a population of names in run ``seed``'s templates, by hand: in a template
    with effect t a female name's label is positive with p_f = Φ((t + δ) / s), a male's with p_m = Φ(t / s),
    s² = name sd² + residual sd²; between − within = p_f(1 − p_m) + p_m(1 − p_f) − p_f(1 − p_f) − p_m(1 − p_m)
    = (p_f − p_m)², averaged over the templates (equal pairs in each)."""
    from scipy.stats import norm

    template = np.random.default_rng(seed).normal(0, template_sd, n_templates)  # the generator's first draw
    s = np.hypot(name_sd, residual_sd)
    return float(np.mean((norm.cdf((template + delta) / s) - norm.cdf(template / s)) ** 2))


def test_one_template_the_interval_given_it_covers_the_excess_of_these_templates():
    """make figures' design: the null rests on one template with 30 names per class. Names carry the variance,
    +0.10 on female names: the names bootstrap given the template joined with the inverted permutation test
    covered the template's own excess in 93.0 % of 200 runs (benchmarks/biasfinder_few_templates.txt); the
    permutation test alone, inverted, in 63 %. 60 runs here (± 3.3 %)."""
    design = dict(name_sd=0.15, template_sd=0.15, residual_sd=0.05)
    table = study.rates(_runs(60, n_templates=1, n_names=30, delta=0.1, **design), n_boot=200)
    truth = np.array([_true_given_templates(s, n_templates=1, delta=0.1, **design) for s in range(60)])
    has = table["ci_low"].notna().to_numpy()
    assert has.mean() >= 0.9 and (table["excess_scope"][has] == "names, given 1 template").all()
    covered = ((table["ci_low"] <= truth) & (truth <= table["ci_high"]))[has].mean()
    assert 0.82 <= covered <= 1.0


def test_rows_without_a_null_say_why():
    one = biasfinder_same_names(n_templates=12, n_names=1).assign(attribute="country")
    row = study.rates(one, n_boot=100).iloc[0]
    assert np.isnan(row["p_value"]) and np.isnan(row["estimate"]) and row["verdict"] == "inconclusive"
    assert row["no_test_reason"].startswith("no within-class pair") and "n_country_names >= 2" in row["no_test_reason"]
    assert np.isfinite(row["rate_low"])  # the rate itself still has its interval


def test_the_two_way_replicate_of_the_data_is_the_data():
    """Drawing every template and name once reproduces pair_counts' sums (the replicate arithmetic is right)."""
    scored = biasfinder_same_names(n_templates=7, n_names=4, seed=3)
    scored.loc[scored.index[:5], "label"] = "neutral"  # three labels
    design = btc_rates._pair_design(scored)
    sums = btc_rates._pair_sums(design["x"], btc_rates._one_hot(design["name_class"], 2)[None])
    counts = study.pair_counts(scored).set_index("case_id").loc[list(design["templates"])]
    for column in ("pairs_between", "btcs_between", "pairs_within", "btcs_within"):
        assert sums[column][0].tolist() == counts[column].tolist()


def test_fresh_names_per_template_are_permuted_within_their_template():
    """Names that fill one template each form one block per template; shared names form one block."""
    shared = btc_rates._pair_design(biasfinder_same_names(n_templates=4, n_names=3))
    assert [len(b) for b in btc_rates._name_blocks(shared["x"])] == [6]
    fresh = biasfinder_same_names(n_templates=4, n_names=3)
    fresh["fill"] = fresh["case_id"] + fresh["fill"]
    blocks = btc_rates._name_blocks(btc_rates._pair_design(fresh)["x"])
    assert sorted(len(b) for b in blocks) == [6, 6, 6, 6]


def test_btc_rates_verdict_and_interval_agree_and_the_interval_covers():
    """A small bias (+0.05 on female scores, name sd 0.05, 20 templates, 30 names per class): the two-way bootstrap
    interval held 0 in 53-61 % of the runs the p called biased; the interval now is one family of tests with the p
    (0 inside exactly when p ≥ alpha), keeps the p (and its power), and still covers the population excess (0.024,
    Monte Carlo; 30 runs, expected ~95 %)."""
    scored = _runs(30, n_templates=20, n_names=30, delta=0.05, name_sd=0.05)
    table = study.rates(scored, n_boot=200)
    before = study.rates(scored, n_boot=200, interval="cluster-bootstrap")
    assert table["p_value"].tolist() == before["p_value"].tolist()
    holds_zero = (table["ci_low"] <= 0) & (0 <= table["ci_high"])
    assert (holds_zero == (table["p_value"] >= 0.05)).all()
    assert not holds_zero[table["verdict"] == "a higher"].any()
    assert ((before["ci_low"] <= 0) & (table["p_value"] < 0.05)).any()  # the disagreement this removes
    truth = 0.0242  # benchmarks/stats_simulation.py's _truth(0.05, name_sd=0.05, template_sd=0.15, residual_sd=0.05)
    assert ((table["ci_low"] <= truth) & (truth <= table["ci_high"])).mean() >= 0.85
    assert (table["ci_low"] <= table["estimate"]).all() and (table["estimate"] <= table["ci_high"]).all()


def test_btc_rates_shifted_draws_are_the_draws_of_the_shifted_pairs():
    """The inverted permutation test's slope: a draw's excess after every observed between-class pair's
    disagreement is lowered by δ equals permuted − δ · slope, checked against the pairs listed one by one."""
    scored = biasfinder_same_names(n_templates=5, n_names=4, seed=2, name_sd=0.3)
    design = btc_rates._pair_design(scored)
    x, cls = design["x"], design["name_class"]
    codes = np.random.default_rng(1).permutation(cls)
    member = btc_rates._one_hot(codes, 2)[None]
    ones = np.ones(x.shape[1])
    rates = btc_rates._rates_of(btc_rates._pair_sums(x, member), ones[None], ones)[0]
    as_labels = x.sum(axis=2)[:, :, None] * btc_rates._one_hot(cls, 2)[:, None, :]
    overlap = btc_rates._rates_of(btc_rates._pair_sums(as_labels, member), ones[None], ones)[0]
    label = x.argmax(axis=2)
    n = len(cls)
    for delta in (-0.2, 0.0, 0.13):
        between, within = [], []
        for t in range(x.shape[1]):
            for i in range(n):
                for j in range(i + 1, n):
                    d = float(label[i, t] != label[j, t]) - delta * float(cls[i] != cls[j])
                    (between if codes[i] != codes[j] else within).append(d)
        by_hand = np.mean(between) - np.mean(within)
        assert (rates[1] - rates[2]) - delta * (overlap[1] - overlap[2]) == pytest.approx(by_hand, abs=1e-12)


def test_btc_rates_inverted_interval_is_the_set_of_shifts_the_test_accepts():
    """The closed-form ends equal a fine grid of δ tested one by one with the same draws."""
    rng = np.random.default_rng(4)
    permuted, slope = rng.normal(0, 0.02, 399), rng.uniform(-0.4, 0.4, 399)
    for observed in (0.05, -0.01, 0.0):
        low, high = btc_rates._inverted_interval(observed, permuted, slope, alpha=0.05)
        grid = np.linspace(-0.2, 0.3, 20001)
        extreme = np.abs(permuted[None] - grid[:, None] * slope[None]) >= np.abs(observed - grid)[:, None] - 1e-12
        accepted = grid[(1 + extreme.sum(axis=1)) / 400 >= 0.05]
        assert low == pytest.approx(accepted.min(), abs=3e-5) and high == pytest.approx(accepted.max(), abs=3e-5)
        assert (low <= 0 <= high) == (btc_rates._permutation_p(observed, permuted) >= 0.05)


def test_every_noun_times_every_name_would_read_shared_names_as_bias_and_the_rates_keep_the_own_pair():
    """The paper preset fills a template with a name and a noun with every name × every noun of the class
    (BiasFinder's noun_fills="all"): within a class, mutants share a name or a noun, across classes never, so a
    model with no class effect (nouns without any effect here) shows an excess on every row — with 12 such templates
    69 % of runs rejected, 16 % in the preset's design with one (benchmarks/biasfinder_noun_fills.py). rates() reads
    such a template's own noun pair only (rate_rows: "crossed" rows set aside), the design validated above; Table
    4's BTC counts keep every mutant."""
    scored = pd.concat([biasfinder_names_and_nouns(n_noun_only=0, n_crossed=12, seed=s, model=f"run{s:03d}")
                        for s in range(30)], ignore_index=True)
    crossed = study.rates(scored.drop(columns="noun_fill"), n_boot=200)
    assert (crossed["p_value"] < 0.05).mean() >= 0.3
    kept = study.rates(scored, n_boot=200)
    assert (kept["p_value"] < 0.05).mean() <= 0.125
    own = scored[scored["noun_fill"] != "crossed"]
    pd.testing.assert_frame_equal(kept, study.rates(own.drop(columns="noun_fill"), n_boot=200))
    assert len(study.rate_rows(scored)) == len(own) and len(study.rate_rows(own.drop(columns="noun_fill"))) == len(own)
    assert (kept["n_names"] == 60).all()  # the own pair's mutants carry the names of every other template
    counts = study.table4(study.btcs(scored))
    assert counts["mutants"].sum() == len(scored)  # Table 4 counts every mutant


def test_in_the_presets_design_the_nouns_only_templates_keep_every_noun_and_the_level_holds():
    """On 1,000 IMDB train reviews the preset has 80 templates with a name, 11 whose nouns are their only fills and
    1 with both: the 11 keep all their nouns (no shared name), the one its own pair."""
    scored = pd.concat([biasfinder_names_and_nouns(seed=s, model=f"run{s:03d}") for s in range(20)],
                       ignore_index=True)
    table = study.rates(scored, n_boot=200)
    assert (table["p_value"] < 0.05).mean() <= 0.125
    assert (table["null_templates"] == 92).all()  # 80 + 11 + 1: every template with a within-class pair
    other = study.rate_rows(scored)["noun_fill"] == "other"
    assert other.sum() == 20 * 11 * 2 * 10  # runs × nouns-only templates × classes × other nouns
