"""BiasFinder's BTC-rate intervals with the templates fixed (:func:`toolkit.studies.biasfinder.btc_rates.rates`
below ``MIN_TEMPLATES`` templates, ``few_templates="names"``): the names bootstrap's percentile interval and, where
every name of a class is labelled alike so that bootstrap has no spread, Clopper-Pearson bounds searched over their
box. Inputs are :func:`~toolkit.studies.biasfinder.btc_rates._pair_design`'s design (names × templates × labels)."""
from __future__ import annotations

import numpy as np

ALIKE_GRID = 201
"""Points per class share in :func:`alike_bounds`' search of each template's box of Clopper-Pearson bounds."""


def smallest_class(design: dict, *, templates: np.ndarray) -> int:
    """The fewest names any class has in the ``templates`` (a boolean mask over the design's templates)."""
    used = design["x"][:, templates].sum(axis=(1, 2)) > 0
    name_class = design["name_class"]
    return int(np.bincount(name_class[used], minlength=int(name_class.max()) + 1).min())


def given_interval(draws: np.ndarray, *, alpha: float, bounded: bool) -> tuple[float, float, float]:
    """``low, high, se`` of the names bootstrap given the templates (percentile; ``bounded``: kept in [0, 1])."""
    draws = draws[np.isfinite(draws)]
    if len(draws) < 2:
        return float("nan"), float("nan"), float("nan")
    low, high = np.quantile(draws, [alpha / 2, 1 - alpha / 2])
    if bounded:
        low, high = max(low, 0.0), min(high, 1.0)
    return float(low), float(high), float(np.std(draws, ddof=1))


def alike_bounds(design: dict, *, templates: np.ndarray, alpha: float) -> dict | None:
    """Where every name of a class is labelled alike in each of the ``templates`` (a boolean mask; the names
    bootstrap then has no spread), with two classes and at most two labels: ``(low, high)`` for the rate between
    classes (``rate``), the null (``null``) and the excess (``excess``) over the names' population in those
    templates. Per template and class, the share p of names with a label is bounded by Clopper-Pearson's one-sided
    bound for n names all alike (p ≥ (α / 2k)^(1/n), Bonferroni over the 2k class × template bounds); each
    statistic is a sum over templates of a function of (p_1, p_2) weighted by the design's pairs (between:
    n_1 n_2 [p_1(1 − p_2) + p_2(1 − p_1)]; within: C(n_c, 2) 2p_c(1 − p_c)), so its bounds are the sums of each
    template's extremes over its box (a grid of :data:`ALIKE_GRID` points a side). None otherwise."""
    x, name_class = design["x"][:, templates], design["name_class"]
    if int(name_class.max()) + 1 != 2 or x.shape[2] > 2:
        return None
    grid = np.linspace(0.0, 1.0, ALIKE_GRID)
    per_template = []
    for t in range(x.shape[1]):
        shares, sizes = [], []
        for c in (0, 1):
            counts = x[name_class == c, t].sum(axis=0)  # per label; alike: one label holds them all
            n = int(counts.sum())
            bound = (alpha / (2 * x.shape[1])) ** (1.0 / n) if n else 0.0
            low, high = (bound, 1.0) if counts[-1] == n else (0.0, 1.0 - bound)  # the last label's share
            shares.append(low + (high - low) * grid)
            sizes.append(n)
        p1, p2 = np.meshgrid(shares[0], shares[1], indexing="ij")
        within_pairs = (sizes[0] * (sizes[0] - 1) / 2, sizes[1] * (sizes[1] - 1) / 2)
        per_template.append((sizes[0] * sizes[1] * (p1 * (1 - p2) + p2 * (1 - p1)),
                             within_pairs[0] * 2 * p1 * (1 - p1) + within_pairs[1] * 2 * p2 * (1 - p2),
                             sizes[0] * sizes[1], sum(within_pairs)))
    pairs_between, pairs_within = sum(t[2] for t in per_template), sum(t[3] for t in per_template)
    if not pairs_between or not pairs_within:
        return None

    def bounds(values: list[np.ndarray]) -> tuple[float, float]:
        return float(sum(v.min() for v in values)), float(sum(v.max() for v in values))
    return {"rate": bounds([b / pairs_between for b, _, _, _ in per_template]),
            "null": bounds([w / pairs_within for _, w, _, _ in per_template]),
            "excess": bounds([b / pairs_between - w / pairs_within for b, w, _, _ in per_template])}


def spread(draws: np.ndarray) -> bool:
    """Whether the finite ``draws`` take more than one value."""
    draws = draws[np.isfinite(draws)]
    return bool(len(draws) > 1 and np.ptp(draws) > 0)
