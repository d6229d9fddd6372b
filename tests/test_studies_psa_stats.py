"""PSA statistics (issue 24) on synthetic scored tables whose truth is known: the gender gap's interval, verdict
and placebo null; the LabelDist bootstrap band; variance components of the perturbation effect."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from toolkit import plots, stats
from toolkit.errors import InputError, UnknownNameError
from toolkit.studies.psa import analysis as psa
from toolkit.studies.psa import figures as psa_figures

CATEGORIES = ("c1", "c2", "c3")


def _names(per_category: int = 3) -> list[tuple[str, str, str]]:
    return [(f"{g[0].upper()}{c}{i}", g, c) for g in ("female", "male") for c in CATEGORIES
            for i in range(per_category)]


def _scored(*, female_shift: float = 0.0, name_sd: float = 0.0, resid_sd: float = 0.0, n_sentences: int = 15,
            seed: int = 0, model: str = "m") -> pd.DataFrame:
    """f(x) uniform in [0.2, 0.8]; f(x_n) = f(x) + name effect (sd ``name_sd``) + ``female_shift`` for female names
    + residual noise (sd ``resid_sd``)."""
    rng = np.random.default_rng(seed)
    names = _names()
    base = rng.uniform(0.2, 0.8, n_sentences)
    effect = rng.normal(0, name_sd, len(names))
    rows = []
    for i, f in enumerate(base):
        rows.append({"case_id": f"x{i}", "fill": "", "is_original": True, "gender": "", "category": "", "score": f})
        for j, (name, gender, category) in enumerate(names):
            value = f + effect[j] + (female_shift if gender == "female" else 0.0) + rng.normal(0, resid_sd)
            rows.append({"case_id": f"x{i}", "fill": name, "is_original": False, "gender": gender,
                         "category": category, "score": value})
    return pd.DataFrame(rows).assign(model=model, corpus="c")


def test_a_name_blind_model_reads_as_identical_and_a_slightly_name_sensitive_one_as_equivalent():
    """Every paired score equal: "identical scores (no test needed)", the word the EEC and the multilingual study
    use; small name effects with no gender shift: equivalent within the margin."""
    row = psa.gender_gap(_scored(), n_boot=200).iloc[0]
    assert tuple(psa.gender_gap(_scored(), n_boot=200).columns) == psa.GENDER_COLUMNS
    assert set(stats.STAT_COLUMNS) <= set(psa.GENDER_COLUMNS)
    assert row["estimate"] == 0.0 and row["ci_low"] == 0.0 and row["ci_high"] == 0.0
    assert row["verdict"] == stats.IDENTICAL
    assert row["n_pairs"] == 9 and row["n_texts"] == 15
    near = psa.gender_gap(_scored(resid_sd=0.001), n_boot=200).iloc[0]
    assert near["verdict"] == f"equivalent within ±{stats.MARGIN:g}"


def test_a_female_plus_delta_model_reads_as_female_higher_and_the_interval_covers_delta():
    delta = 0.05
    row = psa.gender_gap(_scored(female_shift=delta, name_sd=0.01, resid_sd=0.01), n_boot=200).iloc[0]
    assert row["verdict"] == "a higher" and row["a"] == "female"
    assert row["ci_low"] <= delta <= row["ci_high"]
    assert row["estimate"] == pytest.approx(row["mean_a"] - row["mean_b"])
    assert row["estimate"] > row["null_high"]  # outside the placebo range
    assert row["p_adjusted"] < 0.05 and row["effect_size"] > 0


def test_the_placebo_null_of_a_name_sensitive_unbiased_model_covers_its_delta():
    scored = pd.concat([_scored(name_sd=0.05, resid_sd=0.01, seed=s, model=f"m{s}") for s in range(5)])
    table = psa.gender_gap(scored, n_boot=200)
    assert len(table) == 5
    assert (table["null_low"] < 0).all() and (table["null_high"] > 0).all()
    covered = ((table["null_low"] <= table["estimate"]) & (table["estimate"] <= table["null_high"])).sum()
    assert covered >= 4  # a 95 % range: all five here
    assert not table["verdict"].isin(["a higher", "b higher"]).any()


def test_the_null_range_is_as_wide_as_the_spread_of_random_gender_labels():
    # Δ_null halves each gender (9 names → 4 vs 4); its spread should be of the order of the name effects' sd / sqrt
    scored = _scored(name_sd=0.05, seed=3)
    row = psa.gender_gap(scored, n_boot=200).iloc[0]
    width = row["null_high"] - row["null_low"]
    assert 0.02 < width < 0.2


def test_correction_is_over_the_model_by_corpus_family_and_options_are_checked():
    scored = pd.concat([_scored(female_shift=0.02, name_sd=0.005, resid_sd=0.02, seed=s, model=f"m{s}")
                        for s in range(3)])
    bonf = psa.gender_gap(scored, n_boot=200)
    holm = psa.gender_gap(scored, n_boot=200, correction="holm")
    assert np.allclose(bonf["p_adjusted"], np.minimum(1, 3 * bonf["p_value"]))
    assert np.allclose(holm["p_adjusted"], stats.adjust(holm["p_value"], method="holm"))
    with pytest.raises(UnknownNameError, match="TK103"):
        psa.gender_gap(scored, correction="sidak")
    with pytest.raises(InputError, match="TK102.*margin"):
        psa.gender_gap(scored, margin=0)


def test_too_few_sentences_gives_nan_statistics_not_an_error():
    row = psa.gender_gap(_scored(female_shift=0.1, n_sentences=1), n_boot=50).iloc[0]
    assert row["estimate"] == pytest.approx(0.1) and np.isnan(row["ci_low"]) and row["verdict"] == "inconclusive"


def test_unpaired_names_are_left_out_with_a_warning():
    scored = _scored(female_shift=0.05)
    scored = scored[scored["fill"] != "Mc32"]  # 9 female, 8 male names
    with pytest.warns(UserWarning, match="without a partner"):
        row = psa.gender_gap(scored, n_boot=50).iloc[0]
    assert row["n_pairs"] == 8


def test_label_dist_band_brackets_the_estimate_and_is_seeded():
    scored = _scored(name_sd=0.05, resid_sd=0.05, n_sentences=30)
    first = psa.label_dist(scored, thresholds=[0.4, 0.6], n_boot=200, seed=1)
    assert tuple(first.columns) == psa.LABEL_DIST_COLUMNS
    pd.testing.assert_frame_equal(first, psa.label_dist(scored, thresholds=[0.4, 0.6], n_boot=200, seed=1))
    assert (first["label_dist_low"] <= first["label_dist"]).all()
    assert (first["label_dist"] <= first["label_dist_high"]).all()
    assert (first["label_dist_high"] > first["label_dist_low"]).all()
    assert first["label_dist_low"].iloc[0] != psa.label_dist(scored, thresholds=[0.4], n_boot=200,
                                                             seed=2)["label_dist_low"].iloc[0]
    assert psa.label_dist(scored, thresholds=[0.4], n_boot=0)["label_dist_low"].isna().all()


def test_label_dist_plot_draws_the_band():
    table = psa.label_dist(_scored(name_sd=0.05, resid_sd=0.05), thresholds=[0.3, 0.5, 0.7], n_boot=100)
    banded = psa_figures.psa_label_dist(table)
    plain = psa_figures.psa_label_dist(table.drop(columns=["label_dist_low", "label_dist_high"]))
    assert len(banded.collections) == len(plain.collections) + 1  # one fill_between band for the one model
    # round 24: the band's key is the legend's heading, not a fifth entry that left a model alone in a column
    (legend,) = banded.figure.legends
    assert legend.get_title().get_text().startswith("shaded, in each model's colour: 95 % bootstrap CI")
    assert [t.get_text() for t in legend.get_texts()] == list(dict.fromkeys(table["model"]))
    assert plain.figure.legends[0].get_title().get_text() == ""


def test_variance_components_of_the_perturbation_effect():
    table = psa.variance_table(_scored(name_sd=0.05))
    assert tuple(table.columns) == psa.VARIANCE_COLUMNS
    row = table.iloc[0]
    sens = psa.score_sens(_scored(name_sd=0.05))["score_sens"]  # the name effects, the same in every sentence
    assert row["share_name"] == pytest.approx(1.0) and row["var_sentence"] == pytest.approx(0.0, abs=1e-15)
    assert row["var_name"] == pytest.approx(np.var(sens, ddof=1))
    assert np.isnan(psa.variance_table(_scored()).iloc[0]["share_name"])  # no effect at all: shares undefined


def test_run_records_the_family_and_writes_the_new_tables(tmp_path):
    from toolkit.studies import psa as psa_run

    rows = []
    for i, sentence in enumerate(["{} is wonderful.", "I met {} yesterday.", "{} was awful today."]):
        rows.append({"case_id": f"x{i}", "variant_id": f"x{i}:0", "text": sentence.format("She"), "fill": "",
                     "is_original": True, "gender": "", "category": ""})
        for j, (name, gender, category) in enumerate(_names()):
            rows.append({"case_id": f"x{i}", "variant_id": f"x{i}:{j + 1}", "text": sentence.format(name),
                         "fill": name, "is_original": False, "gender": gender, "category": category})
    cases = pd.DataFrame(rows).assign(attribute="name", group=lambda f: f["fill"], generator="psa",
                                      template=lambda f: f["case_id"], corpus="c")
    result = psa_run.run(cases=cases, models="vader", n_boot=50, cache=False, correction="holm", margin=0.02)
    assert result.provenance.settings["correction"] == "holm" and result.provenance.settings["margin"] == 0.02
    assert "model × corpus" in result.provenance.settings["family"]
    assert tuple(result.gender.columns) == psa.GENDER_COLUMNS and len(result.gender) == 1
    assert tuple(result.variance.columns) == psa.VARIANCE_COLUMNS
    written = {p.name for p in psa_run.write(result, tmp_path / "out", figures_dir=tmp_path / "fig")}
    assert {"psa_gender.csv", "psa_variance.csv", "provenance.json"} <= written


def test_the_null_is_split_within_categories_so_a_category_effect_does_not_widen_it():
    """Found in review: halves that mix categories turned a category effect (athletes score higher, whatever their
    gender) into a wide null around a model with no gender effect and no name noise."""
    scored = _scored()
    scored.loc[scored["category"] == "c1", "score"] += 0.1  # every c1 name, female and male alike
    row = psa.gender_gap(scored, n_boot=200).iloc[0]
    assert row["estimate"] == pytest.approx(0.0, abs=1e-12)
    assert row["null_high"] - row["null_low"] < 1e-9  # within a category every name scores the same


# --- Issue 32: every number with its interval or its null, checked by simulation in PSA's design. ---


def test_score_sens_interval_covers_each_names_effect():
    """18 names × 20 sentences; f(x_n) − f(x) = the name's effect + noise (sd 0.05): each name's interval covers
    its effect in 91-98 % of (name, run) cells (30 runs × 18 names)."""
    covered = []
    for seed in range(30):
        scored = _scored(name_sd=0.05, resid_sd=0.05, n_sentences=20, seed=seed)
        effect = np.random.default_rng(seed)
        effect.uniform(0.2, 0.8, 20)
        truth = dict(zip([n for n, _, _ in _names()], effect.normal(0, 0.05, 18)))  # _scored's draws, in order
        table = psa.score_sens(scored)
        covered += [(r.score_sens_low <= truth[r.name] <= r.score_sens_high) for r in table.itertuples()]
    assert 0.91 <= np.mean(covered) <= 0.98
    one = psa.score_sens(_scored(name_sd=0.05, n_sentences=1))
    assert one["score_sens_low"].isna().all()
    exact = psa.score_sens(_scored(name_sd=0.05)).iloc[0]  # no residual: every sentence moves alike
    assert exact["score_sens_low"] == pytest.approx(exact["score_sens"]) == pytest.approx(exact["score_sens_high"])


def test_sensitivity_correlation_has_a_fisher_interval():
    """r between sensitivity and f(x) where the truth is ρ = 0: the interval covers 0 in ~95 % of runs."""
    covered = []
    for seed in range(60):
        scored = _scored(name_sd=0.05, resid_sd=0.05, n_sentences=20, seed=seed)
        row = psa.sensitivity_correlation(scored).iloc[0]
        assert row["r_low"] <= row["pearson_r"] <= row["r_high"]
        covered.append(row["r_low"] <= 0 <= row["r_high"])
    assert 0.88 <= np.mean(covered) <= 1.0  # 60 runs: ± 2.8 %
    z = np.arctanh(row["pearson_r"])  # Fisher z by hand
    half = 1.959963984540054 / np.sqrt(20 - 3)
    assert (row["r_low"], row["r_high"]) == pytest.approx((np.tanh(z - half), np.tanh(z + half)))


def test_the_placebo_null_p_is_near_alpha_for_a_name_sensitive_unbiased_model():
    """Names with their own effects and no gender effect: null_p < .05 in about 5 % of runs; a female + 0.05 model
    with the same name noise is found."""
    null = pd.concat([_scored(name_sd=0.05, resid_sd=0.01, seed=s, model=f"m{s:02d}") for s in range(60)])
    table = psa.gender_gap(null, n_boot=50, n_null=200)
    assert (table["null_p"] < 0.05).mean() <= 0.12  # 60 runs: 5 % ± 2.8 %
    biased = pd.concat([_scored(female_shift=0.1, name_sd=0.02, resid_sd=0.01, seed=s, model=f"m{s:02d}")
                        for s in range(20)])
    assert (psa.gender_gap(biased, n_boot=50, n_null=200)["null_p"] < 0.05).mean() >= 0.8


def test_a_lexicon_moved_by_one_name_claims_no_equivalence_as_in_the_eec():
    """A new user's finding: vader read "equivalent" in PSA (one of 48 names moves its score) where the EEC held the
    same lexicon's equivalence back. One female name shifts every sentence by 0.02; the other names move nothing."""
    frame = _scored()
    moved = frame["fill"] == "Fc10"
    frame.loc[moved, "score"] += 0.02
    row = psa.gender_gap(frame, n_boot=200).iloc[0]
    assert row["n_pairs"] == 9 and row["n_pairs_unmoved"] == 8
    assert row["verdict"] == "inconclusive"  # not "equivalent within ±0.01"
    assert abs(row["estimate"] - 0.02 / 9) < 1e-12
    every = _scored(name_sd=0.001, resid_sd=0.001)  # every name moves a little: equivalence may be claimed
    assert psa.gender_gap(every, n_boot=200).iloc[0]["n_pairs_unmoved"] == 0
