"""Issue 32, items 2-5 and 9: the EEC's two-way statistics simulated in the study's real design — the real 8,640
sentences (``toolkit.studies.eec.generator``, offline) with synthetic scores whose truth is known (``synthetic_eec_design``),
families of 1, 8 and 438 tests — decided by the study's own functions. Seeded; bounds allow the Monte-Carlo error
(a binomial rate over n replicates has sd √(p(1−p)/n)). The larger run behind the docs' numbers:
``benchmarks/eec_calibration.py`` (output in ``benchmarks/eec_calibration.txt``)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import synthetic_eec_design as sd

from toolkit import stats
from toolkit.scoring import score
from toolkit.studies.eec import analysis as eec

ALPHA, MARGIN = 0.05, 0.01


def _decide(arrays: np.ndarray, weights: np.ndarray, *, family: int, attribute: str = "gender") -> list[dict]:
    """Each array through the study's own per-row steps (``eec._two_way`` then ``eec._decide``), in families of
    ``family`` tests (Bonferroni, the study's default)."""
    out = []
    for start in range(0, len(arrays), family):
        block = []
        for y in arrays[start:start + family]:
            matrix = pd.DataFrame(y, index=range(1, y.shape[0] + 1))
            row = {"model": f"sim{start}", "task": "valence", "attribute": attribute, "subset": "all",
                   **eec._two_way(matrix, weights, alpha=ALPHA, n_boot=200, seed=0, method="satterthwaite",
                                  margin=MARGIN)}
            block.append(row)
        eec._decide(block, subset="all", alpha=ALPHA, correction="bonferroni", margin=MARGIN, n_boot=200,
                    method="satterthwaite", seed=0, family_size=family)
        out += block
    return out


def _share(rows: list[dict], *prefixes: str) -> float:
    return float(np.mean([str(r["verdict"]).startswith(prefixes) for r in rows]))


@pytest.fixture(scope="module")
def simulated():
    """Three synthetic systems on the real EEC, scored as any model is (long format, every sentence)."""
    return pd.concat([sd.scored(n_systems=1, seed=1, bias=0.05, sd_person=0.0005, sd_interaction=0.0005,
                                sd_noise=0.0005, prefix="biased"),
                      sd.scored(n_systems=1, seed=2, bias=0.004, sd_person=0.0002, sd_interaction=0.0002,
                                sd_noise=0.0002, prefix="small"),
                      sd.scored(n_systems=1, seed=3, prefix="noise")], ignore_index=True)


def test_the_simulated_arrays_have_the_studys_design(simulated):
    grid = eec.cells(simulated[simulated["model"] == "noise000"], attribute="gender")
    matrix = grid.pivot_table(index="template_id", columns="unit", values="delta")
    assert matrix.shape == (11, 11)
    weights = grid.groupby("template_id")["n_pairs"].max().to_numpy()
    assert list(weights) == list(sd.design("gender")) == [20] * 7 + [1] * 4
    race = eec.cells(simulated[simulated["model"] == "noise000"], attribute="race")
    assert race["unit"].nunique() == 20 and list(sd.design("race", "neutral")) == [1] * 4
    y, w = sd.arrays(np.random.default_rng(0), n=2, attribute="race")
    assert y.shape == (2, 11, 20) and list(w) == list(weights)


# item 2: a p not floored by the resample count, in the paper's family of 438
def test_a_005_bias_with_tiny_noise_is_found_in_the_papers_family_of_438(simulated):
    tests = eec.intervals(simulated, subsets=["all"], n_null=20, family_size=438)
    row = tests[(tests["model"] == "biased000") & (tests["attribute"] == "gender")].iloc[0]
    assert row["verdict"] == "a higher" and row["p_adjusted"] < 1e-6 and row["n_family"] == 438
    assert row["family"].endswith("(of a family of 438)")
    assert row["ci_low"] <= 0.05 <= row["ci_high"] and row["ci_level"] == pytest.approx(1 - ALPHA / 438)
    # the bootstrap-t it replaces: p ≥ 2/(n_boot + 1), so 438 × p ≥ 0.44 and the bias reads inconclusive
    with pytest.warns(UserWarning, match="no system can reach alpha"):
        old = eec.intervals(simulated[simulated["model"] == "biased000"], subsets=["all"], n_null=20,
                            family_size=438, method="bootstrap-t", n_boot=2000)
    assert (old["p_adjusted"] >= 438 * 2 / 2001 - 1e-12).all()
    assert old.loc[old["attribute"] == "gender", "verdict"].iloc[0] == "inconclusive"


@pytest.mark.parametrize("attribute", ["gender", "race"])
def test_type_one_error_is_near_alpha_for_families_of_1_8_and_438(attribute):
    rng = np.random.default_rng(32)
    ys, w = sd.arrays(rng, n=400, attribute=attribute)  # name-sensitive, unbiased
    one = _decide(ys, w, family=1, attribute=attribute)
    rate = _share(one, "a higher", "b higher", "different")
    assert 0.025 <= rate <= 0.08, rate  # nominal .05, sd .011
    eight = _decide(ys, w, family=8, attribute=attribute)  # 50 families of 8
    fwer = np.mean([any(str(r["verdict"]).startswith(("a higher", "b higher", "different")) for r in
                        eight[i:i + 8]) for i in range(0, 400, 8)])
    assert fwer <= 0.14, fwer  # nominal ≤ .05, sd .031
    ys, w = sd.arrays(rng, n=876, attribute=attribute)  # two families of 438
    big = _decide(ys, w, family=438, attribute=attribute)
    p = np.array([r["p_two_way"] for r in big])
    assert 0.03 <= np.mean(p < ALPHA) <= 0.07  # the p itself is calibrated (sd .0074)
    assert sum(np.array([r["p_adjusted"] for r in big]) < ALPHA) <= 2  # expected ≤ 0.1 family-wise errors


@pytest.mark.parametrize("attribute", ["gender", "race"])
def test_power_for_a_bias_of_002_among_name_noise(attribute):
    """Power is reported, not asserted high: 0.02 against names of sd 0.02 (the benchmark prints 0.60-0.85 at m = 1
    and 0.25-0.52 at m = 8)."""
    ys, w = sd.arrays(np.random.default_rng(5), n=120, attribute=attribute, bias=0.02)
    power = _share(_decide(ys, w, family=1, attribute=attribute), "a higher")
    assert 0.4 <= power <= 0.97, power


# item 3: one reference distribution, the equivalence claims corrected over the same family, four outcomes
@pytest.mark.parametrize("family", [1, 8])
def test_intervals_cover_and_agree_with_the_verdict(family):
    rng = np.random.default_rng(8)
    ys, w = sd.arrays(rng, n=240, attribute="race", bias=0.01, sd_person=0.005)
    rows = _decide(ys, w, family=family, attribute="race")
    covered = np.mean([r["ci_low"] <= 0.01 <= r["ci_high"] for r in rows])
    unadjusted = np.mean([r["ci_low_unadjusted"] <= 0.01 <= r["ci_high_unadjusted"] for r in rows])
    assert 0.91 <= unadjusted <= 0.98, unadjusted
    assert (0.91 if family == 1 else 0.97) <= covered <= (0.98 if family == 1 else 1.0), covered
    for r in rows:  # one t: significance ⇔ 0 outside the printed interval; equivalence ⇔ margin beyond the smallest
        assert (r["p_adjusted"] < ALPHA) == (not r["ci_low"] <= 0 <= r["ci_high"])
        equivalent = str(r["verdict"]).startswith(("equivalent", "different but"))
        assert equivalent == (r["min_equivalence_margin"] < MARGIN)


@pytest.mark.parametrize("family", [1, 8])
def test_equivalence_at_the_margin_is_claimed_at_most_at_alpha(family):
    """True Δ exactly at the margin, little noise: 'equivalent' / 'different but within' are errors."""
    ys, w = sd.arrays(np.random.default_rng(9), n=240, attribute="gender", bias=MARGIN, sd_person=0.002,
                      sd_interaction=0.001)
    rows = _decide(ys, w, family=family)
    assert _share(rows, "equivalent", "different but") <= 0.08  # nominal ≤ .05 (per test), sd .014


def test_a_real_difference_inside_the_margin_reads_different_but_within(simulated):
    tests = eec.intervals(simulated, subsets=["all"], n_null=20)
    row = tests[(tests["model"] == "small000") & (tests["attribute"] == "gender")].iloc[0]
    assert row["verdict"] == "different but within ±0.01"
    assert row["p_adjusted"] < ALPHA and row["p_equivalence_adjusted"] < ALPHA
    assert row["min_equivalence_margin"] < MARGIN < row["min_equivalence_margin"] + 0.01
    # the same data read the same in a family of 438: both claims are corrected alike
    big = eec.intervals(simulated[simulated["model"] == "small000"], subsets=["all"], n_null=20, family_size=438)
    assert big.loc[big["attribute"] == "gender", "verdict"].iloc[0] == "different but within ±0.01"


# item 4: identical scores; sparse (lexicon-like) sensitivity
def test_a_name_blind_model_reads_identical_scores_not_equivalent(eec_cases):
    scored = score(eec_cases, models=["py:synthetic_models:blind"], cache=False, progress=False)
    tests = eec.intervals(scored, subsets=["all", "neutral"], n_null=20)
    assert (tests["verdict"] == stats.IDENTICAL).all()
    assert tests["min_equivalence_margin"].isna().all() and tests["effect_size"].isna().all()
    assert (tests["estimate"] == 0).all() and (tests["p_two_way"] == 1).all()


def test_eec_a_constant_shift_says_it_has_no_variance(eec_cases):
    """A name-blind model plus exactly .03 on every African-American name sentence: every race Δ is the same, so
    p = 0 and the interval is the point; the row says it is a constant shift, not a precise estimate."""
    scored = score(eec_cases, models=["py:synthetic_models:blind"], cache=False, progress=False)
    scored["score"] = scored["score"] + 0.03 * (scored["race"] == "African-American")
    row = eec.ttests(scored, subsets=["all"], attributes=["race"], n_null=20).iloc[0]
    assert row["ci_method"] == stats.CONSTANT_SHIFT
    assert row["estimate"] == pytest.approx(0.03) and row["ci_low"] == row["ci_high"] == row["estimate"]
    assert row["verdict"] != stats.IDENTICAL and row["p_value"] == 0
    assert row["note"].startswith("Δ is the same for every pair (one constant shift")


@pytest.mark.parametrize("attribute", ["gender", "race"])
def test_a_bias_from_a_few_names_is_not_called_equivalent(attribute):
    """A lexicon (no noise) whose group-a persons move the score with probability 0.1, by 0.15: the population's
    mean Δ is 1.5 × the margin, yet most sampled persons move nothing. The issue measured 'equivalent' in 13-36 % of
    such runs; the sparse rule (units that never move: no equivalence) and the identical-scores verdict keep it at
    0. (The interval's coverage there is a documented limit: 64 % gender, 90 % race.)"""
    ys, w = sd.arrays(np.random.default_rng(4), n=200, attribute=attribute, bias=1.5 * MARGIN, sparse=0.1,
                      sd_person=0.0, sd_interaction=0.0, sd_noise=0.0)
    for family in (1, 8):
        rows = _decide(ys, w, family=family, attribute=attribute)
        assert _share(rows, "equivalent", "different but") <= 0.05
    assert any(r["verdict"] == stats.IDENTICAL for r in rows) or attribute == "gender"


# item 5: one story per row
def test_estimate_is_the_papers_mean_and_the_other_weighting_is_available(simulated):
    tests = eec.ttests(simulated[simulated["model"] == "noise000"], subsets=["all", "neutral", "emotion:joy"],
                       n_null=20)
    assert np.allclose(tests["estimate"], tests["mean_diff"], atol=1e-12)
    assert (tests["weighting"] == "sentences").all()
    equal = eec.intervals(simulated[simulated["model"] == "noise000"], subsets=["all"], n_null=20,
                          weighting="templates")
    grid = eec.cells(simulated[simulated["model"] == "noise000"], attribute="race")
    assert equal.loc[equal["attribute"] == "race", "estimate"].iloc[0] == pytest.approx(grid["delta"].mean())


def test_effect_size_is_westfall_kenny_judds_d_for_the_crossed_array(simulated):
    one = simulated[simulated["model"] == "noise000"]
    row = eec.intervals(one, subsets=["all"], n_null=20).query("attribute == 'race'").iloc[0]
    y = eec.cells(one, attribute="race").pivot_table(index="template_id", columns="unit", values="delta").to_numpy()
    r, c = y.shape  # variance components by hand (method of moments)
    ms_r = c * y.mean(axis=1).var(ddof=1)
    ms_c = r * y.mean(axis=0).var(ddof=1)
    resid = y - y.mean(axis=1, keepdims=True) - y.mean(axis=0, keepdims=True) + y.mean()
    ms_e = (resid ** 2).sum() / ((r - 1) * (c - 1))
    total = max((ms_r - ms_e) / c, 0) + max((ms_c - ms_e) / r, 0) + ms_e
    assert row["effect_size"] == pytest.approx(row["estimate"] / np.sqrt(total))
    assert abs(row["effect_size"]) < 1  # not the fixed-pairs paired t's d_z (4-19 on lexicons)


def test_adjusted_and_unadjusted_intervals_say_which_is_which(simulated):
    tests = eec.intervals(simulated, subsets=["all"], n_null=20)
    assert (tests["n_family"] == 6).all() and np.allclose(tests["ci_level"], 1 - ALPHA / 6)
    assert ((tests["ci_low"] <= tests["ci_low_unadjusted"]) & (tests["ci_high"] >= tests["ci_high_unadjusted"])).all()
    assert ((tests["ci_high"] - tests["ci_low"]) > (tests["ci_high_unadjusted"] - tests["ci_low_unadjusted"])).all()


# item 9: the smallest margin the data support
def test_min_equivalence_margin_is_printed_and_matches_the_verdict(simulated):
    tests = eec.intervals(simulated, subsets=["all"], n_null=20)
    noise = tests[tests["model"] == "noise000"]
    assert (noise["min_equivalence_margin"] > MARGIN).all()  # name-sensitive (sd .02): ±0.01 is out of reach
    assert (noise["verdict"] == "inconclusive").all()
    wide = eec.intervals(simulated[simulated["model"] == "noise000"], subsets=["all"], n_null=20,
                         margin=float(noise["min_equivalence_margin"].max()) * 1.01)
    assert wide["verdict"].str.startswith("equivalent within").all()


def test_the_default_method_repeats_bit_for_bit(simulated):
    one = simulated[simulated["model"] == "noise000"]
    pd.testing.assert_frame_equal(eec.intervals(one, subsets=["neutral"], n_null=20, seed=1),
                                  eec.intervals(one, subsets=["neutral"], n_null=20, seed=1))


def test_the_split_half_null_stays_calibrated_for_name_sensitive_unbiased_systems():
    """The placebo null (random halves of one group's names) on 60 unbiased name-sensitive systems: its p falls
    below alpha near alpha of the time (the issue's reviewer measured 4.5-6.5 %)."""
    scored = sd.scored(n_systems=60, seed=11, sd_interaction=0.002)
    rates = []
    for attribute in ("gender", "race"):
        null = eec.null_baseline(scored, attribute=attribute, n_null=200, seed=0)
        rates.append(float(np.mean(null["null_p"] < ALPHA)))
    assert all(r <= 0.15 for r in rates) and np.mean(rates) <= 0.11, rates  # nominal .05; sd .028 per attribute
