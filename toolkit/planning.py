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


FAMILY_MAX = 10**9
"""The most tests a plan corrects together (a family past that is a typo, not a study)."""


def _positive_ints(values: Iterable[int] | int, what: str) -> list[int]:
    """One or more counts ≥ 1: a list, or one whole number; a string is TK102 (it would be read digit by digit)."""
    return checks.count_list(values, name=what)


def design(*, var_template: float, var_name: float, var_residual: float, n_templates: Iterable[int] = (11,),
           n_names: Iterable[int] = (20,), alpha: float = 0.05, power: float = 0.8, family: int = 1) -> pd.DataFrame:
    """One row per (T, N) in the grid of ``n_templates`` × ``n_names``: SE, corrected half-width and the smallest
    detectable bias, from the variance components (non-negative; e.g. :func:`toolkit.stats.variance_components`)."""
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
    alpha, power = checks.alpha(alpha), checks.fraction(power, name="power")
    family = checks.count(family, name="family", maximum=FAMILY_MAX)  # the number of tests corrected together
    templates, names = _positive_ints(n_templates, "n_templates"), _positive_ints(n_names, "n_names")
    z_alpha = float(sps.norm.isf(alpha / (2 * family)))  # isf: exact in the tail, where 1 - p rounds to 1
    z_power = float(sps.norm.ppf(power))
    if not np.isfinite(z_alpha + z_power):
        raise InputError(f"alpha={alpha!r} over {family:,} tests and power={power!r} give an infinite critical value.",
                         fix="use a larger alpha, a smaller family or a power further from 1.")
    rows = []
    for t in templates:
        for n in names:
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
