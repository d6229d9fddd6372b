"""Agreement across methods: does "most biased" depend on the study that measured it?

Each study's headline measure ranks the same models; Kendall's τ-b between two studies' rankings says how far they
agree, with a seeded bootstrap interval that resamples each study's own sampling units (EEC templates, PSA
sentences, BiasFinder templates, BTC-SAM cases) — the uncertainty of the measurements, not of the model list.

Headlines (each a ratio of sums over units, so a bootstrap replicate is a weighted sum; :data:`MEASURES`):

- ``eec``: |mean Δ| over the paper's pairs, gender and race averaged (valence on [0, 1]; :mod:`toolkit.studies.eec`).
- ``psa``: ScoreDev, the mean over sentences of the standard deviation of the scores across names (Prabhakaran et
  al. 2019).
- ``biasfinder``: the BTC rate, BTCs per pair of mutants of different classes, over the gender templates (or the
  attribute asked for).
- ``btcsam``: the failure rate over cases at ``theta`` under the released rule (:mod:`toolkit.studies.btcsam`).

Higher = more biased (or more sensitive) in every one; rank 1 = the highest.

Inputs: scored tables of the studies (``result.scored``), any subset of them, sharing at least three models.
Outputs: :data:`HEADLINE_COLUMNS` (per study × model: the headline with a percentile interval and its rank) and
:data:`TAU_COLUMNS`, per pair of studies:

- ``tau``: τ-b over the shared models; ``p_value``: its exact two-sided permutation p (:func:`exact_p`: every
  ordering of one study's headlines up to 20,000 orderings, e.g. all 40,320 of 8 models; ties kept), and ``p_min``,
  the smallest p the number of models and their ties allow (4 models: 2/24 = 0.083 — no agreement can be shown).
- ``state`` (:data:`STATES`) and ``reason``: ``undefined`` (a study gives every model the same headline, e.g. no
  model has a BTC), ``too few models`` (``p_min`` ≥ alpha), ``ties`` (τ-b counts only the pairs both studies order;
  a lexicon that ignores names sits at 0 with the others), ``assessable``.
- ``ci_low``/``ci_high``: a percentile interval from replicates that resample both each study's units and the
  models (:func:`two_way_taus`: the models are a sample of models); none below :data:`MIN_MODELS_CI` models or
  where τ is undefined in over 10 % of the replicates (the reason says so). Resampling the units alone covered the
  population τ in 18-46 % of simulated studies of 6-20 models; over units and models, 96-99 %.
- ``share_positive``/``share_undefined``: over replicates that resample the units only (the models fixed): how often
  the measurement noise alone leaves τ > 0, or undefined.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats as sps

from toolkit import checks
from toolkit.errors import InputError, unknown
from toolkit.studies.biasfinder import pair_counts
from toolkit.studies.btcsam import failures
from toolkit.studies.eec import ATTRIBUTES, pairs

MEASURES = {"eec": "EEC |mean Δ| (gender, race)", "psa": "PSA ScoreDev", "biasfinder": "BiasFinder BTC rate",
            "btcsam": "BTC-SAM failure rate"}
UNIT_COLUMNS = ("model", "unit", "part", "num", "den")
HEADLINE_COLUMNS = ("study", "measure", "model", "estimate", "ci_low", "ci_high", "rank", "n_units")
TAU_COLUMNS = ("study_a", "study_b", "n_models", "tau", "ci_low", "ci_high", "share_positive", "share_undefined",
               "p_value", "p_min", "state", "reason")
STATES = ("assessable", "ties", "too few models", "undefined")
MIN_MODELS_CI = 6
"""Fewer shared models than this: no τ interval (``reason`` says why); see :func:`agreement`."""


def units_eec(scored: pd.DataFrame) -> pd.DataFrame:
    """Per model × template × attribute: the sum and count of the paper's Δ (:func:`toolkit.studies.eec.pairs`)."""
    frames = []
    for attribute in ATTRIBUTES:
        table = pairs(scored, attribute=attribute)
        grouped = table.groupby(["model", "template_id"], observed=True)["delta"].agg(["sum", "size"]).reset_index()
        frames.append(pd.DataFrame({"model": grouped["model"], "unit": grouped["template_id"].astype(str),
                                    "part": attribute, "num": grouped["sum"], "den": grouped["size"]}))
    return pd.concat(frames, ignore_index=True).loc[:, list(UNIT_COLUMNS)]


def units_psa(scored: pd.DataFrame) -> pd.DataFrame:
    """Per model × sentence: the standard deviation of the scores across names (one ScoreDev term)."""
    perturbed = scored[~scored["is_original"].astype(bool)]
    sd = perturbed.groupby(["model", "case_id"], observed=True)["score"].std(ddof=1).reset_index()
    return pd.DataFrame({"model": sd["model"], "unit": sd["case_id"].astype(str), "part": "all",
                         "num": sd["score"], "den": 1.0}).loc[:, list(UNIT_COLUMNS)]


def units_biasfinder(scored: pd.DataFrame, *, attribute: str = "gender") -> pd.DataFrame:
    """Per model × template of ``attribute``: BTCs and the pairs of mutants of different classes
    (:func:`toolkit.studies.biasfinder.pair_counts`)."""
    counts = pair_counts(scored)
    counts = counts[counts["attribute"] == attribute]
    if counts.empty:
        raise InputError(f"the BiasFinder table has no {attribute!r} mutants.", fix="pass attribute= of one it has.")
    return pd.DataFrame({"model": counts["model"], "unit": counts["case_id"].astype(str), "part": attribute,
                         "num": counts["btcs_between"].astype(float), "den": counts["pairs_between"].astype(float)})


def units_btcsam(scored: pd.DataFrame, *, theta: float = 0.2, rule: str = "published") -> pd.DataFrame:
    """Per model × case: whether the case fails (:func:`toolkit.studies.btcsam.failures`)."""
    table = failures(scored, theta=theta, rule=rule)
    return pd.DataFrame({"model": table["model"], "unit": (table["test_set"].astype(str) + "/" +
                                                          table["case_id"].astype(str)),
                         "part": "all", "num": table["failed"].astype(float), "den": 1.0})


UNITS = {"eec": units_eec, "psa": units_psa, "biasfinder": units_biasfinder, "btcsam": units_btcsam}


def _headline(num: np.ndarray, den: np.ndarray, absolute: bool) -> np.ndarray:
    """``(replicates, models, parts)`` sums → per replicate × model: the mean over parts of (|)num / den(|)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = num / den
    return np.nanmean(np.abs(ratio) if absolute else ratio, axis=-1)


def _replicates(units: pd.DataFrame, models: list[str], *, n_boot: int, rng: np.random.Generator,
                absolute: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """The headline per model on the data and on ``n_boot`` replicates that resample the units with replacement
    (the same draw for every model: the rankings are compared on one resample)."""
    ids = {u: i for i, u in enumerate(sorted(set(units["unit"])))}
    parts = sorted(set(units["part"]))
    num = np.zeros((len(ids), len(models), len(parts)))
    den = np.zeros_like(num)
    index = (units["unit"].map(ids).to_numpy(), units["model"].map({m: i for i, m in enumerate(models)}).to_numpy(),
             units["part"].map({p: i for i, p in enumerate(parts)}).to_numpy())
    np.add.at(num, index, units["num"].to_numpy(dtype=float))
    np.add.at(den, index, units["den"].to_numpy(dtype=float))
    point = _headline(num.sum(0)[None], den.sum(0)[None], absolute)[0]
    weights = rng.multinomial(len(ids), np.full(len(ids), 1 / len(ids)), size=n_boot).astype(float)
    boot = _headline(np.einsum("bu,ump->bmp", weights, num), np.einsum("bu,ump->bmp", weights, den), absolute)
    return point, boot, len(ids)


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


def exact_p(x: np.ndarray, y: np.ndarray, *, n_resamples: int = 20_000, seed: int = 0) -> tuple[float, float]:
    """Two-sided permutation p of Kendall's τ-b between ``x`` and ``y`` (``scipy.stats.permutation_test``, pairings:
    every ordering of ``y`` when there are at most ``n_resamples``, e.g. all 40,320 for 8 models; ties kept as they
    are) and the smallest p any ordering could reach (p_min: the share of orderings at the largest |τ|). With 4
    models and no ties p_min = 2/24 = 0.083: no agreement can be shown at alpha = 0.05."""
    i, j = np.triu_indices(len(x), k=1)
    sx = np.sign(x[i] - x[j])

    def statistic(values, axis=-1):
        values = np.moveaxis(values, axis, -1)
        return np.abs((np.sign(values[..., i] - values[..., j]) * sx).sum(-1))

    result = sps.permutation_test((np.asarray(y, dtype=float),), statistic, permutation_type="pairings",
                                  vectorized=True, n_resamples=n_resamples, alternative="greater",
                                  random_state=np.random.default_rng(seed))
    null = np.asarray(result.null_distribution)
    return float(result.pvalue), float(np.mean(null >= null.max() - 1e-9))


def _assess(a: str, b: str, x: np.ndarray, y: np.ndarray, *, alpha: float) -> tuple[str, str, float, float]:
    """``state, reason, p, p_min`` of one pair of studies' point headlines ``x`` and ``y`` (:data:`STATES`)."""
    n = len(x)
    flat = [s for s, v in ((a, x), (b, y)) if len(np.unique(v)) == 1]
    if flat:
        return ("undefined", f"{' and '.join(flat)} gives every model the same headline "
                f"({(x if flat[0] == a else y)[0]:.3g}): no ranking", float("nan"), float("nan"))
    p, p_min = exact_p(x, y)
    tied = [f"{s} ranks {n - len(np.unique(v)) + 1} of {n} models equal" for s, v in ((a, x), (b, y))
            if len(np.unique(v)) < n]
    if p_min >= alpha:
        why = f"{n} models" + (f" ({'; '.join(tied)})" if tied else "")
        return ("too few models", f"{why}: the smallest exact p is {p_min:.3g} ≥ alpha = {alpha:g}, so no "
                "agreement can be shown", p, p_min)
    if tied:
        return "ties", "; ".join(tied) + ": τ-b counts only the pairs both studies order", p, p_min
    return "assessable", "", p, p_min


@dataclass(frozen=True)
class Agreement:
    """Headlines per study × model and Kendall's τ per pair of studies."""

    headlines: pd.DataFrame
    tau: pd.DataFrame


def agreement(*, scored: Mapping[str, pd.DataFrame], n_boot: int = 2000, seed: int = 0, alpha: float = 0.05,
              theta: float = 0.2, attribute: str = "gender") -> Agreement:
    """Rank the models every study in ``scored`` (study name → its scored table) shares by the study's headline
    (:data:`MEASURES`) and compare the rankings (module docstring). ``theta``: BTC-SAM's threshold; ``attribute``:
    BiasFinder's characteristic."""
    n_boot, seed, alpha = checks.n_boot(n_boot), checks.seed(seed), checks.alpha(alpha)
    for name in scored:
        if name not in UNITS:
            raise unknown("study", name, UNITS)
    if len(scored) < 2:
        raise InputError("agreement needs the scored tables of at least two studies.",
                         fix="pass scored={'eec': eec_result.scored, 'psa': psa_result.scored, …}.")
    units = {name: (UNITS[name](table, theta=theta) if name == "btcsam" else
                    UNITS[name](table, attribute=attribute) if name == "biasfinder" else UNITS[name](table))
             for name, table in scored.items()}
    models = sorted(set.intersection(*(set(u["model"]) for u in units.values())))
    if len(models) < 3:
        raise InputError(f"the studies share {len(models)} models ({', '.join(models) or 'none'}); a ranking needs 3.",
                         fix="score the same three or more models in every study.")
    rng = np.random.default_rng(seed)
    rows, boots, points = [], {}, {}
    for name, table in units.items():
        point, boot, n_units = _replicates(table[table["model"].isin(models)], models, n_boot=n_boot, rng=rng,
                                           absolute=name == "eec")
        boots[name], points[name] = boot, point
        low, high = np.nanquantile(boot, [alpha / 2, 1 - alpha / 2], axis=0)
        ranks = sps.rankdata(-point, method="min")
        rows += [{"study": name, "measure": MEASURES[name], "model": m, "estimate": float(point[i]),
                  "ci_low": float(low[i]), "ci_high": float(high[i]), "rank": int(ranks[i]), "n_units": n_units}
                 for i, m in enumerate(models)]
    taus = []
    picks = rng.integers(0, len(models), (n_boot, len(models)))  # models drawn with replacement, one draw per replicate
    for a, b in combinations(units, 2):
        draws = tau_b(boots[a], boots[b])  # the units resampled, the models fixed
        state, reason, p, p_min = _assess(a, b, points[a], points[b], alpha=alpha)
        tau = float(tau_b(points[a], points[b])[0])
        low = high = np.nan
        if state != "undefined" and len(models) < MIN_MODELS_CI:
            reason = "; ".join(filter(None, [reason, f"no interval: {len(models)} models, fewer than "
                                             f"{MIN_MODELS_CI}, and τ over so few resampled models is degenerate"]))
        elif state != "undefined":
            both = two_way_taus(boots[a], boots[b], picks=picks)
            if np.isfinite(both).mean() >= 0.9:
                low, high = np.nanquantile(both, [alpha / 2, 1 - alpha / 2])
            else:
                reason = "; ".join(filter(None, [reason, f"no interval: τ undefined in "
                                                 f"{np.mean(~np.isfinite(both)):.0%} of the replicates"]))
        taus.append({"study_a": a, "study_b": b, "n_models": len(models), "tau": tau, "ci_low": float(low),
                     "ci_high": float(high), "share_positive": float(np.mean(draws > 0)),
                     "share_undefined": float(np.mean(np.isnan(draws))), "p_value": p, "p_min": p_min,
                     "state": state, "reason": reason})
    return Agreement(headlines=pd.DataFrame(rows, columns=list(HEADLINE_COLUMNS)),
                     tau=pd.DataFrame(taus, columns=list(TAU_COLUMNS)))


def run(*, models: list[str], psa_n: int = 56, corpus: str = "sample", btcsam_dir: str | None = "auto",
        released: tuple[str, ...] = ("baseline",), n_boot: int = 2000, seed: int = 0, theta: float = 0.2,
        cache: bool | str = True, progress: bool | None = None) -> tuple[Agreement, dict[str, pd.DataFrame]]:
    """Run the four studies on ``models`` with their defaults — EEC (all sentences), PSA on ``corpus`` (``psa_n``
    sentences), BiasFinder on ``corpus``, BTC-SAM on the toolkit's sets and the ``released`` BTC-SAM sets found in
    ``btcsam_dir`` (skipped when absent) — and compare them (:func:`agreement`). Returns the agreement and the
    scored tables by study."""
    from toolkit import biasfinder, btcsam, eec, psa  # defers matplotlib (the study fronts draw)

    models = checks.model_list(models)
    scored = {"eec": eec.run(models=models, subsets=["all"], cache=cache, progress=progress).scored,
              "psa": psa.run(corpus=corpus, models=models, n=psa_n, seed=seed, n_boot=50, cache=cache,
                             progress=progress).scored,
              "biasfinder": biasfinder.run(corpus=corpus, models=models, seed=seed, cache=cache,
                                           progress=progress).scored}
    sets = btcsam.toolkit_sets(psa_n=psa_n, btcsam_dir=btcsam_dir, released=list(released))
    scored["btcsam"] = btcsam.run(sets=sets, models=models, theta=theta, cache=cache, progress=progress).scored
    return agreement(scored=scored, n_boot=n_boot, seed=seed, theta=theta), scored


def write(result: Agreement, out_dir=None, *, scored: Mapping[str, pd.DataFrame], figures_dir=None,
          settings: dict | None = None) -> list:
    """Write ``agreement_headlines.csv``, ``agreement_tau.csv``, ``provenance.json`` (default folder
    ``data/results/agreement``) and the two figures (default ``figures/``)."""
    from toolkit import plots, results  # defers matplotlib (figures are drawn only when written)

    first = next(iter(scored.values()))
    models = sorted(set(result.headlines["model"]))
    return results.write(study="agreement", tables={"agreement_headlines": result.headlines,
                                                    "agreement_tau": result.tau},
                         axes={"agreement_tau": plots.agreement_tau(result.tau),
                               "agreement_ranks": plots.agreement_ranks(result.headlines)},
                         scored=first[first["model"].isin(models)], models=models,
                         settings={"study": "agreement", "measures": {s: MEASURES[s] for s in scored},
                                   **(settings or {})}, out_dir=out_dir, figures_dir=figures_dir)
