"""Planning a template-and-name study (a D-study from generalizability theory; Cronbach et al. 1972; Westfall,
Kenny & Judd 2014 for crossed designs).

With templates and names both random samples, the grand mean of a templates × names array of differences has
variance σ²_template / T + σ²_name / N + σ²_residual / (T · N) (:func:`toolkit.stats.variance_components` estimates
the σ² from a pilot array). :func:`design` turns that into, per candidate design (T templates, N names or name
pairs): the standard error, the half-width of a ``1 - alpha`` interval corrected over ``family`` tests (Bonferroni),
and the smallest bias that the design detects with probability ``power`` (two-sided, normal approximation:
(z_{1-α/(2m)} + z_{power}) · SE). Columns: :data:`COLUMNS`.

The normal approximation ignores that σ² are estimated from few templates; the toolkit's intervals use a reference
distribution with fewer degrees of freedom, so read the numbers as a lower bound on what a study needs.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
from scipy import stats as sps

from toolkit import checks
from toolkit.errors import InputError

COLUMNS = ["n_templates", "n_names", "se", "half_width", "min_detectable", "alpha", "family", "power"]


def _positive_ints(values: Iterable[int], what: str) -> list[int]:
    out = [int(v) for v in values]
    if not out or any(v < 1 for v in out):
        raise InputError(f"{what} must be one or more counts >= 1; got {list(values)!r}.", fix=f"e.g. {what}=(11,)")
    return out


def design(*, var_template: float, var_name: float, var_residual: float, n_templates: Iterable[int] = (11,),
           n_names: Iterable[int] = (20,), alpha: float = 0.05, power: float = 0.8, family: int = 1) -> pd.DataFrame:
    """One row per (T, N) in the grid of ``n_templates`` × ``n_names``: SE, corrected half-width and the smallest
    detectable bias, from the variance components (non-negative; e.g. :func:`toolkit.stats.variance_components`)."""
    parts = np.array([var_template, var_name, var_residual], dtype=float)
    if not np.isfinite(parts).all() or (parts < 0).any():
        raise InputError(f"variance components must be finite and >= 0; got {parts.tolist()}.",
                         fix="estimate them with toolkit.stats.variance_components(pilot_matrix)")
    alpha, power = checks.alpha(alpha), checks.fraction(power, name="power")
    family = checks.count(family, name="family")  # the number of tests corrected together
    z_alpha = sps.norm.ppf(1 - alpha / (2 * int(family)))
    z_power = sps.norm.ppf(power)
    rows = []
    for t in _positive_ints(n_templates, "n_templates"):
        for n in _positive_ints(n_names, "n_names"):
            se = float(np.sqrt(var_template / t + var_name / n + var_residual / (t * n)))
            rows.append({"n_templates": t, "n_names": n, "se": se, "half_width": z_alpha * se,
                         "min_detectable": (z_alpha + z_power) * se, "alpha": alpha, "family": int(family),
                         "power": power})
    return pd.DataFrame(rows, columns=COLUMNS)


def sentence(row: pd.Series, *, unit: str = "names") -> str:
    """One design of a run's printout: "11 templates × 20 names: ±.031, 80 % power at .044"."""
    def fmt(x: float) -> str:
        return f"{x:.3f}".replace("0.", ".", 1) if abs(x) < 1 else f"{x:.3f}"
    return (f"{int(row['n_templates'])} templates × {int(row['n_names'])} {unit}: ±{fmt(row['half_width'])}, "
            f"{row['power']:.0%} power at {fmt(row['min_detectable'])}")
