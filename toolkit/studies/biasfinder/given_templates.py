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
    bootstrap then has no spread), with two classes: ``(low, high)`` for the rate between classes (``rate``), the
    null (``null``) and the excess (``excess``) over the names' population in those templates, whatever the
    model's labels. Per template and class c, the share a_c of names with the class's label is at least
    Clopper-Pearson's one-sided bound for n_c names all alike, (α / 2k)^(1/n_c) (Bonferroni over the 2k class ×
    template bounds); the rest, r_c = 1 − a_c, may fall on any other labels, so for two names of different classes
    the chance they disagree lies in [1 − a_1 a_2 − r_1 r_2, 1 − a_1 a_2] when both classes show one label and in
    [1 − a_1 r_2 − a_2 r_1, 1] when they differ, and for two of class c in [1 − a_c² − r_c², 1 − a_c²]. Each
    statistic is a sum over templates weighted by the design's pairs (n_1 n_2 between, C(n_c, 2) within), so its
    bounds are the sums of each template's extremes over its box of (a_1, a_2) (a grid of :data:`ALIKE_GRID` points
    a side; the excess: the lowest between less the highest within, and the reverse). None where a class is not
    alike in some template, with another number of classes, or with no pair of either kind."""
    x, name_class = design["x"][:, templates], design["name_class"]
    if int(name_class.max()) + 1 != 2:
        return None
    for c in (0, 1):  # each class alike in each template: at most one label holds its names
        if ((x[name_class == c].sum(axis=0) > 0).sum(axis=1) > 1).any():
            return None
    grid = np.linspace(0.0, 1.0, ALIKE_GRID)
    parts = []  # per template: between (low, high), within (low, high) as pair-weighted sums on the grid
    for t in range(x.shape[1]):
        shares, sizes, labels = [], [], []
        for c in (0, 1):
            counts = x[name_class == c, t].sum(axis=0)  # per label; alike: one label holds them all
            n = int(counts.sum())
            bound = (alpha / (2 * x.shape[1])) ** (1.0 / n) if n else 0.0
            shares.append(bound + (1.0 - bound) * grid)
            sizes.append(n)
            labels.append(int(np.argmax(counts)) if n else -1)
        a1, a2 = np.meshgrid(shares[0], shares[1], indexing="ij")
        r1, r2 = 1 - a1, 1 - a2
        if labels[0] == labels[1]:
            between = (1 - a1 * a2 - r1 * r2, 1 - a1 * a2)
        else:
            between = (1 - a1 * r2 - a2 * r1, np.ones_like(a1))
        pairs = sizes[0] * sizes[1], sizes[0] * (sizes[0] - 1) / 2, sizes[1] * (sizes[1] - 1) / 2
        within = (pairs[1] * (1 - a1 ** 2 - r1 ** 2) + pairs[2] * (1 - a2 ** 2 - r2 ** 2),
                  pairs[1] * (1 - a1 ** 2) + pairs[2] * (1 - a2 ** 2))
        parts.append((pairs[0] * between[0], pairs[0] * between[1], within[0], within[1], pairs[0],
                      pairs[1] + pairs[2]))
    pairs_between, pairs_within = sum(p[4] for p in parts), sum(p[5] for p in parts)
    if not pairs_between or not pairs_within:
        return None
    return {"rate": (sum(float(p[0].min()) for p in parts) / pairs_between,
                     sum(float(p[1].max()) for p in parts) / pairs_between),
            "null": (sum(float(p[2].min()) for p in parts) / pairs_within,
                     sum(float(p[3].max()) for p in parts) / pairs_within),
            "excess": (sum(float((p[0] / pairs_between - p[3] / pairs_within).min()) for p in parts),
                       sum(float((p[1] / pairs_between - p[2] / pairs_within).max()) for p in parts))}


def spread(draws: np.ndarray) -> bool:
    """Whether the finite ``draws`` take more than one value."""
    draws = draws[np.isfinite(draws)]
    return bool(len(draws) > 1 and np.ptp(draws) > 0)
