"""The Câmara et al. regression as the paper ran it, on fixed inputs checked by hand and by an independent
implementation, and the sound regression's type I error and coverage simulated in the corpus's real design."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_DATA

from toolkit.studies.multilingual import corpora, regression


def _cells(values: dict[tuple[int, int], list[float]]) -> tuple[np.ndarray, np.ndarray]:
    y, x = [], []
    for (race, female), scores in values.items():
        for v in scores:
            y.append(v)
            x.append([race, female, race * female])
    return np.array(y), np.array(x, dtype=float)


def test_regression_paper_fit_reproduces_a_symmetric_input_worked_by_hand():
    """Every cell holds 0.2 and 0.8 twice: every cell mean is 0.5, so β = (0, 0, 0) (μ = expit(0) = 0.5 fits each
    cell). By hand: residuals ±0.3, RSS = 16 · 0.09 = 1.44, σ̂² = 1.44 / (16 − 3 − 1) = 0.12; XᵀX =
    [[8, 4, 4], [4, 8, 4], [4, 4, 4]], det 64, (XᵀX)⁻¹ diagonal (16, 16, 48) / 64 = (0.25, 0.25, 0.75); se =
    √(0.12 · 0.25) = 0.173205…, √(0.12 · 0.75) = 0.3; t = 0, p = 1, df = 12."""
    y, x = _cells({cell: [0.2, 0.8, 0.2, 0.8] for cell in ((0, 0), (1, 0), (0, 1), (1, 1))})
    out = regression.paper_fit(y, x).set_index("term")
    assert out["estimate"].abs().max() < 1e-4
    assert out["se"].to_numpy() == pytest.approx([0.1732051, 0.1732051, 0.3], abs=2e-6)
    assert out["df"].eq(12).all() and out["p_value"].to_numpy() == pytest.approx([1, 1, 1], abs=1e-3)


def test_regression_paper_fit_reproduces_an_independent_beta_fit_and_its_own_standard_errors():
    """Cells (1, 0) and (0, 1) mirror each other around 0.5 (y ↔ 1 − y), so β_race = −β_gender exactly. The
    coefficients and the precision are statsmodels' BetaModel on the same data without a constant (an independent
    implementation of the likelihood; the paper's 10⁻⁶ changes them below 10⁻⁴): β = (−0.50591, 0.50591,
    0.41628), φ = exp(3.78294) = 43.95. The standard errors follow the paper's formula with the (XᵀX)⁻¹ diagonal of
    the test above: σ̂² = 0.0070865 (RSS / 12), se = √(σ̂² · 0.25) = 0.042091, √(σ̂² · 0.75) = 0.072903."""
    y, x = _cells({(0, 0): [0.40, 0.45, 0.55, 0.60], (1, 0): [0.30, 0.35, 0.40, 0.45],
                   (0, 1): [0.55, 0.60, 0.65, 0.70], (1, 1): [0.50, 0.55, 0.60, 0.75]})
    out = regression.paper_fit(y, x).set_index("term")
    assert out.loc["race", "estimate"] == pytest.approx(-out.loc["gender", "estimate"], abs=1e-4)
    assert out["estimate"].to_numpy() == pytest.approx([-0.50591, 0.50591, 0.41628], abs=1e-4)
    assert out["phi"].iloc[0] == pytest.approx(43.95, abs=0.05)
    assert out["se"].to_numpy() == pytest.approx([0.042091, 0.042091, 0.072903], abs=2e-6)
    assert out.loc["race", "statistic"] == pytest.approx(-12.02, abs=0.01) and out["df"].eq(12).all()


def test_regression_sound_fit_has_an_intercept_and_reads_cell_differences():
    """With an intercept the fractional logit's coefficients are the logit differences between the cell means:
    race = logit(0.375) − logit(0.5), gender = logit(0.625) − logit(0.5) for the cells above."""
    y, x = _cells({(0, 0): [0.40, 0.45, 0.55, 0.60], (1, 0): [0.30, 0.35, 0.40, 0.45],
                   (0, 1): [0.55, 0.60, 0.65, 0.70], (1, 1): [0.50, 0.55, 0.60, 0.75]})
    templates = [0, 1, 2, 3] * 4
    names = list(range(16))
    out = regression.sound_fit(y, x, templates=templates, names=names, cluster="name").set_index("term")
    logit = lambda p: np.log(p / (1 - p))
    assert out.loc["intercept", "estimate"] == pytest.approx(0.0, abs=1e-8)
    assert out.loc["race", "estimate"] == pytest.approx(logit(0.375), abs=1e-6)
    assert out.loc["gender", "estimate"] == pytest.approx(logit(0.625), abs=1e-6)
    assert out.loc["interaction", "estimate"] == pytest.approx(logit(0.6) - logit(0.375) - logit(0.625), abs=1e-6)
    assert out["df"].eq(12).all()


@pytest.fixture(scope="module")
def spanish_names():
    folder = SHARED_DATA / "multilingual_eec"
    if not (folder / "camara2022" / "es.csv").is_file():
        pytest.skip("the multilingual EEC corpora are not in ../shared/data/multilingual_eec")
    table = corpora.load(sources=["camara2022"], languages=["es"], root=folder)
    return table[table["race"] != ""]


@pytest.mark.shared_data
def test_regression_simulation_the_paper_rejects_a_null_the_sound_version_keeps(spanish_names):
    """The corpus's own design (11 templates, 40 names, its emotion words), no group effect, base score 0.38: the
    paper's coefficients test 'a cell's mean is 0.5', so they reject almost always; the sound version's type I
    error stays near 5 % (30 seeded replicates: bound 0.2, i.e. 6 of 30)."""
    sim = regression.simulate(spanish_names, n_reps=30, seed=3, base=-0.5, cluster="name").set_index(
        ["method", "term"])
    assert (sim.loc["paper", "rejection_rate"] >= 0.9).all()
    assert (sim.loc["sound", "rejection_rate"] <= 0.2).all()


@pytest.mark.shared_data
def test_regression_simulation_the_sound_version_covers_known_effects(spanish_names):
    """Known effects (race 0.3, gender −0.2, interaction 0.2 on the logit scale): the sound version's 95 %
    intervals cover the population contrast in at least 80 % of 30 seeded replicates; the paper's cover the effects
    it claims to estimate almost never."""
    sim = regression.simulate(spanish_names, n_reps=30, seed=4, base=-0.5, cluster="name",
                              effects={"race": 0.3, "gender": -0.2, "interaction": 0.2}).set_index(["method", "term"])
    assert (sim.loc["sound", "coverage"] >= 0.8).all()
    assert (sim.loc["paper", "coverage"] <= 0.2).all()
    truth = sim.loc["sound", "truth"]
    assert truth["race"] == pytest.approx(0.3, abs=0.05) and truth["gender"] == pytest.approx(-0.2, abs=0.05)


@pytest.mark.shared_data
def test_regression_fit_labels_both_methods(spanish_names):
    rng = np.random.default_rng(0)
    scored = spanish_names.assign(model="synthetic", task="valence", score=rng.uniform(0.2, 0.8, len(spanish_names)),
                                  label="", truncated=False)
    out = regression.fit(scored)
    assert set(out["method"]) == {"paper", "sound"}
    assert out.loc[out["method"] == "paper", "label"].iloc[0].startswith("Câmara et al. 2022 as run")
    assert set(out.loc[out["method"] == "paper", "term"]) == {"race", "gender", "interaction"}
    assert "intercept" in set(out.loc[out["method"] == "sound", "term"])
    assert isinstance(out, pd.DataFrame) and out["p_adjusted"].notna().sum() == 6


@pytest.mark.shared_data
def test_regression_sound_fit_of_a_person_blind_system_is_zero_with_p_one(spanish_names):
    """A system that scores each English frame (template × English emotion word, shared by every person) alike
    whoever it is about: its fit's rounding (1e-16 with an even smaller se) was once 'significant'; now the sound
    terms are 0, p 1, with the reason. A system that scores the Spanish feminine forms (enojada) apart from the
    masculine ones (enojado) does depend on gender, though no sentence frame holds both: its gender term is read."""
    frame = pd.factorize(spanish_names["template_id"].astype(str) + "|" + spanish_names["emotion_word_en"])[0]
    blind = spanish_names.assign(model="blind", task="valence", score=0.2 + (frame % 7) / 10, label="",
                                 truncated=False)
    out = regression.fit(blind)
    sound = out[(out["method"] == "sound") & (out["term"] != "intercept")]
    assert sound["estimate"].eq(0).all() and sound["p_value"].eq(1).all() and sound["p_adjusted"].eq(1).all()
    assert sound["reason"].eq(regression.IDENTICAL_REASON).all()
    feminine = spanish_names["emotion_word"].str.endswith("a") & (spanish_names["gender"] == "female")
    forms = blind.assign(model="forms", score=np.where(feminine, 0.5, 0.3))  # a lexicon of masculine forms only
    gender = regression.fit(forms).query("method == 'sound' and term == 'gender'")
    assert gender["reason"].eq("").all() and gender["p_value"].lt(0.05).all() and (gender["estimate"] != 0).all()


@pytest.mark.shared_data
def test_regression_perfect_separation_is_said_in_each_rows_reason_not_as_a_raw_warning(spanish_names):
    """A 0/1 lexicon that scores one cell 1 and the rest 0 separates the fractional logit perfectly: statsmodels'
    PerfectSeparationWarning is read into the sound terms' reason, and no raw warning reaches the user."""
    import warnings

    from statsmodels.tools.sm_exceptions import PerfectSeparationWarning

    one_cell = spanish_names["race"].isin(regression.MINORITIZED) & (spanish_names["gender"] == "female")
    scored = spanish_names.assign(model="zero-one", task="valence", score=np.where(one_cell, 1.0, 0.0), label="",
                                  truncated=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerfectSeparationWarning)
        out = regression.fit(scored)
    sound = out[out["method"] == "sound"]
    assert sound["reason"].eq(regression.SEPARATION_REASON).any()
    assert sound["reason"].isin([regression.SEPARATION_REASON, regression.IDENTICAL_REASON]).all()
