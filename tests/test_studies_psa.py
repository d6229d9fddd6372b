import numpy as np
import pandas as pd
import pytest

from toolkit import corpora
from toolkit.errors import SchemaError
from toolkit.scoring import score
from toolkit.studies.psa import analysis as psa
from toolkit.studies.psa.generator import generate

BASE = [0.2, 0.4, 0.6, 0.8]
NAMES = {"A": ("female", "c1"), "B": ("male", "c2"), "C": ("male", "c1")}


def _scored(base=BASE, bump=None):
    """Hand-built scored PSA table: f(x_n) = f(x) except name A, which gets ``bump`` (default +0.1)."""
    bump = {"A": 0.1} if bump is None else bump
    rows = []
    for i, f in enumerate(base):
        rows.append({"case_id": f"x{i}", "fill": "", "is_original": True, "gender": "", "category": "", "score": f})
        for name, (gender, category) in NAMES.items():
            rows.append({"case_id": f"x{i}", "fill": name, "is_original": False, "gender": gender,
                         "category": category, "score": f + bump.get(name, 0.0)})
    return pd.DataFrame(rows).assign(model="m", corpus="c")


def test_score_sens_is_the_bump_for_one_name_and_zero_for_the_others():
    sens = psa.score_sens(_scored()).set_index("name")
    assert list(psa.NAME_COLUMNS) == ["model", "corpus", "name", "gender", "category", "score_sens", "n_texts",
                                      "score_sens_low", "score_sens_high"]  # the interval: issue 32
    assert sens.loc["A", "score_sens"] == pytest.approx(0.1)
    assert sens.loc["B", "score_sens"] == 0 and sens.loc["C", "score_sens"] == 0
    assert sens.loc["A", "n_texts"] == 4 and sens.loc["A", "gender"] == "female"


def test_score_range_and_dev_follow_their_definitions():
    row = psa.summary(_scored(), n_boot=0).iloc[0]
    assert row["score_range"] == pytest.approx(0.1)
    assert row["score_dev"] == pytest.approx(np.std([0.1, 0, 0]))  # population std over names, same per sentence
    assert row["n_texts"] == 4 and row["n_names"] == 3 and np.isnan(row["score_dev_low"])


def test_a_name_blind_model_has_exactly_zero_dev_and_range():
    rng = np.random.default_rng(0)
    row = psa.summary(_scored(base=list(rng.uniform(0, 1, 30)), bump={}), n_boot=10).iloc[0]
    assert row["score_dev"] == 0.0 and row["score_range"] == 0.0


def test_label_dist_at_a_threshold_between():
    table = psa.label_dist(_scored(), thresholds=[0.65]).iloc[0]
    # originals ≥ .65: {x3}; name A: {x2, x3} → Jaccard distance 1/2; B and C: identical → 0; mean over names 1/6
    assert table["label_dist"] == pytest.approx(0.5 / 3)


def test_label_dist_when_both_sets_are_empty_or_full():
    table = psa.label_dist(_scored(), thresholds=[0.01, 0.99]).set_index("threshold")["label_dist"]
    assert table[0.01] == 0.0 and table[0.99] == 0.0
    assert psa.jaccard_distance(np.zeros(3, bool), np.zeros(3, bool)) == 0.0
    assert psa.jaccard_distance(np.array([True, False]), np.array([False, True])) == 1.0


def test_label_flips_per_name():
    flips = psa.label_flips(_scored(), threshold=0.65).set_index("name")["flip_rate"]
    assert flips["A"] == pytest.approx(0.25) and flips["B"] == 0 and flips["C"] == 0


def _wilson_by_hand(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson (1927): (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n)."""
    p = k / n
    centre, half = p + z * z / (2 * n), z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def test_label_flips_count_their_sentences_and_carry_wilson_intervals():
    """Name A flips 1 of 4 sentences at c = .65 (x2 rises to .7): Wilson by hand; B and C flip none: [0, 0.49]."""
    flips = psa.label_flips(_scored(), threshold=0.65).set_index("name")
    assert flips.loc["A", ["flips", "n_sentences"]].tolist() == [1, 4]
    assert (flips.loc["A", "flip_low"], flips.loc["A", "flip_high"]) == pytest.approx(_wilson_by_hand(1, 4))
    assert flips.loc["B", "flip_low"] == 0 and flips.loc["B", "flip_high"] == pytest.approx(_wilson_by_hand(0, 4)[1])
    wide = psa.label_flips(_scored(), threshold=0.65, alpha=0.2).set_index("name")
    assert wide.loc["A", "flip_high"] < flips.loc["A", "flip_high"]  # an 80 % interval is narrower
    assert set(flips["n_sentences"]) == {4} and set(flips["flips"]) == {0, 1}


def test_label_flip_intervals_cover_the_population_rate_in_psas_design():
    """PSA's design: 56 sentences drawn from a population, each sentence with its own chance that a name flips its
    label (Beta(0.3, 3): most never, a few near the threshold often; population rate 0.3/3.3 ≈ 0.091), 10 names
    scored in every sentence. Each name's 95 % Wilson interval covers the population rate in 93-99 % of 300 runs."""
    rng = np.random.default_rng(11)
    truth, covered = 0.3 / 3.3, []
    for _ in range(300):
        chance = rng.beta(0.3, 3.0, 56)
        base = rng.uniform(0.0, 0.45, 56)  # every original negative at c = 0.5
        rows = [{"case_id": f"x{i}", "fill": "", "is_original": True, "gender": "", "category": "", "score": b}
                for i, b in enumerate(base)]
        for name in range(10):
            flipped = rng.random(56) < chance
            rows += [{"case_id": f"x{i}", "fill": f"n{name}", "is_original": False, "gender": "female",
                      "category": "c", "score": 0.9 if f else b} for i, (b, f) in enumerate(zip(base, flipped))]
        flips = psa.label_flips(pd.DataFrame(rows).assign(model="m", corpus="c"), threshold=0.5)
        covered += list((flips["flip_low"] <= truth) & (truth <= flips["flip_high"]))
    assert 0.93 <= np.mean(covered) <= 0.99


def test_bootstrap_is_reproducible_with_a_seed_and_brackets_the_estimate():
    rng = np.random.default_rng(3)
    scored = _scored(base=list(rng.uniform(0.1, 0.8, 40)), bump={"A": 0.1, "B": -0.05})
    scored.loc[scored["fill"] == "C", "score"] += rng.normal(0, 0.05, 40)
    first, again = psa.summary(scored, seed=7), psa.summary(scored, seed=7)
    pd.testing.assert_frame_equal(first, again)
    other = psa.summary(scored, seed=8)
    assert other["score_dev_low"].iloc[0] != first["score_dev_low"].iloc[0]
    row = first.iloc[0]
    assert row["score_dev_low"] <= row["score_dev"] <= row["score_dev_high"]
    assert row["score_range_low"] <= row["score_range"] <= row["score_range_high"]


def test_correlation_of_sensitivity_with_the_original_score():
    base = [0.1, 0.3, 0.5, 0.7, 0.9]
    scored = _scored(base=base, bump={})
    for i, f in enumerate(base):  # sensitivity = 1 − f(x) for every name ⇒ r = −1
        scored.loc[(scored["case_id"] == f"x{i}") & ~scored["is_original"], "score"] = f + (1 - f) / 2
    scored.loc[~scored["is_original"], "score"] = scored.loc[~scored["is_original"], "score"].clip(0, 1)
    row = psa.sensitivity_correlation(scored).iloc[0]
    assert row["pearson_r"] == pytest.approx(-1.0) and row["n_texts"] == 5
    assert np.isnan(psa.sensitivity_correlation(_scored(bump={})).iloc[0]["pearson_r"])  # constant: undefined


def test_end_to_end_on_generated_cases_with_a_one_name_model():
    cases = generate(corpora.load("sample"), n=20, seed=0)
    scored = score(cases, models="py:synthetic_models:curie_bonus", cache=False)
    sens = psa.score_sens(scored).set_index("name")["score_sens"]
    assert sens["Marie Curie"] == pytest.approx(0.1)
    assert sens.drop("Marie Curie").abs().max() == pytest.approx(0.0, abs=1e-12)
    assert psa.summary(scored, n_boot=0)["score_range"].iloc[0] == pytest.approx(0.1)
    table = psa.table2(psa.summary(scored, n_boot=0))
    assert table.index.tolist() == ["sample"]


def test_psa_metrics_refuse_other_tables(eec_cases):
    with pytest.raises(SchemaError, match="not a scored PSA table"):
        psa.score_sens(eec_cases)


def test_duplicated_or_missing_psa_cells_are_refused():
    scored = _scored()
    with pytest.raises(SchemaError, match="twice"):
        psa.score_sens(pd.concat([scored, scored.tail(1)]))
    with pytest.raises(SchemaError, match="lacks a score for some name"):
        psa.summary(scored.drop(index=scored.index[-1]))


def test_psa_run_on_given_cases_records_the_options_they_were_made_with_not_its_defaults():
    """The notebook route (generate, then run(cases=...)): provenance says n, seed and max_words of the cases,
    not the run's unused defaults; cases of unknown origin say so."""
    from toolkit.studies import psa as psa_study

    cases = psa_study.generate(corpora.load("sample"), n=4, seed=3, max_words=30)
    record = psa_study.run(cases=cases, models=["afinn"], cache=False, progress=False).provenance.settings
    assert (record["n"], record["seed"], record["max_words"], record["names"]) == (4, 3, 30, "default")
    assert record["cases"] == "given (made by generate)"
    plain = cases.copy()
    plain.attrs.clear()
    record = psa_study.run(cases=plain, models=["afinn"], cache=False, progress=False).provenance.settings
    assert record["n"] is None and "unknown" in record["cases"]
