"""Study planning (toolkit.planning, toolkit.studies.eec.planning): the predicted half-width against the spread of
the estimate in simulated studies of that design."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from toolkit import planning
from toolkit.errors import InputError


@pytest.mark.parametrize("t,n,parts", [(11, 20, (0.03**2, 0.02**2, 0.01**2)), (4, 40, (0.02**2, 0.05**2, 0.03**2)),
                                       (11, 10, (0.0, 0.04**2, 0.02**2))])
def test_predicted_half_width_matches_simulated_studies_within_15_percent(t, n, parts):
    rng = np.random.default_rng(7)
    reps = 4000
    vt, vn, ve = parts
    grand = (rng.normal(0, np.sqrt(vt), (reps, t, 1)) + rng.normal(0, np.sqrt(vn), (reps, 1, n))
             + rng.normal(0, np.sqrt(ve), (reps, t, n))).mean(axis=(1, 2))
    simulated = sps.norm.ppf(0.975) * grand.std(ddof=1)  # the half-width an exact interval would have
    predicted = planning.design(var_template=vt, var_name=vn, var_residual=ve, n_templates=[t],
                                n_names=[n]).iloc[0]["half_width"]
    assert predicted == pytest.approx(simulated, rel=0.15)


def test_min_detectable_bias_is_found_at_the_stated_power():
    vt, vn, ve, t, n = 0.02**2, 0.03**2, 0.01**2, 11, 20
    row = planning.design(var_template=vt, var_name=vn, var_residual=ve, n_templates=[t], n_names=[n],
                          family=8).iloc[0]
    rng = np.random.default_rng(3)
    reps = 4000
    grand = row["min_detectable"] + (rng.normal(0, np.sqrt(vt), (reps, t, 1)) + rng.normal(0, np.sqrt(vn), (reps, 1, n))
                                     + rng.normal(0, np.sqrt(ve), (reps, t, n))).mean(axis=(1, 2))
    found = np.mean(np.abs(grand / row["se"]) > sps.norm.ppf(1 - 0.05 / 16))
    assert found == pytest.approx(0.8, abs=0.03)


def test_more_names_narrow_the_interval_and_bad_input_is_refused():
    table = planning.design(var_template=1e-4, var_name=9e-4, var_residual=1e-4, n_names=[10, 20, 40])
    assert table["half_width"].is_monotonic_decreasing
    assert planning.sentence(table.iloc[1]).startswith("11 templates × 20 names: ±.")
    with pytest.raises(InputError, match="variance components"):
        planning.design(var_template=-1, var_name=0, var_residual=0)
    with pytest.raises(InputError, match="n_templates"):
        planning.design(var_template=0, var_name=0, var_residual=0, n_templates=[0])
    with pytest.raises(InputError, match="family"):
        planning.design(var_template=0, var_name=0, var_residual=0, family=0)


def test_eec_plan_on_a_simulated_model():
    from toolkit.studies.eec import generator as eec
    from toolkit.studies.eec.planning import COLUMNS, plan

    cases = eec.generate()
    rng = np.random.default_rng(0)
    persons = cases["person"].unique()
    effect = dict(zip(persons, rng.normal(0, 0.03, len(persons))))
    scored = cases.assign(model="sim", task="valence",
                          score=0.5 + cases["person"].map(effect) + rng.normal(0, 0.01, len(cases)))
    table = plan(scored, attribute="race", n_names=(20, 40))
    assert list(table.columns) == COLUMNS and len(table) == 2
    assert (table["observed_templates"] == 11).all() and (table["observed_names"] == 20).all()
    # name pairs carry the variance: the pair Δ has variance 2 × 0.03², so SE at 20 pairs ≈ sqrt(2·9e-4/20)
    assert table.iloc[0]["se"] == pytest.approx(np.sqrt(2 * 0.03**2 / 20), rel=0.35)
    assert table.iloc[1]["half_width"] < table.iloc[0]["half_width"]


def test_psa_plan_at_the_observed_design_matches_the_gender_gaps_standard_error():
    from toolkit.stats import two_way_bootstrap
    from toolkit.studies.psa.analysis import gap_arrays
    from toolkit.studies.psa.generator import load_names
    from toolkit.studies.psa.planning import COLUMNS, plan

    names = load_names()
    rng = np.random.default_rng(11)
    effect = dict(zip(names["name"], rng.normal(0, 0.02, len(names))))
    rows = []
    for s in range(40):
        base = rng.uniform(0.2, 0.8)
        rows.append({"case_id": f"s{s}", "is_original": True, "fill": "", "gender": "", "category": "",
                     "score": base})
        rows += [{"case_id": f"s{s}", "is_original": False, "fill": n.name, "gender": n.gender,
                  "category": n.category, "score": base + effect[n.name] + rng.normal(0, 0.01)}
                 for n in names.itertuples()]
    scored = pd.DataFrame(rows).assign(model="sim", corpus="synthetic")
    table = plan(scored, n_sentences=[40, 400], n_pairs=[24])
    assert list(table.columns) == COLUMNS and len(table) == 2
    assert table.iloc[0]["observed_templates"] == 40 and table.iloc[0]["observed_names"] == 24
    (matrix,) = gap_arrays(scored).values()
    study_se = two_way_bootstrap(matrix)["se"]  # the SE gender_gap's interval is built on, at 40 × 24
    assert table.iloc[0]["se"] == pytest.approx(study_se, rel=1e-6)
    assert table.iloc[1]["se"] < table.iloc[0]["se"]  # more sentences: narrower, though names dominate
