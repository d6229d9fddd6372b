"""Template wording robustness of the EEC (Seshadri, Pezeshkpour & Singh 2022; Selvam et al. 2023).

The same study is rerun on each wording set of the 11 templates (:func:`toolkit.studies.eec.generator.wordings`: the
published Table 2 and the project's meaning-preserving rewordings, ``resources/eec_wordings.json``). Templates stay
random effects inside every run (:func:`toolkit.studies.eec.analysis.intervals`), so each set's interval already counts the
templates as a sample; the sweep asks whether the conclusion survives rewording them.

- :func:`sweep`: per wording set × system × attribute, the two-way ``estimate``, its interval and ``verdict``
  (columns :data:`SWEEP_COLUMNS`).
- :func:`stability`: per system × attribute over the sets: the spread of the estimate (median, min, max), the share
  of rewordings whose sign or verdict differs from the published wording's (columns :data:`STABILITY_COLUMNS`).
- :func:`ranking`: per rewording, Kendall's τ between the systems' estimates there and under the published wording
  (scipy's τ-b; NaN with a note when fewer than 3 systems or no variation; :data:`RANKING_COLUMNS`).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from toolkit.errors import SchemaError
from toolkit.studies.eec import analysis as eec_study

SWEEP_COLUMNS = ["wording", "model", "task", "attribute", "estimate", "ci_low", "ci_high", "p_adjusted", "verdict"]
STABILITY_COLUMNS = ["model", "task", "attribute", "n_rewordings", "published_estimate", "published_verdict",
                     "median_estimate", "min_estimate", "max_estimate", "share_sign_differs",
                     "share_verdict_differs"]
RANKING_COLUMNS = ["task", "attribute", "wording", "kendall_tau", "p_value", "n_systems", "note"]
PUBLISHED = "published"
_ZERO = 1e-12


def sweep(scored: pd.DataFrame, *, attributes: Sequence[str] = ("gender", "race"), subset: str = "all",
          alpha: float = 0.05, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Run :func:`toolkit.studies.eec.analysis.intervals` on each wording set of ``scored`` (a scored EEC table with a
    ``wording`` column, e.g. the sets of ``generators.eec.generate(wording=...)`` concatenated and scored). The
    correction family is each set's own run, as a study of that wording would have it."""
    if "wording" not in scored.columns:
        raise SchemaError("the sweep needs a 'wording' column (generators.eec.generate(wording=...)).",
                          fix="generate each set with eec.generate(wording=w), concatenate, score, then sweep")
    frames = []
    for wording, block in scored.groupby("wording", sort=False):
        result = eec_study.intervals(block, subsets=(subset,), attributes=attributes, alpha=alpha, n_boot=n_boot,
                                     seed=seed)
        frames.append(result.assign(wording=wording))
    out = pd.concat(frames, ignore_index=True)
    return out.loc[:, SWEEP_COLUMNS]


def _sign(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) <= _ZERO, 0, np.sign(x))


def stability(table: pd.DataFrame) -> pd.DataFrame:
    """Per system × attribute of a :func:`sweep` table: how the estimate and the verdict move across rewordings."""
    if PUBLISHED not in set(table["wording"]):
        raise SchemaError("the sweep has no published wording to compare the rewordings with.",
                          fix="include wording='published' in the sweep")
    rows = []
    for (model, task, attribute), block in table.groupby(["model", "task", "attribute"], sort=False):
        base = block[block["wording"] == PUBLISHED].iloc[0]
        other = block[block["wording"] != PUBLISHED]
        estimates = block["estimate"].to_numpy(dtype=float)
        rows.append({"model": model, "task": task, "attribute": attribute, "n_rewordings": len(other),
                     "published_estimate": float(base["estimate"]), "published_verdict": base["verdict"],
                     "median_estimate": float(np.median(estimates)), "min_estimate": float(estimates.min()),
                     "max_estimate": float(estimates.max()),
                     "share_sign_differs": float(np.mean(_sign(other["estimate"].to_numpy(dtype=float))
                                                         != _sign(np.array([base["estimate"]], dtype=float))))
                     if len(other) else np.nan,
                     "share_verdict_differs": float(np.mean(other["verdict"] != base["verdict"]))
                     if len(other) else np.nan})
    return pd.DataFrame(rows, columns=STABILITY_COLUMNS)


def ranking(table: pd.DataFrame) -> pd.DataFrame:
    """Per task × attribute × rewording: Kendall's τ-b between the systems' estimates under that rewording and under
    the published wording (scipy.stats.kendalltau; its p for τ = 0, exact where scipy can)."""
    rows = []
    for (task, attribute), block in table.groupby(["task", "attribute"], sort=False):
        wide = block.pivot_table(index="model", columns="wording", values="estimate", aggfunc="first")
        if PUBLISHED not in wide.columns:
            continue
        for wording in [w for w in wide.columns if w != PUBLISHED]:
            pair = wide[[PUBLISHED, wording]].dropna()
            n = len(pair)
            row = {"task": task, "attribute": attribute, "wording": wording, "n_systems": n,
                   "kendall_tau": np.nan, "p_value": np.nan, "note": ""}
            if n < 3:
                row["note"] = f"{n} systems: a ranking needs at least 3"
            elif pair[PUBLISHED].nunique() < 2 or pair[wording].nunique() < 2:
                row["note"] = "every system has the same estimate under one wording: no ranking to compare"
            else:
                result = sps.kendalltau(pair[PUBLISHED], pair[wording])
                row.update(kendall_tau=float(result.statistic), p_value=float(result.pvalue))
                if pair[PUBLISHED].duplicated().any() or pair[wording].duplicated().any():
                    row["note"] = "ties among the systems (e.g. name-blind models at 0): τ-b"
            rows.append(row)
    return pd.DataFrame(rows, columns=RANKING_COLUMNS)
