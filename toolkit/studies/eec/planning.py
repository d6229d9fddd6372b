"""Planning the next EEC-style study from this one: per model × task, the variance components of the templates ×
name-units array of Δ (:func:`toolkit.studies.eec.analysis.cells`; :func:`toolkit.stats.variance_components`) and, for each
candidate design, the corrected half-width and the smallest detectable bias (:func:`toolkit.planning.design`).

Units are what the EEC pairs: for race, 20 African-American − European name pairs (so ``n_names`` counts pairs,
i.e. names per group); for gender, the noun-phrase pairs and the names-mean pair. Columns: :data:`COLUMNS`.
"""
from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from toolkit import checks, planning
from toolkit import stats as tkstats
from toolkit.studies.eec.analysis import cells

COLUMNS = ["model", "task", "attribute", "subset", "var_template", "var_name", "var_residual", *planning.COLUMNS,
           "observed_templates", "observed_names"]


def plan(scored: pd.DataFrame, *, attribute: str = "race", subset: str = "all",
         n_templates: Iterable[int] = (11,), n_names: Iterable[int] = (10, 20, 40), alpha: float = 0.05,
         power: float = 0.8, family: int = 1) -> pd.DataFrame:
    """Per model × task of a scored EEC table and per design in ``n_templates`` × ``n_names``: the planning
    numbers. ``family``: how many tests the planned study corrects together (the EEC paper's: 438)."""
    n_templates = checks.count_list(n_templates, name="n_templates")  # before the cells are computed
    n_names = checks.count_list(n_names, name="n_names")
    grid = cells(scored, attribute=attribute, subset=subset)
    rows = []
    for (model, task), block in grid.groupby(["model", "task"], sort=False):
        matrix = block.pivot_table(index="template_id", columns="unit", values="delta", aggfunc="mean").dropna()
        parts = tkstats.variance_components(matrix)
        table = planning.design(var_template=parts["var_template"], var_name=parts["var_name"],
                                var_residual=parts["var_residual"], n_templates=n_templates, n_names=n_names,
                                alpha=alpha, power=power, family=family)
        rows.append(table.assign(model=model, task=task, attribute=attribute, subset=subset,
                                 var_template=parts["var_template"], var_name=parts["var_name"],
                                 var_residual=parts["var_residual"], observed_templates=matrix.shape[0],
                                 observed_names=matrix.shape[1]))
    if not rows:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(rows, ignore_index=True).loc[:, COLUMNS]
