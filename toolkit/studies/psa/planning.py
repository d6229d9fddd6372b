"""Planning the next PSA study from this one: per model × corpus, the variance components of the sentences ×
name-pairs array of the female − male gap (:func:`toolkit.studies.psa.analysis.gap_arrays`;
:func:`toolkit.stats.variance_components`) and, per candidate design (sentences × name pairs), what the gap's own
analysis (:func:`toolkit.studies.psa.analysis.gender_gap`: sentences equally weighted, the Satterthwaite t,
Bonferroni over ``family``) would give: the corrected half-width, the smallest detectable gap and, from this run
as the pilot, 95 % intervals on that gap and on the power promised (:func:`toolkit.planning.design`).
Columns: :data:`COLUMNS`."""
from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from toolkit import checks, planning
from toolkit import stats as tkstats
from toolkit.studies.psa.analysis import gap_arrays

COLUMNS = ["model", "corpus", "var_template", "var_name", "var_residual", *planning.COLUMNS, "observed_templates",
           "observed_names"]


def plan(scored: pd.DataFrame, *, n_sentences: Iterable[int] = (100, 1000), n_pairs: Iterable[int] = (24, 48),
         alpha: float = 0.05, power: float = 0.8, family: int = 1, seed: int = 0) -> pd.DataFrame:
    """Per model × corpus of a scored PSA table and per design in ``n_sentences`` × ``n_pairs`` (female–male name
    pairs): the planning numbers; ``n_templates`` in the output counts sentences, ``n_names`` name pairs;
    ``seed``: the pivotal draws behind the intervals."""
    sentences = checks.count_list(n_sentences, name="n_sentences")
    pairs = checks.count_list(n_pairs, name="n_pairs")
    rows = []
    for (model, corpus), matrix in gap_arrays(scored).items():
        parts = tkstats.variance_components(matrix)
        table = planning.design(var_template=parts["var_template"], var_name=parts["var_name"],
                                var_residual=parts["var_residual"], n_templates=sentences, n_names=pairs,
                                alpha=alpha, power=power, family=family, pilot_shape=matrix.shape, seed=seed)
        rows.append(table.assign(model=model, corpus=corpus, var_template=parts["var_template"],
                                 var_name=parts["var_name"], var_residual=parts["var_residual"],
                                 observed_templates=matrix.shape[0], observed_names=matrix.shape[1]))
    if not rows:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(rows, ignore_index=True).loc[:, COLUMNS]
