"""Perturbation Sensitivity Analysis (Prabhakaran, Hutchinson & Mitchell 2019, Section 3; Table 2, Figures 1–2).

What: how much a model's score moves when a pronoun in a real sentence is replaced by a person's name.
Inputs: the scored PSA table (:func:`toolkit.generators.psa.generate` → :func:`toolkit.scoring.score`); f(x) is the
score of the original sentence x, f(x_n) the score with name n.

- ScoreSens(n) = mean over x of f(x_n) − f(x)                            → :func:`score_sens`
- ScoreDev = mean over x of the standard deviation of f(x_n) over names  → :func:`summary` (population std, ddof=0)
- ScoreRange = mean over x of max_n f(x_n) − min_n f(x_n)                → :func:`summary`
  with percentile-bootstrap confidence intervals over sentences (seeded).
- LabelDist(c) = mean over names of the Jaccard distance between {x : f(x) ≥ c} and {x : f(x_n) ≥ c}
                                                                         → :func:`label_dist`
  Two empty sets are identical: their Jaccard distance is 0 (so are two equal non-empty sets).
- The Pearson correlation between mean_n |f(x_n) − f(x)| and f(x)      → :func:`sensitivity_correlation`
  (the paper reports r = −0.48 for its toxicity model).

Scale: scores here are valence in [0, 1]. The paper's sentiment scale is [−1, 1]; s = 2·valence − 1, so ScoreSens,
ScoreDev and ScoreRange are half the size they would be on the paper's scale, a threshold c here is 2c − 1 there,
and LabelDist and r are unchanged.

Outputs (fixed columns): :data:`NAME_COLUMNS`, :data:`SUMMARY_COLUMNS`, :data:`LABEL_DIST_COLUMNS`,
:data:`CORRELATION_COLUMNS`, :data:`FLIP_COLUMNS`.
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from toolkit.cases import with_scores
from toolkit.errors import InputError, SchemaError

NAME_COLUMNS = ("model", "corpus", "name", "gender", "category", "score_sens", "n_texts")
SUMMARY_COLUMNS = ("model", "corpus", "score_dev", "score_dev_low", "score_dev_high", "score_range",
                   "score_range_low", "score_range_high", "n_texts", "n_names")
LABEL_DIST_COLUMNS = ("model", "corpus", "threshold", "label_dist")
CORRELATION_COLUMNS = ("model", "corpus", "pearson_r", "p_value", "n_texts")
FLIP_COLUMNS = ("model", "corpus", "name", "gender", "category", "threshold", "flip_rate")
THRESHOLDS: tuple[float, ...] = tuple(np.round(np.arange(0.05, 1.0, 0.05), 2))
_REQUIRED = ("model", "score", "case_id", "is_original", "fill", "gender", "category", "corpus")


def _wide(scored: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (model, corpus): originals f(x) indexed by case, and perturbed f(x_n) as a case × name matrix."""
    missing = [c for c in _REQUIRED if c not in scored.columns]
    if missing:
        raise SchemaError(f"not a scored PSA table: column {missing[0]!r} is missing.",
                          fix="score toolkit.psa.generate(...) with toolkit.scoring.score().")
    scored = with_scores(scored, study="psa")
    if scored.duplicated(["model", "corpus", "case_id", "fill"]).any():
        raise SchemaError("a sentence is scored twice with the same name (or two originals) for one model.",
                          fix="score each model once on the generator's output.")
    originals = scored[scored["is_original"]].set_index(["model", "corpus", "case_id"])["score"]
    perturbed = scored[~scored["is_original"]].pivot_table(index=["model", "corpus", "case_id"], columns="fill",
                                                           values="score", aggfunc="first")
    if perturbed.isna().any().any():
        raise SchemaError("some sentence lacks a score for some name.",
                          fix="keep every (sentence, name) row the generator emits.")
    missing_original = perturbed.index.difference(originals.index)
    if len(missing_original):
        raise SchemaError(f"case {missing_original[0][2]!r} has no original sentence.",
                          fix="keep the is_original rows the generator emits.")
    return originals, perturbed


def _names(scored: pd.DataFrame) -> pd.DataFrame:
    return scored[~scored["is_original"]].drop_duplicates("fill").set_index("fill")[["gender", "category"]]


def score_sens(scored: pd.DataFrame) -> pd.DataFrame:
    """ScoreSens per model × corpus × name (columns :data:`NAME_COLUMNS`)."""
    originals, perturbed = _wide(scored)
    delta = perturbed.sub(originals.reindex(perturbed.index), axis=0)
    long = delta.groupby(level=["model", "corpus"]).agg(["mean", "count"]).stack(level=0, future_stack=True)
    long = long.reset_index().rename(columns={"fill": "name", "mean": "score_sens", "count": "n_texts"})
    out = long.join(_names(scored), on="name")
    out["n_texts"] = out["n_texts"].astype(int)
    return out.loc[:, list(NAME_COLUMNS)].sort_values(["model", "corpus", "gender", "score_sens"], ignore_index=True)


def _bootstrap(values: np.ndarray, *, n_boot: int, rng: np.random.Generator, level: float) -> tuple[float, float]:
    if n_boot == 0 or len(values) < 2:
        return np.nan, np.nan
    means = values[rng.integers(0, len(values), size=(n_boot, len(values)))].mean(axis=1)
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))


def summary(scored: pd.DataFrame, *, n_boot: int = 1000, level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """ScoreDev and ScoreRange per model × corpus with bootstrap CIs over sentences (:data:`SUMMARY_COLUMNS`)."""
    if not 0 < level < 1 or n_boot < 0:
        raise InputError(f"need 0 < level < 1 and n_boot >= 0, got level={level}, n_boot={n_boot}.",
                         fix="e.g. level=0.95, n_boot=1000 (0 skips the intervals).")
    _, perturbed = _wide(scored)
    rows = []
    for (model, corpus), block in perturbed.groupby(level=["model", "corpus"], sort=False):
        values = block.to_numpy()
        dev = np.std(values - values.min(axis=1, keepdims=True), axis=1)  # centred: equal scores give exactly 0
        spread = values.max(axis=1) - values.min(axis=1)
        rng = np.random.default_rng(seed)
        dev_ci = _bootstrap(dev, n_boot=n_boot, rng=rng, level=level)
        range_ci = _bootstrap(spread, n_boot=n_boot, rng=rng, level=level)
        rows.append({"model": model, "corpus": corpus, "score_dev": float(dev.mean()), "score_dev_low": dev_ci[0],
                     "score_dev_high": dev_ci[1], "score_range": float(spread.mean()),
                     "score_range_low": range_ci[0], "score_range_high": range_ci[1], "n_texts": len(values),
                     "n_names": values.shape[1]})
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))


def jaccard_distance(a: np.ndarray, b: np.ndarray) -> float:
    """1 − |A ∩ B| / |A ∪ B| for boolean membership vectors; 0 when both sets are empty."""
    union = np.logical_or(a, b).sum()
    return 0.0 if union == 0 else float(1.0 - np.logical_and(a, b).sum() / union)


def check_thresholds(thresholds: Sequence[float]) -> None:
    """TK102 unless ``thresholds`` is a non-empty list of numbers in [0, 1] (valences)."""
    bad = [c for c in thresholds if isinstance(c, bool) or not isinstance(c, numbers.Real) or not 0.0 <= c <= 1.0]
    if bad or not len(thresholds):
        raise InputError(f"thresholds must be numbers in [0, 1] (valences); got {bad[0] if bad else 'none'!r}.",
                         fix=f"pass e.g. thresholds={list(THRESHOLDS)[:3]}… (the default: {len(THRESHOLDS)} "
                             "evenly spaced thresholds).")


def label_dist(scored: pd.DataFrame, *, thresholds: Sequence[float] = THRESHOLDS) -> pd.DataFrame:
    """LabelDist(c) per model × corpus × threshold (columns :data:`LABEL_DIST_COLUMNS`); thresholds lie in [0, 1]."""
    check_thresholds(thresholds)
    originals, perturbed = _wide(scored)
    rows = []
    for (model, corpus), block in perturbed.groupby(level=["model", "corpus"], sort=False):
        base = originals.reindex(block.index).to_numpy()
        values = block.to_numpy()
        for c in thresholds:
            above = base >= c
            distances = [jaccard_distance(above, values[:, j] >= c) for j in range(values.shape[1])]
            rows.append({"model": model, "corpus": corpus, "threshold": float(c),
                         "label_dist": float(np.mean(distances))})
    return pd.DataFrame(rows, columns=list(LABEL_DIST_COLUMNS))


def label_flips(scored: pd.DataFrame, *, threshold: float) -> pd.DataFrame:
    """Per name: the share of sentences whose label at ``threshold`` differs from the original's
    (columns :data:`FLIP_COLUMNS`) — the per-name view behind LabelDist."""
    originals, perturbed = _wide(scored)
    base = originals.reindex(perturbed.index).to_numpy()[:, None] >= threshold
    flips = pd.DataFrame((perturbed.to_numpy() >= threshold) != base, index=perturbed.index, columns=perturbed.columns)
    rate = flips.where(perturbed.notna()).groupby(level=["model", "corpus"]).mean()
    long = rate.stack().rename("flip_rate").reset_index().rename(columns={"fill": "name"})
    long["threshold"] = float(threshold)
    return long.join(_names(scored), on="name").loc[:, list(FLIP_COLUMNS)]


def sensitivity_correlation(scored: pd.DataFrame) -> pd.DataFrame:
    """Pearson r between mean_n |f(x_n) − f(x)| and f(x) per model × corpus (:data:`CORRELATION_COLUMNS`)."""
    originals, perturbed = _wide(scored)
    rows = []
    for (model, corpus), block in perturbed.groupby(level=["model", "corpus"], sort=False):
        base = originals.reindex(block.index).to_numpy()
        sensitivity = np.nanmean(np.abs(block.to_numpy() - base[:, None]), axis=1)
        if len(base) < 3 or np.ptp(base) == 0 or np.ptp(sensitivity) == 0:
            r, p = np.nan, np.nan  # undefined for constant inputs
        else:
            r, p = stats.pearsonr(sensitivity, base)
        rows.append({"model": model, "corpus": corpus, "pearson_r": float(r), "p_value": float(p),
                     "n_texts": len(base)})
    return pd.DataFrame(rows, columns=list(CORRELATION_COLUMNS))


def table2(summary_frame: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2: rows corpus, columns (model, ScoreDev/ScoreRange)."""
    wide = summary_frame.pivot(index="corpus", columns="model", values=["score_dev", "score_range"])
    return wide.swaplevel(axis=1).sort_index(axis=1)
