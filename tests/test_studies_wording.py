"""Template wording robustness (toolkit.instrument.wording) on simulated models in the EEC's real design: a
template-sensitive model flips sign across rewordings, a robust one does not."""
from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
import pytest

from toolkit.instrument import wording
from toolkit.studies.eec import generator as eec


def _template_key(text: str) -> int:
    return zlib.crc32(text.encode())


@pytest.fixture(scope="module")
def sets():
    return pd.concat([eec.generate(wording=w) for w in eec.wordings()], ignore_index=True)


def _scored(sets: pd.DataFrame, *, model: str, race_effect, seed: int) -> pd.DataFrame:
    """``race_effect(template text) -> Δ`` added to the African-American names' scores; name and noise effects."""
    rng = np.random.default_rng(seed)
    persons = sets["person"].unique()
    name = dict(zip(persons, rng.normal(0, 0.005, len(persons))))
    effect = sets["template"].map(race_effect).to_numpy()
    score = (0.5 + sets["person"].map(name).to_numpy() + effect * (sets["race"] == "African-American").to_numpy()
             + rng.normal(0, 0.002, len(sets)))
    return sets.assign(model=model, task="valence", score=score)


def test_every_set_is_the_published_design_reworded(sets):
    published = sets[sets["wording"] == "published"]
    assert len(published) == 8640 and published["variant_id"].is_unique and sets["variant_id"].is_unique
    for w in eec.wordings()[1:]:
        block = sets[sets["wording"] == w]
        assert len(block) == 8640
        assert (block["case_id"].to_numpy() == published["case_id"].to_numpy()).all()
        for column in ("gender", "race", "np_pair", "emotion_word"):  # the same persons (a pronoun may change case)
            assert (block[column].to_numpy() == published[column].to_numpy()).all()
        changed = block["template"].to_numpy() != published["template"].to_numpy()
        assert changed.all()  # every template reworded in every set
    w3 = sets[sets["wording"] == "w3"].set_index("variant_id")["text"]
    assert w3["eec-04801-w3"] == "Recently, Ebony found herself in an annoying situation."  # agreement, a/an
    assert w3["eec-04861-w3"] == "Recently, Ebony found herself in a displeasing situation."
    assert w3["eec-06041-w3"] == "We heard from her all about the recent annoying events."  # object case


def test_a_template_sensitive_model_flips_sign_and_a_robust_one_does_not(sets):
    sensitive = _scored(sets, model="sensitive", seed=1,
                        race_effect=lambda t: 0.04 if _template_key(t) % 2 else -0.04)
    robust = _scored(sets, model="robust", seed=2, race_effect=lambda t: 0.04)
    blind = sets.assign(model="blind", task="valence", score=0.5)
    table = wording.sweep(pd.concat([sensitive, robust, blind], ignore_index=True), attributes=("race",),
                          n_boot=300)
    assert list(table.columns) == wording.SWEEP_COLUMNS
    result = wording.stability(table).set_index("model")
    assert result.at["robust", "share_sign_differs"] == 0 and result.at["robust", "share_verdict_differs"] == 0
    assert result.at["sensitive", "share_sign_differs"] > 0
    assert result.at["sensitive", "max_estimate"] > 0 > result.at["sensitive", "min_estimate"]
    ranks = wording.ranking(table)
    assert list(ranks.columns) == wording.RANKING_COLUMNS and len(ranks) == 4
    assert (ranks["n_systems"] == 3).all()
