"""BTC-SAM statistics (issue 24): Wilson intervals equal to the closed form on hand-made tables, the same-group
pair null and its excess, the pooled forest table and plot."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from toolkit import plots
from toolkit.studies.btcsam import analysis as btcsam
from toolkit.studies.btcsam import figures as btcsam_figures

Z = 1.959963984540054


def _wilson(k: float, n: int) -> tuple[float, float]:
    centre = (k + Z ** 2 / 2) / (n + Z ** 2)
    half = Z * np.sqrt(k * (n - k) / n + Z ** 2 / 4) / (n + Z ** 2)
    return centre - half, centre + half


def _scored(rows):
    return pd.DataFrame(rows, columns=["model", "test_set", "bias_type", "case_id", "score", "label"])


SCORED = _scored([  # m1: case a fails (range .12 > .1), b fails (labels), c passes; m2: only c fails
    ("m1", "s", "gender", "a", 0.50, "positive"), ("m1", "s", "gender", "a", 0.62, "positive"),
    ("m1", "s", "gender", "b", 0.40, "negative"), ("m1", "s", "gender", "b", 0.45, "neutral"),
    ("m1", "s", "gender", "c", 0.30, "negative"), ("m1", "s", "gender", "c", 0.30, "negative"),
    ("m2", "s", "gender", "a", 0.50, "positive"), ("m2", "s", "gender", "a", 0.52, "positive"),
    ("m2", "s", "gender", "b", 0.40, "negative"), ("m2", "s", "gender", "b", 0.40, "negative"),
    ("m2", "s", "gender", "c", 0.10, "negative"), ("m2", "s", "gender", "c", 0.26, "negative"),
])


def test_failure_pct_wilson_columns_equal_the_closed_form():
    out = btcsam.failure_percentage(SCORED, theta=0.1, rule="valence").set_index("model")
    assert tuple(btcsam.failure_percentage(SCORED, theta=0.1, rule="valence").columns) == btcsam.FAILURE_PCT_COLUMNS
    for model, k in (("m1", 2), ("m2", 1)):
        low, high = _wilson(k, 3)
        assert out.loc[model, "failure_pct"] == pytest.approx(100 * k / 3)
        assert out.loc[model, "ci_low"] == pytest.approx(100 * low)
        assert out.loc[model, "ci_high"] == pytest.approx(100 * high)
    # no group column: no same-group pairs, so no null — NaN, and zero cases with pairs
    assert out["null_pct"].isna().all() and (out["n_pair_cases"] == 0).all()


def test_detection_interval_takes_the_case_as_the_unit():
    out = btcsam.detection_intervals(SCORED, thetas=(0.1,), rule="valence").iloc[0]
    assert tuple(btcsam.detection_intervals(SCORED, thetas=(0.1,), rule="valence").columns) == \
        btcsam.DETECTION_CI_COLUMNS
    assert out["detection_probability"] == pytest.approx(0.5) and out["n_cases"] == 3
    low, high = _wilson(1.5, 3)  # p̂·n_cases of n_cases, not 3 of 6 model × case rows
    assert (out["ci_low"], out["ci_high"]) == pytest.approx((low, high))


def _psa_like(*, cross_gap: float, n_cases: int = 20) -> pd.DataFrame:
    """PSA-derived cases: an original and two female and two male names; males score ``cross_gap`` higher."""
    rows = []
    for i in range(n_cases):
        rows.append(("m", "psa", "name", f"x{i}", 0.5, "positive", "", "", True))
        for name, gender in (("F1", "female"), ("F2", "female"), ("M1", "male"), ("M2", "male")):
            value = 0.5 + (cross_gap if gender == "male" else 0.0)
            rows.append(("m", "psa", "name", f"x{i}", value, "positive", name, gender, False))
    return pd.DataFrame(rows, columns=["model", "test_set", "bias_type", "case_id", "score", "label", "group",
                                       "gender", "is_original"]).assign(generator="psa")


def test_text_classes_use_gender_for_psa_rows_and_leave_originals_out():
    classes = btcsam.text_classes(_psa_like(cross_gap=0.0, n_cases=1))
    assert classes.tolist() == ["", "female", "female", "male", "male"]


def test_a_group_biased_model_fails_across_groups_not_within():
    row = btcsam.failure_percentage(_psa_like(cross_gap=0.3), theta=0.2, rule="valence").iloc[0]
    assert row["failure_pct"] == 100.0 and row["n_pair_cases"] == 20
    assert row["null_pct"] == 0.0 and row["cross_pct"] == 100.0 and row["excess_pct"] == 100.0
    assert row["excess_low"] > 0 and row["verdict"] == "a higher"
    low, high = _wilson(0, 20)
    assert (row["null_low"], row["null_high"]) == pytest.approx((100 * low, 100 * high))


def test_a_name_sensitive_unbiased_model_has_no_excess_over_its_null():
    frame = _psa_like(cross_gap=0.0)
    rng = np.random.default_rng(0)
    named = ~frame["is_original"]
    frame.loc[named, "score"] = 0.5 + rng.choice([0.0, 0.3], named.sum())  # any name may jump, whatever its gender
    row = btcsam.failure_percentage(frame, theta=0.2, rule="valence").iloc[0]
    assert row["null_pct"] > 20 and row["excess_low"] < 0 < row["excess_high"]
    assert row["verdict"] not in ("a higher", "b higher")


def test_pooled_failure_and_forest_plot():
    table = btcsam.failure_percentage(SCORED.assign(bias_type=["gender"] * 6 + ["race"] * 6), theta=0.1,
                                      rule="valence")
    pooled = btcsam.pooled_failure_percentage(table)
    assert tuple(pooled.columns) == btcsam.POOLED_COLUMNS
    assert pooled["n_cases"].sum() == 6
    ax = btcsam_figures.btcsam_forest(pooled)
    assert ax.figure.canvas.manager is None and len(ax.get_yticklabels()) == len(pooled)


def test_run_records_the_family_and_figures_include_the_forest_plot():
    from toolkit.studies import btcsam as btcsam_run

    rows = []
    for i, sentence in enumerate(["{} is wonderful.", "{} was awful today.", "I met {} yesterday."]):
        for j, (name, gender) in enumerate((("Anna", "female"), ("Maria", "female"), ("John", "male"),
                                            ("Peter", "male"))):
            rows.append({"case_id": f"x{i}", "variant_id": f"x{i}:{j}", "text": sentence.format(name),
                         "attribute": "name", "group": name, "fill": name, "generator": "psa", "template": f"x{i}",
                         "is_original": False, "gender": gender})
    result = btcsam_run.run(sets={"toy": pd.DataFrame(rows)}, models="vader", cache=False, correction="fdr_bh")
    assert result.provenance.settings["correction"] == "fdr_bh" and "test set" in result.provenance.settings["family"]
    assert tuple(result.detection.columns) == btcsam.DETECTION_CI_COLUMNS
    assert result.failure_pct["n_pair_cases"].iloc[0] == 3
    figures = result.figures()
    assert "btcsam_failure_forest" in figures
    # detection in %, as the failure figures print it (round 13: ".31" beside "31"); the CSV keeps the probability
    detection = figures["btcsam_detection"].figure
    labels = [ax.get_ylabel() for ax in detection.axes if ax.get_label() == "<colorbar>"]
    assert labels == ["detection probability (%)"]
    probability = float(result.detection["detection_probability"].iloc[0])
    cells = [t.get_text().split("\n")[0] for ax in detection.axes for t in ax.texts if t.get_text()[:1].isdigit()]
    assert f"{100 * probability:.0f}" in cells and 0.0 <= probability <= 1.0


def test_rows_without_a_null_say_why():
    """Issue 32: a row with no same-group pairs names the reason; one with pairs has none."""
    bare = btcsam.failure_percentage(SCORED, theta=0.1, rule="valence")
    assert bare["no_test_reason"].str.startswith("no same-group pairs").all()
    paired = btcsam.failure_percentage(_psa_like(cross_gap=0.3), theta=0.2, rule="valence")
    assert (paired["no_test_reason"] == "").all()


@pytest.mark.parametrize("n_cases", [56, 300])
def test_btcsam_identity_terms_are_a_sample_type_one_error_and_coverage(n_cases):
    """The issue's design: a PSA-derived set (every case the same 4 female + 4 male names), each name moving the
    score by its own amount (sd .15), no gender effect. Treating the cases as the only sample gave 7.7 % (56
    cases) and 52.7 % (300 cases) false alarms and a failure-% interval covering the rate over identity terms in
    23-47 %; with the terms as a sample: false alarms at most nominal, and the failure-% interval holds the rate
    over freshly drawn terms in at least 90 % of 40 sets (MC sd 3.4 %)."""
    import synthetic_btcsam as sb

    truth = 100 * sb.population_failure(theta=0.5, n=60_000)
    rejected, covered = [], []
    for rep in range(40):
        row = btcsam.failure_percentage(sb.scored(np.random.default_rng(rep + n_cases), n_cases=n_cases), theta=0.5,
                                        rule="valence").iloc[0]
        assert row["n_pair_cases"] == n_cases and np.isfinite(row["excess_low"])
        assert (row["p_value"] < 0.05) == (not row["excess_low"] <= 0 <= row["excess_high"])  # one t
        rejected.append(row["p_value"] < 0.05)
        covered.append(row["ci_low"] <= truth <= row["ci_high"])
    assert np.mean(rejected) <= 0.075, np.mean(rejected)
    assert np.mean(covered) >= 0.9, np.mean(covered)


def test_btcsam_a_gender_gap_over_name_noise_is_found():
    """Power exists where the gap is large against the names' spread: male names +.4 over names of sd .05."""
    import synthetic_btcsam as sb

    row = btcsam.failure_percentage(sb.scored(np.random.default_rng(5), n_cases=56, term_sd=0.05, gap=0.4),
                                    theta=0.2, rule="valence").iloc[0]
    assert row["verdict"] == "a higher" and row["excess_low"] > 0 and row["cross_pct"] > row["null_pct"]


def test_forest_keeps_the_runs_model_order_within_test_sets_and_its_axis_ends_past_the_data():
    """Rows by test set, then models as the run lists them (the heatmaps' order, not alphabetical); the axis ends
    at the next 10 % past the highest interval end: by hand, 48 % → 50 (+2 of margin)."""
    pooled = pd.DataFrame([{"model": m, "test_set": t, "theta": 0.1, "n_cases": 10, "n_failures": 1,
                            "failure_pct": 10.0, "ci_low": 2.0, "ci_high": high}
                           for t in ("psa", "eec") for m, high in (("vader", 48.0), ("afinn", 30.0))])
    ax = btcsam_figures.btcsam_forest(pooled)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["vader", "afinn", "vader", "afinn"]
    headers = sorted((t.get_position()[1], t.get_text()) for t in ax.texts)
    assert headers == [(0, "EEC"), (3, "PSA")]  # a header row per test set, said once, by its paper's name (round 12)
    assert [t.get_position()[1] for t in ax.get_yticklabels()] == [1, 2, 4, 5]
    assert ax.get_xlim() == (-2.0, 52.0)
    given = btcsam_figures.btcsam_forest(pooled, test_sets=["psa", "baseline"])  # the heatmap's order; eec after
    assert sorted((t.get_position()[1], t.get_text()) for t in given.texts) == [(0, "PSA"), (3, "EEC")]


def test_failure_by_bias_type_names_the_sets_it_pools_in_their_order():
    """Round 29: the pooled failure figure could not say which sets feed each column; the table now does."""
    rows = [("eec", "gender", 10, 2), ("baseline", "gender", 30, 6), ("baseline", "race", 20, 5), ("psa", "name", 8, 0)]
    table = pd.DataFrame([{"model": m, "test_set": s, "bias_type": b, "theta": 0.2, "n_cases": n, "n_failed": k}
                          for m in ("vader", "afinn") for s, b, n, k in rows])
    pooled = btcsam.failure_by_bias_type(table)
    vader = pooled[pooled["model"] == "vader"].set_index("bias_type")
    assert vader.loc["gender", "test_sets"] == "eec, baseline" and vader.loc["gender", "n_sets"] == 2
    assert vader.loc["gender", "n_cases"] == 40 and vader.loc["gender", "n_failed"] == 8
    assert vader.loc["race", "test_sets"] == "baseline" and vader.loc["name", "test_sets"] == "psa"
    assert btcsam_figures.pooled_words(pooled) == (
        "Each column pools, cases summed, every test set holding its bias type (gender: EEC, BTC-SAM baseline; race: "
        "BTC-SAM baseline; name: PSA).")
    assert btcsam_figures.bias_type_words(pooled["bias_type"]) == (
        "Bias types: name: PSA's sentences, each with every one of its names of public figures in place of a "
        "pronoun's referent.")
    assert btcsam_figures.pooled_words(table) == ""  # per set: nothing pooled to name


def test_bias_type_and_pooled_words_take_careless_input():
    """A bare name is a list of one (not its letters); a missing test_sets cell names nothing, not "nan"."""
    assert btcsam_figures.bias_type_words("name") == btcsam_figures.bias_type_words(["name"]) != ""
    assert btcsam_figures.bias_type_words("gender") == ""
    table = pd.DataFrame({"bias_type": ["gender", "race"], "test_sets": ["eec", None]})
    words = btcsam_figures.pooled_words(table)
    assert "nan" not in words and words.startswith("Each column pools") and "gender: EEC" in words
