"""Perturbation Sensitivity Analysis (Prabhakaran, Hutchinson & Mitchell 2019, Section 3; Table 2, Figures 1–2).

What: how much a model's score moves when a pronoun in a real sentence is replaced by a person's name.
Inputs: the scored PSA table (:func:`toolkit.studies.psa.generator.generate` → :func:`toolkit.scoring.score`); f(x) is the
score of the original sentence x, f(x_n) the score with name n.

- ScoreSens(n) = mean over x of f(x_n) − f(x)                            → :func:`score_sens`
  with an interval over sentences (beyond the paper): Hall's (1992) skewness-corrected t by default, the plain t
  as an option.
- ScoreDev = mean over x of the standard deviation of f(x_n) over names  → :func:`summary` (population std, ddof=0)
- ScoreRange = mean over x of max_n f(x_n) − min_n f(x_n)                → :func:`summary`
  with percentile-bootstrap confidence intervals over sentences (seeded).
- LabelDist(c) = mean over names of the Jaccard distance between {x : f(x) ≥ c} and {x : f(x_n) ≥ c}
                                                                         → :func:`label_dist`
  Two empty sets are identical: their Jaccard distance is 0 (so are two equal non-empty sets). Each threshold's
  ``label_dist_low``/``label_dist_high`` is a seeded percentile-bootstrap interval over sentences.
- The Pearson correlation between mean_n |f(x_n) − f(x)| and f(x)      → :func:`sensitivity_correlation`
  with its Fisher-z interval.
  (the paper reports r = −0.48 for its toxicity model).

Statistics beyond the paper (estimators from :mod:`toolkit.stats`):

- :func:`gender_gap`: Δ = mean f(x_n) over female names − over male names, per model × corpus, with the
  :data:`toolkit.stats.STAT_COLUMNS`. Design: the sentences × names array of F − M differences, the i-th female
  name paired with the i-th male name of the same category in the name set's order (the default set has 4 + 4 per
  category; names left after pairing within categories are paired across, and a name still without a partner is
  left out with a warning). The grand mean is then exactly mean(F) − mean(M); the pairing only shapes the standard
  error. Interval: :func:`toolkit.stats.two_way_bootstrap` with sentences as templates and name pairs as names
  (its default: the two-way random-effects SE with a Satterthwaite t, so the p is not floored by a resample
  count; ``ci_method`` names it); ``p_adjusted`` over the family model × corpus (``correction``: ``bonferroni``
  default, ``holm``, ``fdr_bh``); ``verdict`` (:func:`toolkit.stats.verdict`, a = female, b = male, TOST at
  ``margin`` with the same SE and Satterthwaite df). Null baseline (placebo): each gender's names split at
  random into two halves (seeded) within each name category (the observed pairs match categories, so a category
  effect must not widen the null), Δ_null = ½[(F₁ − F₂) + (M₁ − M₂)] — a difference between two groups as large as
  the real ones with no gender contrast; ``null_low``/``null_high`` are the ``alpha/2`` and ``1 − alpha/2``
  quantiles of Δ_null over ``n_null`` splits, the range a name-sensitive but unbiased model's Δ falls in;
  ``null_p`` = (1 + #splits with |Δ_null| ≥ |Δ|) / (1 + ``n_null``), the placebo test's p (uncorrected; NaN where no
  category holds two name pairs to split).
- :func:`variance_table`: two-way random-effects variance components of the perturbation effect
  f(x_n) − f(x) over sentences × names (:func:`toolkit.stats.variance_components`): how much of it is the
  sentence, the name, or their interaction.

Scale: scores here are valence in [0, 1]. The paper's sentiment scale is [−1, 1]; s = 2·valence − 1, so ScoreSens,
ScoreDev and ScoreRange are half the size they would be on the paper's scale, a threshold c here is 2c − 1 there,
and LabelDist and r are unchanged.

Outputs (fixed columns): :data:`NAME_COLUMNS`, :data:`SUMMARY_COLUMNS`, :data:`LABEL_DIST_COLUMNS`,
:data:`CORRELATION_COLUMNS`, :data:`FLIP_COLUMNS`, :data:`GENDER_COLUMNS`, :data:`VARIANCE_COLUMNS`.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from toolkit import checks, verdicts
from toolkit import stats as st
from toolkit.cases import with_scores
from toolkit.errors import InputError, SchemaError, unknown, warn

NAME_COLUMNS = ("model", "corpus", "name", "gender", "category", "score_sens", "n_texts", "score_sens_low",
                "score_sens_high")
SUMMARY_COLUMNS = ("model", "corpus", "score_dev", "score_dev_low", "score_dev_high", "score_range",
                   "score_range_low", "score_range_high", "n_texts", "n_names")
LABEL_DIST_COLUMNS = ("model", "corpus", "threshold", "label_dist", "label_dist_low", "label_dist_high")
CORRELATION_COLUMNS = ("model", "corpus", "pearson_r", "p_value", "n_texts", "r_low", "r_high")
FLIP_COLUMNS = ("model", "corpus", "name", "gender", "category", "threshold", "flip_rate", "flips", "n_sentences",
                "flip_low", "flip_high")
GENDER_COLUMNS = (("model", "corpus", "a", "b", "mean_a", "mean_b", "n_texts", "n_pairs", "n_pairs_unmoved")
                  + st.STAT_COLUMNS
                  + ("p_value", "ci_method", "null_low", "null_high", "null_p"))
VARIANCE_COLUMNS = ("model", "corpus", "var_sentence", "var_name", "var_residual", "share_sentence", "share_name",
                    "share_residual", "se_two_way", "se_sentences", "n_texts", "n_names")
N_NULL = 1000
THRESHOLDS: tuple[float, ...] = tuple(np.round(np.arange(0.05, 1.0, 0.05), 2))
_REQUIRED = ("model", "score", "case_id", "is_original", "fill", "gender", "category", "corpus")


VERDICT_GROUPS = verdicts.Groups("female", "male", "F", "M", "female names score higher than male names",
                                 "male names score higher than female names")
"""The gender gap verdict's two groups (Δ = female − male), as tables, captions and legends name them."""


def _wide(scored: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (model, corpus): originals f(x) indexed by case, and perturbed f(x_n) as a case × name matrix."""
    missing = [c for c in _REQUIRED if c not in scored.columns]
    if missing:
        raise SchemaError(f"not a scored PSA table: column {missing[0]!r} is missing.",
                          fix="score toolkit.studies.psa.generator(...) with toolkit.scoring.score().")
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


SCORE_SENS_INTERVALS = st.MEAN_INTERVALS
"""ScoreSens's interval methods (:func:`toolkit.stats.mean_interval`): ``hall`` (default), ``t``."""
SCORE_SENS_INTERVAL_NAMES = {"hall": "Hall (1992) skewness-corrected t over sentences",
                             "t": "t over sentences (mean ± t(n − 1)·sd/√n)"}
"""What each ScoreSens interval method is, as the provenance records it."""


def score_sens(scored: pd.DataFrame, *, level: float = 0.95, interval: str = "hall") -> pd.DataFrame:
    """ScoreSens per model × corpus × name (columns :data:`NAME_COLUMNS`) with a ``level`` interval over sentences
    (``score_sens_low``/``_high``) for the mean of f(x_n) − f(x): ``interval="hall"`` (default), Hall's (1992)
    skewness-corrected t, or ``"t"``, mean ± t(n − 1)·sd/√n (:func:`toolkit.stats.mean_interval`; the paper gives
    no interval). Per-sentence effects are skewed when a few sentences carry most of a name's shift; there the t
    interval undercovers at 56 sentences and Hall's does not (docs/statistics.md, PSA). One sentence: NaN; every
    difference equal: a zero-width interval. The name is fixed here: the interval says how well this name's effect
    is measured on this corpus's sentences."""
    if interval not in SCORE_SENS_INTERVALS:
        raise unknown("ScoreSens interval", interval, SCORE_SENS_INTERVALS)
    if not 0 < level < 1:
        raise InputError(f"need 0 < level < 1, got level={level}.", fix="e.g. level=0.95.")
    originals, perturbed = _wide(scored)
    delta = perturbed.sub(originals.reindex(perturbed.index), axis=0)
    long = delta.groupby(level=["model", "corpus"]).agg(["mean", "count"]).stack(level=0, future_stack=True)
    long = long.reset_index().rename(columns={"fill": "name", "mean": "score_sens", "count": "n_texts"})
    bounds = []
    for (model, corpus), block in delta.groupby(level=["model", "corpus"], sort=False):
        low, high = st.mean_interval(block.to_numpy(), level=level, method=interval)
        centre = block.to_numpy().mean(axis=0)  # the interval's ends as offsets from its own mean
        bounds.append(pd.DataFrame({"model": model, "corpus": corpus, "name": block.columns,
                                    "low_offset": low - centre, "high_offset": high - centre}))
    long = long.merge(pd.concat(bounds, ignore_index=True), on=["model", "corpus", "name"], how="left")
    long["score_sens_low"] = long["score_sens"] + long["low_offset"]
    long["score_sens_high"] = long["score_sens"] + long["high_offset"]
    out = long.join(_names(scored), on="name")
    out["n_texts"] = out["n_texts"].astype(int)
    out = out.loc[:, list(NAME_COLUMNS)].sort_values(["model", "corpus", "gender", "score_sens"], ignore_index=True)
    out.attrs["score_sens_interval"] = interval  # the figure's legend names it
    return out


def _bootstrap(values: np.ndarray, *, n_boot: int, rng: np.random.Generator, level: float) -> tuple[float, float]:
    if n_boot == 0 or len(values) < 2:
        return np.nan, np.nan
    means = values[rng.integers(0, len(values), size=(n_boot, len(values)))].mean(axis=1)
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))


def summary(scored: pd.DataFrame, *, n_boot: int = 1000, level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """ScoreDev and ScoreRange per model × corpus with bootstrap CIs over sentences (:data:`SUMMARY_COLUMNS`)."""
    n_boot = checks.n_boot(n_boot, allow_zero=True)  # 0: no intervals
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


def _boot_weights(n: int, *, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Row 0: every sentence once (the estimate); rows 1…n_boot: how often each sentence is drawn."""
    draws = rng.integers(0, n, size=(n_boot, n))
    weights = np.zeros((n_boot + 1, n))
    weights[0] = 1.0
    np.add.at(weights, (np.arange(1, n_boot + 1)[:, None], draws), 1.0)
    return weights


def _label_dist_draws(base: np.ndarray, values: np.ndarray, threshold: float, weights: np.ndarray) -> np.ndarray:
    """LabelDist at ``threshold`` for each row of sentence ``weights`` (Jaccard distances from weighted counts)."""
    above, perturbed = base[:, None] >= threshold, values >= threshold
    inter = weights @ (above & perturbed)
    union = weights @ (above | perturbed)
    distance = np.where(union > 0, 1.0 - inter / np.where(union > 0, union, 1.0), 0.0)
    return distance.mean(axis=1)


def label_dist(scored: pd.DataFrame, *, thresholds: Sequence[float] = THRESHOLDS, n_boot: int = 1000,
               level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """LabelDist(c) per model × corpus × threshold (columns :data:`LABEL_DIST_COLUMNS`); thresholds lie in [0, 1].
    ``label_dist_low``/``_high``: a ``level`` percentile-bootstrap interval over sentences (seeded; ``n_boot=0``
    or a single sentence: NaN)."""
    check_thresholds(thresholds)
    n_boot = checks.n_boot(n_boot, allow_zero=True)  # 0: no intervals
    if not 0 < level < 1 or n_boot < 0:
        raise InputError(f"need 0 < level < 1 and n_boot >= 0, got level={level}, n_boot={n_boot}.",
                         fix="e.g. level=0.95, n_boot=1000 (0 skips the intervals).")
    originals, perturbed = _wide(scored)
    rows = []
    tail = (1 - level) / 2
    for (model, corpus), block in perturbed.groupby(level=["model", "corpus"], sort=False):
        base = originals.reindex(block.index).to_numpy()
        values = block.to_numpy()
        boots = n_boot if len(base) >= 2 else 0
        weights = _boot_weights(len(base), n_boot=boots, rng=np.random.default_rng(seed))
        for c in thresholds:
            draws = _label_dist_draws(base, values, float(c), weights)
            low, high = np.quantile(draws[1:], [tail, 1 - tail]) if boots else (np.nan, np.nan)
            rows.append({"model": model, "corpus": corpus, "threshold": float(c), "label_dist": float(draws[0]),
                         "label_dist_low": float(low), "label_dist_high": float(high)})
    return pd.DataFrame(rows, columns=list(LABEL_DIST_COLUMNS))


def label_flips(scored: pd.DataFrame, *, threshold: float, alpha: float = st.ALPHA) -> pd.DataFrame:
    """Per name: the share of sentences whose label at ``threshold`` differs from the original's (columns
    :data:`FLIP_COLUMNS`) — the per-name view behind LabelDist — with the count (``flips`` of ``n_sentences``, the
    sentences the name was scored in) and its Wilson interval at ``1 - alpha`` (``flip_low``/``flip_high``;
    :func:`toolkit.stats.wilson`'s method; sentences are the sample; per name, not adjusted across names)."""
    from statsmodels.stats.proportion import proportion_confint

    alpha = checks.alpha(alpha)
    originals, perturbed = _wide(scored)
    base = originals.reindex(perturbed.index).to_numpy()[:, None] >= threshold
    flips = pd.DataFrame((perturbed.to_numpy() >= threshold) != base, index=perturbed.index, columns=perturbed.columns)
    flips = flips.where(perturbed.notna())
    grouped = flips.groupby(level=["model", "corpus"])
    long = pd.concat({"flips": grouped.sum(min_count=1).stack(), "n_sentences": grouped.count().stack()},
                     axis=1).reset_index().rename(columns={"fill": "name"})
    long = long[long["n_sentences"] > 0]  # a name no sentence of the model holds has no rate (as before)
    long["flips"], long["n_sentences"] = long["flips"].astype(int), long["n_sentences"].astype(int)
    long["flip_rate"] = long["flips"] / long["n_sentences"]
    low, high = proportion_confint(long["flips"], long["n_sentences"], alpha=alpha, method="wilson")
    long["flip_low"] = np.clip(low, 0, long["flip_rate"])  # 0 flips: 0, not statsmodels' 7e-18
    long["flip_high"] = np.clip(high, long["flip_rate"], 1)
    long["threshold"] = float(threshold)
    return long.join(_names(scored), on="name").loc[:, list(FLIP_COLUMNS)].reset_index(drop=True)


def sensitivity_correlation(scored: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Pearson r between mean_n |f(x_n) − f(x)| and f(x) per model × corpus (:data:`CORRELATION_COLUMNS`), with its
    p and a ``level`` Fisher-z interval (``r_low``/``r_high``; scipy's ``pearsonr(...).confidence_interval``; needs
    4 sentences). Sentences are the sample (the names are averaged within each)."""
    if not 0 < level < 1:
        raise InputError(f"need 0 < level < 1, got level={level}.", fix="e.g. level=0.95.")
    originals, perturbed = _wide(scored)
    rows = []
    for (model, corpus), block in perturbed.groupby(level=["model", "corpus"], sort=False):
        base = originals.reindex(block.index).to_numpy()
        sensitivity = np.nanmean(np.abs(block.to_numpy() - base[:, None]), axis=1)
        if len(base) < 3 or np.ptp(base) == 0 or np.ptp(sensitivity) == 0:
            r, p, low, high = np.nan, np.nan, np.nan, np.nan  # undefined for constant inputs
        else:
            result = stats.pearsonr(sensitivity, base)
            r, p = result.statistic, result.pvalue
            low, high = result.confidence_interval(confidence_level=level) if len(base) > 3 else (np.nan, np.nan)
        rows.append({"model": model, "corpus": corpus, "pearson_r": float(r), "p_value": float(p),
                     "n_texts": len(base), "r_low": float(low), "r_high": float(high)})
    return pd.DataFrame(rows, columns=list(CORRELATION_COLUMNS))


def name_pairs(scored: pd.DataFrame) -> list[tuple[str, str]]:
    """(female, male) name pairs for :func:`gender_gap`: within each category in the name set's order, then the
    names left over across categories; a name still without a partner is left out with a warning."""
    names = _names(scored)
    female = names[names["gender"] == "female"]
    male = names[names["gender"] == "male"]
    pairs: list[tuple[str, str]] = []
    for category in dict.fromkeys(names["category"]):
        f = female.index[female["category"] == category].tolist()
        m = male.index[male["category"] == category].tolist()
        pairs += list(zip(f, m))
    paired = {n for p in pairs for n in p}
    rest_f = [n for n in female.index if n not in paired]
    rest_m = [n for n in male.index if n not in paired]
    pairs += list(zip(rest_f, rest_m))
    unpaired = abs(len(rest_f) - len(rest_m))
    if unpaired:
        warn(f"PSA gender gap: {unpaired} name(s) without a partner of the other gender left out "
             f"({len(female)} female, {len(male)} male names).")
    return pairs


def _placebo(female: np.ndarray, male: np.ndarray, *, strata: np.ndarray, n_null: int,
             rng: np.random.Generator) -> np.ndarray:
    """Δ_null = ½[(F₁ − F₂) + (M₁ − M₂)] over ``n_null`` random splits of each gender's per-name means, each split
    made within the name pairs' ``strata`` (their category: the observed F − M pairs names within a category, so a
    category effect must not widen the null): a half-difference is the stratum-size-weighted mean of the
    within-stratum differences between the two halves (a stratum of odd size gives its odd name to a random half;
    a stratum of one name cannot be split and is left out)."""
    groups = [g for g in (np.flatnonzero(strata == value) for value in dict.fromkeys(strata.tolist())) if len(g) > 1]
    if not groups:  # no category holds two name pairs: no split within one
        return np.full(n_null, np.nan)
    weights = np.array([len(g) for g in groups], dtype=float)
    weights /= weights.sum()

    def half_difference(means: np.ndarray) -> np.ndarray:
        out = np.zeros(n_null)
        for weight, group in zip(weights, groups):
            for i in range(n_null):
                order = rng.permutation(group)
                cut = len(order) // 2 + (int(rng.random() < 0.5) if len(order) % 2 else 0)
                out[i] += weight * (means[order[:cut]].mean() - means[order[cut:]].mean())
        return out
    return 0.5 * (half_difference(female) + half_difference(male))


def _interval(matrix: np.ndarray, *, alpha: float, n_boot: int, seed: int) -> dict:
    """:func:`toolkit.stats.two_way_bootstrap` with its default method (the Satterthwaite t); ``ci_method`` names
    the method used."""
    boot = st.two_way_bootstrap(matrix, alpha=alpha, n_boot=n_boot, seed=seed)
    return {**boot, "ci_method": boot["method"]}


def _gap_row(block: pd.DataFrame, pairs: list[tuple[str, str]], *, strata: list[str], alpha: float, n_boot: int,
             n_null: int, seed: int) -> dict:
    female = block[[f for f, _ in pairs]].to_numpy()
    male = block[[m for _, m in pairs]].to_numpy()
    row = {"a": "female", "b": "male", "mean_a": float(female.mean()) if female.size else np.nan,
           "mean_b": float(male.mean()) if male.size else np.nan, "n_texts": len(block), "n_pairs": len(pairs),
           "n_pairs_unmoved": int(np.all(female == male, axis=0).sum()) if female.size else 0, "identical": False}
    if len(block) < 2 or len(pairs) < 2:
        return {**row, "estimate": row["mean_a"] - row["mean_b"], "ci_low": np.nan, "ci_high": np.nan,
                "effect_size": np.nan, "p_value": np.nan, "se": np.nan, "df": np.nan, "null_low": np.nan,
                "null_high": np.nan, "null_p": np.nan, "ci_method": ""}
    row["identical"] = bool(np.array_equal(female, male))  # every paired score equal: nothing to test
    boot = _interval(female - male, alpha=alpha, n_boot=n_boot, seed=seed)
    null = _placebo(female.mean(axis=0), male.mean(axis=0), strata=np.asarray(strata), n_null=n_null,
                    rng=np.random.default_rng(seed))
    low, high = np.quantile(null, [alpha / 2, 1 - alpha / 2]) if np.isfinite(null).all() else (np.nan, np.nan)
    observed = abs(boot["estimate"])
    null_p = ((1 + np.sum(np.abs(null) >= observed - 1e-12)) / (1 + len(null)) if np.isfinite(null).all()
              else np.nan)
    return {**row, **{k: boot[k] for k in ("estimate", "ci_low", "ci_high", "effect_size", "p_value", "se",
                                            "ci_method")},
            "df": float(boot["df"]) if np.isfinite(boot.get("df", np.nan)) else float(min(female.shape) - 1),
            "null_low": float(low), "null_high": float(high),
            "null_p": float(null_p)}


def gender_gap(scored: pd.DataFrame, *, n_boot: int = st.N_BOOT, seed: int = 0, alpha: float = st.ALPHA,
               margin: float = st.MARGIN, correction: str = "bonferroni", n_null: int = N_NULL) -> pd.DataFrame:
    """Δ = female − male mean score per model × corpus with the stats columns, the placebo null range and the
    paired names (design in the module docstring). Columns :data:`GENDER_COLUMNS`; ``p_adjusted`` over the family
    model × corpus by ``correction``; fewer than 2 sentences or 2 name pairs: NaN statistics, ``inconclusive``;
    every paired score equal: ``identical scores (no test needed)``, as in the other studies."""
    alpha, margin, n_boot = checks.statistics(correction=correction, margin=margin, alpha=alpha, n_boot=n_boot)
    n_null, seed = checks.n_boot(n_null, name="n_null"), checks.seed(seed)
    _, perturbed = _wide(scored)
    pairs = name_pairs(scored)
    category = _names(scored)["category"]
    strata = [category[f] if category[f] == category[m] else "across categories" for f, m in pairs]
    rows = [{"model": model, "corpus": corpus, **_gap_row(block, pairs, strata=strata, alpha=alpha, n_boot=n_boot,
                                                           n_null=n_null, seed=seed)}
            for (model, corpus), block in perturbed.groupby(level=["model", "corpus"], sort=False)]
    frame = pd.DataFrame(rows)
    frame["p_adjusted"] = st.adjust(frame["p_value"].to_numpy(dtype=float), method=correction)
    frame["verdict"] = [st.verdict(estimate=r.estimate, se=r.se, df=r.df, p_adjusted=r.p_adjusted, margin=margin,
                                   alpha=alpha, identical=bool(r.identical),
                                   p_equivalence=1.0 if sparse_sensitivity(r._asdict()) else None)
                        if np.isfinite(r.se) or r.identical else "inconclusive"
                        for r in frame.itertuples()]
    return frame.loc[:, list(GENDER_COLUMNS)]


def sparse_sensitivity(row: Mapping) -> bool:
    """Whether a gender-gap row claims no equivalence by the EEC's sparse-sensitivity rule: some name pairs never
    move the score in any sentence while others do (``0 < n_pairs_unmoved < n_pairs``, a lexicon that knows a few
    names). The names are samples, and a population where a few names carry a large shift gives such samples."""
    unmoved, pairs = row.get("n_pairs_unmoved"), row.get("n_pairs")
    return (not bool(row.get("identical", False)) and pd.notna(unmoved) and pd.notna(pairs)
            and 0 < unmoved < pairs)


def gap_arrays(scored: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    """Per (model, corpus): the sentences × name-pairs array of f(x_female) − f(x_male) that :func:`gender_gap`
    estimates from (pairs by :func:`name_pairs`; columns "female−male")."""
    _, perturbed = _wide(scored)
    pairs = name_pairs(scored)
    return {(model, corpus): pd.DataFrame({f"{f}−{m}": block[f].to_numpy() - block[m].to_numpy() for f, m in pairs})
            for (model, corpus), block in perturbed.groupby(level=["model", "corpus"], sort=False)}


def variance_table(scored: pd.DataFrame) -> pd.DataFrame:
    """Variance components of the perturbation effect f(x_n) − f(x) over sentences × names per model × corpus
    (:data:`VARIANCE_COLUMNS`; fewer than 2 sentences: NaN; an effect that is 0 everywhere: shares NaN)."""
    originals, perturbed = _wide(scored)
    rows = []
    for (model, corpus), block in perturbed.groupby(level=["model", "corpus"], sort=False):
        effect = block.to_numpy() - originals.reindex(block.index).to_numpy()[:, None]
        parts = st.variance_components(effect) if min(effect.shape) >= 2 else {}
        rows.append({"model": model, "corpus": corpus, "var_sentence": parts.get("var_template", np.nan),
                     "var_name": parts.get("var_name", np.nan), "var_residual": parts.get("var_residual", np.nan),
                     "share_sentence": parts.get("share_template", np.nan),
                     "share_name": parts.get("share_name", np.nan),
                     "share_residual": parts.get("share_residual", np.nan),
                     "se_two_way": parts.get("se_two_way", np.nan), "se_sentences": parts.get("se_sentences", np.nan),
                     "n_texts": effect.shape[0], "n_names": effect.shape[1]})
    return pd.DataFrame(rows, columns=list(VARIANCE_COLUMNS))


def table2(summary_frame: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2: rows corpus, columns (model, ScoreDev/ScoreRange)."""
    wide = summary_frame.pivot(index="corpus", columns="model", values=["score_dev", "score_range"])
    return wide.swaplevel(axis=1).sort_index(axis=1)
