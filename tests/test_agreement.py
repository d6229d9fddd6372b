"""Agreement across methods on scorers with a known, graded bias: two studies that rank by the same bias agree."""
from __future__ import annotations

import pytest

from toolkit.errors import InputError, UnknownNameError

MODELS = [f"py:synthetic_bias:female_{k}" for k in (1, 4, 9, 15)]


@pytest.fixture(scope="module")
def scored():
    from conftest import corpus_of
    from toolkit import eec, psa

    texts = ["She said the film was fine.", "He said the film was fine.", "I think she is right about it.",
             "I think he is right about it.", "Her performance was strong.", "His performance was strong."]
    return {"eec": eec.run(models=MODELS, subsets=["all"], cache=False).scored,
            "psa": psa.run(corpus=corpus_of(texts), models=MODELS, n=6, n_boot=20, cache=False).scored}


def test_two_studies_ranking_by_the_same_synthetic_bias_give_tau_one(scored):
    from toolkit import agreement

    result = agreement.agreement(scored=scored, n_boot=200, seed=0)
    tau = result.tau.iloc[0]
    assert (tau["study_a"], tau["study_b"]) == ("eec", "psa")
    assert tau["tau"] == pytest.approx(1.0) and tau["n_models"] == 4
    eec_rank = result.headlines[result.headlines["study"] == "eec"].set_index("model")["rank"]
    assert eec_rank[MODELS].tolist() == [4, 3, 2, 1]  # the strongest bias ranks first
    est = result.headlines[result.headlines["study"] == "eec"].set_index("model")["estimate"]
    # EEC's |mean Δ| recovers the injected bias (names and noun phrases are all hit)
    assert est["py:synthetic_bias:female_9"] == pytest.approx(0.09 / 2, abs=0.02)
    assert (result.headlines["ci_low"] <= result.headlines["estimate"]).all()
    assert (result.headlines["estimate"] <= result.headlines["ci_high"]).all()


def test_reversed_ranking_gives_tau_minus_one(scored):
    from toolkit import agreement

    flipped = scored["psa"].copy()
    mapping = dict(zip(MODELS, reversed(MODELS)))
    flipped["model"] = flipped["model"].map(mapping)
    result = agreement.agreement(scored={"eec": scored["eec"], "psa": flipped}, n_boot=50)
    assert result.tau["tau"].iloc[0] == pytest.approx(-1.0)


def test_agreement_needs_two_studies_and_three_shared_models(scored):
    from toolkit import agreement

    with pytest.raises(InputError, match="at least two studies"):
        agreement.agreement(scored={"eec": scored["eec"]})
    with pytest.raises(UnknownNameError, match="unknown study 'crows'"):
        agreement.agreement(scored={"eec": scored["eec"], "crows": scored["psa"]})
    few = scored["psa"][scored["psa"]["model"].isin(MODELS[:2])]
    with pytest.raises(InputError, match="share 2 models"):
        agreement.agreement(scored={"eec": scored["eec"], "psa": few})


def test_agreement_figures_draw(scored):
    from toolkit import agreement, plots

    result = agreement.agreement(scored=scored, n_boot=50)
    ax = plots.agreement_tau(result.tau)
    assert "4 models" in ax.get_title() and len(ax.texts) >= 4
    ranks = plots.agreement_ranks(result.headlines)
    assert len(ranks.get_lines()) == 4
