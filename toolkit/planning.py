"""Planning a template-and-name study (a D-study from generalizability theory; Cronbach et al. 1972; Westfall,
Kenny & Judd 2014 for crossed designs), in the analysis's own distribution.

The studies estimate the (template-weighted) grand mean of a templates × names array of differences with
:func:`toolkit.stats.two_way_bootstrap`'s default: standard error² = σ²_template / R_eff + σ²_name / N +
σ²_residual / (R_eff · N), R_eff = (Σw)² / Σw² for template weights w (the EEC weighs a template by its sentence
pairs: 20 per emotion template, 1 per neutral one, so its 11 templates count as R_eff = 7.4), and a Student t with
Satterthwaite's degrees of freedom, corrected over ``family`` tests (Bonferroni: level alpha / family).
:func:`design` plans with exactly that: per candidate design (T templates, N names or name pairs, the pilot's
template weights repeated to T), the expected standard error and Satterthwaite df (the analysis's formula at the
expected mean squares), the median half-width of the corrected interval, the power at any bias (a noncentral t with those
df) and the smallest bias detected with probability ``power``. Columns: :data:`COLUMNS`.

A pilot estimates the variance components, it does not know them. With ``pilot_shape`` (the pilot array's
templates × names), :func:`design` also states the plan's own uncertainty: generalized pivotal draws of the
pilot's three expected mean squares (E[MS] = MS · df / χ²_df; Weerahandi 1993) give a 95 % interval on the power
the plan promises (``power_low``/``power_high``) and on the smallest detectable bias
(``min_detectable_low``/``min_detectable_high``). :func:`power_curve` gives the power over a range of biases
(with the same interval) — what a reader should see instead of one number. Measured by simulation through the EEC
study's own analysis in ``docs/names_and_templates.md``.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from toolkit import checks
from toolkit.errors import InputError

COLUMNS = ["n_templates", "n_names", "r_eff", "se", "df", "half_width", "min_detectable", "min_detectable_low",
           "min_detectable_high", "power_low", "power_high", "alpha", "family", "power"]
CURVE_COLUMNS = ["n_templates", "n_names", "bias", "power", "power_low", "power_high", "se", "df", "alpha", "family"]
N_DRAWS = 400
"""Generalized pivotal draws of the pilot's mean squares behind the plan's intervals."""


FAMILY_MAX = 10**9
"""The most tests a plan corrects together (a family past that is a typo, not a study)."""


def _positive_ints(values: Iterable[int] | int, what: str) -> list[int]:
    """One or more counts ≥ 1: a list, or one whole number; a string is TK102 (it would be read digit by digit)."""
    return checks.count_list(values, name=what)


def _components(var_template: float, var_name: float, var_residual: float) -> np.ndarray:
    given = {"var_template": var_template, "var_name": var_name, "var_residual": var_residual}
    wrong = {k: v for k, v in given.items()
             if isinstance(v, (bool, str, bytes)) or not isinstance(v, (int, float, np.number))}
    if wrong:
        raise InputError(f"variance components must be numbers; got {wrong}.",
                         fix="estimate them with toolkit.stats.variance_components(pilot_matrix)")
    parts = np.array(list(given.values()), dtype=float)
    if not np.isfinite(parts).all() or (parts < 0).any():
        raise InputError(f"variance components must be finite and >= 0; got {parts.tolist()}.",
                         fix="estimate them with toolkit.stats.variance_components(pilot_matrix)")
    return parts


def weights_for(template_weights: Sequence[float] | None, n_templates: int) -> np.ndarray:
    """The template weights of a planned design of ``n_templates``: the pilot's ``template_weights`` repeated in
    order (cut or cycled; None: equal weights)."""
    if template_weights is None:
        return np.ones(n_templates)
    w = np.asarray(template_weights, dtype=float)
    if w.ndim != 1 or not len(w) or (w < 0).any() or w.sum() <= 0 or not np.isfinite(w).all():
        raise InputError(f"template_weights must be non-negative numbers, not all 0; got {w.tolist()!r}.",
                         fix="give one weight per pilot template, e.g. its number of sentence pairs.")
    planned = np.resize(w, n_templates)
    if planned.sum() <= 0:
        raise InputError(f"the first {n_templates} template weights are all 0.", fix="reorder template_weights.")
    return planned


def _se_df(parts: np.ndarray, t: int, n: int, r_eff: float) -> tuple[np.ndarray, np.ndarray]:
    """The analysis's standard error and Satterthwaite df (:func:`toolkit.stats._satterthwaite`) at the expected
    mean squares of a ``t`` × ``n`` array with R_eff ``r_eff``; ``parts``: ``(..., 3)`` components."""
    v_t, v_n, v_e = parts[..., 0], parts[..., 1], parts[..., 2]
    ms_r, ms_c, ms_e = n * v_t + v_e, t * v_n + v_e, v_e
    a_r = np.where(v_t > 0, 1.0 / (n * r_eff), 0.0)
    a_c = np.where(v_n > 0, 1.0 / (t * n), 0.0)
    a_e = 1.0 / (r_eff * n) - a_r - a_c
    terms = np.stack([a_r * ms_r, a_c * ms_c, a_e * ms_e], axis=-1)
    var = terms.sum(axis=-1)
    dfs = np.array([max(t - 1, 1), max(n - 1, 1), max((t - 1) * (n - 1), 1)], dtype=float)
    denominator = (terms ** 2 / dfs).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.where(denominator > 0, var * var / denominator, np.inf)
    return np.sqrt(np.maximum(var, 0.0)), np.maximum(df, 1.0)


_GRID = (np.arange(256) + 0.5) / 256  # quantile midpoints of the chi-square behind the estimated standard error


def _power(delta: np.ndarray | float, se: np.ndarray, df: np.ndarray, q: np.ndarray) -> np.ndarray:
    """P(|t| > q) for t = estimate / ŝe, estimate ~ N(delta, se²) and ŝe² ~ se² · χ²_df / df: the noncentral t,
    integrated over the chi-square on a grid of its quantiles (scipy's ``nct`` returns NaN in the far tail that a
    family of 438 needs)."""
    delta, se, df, q = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (delta, se, df, q)))
    scale = np.sqrt(sps.chi2.ppf(_GRID, df[..., None]) / df[..., None])  # (..., grid)
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = np.where(se > 0, delta / np.where(se > 0, se, 1.0), np.where(delta != 0, np.inf, 0.0))[..., None]
    cut = q[..., None] * scale
    out = (sps.norm.sf(cut - lam) + sps.norm.cdf(-cut - lam)).mean(axis=-1)
    return np.where((se <= 0) & (delta == 0), 0.0, out)


def _min_detectable(se: np.ndarray, df: np.ndarray, q: np.ndarray, power: float) -> np.ndarray:
    """The bias found with probability ``power`` (vectorised bisection on the noncentrality)."""
    se, df, q = np.broadcast_arrays(np.asarray(se, float), np.asarray(df, float), np.asarray(q, float))
    low, high = np.zeros(se.shape), np.full(se.shape, 2.0) + 2 * q
    for _ in range(60):
        mid = (low + high) / 2
        reach = _power(mid, np.ones(se.shape), df, q) >= power
        high, low = np.where(reach, mid, high), np.where(reach, low, mid)
    return high * se


def _quantile(alpha: float, family: int, df: np.ndarray) -> np.ndarray:
    return sps.t.isf(alpha / (2 * family), df)  # isf: exact in the far tail


def _pivotal_draws(parts: np.ndarray, pilot_shape: tuple[int, int], *, n_draws: int, seed: int) -> np.ndarray:
    """``n_draws`` × 3 variance components the pilot is consistent with: each expected mean square drawn as
    MS · df / χ²_df (generalized pivotal quantities), components from them by the method of moments (negative: 0)."""
    r0, c0 = (int(v) for v in pilot_shape)
    if r0 < 2 or c0 < 2:
        raise InputError(f"pilot_shape must be at least 2 × 2 (templates × names); got {pilot_shape!r}.",
                         fix="pass the pilot array's shape, e.g. matrix.shape")
    v_t, v_n, v_e = parts
    ms = np.array([c0 * v_t + v_e, r0 * v_n + v_e, v_e])
    dfs = np.array([r0 - 1, c0 - 1, (r0 - 1) * (c0 - 1)], dtype=float)
    rng = np.random.default_rng(seed)
    expected = ms * dfs / rng.chisquare(dfs, size=(n_draws, 3))
    return np.column_stack([np.maximum((expected[:, 0] - expected[:, 2]) / c0, 0.0),
                            np.maximum((expected[:, 1] - expected[:, 2]) / r0, 0.0), expected[:, 2]])


def design(*, var_template: float, var_name: float, var_residual: float, n_templates: Iterable[int] = (11,),
           n_names: Iterable[int] = (20,), alpha: float = 0.05, power: float = 0.8, family: int = 1,
           template_weights: Sequence[float] | None = None, pilot_shape: tuple[int, int] | None = None,
           n_draws: int = N_DRAWS, seed: int = 0) -> pd.DataFrame:
    """One row per (T, N) in the grid of ``n_templates`` × ``n_names``: the analysis's standard error and
    Satterthwaite df, the half-width of the interval corrected over ``family`` tests (Bonferroni, t; the median
    over studies of that design, whose estimated standard errors vary), the smallest
    bias detected with probability ``power`` (noncentral t), and — with ``pilot_shape`` (the pilot array's
    templates × names) — 95 % intervals on that bias and on the power the plan promises, from the pilot's own
    uncertainty (NaN without it). ``template_weights``: the pilot's weight per template (the EEC: its sentence
    pairs), repeated to T (None: equal). Variance components: non-negative, e.g.
    :func:`toolkit.stats.variance_components`. Columns :data:`COLUMNS`."""
    parts = _components(var_template, var_name, var_residual)
    alpha, power = checks.alpha(alpha), checks.fraction(power, name="power")
    family = checks.count(family, name="family", maximum=FAMILY_MAX)  # the number of tests corrected together
    n_draws, seed = checks.count(n_draws, name="n_draws", minimum=20), checks.seed(seed)
    draws = None if pilot_shape is None else _pivotal_draws(parts, pilot_shape, n_draws=n_draws, seed=seed)
    templates, names = _positive_ints(n_templates, "n_templates"), _positive_ints(n_names, "n_names")
    rows = []
    for t in templates:
        w = weights_for(template_weights, t)
        r_eff = float(w.sum() ** 2 / (w ** 2).sum())
        for n in names:
            se, df = (float(v) for v in _se_df(parts, t, n, r_eff))
            q = float(_quantile(alpha, family, np.asarray(df)))
            if not np.isfinite(q):
                raise InputError(f"alpha={alpha!r} over {family:,} tests gives an infinite critical value.",
                                 fix="use a larger alpha or a smaller family.")
            detectable = float(_min_detectable(np.asarray(se), np.asarray(df), np.asarray(q), power))
            typical = q * se * float(np.sqrt(sps.chi2.ppf(0.5, df) / df))  # the median printed half-width
            row = {"n_templates": t, "n_names": n, "r_eff": r_eff, "se": se, "df": df, "half_width": typical,
                   "min_detectable": detectable, "min_detectable_low": np.nan, "min_detectable_high": np.nan,
                   "power_low": np.nan, "power_high": np.nan, "alpha": alpha, "family": int(family), "power": power}
            if draws is not None:
                se_d, df_d = _se_df(draws, t, n, r_eff)
                q_d = _quantile(alpha, family, df_d)
                row["min_detectable_low"], row["min_detectable_high"] = np.quantile(
                    _min_detectable(se_d, df_d, q_d, power), [0.025, 0.975])
                row["power_low"], row["power_high"] = np.quantile(_power(detectable, se_d, df_d, q_d), [0.025, 0.975])
            rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def power_curve(*, var_template: float, var_name: float, var_residual: float, biases: Iterable[float],
                n_templates: int = 11, n_names: int = 20, alpha: float = 0.05, family: int = 1,
                template_weights: Sequence[float] | None = None, pilot_shape: tuple[int, int] | None = None,
                n_draws: int = N_DRAWS, seed: int = 0) -> pd.DataFrame:
    """The power of one design (``n_templates`` × ``n_names``, corrected over ``family`` tests) at each bias in
    ``biases``, in the analysis's distribution (see :func:`design`); with ``pilot_shape``, the 95 % interval of
    each power from the pilot's uncertainty. Columns :data:`CURVE_COLUMNS`."""
    parts = _components(var_template, var_name, var_residual)
    alpha = checks.alpha(alpha)
    family = checks.count(family, name="family", maximum=FAMILY_MAX)
    n_draws, seed = checks.count(n_draws, name="n_draws", minimum=20), checks.seed(seed)
    (t,), (n,) = _positive_ints([n_templates], "n_templates"), _positive_ints([n_names], "n_names")
    grid = np.asarray(list(biases), dtype=float)
    if not grid.size or not np.isfinite(grid).all():
        raise InputError(f"biases must be one or more finite numbers; got {grid.tolist()!r}.",
                         fix="e.g. biases=np.linspace(0, 0.1, 11)")
    w = weights_for(template_weights, t)
    r_eff = float(w.sum() ** 2 / (w ** 2).sum())
    se, df = _se_df(parts, t, n, r_eff)
    q = _quantile(alpha, family, df)
    curve = _power(grid, se, df, q)
    low = high = np.full(grid.shape, np.nan)
    if pilot_shape is not None:
        se_d, df_d = _se_df(_pivotal_draws(parts, pilot_shape, n_draws=n_draws, seed=seed), t, n, r_eff)
        spread = _power(grid[:, None], se_d[None, :], df_d[None, :], _quantile(alpha, family, df_d)[None, :])
        low, high = np.quantile(spread, [0.025, 0.975], axis=1)
    return pd.DataFrame({"n_templates": t, "n_names": n, "bias": grid, "power": curve, "power_low": low,
                         "power_high": high, "se": float(se), "df": float(df), "alpha": alpha,
                         "family": int(family)}, columns=CURVE_COLUMNS)


def sentence(row: pd.Series, *, unit: str = "names") -> str:
    """One design of a run's printout: "11 templates × 20 names: ±.031, 80 % power at .044 (.036–.061 given the
    pilot)"."""
    def fmt(x: float) -> str:
        return f"{x:.3f}".replace("0.", ".", 1) if abs(x) < 1 else f"{x:.3f}"
    design = f"{int(row['n_templates'])} templates × {int(row['n_names'])} {unit}"
    if not np.isfinite(row["half_width"]) or not np.isfinite(row["min_detectable"]) or row["min_detectable"] <= 0:
        return f"{design}: no variation in the pilot (identical scores), so no interval or power to plan"
    text = f"{design}: ±{fmt(row['half_width'])}, {row['power']:.0%} power at {fmt(row['min_detectable'])}"
    low, high = row.get("min_detectable_low", np.nan), row.get("min_detectable_high", np.nan)
    if np.isfinite(low) and np.isfinite(high):
        text += f" ({fmt(low)}–{fmt(high)} given the pilot)"
    return text
