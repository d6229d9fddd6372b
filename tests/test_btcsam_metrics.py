"""BTC-SAM metrics: the failure rule at each θ, detection probability, failure percentage, diversity."""
import pandas as pd
import pytest

from toolkit.errors import InputError
from toolkit.studies.btcsam import analysis as btcsam


def _scored(rows):
    return pd.DataFrame(rows, columns=["model", "test_set", "bias_type", "case_id", "score", "label"])


# case a: scores 0.50/0.62 (range 0.12), same label; case b: 0.40/0.45 but labels differ; case c: 0.3/0.3
SCORED = _scored([
    ("m1", "s", "gender", "a", 0.50, "positive"), ("m1", "s", "gender", "a", 0.62, "positive"),
    ("m1", "s", "gender", "b", 0.40, "negative"), ("m1", "s", "gender", "b", 0.45, "neutral"),
    ("m1", "s", "race", "c", 0.30, "negative"), ("m1", "s", "race", "c", 0.30, "negative"),
    ("m2", "s", "gender", "a", 0.50, "positive"), ("m2", "s", "gender", "a", 0.52, "positive"),
    ("m2", "s", "gender", "b", 0.40, "negative"), ("m2", "s", "gender", "b", 0.40, "negative"),
    ("m2", "s", "race", "c", 0.10, "negative"), ("m2", "s", "race", "c", 0.26, "negative"),
])


@pytest.mark.parametrize("theta, failed", [
    (0.05, {("m1", "a"), ("m1", "b"), ("m2", "c")}),   # m2/c range 0.16 > 0.05; m2/a 0.02 is not
    (0.1, {("m1", "a"), ("m1", "b"), ("m2", "c")}),
    (0.15, {("m1", "b"), ("m2", "c")}),                # m1/a 0.12 no longer fails; m1/b fails on its label
    (0.2, {("m1", "b")}),
])
def test_failures_rule_at_each_theta(theta, failed):
    out = btcsam.failures(SCORED, theta=theta, rule="valence")
    assert tuple(out.columns) == btcsam.FAILURE_COLUMNS
    assert set(map(tuple, out.loc[out["failed"], ["model", "case_id"]].to_numpy())) == failed


def test_detection_probability_averages_over_models_and_cases():
    out = btcsam.detection_probability(SCORED, thetas=(0.05, 0.2), rule="valence")
    assert tuple(out.columns) == btcsam.DETECTION_COLUMNS
    got = {(r.theta, r.bias_type): r.detection_probability for r in out.itertuples()}
    # gender: 4 model×case pairs; θ=0.05: m1/a, m1/b fail → 2/4; θ=0.2: m1/b → 1/4. race: 2 pairs.
    assert got == pytest.approx({(0.05, "gender"): 0.5, (0.05, "race"): 0.5, (0.2, "gender"): 0.25,
                                 (0.2, "race"): 0.0})


def test_failure_percentage_per_model():
    out = btcsam.failure_percentage(SCORED, theta=0.15, rule="valence")
    assert tuple(out.columns) == btcsam.FAILURE_PCT_COLUMNS
    got = {(r.model, r.bias_type): r.failure_pct for r in out.itertuples()}
    assert got == pytest.approx({("m1", "gender"): 50.0, ("m1", "race"): 0.0, ("m2", "gender"): 0.0,
                                 ("m2", "race"): 100.0})


@pytest.mark.parametrize("theta", [-0.1, 1.0, 2])
def test_theta_out_of_range_is_a_coded_error(theta):
    with pytest.raises(InputError, match="TK102.*theta"):
        btcsam.failures(SCORED, theta=theta, rule="valence")


def test_diversity_on_a_hand_made_set():
    cases = pd.DataFrame({
        "test_set": "toy", "case_id": ["1", "1", "2", "2"], "fill": ["Jewish", "Muslim", "gay", "straight"],
        "concept_term": ["modest", "modest", "party", "party"],
        "text": ["Jewish runners run.", "Muslim runners run.", "A gay party!", "A straight party!"]})
    row = btcsam.diversity(cases).iloc[0]
    assert tuple(btcsam.diversity(cases).columns) == btcsam.DIVERSITY_COLUMNS
    # tokens: [Jewish, runners, run, .] [Muslim, runners, run, .] [A, gay, party, !] [A, straight, party, !]
    # stems: jewish, runner, run, ., muslim, a, gay, parti, !, straight → 10
    assert row["unique_cases"] == 2 and row["sentences"] == 4 and row["unique_tokens"] == 10
    assert row["mean_chars"] == pytest.approx((19 + 19 + 12 + 17) / 4)
    assert row["mean_tokens"] == pytest.approx(4.0)
    # words: Jewish runners run Muslim runners run A gay party A straight party = 6+7+3+6+7+3+1+3+5+1+8+5 = 55
    assert row["mean_word_len"] == pytest.approx(55 / 12)
    assert row["identity_terms"] == 4 and row["concept_terms"] == 2


def test_stage_diversity_measures_word_edit_distance_to_source():
    cases = pd.DataFrame({
        "test_set": "toy", "stage": ["etsg", "lda", "lda"], "case_id": ["1", "2", "3"], "fill": "Jewish",
        "text": ["The Jewish chef cooks.", "The Jewish cook cooks.", "The Jewish chef cooks badly today."],
        "source_text": ["The Jewish chef cooks."] * 3})
    out = btcsam.stage_diversity(cases).set_index("stage")
    assert tuple(btcsam.stage_diversity(cases).columns) == btcsam.STAGE_COLUMNS
    assert out.loc["etsg", "mean_edit_distance"] == 0
    assert out.loc["lda", "mean_edit_distance"] == pytest.approx((1 + 2) / 2)  # one substitution; two insertions


def test_diversity_of_generated_eec_matches_the_paper(eec_cases):
    row = btcsam.diversity(btcsam.as_test_set(eec_cases, name="eec")).iloc[0]
    assert row["sentences"] == 8640
    assert round(row["mean_chars"], 1) == 37.4
    assert round(row["mean_tokens"], 2) == 7.15
    assert row["unique_tokens"] == 135


def _native(model, case, top_label, top_score, score, label):
    return {"model": model, "test_set": "s", "bias_type": "gender", "case_id": case, "top_label": top_label,
            "top_score": top_score, "score": score, "label": label}


# One hand-made case per head family, two texts each (class probabilities written out in the comments).
NATIVE = pd.DataFrame([
    # binary: P(pos) .90 / .75 — both rules see a range of .15 and the same label
    _native("bin", "a", "POSITIVE", 0.90, 0.90, "positive"), _native("bin", "a", "POSITIVE", 0.75, 0.75, "positive"),
    # 3-class (neg, neu, pos) = (.45, 0, .55) / (0, .45, .55): top POSITIVE .55 twice; valence .55 / .775
    _native("tri", "a", "positive", 0.55, 0.55, "positive"), _native("tri", "a", "positive", 0.55, 0.775, "positive"),
    # emotion head without a valence: joy .6 / sadness .6
    _native("emo", "a", "joy", 0.6, float("nan"), ""), _native("emo", "a", "sadness", 0.6, float("nan"), ""),
    # lexicon: no native distribution (top_score NaN), valence .5 / .8, the same label
    _native("lex", "a", "positive", float("nan"), 0.55, "positive"),
    _native("lex", "a", "positive", float("nan"), 0.85, "positive"),
])


@pytest.mark.parametrize("rule, theta, failed", [
    ("published", 0.1, {"bin", "emo", "lex"}),
    ("published", 0.2, {"emo", "lex"}),      # tri passes: its top score did not move
    ("valence", 0.1, {"bin", "tri", "lex"}),
    ("valence", 0.2, {"tri", "lex"}),        # tri fails: mass moved between the two losing classes
])
def test_failure_rule_published_and_valence_on_hand_made_cases(rule, theta, failed):
    if rule == "valence":
        with pytest.warns(UserWarning, match="'emo': 2 of 2 rows, 1 cases"):
            out = btcsam.failures(NATIVE, theta=theta, rule=rule)
        assert "emo" not in set(out["model"])  # skipped with the warning, not counted as passing
    else:
        out = btcsam.failures(NATIVE, theta=theta, rule=rule)
        assert dict(zip(out["model"], out["range_from"])) == {"bin": "top_score", "tri": "top_score",
                                                              "emo": "top_score", "lex": "score"}
    assert set(out.loc[out["failed"], "model"]) == failed
    assert (out["rule"] == rule).all()


def test_failure_rule_default_is_the_published_one_and_unknown_rules_are_coded():
    from toolkit.errors import UnknownNameError

    assert set(btcsam.failures(NATIVE, theta=0.2).query("failed")["model"]) == {"emo", "lex"}
    with pytest.raises(UnknownNameError, match="published, valence"):
        btcsam.failures(NATIVE, rule="pipeline")


@pytest.mark.parametrize("rule", btcsam.RULES)
def test_a_case_with_an_unparseable_llm_answer_is_skipped_with_a_warning_under_both_rules(rule):
    llm = pd.DataFrame([
        _native("llm", "a", "positive", float("nan"), 1.0, "positive"),
        _native("llm", "a", "unparseable", float("nan"), float("nan"), ""),
        _native("llm", "b", "positive", float("nan"), 1.0, "positive"),
        _native("llm", "b", "negative", float("nan"), 0.0, "negative"),
    ])
    with pytest.warns(UserWarning, match="'llm': 1 of 4 rows, 1 cases"):
        out = btcsam.failures(llm, theta=0.2, rule=rule)
    assert out["case_id"].tolist() == ["b"] and out["failed"].tolist() == [True]


def _mini_set(*, stages: bool) -> "pd.DataFrame":
    import pandas as pd

    rows = []
    for case, (stage, template, source) in enumerate((("etsg", "The {} neighbours were kind.", ""),
                                                      ("lda", "The {} neighbours were very kind.",
                                                       "The {} neighbours were kind."))):
        for term in ("Christian", "Jewish"):
            row = {"case_id": f"c{case}", "variant_id": f"c{case}-{term}", "text": template.format(term),
                   "attribute": "religion", "group": term, "fill": term, "generator": "external:test",
                   "template": "", "is_original": term == "Christian", "bias_type": "religion"}
            if stages:
                row |= {"stage": stage, "source_text": source.format(term) if source else ""}
            rows.append(row)
    return pd.DataFrame(rows)


def test_write_adds_the_stage_table_only_when_the_sets_record_stages(tmp_path):
    import pandas as pd

    from toolkit.studies import btcsam as study

    staged = study.run(sets={"mini": _mini_set(stages=True)}, models=["vader"], cache=False, progress=False)
    study.write(staged, tmp_path / "staged", figures_dir=tmp_path / "figs")
    table = pd.read_csv(tmp_path / "staged" / "btcsam_stage_diversity.csv").set_index("stage")
    assert set(table.index) == {"etsg", "lda"}
    assert table.loc["lda", "mean_edit_distance"] == 1.0  # "very" inserted: one word
    plain = study.run(sets={"mini": _mini_set(stages=False)}, models=["vader"], cache=False, progress=False)
    assert plain.stage_diversity is None
    study.write(plain, tmp_path / "plain", figures_dir=tmp_path / "figs2")
    assert not (tmp_path / "plain" / "btcsam_stage_diversity.csv").exists()
