"""Planning the next EEC-style study from this one: per model × task, the variance components of the templates ×
name-units array of Δ (:func:`toolkit.studies.eec.analysis.cells`; :func:`toolkit.stats.variance_components`) and, for each
candidate design, what the study's own analysis (:func:`toolkit.studies.eec.analysis.intervals`: templates weighted
by their sentence pairs, the Satterthwaite t, Bonferroni over ``family``) would give: the corrected half-width, the
smallest detectable bias and, from this run's own uncertainty (it is the pilot), 95 % intervals on that bias and on
the power promised (:func:`toolkit.planning.design`).

Units are what the EEC pairs: for race, 20 African-American − European name pairs (so ``n_names`` counts pairs,
i.e. names per group); for gender, the noun-phrase pairs and the names-mean pair. Columns: :data:`COLUMNS`.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from toolkit import checks, planning
from toolkit import stats as tkstats
from toolkit.errors import unknown
from toolkit.studies.eec.analysis import WEIGHTINGS, cells

COLUMNS = ["model", "task", "attribute", "subset", "var_template", "var_name", "var_residual", *planning.COLUMNS,
           "observed_templates", "observed_names", "weighting"]


def _pilot(scored: pd.DataFrame, attribute: str, subset: str, weighting: str
           ) -> Iterable[tuple[str, str, pd.DataFrame, np.ndarray | None]]:
    """Per model × task: the templates × units array of Δ and the analysis's template weights."""
    if weighting not in WEIGHTINGS:
        raise unknown("weighting", weighting, WEIGHTINGS)
    grid = cells(scored, attribute=attribute, subset=subset)
    for (model, task), block in grid.groupby(["model", "task"], sort=False):
        matrix = block.pivot_table(index="template_id", columns="unit", values="delta", aggfunc="mean").dropna()
        counts = block.groupby("template_id")["n_pairs"].max()
        weights = counts.reindex(matrix.index).to_numpy(dtype=float) if weighting == "sentences" else None
        yield model, task, matrix, weights


def plan(scored: pd.DataFrame, *, attribute: str = "race", subset: str = "all",
         n_templates: Iterable[int] = (11,), n_names: Iterable[int] = (10, 20, 40), alpha: float = 0.05,
         power: float = 0.8, family: int = 1, weighting: str = "sentences", seed: int = 0) -> pd.DataFrame:
    """Per model × task of a scored EEC table and per design in ``n_templates`` × ``n_names``: the planning
    numbers. ``family``: how many tests the planned study corrects together (the EEC paper's: 438);
    ``weighting``: as the analysis weighs templates (:data:`toolkit.studies.eec.analysis.WEIGHTINGS`; the
    pilot's weights are repeated to the planned number of templates); ``seed``: the pivotal draws behind the
    intervals."""
    n_templates = checks.count_list(n_templates, name="n_templates")  # before the cells are computed
    n_names = checks.count_list(n_names, name="n_names")
    rows = []
    for model, task, matrix, weights in _pilot(scored, attribute, subset, weighting):
        parts = tkstats.variance_components(matrix)
        table = planning.design(var_template=parts["var_template"], var_name=parts["var_name"],
                                var_residual=parts["var_residual"], n_templates=n_templates, n_names=n_names,
                                alpha=alpha, power=power, family=family, template_weights=weights,
                                pilot_shape=matrix.shape, seed=seed)
        rows.append(table.assign(model=model, task=task, attribute=attribute, subset=subset,
                                 var_template=parts["var_template"], var_name=parts["var_name"],
                                 var_residual=parts["var_residual"], observed_templates=matrix.shape[0],
                                 observed_names=matrix.shape[1], weighting=weighting))
    if not rows:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(rows, ignore_index=True).loc[:, COLUMNS]


def power_curve(scored: pd.DataFrame, *, biases: Iterable[float], attribute: str = "race", subset: str = "all",
                n_templates: int = 11, n_names: int = 20, alpha: float = 0.05, family: int = 1,
                weighting: str = "sentences", seed: int = 0) -> pd.DataFrame:
    """Per model × task: the power of an ``n_templates`` × ``n_names`` study at each bias in ``biases``, with its
    95 % interval from this run as the pilot (:func:`toolkit.planning.power_curve`); columns ``model, task,
    attribute, subset`` + :data:`toolkit.planning.CURVE_COLUMNS`."""
    frames = []
    biases = list(biases)
    for model, task, matrix, weights in _pilot(scored, attribute, subset, weighting):
        parts = tkstats.variance_components(matrix)
        curve = planning.power_curve(var_template=parts["var_template"], var_name=parts["var_name"],
                                     var_residual=parts["var_residual"], biases=biases, n_templates=n_templates,
                                     n_names=n_names, alpha=alpha, family=family, template_weights=weights,
                                     pilot_shape=matrix.shape, seed=seed)
        frames.append(curve.assign(model=model, task=task, attribute=attribute, subset=subset))
    columns = ["model", "task", "attribute", "subset", *planning.CURVE_COLUMNS]
    return pd.concat(frames, ignore_index=True).loc[:, columns] if frames else pd.DataFrame(columns=columns)
