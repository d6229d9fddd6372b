"""EEC gender × race cells (toolkit.intersections) on simulated models whose truth is known, in the EEC's
real design (11 templates, 10 names per cell)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from toolkit.intersections import COLUMNS, INTERACTION, cells
from toolkit.studies.eec import generator as eec


@pytest.fixture(scope="module")
def cases():
    return eec.generate()


def _scored(cases: pd.DataFrame, *, seed: int, cell_effect: dict[str, float], name_sd: float = 0.01):
    rng = np.random.default_rng(seed)
    persons = cases["person"].unique()
    name = dict(zip(persons, rng.normal(0, name_sd, len(persons))))
    template = dict(zip(range(1, 12), rng.normal(0, 0.03, 11)))
    group = (cases["race"] + " " + cases["gender"]).map(cell_effect).fillna(0.0).to_numpy()
    score = (0.5 + cases["template_id"].map(template).to_numpy() + cases["person"].map(name).to_numpy() + group
             + rng.normal(0, 0.005, len(cases)))
    return cases.assign(model="sim", task="valence", score=score)


def test_a_penalty_on_one_intersection_shows_as_an_interaction(cases):
    table = cells(_scored(cases, seed=1, cell_effect={"African-American female": -0.06}), n_boot=500)
    assert list(table.columns) == COLUMNS and len(table) == 7
    table = table.set_index("contrast")
    inter = table.loc[INTERACTION]
    assert inter["ci_high"] < 0 and inter["verdict"] == "b higher" and inter["state"] == "ok"
    assert inter["ci_low"] <= -0.06 <= inter["ci_high"]
    assert inter["estimate"] - 1e-9 <= inter["estimate_pooled"] < 0  # shrunk toward no difference, not past it
    eu = table.loc["European female − European male"]
    assert eu["ci_low"] <= 0 <= eu["ci_high"] and eu["verdict"] != "a higher" and eu["verdict"] != "b higher"
    assert (table["family"].str.contains("7 contrasts")).all()


def test_additive_effects_show_no_interaction(cases):
    effects = {"African-American female": -0.03 + 0.02, "African-American male": -0.03,
               "European female": 0.02, "European male": 0.0}
    inter = cells(_scored(cases, seed=2, cell_effect=effects), n_boot=500).set_index("contrast").loc[INTERACTION]
    assert inter["ci_low"] <= 0 <= inter["ci_high"]


def test_small_cells_read_not_enough_data_and_blind_models_need_no_test(cases):
    few = cases[~cases["person"].isin(["Ebony", "Jasmine", "Lakisha", "Latisha", "Latoya", "Nichelle", "Shaniqua",
                                       "Shereen"])]  # 2 African-American women left
    table = cells(_scored(few, seed=3, cell_effect={}), n_boot=200)
    assert (table["state"] == "not enough data").all() and table["estimate"].isna().all()
    assert (table["verdict"] == "not enough data").all()
    blind = cells(cases.assign(model="blind", task="valence", score=0.5), n_boot=200)
    assert (blind["state"] == "identical scores").all() and (blind["estimate"] == 0).all()


def test_a_lexicon_moved_by_one_name_claims_no_equivalence(cases):
    from toolkit.stats import IDENTICAL

    scored = cases.assign(model="lexicon", task="valence",
                          score=0.5 + 0.03 * (cases["person"] == "Ebony") + 0.01 * cases["template_id"])
    table = cells(scored, n_boot=200).set_index("contrast")
    with_ebony = table.loc["African-American female − European female"]
    assert with_ebony["state"] == "ok" and not with_ebony["verdict"].startswith("equivalent")
    assert table.loc["European female − European male", "verdict"] == IDENTICAL  # nothing moves in either cell
