"""BiasFinder's BTC rates with intervals and a within-class null (estimators from :mod:`toolkit.stats`).

- :func:`rates` — per model × characteristic (:data:`RATE_COLUMNS`): the BTC rate (BTCs / between-class pairs) with a
  template-clustered bootstrap interval (default; Wilson as well), the within-class placebo rate (two female names;
  two names of one country, which needs ``n_country_names >= 2``; occupation has no null), the excess
  (``estimate``) with its interval (one family of tests with the permutation p: 0 inside exactly when p ≥
  alpha), Cohen's h, ``p_adjusted`` over the model × characteristic family
  (:data:`RATE_FAMILY`), the :func:`toolkit.stats.verdict` (``a higher`` = more BTCs between classes than within) and
  ``btcs_net``.
- :func:`table4_rates` adds the rate columns to Table 4 (:data:`TABLE4_RATE_COLUMNS`), the paper's unchanged.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from toolkit import checks, verdicts
from toolkit import stats as tkstats
from toolkit.errors import unknown
from toolkit.studies.biasfinder.counting import TABLE4_COLUMNS, _mutants, pair_counts, rate_rows
from toolkit.studies.biasfinder.given_templates import alike_bounds, given_interval, smallest_class, spread

RATE_COLUMNS = ("model", "attribute", "templates", "pairs_between", "btcs_between", "rate_between", "rate_low",
                "rate_high", "rate_wilson_low", "rate_wilson_high", "null_templates", "pairs_matched",
                "btcs_matched", "rate_matched", "matched_low", "matched_high", "pairs_within", "btcs_within",
                "rate_within", "null_low", "null_high", "estimate",
                "ci_low", "ci_high", "newcombe_low", "newcombe_high", "effect_size", "p_value", "p_adjusted",
                "verdict", "btcs_net", "interval", "ci_method", "excess_scope", "p_method", "n_names",
                "no_interval_reason", "no_test_reason")
TABLE4_RATE_COLUMNS = TABLE4_COLUMNS + ("btc_rate", "btc_rate_low", "btc_rate_high", "null_rate", "excess",
                                        "excess_low", "excess_high", "btcs_net", "verdict")
RATE_INTERVALS: tuple[str, ...] = ("cluster", "cluster-bootstrap", "templates", "pairs")
TIE = 1e-12
"""Permuted excesses within this of the data's count as ties (as extreme) in the permutation p and its inversion."""
MIN_TEMPLATES = 8
"""Fewer templates than this: no interval, and ``no_interval_reason`` says so. Where templates carry the variance,
a two-way bootstrap interval covered 87 % (5 templates) and 90 % (6) of a nominal 95 % even on the t(templates − 1)
scale (docs/statistics.md)."""
SMALL_TEMPLATES = 10
"""From :data:`MIN_TEMPLATES` to fewer than this: a t(templates − 1) interval on the two-way bootstrap SE (covered
91-92 % with 8 templates); from here on the percentile interval (92-97 %)."""
RATE_FAMILY = "BTC-rate excess (between − within class) per model × characteristic"
FEW_TEMPLATES: tuple[str, ...] = ("names", "none")
"""Below :data:`MIN_TEMPLATES` templates with a within-class pair, the null's and the excess's interval: ``names``
(default) resamples the names with those templates fixed (inference about these templates, the permutation p's own
scope), ``none`` gives no interval (``no_interval_reason`` says why)."""
SAME_LABELS = ("the names bootstrap has no spread, and no bound is built for that case (one is where there are two "
               "classes and every name of a class is labelled alike in each template)")
MIN_GIVEN_NAMES = 10
"""``few_templates="names"`` needs at least this many names in every class (fewer: none, and the reason says so);
docs/statistics.md gives its coverage with 10 and 30 names per class."""


VERDICT_GROUPS = verdicts.Groups("between classes", "within a class", "between", "within",
                                 "more BTCs between classes than within a class",
                                 "fewer BTCs between classes than within a class")
"""The BTC-rate verdict's two groups (excess = between − within), as tables, captions and legends name them."""


def _cluster_ratios(numerators: np.ndarray, denominators: np.ndarray, *, n_boot: int, seed: int) -> np.ndarray:
    """``n_boot`` seeded bootstrap replicates over templates (rows) of Σ numerators / Σ denominators, one column per
    ratio (2-D inputs: templates × ratios); a replicate with no pairs is NaN. Drawn in chunks to bound memory."""
    rng = np.random.default_rng(seed)
    t = len(numerators)
    out = []
    for start in range(0, n_boot, 250):
        weights = rng.multinomial(t, np.full(t, 1.0 / t), size=min(250, n_boot - start)).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append((weights @ numerators) / (weights @ denominators))
    return np.concatenate(out)


def _pair_design(mutants: pd.DataFrame) -> dict:
    """One model × characteristic's mutants as a names × templates × labels count array ``x``, each name's class
    (``name_class``) and per template whether it holds a within-class pair (``matched``). A name is a (``group``,
    ``fill``) pair, one name in every template it fills (BiasFinder fills every template with the same names);
    without a ``fill`` column every mutant is its own name."""
    name_codes, class_codes = _names(mutants)
    template_codes, templates = pd.factorize(mutants["case_id"], sort=False)
    label_codes, labels = pd.factorize(mutants["label"].astype(str), sort=True)
    x = np.zeros((len(class_codes), len(templates), max(len(labels), 1)))
    np.add.at(x, (name_codes, template_codes, label_codes), 1.0)
    per_class = np.zeros((class_codes.max() + 1, len(templates)))
    np.add.at(per_class, class_codes, x.sum(axis=2))
    return {"x": x, "name_class": class_codes, "templates": templates, "matched": (per_class >= 2).any(axis=0)}


def _names(mutants: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each mutant's name (a (``group``, ``fill``) pair, one name in every template it fills; without a ``fill``
    column every mutant is its own name) as a code, and each name's class code."""
    fill = mutants["fill"].astype(str) if "fill" in mutants.columns else mutants["variant_id"].astype(str)
    name_codes, name_keys = pd.factorize(pd.MultiIndex.from_arrays([mutants["group"].astype(str), fill]), sort=True)
    class_codes, _ = pd.factorize(name_keys.get_level_values(0), sort=True)
    return name_codes, class_codes


def _class_draws(name_class: np.ndarray, *, size: int, rng: np.random.Generator) -> np.ndarray:
    """``(size, names)``: each class's names drawn with replacement (a multinomial per class, classes in order)."""
    w = np.ones((size, len(name_class)))
    for c in range(int(name_class.max()) + 1 if len(name_class) else 0):
        idx = np.flatnonzero(name_class == c)
        w[:, idx] = rng.multinomial(len(idx), np.full(len(idx), 1.0 / len(idx)), size=size)
    return w


def _pair_sums(x: np.ndarray, member: np.ndarray, fill_in: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Per replicate × template (``(B, T)`` arrays): pairs of mutants of different classes and of one class, and
    the BTCs among each, when name i counts ``member[b, i, c]`` times in class c (the data: 1 in its own class).
    ``x``: names × templates × labels counts. Two copies of one drawn name are a within-class pair whose BTC count
    is ``fill_in[i, t]`` (:func:`_fill_in`: the share of the name's classmates that disagree with it in the data)
    rather than 0: a name never disagrees with itself, and counting its copies as agreeing pairs would pull the
    resampled within-class rate below the between-class one (the U-statistic's diagonal)."""
    n_names, n_templates, n_labels = x.shape
    boot, _, n_classes = member.shape
    by_class = member.transpose(0, 2, 1).reshape(boot * n_classes, n_names)
    count = np.einsum("bi,ij->bj", by_class, x.reshape(n_names, -1)).reshape(boot, n_classes, n_templates, n_labels)
    size = count.sum(axis=3)
    within_pairs = ((size * size - size) / 2).sum(axis=1)
    within_btcs = ((size * size - (count * count).sum(axis=3)) / 2).sum(axis=1)
    if fill_in is not None:
        within_btcs = within_btcs + np.einsum("bci,it->bt", (member * member - member).transpose(0, 2, 1) / 2,
                                              fill_in)
    total = count.sum(axis=1)
    size_all = total.sum(axis=2)
    between_pairs = (size_all * size_all - (size * size).sum(axis=1)) / 2
    between_same = ((total * total - (count * count).sum(axis=1)) / 2).sum(axis=2)
    return {"pairs_between": between_pairs, "btcs_between": between_pairs - between_same,
            "pairs_within": within_pairs, "btcs_within": within_btcs}


def _fill_in(x: np.ndarray, name_class: np.ndarray) -> np.ndarray:
    """Per name × template: the share of the name's classmates in that template whose label differs from its own
    (0 where it has none)."""
    n_classes = int(name_class.max()) + 1
    per_class = np.zeros((n_classes,) + x.shape[1:])
    np.add.at(per_class, name_class, x)
    mine = per_class[name_class]  # names × templates × labels: the class's counts
    size = mine.sum(axis=2)
    differ = ((size[..., None] - mine) * x).sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(size > 1, differ / (size - 1), 0.0)


def _rates_of(sums: dict[str, np.ndarray], v: np.ndarray, matched: np.ndarray) -> np.ndarray:
    """``(B, 3)``: the BTC rate between classes over the templates weighted ``v`` and, over the templates with a
    within-class pair, the rates between and within (NaN where there is no such pair)."""
    vm = v * matched
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.column_stack([(v * sums["btcs_between"]).sum(1) / (v * sums["pairs_between"]).sum(1),
                                (vm * sums["btcs_between"]).sum(1) / (vm * sums["pairs_between"]).sum(1),
                                (vm * sums["btcs_within"]).sum(1) / (vm * sums["pairs_within"]).sum(1)])


def _one_hot(codes: np.ndarray, n_classes: int) -> np.ndarray:
    return (codes[..., None] == np.arange(n_classes)).astype(float)


def _two_way_draws(design: dict, *, n_boot: int, seed: int, names: bool = True, templates: bool = True
                   ) -> np.ndarray:
    """``n_boot`` seeded replicates (:func:`_rates_of` columns) that draw templates with replacement and, with
    ``names``, each class's names with replacement: a pigeonhole bootstrap over templates × names (Owen 2007).
    ``templates=False`` keeps every template once (the names bootstrap given the templates)."""
    x, name_class, matched = design["x"], design["name_class"], design["matched"].astype(float)
    n_names, n_templates = x.shape[:2]
    n_classes = int(name_class.max()) + 1
    fill_in = _fill_in(x, name_class) if names else None
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, n_boot, 100):
        boot = min(100, n_boot - start)
        v = (rng.multinomial(n_templates, np.full(n_templates, 1.0 / n_templates), size=boot).astype(float)
             if templates else np.ones((boot, n_templates)))
        w = _class_draws(name_class, size=boot, rng=rng) if names else np.ones((boot, n_names))
        member = w[:, :, None] * _one_hot(name_class, n_classes)[None]
        out.append(_rates_of(_pair_sums(x, member, fill_in), v, matched))
    return np.concatenate(out)


def _permuted_excess(design: dict, *, n_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The excess (between − within, over the templates with a within-class pair) under ``n_perm`` seeded random
    reassignments of the names to the classes, class sizes kept, within each set of names that share templates
    (all names, when every template has the same names): its distribution when names are exchangeable between
    classes, i.e. a model with no class effect however much each name moves it. Second array: per draw, the
    same statistic with the names' own classes as the labels (the share of the draw's between-class pairs that are
    between classes in the data minus that share among its within-class pairs), the slope by which a shift δ of
    every observed between-class pair moves the draw's excess (:func:`_inverted_interval`)."""
    x, name_class = design["x"][:, design["matched"]], design["name_class"]
    n_classes = int(name_class.max()) + 1
    present = x.sum(axis=(1, 2)) > 0
    x, name_class = x[present], name_class[present]
    as_labels = x.sum(axis=2)[:, :, None] * _one_hot(name_class, n_classes)[:, None, :]
    blocks = _name_blocks(x)
    rng = np.random.default_rng(seed)
    out, slopes = [], []
    ones = np.ones(x.shape[1])
    for start in range(0, n_perm, 100):
        boot = min(100, n_perm - start)
        codes = np.tile(name_class, (boot, 1))
        for block in blocks:
            codes[:, block] = rng.permuted(codes[:, block], axis=1)
        member = _one_hot(codes, n_classes)
        rates = _rates_of(_pair_sums(x, member), ones[None], ones)
        out.append(rates[:, 1] - rates[:, 2])
        overlap = _rates_of(_pair_sums(as_labels, member), ones[None], ones)
        slopes.append(overlap[:, 1] - overlap[:, 2])
    return np.concatenate(out), np.concatenate(slopes)


def _permutation_p(observed: float, permuted: np.ndarray) -> float:
    """The two-sided permutation p: (1 + draws at least as far from 0 as ``observed``) / (1 + draws)."""
    return float(min((1 + np.sum(np.abs(permuted) >= abs(observed) - TIE)) / (1 + len(permuted)), 1.0))


def _shift_ends(observed: float, permuted: np.ndarray, slope: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per draw b, the δ range [lower_b, upper_b] in which it counts as at least as extreme as the data under
    H0: excess = δ, i.e. |permuted_b − δ·slope_b| ≥ |observed − δ| − :data:`TIE` (the data's between-class pairs
    shifted by δ, then the same draw; a draw with no excess: the empty range). Each range holds ``observed``; the
    ends solve the two linear pieces of |·| on either side of it (slope_b in [−1, 1])."""
    def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:  # den ≥ 0; at 0 the piece never crosses: ±inf
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.where(num >= 0, np.inf, -np.inf))
    t, a = permuted, slope
    upper = np.maximum(ratio(observed + t + TIE, 1 + a), ratio(observed - t + TIE, 1 - a))
    lower = -np.maximum(ratio(-(observed - t - TIE), 1 - a), ratio(-(observed + t - TIE), 1 + a))
    bad = ~(np.isfinite(t) & np.isfinite(a))
    return np.where(bad, np.inf, lower), np.where(bad, -np.inf, upper)


def _inverted_interval(observed: float, permuted: np.ndarray, slope: np.ndarray, *, alpha: float
                       ) -> tuple[float, float]:
    """The ``1 − alpha`` interval for the excess that inverts the permutation test: every δ whose test of
    H0: excess = δ (the data's between-class pairs' disagreement shifted by δ, the SAME draws) has p ≥ ``alpha``.
    p(δ) = (1 + #{b: δ in [lower_b, upper_b]}) / (1 + B) (:func:`_shift_ends`); every range holds ``observed``, so
    the set is one interval, its ends order statistics of the ranges' ends. At δ = 0 this is :func:`_permutation_p`:
    0 lies outside when p < ``alpha`` (up to rounding; :func:`_joint_interval` settles 0 by the p itself)."""
    n = len(permuted)
    counts = np.arange(n + 1)
    need = int(np.argmax((1 + counts) / (1 + n) >= alpha))  # the same float arithmetic as the p
    if need == 0:
        return -np.inf, np.inf
    lower, upper = _shift_ends(observed, permuted, slope)
    low, high = float(np.sort(lower)[need - 1]), float(np.sort(upper)[n - need])
    if low > high:  # too few draws with an excess to accept any δ
        return float("nan"), float("nan")
    return low, high


def _joint_interval(estimate: float, p: float, *, alpha: float, bootstrap: tuple[float, float],
                    permutation: tuple[float, float]) -> tuple[float, float]:
    """The excess's interval from one family of tests of H0: excess = δ. δ = 0: the permutation p (so 0 lies in
    the interval exactly when p ≥ ``alpha``, the verdict's own test). δ ≠ 0: rejected only when both the inverted
    permutation test (``permutation``, :func:`_inverted_interval`; exact at 0, too narrow under a bias, where the
    excess is no longer a degenerate contrast of names) and the two-way bootstrap (``bootstrap``; over-wide at 0,
    covers under a bias) reject it, and — when p rejects 0 — every δ on the far side of 0 from the estimate too
    (the two-sided p read in the estimate's direction). When p rejects, the end at 0 is open: printed ±:data:`TIE`."""
    low, high = np.fmin(bootstrap[0], permutation[0]), np.fmax(bootstrap[1], permutation[1])
    if not (np.isfinite(low) and np.isfinite(high)):
        return float(low), float(high)
    if p >= alpha:
        return float(min(low, 0.0)), float(max(high, 0.0))
    if estimate > 0:
        return float(max(low, TIE)), float(high)
    return float(low), float(min(high, -TIE))


def _equivalence_p(observed: float, permuted: np.ndarray, slope: np.ndarray, *, margin: float) -> float:
    """The TOST p for |excess| < ``margin`` from the same draws: the larger of the one-sided permutation p's of
    H0: excess ≥ margin and H0: excess ≤ −margin, each with the data's between-class pairs shifted to that bound."""
    n = len(permuted)
    high = np.sum(permuted - margin * slope <= observed - margin + TIE)
    low = np.sum(permuted + margin * slope >= observed + margin - TIE)
    return float(min((1 + max(high, low)) / (1 + n), 1.0))


def _name_blocks(x: np.ndarray) -> list[np.ndarray]:
    """Sets of names linked through the templates they fill (connected components of the names–templates graph)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    used = x.sum(axis=2) > 0
    n_names, n_templates = used.shape
    rows, cols = np.nonzero(used)
    size = n_names + n_templates
    graph = coo_matrix((np.ones(len(rows)), (rows, n_names + cols)), shape=(size, size)).tocsr()
    _, labels = connected_components(graph, directed=False)
    labels = labels[:n_names]
    return [np.flatnonzero(labels == value) for value in np.unique(labels[used.any(axis=1)])]


def _cohens_h(p1: float, p2: float) -> float:
    """Cohen's h = 2·asin √p1 − 2·asin √p2 (the effect size of a difference of proportions); NaN if either is."""
    if not (np.isfinite(p1) and np.isfinite(p2)):
        return float("nan")
    return float(2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2)))


def _bootstrap_p(draws: np.ndarray, *, n_boot: int) -> float:
    """Two-sided percentile-bootstrap p for a zero difference: twice the share of replicates on the far side of 0,
    at least 1 / (n_boot + 1)."""
    draws = draws[np.isfinite(draws)]
    if not len(draws) or np.all(draws == 0):
        return 1.0
    p = 2 * min(np.mean(draws <= 0), np.mean(draws >= 0))
    return float(min(1.0, max(p, 1.0 / (n_boot + 1))))


def _interval(draws: np.ndarray, estimate: float, templates: int, *, alpha: float, bounded: bool
              ) -> tuple[float, float, float, float, str, str]:
    """``low, high, se, df, ci_method, no_interval_reason`` of one quantity from its two-way replicates:
    the percentile interval from :data:`SMALL_TEMPLATES` templates on; from :data:`MIN_TEMPLATES` to fewer, the
    replicates' standard deviation (times √(k / (k − 1)), the bootstrap's shrinkage over k clusters) with a
    t(k − 1) quantile; below :data:`MIN_TEMPLATES`, none (the reason says why). ``bounded``: a rate, kept in [0, 1]."""
    nan = float("nan")
    draws = draws[np.isfinite(draws)]
    if templates < MIN_TEMPLATES or len(draws) < 2:
        return (nan, nan, nan, nan, "", f"{templates} template(s): fewer than {MIN_TEMPLATES}, where no template "
                "bootstrap covers (docs/statistics.md)")
    se = float(np.std(draws, ddof=1))
    if templates >= SMALL_TEMPLATES:
        low, high = np.quantile(draws, [alpha / 2, 1 - alpha / 2])
        return float(low), float(high), se, float(templates - 1), "two-way percentile", ""
    se *= math.sqrt(templates / (templates - 1))
    q = stats.t.ppf(1 - alpha / 2, templates - 1)
    low, high = estimate - q * se, estimate + q * se
    if bounded:
        low, high = max(low, 0.0), min(high, 1.0)
    return float(low), float(high), se, float(templates - 1), f"two-way SE, t({templates - 1})", ""


def _no_null_reason(tested: pd.DataFrame, matched: pd.DataFrame, attribute: str) -> str:
    """Why a row has no within-class null ("" when it has one)."""
    if len(tested) == 0:
        return "no template with a pair of mutants of different classes"
    if len(matched) == 0:
        hint = {"country": "; generate with n_country_names >= 2",
                "occupation": ": one mutant per occupation, no natural null"}.get(attribute, "")
        return f"no within-class pair: one mutant per class in every template{hint}"
    return ""


def _templates_words(k: int) -> str:
    return f"{k} template{'s' if k != 1 else ''}"


def _rate_row(block: pd.DataFrame, mutants: pd.DataFrame, *, attribute: str, alpha: float, margin: float,
              n_boot: int, seed: int, interval: str, few_templates: str = "names") -> dict:
    """One model × characteristic of :func:`rates` (before the family correction and the verdict); ``block``: its
    :func:`pair_counts` rows, ``mutants``: its mutant rows."""
    nan = float("nan")
    tested = block[~block["past_window"] & (block["pairs_between"] > 0)]
    matched = tested[tested["pairs_within"] > 0]
    k, n = int(tested["btcs_between"].sum()), int(tested["pairs_between"].sum())
    rate, wilson_low, wilson_high = tkstats.wilson(k, n, alpha=alpha)
    km, nm = int(matched["btcs_between"].sum()), int(matched["pairs_between"].sum())
    kw, nw = int(matched["btcs_within"].sum()), int(matched["pairs_within"].sum())
    with np.errstate(divide="ignore", invalid="ignore"):  # a null rate of 0: statsmodels' ratio is inf, unused
        newcombe = tkstats.rate_difference(km, nm, kw, nw, alpha=alpha)
    rate_within = kw / nw if nw else nan
    no_null = _no_null_reason(tested, matched, attribute)
    row = {"templates": len(tested), "pairs_between": n, "btcs_between": k, "rate_between": rate,
           "rate_wilson_low": wilson_low, "rate_wilson_high": wilson_high, "null_templates": len(matched),
           "pairs_matched": nm, "btcs_matched": km, "rate_matched": km / nm if nm else nan, "pairs_within": nw,
           "btcs_within": kw, "rate_within": rate_within,
           "estimate": newcombe["estimate"], "newcombe_low": newcombe["ci_low"], "newcombe_high": newcombe["ci_high"],
           "effect_size": _cohens_h(km / nm if nm else nan, rate_within),
           "btcs_net": max(k - rate_within * n, 0.0) if nw else nan, "interval": interval,
           "no_test_reason": no_null, "excess_scope": "",
           "n_names": int(mutants.groupby(["group", "fill"] if "fill" in mutants else ["group"]).ngroups)}
    quantiles = [alpha / 2, 1 - alpha / 2]
    if interval == "pairs":
        _, null_low, null_high = tkstats.wilson(kw, nw, alpha=alpha)
        _, matched_low, matched_high = tkstats.wilson(km, nm, alpha=alpha) if nm else (nan, nan, nan)
        z = stats.norm.ppf(1 - alpha / 2)
        se = (newcombe["ci_high"] - newcombe["ci_low"]) / (2 * z)
        return {**row, "rate_low": wilson_low, "rate_high": wilson_high, "matched_low": matched_low,
                "matched_high": matched_high, "null_low": null_low,
                "null_high": null_high, "ci_low": newcombe["ci_low"], "ci_high": newcombe["ci_high"],
                "p_value": newcombe["p_value"] if not no_null else nan, "se": se, "df": float("inf"),
                "ci_method": "Wilson / Newcombe over pairs", "p_method": "score test over pairs" if not no_null else "",
                "excess_scope": "" if no_null else "pairs, as if independent", "no_interval_reason": ""}
    out = {**row, "rate_low": nan, "rate_high": nan, "matched_low": nan, "matched_high": nan, "null_low": nan,
           "null_high": nan, "ci_low": nan,
           "ci_high": nan, "p_value": nan, "se": nan, "df": nan, "ci_method": "", "p_method": "",
           "no_interval_reason": ""}
    if interval == "templates":  # the template-only bootstrap (names fixed), kept for comparison
        if len(tested) >= 2:
            draws = _cluster_ratios(tested["btcs_between"].to_numpy(float), tested["pairs_between"].to_numpy(float),
                                    n_boot=n_boot, seed=seed)
            out["rate_low"], out["rate_high"] = np.nanquantile(draws, quantiles)
        if len(matched) >= 2:
            draws = _cluster_ratios(matched[["btcs_between", "btcs_within"]].to_numpy(float),
                                    matched[["pairs_between", "pairs_within"]].to_numpy(float), n_boot=n_boot,
                                    seed=seed)
            excess = draws[:, 0] - draws[:, 1]
            out["matched_low"], out["matched_high"] = np.nanquantile(draws[:, 0], quantiles)
            out["null_low"], out["null_high"] = np.nanquantile(draws[:, 1], quantiles)
            out["ci_low"], out["ci_high"] = np.nanquantile(excess, quantiles)
            out.update(p_value=_bootstrap_p(excess, n_boot=n_boot), se=float(np.nanstd(excess, ddof=1)),
                       df=float(len(matched) - 1), ci_method="template percentile", excess_scope="templates",
                       p_method="template bootstrap")
        return out
    if not len(tested):
        return {**out, "no_interval_reason": no_null}
    design = _pair_design(mutants[mutants["case_id"].isin(set(tested["case_id"]))])
    draws = _two_way_draws(design, n_boot=n_boot, seed=seed)
    low, high, _, _, rate_method, rate_why = _interval(draws[:, 0], rate, len(tested), alpha=alpha, bounded=True)
    few = few_templates == "names" and interval in ("cluster", "cluster-bootstrap")
    if few and (rate_why or (not no_null and len(matched) < MIN_TEMPLATES)):
        # templates fixed: intervals about these templates, the permutation p's own scope (FEW_TEMPLATES)
        names_only = _two_way_draws(design, n_boot=n_boot, seed=seed, templates=False)
        too_few = f"; fewer than {MIN_GIVEN_NAMES} names in a class for the names bootstrap given the templates"
    if rate_why and few:
        if smallest_class(design, templates=np.ones(len(tested), bool)) < MIN_GIVEN_NAMES:
            rate_why += too_few
        elif not spread(names_only[:, 0]):
            alike = alike_bounds(design, templates=np.ones(len(tested), bool), alpha=alpha)
            if alike is None:
                rate_why += f"; {SAME_LABELS}"
            else:
                (low, high), rate_why = alike["rate"], ""
                rate_method = f"Clopper-Pearson given the {_templates_words(len(tested))}, each class alike"
        else:
            low, high, _ = given_interval(names_only[:, 0], alpha=alpha, bounded=True)
            rate_method, rate_why = f"names bootstrap given the {_templates_words(len(tested))}", ""
    out.update(rate_low=low, rate_high=high, ci_method=rate_method and f"rate: {rate_method}",
               no_interval_reason=rate_why and f"rate and excess: {rate_why}")
    if no_null:
        return out
    null_low, null_high, _, _, _, _ = _interval(draws[:, 2], rate_within, len(matched), alpha=alpha, bounded=True)
    matched_low, matched_high, _, _, _, _ = _interval(draws[:, 1], out["rate_matched"], len(matched), alpha=alpha,
                                                      bounded=True)
    low, high, se, df, method, why = _interval(draws[:, 1] - draws[:, 2], out["estimate"], len(matched),
                                               alpha=alpha, bounded=False)
    scope = "templates and names" if not why else ""
    given = False
    if why and few:
        excess = names_only[:, 1] - names_only[:, 2]
        if smallest_class(design, templates=design["matched"]) < MIN_GIVEN_NAMES:
            why += too_few
        elif not spread(excess):
            alike = alike_bounds(design, templates=design["matched"], alpha=alpha)
            if alike is None:
                why += f"; {SAME_LABELS}"
            else:
                (null_low, null_high), (low, high), se = alike["null"], alike["excess"], float("nan")
                matched_low, matched_high = alike["rate"]
                method, why, given = (f"Clopper-Pearson given the {_templates_words(len(matched))}, each class "
                                      "alike"), "", True
                scope = f"names, given {_templates_words(len(matched))}"
        else:
            null_low, null_high, _ = (given_interval(names_only[:, 2], alpha=alpha, bounded=True)
                                      if spread(names_only[:, 2]) else (nan, nan, nan))
            matched_low, matched_high, _ = (given_interval(names_only[:, 1], alpha=alpha, bounded=True)
                                            if spread(names_only[:, 1]) else (nan, nan, nan))  # no spread: no CI
            low, high, _ = given_interval(excess, alpha=alpha, bounded=False)
            se = df = nan  # no equivalence claim given the templates: where each class is nearly one label the
            # bootstrap's SE and the permuted excesses collapse near 0 (review: "equivalent" in 9-20 % of runs whose
            # true excess was past the margin)
            method, why, given = f"names bootstrap given the {_templates_words(len(matched))}", "", True
            scope = f"names, given {_templates_words(len(matched))}"
    permuted, slope = _permuted_excess(design, n_perm=n_boot, seed=seed)
    p = _permutation_p(out["estimate"], permuted)
    p_method = f"names permuted between classes ({n_boot})"
    if interval == "cluster" and not why:
        low, high = _joint_interval(out["estimate"], p, alpha=alpha, bootstrap=(low, high),
                                    permutation=_inverted_interval(out["estimate"], permuted, slope, alpha=alpha))
        method = f"{method} + inverted permutation test, 0 by the p"
        # no SE (given the templates: the names bootstrap or Clopper-Pearson bounds): no equivalence claim, the
        # permutation TOST alone is degenerate there (every permuted excess near 0)
        p_equivalence = (max(_equivalence_p(out["estimate"], permuted, slope, margin=margin),
                             tkstats.equivalence_p(estimate=out["estimate"], se=se, df=df, margin=margin))
                         if np.isfinite(se) else nan)
    else:
        p_equivalence = nan
    if rate_method and method == rate_method:
        methods = method
    else:
        methods = "; ".join(filter(None, [rate_method and f"rate: {rate_method}", method and f"excess: {method}"]))
    rate_reason = out["no_interval_reason"]
    if given and rate_reason:  # the excess and null have theirs, given the templates
        rate_reason = rate_reason.replace("rate and excess: ", "rate: ", 1)
    reason = rate_reason or (why and f"excess and null, over the templates with a within-class pair: {why}")
    return {**out, "null_low": null_low, "null_high": null_high, "matched_low": matched_low,
            "matched_high": matched_high, "ci_low": low, "ci_high": high, "se": se,
            "df": df, "ci_method": methods, "excess_scope": scope, "no_interval_reason": reason, "p_value": p,
            "p_method": p_method, "p_equivalence": p_equivalence}


def rates(scored: pd.DataFrame, *, alpha: float = tkstats.ALPHA, margin: float = tkstats.MARGIN,
          correction: str = "holm", n_boot: int = tkstats.N_BOOT, seed: int = 0,
          interval: str = "cluster", few_templates: str = "names") -> pd.DataFrame:
    """BTC rates with intervals and their placebo null, per model × characteristic (columns :data:`RATE_COLUMNS`).

    What: ``rate_between`` = BTCs / pairs of mutants of different classes (over the templates tested, i.e. not past
    the model's window); ``rate_within`` = the same rate between mutants of the SAME class (two female names; two
    names of one country, which needs ``n_country_names >= 2``) — a name-sensitive but unbiased model has BTCs too,
    and this is how many. Every column reads :func:`~toolkit.studies.biasfinder.counting.rate_rows` (a gender
    template that crosses every name with every noun keeps its own noun pair: crossed fills make within-class pairs
    alike), so ``btcs_between`` can be below Table 4's BTCs.
    Occupation has no natural null (one mutant per occupation): its within columns are 0/NaN.
    The null is compared on the templates that have both kinds of pairs (``null_templates``; gender templates that
    swap only pronouns and nouns have one mutant per class): ``estimate`` (the excess) = ``btcs_matched /
    pairs_matched − rate_within``, i.e. ``rate_matched`` (the rate between classes on those templates, with
    ``matched_low/high`` from the same replicates as the null's) − ``rate_within``; ``effect_size`` is Cohen's h
    between those two rates; ``btcs_net`` = BTCs − 
    ``rate_within`` × pairs, at least 0 (counts net of the null; the raw count stays in ``btcs_between``).
    Names and templates are both samples: BiasFinder fills every template with the same names, so a
    name's own effect repeats in every template, and a test that resamples templates alone reads it as bias (52-60 %
    false alarms for a name-sensitive unbiased model). ``interval="cluster"`` (default): ``rate_low/high``,
    ``null_low/high`` and ``ci_low/high`` come from ``n_boot`` seeded two-way replicates that draw templates and,
    within each class, names with replacement (a pigeonhole bootstrap; two copies of one drawn name are not a
    pair): the percentile interval from :data:`SMALL_TEMPLATES` templates on, a t(templates − 1) interval on the
    replicates' SE from :data:`MIN_TEMPLATES`; below it ``few_templates="names"`` (default, :data:`FEW_TEMPLATES`)
    resamples the names alone with the templates fixed (an interval about these templates, the scope of the
    permutation p below; needs :data:`MIN_GIVEN_NAMES` names per class; where each class is labelled alike the
    bootstrap has no spread and Clopper-Pearson bounds stand in:
    :func:`~toolkit.studies.biasfinder.given_templates.alike_bounds`), and ``"none"`` gives none
    (``no_interval_reason`` says why); ``ci_method`` names the one used and ``excess_scope`` what the excess's
    interval generalises over (``templates and names``; ``names, given 1 template``).
    ``p_value`` is a permutation test of the excess: the names are reassigned to the classes at random (``n_boot``
    times, class sizes kept, within each set of names that share templates), the null of a model whose
    names differ but not by class; exact in any number of templates, its type I error was 2-7 % at alpha = 5 % in
    the same-names design (docs/statistics.md). The excess's ``ci_low/high`` invert one family of tests of
    H0: excess = δ: at δ = 0 that p (0 lies inside exactly when p ≥ ``alpha``, so no ``a higher`` row holds 0);
    elsewhere δ is rejected only when both the permutation test with the data's between-class pairs shifted by δ
    (the same draws) and the two-way bootstrap reject it, and when p rejects 0 so is every δ beyond 0 from the
    estimate (the open end at 0 is printed ±1e-12). At a zero excess the excess is a degenerate contrast of names:
    the bootstrap alone over-counts its spread there, the permutation alone misses a bias's first-order spread.
    The verdict's equivalence test is the larger of the permutation TOST p (the same shifted draws) and the t TOST
    on the bootstrap's SE, corrected over the family as ``p_adjusted``. ``interval="cluster-bootstrap"``: the
    two-way bootstrap interval alone and the uncorrected t TOST (the previous default), for comparison.
    ``interval="templates"``: the template-only bootstrap (names fixed) with its bootstrap p, kept for comparison;
    ``interval="pairs"``: Wilson (:func:`toolkit.stats.wilson`) and Newcombe (:func:`toolkit.stats.rate_difference`)
    treating pairs as independent (too narrow when templates differ). ``rate_wilson_*`` and ``newcombe_*`` always
    hold the pair-level ones. ``no_test_reason``: why a row has no null (no within-class pair: occupation, country
    with ``n_country_names`` = 1, gender templates that swap only pronouns); ``n_names``: the names (class × fill).
    ``p_adjusted``: ``correction`` (:data:`toolkit.stats.METHODS`) over the family of every row with a p
    (:data:`RATE_FAMILY`); ``verdict`` (:func:`toolkit.stats.verdict` at ``margin``, its equivalence test as above;
    ``templates``/``pairs``: the t TOST on the interval's SE): ``a higher`` = more BTCs between classes than within.
    """
    if interval not in RATE_INTERVALS:
        raise unknown("rate interval", interval, RATE_INTERVALS)
    if few_templates not in FEW_TEMPLATES:
        raise unknown("few-templates interval", few_templates, FEW_TEMPLATES)
    alpha, margin, n_boot = checks.statistics(correction=correction, margin=margin, alpha=alpha, n_boot=n_boot)
    seed = checks.seed(seed)
    scored = rate_rows(scored)  # crossed name × noun fills set aside (counting.rate_rows)
    pairs = pair_counts(scored)
    mutants = _mutants(scored, required=("model", "label", "case_id", "group", "attribute"))
    by_block = dict(list(mutants.groupby(["model", "attribute"], sort=False)))
    rows = [{"model": model, "attribute": attribute,
             **_rate_row(block, by_block[(model, attribute)], attribute=attribute, alpha=alpha, margin=margin,
                         n_boot=n_boot, seed=seed, interval=interval, few_templates=few_templates)}
            for (model, attribute), block in pairs.groupby(["model", "attribute"], sort=False)]
    out = pd.DataFrame(rows, columns=list(RATE_COLUMNS) + ["se", "df", "p_equivalence"])
    out["p_adjusted"] = tkstats.adjust(out["p_value"].to_numpy(float), method=correction)
    # the permutation TOST p, corrected over the same family as the p (as the EEC study does); elsewhere the TOST on
    # the interval's se and df
    p_equivalence = out["p_equivalence"].to_numpy(float)
    out["p_equivalence"] = (tkstats.adjust(p_equivalence, method=correction) if np.isfinite(p_equivalence).any()
                            else p_equivalence)
    identical = {key: _identical_scores(block) for key, block in by_block.items()}
    out["verdict"] = [tkstats.IDENTICAL if identical.get((r.model, r.attribute), False) else
                      tkstats.verdict(estimate=r.estimate, se=r.se, df=r.df, p_adjusted=r.p_adjusted, margin=margin,
                                      alpha=alpha, p_equivalence=r.p_equivalence
                                      if np.isfinite(r.p_equivalence) else None)
                      if np.isfinite(r.estimate) and np.isfinite(r.p_value)
                      else "inconclusive" for r in out.itertuples()]
    return out.loc[:, list(RATE_COLUMNS)]


def _identical_scores(mutants: pd.DataFrame) -> bool:
    """Whether every template's mutants got one score (a model blind to names, pronouns and nouns): no BTC can
    arise and there is nothing to test — ``identical scores (no test needed)``, as in the EEC, PSA and the
    multilingual study. False without scores (labels alone cannot say it)."""
    if "score" not in mutants.columns or mutants.empty:
        return False
    spread = mutants.groupby("case_id", sort=False)["score"].agg(lambda s: float(s.max() - s.min()))
    return bool((spread <= 0).all())


def table4_rates(table: pd.DataFrame, rate_table: pd.DataFrame) -> pd.DataFrame:
    """Table 4 (:func:`table4`, the paper's columns and values unchanged) with each row's BTC rate and interval, its
    within-class null rate, the excess with its interval, ``btcs_net`` and the verdict from :func:`rates`
    (columns :data:`TABLE4_RATE_COLUMNS`; NaN where a row has no rate). Table 4's columns count every mutant; the
    rate columns read :func:`~toolkit.studies.biasfinder.counting.rate_rows`, so where a template crosses names with
    nouns (the paper preset's ``noun_fills="all"``) ``btcs`` holds pairs the rates do not read (the rates table's
    ``pairs_between`` and ``btcs_between`` say how many they do)."""
    renamed = rate_table.rename(columns={"rate_between": "btc_rate", "rate_low": "btc_rate_low",
                                         "rate_high": "btc_rate_high", "rate_within": "null_rate",
                                         "estimate": "excess", "ci_low": "excess_low", "ci_high": "excess_high"})
    extra = list(TABLE4_RATE_COLUMNS[len(TABLE4_COLUMNS):])
    merged = table.loc[:, list(TABLE4_COLUMNS)].merge(renamed.loc[:, ["model", "attribute", *extra]],
                                                      on=["model", "attribute"], how="left")
    return merged.loc[:, list(TABLE4_RATE_COLUMNS)]



def between_replicates(scored: pd.DataFrame, *, cells: pd.DataFrame, models: list[str], weights: np.ndarray,
                       rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """BTCs and pairs of mutants of different classes per replicate × model (two ``(replicates, models)`` arrays)
    when the templates are drawn ``weights`` (replicates × templates) and, within each class, the names with
    replacement from ``rng``: the two-way pigeonhole bootstrap of :func:`rates` (a pair weighs by the product of
    its two names' draws; names as :func:`_pair_design`, one (class, fill) in every template it fills).
    ``cells``: the (``model``, ``template``) cells read, ``template`` the index of ``weights``' column; the rows
    :func:`rate_rows` keeps."""
    mutants = _mutants(rate_rows(scored), required=("model", "label", "case_id", "group", "attribute"))
    keys = pd.MultiIndex.from_arrays([mutants["model"].astype(str), mutants["case_id"].astype(str)])
    wanted = pd.Series(cells["template"].to_numpy(int),
                       index=pd.MultiIndex.from_arrays([cells["model"].astype(str), cells["case_id"].astype(str)]))
    template = wanted.reindex(keys).to_numpy(float)
    keep = ~np.isnan(template)
    mutants, template = mutants[keep], template[keep].astype(int)
    name_codes, class_codes = _names(mutants)
    label_codes, labels = pd.factorize(mutants["label"].astype(str), sort=True)
    n_boot, n_templates = weights.shape
    n_classes = int(class_codes.max()) + 1 if len(class_codes) else 1
    member = _class_draws(class_codes, size=n_boot, rng=rng)[:, :, None] * _one_hot(class_codes, n_classes)[None]
    model_codes = mutants["model"].astype(str).map({m: i for i, m in enumerate(models)}).to_numpy()
    btcs_, pairs = np.zeros((n_boot, len(models))), np.zeros((n_boot, len(models)))
    for m in range(len(models)):
        rows = model_codes == m
        x = np.zeros((len(class_codes), n_templates, max(len(labels), 1)))
        np.add.at(x, (name_codes[rows], template[rows], label_codes[rows]), 1.0)
        for start in range(0, n_boot, 100):
            chunk = slice(start, min(start + 100, n_boot))
            sums = _pair_sums(x, member[chunk])
            btcs_[chunk, m] = (weights[chunk] * sums["btcs_between"]).sum(1)
            pairs[chunk, m] = (weights[chunk] * sums["pairs_between"]).sum(1)
    return btcs_, pairs
