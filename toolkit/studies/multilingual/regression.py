"""The regression of Câmara et al. 2022 as the paper ran it, a sound version beside it, and a simulation in the
corpus's real design that shows which one covers.

**The paper's regression** (:func:`paper_fit`, labelled ``paper``): per language × system, the name sentences'
scores y regressed on three indicators — race (1 = Latino / Arab / African-American), gender (1 = female) and their
product — by maximum likelihood of a beta regression with a logit link and **no intercept**: log-likelihood
Σ [lnΓ(φ) − lnΓ(μφ) − lnΓ((1 − μ)φ) + (μφ − 1) ln y + ((1 − μ)φ − 1) ln(1 − y)], μ = expit(Xβ), with 10⁻⁶ added
inside every lnΓ and ln (so y = 0 or 1 does not fail), φ ≥ 0, started at β = (1, 1, 1), φ = 1 (scipy's L-BFGS-B).
Standard errors as ordinary least squares on the response scale: σ̂² = Σ (y − μ̂)² / (n − k − 1) with k = 3,
Var(β̂) = σ̂² (XᵀX)⁻¹, t = β̂ / se, two-sided p from Student's t with n − 4 df. Reimplemented from the paper's
description and its released analysis; what it measures:

- without an intercept, the majority male cell is held at μ = 0.5, so the "race" coefficient is logit(the
  minoritized men's mean) and "gender" logit(the majority women's mean): they test whether a cell's mean score is
  0.5, not whether groups differ;
- the standard errors take the response-scale residual variance for a logit-scale coefficient and every sentence as
  independent, though a name's sentences share the name (and a template's the template).

**The sound version** (:func:`sound_fit`, labelled ``sound``): a fractional logit (a binomial GLM with a logit link
on y in [0, 1], quasi-likelihood; Papke & Wooldridge 1996; ``statsmodels``) with an intercept, so ``race``, ``gender``
and ``interaction`` are differences on the logit scale between the cells; standard errors clustered by name (the
unit race and gender are assigned to; t with names − 4 df; the default, ``cluster="name"``) or two-way by template
and name (Cameron, Gelbach & Miller 2011; t with G − 1 df, G the smaller number of clusters; ``"two-way"``, liberal
with the corpus's 11 templates). Exact 0 and 1 scores (clipped regressors) need no epsilon.

**Simulation** (:func:`simulate`): the corpus's own name rows (its templates, names, emotion words and unbalanced
cells) with scores drawn from a logit model with template, name and word random effects and residual noise; a
known race, gender and interaction effect (0 for type I error). The truth of the sound model is the logit contrast
of the population cell means (integrated over the random effects); the paper's coefficients are read as the paper
reads them, as the race / gender / interaction effects. Results in ``docs/statistics.md``.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import optimize, special
from scipy import stats as sps

from toolkit import checks
from toolkit import stats as tkstats
from toolkit.cases import with_scores
from toolkit.errors import InputError, SchemaError, unknown

TERMS = ("race", "gender", "interaction")
COLUMNS = ("language", "source", "model", "task", "method", "term", "estimate", "se", "ci_low", "ci_high",
           "statistic", "df", "p_value", "p_adjusted", "n", "label", "reason")
PAPER = "paper"
SOUND = "sound"
LABELS = {PAPER: "Câmara et al. 2022 as run: beta regression, no intercept, OLS standard errors",
          SOUND: "fractional logit with intercept, SE clustered by name (or two-way), t reference"}
MINORITIZED = ("Latino", "Arab", "African-American", "minoritized")
EPS = 1e-6


IDENTICAL_REASON = "identical scores: the groups' scores do not differ (no test needed)"
"""The ``reason`` of a sound term whose estimate and standard error are both numerically 0 (:data:`NUMERIC_ZERO`):
the system scores the groups alike (a lexicon that does not see the person); the term is 0 with p 1."""
NUMERIC_ZERO = 1e-9
"""An estimate and standard error both at most this (logit scale) are rounding, not an effect: a person-blind
system's fit gives ±1e-16 with an even smaller standard error, which a t-test reads as 'significant'."""
SEPARATION_REASON = ("perfect separation in the fractional logit (statsmodels' PerfectSeparationWarning: scores at 0 "
                     "or 1 that a cell predicts exactly); its estimate and interval may not be identified")
"""The ``reason`` of the sound fit's terms when statsmodels warned of perfect separation (said per row, not as a
raw warning)."""


class TooSmallError(InputError):
    """The design has too few templates or names for the sound fit's clustered standard errors, or too few scores
    for the paper's fit (no residual degree of freedom)."""


def design_matrix(rows: pd.DataFrame) -> np.ndarray:
    """The three indicators of the paper, one row per sentence: race (minoritized = 1), gender (female = 1), both."""
    race = rows["race"].isin(MINORITIZED).to_numpy(dtype=float)
    female = (rows["gender"] == "female").to_numpy(dtype=float)
    return np.column_stack([race, female, race * female])


def _negative_loglik(params: np.ndarray, y: np.ndarray, x: np.ndarray) -> float:
    beta, phi = params[:-1], params[-1]
    mu = special.expit(x @ beta)
    return -float(np.sum(special.gammaln(phi + EPS) - special.gammaln(mu * phi + EPS)
                         - special.gammaln((1 - mu) * phi + EPS) + (mu * phi - 1) * np.log(y + EPS)
                         + ((1 - mu) * phi - 1) * np.log(1 - y + EPS)))


def paper_fit(y: Sequence[float] | np.ndarray, x: np.ndarray, *, alpha: float = tkstats.ALPHA) -> pd.DataFrame:
    """The paper's fit of scores ``y`` on the indicator matrix ``x`` (:func:`design_matrix`): per term, ``estimate,
    se, statistic, df, p_value, ci_low, ci_high`` (the interval the same t gives) and ``phi`` (the precision)."""
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] != len(y) or x.shape[1] != 3:
        raise InputError(f"the paper's regression needs n × 3 indicators for n scores; got {x.shape} for {len(y)}.",
                         fix="build x with design_matrix().")
    if len(y) <= x.shape[1] + 1:
        raise TooSmallError(f"the paper's regression needs more than {x.shape[1] + 1} scores (its residual degrees "
                            f"of freedom); got {len(y)}.", fix="score more templates (leave max_templates unset).")
    start = np.ones(x.shape[1] + 1)
    bounds = [(None, None)] * x.shape[1] + [(0.0, None)]
    fit = optimize.minimize(_negative_loglik, x0=start, args=(y, x), bounds=bounds)
    beta = fit.x[:-1]
    n, k = len(y), x.shape[1]
    residual = y - special.expit(x @ beta)
    sigma2 = float(residual @ residual) / (n - k - 1)
    se = np.sqrt(np.diag(sigma2 * np.linalg.inv(x.T @ x)))
    t = beta / se
    df = float(n - k - 1)
    q = sps.t.ppf(1 - alpha / 2, df)
    return pd.DataFrame({"term": list(TERMS), "estimate": beta, "se": se, "statistic": t, "df": df,
                         "p_value": 2 * sps.t.sf(np.abs(t), df), "ci_low": beta - q * se, "ci_high": beta + q * se,
                         "phi": float(fit.x[-1])})


CLUSTERS = ("name", "two-way")
"""How :func:`sound_fit` clusters: by name (the unit race and gender are assigned to; df = names − 4, the cells; the
default: 6-10 % type I error and 88-94 % coverage in the corpus's design, docs/statistics.md), or by template and by
name (Cameron, Gelbach & Miller 2011: V_t + V_n − V_tn, a non-positive diagonal element replaced by the larger
one-way variance; df = the smaller number of clusters − 1; 10-16 % and 83-91 %)."""


def sound_fit(y: Sequence[float] | np.ndarray, x: np.ndarray, *, templates: Sequence, names: Sequence,
              alpha: float = tkstats.ALPHA, cluster: str = "name") -> pd.DataFrame:
    """The sound fit: a fractional logit with an intercept, its standard errors clustered as ``cluster`` says
    (:data:`CLUSTERS`), a t reference. Per term (``intercept`` and :data:`TERMS`): ``estimate, se, statistic, df,
    p_value, ci_low, ci_high`` (NaN se and p where the scores do not vary between names)."""
    import statsmodels.api as sm

    if cluster not in CLUSTERS:
        raise unknown("cluster", cluster, CLUSTERS)
    y = np.asarray(y, dtype=float)
    exog = sm.add_constant(np.asarray(x, dtype=float), has_constant="add")
    template = pd.factorize(pd.Series(list(templates)))[0]
    name = pd.factorize(pd.Series(list(names)))[0]
    n_templates, n_names = len(np.unique(template)), len(np.unique(name))
    if n_templates < 2 or n_names < 5:
        raise TooSmallError(f"the sound regression needs at least 2 templates and 5 names; got {n_templates} and "
                         f"{n_names}.", fix="give the full design.")
    model = sm.GLM(y, exog, family=sm.families.Binomial())
    by_name = model.fit(cov_type="cluster", cov_kwds={"groups": name})
    beta = np.asarray(by_name.params)
    if cluster == "name":
        var, df = np.diag(by_name.cov_params()), float(n_names - 4)
    else:
        both = pd.factorize(pd.Series(template).astype(str) + "|" + pd.Series(name).astype(str))[0]
        v_t = np.diag(model.fit(cov_type="cluster", cov_kwds={"groups": template}).cov_params())
        v_n = np.diag(by_name.cov_params())
        v_tn = np.diag(model.fit(cov_type="cluster", cov_kwds={"groups": both}).cov_params())
        var = v_t + v_n - v_tn
        var = np.where(var > 0, var, np.maximum(v_t, v_n))
        df = float(min(n_templates, n_names) - 1)
    se = np.sqrt(np.where(var > 0, var, np.nan))  # no variance (every name scored alike): no test, NaN
    t = beta / se
    q = sps.t.ppf(1 - alpha / 2, df)
    return pd.DataFrame({"term": ["intercept", *TERMS], "estimate": beta, "se": se, "statistic": t, "df": df,
                         "p_value": 2 * sps.t.sf(np.abs(t), df), "ci_low": beta - q * se, "ci_high": beta + q * se})


def fit(scored: pd.DataFrame, *, alpha: float = tkstats.ALPHA, correction: str = "holm",
        cluster: str = "name") -> pd.DataFrame:
    """Both regressions per language × model × task of a scored table's name sentences (rows with a race and a
    gender); columns :data:`COLUMNS`. ``p_adjusted`` corrects each method's p over its own terms of the run
    (``correction``; the paper did not correct). A design too small for the sound fit (fewer than 2 templates or 5
    names) keeps its rows, with NaN estimates and the ``reason``; a sound term whose estimate and standard error are
    both numerically 0 (:data:`NUMERIC_ZERO`: a system that scores the groups alike) is 0 with p 1 and
    :data:`IDENTICAL_REASON` (its fit's rounding is not an effect; the paper's fit is kept as run)."""
    from statsmodels.tools.sm_exceptions import PerfectSeparationWarning  # defers statsmodels

    alpha = checks.alpha(alpha)
    need = {"model", "task", "score", "race", "gender", "template_id", "person_en", "language", "source"}
    if missing := sorted(need - set(scored.columns)):
        raise SchemaError(f"the regressions need the columns {sorted(need)}; missing {missing}.",
                          fix="score toolkit.studies.multilingual.corpora.load() with toolkit.scoring.score().")
    data = with_scores(scored, study="multilingual regression")
    data = data[(data["race"] != "") & data["gender"].isin(["female", "male"])]
    rows = []
    for (language, source, model, task), block in data.groupby(["language", "source", "model", "task"], sort=False):
        if block["race"].isin(MINORITIZED).nunique() < 2 or block["gender"].nunique() < 2:
            continue
        x, y = design_matrix(block), block["score"].to_numpy(dtype=float)
        key = {"language": language, "source": source, "model": model, "task": task, "n": len(block)}
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", PerfectSeparationWarning)
                sound = sound_fit(y, x, templates=block["template_id"], names=block["person_en"], alpha=alpha,
                                  cluster=cluster)
            for other in caught:  # any other warning is shown as before
                if not issubclass(other.category, PerfectSeparationWarning):
                    warnings.warn_explicit(other.message, other.category, other.filename, other.lineno)
            separated = any(issubclass(w.category, PerfectSeparationWarning) for w in caught)
            zero = ((sound["term"] != "intercept") & sound["estimate"].abs().le(NUMERIC_ZERO)
                    & sound["se"].fillna(0.0).le(NUMERIC_ZERO))
            sound.loc[zero, ["estimate", "se", "ci_low", "ci_high"]] = 0.0
            sound.loc[zero, ["statistic", "p_value"]] = [np.nan, 1.0]
            sound["reason"] = np.where(zero, IDENTICAL_REASON, SEPARATION_REASON if separated else "")
        except TooSmallError as exc:
            sound = _not_fitted(exc)
        try:
            paper = paper_fit(y, x, alpha=alpha).assign(reason="")
        except TooSmallError as exc:
            paper = _not_fitted(exc)
        for method, frame in ((PAPER, paper), (SOUND, sound)):
            for r in frame.itertuples():
                rows.append({**key, "method": method, "term": r.term, "estimate": r.estimate, "se": r.se,
                             "ci_low": r.ci_low, "ci_high": r.ci_high, "statistic": r.statistic, "df": r.df,
                             "p_value": r.p_value, "label": LABELS[method], "reason": r.reason})
    out = pd.DataFrame(rows, columns=[c for c in COLUMNS if c != "p_adjusted"])
    out["p_adjusted"] = np.nan
    for method in (PAPER, SOUND):
        tested = (out["method"] == method) & (out["term"] != "intercept")
        if tested.any():
            out.loc[tested, "p_adjusted"] = tkstats.adjust(out.loc[tested, "p_value"].to_numpy(), method=correction)
    return out.loc[:, list(COLUMNS)]


def _not_fitted(exc: TooSmallError) -> pd.DataFrame:
    """A fit's rows with no numbers and the reason."""
    rows = pd.DataFrame({"term": ["intercept", *TERMS]}).reindex(
        columns=["term", "estimate", "se", "ci_low", "ci_high", "statistic", "df", "p_value"])
    rows["reason"] = f"not fitted: {exc.message}"
    return rows


# ---- simulation in the real design ---------------------------------------------------------------------------------

SIM_COLUMNS = ("method", "term", "effect", "truth", "n_reps", "rejection_rate", "coverage", "mean_estimate",
               "base", "sd_template", "sd_name", "sd_word", "sd_residual")


def _population_truth(base: float, effects: dict[str, float], sds: tuple[float, float, float, float],
                      seed: int) -> dict[str, float]:
    """The logit contrasts of the population cell means E[expit(η)] over the random effects (Monte Carlo, 400,000
    draws): the quantities the sound model estimates."""
    rng = np.random.default_rng(seed + 7919)
    noise = rng.normal(0, np.sqrt(sum(s * s for s in sds)), 400_000)
    means = {}
    for race in (0, 1):
        for female in (0, 1):
            eta = (base + effects["race"] * race + effects["gender"] * female
                   + effects["interaction"] * race * female + noise)
            means[(race, female)] = float(special.expit(eta).mean())
    lg = {k: float(special.logit(v)) for k, v in means.items()}
    return {"race": lg[(1, 0)] - lg[(0, 0)], "gender": lg[(0, 1)] - lg[(0, 0)],
            "interaction": lg[(1, 1)] - lg[(1, 0)] - lg[(0, 1)] + lg[(0, 0)]}


def simulate(rows: pd.DataFrame, *, n_reps: int = 200, seed: int = 0, base: float = 0.0,
             effects: dict[str, float] | None = None, sd_template: float = 0.4, sd_name: float = 0.3,
             sd_word: float = 0.3, sd_residual: float = 0.3, alpha: float = tkstats.ALPHA,
             cluster: str = "name") -> pd.DataFrame:
    """Type I error (``effects`` 0) or coverage of both regressions in the design of ``rows`` (a corpus's name
    sentences: ``race, gender, template_id, person_en, emotion_word_en``; its real counts). Scores are
    expit(base + effects·x + u_template + u_name + u_word + e), the u normal with the given sds. Columns
    :data:`SIM_COLUMNS`: per method and term, the rejection rate of "no effect" at ``alpha`` and the coverage of the
    ``1 − alpha`` interval of the truth (the sound model: the population logit contrast; the paper's terms are read
    as the paper reads them, as the effects)."""
    n_reps, seed, alpha = checks.count(n_reps, name="n_reps", minimum=1), checks.seed(seed), checks.alpha(alpha)
    effects = {t: 0.0 for t in TERMS} | dict(effects or {})
    rows = rows[(rows["race"] != "") & rows["gender"].isin(["female", "male"])]
    if rows.empty:
        raise InputError("the simulation needs the corpus's name sentences (race and gender).",
                         fix="pass corpora.load() rows of one Câmara language.")
    x = design_matrix(rows)
    template = pd.factorize(rows["template_id"])[0]
    name = pd.factorize(rows["person_en"])[0]
    word = pd.factorize(rows["template_id"].astype(str) + "|" + rows["emotion_word_en"].astype(str))[0]
    sds = (sd_template, sd_name, sd_word, sd_residual)
    truth = _population_truth(base, effects, sds, seed)
    fixed = base + x @ np.array([effects[t] for t in TERMS])
    rng = np.random.default_rng(seed)
    records = []
    for _ in range(n_reps):
        eta = (fixed + rng.normal(0, sd_template, template.max() + 1)[template]
               + rng.normal(0, sd_name, name.max() + 1)[name] + rng.normal(0, sd_word, word.max() + 1)[word]
               + rng.normal(0, sd_residual, len(rows)))
        y = special.expit(eta)
        for method, frame in ((PAPER, paper_fit(y, x, alpha=alpha)),
                              (SOUND, sound_fit(y, x, templates=template, names=name, alpha=alpha,
                                                cluster=cluster))):
            for r in frame[frame["term"].isin(TERMS)].itertuples():
                target = effects[r.term] if method == PAPER else truth[r.term]
                records.append({"method": method, "term": r.term, "estimate": r.estimate,
                                "reject": r.p_value < alpha, "covers": r.ci_low <= target <= r.ci_high,
                                "truth": target})
    frame = pd.DataFrame(records)
    out = (frame.groupby(["method", "term"], sort=False)
           .agg(truth=("truth", "first"), rejection_rate=("reject", "mean"), coverage=("covers", "mean"),
                mean_estimate=("estimate", "mean")).reset_index())
    out["effect"] = out["term"].map(effects)
    out["n_reps"] = n_reps
    out["base"], out["sd_template"], out["sd_name"], out["sd_word"], out["sd_residual"] = base, *sds
    return out.loc[:, list(SIM_COLUMNS)]
