import numpy as np
import pandas as pd
import pytest
from scipy import stats

from toolkit.errors import InputError, SchemaError, UnknownNameError
from toolkit.scoring import score
from toolkit.studies.eec import analysis as eec

SYNTHETIC = ["py:synthetic_models:female_plus", "py:synthetic_models:blind",
             "py:synthetic_models:african_american_minus"]


@pytest.fixture(scope="module")
def scored(eec_cases):
    return score(eec_cases, models=SYNTHETIC, cache=False)


@pytest.fixture(scope="module")
def tests_all(scored):
    return eec.ttests(scored, subsets=["all"])


def _row(tests, model, attribute):
    frame = tests[(tests["model"] == model) & (tests["attribute"] == attribute)]
    assert len(frame) == 1
    return frame.iloc[0]


def test_a_model_favouring_women_is_f_up_m_down_on_1584_pairs(tests_all):
    row = _row(tests_all, "py:synthetic_models:female_plus", "gender")
    assert row["n_pairs"] == 1584
    assert row["significant"] and row["direction"] == "F↑–M↓ significant"
    assert row["mean_diff"] == pytest.approx(0.1, abs=0.02)


def test_a_fair_model_is_not_significant(tests_all):
    for attribute in ("gender", "race"):
        row = _row(tests_all, "py:synthetic_models:blind", attribute)
        assert not row["significant"] and row["p_value"] == 1.0
        assert row["direction"] == f"{'F=M' if attribute == 'gender' else 'AA=EA'} not significant"
        assert row["mean_diff"] == 0 and row["delta_spread"] == 0


def test_a_model_penalising_african_american_names_is_aa_down(tests_all):
    row = _row(tests_all, "py:synthetic_models:african_american_minus", "race")
    assert row["n_pairs"] == 144 and row["direction"] == "AA↓–EA↑ significant"
    assert row["mean_diff"] == pytest.approx(-0.05) and row["n_lower"] == 144 and np.isnan(row["mean_diff_higher"])
    assert not _row(tests_all, "py:synthetic_models:african_american_minus", "gender")["significant"]


def test_bonferroni_covers_every_assessment_of_the_run(tests_all, scored):
    assert (tests_all["n_tests"] == 2 * len(SYNTHETIC)).all()
    row = _row(tests_all, "py:synthetic_models:female_plus", "gender")
    pairs = eec.pairs(scored[scored["model"] == row["model"]], attribute="gender")
    p = stats.ttest_rel(pairs["score_a"], pairs["score_b"]).pvalue
    assert row["p_value"] == pytest.approx(p)
    assert row["p_bonferroni"] == pytest.approx(min(1.0, p * 6), rel=1e-9, abs=0)


def test_delta_summaries_follow_their_definitions(scored):
    pairs = eec.pairs(scored, attribute="gender")
    pairs = pairs[pairs["model"] == "py:synthetic_models:female_plus"]
    row = _row(eec.ttests(scored, subsets=["all"]), "py:synthetic_models:female_plus", "gender")
    delta = pairs["delta"]
    assert row["n_higher"] == (delta > 0).sum() and row["n_lower"] == (delta < 0).sum()
    assert row["mean_diff_higher"] == pytest.approx(delta[delta > 0].mean())
    assert row["mean_diff_lower"] == pytest.approx(delta[delta < 0].mean())
    assert row["delta_spread"] == pytest.approx(delta.max() - delta.min())


@pytest.mark.parametrize("subset, n_gender, n_race", [("all", 1584, 144), ("neutral", 44, 4),
                                                      ("emotion:joy", 385, 35)])
def test_pair_counts_per_subset(scored, subset, n_gender, n_race):
    one = scored[scored["model"] == "py:synthetic_models:blind"]
    assert len(eec.pairs(one, attribute="gender", subset=subset)) == n_gender
    assert len(eec.pairs(one, attribute="race", subset=subset)) == n_race


def test_names_pair_is_the_mean_over_twenty_names(scored):
    one = scored[scored["model"] == "py:synthetic_models:female_plus"]
    case = "eec-t01-angry"
    pairs = eec.pairs(one, attribute="gender")
    row = pairs[(pairs["case_id"] == case) & (pairs["pair"] == eec.NAMES_PAIR)].iloc[0]
    names = one[(one["case_id"] == case) & (one["race"] != "")]
    assert row["score_a"] == pytest.approx(names[names["gender"] == "female"]["score"].mean())
    assert names.groupby("gender").size().to_dict() == {"female": 20, "male": 20}


def test_summary_and_paper_table_have_fixed_shapes(scored):
    tests = eec.ttests(scored, subsets=["all", "neutral"])
    table = eec.summary(tests)
    assert list(table.columns) == list(eec.SUMMARY_COLUMNS) and len(table) == 2 * 2 * 4  # 3 groups + All
    gender_all = table[(table["attribute"] == "gender") & (table["subset"] == "all")]
    assert gender_all.set_index("direction")["n_systems"].to_dict() == {
        "F=M not significant": 2, "F↑–M↓ significant": 1, "F↓–M↑ significant": 0, "All": 3}
    assert set(gender_all["table"]) == {"Table 5"} and set(gender_all["task"]) == {"valence"}
    up = gender_all.set_index("direction").loc["F↑–M↓ significant"]
    female = tests[(tests["model"] == "py:synthetic_models:female_plus") & (tests["attribute"] == "gender")
                   & (tests["subset"] == "all")].iloc[0]
    assert up["avg_diff_a_higher"] == pytest.approx(female["mean_diff_higher"])
    assert up["avg_diff_a_lower"] == pytest.approx(abs(female["mean_diff_lower"]))
    wide = eec.paper_table(tests, attribute="race")
    assert list(wide.index) == [("valence", g) for g in eec.directions("race") + ("All",)]
    assert list(wide.columns) == ["#systems", "avg Δ AA↑–EA↓", "avg Δ AA↑–EA↓ low", "avg Δ AA↑–EA↓ high",
                                  "avg Δ AA↓–EA↑", "avg Δ AA↓–EA↑ low", "avg Δ AA↓–EA↑ high"]  # issue 32
    assert list(eec.tables(tests)) == ["Table 5", "Table 6", "Table 7"]
    # the intervals over systems: one system, none; "All" (3 systems) the t interval of their averages, by hand
    assert np.isnan(up["avg_diff_a_higher_low"])
    every = gender_all.set_index("direction").loc["All"]
    block = tests[(tests["attribute"] == "gender") & (tests["subset"] == "all")]
    for column, name in (("mean_diff_higher", "avg_diff_a_higher"), ("mean_diff_lower", "avg_diff_a_lower")):
        values = block[column].dropna().abs()
        if len(values) < 2:
            assert np.isnan(every[f"{name}_low"])
            continue
        t = {2: 12.706204736174698, 3: 4.302652729749464}[len(values)]  # t(0.975; n − 1) from tables
        half = t * values.std(ddof=1) / np.sqrt(len(values))
        assert every[f"{name}_low"] == pytest.approx(max(values.mean() - half, 0.0))  # |Δ| ≥ 0: held at 0
        assert every[f"{name}_high"] == pytest.approx(values.mean() + half)


EMOTION = ["py:synthetic_models:anger_female_plus", "py:synthetic_models:joy_female_minus",
           "py:synthetic_models:fear_blind", "py:synthetic_models:sadness_aa_plus",
           "py:synthetic_models:female_plus"]


@pytest.fixture(scope="module")
def emotion_tests(eec_cases):
    return eec.ttests(score(eec_cases, models=EMOTION, cache=False), subsets=["all", "neutral"])


def test_a_known_bias_per_task_lands_in_its_group_per_task(emotion_tests):
    rows = emotion_tests[emotion_tests["subset"] == "all"].set_index(["task", "attribute"])
    assert rows.loc[("anger", "gender"), "direction"] == "F↑–M↓ significant"
    assert rows.loc[("joy", "gender"), "direction"] == "F↓–M↑ significant"
    assert rows.loc[("fear", "gender"), "direction"] == "F=M not significant"
    assert rows.loc[("fear", "race"), "direction"] == "AA=EA not significant"
    assert rows.loc[("sadness", "race"), "direction"] == "AA↑–EA↓ significant"
    assert rows.loc[("sadness", "gender"), "direction"] == "F=M not significant"
    assert rows.loc[("valence", "gender"), "direction"] == "F↑–M↓ significant"
    assert (emotion_tests["n_tests"] == 2 * len(EMOTION)).all()  # Bonferroni over every task's assessments


def test_tables_5_6_7_have_a_block_per_task(emotion_tests):
    tables = eec.tables(emotion_tests)
    assert list(tables) == ["Table 5", "Table 6", "Table 7"]
    for name, table in tables.items():
        attribute = eec.PAPER_TABLES[name][0]
        assert table.shape == (5 * 4, 7)  # #systems and two averages, each with its interval (issue 32)
        assert list(table.index.get_level_values(0).unique()) == ["anger", "fear", "joy", "sadness", "valence"]
        assert list(table.loc["anger"].index) == list(eec.directions(attribute)) + ["All"]
        assert (table.xs("All", level=1)["#systems"] == 1).all()
    table5 = tables["Table 5"]
    assert table5.loc[("joy", "F↓–M↑ significant"), "#systems"] == 1
    assert table5.loc[("joy", "F↓–M↑ significant"), "avg Δ F↓–M↑"] == pytest.approx(0.1)
    assert table5.loc[("anger", "F↑–M↓ significant"), "avg Δ F↑–M↓"] == pytest.approx(0.1)
    assert tables["Table 7"].loc[("sadness", "AA↑–EA↓ significant"), "avg Δ AA↑–EA↓"] == pytest.approx(0.05)


def test_study_errors(scored, eec_cases):
    with pytest.raises(SchemaError, match="not a scored EEC table"):
        eec.pairs(eec_cases, attribute="gender")
    with pytest.raises(UnknownNameError, match="available: all, emotion:anger"):
        eec.pairs(scored, attribute="gender", subset="happy")
    with pytest.raises(UnknownNameError, match="unknown attribute 'age'"):
        eec.pairs(scored, attribute="age")
    with pytest.raises(InputError, match="alpha"):
        eec.ttests(scored, alpha=5)


def test_incomplete_or_duplicated_eec_tables_are_refused(scored):
    one = scored[scored["model"] == "py:synthetic_models:blind"]
    with pytest.raises(SchemaError, match="lacks a female or male sentence"):
        eec.pairs(one[one["person"] != "my sister"], attribute="gender")
    with pytest.raises(SchemaError, match="twice"):
        eec.pairs(pd.concat([one, one.head(1)]), attribute="gender")


def test_reusing_computes_each_attributes_pairs_once_and_changes_no_number(monkeypatch):
    from toolkit.studies.eec import analysis as study

    scored = _scored_eec_for_reuse()
    plain = study.ttests(scored, subsets=["all"], n_boot=200)
    computed = []
    real = study._pairs
    monkeypatch.setattr(study, "_pairs", lambda *a: computed.append(a[1:]) or real(*a))
    with study.reusing():
        again = study.ttests(scored, subsets=["all"], n_boot=200)
        study.pairs(scored, attribute="gender")
    assert sorted(computed) == [("gender", "all"), ("race", "all")]  # once each, though read 5 times
    pd.testing.assert_frame_equal(plain, again)
    study.pairs(scored, attribute="gender")  # outside the block: computed afresh
    assert len(computed) == 3


def _scored_eec_for_reuse():
    from toolkit.studies.eec.generator import generate

    cases = generate()
    rng = np.random.default_rng(3)
    return cases.assign(model="m", task="valence", score=rng.uniform(size=len(cases)), label="", truncated=False)


def test_eec_valence_defaults_hold_every_model_the_agreement_ranks_and_the_zoos_valence_systems():
    """Round-10 readers (and every round before): the EEC detail figures drew 4 of the 8 models the agreement
    figures rank. Valence now runs the four offline models and the trained zoo's six valence systems (the paper
    scored SemEval-2018 systems); an emotion task the zoo's systems for it, as before."""
    from toolkit.studies import eec

    assert eec.default_models("valence") == [
        "vader", "textblob", "afinn", "minilm-imdb", "ait:svm-unigrams/valence", "ait:svr-ngrams/valence",
        "ait:ridge-chars/valence", "ait:lexicon-ridge/valence", "ait:minilm-ridge/valence", "ait:ensemble/valence"]
    assert eec.default_models("anger") == [f"ait:{s}/anger" for s in (
        "svm-unigrams", "svr-ngrams", "ridge-chars", "lexicon-ridge", "minilm-ridge", "ensemble")]
