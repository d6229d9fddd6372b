"""Agreement across methods: does "most biased" depend on the study that measured it?

Each study's headline measure ranks the same models; Kendall's τ-b between two studies' rankings says how far they
agree, with a seeded bootstrap interval that resamples each study's own sampling units (EEC templates crossed
with its name units, PSA sentences, BiasFinder templates crossed with its names, BTC-SAM cases) — the uncertainty
of the measurements,
not of the model list.

Headlines (each a ratio of sums over units, so a bootstrap replicate is a weighted sum; each study declares its own:
:attr:`toolkit.studies.base.Study.headline` and :meth:`~toolkit.studies.base.Study.units`; :func:`measures`):

- ``eec``: |mean Δ| over the paper's pairs, gender and race averaged (valence on [0, 1]; :mod:`toolkit.studies.eec.analysis`).
- ``psa``: ScoreDev, the mean over sentences of the standard deviation of the scores across names (Prabhakaran et
  al. 2019).
- ``biasfinder``: the BTC rate, BTCs per pair of mutants of different classes, over the gender templates (or the
  attribute asked for) that its rates read; its replicates are the rates' (templates and each class's names drawn,
  a pair weighing by its two names' draws: :meth:`~toolkit.studies.base.Study.resampled_sums`).
- ``btcsam``: the failure rate over cases at ``theta`` under the released rule (:mod:`toolkit.studies.btcsam.analysis`).

Higher = more biased (or more sensitive) in every one; rank 1 = the highest.

Inputs: scored tables of the studies (``result.scored``), any subset of them, sharing at least three models.
Outputs: :data:`HEADLINE_COLUMNS` (per study × model: the headline with a percentile interval — for the EEC's
average of absolute gaps, the signed gaps' intervals folded, :func:`folded_interval`; ``ci_method`` says which,
:data:`CI_METHODS`; ``ci_level``: 1 − alpha, the
level the interval holds at least; ``ci_parts``: the signed parts a ``folded`` interval takes each at 1 − alpha/P,
1 for a percentile one — and its rank, 1 = the highest; tied models share their mean rank, 6.5 for four tied at 5-8; ``rank_low``/``rank_high``: the rank's 95 %
interval over the same replicates, per model (:func:`rank_interval`); ``top_unit_share``: the largest share of the
model's denominator one unit holds — BiasFinder's pronoun templates give 1 pair of mutants and a name template
900, so one template can decide the rate) and
:data:`TAU_COLUMNS`, per pair of studies:

- ``tau``: τ-b over the shared models; ``p_value``: its exact two-sided permutation p (:func:`exact_p`: every
  ordering of one study's headlines up to 9 models, all 40,320 of 8; past 9, Kendall's exact null for untied
  rankings, else 20,000 random orderings; ties kept), and
  ``p_min``, the smallest p the number of models and their ties allow (4 models: 2/24 = 0.083 — no agreement can be
  shown).
- ``p_adjusted``: ``p_value`` corrected over the family, the ``family_size`` pairs with a defined τ, by
  ``correction`` (:data:`CORRECTIONS`; default Holm: "these two studies agree" is one of up to 6 claims for 4
  studies; ``"none"`` reads each pair on its own). The verdict reads ``p_adjusted``.
- ``state`` (:data:`STATES`) and ``reason``: ``undefined`` (a study gives every model the same headline, e.g. no
  model has a BTC), ``too few models`` (``p_min`` ≥ alpha), ``ties`` (τ-b counts only the pairs both studies order;
  a lexicon that ignores names sits at 0 with the others), ``assessable``.
- ``ci_low``/``ci_high``: a percentile interval from replicates that resample both each study's units and the
  models (:func:`two_way_taus`: the models are a sample of models); none below :data:`MIN_MODELS_CI` models or
  where τ is undefined in over 10 % of the replicates (the reason says so). Resampling the units alone covered the
  population τ in 18-46 % of simulated studies of 6-20 models; over units and models, 96-99 %. Its level
  (``ci_level``, :func:`tau_interval`) is simultaneous over the family the p is corrected in (Bonferroni over the
  pairs; 1 − alpha with no correction): in the 4-study design it covered all six pairs at once in 96-99.6 % of
  simulated studies (``benchmarks/agreement_tau_coverage.py``).
- ``share_positive``/``share_undefined``: over replicates that resample the units only (the models fixed): how often
  the measurement noise alone leaves τ > 0, or undefined.
- ``claim_possible`` and ``min_abs_tau``: whether these models can support an agreement claim at all (the
  smallest exact p, ties included, can pass the correction) and the smallest |τ| whose exact p is below the first
  claim's level (alpha / ``family_size`` under Holm or Bonferroni, alpha with no correction) for untied rankings of
  this many models (:func:`claim_support`, Kendall's exact null; at alpha = 0.05 and no correction: NaN for 3-4
  models, 6: 0.87, 8: 0.64, 12: 0.45; Holm over 6 pairs: NaN for 3-5, 6: 1, 8: 0.79, 12: 0.61);
  :func:`~toolkit.studies.agreement.captions.claim_words` says it in words, under the τ figure and in
  the conclusions' ``reason``.
"""
from __future__ import annotations

import argparse
import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, partial
from itertools import accumulate, combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from scipy import stats as sps

from toolkit import checks, stats
from toolkit.errors import InputError, unknown
from toolkit.studies import all_studies, get, register, stats_frame
from toolkit.studies.agreement import figures
from toolkit.studies.agreement.captions import claim_words
from toolkit.studies.base import Settings, Study
from toolkit.studies.result import Provenance, StudyResult

UNIT_COLUMNS = ("model", "unit", "part", "num", "den")
HEADLINE_COLUMNS = ("study", "measure", "model", "estimate", "ci_low", "ci_high", "ci_method", "ci_level", "ci_parts",
                    "rank", "rank_low", "rank_high", "n_units", "top_unit_share")
CI_METHODS = {"percentile": "percentile interval of the headline's replicates at ci_level (1 − α)",
              "folded": "at least ci_level (1 − α): each of the ci_parts signed parts' t interval on the replicates' "
                        "SD at 1 − α/P (Bonferroni), folded onto |·| and averaged (folded_interval)"}
"""The ``ci_method`` of a headline row and what it means (an absolute headline, the EEC's, is ``folded``)."""
TAU_COLUMNS = ("study_a", "study_b", "n_models", "tau", "ci_low", "ci_high", "ci_level", "share_positive",
               "share_undefined",
               "p_value", "p_adjusted", "family_size", "correction", "p_min", "claim_possible", "min_abs_tau", "state",
               "reason")
SUPPORT_COLUMNS = ("n_models", "alpha", "claim_possible", "min_abs_tau", "p_at_min", "null_sd", "width_null")
STATES = ("assessable", "ties", "too few models", "undefined")
CORRECTIONS = ("holm", "bonferroni", "none")
"""How the pairs' p values are corrected as one family (:func:`adjust_pairs`)."""
MIN_MODELS_CI = 6
"""Fewer shared models than this: no τ interval (``reason`` says why); see :func:`agreement`."""


def measures() -> dict[str, str]:
    """Study name → its headline measure, for every registered study that has one (:attr:`Study.headline`)."""
    return {study.name: study.headline for study in all_studies() if study.headline}


def _headline(num: np.ndarray, den: np.ndarray, absolute: bool) -> np.ndarray:
    """``(replicates, models, parts)`` sums → per replicate × model: the mean over parts of (|)num / den(|)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = num / den
    with warnings.catch_warnings():  # a replicate that drew no part of a model: NaN, read as such downstream
        warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
        return np.nanmean(np.abs(ratio) if absolute else ratio, axis=-1)


def _replicates(units: pd.DataFrame, models: list[str], *, n_boot: int, rng: np.random.Generator,
                absolute: bool, resample: Callable[..., tuple[np.ndarray, np.ndarray] | None] | None = None,
                signed_parts: bool = False) -> tuple:
    """The headline per model on the data and on ``n_boot`` replicates that resample the units with replacement
    (the same draw for every model: the rankings are compared on one resample), the number of units, and per model
    the largest share of its denominator one unit holds (a ratio of sums that one unit dominates moves with it).
    A ``unit2`` column (the EEC's name units) is a second factor crossed with the units: each replicate also
    resamples it, within each part, and a cell weighs by the product of its two draws (a pigeonhole bootstrap,
    Owen 2007); its draws come from a generator spawned off ``rng``, so the units' draws are those of a study
    without one. ``resample(weights=, rng=)`` (a study's :meth:`~toolkit.studies.base.Study.resampled_sums`, given
    the units' draws and that spawned generator) gives the replicates' sums itself where a headline is not a sum over
    its second factor (BiasFinder's pairs of names); None from it: the units' sums. ``signed_parts``: a fifth value,
    the signed num / den per model × part on the data and per replicate × model × part (what
    :func:`folded_interval` reads)."""
    ids = {u: i for i, u in enumerate(sorted(set(units["unit"])))}
    parts = sorted(set(units["part"]))
    crossed = "unit2" in units.columns
    seconds = {p: sorted(set(units.loc[units["part"] == p, "unit2"])) if crossed else [""] for p in parts}
    second_ids = {(p, u): i for p in parts for i, u in enumerate(seconds[p])}
    width = max(len(v) for v in seconds.values())
    num = np.zeros((len(ids), width, len(models), len(parts)))
    den = np.zeros_like(num)
    second = zip(units["part"], units["unit2"] if crossed else [""] * len(units))
    index = (units["unit"].map(ids).to_numpy(), np.fromiter((second_ids[k] for k in second), dtype=int,
                                                            count=len(units)),
             units["model"].map({m: i for i, m in enumerate(models)}).to_numpy(),
             units["part"].map({p: i for i, p in enumerate(parts)}).to_numpy())
    np.add.at(num, index, units["num"].to_numpy(dtype=float))
    np.add.at(den, index, units["den"].to_numpy(dtype=float))
    point = _headline(num.sum((0, 1))[None], den.sum((0, 1))[None], absolute)[0]
    weights = rng.multinomial(len(ids), np.full(len(ids), 1 / len(ids)), size=n_boot).astype(float)
    child = rng.spawn(1)[0] if crossed or resample is not None else None  # one spawn: the names' draws
    sums = resample(weights=weights, rng=child) if resample is not None else None
    if sums is None:
        crossings = np.ones((n_boot, width, len(parts)))
        for j, p in enumerate(parts if crossed else ()):
            k = len(seconds[p])
            crossings[:, :, j] = 0.0
            crossings[:, :k, j] = child.multinomial(k, np.full(k, 1 / k), size=n_boot)
        sums = (np.einsum("bt,bvp,tvmp->bmp", weights, crossings, num, optimize=True),
                np.einsum("bt,bvp,tvmp->bmp", weights, crossings, den, optimize=True))
    boot = _headline(*sums, absolute)
    per_unit = np.abs(den).sum((1, 3))  # units × models
    with np.errstate(invalid="ignore", divide="ignore"):
        top = per_unit.max(0) / per_unit.sum(0)
        signed = (num.sum((0, 1)) / den.sum((0, 1)), sums[0] / sums[1]) if signed_parts else None
    return (point, boot, len(ids), top, signed) if signed_parts else (point, boot, len(ids), top)


def folded_interval(point: np.ndarray, signed: np.ndarray, *, alpha: float, df: int | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The interval of a headline that averages absolute values over P parts (the EEC's (|gender Δ| + |race Δ|) / 2)
    from the signed parts (``point``: models × parts on the data; ``signed``: replicates × models × parts): each
    part's interval at 1 − alpha/P (Bonferroni over the parts) — the point ± t(1 − alpha/2P, ``df``) × the
    replicates' SD where ``df`` is given (the study's units less one), else the replicates' percentiles — folded
    onto |·| ([0, max |end|] where it holds 0, else [min |end|, max |end|]) and averaged over the parts a model has.
    All P signed intervals hold their truths together with probability ≥ 1 − alpha, and then the folded mean holds
    the mean of the |truths|: it covers at 0 too, where a percentile interval of the |·| replicates cannot (every
    replicate is above 0)."""
    alpha, signed, point = checks.alpha(alpha), np.asarray(signed, dtype=float), np.asarray(point, dtype=float)
    if signed.ndim != 3 or point.shape != signed.shape[1:]:
        raise InputError(f"folded_interval needs signed replicates × models × parts and point models × parts; got "
                         f"{signed.shape} and {point.shape}.",
                         fix="pass the fifth value of _replicates(..., signed_parts=True) as (point, signed).")
    n_parts = max(signed.shape[-1], 1)
    if df is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a part no replicate defines: NaN
            half = sps.t.ppf(1 - alpha / (2 * n_parts), max(df, 1)) * np.nanstd(signed, axis=0, ddof=1)
        low, high = point - half, point + half
    else:
        low, high = np.nanquantile(signed, [alpha / (2 * n_parts), 1 - alpha / (2 * n_parts)], axis=0)
    holds_zero = (low <= 0) & (high >= 0)
    folded_low = np.where(holds_zero, 0.0, np.minimum(np.abs(low), np.abs(high)))
    folded_high = np.maximum(np.abs(low), np.abs(high))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a model without any part: NaN
        return np.nanmean(folded_low, axis=-1), np.nanmean(folded_high, axis=-1)


def tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's τ-b of each row of ``x`` with the same row of ``y`` (``(B, n)`` arrays; NaN where a row ranks every
    item equal): scipy's ``kendalltau`` vectorised over replicates."""
    x, y = np.atleast_2d(x), np.atleast_2d(y)
    i, j = np.triu_indices(x.shape[1], k=1)
    sx, sy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sx * sy).sum(1) / np.sqrt((sx != 0).sum(1) * (sy != 0).sum(1))


def two_way_taus(boot_a: np.ndarray, boot_b: np.ndarray, *, picks: np.ndarray) -> np.ndarray:
    """τ-b per replicate when both the units (``boot_a``, ``boot_b``: replicates × models, the headlines over one
    draw of each study's units) and the models (``picks``: replicates × models, indices drawn with replacement) are
    resampled: the models are a sample too, and with few of them that is most of the uncertainty."""
    return tau_b(np.take_along_axis(boot_a, picks, 1), np.take_along_axis(boot_b, picks, 1))


EXACT_ORDERINGS = 362_880
"""9!: :func:`exact_p` enumerates every ordering up to 9 models (8 take 0.15 s, 9 about 1 s); past that, untied
rankings take Kendall's exact null (:func:`_kendall_null`) and tied ones draw :data:`RANDOM_ORDERINGS`."""
RANDOM_ORDERINGS = 20_000


def exact_p(x: np.ndarray, y: np.ndarray, *, n_resamples: int | None = None, seed: int = 0) -> tuple[float, float]:
    """Two-sided permutation p of Kendall's τ-b between ``x`` and ``y`` and the smallest p any ordering could reach
    (``p_min``). Up to 9 models (:data:`EXACT_ORDERINGS`) every ordering of ``y`` is counted
    (``scipy.stats.permutation_test`` with pairings; all 40,320 for 8 models; ties kept as they are). Past 9, two
    untied rankings take Kendall's (1938) exact null, p = P(|S| ≥ |S_obs|) over the m! orderings and p_min = 2/m!;
    tied ones draw :data:`RANDOM_ORDERINGS` orderings, and p_min is the p of the largest |τ| seen (the observed one
    included, so p_min ≤ p). With 4 models and no ties p_min = 2/24 = 0.083: no agreement can be shown at
    alpha = 0.05. ``n_resamples`` forces the permutation test with that many orderings."""
    checks.same_length(x, y, names=("x", "y"))  # a shorter y would be permuted against part of x, silently
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        return float("nan"), float("nan")  # a model without a headline: no ordering to test
    exact = math.factorial(min(len(x), 10)) <= EXACT_ORDERINGS
    i, j = np.triu_indices(len(x), k=1)
    sx = np.sign(x[i] - x[j])
    untied = len(np.unique(x)) == len(np.unique(y)) == len(x)
    if n_resamples is None and not exact and untied:
        return _kendall_exact_p(int(abs((np.sign(y[i] - y[j]) * sx).sum())), len(x))
    if n_resamples is None:
        n_resamples = EXACT_ORDERINGS if exact else RANDOM_ORDERINGS

    def statistic(values, axis=-1):
        values = np.moveaxis(values, axis, -1)
        return np.abs((np.sign(values[..., i] - values[..., j]) * sx).sum(-1))

    result = sps.permutation_test((y,), statistic, permutation_type="pairings",
                                  vectorized=True, n_resamples=n_resamples, alternative="greater",
                                  random_state=np.random.default_rng(seed))
    null = np.asarray(result.null_distribution)
    if len(null) >= math.factorial(len(x)):  # every ordering: shares are exact
        return float(result.pvalue), float(np.mean(null >= null.max() - 1e-9))
    top = max(float(null.max()), float(result.statistic))  # scipy's random-draw p: (count + 1) / (draws + 1)
    return float(result.pvalue), float((np.sum(null >= top - 1e-9) + 1) / (len(null) + 1))


def _kendall_exact_p(abs_s: int, m: int) -> tuple[float, float]:
    """Kendall's exact two-sided p of |S| ≥ ``abs_s`` for two untied rankings of ``m`` items, and p_min = 2/m!."""
    counts = _kendall_null(m)
    s = m * (m - 1) // 2 - 2 * np.arange(len(counts))
    hits = sum(c for c, v in zip(counts, s) if abs(int(v)) >= abs_s)
    total = math.factorial(m)
    return float(Fraction(hits, total)), float(Fraction(2, total))


@cache
def _kendall_null(m: int) -> np.ndarray:
    """How many of the m! orderings of m untied items have k = 0, 1, …, m(m − 1)/2 inversions (the Mahonian
    numbers; Kendall's exact null: S = m(m − 1)/2 − 2k), as exact integers."""
    counts = [1]
    for size in range(2, m + 1):  # inserting item ``size`` adds 0 … size − 1 inversions: a window sum
        prefix = [0, *accumulate(counts)]
        width = len(counts) + size - 1
        counts = [prefix[min(k, len(counts) - 1) + 1] - prefix[max(k - size + 1, 0)] for k in range(width)]
    return np.array(counts, dtype=object)


def claim_support(*, n_models: int, alpha: float = 0.05) -> dict[str, Any]:
    """Whether ``n_models`` untied rankings can support an agreement claim at all (Kendall 1938's exact null of τ:
    every ordering equally likely) and what it takes (columns :data:`SUPPORT_COLUMNS`):

    - ``min_abs_tau``: the smallest |τ| whose exact two-sided p is below ``alpha`` (NaN where none is: then
      ``claim_possible`` is False — 4 models: p ≥ 2/24 whatever the data), ``p_at_min`` its p;
    - ``null_sd``: the sd of τ when the rankings are unrelated, √(2(2m + 5) / (9m(m − 1))), and ``width_null``:
      2·z(1 − alpha/2)·null_sd, the width of a 1 − alpha interval for τ near 0 (the bootstrap interval over units
      and models is about as wide; docs/statistics.md gives the measured widths)."""
    n_models, alpha = checks.count(n_models, name="n_models", minimum=2, maximum=50), checks.alpha(alpha)
    pairs = n_models * (n_models - 1) // 2
    min_abs_tau = p_at_min = float("nan")
    for value in range(pairs % 2, pairs + 1, 2):  # the |S| the null can take (S = pairs − 2 × inversions)
        p = _kendall_exact_p(value, n_models)[0]
        if p < alpha:
            min_abs_tau, p_at_min = value / pairs, p
            break
    null_sd = float(np.sqrt(2 * (2 * n_models + 5) / (9 * n_models * (n_models - 1))))
    return {"n_models": n_models, "alpha": alpha, "claim_possible": bool(np.isfinite(min_abs_tau)),
            "min_abs_tau": min_abs_tau, "p_at_min": p_at_min, "null_sd": null_sd,
            "width_null": float(2 * sps.norm.ppf(1 - alpha / 2) * null_sd)}


def claim_table(*, n_models: Sequence[int] = tuple(range(3, 21)), alpha: float = 0.05) -> pd.DataFrame:
    """:func:`claim_support` for each number of models (columns :data:`SUPPORT_COLUMNS`)."""
    return pd.DataFrame([claim_support(n_models=m, alpha=alpha) for m in n_models], columns=list(SUPPORT_COLUMNS))


def _flat(name: str, values: np.ndarray) -> str:
    """Why a study's headlines give no ranking (every model equal), or ""."""
    return f"{name} gives every model the same headline ({values[0]:.3g})" if len(np.unique(values)) == 1 else ""


def _ties(a: str, b: str, x: np.ndarray, y: np.ndarray) -> list[str]:
    n = len(x)
    return [f"{s} ranks {n - len(np.unique(v)) + 1} of {n} models equal" for s, v in ((a, x), (b, y))
            if len(np.unique(v)) < n]


def first_level(*, alpha: float, family_size: int, correction: str) -> float:
    """The level the most significant pair's p must be below: ``alpha / family_size`` under Holm (its first step)
    and Bonferroni (every step), ``alpha`` with no correction."""
    if correction not in CORRECTIONS:
        raise unknown("correction", correction, CORRECTIONS)
    return alpha if correction == "none" or family_size <= 1 else alpha / family_size


def adjust_pairs(p_values: Sequence[float], p_mins: Sequence[float], *, alpha: float = 0.05,
                 correction: str = "holm") -> tuple[np.ndarray, np.ndarray, int]:
    """The pairs' exact p values corrected as one family (NaN p: an undefined τ, not in the family), whether each
    pair could pass the correction at all given its smallest possible p, and the family's size.

    A pair's ``claim_possible``: with no correction ``p_min < alpha``; Bonferroni ``p_min < alpha / m``; Holm
    ``p_min < alpha`` and some pair of the family with ``p_min < alpha / m`` (Holm's first step; a later pair's
    level grows to alpha)."""
    p, p_min = np.asarray(p_values, dtype=float), np.asarray(p_mins, dtype=float)
    if p.ndim != 1 or p.shape != p_min.shape:
        raise InputError(f"adjust_pairs needs one p_min per p value; got {p.shape} and {p_min.shape}.",
                         fix="pass the tau table's p_value and p_min columns.")
    family_size = int(np.isfinite(p).sum())
    level = first_level(alpha=alpha, family_size=family_size, correction=correction)
    if correction == "none":
        return p.copy(), np.isfinite(p) & (p_min < alpha), family_size
    adjusted = stats.adjust(p, method=correction)
    if correction == "bonferroni":
        return adjusted, np.isfinite(p) & (p_min < level), family_size
    starts = bool(np.any(np.isfinite(p) & (p_min < level)))
    return adjusted, np.isfinite(p) & (p_min < alpha) & starts, family_size


@dataclass(frozen=True)
class Agreement:
    """Headlines per study × model and Kendall's τ per pair of studies."""

    headlines: pd.DataFrame
    tau: pd.DataFrame


def agreement(*, scored: Mapping[str, pd.DataFrame], n_boot: int = 2000, seed: int = 0, alpha: float = 0.05,
              theta: float = 0.2, attribute: str = "gender", correction: str = "holm") -> Agreement:
    """Rank the models every study in ``scored`` (study name → its scored table) shares by the study's headline
    (:data:`MEASURES`) and compare the rankings (module docstring). ``theta``: BTC-SAM's threshold; ``attribute``:
    BiasFinder's characteristic; ``correction``: how the pairs' p values are corrected as one family
    (:data:`CORRECTIONS`, :func:`adjust_pairs`)."""
    n_boot, seed, alpha = checks.n_boot(n_boot), checks.seed(seed), checks.alpha(alpha)
    if correction not in CORRECTIONS:
        raise unknown("correction", correction, CORRECTIONS)
    known = measures()
    for name in scored:
        if name not in known:
            raise unknown("study", name, known)
    if len(scored) < 2:
        raise InputError("agreement needs the scored tables of at least two studies.",
                         fix="pass scored={'eec': eec_result.scored, 'psa': psa_result.scored, …}.")
    options = {"btcsam": {"theta": theta}, "biasfinder": {"attribute": attribute}}
    units = {name: get(name).units(table, **options.get(name, {})) for name, table in scored.items()}
    models = sorted(set.intersection(*(set(u["model"]) for u in units.values())))
    if len(models) < 3:
        raise InputError(f"the studies share {len(models)} models ({', '.join(models) or 'none'}); a ranking needs 3.",
                         fix="score the same three or more models in every study.")
    rng = np.random.default_rng(seed)
    rows, boots, points = [], {}, {}
    for name, table in units.items():
        study, table = get(name), table[table["model"].isin(models)]
        resample = partial(study.resampled_sums, scored[name], units=table, models=models, **options.get(name, {}))
        point, boot, n_units, top, signed = _replicates(table, models, n_boot=n_boot, rng=rng, signed_parts=True,
                                                        absolute=study.headline_absolute, resample=resample)
        point, boot = _snap(point), _snap(boot)  # floating-point noise at 0 is 0: a tie, in ranks, τ and figures
        boots[name], points[name] = boot, point
        if study.headline_absolute:  # |·| replicates never reach 0: fold the signed parts' intervals instead
            low, high = folded_interval(*signed, alpha=alpha, df=n_units - 1)
            low, high = _snap(np.minimum(low, point)), _snap(np.maximum(high, point))
        else:
            low, high = np.nanquantile(boot, [alpha / 2, 1 - alpha / 2], axis=0)
        ranks = sps.rankdata(-point, method="average")  # tied models share their mean rank, as τ-b counts ties
        rank_low, rank_high = rank_interval(boot, alpha=alpha)
        measure = f"{known[name]} ({attribute})" if name == "biasfinder" else known[name]  # the one attribute read
        method = "folded" if study.headline_absolute else "percentile"
        parts = int(signed[1].shape[-1]) if study.headline_absolute else 1
        rows += [{"study": name, "measure": measure, "model": m, "estimate": float(point[i]),
                  "ci_low": float(low[i]), "ci_high": float(high[i]), "ci_method": method, "ci_level": 1 - alpha,
                  "ci_parts": parts, "rank": float(ranks[i]),
                  "rank_low": float(rank_low[i]), "rank_high": float(rank_high[i]), "n_units": n_units,
                  "top_unit_share": float(top[i])}
                 for i, m in enumerate(models)]
    taus = []
    picks = rng.integers(0, len(models), (n_boot, len(models)))  # models drawn with replacement, one draw per replicate
    for a, b in combinations(units, 2):
        draws = tau_b(boots[a], boots[b])  # the units resampled, the models fixed
        flat = [why for why in (_flat(a, points[a]), _flat(b, points[b])) if why]
        p, p_min = exact_p(points[a], points[b]) if not flat else (np.nan, np.nan)
        tau = float(tau_b(points[a], points[b])[0])
        notes = [" and ".join(flat) + ": no ranking"] if flat else []
        both = None
        if not flat and len(models) < MIN_MODELS_CI:
            notes.append(f"no interval: {len(models)} models, fewer than {MIN_MODELS_CI}, and τ over so few "
                         "resampled models is degenerate")
        elif not flat:
            both = two_way_taus(boots[a], boots[b], picks=picks)
            if np.isfinite(both).mean() < 0.9:
                notes.append(f"no interval: τ undefined in {np.mean(~np.isfinite(both)):.0%} of the replicates")
                both = None
        taus.append({"study_a": a, "study_b": b, "n_models": len(models), "tau": tau, "replicates": both,
                     "share_positive": float(np.mean(draws > 0)),
                     "share_undefined": float(np.mean(np.isnan(draws))), "p_value": p, "p_min": p_min,
                     "ties": _ties(a, b, points[a], points[b]), "notes": notes})
    adjusted, possible, family_size = adjust_pairs([t["p_value"] for t in taus], [t["p_min"] for t in taus],
                                                   alpha=alpha, correction=correction)
    for row in taus:  # the interval in the family its p is corrected in (known only now)
        both = row.pop("replicates")
        row["ci_low"], row["ci_high"], row["ci_level"] = (
            tau_interval(both, alpha=alpha, family_size=family_size, correction=correction) if both is not None
            else (np.nan, np.nan, np.nan))
    level = first_level(alpha=alpha, family_size=family_size, correction=correction)
    support = claim_support(n_models=len(models), alpha=level)
    for row, p_adjusted, claim_possible in zip(taus, adjusted, possible):
        ties, notes = row.pop("ties"), row.pop("notes")
        if not np.isfinite(row["p_value"]):
            state, why = "undefined", ""
        elif not claim_possible:
            state = "too few models"
            why = (f"{len(models)} models" + (f" ({'; '.join(ties)})" if ties else "") +
                   f": the smallest exact p is {row['p_min']:.3g} " +
                   _short_of(row["p_min"], correction=correction, alpha=alpha, level=level, family_size=family_size) +
                   ", so no agreement can be shown")
        elif ties:
            state, why = "ties", "; ".join(ties) + ": τ-b counts only the pairs both studies order"
        else:
            state, why = "assessable", ""
        row.update(p_adjusted=float(p_adjusted), family_size=family_size, correction=correction,
                   claim_possible=bool(claim_possible), min_abs_tau=support["min_abs_tau"], state=state,
                   reason="; ".join(filter(None, [why, *notes])))  # an undefined τ: its note alone
    return Agreement(headlines=pd.DataFrame(rows, columns=list(HEADLINE_COLUMNS)),
                     tau=pd.DataFrame(taus, columns=list(TAU_COLUMNS)))


def _snap(values: np.ndarray) -> np.ndarray:
    """``values`` with every entry within :data:`~toolkit.studies.agreement.figures.ZERO_TOL` of 0 set to 0 (NaN
    kept), as the figures read them."""
    values = np.asarray(values, dtype=float)
    return np.where(np.abs(values) <= figures.ZERO_TOL, 0.0, values)


def rank_interval(boot: np.ndarray, *, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Each model's rank interval (1 = highest headline; ties share their mean rank, as ``rank``): the alpha/2 and
    1 − alpha/2 quantiles of its rank over the replicates ``boot`` (n_boot × models: the study's units resampled,
    the models fixed), each model on its own, not simultaneous, each bound a rank some replicate gave (the lower
    bound rounds down, the upper up: interpolating between 1 and 2 printed 1.975); replicates where a headline is
    undefined are left out, and with none left the interval is NaN."""
    valid = boot[np.isfinite(boot).all(axis=1)]
    if not len(valid):
        return np.full(boot.shape[1], np.nan), np.full(boot.shape[1], np.nan)
    ranks = sps.rankdata(-valid, method="average", axis=1)
    return (np.quantile(ranks, alpha / 2, axis=0, method="lower"),
            np.quantile(ranks, 1 - alpha / 2, axis=0, method="higher"))


def tau_interval(replicates: np.ndarray, *, alpha: float, family_size: int, correction: str) -> tuple[float, float,
                                                                                                    float]:
    """The percentile interval of τ from ``replicates`` (:func:`two_way_taus`) and its level: simultaneous over
    the ``family_size`` pairs (Bonferroni, 1 − alpha/m) when ``correction`` corrects the p values (Holm or
    Bonferroni), so an interval is read in the family its p is; 1 − alpha with ``"none"``. Returns (low, high,
    level)."""
    m = family_size if correction in ("holm", "bonferroni") and family_size > 1 else 1
    level = 1 - alpha / m
    low, high = np.nanquantile(replicates, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(low), float(high), float(level)


def _short_of(p_min: float, *, correction: str, alpha: float, level: float, family_size: int) -> str:
    """What a pair's smallest possible exact p (``p_min``) falls short of, in words."""
    if correction == "none" or p_min >= alpha:
        return f"≥ alpha = {alpha:g}"
    if correction == "bonferroni":
        return f"≥ alpha / {family_size} = {level:.3g} (Bonferroni over the {family_size} pairs)"
    return (f"and no pair's can be below alpha / {family_size} = {level:.3g}, the first step of Holm's correction "
            f"over the {family_size} pairs")


@dataclass(frozen=True)
class AgreementSettings(Settings):
    """Agreement's settings: each study run on the models with its ``quick`` size (EEC on all sentences, PSA on
    ``corpus`` with ``psa_n`` sentences, BiasFinder on ``corpus``, BTC-SAM on the toolkit's sets and the
    ``released`` sets found in ``btcsam_dir``); ``theta``: BTC-SAM's threshold; ``attribute``: BiasFinder's
    characteristic; ``studies``: which to compare (default: every study with a headline); ``correction``: over the
    pairs of studies (:data:`CORRECTIONS`, default Holm; ``"none"`` reads each pair on its own)."""

    CORRECTIONS = CORRECTIONS
    correction: str = "holm"
    psa_n: int = 56
    corpus: str = "sample"
    btcsam_dir: str | None = "auto"
    released: tuple[str, ...] = ("baseline",)
    theta: float = 0.2
    attribute: str = "gender"
    studies: tuple[str, ...] | None = None

    def check(self) -> None:
        self._set(psa_n=checks.count(self.psa_n, name="psa_n"), released=tuple(self.released),
                  studies=None if self.studies is None else tuple(self.studies))


def from_results(results: Mapping[str, StudyResult], *, settings: AgreementSettings | None = None) -> StudyResult:
    """The agreement of study results already computed (study name → result; at least two studies sharing three
    models), as a :class:`~toolkit.studies.result.StudyResult` with tables ``headlines`` and ``tau``."""
    settings = settings or STUDY.settings()
    scored = {name: result.scored for name, result in results.items() if name in measures()}
    found = agreement(scored=scored, n_boot=settings.n_boot, seed=settings.seed, alpha=settings.alpha,
                      theta=settings.theta, attribute=settings.attribute, correction=settings.correction)
    fingerprints = {k: v for r in results.values() for k, v in r.provenance.fingerprints.items()}
    models = sorted(set(found.headlines["model"]))
    record = {"study": "agreement", "measures": {s: measures()[s] for s in scored}, "n_boot": settings.n_boot,
              "seed": settings.seed, "alpha": settings.alpha, "correction": settings.correction,
              "theta": settings.theta,
              "attribute": settings.attribute, "studies": sorted(scored),
              "runs": {name: dict(r.provenance.settings) for name, r in results.items()}}
    first = next(iter(scored.values()))
    return StudyResult(study="agreement", models=models, scored=first[first["model"].isin(models)],
                       frames={"headlines": found.headlines, "tau": found.tau}, settings=settings,
                       extras={"results": dict(results)},
                       provenance=Provenance(study="agreement", settings=record, fingerprints=fingerprints))


def run(*, models: Iterable[Any], psa_n: int = 56, corpus: str = "sample", btcsam_dir: str | None = "auto",
        released: Sequence[str] = ("baseline",), n_boot: int = stats.N_BOOT, seed: int = 0, theta: float = 0.2,
        studies: Sequence[str] | None = None, correction: str = "holm", cache: bool | str = True,
        progress: bool | None = None) -> StudyResult:
    """Run the studies on ``models`` with their defaults — EEC (all sentences), PSA on ``corpus`` (``psa_n``
    sentences), BiasFinder on ``corpus``, BTC-SAM on the toolkit's sets and the ``released`` BTC-SAM sets found in
    ``btcsam_dir`` (skipped when absent) — and compare them (:func:`agreement`; ``correction`` over the pairs of
    studies, :data:`CORRECTIONS`). The result's ``results`` holds each study's result."""
    return STUDY.run(models=models, cache=cache, progress=progress, psa_n=psa_n, corpus=corpus,
                     btcsam_dir=btcsam_dir, released=tuple(released), n_boot=n_boot, seed=seed, theta=theta,
                     studies=None if studies is None else tuple(studies), correction=correction)


def write(result: StudyResult, out_dir: str | Path | None = None, **options: Any) -> list[Path]:
    """``result.write(out_dir, **options)``: ``agreement_headlines``, ``agreement_tau``, the two figures and
    ``provenance.json``."""
    return result.write(out_dir, **options)


@register
class Agreement_(Study):
    """Agreement across methods: do the studies rank the same models alike? Kendall's τ-b with intervals."""

    name = "agreement"
    title = "Agreement across methods"
    paper = "this toolkit: Kendall's τ-b between the studies' rankings of the same models"
    Settings = AgreementSettings
    sizes = {"quick": {}, "paper": {"psa_n": 1000}}
    takes_models = False  # it runs the other studies on the models it is given
    paper_figures = {
        "agreement_tau": ("agreement_tau", "none", ("Kendall's τ between the studies' rankings and the exact p "
                                                    "corrected over the pairs (Holm by default); under the axes, "
                                                    "whether the number of models can support an agreement claim "
                                                    "at all (the smallest |τ| the first claim needs)")),
        "agreement_ranks": ("agreement_ranks", "none", "each model's rank by study"),
        "agreement_headlines": ("agreement_headlines", "none", "each study's headline per model with its interval "
                                                               "over the study's units: the values the ranks order"),
    }

    def execute(self, *, models, settings: AgreementSettings, cache, progress) -> StudyResult:
        models = checks.model_list(models)
        wanted = settings.studies or tuple(measures())
        sizes = {"eec": {"subsets": ("all",)}, "psa": {"corpus": settings.corpus, "n": settings.psa_n,
                                                          "seed": settings.seed, "n_boot": 50},
                 "biasfinder": {"corpus": settings.corpus, "seed": settings.seed},
                 "btcsam": {"theta": settings.theta}}
        results = {}
        for name in wanted:
            given = dict(sizes.get(name, {}))
            if name == "btcsam":
                sets = get(name).module.toolkit_sets(psa_n=settings.psa_n, btcsam_dir=settings.btcsam_dir,
                                                     released=list(settings.released))
                given["sets"] = sets
            results[name] = get(name).run(models=models, cache=cache, progress=progress, **given)
        return from_results(results, settings=settings)

    def figures(self, result: StudyResult, **options: Any) -> dict[str, Axes]:
        return {"agreement_tau": figures.agreement_tau(result.tau, alpha=result.settings.alpha),
                "agreement_ranks": figures.agreement_ranks(result.headlines),
                "agreement_headlines": figures.agreement_headlines(result.headlines)}

    def conclusions(self, result: StudyResult) -> pd.DataFrame:
        tau = result.tau
        alpha = result.settings.alpha
        read = tau["p_adjusted"] if "p_adjusted" in tau else tau["p_value"]
        agree = (read < alpha) & (tau["tau"] > 0) & (tau["state"] != "undefined")
        verdict = np.where(agree, "rankings agree", "no agreement shown")  # undefined τ: its reason says why
        correction = str(tau["correction"].iloc[0]) if "correction" in tau and len(tau) else "none"
        size = int(tau["family_size"].iloc[0]) if "family_size" in tau and len(tau) else len(tau)
        family = ("none: each pair of studies on its own" if correction == "none" else
                  f"the {size} pairs of studies with a ranking ({correction} over them)")
        return stats_frame.frame(pd.DataFrame({
            "model": "all", "attribute": "ranking", "scope": tau["study_a"] + " vs " + tau["study_b"],
            "estimate": tau["tau"], "ci_low": tau["ci_low"], "ci_high": tau["ci_high"], "effect_size": tau["tau"],
            "p_value": tau["p_value"], "p_adjusted": read, "verdict": verdict,
            "unit": "Kendall's τ-b", "family": family, "correction": correction,
            "null": "τ = 0: the two rankings are unrelated (exact permutation p)",
            "reason": ["; ".join(filter(None, [row["reason"] if isinstance(row["reason"], str) else "",
                                               claim_words(row, alpha=alpha)]))
                       for row in tau.to_dict("records")]}),
            study=self.name)

    def describe(self, result: StudyResult) -> str:
        alpha = result.settings.alpha
        said = dict.fromkeys(claim_words(row, alpha=alpha) for row in result.tau.to_dict("records"))
        return result.tau.to_string(index=False) + "\n" + "\n".join(said)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--corpus", default="sample", help="the corpus of PSA and BiasFinder")
        parser.add_argument("--psa-n", type=int, default=56, help="PSA sentences (default 56)")
        parser.add_argument("--btcsam-dir", help="the folder holding the released BTC-SAM sets (default: searched)")
        parser.add_argument("--study", dest="studies", action="append", help="a study to compare (repeatable; "
                            "default: every study with a headline)")

    def arguments(self, args: argparse.Namespace) -> dict[str, Any]:
        return {"corpus": args.corpus, "psa_n": args.psa_n, "btcsam_dir": args.btcsam_dir or "auto",
                "studies": tuple(args.studies) if args.studies else None}


STUDY: Agreement_ = get("agreement")  # type: ignore[assignment]
