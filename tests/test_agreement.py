"""Agreement across methods on scorers with a known, graded bias: two studies that rank by the same bias agree."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from toolkit.errors import InputError, UnknownNameError
from toolkit.studies.agreement import figures as agreement_figures

MODELS = [f"py:synthetic_bias:female_{k}" for k in (1, 4, 9, 15)]


@pytest.fixture(scope="module")
def scored():
    from conftest import corpus_of

    from toolkit.studies import eec, psa

    texts = ["She said the film was fine.", "He said the film was fine.", "I think she is right about it.",
             "I think he is right about it.", "Her performance was strong.", "His performance was strong."]
    return {"eec": eec.run(models=MODELS, subsets=["all"], cache=False, n_boot=100).scored,
            "psa": psa.run(corpus=corpus_of(texts), models=MODELS, n=6, n_boot=20, cache=False).scored}


def test_two_studies_ranking_by_the_same_synthetic_bias_give_tau_one(scored):
    from toolkit.studies import agreement

    result = agreement.agreement(scored=scored, n_boot=200, seed=0)
    tau = result.tau.iloc[0]
    assert (tau["study_a"], tau["study_b"]) == ("eec", "psa")
    assert tau["tau"] == pytest.approx(1.0) and tau["n_models"] == 4
    eec_rank = result.headlines[result.headlines["study"] == "eec"].set_index("model")["rank"]
    assert eec_rank[MODELS].tolist() == [4, 3, 2, 1]  # the strongest bias ranks first
    est = result.headlines[result.headlines["study"] == "eec"].set_index("model")["estimate"]
    # EEC's |mean Δ| recovers the injected bias (names and noun phrases are all hit)
    assert est["py:synthetic_bias:female_9"] == pytest.approx(0.09 / 2, abs=0.02)
    # a constant Δ resamples to its own value: the ends meet the estimate up to float rounding of the weighted sums
    assert (result.headlines["ci_low"] <= result.headlines["estimate"] + 1e-12).all()
    assert (result.headlines["estimate"] <= result.headlines["ci_high"] + 1e-12).all()


def test_reversed_ranking_gives_tau_minus_one(scored):
    from toolkit.studies import agreement

    flipped = scored["psa"].copy()
    mapping = dict(zip(MODELS, reversed(MODELS)))
    flipped["model"] = flipped["model"].map(mapping)
    result = agreement.agreement(scored={"eec": scored["eec"], "psa": flipped}, n_boot=50)
    assert result.tau["tau"].iloc[0] == pytest.approx(-1.0)


def test_agreement_needs_two_studies_and_three_shared_models(scored):
    from toolkit.studies import agreement

    with pytest.raises(InputError, match="at least two studies"):
        agreement.agreement(scored={"eec": scored["eec"]})
    with pytest.raises(UnknownNameError, match="unknown study 'crows'"):
        agreement.agreement(scored={"eec": scored["eec"], "crows": scored["psa"]})
    few = scored["psa"][scored["psa"]["model"].isin(MODELS[:2])]
    with pytest.raises(InputError, match="share 2 models"):
        agreement.agreement(scored={"eec": scored["eec"], "psa": few})


def test_agreement_figures_draw(scored):
    from toolkit.studies import agreement

    result = agreement.agreement(scored=scored, n_boot=50)
    ax = agreement_figures.agreement_tau(result.tau)
    assert "4 models" in ax.get_title() and len(ax.texts) == len(result.tau)  # a lower triangle: each pair once
    ranks = agreement_figures.agreement_ranks(result.headlines, kind="lines")
    assert len(ranks.get_lines()) == 4
    table = agreement_figures.agreement_ranks(result.headlines)  # the default: a cell per model and study
    assert len([t for t in table.texts if t.get_text()]) == len(result.headlines)


def test_four_models_cannot_show_agreement_and_the_table_says_so(scored):
    """τ = 1 with 4 models: the exact permutation p is 2/24 (the two orderings with |τ| = 1 of 24), never < .05."""
    from toolkit.studies import agreement

    row = agreement.agreement(scored=scored, n_boot=50).tau.iloc[0]
    assert row["p_value"] == pytest.approx(2 / 24) and row["p_min"] == pytest.approx(2 / 24)
    assert row["state"] == "too few models" and "4 models" in row["reason"]
    assert np.isnan(row["ci_low"]) and "no interval" in row["reason"]
    assert not row["claim_possible"] and np.isnan(row["min_abs_tau"])  # no agreement claim with 4 models


def test_agreement_says_in_words_which_model_counts_can_support_a_claim(scored):
    from toolkit.studies import agreement

    tau = agreement.agreement(scored=scored, n_boot=50).tau
    assert agreement.claim_words(tau.iloc[0]) == ("4 models cannot support an agreement claim: no ranking of 4 "
                                                  "reaches p < 0.05")
    six = tau.iloc[0].copy()
    six["n_models"], six["claim_possible"], six["min_abs_tau"] = 6, True, 13 / 15
    assert agreement.claim_words(six) == "6 models: an agreement claim needs τ ≥ 0.87 (p < 0.05)"
    ax = agreement_figures.agreement_tau(tau)
    assert "cannot support an agreement claim" in ax.get_xlabel()


def test_exact_p_with_ties_equals_the_enumeration():
    """Three lexicons tied at zero BTCs and one model above: every ordering enumerated by hand with scipy."""
    from toolkit.studies.agreement import exact_p

    x, y = np.array([0.3, 0.1, 0.2, 0.5]), np.array([0.0, 0.0, 0.0, 0.0011])
    observed = abs(kendalltau(x, y).statistic)
    taus = [abs(kendalltau(x, y[list(order)]).statistic) for order in itertools.permutations(range(4))]
    p, p_min = exact_p(x, y)
    assert p == pytest.approx(np.mean(np.array(taus) >= observed - 1e-12))
    assert p_min == pytest.approx(np.mean(np.isclose(taus, max(taus))))
    assert p == pytest.approx(0.5)  # scipy's asymptotic p was 0.18


def test_exact_p_of_eight_models_enumerates_all_40320_orderings():
    """At 20,000 resamples 8 models' orderings were sampled: the make-figures BiasFinder–BTC-SAM p read 0.081 where
    the enumeration gives 1/12 (a round-12 reader recomputed it). Every ordering, counted with scipy's τ-b."""
    from toolkit.studies.agreement import exact_p

    x = np.array([1.0, 2.0, 3.0, 4.0, 6.5, 6.5, 6.5, 6.5])  # four models tied at no BTC
    y = np.array([2.0, 1.0, 4.0, 3.0, 6.0, 8.0, 5.0, 7.0])
    observed = abs(kendalltau(x, y).statistic)
    taus = np.array([abs(kendalltau(x, y[list(order)]).statistic) for order in itertools.permutations(range(8))])
    p, p_min = exact_p(x, y)
    assert p == pytest.approx(np.mean(taus >= observed - 1e-12), abs=1e-12)  # a count over 40,320, not an estimate
    assert p_min == np.mean(np.isclose(taus, taus.max()))
    assert exact_p(x, y, seed=1) == (p, p_min)  # no random draw left


def test_exact_p_past_nine_untied_models_is_kendalls_exact_null():
    """Past 9 models two untied rankings take Kendall's exact null, checked against scipy's own exact method; p_min is
    2/m! (the random orderings once gave p_min 1e-4 above p 5e-5 for two identical rankings of 10)."""
    from toolkit.studies.agreement import exact_p

    rng = np.random.default_rng(3)
    for m in (10, 13, 25):
        x = rng.normal(size=m)
        y = x + rng.normal(scale=2.0, size=m)
        p, p_min = exact_p(x, y)
        assert p == pytest.approx(kendalltau(x, y, method="exact").pvalue, rel=1e-9)
        assert p_min == pytest.approx(2 / math.factorial(m), rel=1e-12)
    assert exact_p(np.arange(10), np.arange(10)) == pytest.approx((2 / math.factorial(10),) * 2, rel=1e-12)


def test_exact_p_past_nine_tied_models_never_gives_p_min_above_p():
    from toolkit.studies.agreement import exact_p

    x = np.r_[np.zeros(4), np.arange(1.0, 9.0)]  # 12 models, four tied at no BTC
    for y in (x.copy(), x[::-1].copy(), np.r_[np.zeros(3), np.arange(1.0, 10.0)]):
        p, p_min = exact_p(x, y)
        assert 0 < p_min <= p
    p, p_min = exact_p(x, x.copy())
    assert p_min == p  # the observed |τ| is the largest: the smallest p is this p (read off the draws alone: below)
    assert exact_p(np.arange(10.0), np.r_[np.arange(9.0), np.nan]) == pytest.approx((np.nan, np.nan), nan_ok=True)


def test_kendall_null_counts_the_inversions_of_every_ordering():
    from toolkit.studies.agreement import _kendall_null

    for m in range(1, 8):
        counted = np.zeros(m * (m - 1) // 2 + 1, dtype=int)
        for order in itertools.permutations(range(m)):
            counted[sum(order[a] > order[b] for a, b in itertools.combinations(range(m), 2))] += 1
        assert list(_kendall_null(m)) == list(counted)


def test_exact_p_type_one_error_is_alpha_for_unrelated_rankings():
    from toolkit.studies.agreement import exact_p

    rng = np.random.default_rng(1)
    rejected = np.mean([exact_p(rng.normal(size=7), rng.normal(size=7))[0] < 0.05 for _ in range(200)])
    assert rejected <= 0.085  # 200 runs: 5 % ± 1.5 %


def test_a_study_that_ties_every_model_is_undefined(scored):
    from toolkit.studies import agreement

    flat = scored["psa"].assign(score=0.5)
    row = agreement.agreement(scored={"eec": scored["eec"], "psa": flat}, n_boot=50).tau.iloc[0]
    assert row["state"] == "undefined" and np.isnan(row["tau"]) and "psa" in row["reason"]


def test_every_pair_gets_a_verdict_whose_definition_is_the_rule_it_applies(scored):
    """An undefined τ reads "no agreement shown" (its reason says why), never an empty verdict; and the words'
    definitions state the rule the verdict applies (the exact permutation p), not the bootstrap interval."""
    from types import SimpleNamespace

    from toolkit import verdicts
    from toolkit.studies import agreement, get

    flat = scored["psa"].assign(score=0.5)
    tau = agreement.agreement(scored={"eec": scored["eec"], "psa": flat}, n_boot=50).tau
    rows = get("agreement").conclusions(SimpleNamespace(tau=tau, settings=SimpleNamespace(alpha=0.05)))
    assert list(rows["verdict"]) == ["no agreement shown"] and "psa" in rows["reason"].iloc[0]
    assert "permutation p" in verdicts.AGREEMENT["rankings agree"]
    assert "undefined" in verdicts.AGREEMENT["no agreement shown"]


@pytest.mark.parametrize("n_models", [8, 12])
def test_the_two_way_tau_interval_covers_with_models_as_a_sample(n_models):
    """Models drawn from a population where two studies' measures correlate ρ = 0.8 (population τ = 2/π·asin ρ),
    each headline a mean over 40 noisy units: the interval over units and models covers (measured 96-99 %); over
    units alone it covered 40-46 %."""
    from toolkit.studies.agreement import two_way_taus

    truth = 2 / np.pi * np.arcsin(0.8)
    covered = []
    for r in range(100):
        rng = np.random.default_rng(r)
        mu = rng.normal(size=n_models)
        units = [mu + rng.normal(0, 0.5, n_models) + rng.normal(0, 0.5, (40, n_models)) for _ in range(2)]
        boots = [rng.multinomial(40, np.full(40, 1 / 40), size=400) @ u / 40 for u in units]
        picks = rng.integers(0, n_models, (400, n_models))
        low, high = np.nanquantile(two_way_taus(*boots, picks=picks), [0.025, 0.975])
        covered.append(low <= truth <= high)
    assert 0.91 <= np.mean(covered) <= 1.0


def test_the_pairs_p_values_are_corrected_as_one_family_by_hand():
    """Five defined pairs and one undefined (NaN: not in the family). Holm by hand: sorted p times 5, 4, 3, 2, 1,
    made monotone; Bonferroni: times 5, capped at 1; none: unchanged."""
    from toolkit.studies.agreement import adjust_pairs

    p = [0.02, 0.01, 0.03, 0.2, 0.5, np.nan]
    p_min = [1e-4] * 5 + [np.nan]
    holm, possible, size = adjust_pairs(p, p_min, correction="holm")
    assert size == 5 and holm[:5] == pytest.approx([0.08, 0.05, 0.09, 0.4, 0.5]) and np.isnan(holm[5])
    assert possible.tolist() == [True] * 5 + [False]
    bonferroni, _, _ = adjust_pairs(p, p_min, correction="bonferroni")
    assert bonferroni[:5] == pytest.approx([0.1, 0.05, 0.15, 1.0, 1.0])
    none, _, _ = adjust_pairs(p, p_min, correction="none")
    assert none[:5] == pytest.approx(p[:5])
    with pytest.raises(UnknownNameError, match="holm"):
        adjust_pairs(p, p_min, correction="fdr")
    with pytest.raises(InputError, match="one p_min per p value"):
        adjust_pairs(p, p_min[:3])


def test_whether_a_pair_can_pass_the_correction_at_all():
    """Six pairs at alpha .05: Holm's first step needs p < .05/6 = .0083. Every smallest p at .02: no pair can
    start Holm (nor pass Bonferroni), though each could pass uncorrected; one pair able to reach .001 opens Holm
    for every pair whose own smallest p is below .05, Bonferroni only for that pair."""
    from toolkit.studies.agreement import adjust_pairs

    p = [0.5] * 6
    stuck = [0.02] * 6
    assert not adjust_pairs(p, stuck, correction="holm")[1].any()
    assert not adjust_pairs(p, stuck, correction="bonferroni")[1].any()
    assert adjust_pairs(p, stuck, correction="none")[1].all()
    opened = [0.001, 0.02, 0.02, 0.02, 0.02, 0.06]
    assert adjust_pairs(p, opened, correction="holm")[1].tolist() == [True] * 5 + [False]
    assert adjust_pairs(p, opened, correction="bonferroni")[1].tolist() == [True] + [False] * 5


def test_the_verdict_reads_the_corrected_p_and_says_its_family():
    """Three pairs at exact p .01, .02, .04 (all τ > 0): uncorrected all three agree; Holm (.03, .04, .04) all
    three; Bonferroni (.03, .06, .12) only the first. The conclusions say the family and the correction."""
    from types import SimpleNamespace

    from toolkit.studies import get

    def verdicts(correction, adjusted):
        tau = pd.DataFrame({"study_a": ["eec", "eec", "psa"], "study_b": ["psa", "btcsam", "btcsam"],
                            "n_models": 8, "tau": [0.8, 0.7, 0.6], "ci_low": 0.1, "ci_high": 1.0,
                            "p_value": [0.01, 0.02, 0.04], "p_adjusted": adjusted, "family_size": 3,
                            "correction": correction, "p_min": 2.5e-5, "claim_possible": True,
                            "min_abs_tau": 0.71, "state": "assessable", "reason": ""})
        return get("agreement").conclusions(SimpleNamespace(tau=tau, settings=SimpleNamespace(alpha=0.05)))

    holm = verdicts("holm", [0.03, 0.04, 0.04])
    assert list(holm["verdict"]) == ["rankings agree"] * 3
    assert holm["family"].iloc[0] == "the 3 pairs of studies with a ranking (holm over them)"
    assert list(holm["p_adjusted"]) == [0.03, 0.04, 0.04] and list(holm["correction"]) == ["holm"] * 3
    assert "Holm over 3 pairs: the first agreement claim needs τ ≥ 0.71 (p < 0.05/3)" in holm["reason"].iloc[0]
    bonferroni = verdicts("bonferroni", [0.03, 0.06, 0.12])
    assert list(bonferroni["verdict"]) == ["rankings agree"] + ["no agreement shown"] * 2
    none = verdicts("none", [0.01, 0.02, 0.04])
    assert none["family"].iloc[0] == "none: each pair of studies on its own"
    assert "8 models: an agreement claim needs τ ≥ 0.71 (p < 0.05)" in none["reason"].iloc[0]


def test_agreement_records_its_correction_and_its_settings_refuse_others(scored):
    from toolkit.studies import agreement

    row = agreement.agreement(scored=scored, n_boot=50, correction="bonferroni").tau.iloc[0]
    assert row["correction"] == "bonferroni" and row["family_size"] == 1  # one pair: nothing to correct
    assert row["p_adjusted"] == pytest.approx(row["p_value"])
    assert agreement.AgreementSettings().correction == "holm"
    assert agreement.AgreementSettings(correction="none").correction == "none"
    with pytest.raises(UnknownNameError, match="bonferroni, holm, none"):
        agreement.AgreementSettings(correction="fdr_bh")
    from toolkit.studies.psa import PSASettings

    with pytest.raises(UnknownNameError, match="fdr_bh"):  # another study's family keeps its own corrections
        PSASettings(correction="none")
    with pytest.raises(UnknownNameError):
        agreement.agreement(scored=scored, n_boot=50, correction="fdr_bh")


def test_headlines_say_how_much_of_a_models_weight_one_unit_holds():
    """BiasFinder's design: pronoun templates give 1 pair of mutants, a name template 900. The headline is a ratio
    of sums, so that template decides it; top_unit_share says so (900 / 902), and the headlines figure names it
    under the panel."""
    from toolkit import plots
    from toolkit.studies.agreement import _replicates

    units = pd.DataFrame({"model": ["m"] * 3 + ["n"] * 3, "unit": ["t1", "t2", "t3"] * 2, "part": "gender",
                          "num": [0, 0, 900, 1, 1, 0], "den": [1, 1, 900, 1, 1, 900]})
    point, boot, n_units, top = _replicates(units, ["m", "n"], n_boot=200, rng=np.random.default_rng(0),
                                            absolute=False)
    assert n_units == 3 and top == pytest.approx([900 / 902, 900 / 902])
    assert point == pytest.approx([900 / 902, 2 / 902])
    headlines = pd.DataFrame([{"study": s, "measure": f"{s} measure", "model": m, "estimate": 0.1, "ci_low": 0.05,
                               "ci_high": 0.2, "rank": r, "n_units": 3,
                               "top_unit_share": 900 / 902 if s == "biasfinder" else 0.2}
                              for s in ("eec", "biasfinder") for m, r in (("vader", 1.0), ("afinn", 2.0))])
    with plots.use_preset("acl-double"):
        first = agreement_figures.agreement_headlines(headlines)
    labels = {ax.get_title(): ax.get_xlabel() for ax in first.figure.axes if ax.get_title()}
    assert labels["BiasFinder (templates × names)"] == "biasfinder measure\u2020"  # round 23: a footnote mark, the
    # words in a footnote over the key's entries (three lines under the axis read as too long)
    assert labels["EEC (templates × names)"] == "eec measure"  # the title says what the interval resamples
    (legend,) = first.figure.legends
    assert " ".join(legend.get_title().get_text().split()) == (
        "\u2020 BiasFinder: one template holds up to 100 % of a model's mutant pairs, so resampling templates "
        "gives a wide CI")
    assert [t.get_text() for t in first.figure.texts] == [first.figure.get_suptitle()]  # the note heads the key,
    # not a text at the figure's foot that the key is drawn over
    with pytest.raises(InputError, match="lacks rank"):
        agreement_figures.agreement_headlines(headlines.drop(columns="rank"))


def test_headlines_carry_their_level_and_the_figure_says_it():
    """The headlines table says each interval's level (``ci_level``: 1 − alpha) and how many signed parts a folded
    one takes at 1 − alpha/P (``ci_parts``); the figure reads them, where it wrote "95 %" and "97.5 % … over 2"
    whatever alpha was. At alpha = 0.10 the EEC's two parts are each at 95 %."""
    from toolkit import plots

    models = ["vader", "afinn", "textblob"]
    headlines = pd.DataFrame([{"study": "eec", "measure": "EEC |mean Δ|", "model": m, "estimate": 0.02 * k,
                               "ci_low": 0.0, "ci_high": 0.05, "ci_method": "folded", "ci_level": 0.90,
                               "ci_parts": 2, "rank": 3.0 - k, "n_units": 11, "top_unit_share": 0.1}
                              for k, m in enumerate(models)] +
                             [{"study": "psa", "measure": "PSA ScoreDev", "model": m, "estimate": 0.01 * k,
                               "ci_low": 0.0, "ci_high": 0.03, "ci_method": "percentile", "ci_level": 0.90,
                               "ci_parts": 1, "rank": 3.0 - k, "n_units": 50, "top_unit_share": 0.1}
                              for k, m in enumerate(models)])
    with plots.use_preset("acl-double"):
        first = agreement_figures.agreement_headlines(headlines)
    title = first.figure.get_suptitle().replace("\n", " ")
    assert "90\u00a0% bootstrap CIs" in title and "95\u00a0%" not in title and "EEC*: conservative" in title
    note = first.figure.legends[0].get_title().get_text().replace("\n", " ")  # wrapped at spaces, not at NBSPs
    assert note.startswith("* EEC: CI ≥ 90\u00a0%: the gender and race Δs' 95\u00a0% CIs (Bonferroni over 2)")
    labels = {ax.get_title(): ax.get_xlabel() for ax in first.figure.axes if ax.get_title()}
    assert labels["EEC (templates × names)"] == "EEC |mean Δ|*" and labels["PSA (sentences)"] == "PSA ScoreDev"
    older = headlines.drop(columns=["ci_level", "ci_parts"])  # an agreement_headlines.csv written before them
    with plots.use_preset("acl-double"):
        old = agreement_figures.agreement_headlines(older)
    assert "95\u00a0% bootstrap CIs" in old.figure.get_suptitle()
    assert "97.5\u00a0% CIs (Bonferroni over 2)" in old.figure.legends[0].get_title().get_text().replace("\n", " ")


def _eec_with_name_effects(*, systems: int, name_sd: float, delta: float = 0.03, seed: int = 0) -> pd.DataFrame:
    """The EEC generator's own sentences scored by simulated systems: each name and noun phrase its own effect (sd
    ``name_sd``), each template its own gender and race shift (sd 0.01), + ``delta`` for a woman and for an
    African-American name, + noise; the population's |mean Δ| is ``delta`` for both attributes."""
    from toolkit.studies.eec.generator import generate

    cases = generate()
    rng = np.random.default_rng(seed)
    persons = {p: i for i, p in enumerate(sorted(set(cases["person"])))}
    p_index, t_index = cases["person"].map(persons).to_numpy(), cases["template_id"].to_numpy(dtype=int) - 1
    female = (cases["gender"] == "female").to_numpy(dtype=float)
    black = (cases["race"] == "African-American").to_numpy(dtype=float)
    frames = []
    for k in range(systems):
        score = (0.5 + rng.normal(0, name_sd, len(persons))[p_index] + rng.normal(0, 0.02, len(cases))
                 + (delta + rng.normal(0, 0.01, 11)[t_index]) * female
                 + (delta + rng.normal(0, 0.01, 11)[t_index]) * black)
        frames.append(cases.assign(model=f"sim{k:03d}", task="valence", score=score))
    return pd.concat(frames, ignore_index=True)


def test_the_eec_units_are_the_papers_pairs_with_names_crossed_with_templates():
    from toolkit.studies import get
    from toolkit.studies.eec.analysis import pairs

    scored = _eec_with_name_effects(systems=2, name_sd=0.04)
    units = get("eec").units(scored)
    assert set(units.columns) >= {"model", "unit", "unit2", "part", "num", "den"}
    # by the design: 11 templates; gender's 11 name units (10 noun-phrase pairs, the names-mean pair), race's 20
    assert units.groupby("part")["unit2"].nunique().to_dict() == {"gender": 11, "race": 20}
    assert units.groupby("part")["unit"].nunique().to_dict() == {"gender": 11, "race": 11}
    for attribute in ("gender", "race"):  # the sums over a template's cells are the paper's pairs' sums
        paper = pairs(scored, attribute=attribute).groupby(["model", "template_id"])["delta"].agg(["sum", "size"])
        mine = units[units["part"] == attribute].assign(template_id=lambda f: f["unit"].astype(int))
        mine = mine.groupby(["model", "template_id"])[["num", "den"]].sum().reindex(paper.index)
        np.testing.assert_allclose(mine["num"], paper["sum"], atol=1e-9)
        np.testing.assert_allclose(mine["den"], paper["size"])
    assert pairs(scored, attribute="gender").groupby("model").size().iloc[0] == 1584  # the paper's 1,584 pairs


def test_the_eec_headline_interval_resamples_the_names_and_covers_where_templates_alone_do_not():
    """Names with their own effects: resampling the 11 templates alone leaves the names' sampling out (its
    interval covered the population |mean Δ| in 33-52 % of simulated systems, benchmarks/eec_headline_coverage.txt);
    crossed with the name units it covers near 95 %."""
    from toolkit.studies import get
    from toolkit.studies.agreement import _replicates

    scored = _eec_with_name_effects(systems=60, name_sd=0.04, seed=1)
    units = get("eec").units(scored)
    models = sorted(set(units["model"]))
    covered = {}
    for label, table in (("crossed", units), ("templates", units.drop(columns="unit2"))):
        point, boot, n_units, _ = _replicates(table, models, n_boot=400, rng=np.random.default_rng(0), absolute=True)
        low, high = np.nanquantile(boot, [0.025, 0.975], axis=0)
        covered[label] = float(np.mean((low <= 0.03) & (0.03 <= high)))
        assert n_units == 11
    assert covered["crossed"] >= 0.85 and covered["templates"] <= 0.6, covered
    # the same template draws either way: a study without names crossed gets the replicates it had
    no_names = _eec_with_name_effects(systems=3, name_sd=0.0, seed=2)
    plain = get("eec").units(no_names).query("model == 'sim000'")
    one = _replicates(plain.drop(columns="unit2"), ["sim000"], n_boot=50, rng=np.random.default_rng(5), absolute=True)
    rng = np.random.default_rng(5)
    _replicates(plain, ["sim000"], n_boot=50, rng=rng, absolute=True)
    again = np.random.default_rng(5)
    again.multinomial(11, np.full(11, 1 / 11), size=50)
    assert rng.random() == again.random()  # the crossed draws come from a spawned generator, not the caller's
    assert one[1].shape == (50, 1)


def _pair_weighted_sums(scored, *, template_weights, name_weights):
    """By hand: every pair of mutants of different classes in a template, weighed by the template's draw times its
    two names' draws; BTCs are the pairs whose labels differ."""
    btcs = pairs = 0.0
    for template, rows in scored.groupby("case_id"):
        rows = list(rows.itertuples())
        for a, b in itertools.combinations(rows, 2):
            if a.group == b.group:
                continue
            weight = template_weights[template] * name_weights[(a.group, a.fill)] * name_weights[(b.group, b.fill)]
            pairs += weight
            btcs += weight * (a.label != b.label)
    return btcs, pairs


def test_the_biasfinder_headline_replicates_weigh_each_pair_by_its_two_names_draws():
    """The BiasFinder headline's replicates are the rates' pigeonhole bootstrap: enumerated pair by pair here,
    templates and each class's names drawn as documented (classes, then names, in sorted order)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from synthetic_bias import biasfinder_same_names

    from toolkit.studies import get

    scored = biasfinder_same_names(n_templates=4, n_names=3, name_sd=0.2, seed=3, model="m")
    study = get("biasfinder")
    units = study.units(scored)
    templates = sorted(set(units["unit"]))
    weights = np.array([[2.0, 0.0, 1.0, 1.0], [0.0, 1.0, 3.0, 0.0]])
    btcs, pairs = study.resampled_sums(scored, units=units, models=["m"], weights=weights,
                                       rng=np.random.default_rng(11))
    names = sorted({(g, f) for g, f in zip(scored["group"], scored["fill"])})
    draws = np.random.default_rng(11)
    by_class = {c: draws.multinomial(3, np.full(3, 1 / 3), size=2) for c in ("female", "male")}
    for b in range(2):
        name_weights = {}
        for c, drawn in by_class.items():
            name_weights.update({n: drawn[b][i] for i, n in enumerate(x for x in names if x[0] == c)})
        expected = _pair_weighted_sums(scored, template_weights=dict(zip(templates, weights[b])),
                                       name_weights=name_weights)
        assert (btcs[b, 0, 0], pairs[b, 0, 0]) == pytest.approx(expected)
    assert pairs.shape == (2, 1, 1)


def test_the_biasfinder_headline_interval_is_the_rates_interval_and_wider_than_templates_alone():
    """Same names in every template with their own effects: resampling templates alone leaves the names' sampling
    out; the headline's interval now resamples both, as ``rates()``'s (the same estimator, other draws)."""
    import sys
    from functools import partial
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from synthetic_bias import biasfinder_same_names

    from toolkit.studies import get
    from toolkit.studies.agreement import _replicates
    from toolkit.studies.biasfinder import analysis

    scored = pd.concat([biasfinder_same_names(n_templates=40, n_names=10, seed=s, model=f"m{s}") for s in range(3)],
                       ignore_index=True)
    study, models = get("biasfinder"), ["m0", "m1", "m2"]
    units = study.units(scored)
    _, alone, _, _ = _replicates(units, models, n_boot=1000, rng=np.random.default_rng(0), absolute=False)
    point, crossed, n_units, _ = _replicates(units, models, n_boot=1000, rng=np.random.default_rng(0),
                                             absolute=False,
                                             resample=partial(study.resampled_sums, scored, units=units,
                                                              models=models))
    rates = analysis.rates(scored, n_boot=1000).set_index("model").loc[models]
    np.testing.assert_allclose(point, rates["rate_between"])
    low, high = np.quantile(crossed, [0.025, 0.975], axis=0)
    np.testing.assert_allclose(low, rates["rate_low"], atol=0.02)
    np.testing.assert_allclose(high, rates["rate_high"], atol=0.02)
    width_alone = np.subtract(*np.quantile(alone, [0.975, 0.025], axis=0))
    assert np.all(high - low > 1.3 * width_alone), (high - low, width_alone)
    assert n_units == 40


def test_careless_calls_of_the_new_headline_hook_and_open_edge_are_coded_errors():
    """A weights array that does not match the units' templates, or a marker that is not a string, names the fix
    instead of a shape or hash error deep in numpy."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from synthetic_bias import biasfinder_same_names

    from toolkit import plots
    from toolkit.studies import get

    scored = biasfinder_same_names(n_templates=4, n_names=3, seed=3, model="m")
    study = get("biasfinder")
    units = study.units(scored)
    for weights in (np.ones((2, 3)), np.ones(4), [[1.0, 1.0]]):
        with pytest.raises(InputError, match="one weight per template"):
            study.resampled_sums(scored, units=units, models=["m"], weights=weights, rng=np.random.default_rng(0))
    assert get("eec").resampled_sums(scored, units=units, models=["m"], weights=np.ones((2, 4)),
                                     rng=np.random.default_rng(0)) is None  # the default: agreement's own sums
    for marker, width in ((["P"], 1.0), (None, 1.0), ("P", "thick"), ("o", -1.0), ("o", True)):
        with pytest.raises(InputError, match="open_edge"):
            plots.open_edge(marker, width)
    assert plots.open_edge("P") == 0.5 and plots.open_edge("o", 0.9) == 0.9


def test_tau_interval_is_simultaneous_over_the_family_its_p_is_corrected_in():
    """A round-12 reader found BTC-SAM–EEC's 95 % interval clear of 0 beside a Holm-adjusted p of 0.12: the interval
    is now read in the family the p is, Bonferroni over the m pairs (1 − 0.05/6 = 99.17 % for 6), and unadjusted
    only with correction "none". By hand on 0, 1, …, 1200: the 0.4167 % and 99.583 % quantiles are 5 and 1195."""
    from toolkit.studies.agreement import tau_interval

    replicates = np.arange(1201, dtype=float)
    low, high, level = tau_interval(replicates, alpha=0.05, family_size=6, correction="holm")
    assert level == pytest.approx(1 - 0.05 / 6) and (low, high) == pytest.approx((5.0, 1195.0))
    assert tau_interval(replicates, alpha=0.05, family_size=6, correction="bonferroni")[:2] == (low, high)
    assert tau_interval(replicates, alpha=0.05, family_size=6, correction="none") == pytest.approx((30.0, 1170.0,
                                                                                                   0.95))
    assert tau_interval(replicates, alpha=0.05, family_size=1, correction="holm")[2] == pytest.approx(0.95)
    with_nan = np.r_[replicates, np.nan]  # an undefined τ in a replicate is left out, as before
    assert tau_interval(with_nan, alpha=0.05, family_size=6, correction="holm")[:2] == pytest.approx((5.0, 1195.0))


def test_agreement_records_no_interval_level_where_it_draws_no_interval(scored):
    """4 models (fewer than MIN_MODELS_CI): no interval, so no level either (NaN, not a level of nothing)."""
    from toolkit.studies import agreement

    result = agreement.agreement(scored=scored, n_boot=200, seed=0)
    row = result.tau.iloc[0]
    assert tuple(result.tau.columns) == agreement.TAU_COLUMNS and row["n_models"] < agreement.MIN_MODELS_CI
    assert np.isnan(row["ci_low"]) and np.isnan(row["ci_level"])


def test_rank_interval_by_hand():
    """Every number a study prints carries its interval: the ranks too (round 13 readers: the rank figure showed
    ranks without their uncertainty). By hand, four replicates of three models' headlines, at alpha 0.5 (the 25 %
    quantile rounded down to a rank a replicate gave, the 75 % one up): model 0 ranks 1, 1, 3, 1 → [1, 3]; model 1
    2, 3, 2, 2 → [2, 3]; model 2 3, 2, 1, 3 → [1, 3]. A replicate with an undefined headline is left out; tied
    headlines share their mean rank."""
    from toolkit.studies.agreement import rank_interval

    boot = np.array([[3.0, 2.0, 1.0], [3.0, 1.0, 2.0], [1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [np.nan, 1.0, 2.0]])
    low, high = rank_interval(boot, alpha=0.5)
    assert low.tolist() == [1.0, 2.0, 1.0] and high.tolist() == [3.0, 3.0, 3.0]
    tied_low, tied_high = rank_interval(np.array([[0.0, 0.0, 5.0]] * 3), alpha=0.05)
    assert tied_low.tolist() == tied_high.tolist() == [2.5, 2.5, 1.0]
    none_low, _ = rank_interval(np.full((3, 2), np.nan), alpha=0.05)
    assert np.isnan(none_low).all()


def test_agreement_headlines_carry_a_rank_interval_within_the_models_ranks(scored):
    from toolkit.studies import agreement

    result = agreement.agreement(scored=scored, n_boot=200, seed=0)
    heads = result.headlines
    assert tuple(heads.columns) == agreement.HEADLINE_COLUMNS
    assert (heads["ci_level"] == 0.95).all()  # alpha's default, 0.05
    parts = heads.groupby("study")["ci_parts"].unique().map(list).to_dict()
    assert parts == {"eec": [2], "psa": [1]}  # the EEC folds its gender and race gaps; PSA's is a percentile CI
    assert set(heads.loc[heads["study"] == "eec", "ci_method"]) == {"folded"}
    tenth = agreement.agreement(scored=scored, n_boot=200, seed=0, alpha=0.10).headlines
    assert np.allclose(tenth["ci_level"], 0.90)
    from toolkit import plots

    with plots.use_preset("acl-double"):  # end to end: the figures say the run's level (they said 95 % whatever it was)
        drawn = agreement_figures.agreement_headlines(tenth)
        ranks = agreement_figures.agreement_ranks(tenth)
    assert "90\u00a0% bootstrap CIs" in drawn.figure.get_suptitle()
    assert "CI ≥ 90\u00a0%" in drawn.figure.legends[0].get_title().get_text().replace("\n", " ")
    assert ranks.get_title().replace("\n", " ").endswith("90\u00a0% interval in brackets")
    assert ((heads["rank_low"] >= 1) & (heads["rank_high"] <= heads.groupby("study")["model"].transform("size"))).all()
    assert (heads["rank_low"] <= heads["rank_high"]).all()


def test_rank_interval_bounds_are_ranks_a_replicate_gave_and_noise_at_zero_ties():
    """A stranger's review: linear interpolation printed a bound of 1.975 between ranks 1 and 2. Each bound is now a
    rank some replicate gave. And a headline of 1e-17 beside one of 0 no longer orders the two: both are 0."""
    from toolkit.studies.agreement import _snap, rank_interval

    boot = np.array([[1.0, 2.0]] * 50 + [[2.0, 1.0]] * 1950)  # model 0 ranks 1 in 1,950 of 2,000 replicates
    low, high = rank_interval(boot, alpha=0.05)
    assert low.tolist() == [1.0, 1.0] and high.tolist() == [2.0, 2.0]
    assert _snap(np.array([1e-17, 0.0, 0.3])).tolist() == [0.0, 0.0, 0.3]
    ranks = rank_interval(_snap(np.array([[0.3, 1e-17, 0.0]])), alpha=0.05)[0]
    assert ranks.tolist() == [1.0, 2.5, 2.5]


def test_agreement_tau_takes_the_presets_width_and_says_when_no_pair_agrees():
    """Round 15: 5.35 inches wide fits neither an ACL column nor the text width; and red cells read as agreement
    where no pair's corrected p is below alpha."""
    from toolkit import plots

    tau = pd.DataFrame([{"study_a": a, "study_b": b, "n_models": 8, "tau": t, "ci_low": t - 0.6, "ci_high": 1.0,
                         "p_value": 0.03, "p_adjusted": p_adj, "family_size": 3, "correction": "holm",
                         "claim_possible": True, "min_abs_tau": 0.79, "state": "assessable"}
                        for a, b, t, p_adj in (("eec", "psa", 0.69, 0.09), ("eec", "btcsam", 0.5, 0.09),
                                               ("psa", "btcsam", 0.2, 0.4))])
    for name, width in (("acl-double", 6.30), ("acl-single", 3.03)):
        with plots.use_preset(name):
            ax = agreement_figures.agreement_tau(tau)
        assert ax.figure.get_figwidth() == pytest.approx(width)
        assert " ".join(ax.get_title().split()) == "Agreement of rankings (8 models): no pair shown to agree"
    with plots.use_preset("acl-double"):
        agreed = agreement_figures.agreement_tau(tau.assign(p_adjusted=[0.01, 0.09, 0.4]))
    assert agreed.get_title() == "Agreement of rankings (8 models)"

    def veils(ax):  # round 16: a deep red 0.69 read as agreement beside "no pair shown to agree"
        return sorted((p.get_x(), p.get_y()) for p in ax.patches
                      if p.get_alpha() == agreement_figures.FADE and p.get_facecolor()[:3] == (1.0, 1.0, 1.0))

    # beside a pair that agrees, every pair not shown to agree is veiled, and only those; where none agrees the title
    # says so and no cell is veiled (round 20: a veil over every cell contradicted the colour bar)
    assert len(veils(ax)) == 0 and len(veils(agreed)) == 2
    assert "faded" not in ax.get_xlabel() and "faded" in agreed.get_xlabel()


def test_agreement_ranks_table_shades_by_the_headlines_size_not_the_rank():
    """Round 15: rank shading painted a rate of 0.001 ranked 4th as dark as a real finding. The cell's shade is
    the headline over the study's largest: 0.001 beside 0.97 is near the lightest, the largest the darkest."""
    from toolkit import plots

    headlines = pd.DataFrame([{"study": "biasfinder", "measure": "rate", "model": m, "rank": r, "rank_low": r,
                               "rank_high": r, "estimate": e}
                              for m, r, e in (("svm", 1, 0.97), ("svr", 2, 0.9), ("ridge", 3, 0.03),
                                              ("minilm", 4, 0.001))])
    with plots.use_preset("acl-double"):
        ax = agreement_figures.agreement_ranks(headlines)
    colours = ax.collections[0].get_facecolors()  # one per cell, rows top to bottom
    bar = next(a for a in ax.figure.axes if a is not ax)  # round 16: the shade's meaning on a colour bar
    assert bar.get_ylabel() == "headline ÷ the study's largest"
    darkness = [1 - float(np.mean(c[:3])) for c in colours]
    assert darkness[0] == max(darkness) and darkness[3] == min(darkness)
    assert darkness[2] - darkness[3] < 0.1 < darkness[1] - darkness[2]  # 0.03 and 0.001 alike, both far from 0.9
    assert ax.figure.get_figwidth() == pytest.approx(6.30)


def test_folded_interval_folds_each_parts_bonferroni_interval_onto_its_size():
    """By hand: part 1's signed interval holds 0, so its |·| runs from 0; part 2's does not, so it runs from the
    nearer end; the headline's bounds are the parts' means. The parts' intervals are at 1 − alpha/2 each."""
    from toolkit.studies.agreement import folded_interval

    rng = np.random.default_rng(0)
    signed = np.stack([rng.normal(-0.004, 0.01, (4000, 1)), rng.normal(-0.03, 0.01, (4000, 1))], axis=-1)
    point = np.array([[-0.004, -0.03]])
    low, high = folded_interval(point, signed, alpha=0.05)
    ends = [np.quantile(signed[:, 0, p], [0.0125, 0.9875]) for p in (0, 1)]
    assert ends[0][0] < 0 < ends[0][1] and ends[1][1] < 0
    assert low[0] == pytest.approx((0.0 + abs(ends[1][1])) / 2)
    assert high[0] == pytest.approx((max(abs(ends[0][0]), abs(ends[0][1])) + abs(ends[1][0])) / 2)
    low, high = folded_interval(point, signed, alpha=0.05, df=10)  # t(0.9875, 10) = 2.634 on the replicates' SD
    sd = signed[:, 0].std(axis=0, ddof=1)
    assert low[0] == pytest.approx((0.0 + 0.03 - 2.634 * sd[1]) / 2, abs=2e-5)
    assert high[0] == pytest.approx((0.004 + 2.634 * sd[0] + 0.03 + 2.634 * sd[1]) / 2, abs=2e-5)


def test_the_eec_headline_interval_holds_zero_when_neither_gap_exists():
    """Round 15: a percentile interval of |mean Δ| never holds 0 (every replicate is above it), so with no bias
    the headline's interval missed the truth for every simulated system. The study folds the signed gaps'
    intervals: in the EEC's design with no gender or race gap, most systems' intervals hold 0."""
    from toolkit.studies import get
    from toolkit.studies.agreement import _replicates, folded_interval

    scored = _eec_with_name_effects(systems=12, name_sd=0.04, delta=0.0, seed=3)

    units = get("eec").units(scored)
    models = sorted(set(units["model"]))
    point, boot, n_units, _, signed = _replicates(units, models, n_boot=400, rng=np.random.default_rng(0),
                                                  absolute=True, signed_parts=True)
    low, high = folded_interval(*signed, alpha=0.05, df=n_units - 1)
    percentile_low = np.nanquantile(boot, 0.025, axis=0)
    assert (percentile_low > 0).all()  # the |·| replicates' interval: never 0
    assert np.mean(low == 0) >= 0.75 and (high >= point).all()


def test_agreement_folds_the_eec_headline_interval_and_no_other(scored, monkeypatch):
    """The study wires folded_interval to the EEC's absolute headline only (a review found no test that it does):
    with folded_interval replaced, the EEC rows carry its bounds and say ci_method "folded"; PSA's stay percentile."""
    from toolkit.studies import agreement

    calls = []

    def sentinel(point, signed, *, alpha, df=None):
        calls.append(df)
        n = signed.shape[1]
        return np.full(n, -7.0), np.full(n, 7.0)

    monkeypatch.setattr(agreement, "folded_interval", sentinel)
    heads = agreement.agreement(scored=scored, n_boot=50, seed=0).headlines
    eec, psa = heads[heads["study"] == "eec"], heads[heads["study"] == "psa"]
    assert calls == [10]  # once, with the EEC's 11 templates less one as the t's df
    assert (eec["ci_low"] == -7.0).all() and (eec["ci_high"] == 7.0).all() and (eec["ci_method"] == "folded").all()
    assert (psa["ci_method"] == "percentile").all() and not (psa["ci_high"] == 7.0).any()


def test_careless_input_to_the_new_statistics_is_a_coded_error():
    """A y one model short was permuted against part of x and gave a p; a 2-D replicate array or alpha="x" failed
    deep inside numpy: each is TK102 naming the fix."""
    from toolkit.studies.agreement import exact_p, folded_interval

    for call in (lambda: exact_p(np.arange(5.0), np.arange(6.0)),
                 lambda: folded_interval(np.zeros(3), np.zeros((10, 3)), alpha=0.05),
                 lambda: folded_interval(np.zeros((1, 2)), np.zeros((10, 1, 2)), alpha="x")):
        with pytest.raises(InputError) as caught:
            call()
        assert caught.value.code == "TK102" and caught.value.fix
