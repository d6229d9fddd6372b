"""Estimators every study uses: intervals, effect sizes, corrections over a named family, equivalence verdicts,
null baselines and variance components. Estimators only — no study logic. ``docs/statistics.md`` states each one,
its defaults and its references.

Every comparison a study prints gains the same columns (:data:`STAT_COLUMNS`) beside the paper's own:
``estimate`` (on the score scale), ``ci_low``/``ci_high`` (an interval; a study says its level and family),
``effect_size``, ``p_adjusted`` (corrected over the family named in the study's provenance) and ``verdict``
(:func:`verdict`: ``a higher`` / ``b higher`` / ``equivalent within ±m`` / ``different but within ±m`` /
``inconclusive`` / ``identical scores (no test needed)``).

- :func:`paired_t`: mean of paired differences, t interval, d_z = mean / sd (Lakens 2013), p (``scipy``).
- :func:`mean_interval`: the mean of each column with a t interval or Hall's (1992) skewness-corrected t
  interval (:data:`MEAN_INTERVALS`), vectorised over columns.
- :func:`two_way_bootstrap`: the mean of a templates × names array with both treated as samples (Clark 1973's
  language-as-fixed-effect fallacy). Default ``satterthwaite``: the two-way random-effects standard error and a t
  reference with Satterthwaite's df — interval, p and the equivalence p from that one distribution, p not floored
  by a resample count. ``bootstrap-t`` (a pigeonhole bootstrap, Owen 2007, studentised by the same se) and
  ``percentile`` stay for comparison; the simulations behind the choice are in ``docs/statistics.md``.
- :func:`nested_contrast`: a contrast of group means when each group has its own names (nested, groups of any
  size) and the templates are shared: the same one-t treatment (Satterthwaite) with names and templates as samples.
- :func:`variance_components`: two-way random-effects ANOVA (method of moments) → template, name and residual
  variance and their shares.
- :func:`wilson`: a proportion with its Wilson interval (``statsmodels``).
- :func:`rate_difference`: the difference of two proportions with Newcombe's hybrid-score interval (``statsmodels``)
  — BiasFinder's between-class BTC rate net of its within-class (placebo) rate.
- :func:`adjust`: ``bonferroni`` / ``holm`` / ``fdr_bh`` over one family (``statsmodels.stats.multitest``), a
  family larger than the tests at hand with ``family_size``.
- :func:`equivalence_p`, :func:`equivalence_margin`: the TOST p (Lakens 2017) and the smallest margin an interval
  supports.
- :func:`verdict`: Lakens' four outcomes of the difference and equivalence tests read together (both corrected
  over one family when the caller passes the corrected TOST p), and ``identical scores`` where nothing differs.
- :func:`crossed_estimate`, :func:`decide_family`: one templates × units array's two-way estimate with its
  variance shares, and a family of them decided together (corrected p and equivalence p, simultaneous interval,
  smallest equivalence margin, verdict) — the EEC study's estimator, shared by the studies built on EEC designs.
- :func:`kappa_interval`: Cohen's κ with a seeded bootstrap interval over items.
- :func:`kendall_tau`: Kendall's τ-b between two rankings with a seeded bootstrap interval over the ranked items.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from toolkit import checks, verdicts
from toolkit.errors import InputError, unknown, warn

STAT_COLUMNS = ("estimate", "ci_low", "ci_high", "effect_size", "p_adjusted", "verdict")
ALPHA = 0.05
MARGIN = 0.01
"""The default equivalence margin on the [0, 1] score scale: one point on a 100-point valence scale. The EEC's
significant gender differences were mostly below 0.03 (on [0, 1]); a user sets their own (``margin=``)."""
N_BOOT = 2000
METHODS = ("bonferroni", "holm", "fdr_bh")
BOOTSTRAP_METHODS = ("satterthwaite", "bootstrap-t", "percentile")
"""How :func:`two_way_bootstrap` makes its reference distribution (the name stays for the callers)."""
VERDICTS = verdicts.STORED
"""The verdicts :func:`verdict` gives; the two with a margin end in ``±m`` (e.g. ``equivalent within ±0.01``). The
words tables, captions, legends and reports show for them: :mod:`toolkit.verdicts`."""
IDENTICAL = verdicts.IDENTICAL
MEAN_INTERVALS = ("hall", "t")
"""How :func:`mean_interval` makes its interval: ``hall``, Hall's (1992) skewness-corrected t; ``t``, mean ± t·se."""
CONSTANT_SHIFT = "no variance: one constant shift (zero-width interval, p = 0)"
"""The ``method`` of a two-way estimate whose every cell is the same non-zero Δ: nothing varies, so the interval is
the point and p is 0 — a state of the scores, not a precise estimate."""


def _alpha(alpha: float) -> float:
    return checks.alpha(alpha)


def paired_t(differences: Sequence[float] | np.ndarray, *, alpha: float = ALPHA) -> dict[str, float]:
    """Mean of paired ``differences`` with its t interval, d_z and two-sided p (``scipy.stats.ttest_1samp``): keys
    ``estimate, ci_low, ci_high, effect_size, p_value, se, df, n``. Constant differences: a zero-width interval, p 1
    (all zero) or 0, d_z 0 or ±inf."""
    alpha = checks.alpha(alpha)
    d = np.asarray(differences, dtype=float)
    d = checks.finite(d[~np.isnan(d)], name="differences")
    n = len(d)
    if n < 2:
        raise InputError(f"a paired t-test needs at least 2 differences; got {n}.", fix="give more pairs.")
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    se, df = sd / np.sqrt(n), n - 1
    if sd <= 1e-12:
        p = 1.0 if abs(mean) <= 1e-12 else 0.0
        dz = 0.0 if abs(mean) <= 1e-12 else float(np.sign(mean) * np.inf)
        return {"estimate": mean, "ci_low": mean, "ci_high": mean, "effect_size": dz, "p_value": p, "se": 0.0,
                "df": float(df), "n": n}
    q = sps.t.ppf(1 - _alpha(alpha) / 2, df)
    p = float(sps.ttest_1samp(d, 0.0).pvalue)
    return {"estimate": mean, "ci_low": mean - q * se, "ci_high": mean + q * se, "effect_size": mean / sd,
            "p_value": p, "se": se, "df": float(df), "n": n}


def mean_interval(values: np.ndarray, *, level: float = 0.95, method: str = "hall") -> tuple[np.ndarray, np.ndarray]:
    """A ``level`` interval for the mean of each column of ``values`` (rows the sample; returns ``low, high``, one
    per column). ``t``: mean ± t(n − 1)·s/√n. ``hall``: Hall's (1992, JRSS B 54:221) transformation of the
    studentised mean, T ↦ T + aT²/3 + a²T³/27 + a/6 with a = γ/√n (γ: the column's bias-adjusted skewness,
    ``scipy.stats.skew(bias=False)``), inverted at ± t(n − 1): the t interval shifted and stretched towards a
    skewed sample's long tail, the same as ``t`` for a symmetric one (and for n = 2, where γ is undefined). One row:
    NaN; a constant column: a zero-width interval."""
    if method not in MEAN_INTERVALS:
        raise unknown("interval method", method, MEAN_INTERVALS)
    if not 0 < level < 1:
        raise InputError(f"need 0 < level < 1, got level={level}.", fix="e.g. level=0.95.")
    y = np.asarray(values, dtype=float)
    y = y.reshape(len(y), -1)
    n = len(y)
    mean = y.mean(axis=0) if n else np.full(y.shape[1], np.nan)
    if n < 2:
        return np.full_like(mean, np.nan), np.full_like(mean, np.nan)
    se = y.std(axis=0, ddof=1) / np.sqrt(n)
    q = sps.t.ppf(0.5 + level / 2, n - 1)
    lower_t, upper_t = np.full_like(mean, -q), np.full_like(mean, q)  # the quantiles of T = (mean − μ) / se
    if method == "hall" and n > 2:
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a (nearly) constant column: its se is ~0 anyway
            skew = sps.skew(y, axis=0, bias=False)
        a = np.where(np.isfinite(skew) & (se > 0), skew, 0.0) / np.sqrt(n)

        def invert(quantile: np.ndarray) -> np.ndarray:
            # g(T) = ((1 + aT/3)³ − 1)/a + a/6 is monotone; T = 3(c − 1)/a with c = ∛(1 + a(q − a/6)), written
            # without the division by a (c − 1 = (c³ − 1)/(c² + c + 1)), exact as a → 0
            c = np.cbrt(1 + a * (quantile - a / 6))
            return 3 * (quantile - a / 6) / (c * c + c + 1)
        lower_t, upper_t = invert(lower_t), invert(upper_t)
    return mean - upper_t * se, mean - lower_t * se


def _moments(y: np.ndarray, w: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For arrays ``(..., R, C)`` with row weights ``w`` ``(..., R)`` (None: equal): the row-weighted grand mean,
    the mean squares of rows, columns and residual, and the two-way random-effects variance of the weighted mean,
    σ²_rows / R_eff + σ²_cols / C + σ²_resid / (R_eff · C) with R_eff = (Σw)² / Σw² and the σ² from the mean
    squares; floored at the residual term (equal weights: (MS_rows + MS_cols − MS_resid) / RC, at least
    MS_resid / RC)."""
    r, c = y.shape[-2:]
    rows, cols = y.mean(axis=-1), y.mean(axis=-2)
    plain = rows.mean(axis=-1)
    ms_rows = c * rows.var(axis=-1, ddof=1)
    ms_cols = r * cols.var(axis=-1, ddof=1)
    resid = y - rows[..., :, None] - cols[..., None, :] + plain[..., None, None]
    ms_resid = (resid ** 2).sum(axis=(-2, -1)) / ((r - 1) * (c - 1))
    if w is None:
        grand, r_eff = plain, float(r)
    else:
        grand = (w * rows).sum(axis=-1) / w.sum(axis=-1)
        r_eff = w.sum(axis=-1) ** 2 / (w ** 2).sum(axis=-1)
    floor = ms_resid / (r_eff * c)
    var = np.maximum((ms_rows - ms_resid) / c / r_eff + (ms_cols - ms_resid) / r / c + floor, floor)
    return grand, ms_rows, ms_cols, ms_resid, var


def cell_matrix(frame: pd.DataFrame, *, value: str, rows: str, cols: str) -> pd.DataFrame:
    """The ``rows`` × ``cols`` array of the mean ``value`` per cell (e.g. templates × names, averaging emotion
    words within a template); a missing cell is TK102 (the two-way estimators need a complete array)."""
    matrix = frame.pivot_table(index=rows, columns=cols, values=value, aggfunc="mean", observed=True)
    if matrix.isna().any().any():
        raise InputError(f"the {rows} × {cols} array of {value!r} has empty cells.",
                         fix="give a complete design: every template with every name.")
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        raise InputError(f"a two-way estimate needs at least 2 {rows} and 2 {cols}; got {matrix.shape}.",
                         fix="use the one-way paired_t instead.")
    return matrix


def _satterthwaite(y: np.ndarray, w: np.ndarray | None) -> tuple[float, float, float, dict[str, float]]:
    """The weighted grand mean of a templates × names array, the variance of that mean with templates and names as
    samples, σ²_t / R_eff + σ²_n / C + σ²_e / (R_eff · C) (negative components set to 0), its Satterthwaite
    degrees of freedom, and the variance components. The variance is a linear combination Σ a_k · MS_k of the three
    mean squares; its df is (Σ a_k MS_k)² / Σ (a_k MS_k)² / df_k (Satterthwaite 1946; the df lme4/lmerTest give the
    intercept of a balanced crossed design)."""
    r, c = y.shape
    grand, ms_r, ms_c, ms_e, _ = _moments(y, w)
    r_eff = float(r) if w is None else float(w.sum() ** 2 / (w ** 2).sum())
    v_t, v_n = (float(ms_r) - float(ms_e)) / c, (float(ms_c) - float(ms_e)) / r
    a_r, a_c, a_e = 0.0, 0.0, 1.0 / (r_eff * c)
    if v_t > 0:
        a_r, a_e = 1.0 / (c * r_eff), a_e - 1.0 / (c * r_eff)
    if v_n > 0:
        a_c, a_e = 1.0 / (r * c), a_e - 1.0 / (r * c)
    terms = np.array([a_r * float(ms_r), a_c * float(ms_c), a_e * float(ms_e)])
    var = float(terms.sum())
    denominator = float((terms ** 2 / np.array([r - 1, c - 1, (r - 1) * (c - 1)])).sum())
    df = var * var / denominator if denominator > 0 else float("nan")
    parts = {"var_template": max(v_t, 0.0), "var_name": max(v_n, 0.0), "var_residual": float(ms_e)}
    return float(grand), max(var, 0.0), float(df), parts


def _estimable(matrix: pd.DataFrame | np.ndarray) -> np.ndarray:
    """``matrix`` as a float array when a two-way estimate can be made from it: 2-D, at least 2 rows (templates) and
    2 columns (names), every cell finite; TK102 saying what is missing otherwise (never a p-value without a
    design)."""
    y = np.asarray(matrix, dtype=float)
    if y.ndim != 2 or y.shape[0] < 2 or y.shape[1] < 2:
        raise InputError(f"a two-way estimate needs a templates × names array with at least 2 of each; got shape "
                         f"{y.shape}.", fix="add templates or names, or use the one-way paired_t instead.")
    bad = ~np.isfinite(y)
    if bad.any():
        rows, cols = np.nonzero(bad)
        raise InputError(f"the templates × names array has {int(bad.sum()):,} NaN or infinite cell(s) (first at row "
                         f"{int(rows[0])}, column {int(cols[0])}): the two-way estimate needs every cell.",
                         fix="drop the templates (rows) with a missing score, or score the missing sentences.")
    return y


def two_way_bootstrap(matrix: pd.DataFrame | np.ndarray, *, alpha: float = ALPHA, n_boot: int = N_BOOT,
                      seed: int = 0, method: str = "satterthwaite",
                      row_weights: Sequence[float] | np.ndarray | None = None,
                      margin: float | None = None) -> dict[str, float | str | bool]:
    """The (weighted) grand mean of a templates × names ``matrix`` (:func:`cell_matrix`) with templates and names
    both as samples: a ``1 - alpha`` interval, a two-sided p for a zero mean and, with ``margin``, the equivalence
    (TOST) p for |mean| < margin — all three from ONE reference distribution, chosen by ``method``:

    - ``satterthwaite`` (default): t = (estimate − mean) / se with se² = σ²_t / R_eff + σ²_n / C + σ²_e / (R_eff C)
      from the two-way random-effects mean squares and a Student t reference with Satterthwaite's df (``df``).
      Not resampled, so its p is not floored: a family of 438 can be decided. Coverage 91–98 % in 60 simulated
      designs (``docs/statistics.md``).
    - ``bootstrap-t``: a two-way (pigeonhole) bootstrap, ``n_boot`` seeded replicates drawing templates and names
      with replacement, studentised by the same se; its p is at least 1/(n_boot + 1). Where more than 1 % of the
      replicates have no variance (one name alone moving the score) it falls back to the percentile interval.
    - ``percentile``: the plain pigeonhole percentile interval, for comparison.

    ``row_weights``: a weight per template (its number of sentences gives the mean over sentences; default equal).
    Keys: ``estimate, ci_low, ci_high, se, df`` (NaN for the bootstrap methods), ``effect_size`` (Westfall, Kenny &
    Judd 2014: estimate / √(σ²_template + σ²_name + σ²_residual); NaN without variance), ``p_value``,
    ``p_equivalence`` (NaN without ``margin``), ``identical`` (every cell exactly 0: nothing to test),
    ``n_cols_zero`` (names whose every cell is exactly 0: sparse sensitivity when some, not all, are),
    ``method`` (the one used), ``n_rows, n_cols``."""
    if method not in BOOTSTRAP_METHODS:
        raise unknown("two-way method", method, BOOTSTRAP_METHODS)
    alpha, n_boot, seed = checks.alpha(alpha), checks.n_boot(n_boot), checks.seed(seed)
    y = _estimable(matrix)
    r, c = y.shape
    checks.bootstrap_size(n_boot=n_boot, cells=y.size)
    w = None if row_weights is None else np.asarray(row_weights, dtype=float)
    if w is not None and (w.shape != (r,) or (w < 0).any() or w.sum() <= 0):
        raise InputError(f"row_weights must be {r} non-negative numbers, not all 0; got shape {w.shape}.",
                         fix="give one weight per template (row) of the array.")
    a = _alpha(alpha)
    estimate, var, df, parts = _satterthwaite(y, w)
    se = float(np.sqrt(var))
    total = sum(parts.values())
    zero = np.abs(y) <= 1e-12
    identical = bool(zero.all())
    out = {"estimate": float(estimate), "se": se, "effect_size": float(estimate / np.sqrt(total))
           if total > 1e-24 else float("nan"), "n_rows": r, "n_cols": c, "identical": identical,
           "n_cols_zero": int(zero.all(axis=0).sum()), "p_equivalence": float("nan")}
    if se <= 1e-12:  # no variance: the sentences decide (identical scores, or one constant shift)
        zero = abs(estimate) <= 1e-12
        if margin is not None:
            out["p_equivalence"] = 0.0 if abs(estimate) < margin else 1.0
        return {**out, "ci_low": float(estimate), "ci_high": float(estimate), "df": float("nan"),
                "method": method if zero else CONSTANT_SHIFT, "p_value": 1.0 if zero else 0.0}
    if method == "satterthwaite":
        q = sps.t.ppf(1 - a / 2, df)
        t0 = estimate / se
        if margin is not None:
            out["p_equivalence"] = float(max(sps.t.sf((estimate + margin) / se, df),
                                             sps.t.cdf((estimate - margin) / se, df)))
        return {**out, "ci_low": float(estimate - q * se), "ci_high": float(estimate + q * se), "df": df,
                "p_value": float(min(1.0, 2 * sps.t.sf(abs(t0), df))), "method": method}
    rng = np.random.default_rng(seed)
    ri, ci = rng.integers(0, r, (n_boot, r)), rng.integers(0, c, (n_boot, c))
    draws = y[ri[:, :, None], ci[:, None, :]]
    boot_mean, _, _, _, boot_var = _moments(draws, None if w is None else w[ri])
    _, _, _, _, plain_var = _moments(y, w)
    plain_se = float(np.sqrt(plain_var))
    floor = 1.0 / (n_boot + 1)
    flat = boot_var <= (1e-6 * plain_se) ** 2
    if method == "percentile" or flat.mean() > 0.01:
        low, high = np.quantile(boot_mean, [a / 2, 1 - a / 2])
        p = min(1.0, 2 * min(np.mean(boot_mean <= 0), np.mean(boot_mean >= 0)))
        if margin is not None:
            out["p_equivalence"] = float(max(np.mean(boot_mean <= -margin), np.mean(boot_mean >= margin), floor))
        used = method if method == "percentile" else "percentile (bootstrap-t undefined)"
        return {**out, "ci_low": float(low), "ci_high": float(high), "p_value": float(max(p, 2 * floor)),
                "df": float("nan"), "method": used}
    t = (boot_mean[~flat] - estimate) / np.sqrt(boot_var[~flat])
    q_low, q_high = np.quantile(t, [a / 2, 1 - a / 2])
    t0 = estimate / plain_se
    p = float(min(1.0, 2 * min(np.mean(t >= t0), np.mean(t <= t0)) if t0 != 0 else 1.0))
    if margin is not None:
        out["p_equivalence"] = float(max(np.mean(t >= (estimate + margin) / plain_se),
                                         np.mean(t <= (estimate - margin) / plain_se), floor))
    return {**out, "se": plain_se, "ci_low": float(estimate - q_high * plain_se),
            "ci_high": float(estimate - q_low * plain_se), "p_value": max(p, 2 * floor), "df": float("nan"),
            "method": method}


def nested_contrast(groups: Sequence[np.ndarray | pd.DataFrame], signs: Sequence[float], *, alpha: float = ALPHA,
                    margin: float | None = None) -> dict[str, float | bool]:
    """A contrast Σ_c s_c · mean_c of group means where each group c is its own templates × names array (names
    nested in the groups, which may differ in size; templates crossed: the same rows in every array, in the same
    order) — e.g. the EEC's gender × race cells, 10 names each or fewer. Templates and names are samples: the
    variance of the estimate is S²_D / T + Σ_c s_c² σ²_name,c / n_c, where S²_D is the variance over templates of
    the per-template contrast (template × group interaction and residual) and σ²_name,c = (MS_names,c −
    MS_residual,c) / T from group c's own two-way ANOVA (negative: 0); a Student t with Satterthwaite's df for
    that linear combination of mean squares gives the interval, the two-sided p for a zero contrast and, with
    ``margin``, the TOST p — one distribution, as :func:`two_way_bootstrap`. Every name is used (no pairing up to
    the smaller group). Keys: ``estimate, ci_low, ci_high, se, df, p_value, p_equivalence, identical`` (no name
    moves the score: every name scores alike in every template), ``n_cols_zero`` (names scoring exactly the
    per-template median of all names: unmoved, for the sparse-sensitivity rule), ``n_cols``, ``n_rows``."""
    alpha = checks.alpha(alpha)
    arrays = [np.asarray(g, dtype=float) for g in groups]
    weights = np.asarray(signs, dtype=float)
    if len(arrays) != len(weights) or not arrays:
        raise InputError(f"nested_contrast needs one sign per group; got {len(arrays)} groups and {len(weights)} "
                         "signs.", fix="e.g. signs=[1, -1] for group 0 minus group 1.")
    rows = {a.shape[0] if a.ndim == 2 else -1 for a in arrays}
    if len(rows) != 1 or min(rows) < 2 or min(a.shape[1] for a in arrays) < 2:
        raise InputError(f"each group must be a templates × names array with the same templates (at least 2) and "
                         f"at least 2 names; got shapes {[a.shape for a in arrays]}.",
                         fix="drop the templates missing a score; a group of one name has no name variance.")
    for a in arrays:
        _estimable(a)
    t = arrays[0].shape[0]
    every = np.concatenate(arrays, axis=1)
    centre = np.median(every, axis=1, keepdims=True)
    unmoved = int((np.abs(every - centre) <= 1e-12).all(axis=0).sum())
    identical = bool((np.ptp(every, axis=1) <= 1e-12).all())
    per_template = np.column_stack([a.mean(axis=1) for a in arrays]) @ weights
    estimate = float(per_template.mean())
    terms, dfs = [float(per_template.var(ddof=1)) / t], [t - 1.0]
    for a, s in zip(arrays, weights):
        n = a.shape[1]
        cols = a.mean(axis=0)
        ms_names = t * float(cols.var(ddof=1))
        resid = a - a.mean(axis=1, keepdims=True) - cols[None, :] + a.mean()
        ms_resid = float((resid ** 2).sum()) / ((t - 1) * (n - 1))
        if s != 0 and ms_names > ms_resid:
            coef = s * s / (t * n)
            terms += [coef * ms_names, -coef * ms_resid]
            dfs += [n - 1.0, (t - 1.0) * (n - 1.0)]
    terms_a = np.array(terms)
    var = float(terms_a.sum())
    out = {"estimate": estimate, "identical": identical, "n_cols_zero": unmoved, "n_cols": every.shape[1],
           "n_rows": t, "p_equivalence": float("nan")}
    if var <= 1e-24:  # no variance: nothing moves, or every template and name moves by the same amount
        if margin is not None:
            out["p_equivalence"] = 0.0 if abs(estimate) < margin else 1.0
        return {**out, "se": 0.0, "df": float("nan"), "ci_low": estimate, "ci_high": estimate,
                "p_value": 1.0 if abs(estimate) <= 1e-12 else 0.0}
    se = float(np.sqrt(var))
    df = var * var / float((terms_a ** 2 / np.array(dfs)).sum())
    q = sps.t.ppf(1 - alpha / 2, df)
    if margin is not None:
        out["p_equivalence"] = float(max(sps.t.sf((estimate + margin) / se, df),
                                         sps.t.cdf((estimate - margin) / se, df)))
    return {**out, "se": se, "df": float(df), "ci_low": estimate - q * se, "ci_high": estimate + q * se,
            "p_value": float(min(1.0, 2 * sps.t.sf(abs(estimate) / se, df)))}


def variance_components(matrix: pd.DataFrame | np.ndarray) -> dict[str, float]:
    """Two-way random-effects ANOVA (method of moments) of a templates × names ``matrix``: the variance of the
    template effects, of the name effects and of the residual (negative estimates set to 0), their shares of the
    total, and the standard error of the grand mean with both as samples vs with only the residual (what a test
    over sentences assumes). Keys: ``var_template, var_name, var_residual, share_template, share_name,
    share_residual, se_two_way, se_sentences``."""
    y = _estimable(matrix)
    r, c = y.shape
    _, ms_rows, ms_cols, ms_resid, var = _moments(y)
    v_t = max((float(ms_rows) - float(ms_resid)) / c, 0.0)
    v_n = max((float(ms_cols) - float(ms_resid)) / r, 0.0)
    v_e = float(ms_resid)
    total = v_t + v_n + v_e
    constant = np.ptp(y) <= 1e-12 * max(1.0, float(np.abs(y).max()))  # no variance to share out
    share = (lambda v: v / total if total > 0 and not constant else float("nan"))
    return {"var_template": v_t, "var_name": v_n, "var_residual": v_e, "share_template": share(v_t),
            "share_name": share(v_n), "share_residual": share(v_e), "se_two_way": float(np.sqrt(var)),
            "se_sentences": float(np.sqrt(y.var(ddof=1) / y.size))}


def wilson(successes: int, n: int, *, alpha: float = ALPHA) -> tuple[float, float, float]:
    """A proportion and its Wilson score interval (``statsmodels.stats.proportion.proportion_confint``); n = 0
    gives NaNs."""
    from statsmodels.stats.proportion import proportion_confint

    alpha = checks.alpha(alpha)
    if n <= 0:
        return float("nan"), float("nan"), float("nan")
    if not 0 <= successes <= n:
        raise InputError(f"successes must lie in [0, n]; got {successes} of {n}.", fix="count within the total.")
    low, high = proportion_confint(successes, n, alpha=_alpha(alpha), method="wilson")
    rate = successes / n
    return rate, min(float(low), rate), max(float(high), rate)  # float noise (1e-19 above a rate of 0) removed


def rate_difference(k_a: int, n_a: int, k_b: int, n_b: int, *, alpha: float = ALPHA) -> dict[str, float]:
    """``k_a / n_a − k_b / n_b`` with Newcombe's hybrid-score interval and a two-sided score-test p
    (``statsmodels.stats.proportion``). Keys: ``estimate, ci_low, ci_high, p_value, rate_a, rate_b``."""
    from statsmodels.stats.proportion import confint_proportions_2indep, test_proportions_2indep

    alpha, _, _ = checks.alpha(alpha), checks.successes(k_a, n_a, name="k_a"), checks.successes(k_b, n_b, name="k_b")
    if min(n_a, n_b) <= 0:
        return {k: float("nan") for k in ("estimate", "ci_low", "ci_high", "p_value", "rate_a", "rate_b")}
    low, high = confint_proportions_2indep(k_a, n_a, k_b, n_b, method="newcomb", alpha=_alpha(alpha))
    if k_a + k_b in (0, n_a + n_b):
        p = 1.0
    else:
        with np.errstate(divide="ignore", invalid="ignore"):  # it also forms the ratios p_a / p_b, unused here
            p = float(test_proportions_2indep(k_a, n_a, k_b, n_b, method="score").pvalue)
    return {"estimate": k_a / n_a - k_b / n_b, "ci_low": float(low), "ci_high": float(high), "p_value": p,
            "rate_a": k_a / n_a, "rate_b": k_b / n_b}


def adjust(p_values: Sequence[float] | np.ndarray, *, method: str = "bonferroni",
           family_size: int | None = None) -> np.ndarray:
    """``p_values`` corrected over one family (``statsmodels.stats.multitest.multipletests``: ``bonferroni``,
    ``holm`` or ``fdr_bh``); NaNs stay NaN and are not counted in the family. ``family_size``: the number of tests
    in the whole family when ``p_values`` are only some of them (e.g. the paper's 438 while a run scores 4 systems);
    the tests not given count as p = 1, which keeps every method's error control."""
    from statsmodels.stats.multitest import multipletests

    if method not in METHODS:
        raise unknown("correction method", method, METHODS)
    p = checks.p_values(p_values)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if family_size is not None and family_size < ok.sum():
        raise InputError(f"family_size={family_size} is smaller than the {int(ok.sum())} tests given.",
                         fix="give the number of tests in the whole family (at least the tests of this run).")
    if ok.any():
        padded = np.concatenate([p[ok], np.ones(0 if family_size is None else family_size - int(ok.sum()))])
        out[ok] = multipletests(padded, method=method)[1][: int(ok.sum())]
    return out


def equivalence_p(*, estimate: float, se: float, df: float, margin: float) -> float:
    """The TOST p (Lakens 2017) for |mean| < ``margin``: the larger of the two one-sided t p-values, with ``df``
    (``inf``: normal); no variance (``se`` 0): 0 inside the margin, 1 outside."""
    if se <= 1e-12:
        return 0.0 if abs(estimate) < margin else 1.0
    ref = sps.t(df) if np.isfinite(df) else sps.norm()
    return float(max(ref.sf((estimate + margin) / se), ref.cdf((estimate - margin) / se)))


def equivalence_margin(*, low: float, high: float) -> float:
    """The smallest margin at which an equivalence test would succeed, given the ``1 − 2·alpha`` interval
    (``low``, ``high``) of the same reference distribution: max(|low|, |high|) (TOST rejects iff that interval lies
    inside ±margin)."""
    return float(max(abs(low), abs(high))) if np.isfinite(low) and np.isfinite(high) else float("nan")


def verdict(*, estimate: float, se: float, df: float, p_adjusted: float, margin: float = MARGIN,
            alpha: float = ALPHA, p_equivalence: float | None = None, identical: bool = False) -> str:
    """Lakens' (2017) four outcomes of a difference test and an equivalence test read together, plus one for
    scores that do not differ at all:

    - ``identical scores (no test needed)`` when ``identical`` (every paired score equal: nothing to test);
    - ``a higher`` / ``b higher``: the corrected difference test rejects (``p_adjusted`` < ``alpha``) and the
      equivalence test does not;
    - ``different but within ±m``: both reject — a difference that is real but smaller than the margin;
    - ``equivalent within ±m``: only the equivalence test rejects;
    - ``inconclusive``: neither (or a NaN estimate).

    The equivalence test: ``p_equivalence`` (a TOST p corrected over the same family as ``p_adjusted``, e.g.
    :func:`two_way_bootstrap` with ``margin`` then :func:`adjust`) < ``alpha``; without it, TOST at ``alpha``
    with ``se`` and ``df`` (not corrected over a family)."""
    alpha = checks.alpha(alpha)
    if not 0 < margin < 1:  # NaN and inf too: an infinite margin calls everything equivalent
        raise InputError(f"margin must be positive and below 1 (the score scale); got {margin!r}.",
                         fix=f"use e.g. margin={MARGIN}.")
    a = _alpha(alpha)
    if identical:
        return IDENTICAL
    if not np.isfinite(estimate):
        return verdicts.INCONCLUSIVE
    if p_equivalence is None:
        p_equivalence = equivalence_p(estimate=estimate, se=se, df=df, margin=margin) if np.isfinite(se) else 1.0
    different = bool(np.isfinite(p_adjusted) and p_adjusted < a)
    equivalent = bool(np.isfinite(p_equivalence) and p_equivalence < a)
    if different and equivalent:
        return f"{verdicts.SMALL} ±{margin:g}"
    if different:
        return verdicts.A_HIGHER if estimate > 0 else verdicts.B_HIGHER
    if equivalent:
        return f"{verdicts.EQUIVALENT} ±{margin:g}"
    return verdicts.INCONCLUSIVE


def kappa_interval(a: Sequence, b: Sequence, *, alpha: float = ALPHA, n_boot: int = N_BOOT, seed: int = 0,
                   groups: Sequence | None = None) -> tuple[float, float, float]:
    """Cohen's κ between two annotators' labels of the same items (``sklearn``) and a seeded percentile bootstrap
    interval over items — or over ``groups`` of items when given (e.g. a BTC's two mutants, whose labels are
    correlated: each replicate draws whole groups); fewer than 2 items give NaNs."""
    from sklearn.metrics import cohen_kappa_score

    alpha, n_boot, seed, _ = checks.alpha(alpha), checks.n_boot(n_boot), checks.seed(seed), checks.same_length(a, b)
    a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    if len(a) < 2:
        return float("nan"), float("nan"), float("nan")
    kappa = float(cohen_kappa_score(a, b)) if len(set(a) | set(b)) > 1 else 1.0
    rng = np.random.default_rng(seed)
    members = ([np.array([i]) for i in range(len(a))] if groups is None else
               [np.flatnonzero(np.asarray(groups, dtype=object) == g) for g in dict.fromkeys(groups)])
    draws = []
    for picked in rng.integers(0, len(members), (n_boot, len(members))):
        idx = np.concatenate([members[i] for i in picked])
        x, y = a[idx], b[idx]
        draws.append(cohen_kappa_score(x, y) if len(set(x) | set(y)) > 1 else 1.0)
    low, high = np.nanquantile(np.asarray(draws, dtype=float), [alpha / 2, 1 - alpha / 2])
    return kappa, float(low), float(high)


def kendall_tau(x: Sequence[float], y: Sequence[float], *, alpha: float = ALPHA, n_boot: int = N_BOOT,
                seed: int = 0) -> dict[str, float]:
    """Kendall's τ-b between two measures of the same items (``scipy.stats.kendalltau``) and a seeded percentile
    bootstrap interval over items. Keys: ``tau, ci_low, ci_high, p_value, n``."""
    alpha, n_boot, seed = checks.alpha(alpha), checks.n_boot(n_boot), checks.seed(seed)
    checks.same_length(x, y, names=("x", "y"))
    x, y = checks.finite(x, name="x"), checks.finite(y, name="y")
    n = len(x)
    if n < 3:
        return {"tau": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"), "p_value": float("nan"),
                "n": n}
    result = sps.kendalltau(x, y)
    rng = np.random.default_rng(seed)
    draws = np.array([sps.kendalltau(x[i], y[i]).statistic for i in rng.integers(0, n, (n_boot, n))])
    low, high = np.nanquantile(draws, [alpha / 2, 1 - alpha / 2])
    return {"tau": float(result.statistic), "ci_low": float(low), "ci_high": float(high),
            "p_value": float(result.pvalue), "n": n}


def crossed_estimate(matrix: pd.DataFrame, weights: np.ndarray | None, *, alpha: float, n_boot: int, seed: int,
                     method: str, margin: float) -> dict:
    """The two-way estimate, interval, p, equivalence p and variance shares of one templates × units array
    (templates with a missing cell dropped; fewer than 2 templates or units: NaNs). Keeps the array (``_matrix``,
    ``_weights``) for the family's simultaneous interval."""
    keep = matrix.notna().all(axis=1).to_numpy()
    matrix = matrix.loc[keep]
    weights = None if weights is None else weights[keep]
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        return {"estimate": np.nan, "ci_low_unadjusted": np.nan, "ci_high_unadjusted": np.nan, "p_two_way": np.nan,
                "se_two_way": np.nan, "df_two_way": np.nan, "ci_method": "", "p_equivalence": np.nan,
                "effect_size": np.nan, "identical": False, "n_templates": matrix.shape[0],
                "n_units": matrix.shape[1], "n_units_unmoved": np.nan, "share_template": np.nan,
                "share_name": np.nan, "share_residual": np.nan,
                "_matrix": None, "_weights": None}
    boot = two_way_bootstrap(matrix, alpha=alpha, n_boot=n_boot, seed=seed, method=method,
                                     row_weights=weights, margin=margin)
    parts = variance_components(matrix)  # shares NaN for a constant array
    return {"estimate": boot["estimate"], "ci_low_unadjusted": boot["ci_low"], "ci_high_unadjusted": boot["ci_high"],
            "p_two_way": boot["p_value"], "se_two_way": boot["se"], "df_two_way": boot["df"],
            "ci_method": boot["method"], "p_equivalence": boot["p_equivalence"], "effect_size": boot["effect_size"],
            "identical": boot["identical"], "n_templates": matrix.shape[0], "n_units": matrix.shape[1],
            "n_units_unmoved": boot["n_cols_zero"],
            **{k: parts[k] for k in ("share_template", "share_name", "share_residual")},
            "_matrix": matrix, "_weights": weights}


def _crossed_interval(row: dict, matrix: pd.DataFrame, weights: np.ndarray | None, *, alpha: float, method: str,
                      n_boot: int, seed: int) -> tuple[float, float]:
    """A row's two-way ``1 − alpha`` interval from its own reference distribution (the t at another level, or the
    bootstrap rerun with the same seed)."""
    if method == "satterthwaite" and np.isfinite(row["df_two_way"]):
        half = sps.t.ppf(1 - alpha / 2, row["df_two_way"]) * row["se_two_way"]
        return row["estimate"] - half, row["estimate"] + half
    r = two_way_bootstrap(matrix, alpha=alpha, n_boot=n_boot, seed=seed, method=method, row_weights=weights)
    return r["ci_low"], r["ci_high"]


def decide_family(block: list[dict], *, family: str, label: str, alpha: float, correction: str, margin: float,
                  n_boot: int, method: str, seed: int, family_size: int | None) -> None:
    """Correct one family's two-way p values and equivalence p values alike (rows of :func:`crossed_estimate`),
    give each row its simultaneous interval, its smallest equivalence margin and its verdict (in place). ``family``
    names the family in each row; ``label`` names it in the warning about a floored bootstrap p."""
    tested = int(sum(np.isfinite(r["p_two_way"]) for r in block))
    n_family = max(family_size or tested, 1)
    adjusted = adjust([r["p_two_way"] for r in block], method=correction, family_size=family_size)
    adjusted_eq = adjust([r["p_equivalence"] for r in block], method=correction, family_size=family_size)
    family = family + (f" (of a family of {family_size})" if family_size else "")
    if method != "satterthwaite" and correction != "fdr_bh" and 2 * n_family / (n_boot + 1) >= alpha:
        warn(f"{label}: with n_boot={n_boot:,} the smallest bootstrap p is 2/{n_boot + 1:,}, so after "
             f"{correction} over {n_family} tests no system can reach alpha={alpha}: every two-way result reads not "
             f"significant. Pass n_boot={int(np.ceil(4 * n_family / alpha)):,} or more (--n-boot), or the default "
             f"method='satterthwaite', whose p is not floored.")
    level = alpha / n_family  # Bonferroni: simultaneous over the family (Holm and BH decide with at least this)
    for row, p_adj, p_eq in zip(block, adjusted, adjusted_eq):
        matrix, weights = row.pop("_matrix"), row.pop("_weights")
        identical = bool(row.pop("identical"))
        # sparse sensitivity (a lexicon moved by a few names, most moving nothing at all): the names are samples,
        # and a population where a few names carry a large shift gives samples like this one, so no equivalence
        sparse = not identical and 0 < (row["n_units_unmoved"] or 0) < row["n_units"]
        low = high = low_eq = high_eq = np.nan
        if matrix is not None:
            low, high = _crossed_interval(row, matrix, weights, alpha=level, method=method, n_boot=n_boot, seed=seed)
            low_eq, high_eq = _crossed_interval(row, matrix, weights, alpha=min(2 * level, 0.49), method=method,
                                        n_boot=n_boot, seed=seed)
        row.update(p_adjusted=float(p_adj), p_equivalence_adjusted=float(p_eq),
                   significant_two_way=bool(p_adj < alpha), family=family, n_family=n_family, correction=correction,
                   margin=float(margin), ci_level=1 - level, ci_low=low, ci_high=high,
                   min_equivalence_margin=np.nan if identical or sparse else
                   equivalence_margin(low=low_eq, high=high_eq),
                   verdict=verdict(estimate=row["estimate"], se=row["se_two_way"], df=row["df_two_way"],
                                           p_adjusted=p_adj, p_equivalence=1.0 if sparse else p_eq,
                                           identical=identical,
                                           margin=margin, alpha=alpha))
