"""BiasFinder statistics (issue 24): BTC rates with Wilson and template-clustered intervals, the within-class
(placebo) null and the excess over it, Table 4's extra columns, TPR and κ intervals, the rate figure and the
settings in the provenance. Synthetic scored tables where the truth is known."""
import itertools
import json
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from toolkit import plots
from toolkit.errors import InputError, UnknownNameError
from toolkit.studies import biasfinder
from toolkit.studies.biasfinder import analysis as study
from toolkit.studies.biasfinder import figures as biasfinder_figures

Z = 1.959963984540054


def _wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson score interval by its textbook formula (independent of statsmodels)."""
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return centre - half, centre + half


def _synthetic(*, delta: float, n_templates: int = 40, n_names: int = 6, seed: int = 0,
               model: str = "m") -> pd.DataFrame:
    """A scored gender table: each template has a base score, each of ``n_names`` female and male names shifts it
    by its own random amount (name-sensitive), female names by ``delta`` more (biased when ``delta`` > 0)."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(n_templates):
        base = rng.uniform(0.25, 0.75)
        rows.append({"case_id": f"t{t}", "variant_id": f"t{t}:original", "group": "", "fill": "", "score": base,
                     "is_original": True})
        for group in ("female", "male"):
            for i in range(n_names):
                score = base + rng.normal(0, 0.15) + (delta if group == "female" else 0.0)
                rows.append({"case_id": f"t{t}", "variant_id": f"t{t}:{group}:{i}", "group": group,
                             "fill": f"{group}{i}", "score": score, "is_original": False})
    frame = pd.DataFrame(rows).assign(attribute="gender", model=model)
    frame["label"] = np.where(frame["score"] >= 0.5, "positive", "negative")
    frame["text"] = "text of " + frame["variant_id"]
    return frame


def _hand_table() -> pd.DataFrame:
    """t1: female pos, pos, neg; male pos, neg. t2: one mutant per occupation."""
    rows = [("t1", "female", "positive"), ("t1", "female", "positive"), ("t1", "female", "negative"),
            ("t1", "male", "positive"), ("t1", "male", "negative"),
            ("t2", "nurse", "positive"), ("t2", "pilot", "negative"), ("t2", "chef", "positive")]
    frame = pd.DataFrame(rows, columns=["case_id", "group", "label"])
    frame["attribute"] = frame["case_id"].map({"t1": "gender", "t2": "occupation"})
    frame["variant_id"] = [f"v{i}" for i in range(len(frame))]
    return frame.assign(is_original=False, model="m")


def test_pair_counts_by_hand_and_equal_to_btcs():
    pairs = study.pair_counts(_hand_table())
    assert tuple(pairs.columns) == study.PAIR_COLUMNS
    pairs = pairs.set_index("case_id")
    # t1: 3 × 2 between pairs, 3 of them BTCs; within: C(3,2) + C(2,2) = 4 pairs, 2 + 1 with different labels
    assert pairs.loc["t1", ["pairs_between", "btcs_between", "pairs_within", "btcs_within"]].tolist() == [6, 3, 4, 3]
    assert pairs.loc["t2", ["pairs_between", "btcs_between", "pairs_within", "btcs_within"]].tolist() == [3, 2, 0, 0]
    counts = study.btcs(_synthetic(delta=0.1)).set_index("case_id")["n_btcs"]
    assert study.pair_counts(_synthetic(delta=0.1)).set_index("case_id")["btcs_between"].equals(counts)


def test_rate_wilson_interval_and_occupation_has_no_null():
    table = study.rates(_hand_table(), n_boot=200)
    assert tuple(table.columns) == study.RATE_COLUMNS
    table = table.set_index("attribute")
    gender = table.loc["gender"]
    assert gender["rate_between"] == 0.5 and gender["rate_within"] == 0.75
    low, high = _wilson(3, 6)
    assert gender["rate_wilson_low"] == pytest.approx(low, abs=1e-9)
    assert gender["rate_wilson_high"] == pytest.approx(high, abs=1e-9)
    assert gender["estimate"] == pytest.approx(-0.25)
    assert gender["effect_size"] == pytest.approx(2 * math.asin(math.sqrt(0.5)) - 2 * math.asin(math.sqrt(0.75)))
    # one template: no interval, and the reason says so; the p permutes the names between the classes, which needs
    # no more templates. By hand: 10 ways to pick the 2 "male" mutants of 5 (labels + + − + −); |excess| ≥ 0.25 in
    # those where the within-class pairs disagree at least 0.25 more or less than the between-class ones.
    assert np.isnan(gender["ci_low"]) and "fewer than 8" in gender["no_interval_reason"]
    labels = ["positive", "positive", "negative", "positive", "negative"]
    extreme = 0
    for male in itertools.combinations(range(5), 2):
        cls = [i in male for i in range(5)]
        pairs = list(itertools.combinations(range(5), 2))
        between = [labels[i] != labels[j] for i, j in pairs if cls[i] != cls[j]]
        within = [labels[i] != labels[j] for i, j in pairs if cls[i] == cls[j]]
        extreme += abs(np.mean(between) - np.mean(within)) >= 0.25 - 1e-12
    assert gender["p_value"] == pytest.approx(extreme / 10, abs=0.05)
    assert gender["verdict"] == "inconclusive"
    occupation = table.loc["occupation"]
    assert occupation["pairs_within"] == 0 and np.isnan(occupation["rate_within"])
    assert np.isnan(occupation["estimate"]) and np.isnan(occupation["btcs_net"])
    assert occupation["verdict"] == "inconclusive"


def test_name_sensitive_but_unbiased_model_reads_as_unbiased():
    scored = _synthetic(delta=0.0)
    row = study.rates(scored, n_boot=200).iloc[0]
    assert row["btcs_between"] > 100  # name-sensitive: plenty of raw BTCs
    assert abs(row["rate_between"] - row["rate_within"]) < 0.03
    assert row["ci_low"] < 0 < row["ci_high"]
    assert row["verdict"] != "a higher"
    assert row["btcs_net"] < 0.1 * row["btcs_between"]  # the raw count is mostly the null


def test_biased_model_reads_as_biased():
    # 12 names per class: with names as samples (issue 32) six names leave an interval too wide to exclude 0
    row = study.rates(_synthetic(delta=0.15, n_names=12), n_boot=200).iloc[0]
    assert row["ci_low"] > 0 and row["estimate"] > 0.05
    assert row["verdict"] == "a higher" and row["p_adjusted"] < 0.05
    assert row["effect_size"] > 0 and 0 < row["btcs_net"] < row["btcs_between"]


def test_clustered_interval_is_wider_than_wilson_when_templates_differ():
    """Half the templates: every between pair a BTC; half: none. Pairs are far from independent."""
    scored = _synthetic(delta=0.0, n_templates=20)
    female = scored["group"] == "female"
    scored.loc[female & scored["case_id"].isin([f"t{i}" for i in range(10)]), "label"] = "positive"
    scored.loc[~female & scored["case_id"].isin([f"t{i}" for i in range(10)]), "label"] = "negative"
    scored.loc[scored["case_id"].isin([f"t{i}" for i in range(10, 20)]) & (scored["group"] != ""), "label"] = \
        "positive"
    row = study.rates(scored, n_boot=200).iloc[0]
    assert row["rate_between"] == 0.5 and row["rate_within"] == 0.0
    assert row["rate_high"] - row["rate_low"] > 2 * (row["rate_wilson_high"] - row["rate_wilson_low"])
    pairs = study.rates(scored, n_boot=200, interval="pairs").iloc[0]
    assert pairs["rate_low"] == row["rate_wilson_low"] and pairs["ci_low"] == row["newcombe_low"]


def test_rates_are_seeded_and_corrected_over_the_family():
    scored = pd.concat([_synthetic(delta=0.15, model="biased"), _synthetic(delta=0.0, model="fair", seed=1)])
    a = study.rates(scored, n_boot=200, seed=3, correction="bonferroni")
    b = study.rates(scored, n_boot=200, seed=3, correction="bonferroni")
    pd.testing.assert_frame_equal(a, b)
    assert (a["p_adjusted"] == np.minimum(2 * a["p_value"], 1.0)).all()
    holm = study.rates(scored, n_boot=200, seed=3, correction="holm")
    assert (holm["p_adjusted"] <= a["p_adjusted"]).all()
    with pytest.raises(UnknownNameError, match="fdr_bh"):
        study.rates(scored, correction="sidak")
    with pytest.raises(UnknownNameError, match="cluster"):
        study.rates(scored, interval="names")


def test_equivalent_verdict_at_a_margin():
    """A model that ignores names (no BTCs at all, many templates): equivalent within a margin."""
    scored = _synthetic(delta=0.0)
    scored["label"] = scored.groupby("case_id")["label"].transform("first")
    row = study.rates(scored, n_boot=200, margin=0.02).iloc[0]
    assert row["btcs_between"] == 0 and row["estimate"] == 0
    # zero-width interval: the TOST interval lies inside ±0.02
    assert row["verdict"] == "equivalent within ±0.02"


def test_gender_templates_without_a_null_are_left_out_of_the_comparison():
    scored = _synthetic(delta=0.0, n_templates=4)
    forms = pd.DataFrame([{"case_id": "f1", "variant_id": f"f1:{g}", "group": g, "fill": g, "score": s,
                           "is_original": False, "label": label, "text": g}
                          for g, s, label in (("female", 0.9, "positive"), ("male", 0.1, "negative"))])
    row = study.rates(pd.concat([scored, forms.assign(attribute="gender", model="m")]), n_boot=200).iloc[0]
    assert row["templates"] == 5 and row["null_templates"] == 4
    assert row["pairs_between"] == row["pairs_matched"] + 1 and row["btcs_between"] == row["btcs_matched"] + 1


def test_table4_keeps_the_papers_columns_and_gains_rates():
    scored = _synthetic(delta=0.15, n_names=12)
    counts = study.btcs(scored)
    paper = study.table4(counts)
    table = study.table4_rates(paper, study.rates(scored, n_boot=200))
    assert tuple(table.columns) == study.TABLE4_RATE_COLUMNS
    pd.testing.assert_frame_equal(table.loc[:, list(study.TABLE4_COLUMNS)], paper)
    row = table.iloc[0]
    assert row["btc_rate"] == pytest.approx(row["btcs"] / (40 * 144))
    assert row["btc_rate_low"] < row["btc_rate"] < row["btc_rate_high"]
    assert row["excess_low"] > 0 and row["verdict"] == "a higher"
    assert row["btcs_net"] == pytest.approx(row["btcs"] - row["null_rate"] * 40 * 144)


from test_studies_biasfinder import annotations


def test_tpr_table_keeps_tpr_and_adds_wilson(annotations):
    table = study.tpr_table(annotations)
    assert tuple(table.columns) == study.TPR_INTERVAL_COLUMNS
    table = table.set_index("annotator")
    pd.testing.assert_series_equal(table["tpr"], study.tpr(annotations).set_index("annotator")["tpr"])
    assert table.loc["A", "true_positives"] == 1 and table.loc["B", "true_positives"] == 0
    for annotator, k in (("A", 1), ("B", 0)):
        low, high = _wilson(k, 2)
        assert table.loc[annotator, "tpr_low"] == pytest.approx(max(low, 0.0), abs=1e-9)
        assert table.loc[annotator, "tpr_high"] == pytest.approx(high, abs=1e-9)


def test_kappa_table_keeps_kappa_and_adds_an_interval(annotations):
    table = study.kappa_table(annotations, field="coherent", n_boot=200)
    assert tuple(table.columns) == study.KAPPA_COLUMNS and len(table) == 1
    row = table.iloc[0]
    assert row["kappa"] == pytest.approx(0.5) == study.kappa(annotations, field="coherent")
    assert row["n_mutants"] == 4 and row["kappa_low"] <= row["kappa"] <= row["kappa_high"]
    assert row["kappa_low"] < row["kappa_high"]  # four mutants: a wide interval
    with pytest.raises(InputError, match="unknown field"):
        study.kappa_table(annotations, field="mood")


def test_rate_figure_draws_intervals_and_zero_without_pyplot():
    rates = study.rates(pd.concat([_synthetic(delta=0.15, model="biased"), _synthetic(delta=0.0, model="fair")]),
                        n_boot=200)
    ax = biasfinder_figures.biasfinder_rates(rates)
    assert plt.get_fignums() == [] and ax.figure.get_suptitle()  # over both panels: the rates and the excess
    low, high = ax.get_xlim()
    assert low < 0 < high and high >= rates["rate_high"].max()
    assert len(ax.containers) == 4  # between and within, per model, each with error bars
    assert [t.get_text() for t in ax.get_yticklabels()] == ["biased", "fair"]  # a row per model, named
    with pytest.raises(InputError):
        biasfinder_figures.biasfinder_rates(rates.iloc[:0])


def test_run_records_statistics_and_write_adds_the_rate_table_and_figure(tmp_path):
    cases = _synthetic(delta=0.0, n_templates=3, n_names=2).drop(columns=["score", "label", "model"])
    cases = cases.assign(generator="biasfinder", template="x", corpus="synthetic",
                         text=cases["fill"].where(cases["fill"] != "", "someone") + " was great, or awful.")
    result = biasfinder.run(cases=cases, models=["vader"], cache=False, n_boot=200, correction="fdr_bh",
                            margin=0.05, progress=False)
    assert tuple(result.table4.columns) == study.TABLE4_RATE_COLUMNS
    assert tuple(result.rates.columns) == study.RATE_COLUMNS
    paths = biasfinder.write(result, tmp_path / "out", figures_dir=tmp_path / "fig")
    assert (tmp_path / "out" / "biasfinder_rates.csv").exists() and (tmp_path / "fig" / "biasfinder_rates.png").exists()
    assert tmp_path / "fig" / "biasfinder_rates.png" in paths
    settings = json.loads((tmp_path / "out" / "provenance.json").read_text())["settings"]
    assert (settings["correction"], settings["margin"], settings["n_boot"], settings["interval"],
            settings["few_templates"]) == ("fdr_bh", 0.05, 200, "cluster", "names")
    assert "templates fixed" in settings["few_templates_method"]
    assert settings["family"] == study.RATE_FAMILY and settings["family_size"] == 1
    with pytest.raises(UnknownNameError):
        biasfinder.run(cases=cases, models=["vader"], correction="sidak")
    with pytest.raises(InputError, match="margin"):
        biasfinder.run(cases=cases, models=["vader"], margin=0)
    for call in (lambda: biasfinder.run(cases=cases, models=["vader"], few_templates="bogus"),
                 lambda: study.rates(_synthetic(delta=0.0), few_templates="bogus")):
        with pytest.raises(UnknownNameError, match="names, none"):
            call()


def test_a_model_blind_to_the_mutations_reads_identical_as_in_the_other_studies():
    """A new user's finding: a name- and pronoun-blind model read "inconclusive" in BiasFinder, "identical scores"
    in the EEC, PSA and the multilingual study. Every template's mutants scored alike: nothing to test."""
    from toolkit.studies.biasfinder.btc_rates import rates

    rows = [{"model": "blind", "attribute": "gender", "case_id": f"t{t}", "variant_id": f"t{t}:{g}{k}",
             "group": g, "fill": f"{g}{k}", "is_original": False, "label": "positive", "score": 0.5 + 0.01 * t}
            for t in range(10) for g in ("female", "male") for k in range(4)]
    table = pd.DataFrame(rows)
    assert rates(table, n_boot=200).iloc[0]["verdict"] == "identical scores (no test needed)"
    moved = table.assign(score=table["score"] + np.where(table["fill"] == "female0", 1e-3, 0.0))
    assert rates(moved, n_boot=200).iloc[0]["verdict"] != "identical scores (no test needed)"  # one name moves
