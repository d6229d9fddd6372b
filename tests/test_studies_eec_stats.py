"""EEC with names and templates as samples (issue 24): intervals, corrected p, verdicts, placebo nulls, variance
shares and the interval figure, on the real EEC scored by VADER and by synthetic models whose truth is known
(``tests/synthetic_eec_stats.py``)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from toolkit import plots, stats
from toolkit.errors import UnknownNameError
from toolkit.scoring import score
from toolkit.studies import eec as eec_run
from toolkit.studies.eec import analysis as eec
from toolkit.studies.eec import figures as eec_figures

NOISE = "py:synthetic_eec_stats:name_noise"
BIASED = "py:synthetic_eec_stats:name_noise_female_plus"
N_BOOT = 200


@pytest.fixture(scope="module")
def scored(eec_cases):
    return score(eec_cases, models=["vader", NOISE, BIASED], cache=False, progress=False)


@pytest.fixture(scope="module")
def tests_all(scored):
    return eec.ttests(scored, subsets=["all", "neutral"], n_boot=N_BOOT)


def _row(tests, model, attribute, subset="all"):
    frame = tests[(tests["model"] == model) & (tests["attribute"] == attribute) & (tests["subset"] == subset)]
    assert len(frame) == 1
    return frame.iloc[0]


def test_every_row_has_the_stat_columns_with_sensible_values(tests_all, scored):
    assert list(tests_all.columns) == list(eec.TEST_COLUMNS)
    assert set(stats.STAT_COLUMNS) <= set(tests_all.columns)
    assert len(tests_all) == 3 * 2 * 2
    assert (tests_all["ci_low"] <= tests_all["estimate"] + 1e-12).all()
    assert (tests_all["estimate"] <= tests_all["ci_high"] + 1e-12).all()
    assert tests_all["p_adjusted"].between(0, 1).all() and (tests_all["p_adjusted"] >= tests_all["p_two_way"]).all()
    assert set(tests_all["verdict"]) <= {"a higher", "b higher", "equivalent within ±0.01",
                                         "different but within ±0.01", "inconclusive", stats.IDENTICAL}
    assert set(tests_all.loc[tests_all["subset"] == "all", "n_templates"]) == {11}
    assert set(tests_all.loc[tests_all["subset"] == "neutral", "n_templates"]) == {4}
    assert dict(zip(tests_all["attribute"], tests_all["n_units"])) == {"gender": 11, "race": 20}
    assert set(tests_all["family"]) == {"eec:all: 2 attributes × 3 systems = 6 tests",
                                        "eec:neutral: 2 attributes × 3 systems = 6 tests"}
    assert (tests_all["correction"] == "bonferroni").all() and (tests_all["margin"] == stats.MARGIN).all()
    shares = tests_all[["share_template", "share_name", "share_residual"]].dropna()
    assert len(shares) and np.allclose(shares.sum(axis=1), 1.0)
    # the paper's columns are the paper's: the same as without the new columns
    paper = eec._paper_tests(scored, subsets=["all", "neutral"], attributes=tuple(eec.ATTRIBUTES), alpha=0.05)
    pd.testing.assert_frame_equal(tests_all.loc[:, list(eec.PAPER_TEST_COLUMNS)], paper)


def test_estimate_is_the_paper_mean_and_the_paper_frame_t_interval_stays_beside_it(tests_all, scored):
    assert np.allclose(tests_all["estimate"], tests_all["mean_diff"], atol=1e-12)  # sentence-weighted
    row = _row(tests_all, BIASED, "gender")
    assert row["t_ci_low"] < row["mean_diff"] < row["t_ci_high"]
    assert row["ci_low"] < row["t_ci_low"] and row["t_ci_high"] < row["ci_high"]  # names and templates as samples


def test_race_units_average_to_the_papers_delta_per_case(scored):
    one = scored[scored["model"] == NOISE]
    grid = eec.cells(one, attribute="race", subset="neutral")  # one case per neutral template
    assert list(grid.columns) == list(eec.CELL_COLUMNS) and grid["unit"].nunique() == 20
    assert set(grid["unit"]) >= {"Ebony−Amanda", "Alonzo−Adam"}  # i-th AA with i-th EA name, same gender
    paper = eec.pairs(one, attribute="race", subset="neutral").groupby("template_id")["delta"].mean()
    ours = grid.groupby("template_id")["delta"].mean()
    assert np.allclose(ours.loc[paper.index], paper)


def test_an_injected_female_bias_reads_a_higher_and_its_interval_covers_it(tests_all):
    row = _row(tests_all, BIASED, "gender")
    assert row["verdict"] == "a higher" and row["significant_two_way"]
    assert row["ci_low"] <= 0.05 <= row["ci_high"]
    assert row["names_diff"] > row["null_high"] and row["null_p"] == 0 and row["excess"] > 0.03


def test_a_name_sensitive_unbiased_model_reads_unbiased_against_its_null(tests_all):
    for attribute in ("gender", "race"):
        row = _row(tests_all, NOISE, attribute)
        assert row["null_low"] <= row["names_diff"] <= row["null_high"], attribute
        assert row["null_p"] > 0.05 and row["verdict"] not in ("a higher", "b higher"), attribute
    race = _row(tests_all, NOISE, "race")
    assert race["share_name"] > 0.9  # the names carry the variance ...
    assert race["significant"] and not race["significant_two_way"]  # ... which the paper's test takes for bias
    changed = eec.clustered_vs_paper(tests_all)
    assert list(changed.columns) == list(eec.CHANGE_COLUMNS)
    hit = changed[(changed["model"] == NOISE) & (changed["attribute"] == "race") & (changed["subset"] == "all")]
    assert len(hit) == 1 and hit["change"].iloc[0].startswith("significant over sentences")
    assert BIASED not in set(changed.loc[changed["attribute"] == "gender", "model"])


def test_holm_changes_p_adjusted_and_is_recorded(scored, tests_all):
    holm = eec.ttests(scored, subsets=["all"], n_boot=N_BOOT, correction="holm")
    bonferroni = tests_all[tests_all["subset"] == "all"].reset_index(drop=True)
    assert (holm["correction"] == "holm").all()
    assert (holm["p_adjusted"] <= bonferroni["p_adjusted"] + 1e-12).all()
    assert (holm["p_equivalence_adjusted"] < bonferroni["p_equivalence_adjusted"] - 1e-18).any()
    assert np.allclose(holm["p_equivalence_adjusted"], stats.adjust(bonferroni["p_equivalence"], method="holm"))
    pd.testing.assert_series_equal(holm["p_two_way"], bonferroni["p_two_way"])  # same seed, same bootstrap
    expected = stats.adjust(bonferroni["p_two_way"].to_numpy(), method="holm")
    assert np.allclose(holm["p_adjusted"], expected)


def test_run_records_correction_margin_and_families_in_provenance(tmp_path):
    result = eec_run.run(models=[NOISE], subsets=["neutral"], cache=False, progress=False, correction="fdr_bh",
                         margin=0.02, n_boot=N_BOOT, seed=3)
    assert (result.tests["correction"] == "fdr_bh").all() and (result.tests["margin"] == 0.02).all()
    eec_run.write(result, tmp_path / "out", figures_dir=tmp_path / "fig")
    settings = json.loads((tmp_path / "out" / "provenance.json").read_text())["settings"]
    assert settings["correction"] == "fdr_bh" and settings["margin"] == 0.02
    assert settings["n_boot"] == N_BOOT and settings["seed"] == 3
    assert settings["families"] == ["eec:neutral: 2 attributes × 1 system = 2 tests"]
    for name in ("eec_gender_intervals.png", "eec_race_intervals.png", "eec_gender_box.png"):
        assert (tmp_path / "fig" / name).stat().st_size > 1000


def test_unknown_correction_is_tk103_before_scoring(scored):
    with pytest.raises(UnknownNameError, match="available: bonferroni, fdr_bh, holm") as info:
        eec.ttests(scored, subsets=["all"], correction="sidak")
    assert info.value.code == "TK103"
    with pytest.raises(UnknownNameError) as info:
        eec_run.run(models=["py:synthetic_models:counting"], correction="BH", cache=False)
    assert info.value.code == "TK103"


def test_seeded_intervals_repeat_and_another_seed_moves_them(scored):
    one = scored[scored["model"] == NOISE]
    a = eec.intervals(one, subsets=["neutral"], n_boot=N_BOOT, seed=1, method="bootstrap-t")
    b = eec.intervals(one, subsets=["neutral"], n_boot=N_BOOT, seed=1, method="bootstrap-t")
    c = eec.intervals(one, subsets=["neutral"], n_boot=N_BOOT, seed=2, method="bootstrap-t")
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["ci_low"], c["ci_low"])
    # the default t needs no resampling: the seed moves only the placebo null
    t1 = eec.intervals(one, subsets=["neutral"], n_boot=N_BOOT, seed=1)
    t2 = eec.intervals(one, subsets=["neutral"], n_boot=N_BOOT, seed=2)
    pd.testing.assert_series_equal(t1["ci_low"], t2["ci_low"])
    assert not np.allclose(t1["null_low"], t2["null_low"])


def test_interval_figure_lines_up_with_the_box_plot(scored, tests_all):
    pairs = eec.pairs(scored, attribute="race")
    box = eec_figures.eec_deltas(pairs, tests_all[tests_all["subset"] == "all"], attribute="race")
    forest = eec_figures.eec_intervals(tests_all, attribute="race")
    unmarked = f" {eec_figures.DISAGREES}"  # the box plot's mark where the two tests disagree; the order is shared
    labels = [t.get_text().removesuffix(unmarked) for t in box.get_xticklabels()]
    assert [t.get_text() for t in forest.get_xticklabels()] == labels
    assert any(abs(line.get_ydata()[0]) < 1e-12 for line in forest.get_lines())  # the zero line
    pearson = {NOISE: 0.9, "vader": 0.5}
    box_task = eec_figures.eec_task_deltas(pairs, tests_all, attribute="race", pearson=pearson)[0]
    forest_task = eec_figures.eec_task_intervals(tests_all, attribute="race", pearson=pearson)[0]
    assert [t.get_text() for t in forest_task.get_xticklabels()] == [
        t.get_text().removesuffix(unmarked) for t in box_task.get_xticklabels()]
    assert forest_task.get_xticklabels()[0].get_text() == plots.short_label(NOISE)  # best Pearson r first


def test_the_null_is_stratified_so_a_race_effect_does_not_hide_a_gender_effect():
    """Found in review: unstratified halves of the 20 female names mix African-American and European names, so a
    race effect widened the gender null (±0.020) and an exact +0.015 gender effect read as inside it."""
    scored = eec_run.run(models=["py:synthetic_eec_stats:small_gender_big_race"], subsets=["all"], cache=False,
                         n_boot=N_BOOT).scored
    null = eec.null_baseline(scored, attribute="gender", n_null=100).iloc[0]
    assert null["names_diff"] == pytest.approx(0.015, abs=5e-4)  # plus the sentence-level noise of _base
    assert null["null_high"] < 0.005 and null["null_p"] == 0.0  # no name noise: halves differ by sentence noise only


def test_a_family_too_large_for_the_bootstrap_says_so():
    """Found in review: a bootstrap p is at least 2/(n_boot + 1), so Bonferroni over m tests cannot go below
    2m/(n_boot + 1); with too few resamples no system could ever read significant, silently (the default
    Satterthwaite t has no such floor)."""
    scored = score(eec_run.generate(), models=["vader", BIASED], cache=False, progress=False)
    with pytest.warns(UserWarning, match=r"smallest bootstrap p is 2/101.*over 4 tests.*Pass n_boot=1,600 or more"):
        eec.intervals(scored, subsets=["all"], n_boot=100, alpha=0.01, method="bootstrap-t")
