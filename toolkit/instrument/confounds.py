"""Name-frequency and tokenisation confounds of a name-based group difference (EEC names; any crossed design).

An & Rudinger (2023, "Nichelle and Nancy: The influence of demographic attributes and tokenization length on first
name biases") and Wolfe & Caliskan (2021) show that a "race" or "gender" gap measured with first names can be a gap
in how common the names are, or in how many subword pieces a tokenizer cuts them into. The EEC's African-American
names are about ten times rarer in US births than its European ones (:mod:`toolkit.names`).

:func:`name_confounds` reports, per model × task, three analyses of the group difference (group a's names minus
group b's, the EEC's direction), each with templates and names as random samples — a linear mixed model (statsmodels
``MixedLM``, REML) on the template × name cell means with crossed variance components for templates, names and
template × group, so each template may shift either group:

- ``raw``: ``score ~ group``;
- ``adjusted``: ``score ~ group + log10 births per million [+ subword pieces]`` (the name's covariates; subword
  length only for models whose tokenizer is given);
- ``overlap``: ``score ~ group + log10 births per million [+ subword pieces]`` on the names in **common support**
  only — those whose frequency lies inside both groups' ranges (a trimmed estimate: the adjustment compares names of
  the two groups at frequencies both groups have);
- ``matched``: ``score ~ group`` on the frequency-matched names only (:func:`toolkit.names.frequency_matched`, within
  gender for race, within race for gender).

Common support (every row): each group's range of log10 frequency (``log10_min_a`` … ``log10_max_b``), the share of
names inside the other group's range (``support_share``; the EEC's race names: 24 of 40) and ``support``:
``complete`` (every name inside), ``partial`` (the ``adjusted`` row extrapolates a linear frequency effect to
frequencies the other group lacks: read ``overlap`` or ``matched``; ``share_explained`` is not given) or ``none``
(fewer than 3 names per group in common support: ``adjusted`` and ``overlap`` are refused, NaN with the reason in
``note``). Why: with group and frequency nearly collinear outside the overlap, a non-linear frequency effect
(rare names scored lower) and no group effect gave an adjusted gap of the wrong sign in every simulated run.

``share_explained`` = 1 − adjusted / raw: how much of the gap the confounds account for (undefined when the raw gap is
near zero, or when support is not complete). Names are few (20 per group in the EEC) and frequency is strongly tied to group, so the adjusted interval
is wide: that width is the honest answer. A model whose scores do not change with the name at all gets estimate 0
with the note "identical scores across names" and no fit. Columns: :data:`COLUMNS`.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from toolkit import checks
from toolkit import names as name_meta
from toolkit.cases import with_scores
from toolkit.errors import InputError, SchemaError
from toolkit.resources import load_json
from toolkit.studies.psa import analysis as psa_study

ANALYSES = ("raw", "adjusted", "overlap", "matched")
MIN_SUPPORT = 3
"""Fewer names of a group than this in common support: no adjusted or overlap estimate."""
SUPPORT_COLUMNS = ["log10_min_a", "log10_max_a", "log10_min_b", "log10_max_b", "support_share", "support"]
COVARIATES = ("log10_per_million", "n_subwords")
COLUMNS = ["model", "task", "attribute", "analysis", "estimate", "ci_low", "ci_high", "p_value", "se", "df",
           "n_names_a", "n_names_b", "n_templates", "covariates", "share_explained", "slope_log10_frequency",
           "slope_subwords", *SUPPORT_COLUMNS, "note"]
_GROUPS = {"race": ("race", "African-American", "European", "gender"),
           "gender": ("gender", "female", "male", "race")}


def _name_table(scored: pd.DataFrame, attribute: str) -> pd.DataFrame:
    need = {"model", "score", "template_id", "person", "gender", "race"}
    if attribute not in _GROUPS:
        raise InputError(f"attribute must be 'race' or 'gender'; got {attribute!r}.", fix="attribute='race'")
    if missing := need - set(scored.columns):
        raise SchemaError(f"name_confounds needs EEC-like columns {sorted(need)}; missing {sorted(missing)}.",
                          fix="pass a scored EEC case table (toolkit.studies.eec / scoring.score on generators.eec)")
    data = with_scores(scored, study="name_confounds")
    data = data[data["race"].astype(str) != ""]  # names only: noun phrases have no name frequency
    if "task" not in data.columns:
        data = data.assign(task="")
    return data


MIN_NAMES = 2
"""Names a group needs for a fit: with one, its name effect and the group difference cannot be told apart."""


def _check_groups(data: pd.DataFrame, *, column: str, groups: tuple[str, str]) -> None:
    """InputError (TK102) unless every model × task has at least :data:`MIN_NAMES` names in each of ``groups``:
    with one group there is no difference to estimate, and with one name a group's difference is that name's."""
    for (model, task), block in data.groupby(["model", "task"], sort=False):
        counts = block.drop_duplicates("person")[column].value_counts()
        have = {g: int(counts.get(g, 0)) for g in groups}
        if min(have.values()) < MIN_NAMES:
            shown = " and ".join(f"{n} {g} name{'s' if n != 1 else ''}" for g, n in have.items())
            raise InputError(f"name_confounds compares {groups[0]} with {groups[1]} names, but the table holds "
                             f"{shown} for model {model!r}" + (f" ({task})" if task else "") + ".",
                             fix=f"pass a table with at least {MIN_NAMES} names of each group (the complete EEC "
                                 "has 20 per group); subset the table by rows, not by a group.")


def _df(cells: pd.DataFrame, covariates: Sequence[str]) -> float:
    """Degrees of freedom of the group coefficient's t reference: the fewer of the templates − 1 (the template ×
    group component) and the names − 2 − covariates (the name component). A Wald z over-claims here: with 11
    templates and 40 names its 95 % interval covered 88-90 % in our simulation (docs/names_and_templates.md)."""
    return float(max(min(cells["template_id"].nunique() - 1, cells["person"].nunique() - 2 - len(covariates)), 1))


def _fit(cells: pd.DataFrame, covariates: Sequence[str], *, alpha: float) -> dict:
    """MixedLM on template × name cell means; the group coefficient with a ``1 - alpha`` t interval (:func:`_df`)."""
    import statsmodels.formula.api as smf  # statsmodels' formula layer (patsy) is slow to import

    if cells.groupby("template_id")["y"].transform(lambda s: s.max() - s.min()).max() <= 1e-12:
        return {"estimate": 0.0, "ci_low": 0.0, "ci_high": 0.0, "p_value": 1.0, "se": 0.0, "df": np.nan,
                "note": "identical scores across names: no test needed"}
    formula = "y ~ g" + "".join(f" + {c}" for c in covariates)
    model = smf.mixedlm(formula, cells.assign(one=1), groups="one", re_formula="0",
                        vc_formula={"template": "0 + C(template_id)", "name": "0 + C(person)",
                                    "template_group": "0 + C(template_group)"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # boundary (a zero variance component) and convergence notes
        result = model.fit(reml=True)
    est, se = float(result.params["g"]), float(result.bse["g"])
    df = _df(cells, covariates)
    q = sps.t.ppf(1 - alpha / 2, df)
    out = {"estimate": est, "ci_low": est - q * se, "ci_high": est + q * se, "df": df,
           "p_value": float(2 * sps.t.sf(abs(est) / se, df)) if se > 0 else float(est == 0), "se": se,
           "note": "" if result.converged else "MixedLM did not converge; read with care"}
    for cov, key in (("log10_per_million", "slope_log10_frequency"), ("n_subwords", "slope_subwords")):
        out[key] = float(result.params[cov]) if cov in covariates else np.nan
    return out


def common_support(frequency_a: pd.Series, frequency_b: pd.Series) -> tuple[dict, set[str]]:
    """Overlap of two groups' name frequencies (log10 births per million, indexed by name): each group's range, the
    share of names inside the other group's range, the state (``complete``, ``partial``, ``none``: fewer than
    :data:`MIN_SUPPORT` names of a group inside) and the names in common support."""
    a, b = frequency_a.dropna(), frequency_b.dropna()
    if not len(a) or not len(b):
        return {k: np.nan for k in SUPPORT_COLUMNS} | {"support": "none"}, set()
    low, high = max(a.min(), b.min()), min(a.max(), b.max())
    inside_a, inside_b = a[(a >= low) & (a <= high)], b[(b >= low) & (b <= high)]
    share = (len(inside_a) + len(inside_b)) / (len(a) + len(b))
    state = ("none" if min(len(inside_a), len(inside_b)) < MIN_SUPPORT else "complete" if share >= 1 else "partial")
    return ({"log10_min_a": float(a.min()), "log10_max_a": float(a.max()), "log10_min_b": float(b.min()),
             "log10_max_b": float(b.max()), "support_share": float(share), "support": state},
            set(inside_a.index) | set(inside_b.index))


def _support_note(support: dict, n_names: int) -> str:
    outside = int(round((1 - support["support_share"]) * n_names))
    if support["support"] == "partial":
        return (f"extrapolates: {outside} of {n_names} names lie outside the other group's frequency range; read "
                "'overlap' or 'matched'")
    return (f"refused: no common support (fewer than {MIN_SUPPORT} names per group inside both groups' frequency "
            "ranges), so the adjustment would be an extrapolation")


def _refused(note: str) -> dict:
    return {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p_value": np.nan, "se": np.nan, "df": np.nan,
            "slope_log10_frequency": np.nan, "slope_subwords": np.nan, "note": note}


def _matched(attribute: str, *, caliper: float, years: tuple[int, int]) -> tuple[set[str], pd.DataFrame]:
    """EEC names kept by frequency matching: a's names paired with b's within each stratum of the other attribute."""
    eec = load_json("eec")["names"]
    strata = (("female", "male") if attribute == "race" else ("African-American", "European"))
    pairs = []
    for stratum in strata:
        if attribute == "race":
            a, b = eec["African-American"][stratum], eec["European"][stratum]
        else:
            a, b = eec[stratum]["female"], eec[stratum]["male"]
        pairs.append(name_meta.frequency_matched(a=a, b=b, years=years, caliper=caliper).assign(stratum=stratum))
    table = pd.concat(pairs, ignore_index=True)
    kept = table[table["matched"]]
    return set(kept["name_a"]) | set(kept["name_b"]), table


def name_confounds(scored: pd.DataFrame, *, attribute: str = "race",
                   tokenizers: Mapping[str, object] | None = None, years: tuple[int, int] = name_meta.SSA_YEARS,
                   caliper: float = 0.25, alpha: float = 0.05, analyses: Sequence[str] = ANALYSES) -> pd.DataFrame:
    """The group difference of the EEC's names before and after adjusting for name frequency (and subword length
    where ``tokenizers`` maps a model name to its tokenizer), and on frequency-matched names; see the module
    docstring. ``scored``: a scored EEC table; ``analyses``: which of :data:`ANALYSES` to fit. Returns
    :data:`COLUMNS`, a row per model × task × analysis."""
    alpha = checks.alpha(alpha)
    if not analyses or set(analyses) - set(ANALYSES):
        raise InputError(f"analyses must be among {list(ANALYSES)}; got {list(analyses)!r}.",
                         fix="e.g. analyses=('raw', 'adjusted')")
    if isinstance(caliper, bool) or not isinstance(caliper, (int, float)) or not 0 < caliper < np.inf:
        raise InputError(f"caliper must be a number > 0 (log10 units); got {caliper!r}.", fix="e.g. caliper=0.25")
    data = _name_table(scored, attribute)
    column, a, b, _ = _GROUPS[attribute]
    if data.empty:
        raise SchemaError("name_confounds needs name sentences, and the table holds none (only noun phrases, or "
                          "no rows with a score): name frequency is a property of names.",
                          fix="pass a scored EEC table with its name sentences (toolkit.eec.generate()).")
    _check_groups(data, column=column, groups=(a, b))
    meta = name_meta.metadata(names=data["person"].unique(), years=years, race=False).set_index("name")
    if meta["log10_per_million"].isna().any():
        lost = meta.index[meta["log10_per_million"].isna()].tolist()
        raise InputError(f"names without an SSA frequency cannot be adjusted: {lost}.",
                         fix="use names that the SSA table has, or drop them before the study")
    kept, _ = _matched(attribute, caliper=caliper, years=years)
    per_name = data.drop_duplicates("person").set_index("person")[column]
    frequency = meta["log10_per_million"]
    support, inside = common_support(frequency.reindex(per_name.index[per_name == a]),
                                     frequency.reindex(per_name.index[per_name == b]))
    rows = []
    for (model, task), block in data.groupby(["model", "task"], sort=False):
        cells = block.groupby(["template_id", "person"], as_index=False).agg(
            y=("score", "mean"), group=(column, "first"))
        cells = cells[cells["group"].isin([a, b])]
        cells["g"] = (cells["group"] == a).astype(float)
        cells["template_group"] = cells["template_id"].astype(str) + "|" + cells["group"].astype(str)
        cells["log10_per_million"] = cells["person"].map(meta["log10_per_million"])
        covariates = ["log10_per_million"]
        tokenizer = (tokenizers or {}).get(model)
        if tokenizer is not None:
            pieces = name_meta.subword_lengths(names=sorted(cells["person"].unique()), tokenizer=tokenizer)
            cells["n_subwords"] = cells["person"].map(pieces.set_index("name")["n_subwords"]).astype(float)
            covariates.append("n_subwords")
        base = {"model": model, "task": task, "attribute": attribute, "n_templates": cells["template_id"].nunique(),
                **support}
        variants = (("raw", cells, []), ("adjusted", cells, covariates),
                    ("overlap", cells[cells["person"].isin(inside)], covariates),
                    ("matched", cells[cells["person"].isin(kept)], []))
        fits = {}
        n_names = cells["person"].nunique()
        for analysis, frame, covs in variants:
            if analysis not in analyses:
                continue
            per_group = frame.drop_duplicates("person")["g"]
            n_a, n_b = int((per_group == 1).sum()), int((per_group == 0).sum())
            if analysis in ("adjusted", "overlap") and support["support"] == "none":
                fit = _refused(_support_note(support, n_names))
            elif min(n_a, n_b) < MIN_NAMES or n_a + n_b < 3 + len(covs):
                fit = {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p_value": np.nan, "se": np.nan,
                       "df": np.nan, "note": f"not fitted: {n_a} {a} and {n_b} {b} names"
                       + (f" matched within the caliper {caliper:g}; a wider caliper keeps more" if
                          analysis == "matched" else "") + f" (at least {MIN_NAMES} per group are needed)"}
            else:
                fit = _fit(frame, covs, alpha=alpha)
            if analysis == "adjusted" and support["support"] == "partial":
                fit["note"] = "; ".join(filter(None, [fit["note"], _support_note(support, n_names)]))
            fits[analysis] = fit
            per = frame.drop_duplicates("person")["g"]
            rows.append({**base, "analysis": analysis, "covariates": "+".join(covs),
                         "n_names_a": int((per == 1).sum()), "n_names_b": int((per == 0).sum()),
                         "slope_log10_frequency": np.nan, "slope_subwords": np.nan, **fit})
        if "raw" in fits and "adjusted" in fits and support["support"] == "complete":
            raw, adjusted = fits["raw"]["estimate"], fits["adjusted"]["estimate"]
            share = 1 - adjusted / raw if abs(raw) > 2 * max(fits["raw"]["se"], 1e-12) else np.nan
            next(r for r in reversed(rows) if r["analysis"] == "adjusted")["share_explained"] = share
    out = pd.DataFrame(rows).reindex(columns=COLUMNS)
    return out


PSA_COLUMNS = COLUMNS[:2] + ["corpus"] + COLUMNS[2:]


def psa_name_confounds(scored: pd.DataFrame, *, tokenizers: Mapping[str, object] | None = None,
                       years: tuple[int, int] = name_meta.SSA_YEARS, caliper: float = 0.25,
                       alpha: float = 0.05) -> pd.DataFrame:
    """PSA's gender gap (female − male names' mean ScoreSens) raw, adjusted for the first name's log frequency (and
    subword length where ``tokenizers`` gives the model's tokenizer), and on frequency-matched names.

    Every name fills every sentence (a balanced design), so sentence effects cancel in each name's mean; the fit is
    OLS on the names' means with HC3 standard errors and a t interval on n − k degrees of freedom (names are the
    sample; a sentence × gender interaction is averaged over hundreds of sentences and ignored). PSA's names are
    public figures' full names: the first name's SSA frequency is a proxy for how common the name is, not for how
    famous the person is. A name without an SSA entry is left out of ``adjusted``, ``overlap`` and ``matched`` and
    listed in ``note``; common support as in :func:`name_confounds` (module docstring). Columns:
    :data:`PSA_COLUMNS` (``attribute`` is gender; ``n_templates`` counts sentences)."""
    import statsmodels.formula.api as smf  # statsmodels' formula layer (patsy) is slow to import

    alpha = checks.alpha(alpha)
    sens = psa_study.score_sens(scored)  # each name's mean f(x_n) − f(x): the study's own ScoreSens
    tasks = (scored.drop_duplicates("model").set_index("model")["task"] if "task" in scored.columns
             else pd.Series(dtype=str))
    meta = name_meta.metadata(names=sens["name"].unique(), years=years, race=False).set_index("name")
    unknown_names = sorted(meta.index[meta["log10_per_million"].isna()])
    z_note = f"no SSA frequency, left out: {', '.join(unknown_names)}" if unknown_names else ""
    rows = []
    for (model, corpus), block in sens.groupby(["model", "corpus"], sort=False):
        task = tasks.get(model, "")
        names = block.rename(columns={"name": "fill", "score_sens": "y"})
        names = names[names["gender"].isin(["female", "male"])]
        names["g"] = (names["gender"] == "female").astype(float)
        names["log10_per_million"] = names["fill"].map(meta["log10_per_million"])
        covariates = ["log10_per_million"]
        tokenizer = (tokenizers or {}).get(model)
        if tokenizer is not None:
            pieces = name_meta.subword_lengths(names=names["fill"].tolist(), tokenizer=tokenizer)
            names["n_subwords"] = names["fill"].map(pieces.set_index("name")["n_subwords"]).astype(float)
            covariates.append("n_subwords")
        known = names.dropna(subset=["log10_per_million"])
        female = known.loc[known["g"] == 1, "fill"].tolist()
        male = known.loc[known["g"] == 0, "fill"].tolist()
        pairs = name_meta.frequency_matched(a=female, b=male, years=years, caliper=caliper)
        kept = set(pairs.loc[pairs["matched"], "name_a"]) | set(pairs.loc[pairs["matched"], "name_b"])
        support, inside = common_support(known.loc[known["g"] == 1].set_index("fill")["log10_per_million"],
                                         known.loc[known["g"] == 0].set_index("fill")["log10_per_million"])
        support_note = _support_note(support, len(known)) if support["support"] != "complete" else ""
        fits = {}
        for analysis, frame, covs, note in (("raw", names, [], ""), ("adjusted", known, covariates, z_note),
                                            ("overlap", known[known["fill"].isin(inside)], covariates, z_note),
                                            ("matched", known[known["fill"].isin(kept)], [], z_note)):
            fit = {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p_value": np.nan, "se": np.nan,
                   "slope_log10_frequency": np.nan, "slope_subwords": np.nan, "note": note}
            n_a, n_b = int((frame["g"] == 1).sum()), int((frame["g"] == 0).sum())
            if analysis in ("adjusted", "overlap") and support["support"] == "none":
                fit["note"] = "; ".join(filter(None, [note, support_note]))
            elif frame["y"].max() - frame["y"].min() <= 1e-12 if len(frame) else False:
                fit.update(estimate=0.0, ci_low=0.0, ci_high=0.0, p_value=1.0, se=0.0,
                           note="identical scores across names: no test needed")
            elif n_a >= 2 and n_b >= 2 and len(frame) > 2 + len(covs):
                result = smf.ols("y ~ g" + "".join(f" + {c}" for c in covs), frame).fit(cov_type="HC3")
                est, se = float(result.params["g"]), float(result.bse["g"])
                q = sps.t.ppf(1 - alpha / 2, result.df_resid)
                fit.update(estimate=est, se=se, df=float(result.df_resid), ci_low=est - q * se, ci_high=est + q * se,
                           p_value=float(2 * sps.t.sf(abs(est) / se, result.df_resid)) if se > 0 else np.nan)
                for cov, key in (("log10_per_million", "slope_log10_frequency"), ("n_subwords", "slope_subwords")):
                    if cov in covs:
                        fit[key] = float(result.params[cov])
                if analysis == "adjusted" and support["support"] == "partial":
                    fit["note"] = "; ".join(filter(None, [note, support_note]))
            else:
                fit["note"] = "; ".join(filter(None, [note, f"not enough names ({n_a} female, {n_b} male)"]))
            fits[analysis] = fit
            rows.append({"model": model, "task": task, "corpus": corpus, "attribute": "gender",
                         "analysis": analysis, "covariates": "+".join(covs), "n_names_a": n_a, "n_names_b": n_b,
                         "n_templates": int(block["n_texts"].max()), "share_explained": np.nan, **support, **fit})
        raw, adjusted = fits["raw"]["estimate"], fits["adjusted"]["estimate"]
        if (support["support"] == "complete" and np.isfinite(raw) and np.isfinite(adjusted)
                and abs(raw) > 2 * max(fits["raw"]["se"], 1e-12)):
            next(r for r in reversed(rows) if r["analysis"] == "adjusted")["share_explained"] = 1 - adjusted / raw
    return pd.DataFrame(rows).reindex(columns=PSA_COLUMNS)
