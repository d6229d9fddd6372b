"""Intersectional cells of the EEC's names: gender × race (Câmara, Taneja et al. 2022, "Mapping the multilingual
margins: intersectional biases of sentiment analysis systems").

The EEC's 40 names form four cells of 10 (African-American female, African-American male, European female,
European male). Per model × task, :func:`cells` compares them:

- the six contrasts between two cells (cell a's names minus cell b's), and the ``interaction``: (AA female − European
  female) − (AA male − European male), i.e. whether the race gap differs between women and men;
- each from the templates × name-units array of Δ (a unit pairs the i-th name of each cell, as the EEC's race units
  do; the mean is linear, so any pairing gives the same estimate) with :func:`toolkit.stats.two_way_bootstrap`, so
  templates and names are samples; ``p_adjusted`` corrects the two-way p over every contrast of every system in the
  run (``family`` names it; ``correction`` as the EEC study), and so is the equivalence (TOST) p at ``margin``;
  ``verdict`` from :func:`toolkit.stats.verdict` (no equivalence is claimed where some name units never move the
  score while others do: the names are samples, and such a sample comes from a population where a few names carry
  the effect — the EEC study's sparse rule);
- ``estimate_pooled``: the contrast of the partially pooled cell means (empirical Bayes: each cell mean shrunk toward
  the mean of the cells by τ² / (τ² + SE²), τ² the method-of-moments between-cell variance), which matters when
  cells are small or noisy;
- ``state``: ``ok``; ``not enough data`` (a cell with fewer than ``min_names`` names or fewer than 2 templates: no
  number is given); ``identical scores`` (no name moves the score: estimate 0, no test needed).

Columns: :data:`COLUMNS`.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from toolkit import checks
from toolkit import stats as tkstats
from toolkit.cases import with_scores
from toolkit.errors import SchemaError

CELLS = (("African-American", "female"), ("African-American", "male"), ("European", "female"),
         ("European", "male"))
INTERACTION = "interaction"
COLUMNS = ["model", "task", "contrast", "cell_a", "cell_b", "n_names_a", "n_names_b", "n_templates", "estimate",
           "ci_low", "ci_high", "p_two_way", "p_adjusted", "p_equivalence_adjusted", "family", "verdict",
           "estimate_pooled", "state"]


def _label(cell: tuple[str, str]) -> str:
    return f"{cell[0]} {cell[1]}"


def _matrix(names: pd.DataFrame, a: list[str], b: list[str]) -> pd.DataFrame:
    """templates × units of name a_i − name b_i (units up to the smaller cell's size)."""
    k = min(len(a), len(b))
    return pd.DataFrame({f"{x}−{y}": names[x] - names[y] for x, y in zip(a[:k], b[:k])})


def _pooled(means: dict, ses: dict) -> dict:
    """Empirical-Bayes partial pooling of the cell means toward their mean (method-of-moments τ²)."""
    values = np.array(list(means.values()))
    se2 = np.array([ses[c] ** 2 for c in means])
    grand = float(values.mean())
    tau2 = max(float(values.var(ddof=1)) - float(se2.mean()), 0.0) if len(values) > 1 else 0.0
    return {c: grand + (tau2 / (tau2 + s2) if tau2 + s2 > 0 else 1.0) * (m - grand)
            for (c, m), s2 in zip(means.items(), se2)}


def cells(scored: pd.DataFrame, *, alpha: float = tkstats.ALPHA, correction: str = "holm",
          margin: float = tkstats.MARGIN, n_boot: int = tkstats.N_BOOT, seed: int = 0,
          min_names: int = 3, groups: tuple[tuple[str, str], ...] = CELLS) -> pd.DataFrame:
    """The gender × race contrasts of a scored EEC table (see the module docstring). ``groups``: the four cells as
    (race, gender), in the order minoritized female, minoritized male, majority female, majority male (the EEC's
    :data:`CELLS` by default; another corpus names its own, e.g. Latino/Anglo)."""
    need = {"model", "score", "template_id", "person", "gender", "race"}
    if missing := need - set(scored.columns):
        raise SchemaError(f"intersections need EEC columns {sorted(need)}; missing {sorted(missing)}.",
                          fix="pass a scored EEC table")
    alpha, n_boot, seed = checks.alpha(alpha), checks.n_boot(n_boot), checks.seed(seed)
    min_names = checks.count(min_names, name="min_names", minimum=2)
    data = with_scores(scored, study="intersections")
    data = data[data["race"].astype(str) != ""]
    if "task" not in data.columns:
        data = data.assign(task="")
    rows = []
    for (model, task), block in data.groupby(["model", "task"], sort=False):
        wide = block.pivot_table(index="template_id", columns="person", values="score", aggfunc="mean").dropna()
        members = {c: [p for p in block.loc[(block["race"] == c[0]) & (block["gender"] == c[1]), "person"].unique()
                       if p in wide.columns] for c in groups}
        enough = wide.shape[0] >= 2 and all(len(v) >= min_names for v in members.values())
        flat = bool(wide.shape[1] and (wide.max(axis=1) - wide.min(axis=1)).max() <= 1e-12)
        means, ses = {}, {}
        if enough and not flat:
            for c in groups:
                own = wide[members[c]]
                rest = wide[[p for p in wide.columns if p not in members[c]]]
                stat = tkstats.two_way_bootstrap(own.sub(rest.mean(axis=1), axis=0), n_boot=max(n_boot // 10, 200),
                                                 seed=seed, alpha=alpha)
                means[c], ses[c] = float(own.to_numpy().mean()), float(stat["se"])
        pooled = _pooled(means, ses) if means else {}
        contrasts = [(a, b) for a, b in itertools.combinations(groups, 2)] + [(INTERACTION, INTERACTION)]
        for a, b in contrasts:
            name = INTERACTION if a == INTERACTION else f"{_label(a)} − {_label(b)}"
            row = {"model": model, "task": task, "contrast": name,
                   "cell_a": "" if a == INTERACTION else _label(a), "cell_b": "" if b == INTERACTION else _label(b),
                   "n_names_a": len(members[a]) if a != INTERACTION else min(len(v) for v in members.values()),
                   "n_names_b": len(members[b]) if b != INTERACTION else min(len(v) for v in members.values()),
                   "n_templates": int(wide.shape[0]), "estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                   "p_two_way": np.nan, "p_equivalence": np.nan, "estimate_pooled": np.nan, "se": np.nan,
                   "df": np.nan, "identical": False, "sparse": False}
            if not enough:
                rows.append({**row, "state": "not enough data"})
                continue
            if flat:
                rows.append({**row, "estimate": 0.0, "ci_low": 0.0, "ci_high": 0.0, "p_two_way": 1.0,
                             "estimate_pooled": 0.0, "identical": True, "state": "identical scores"})
                continue
            if a == INTERACTION:
                (aaf, aam, euf, eum) = (members[c] for c in groups)
                k = min(len(aaf), len(aam), len(euf), len(eum))  # cells of unequal size: units up to the smallest
                matrix = _matrix(wide, aaf[:k], euf[:k]).to_numpy() - _matrix(wide, aam[:k], eum[:k]).to_numpy()
                pooled_est = (pooled[groups[0]] - pooled[groups[2]]) - (pooled[groups[1]] - pooled[groups[3]])
            else:
                matrix = _matrix(wide, members[a], members[b]).to_numpy()
                pooled_est = pooled[a] - pooled[b]
            stat = tkstats.two_way_bootstrap(matrix, alpha=alpha, n_boot=n_boot, seed=seed, margin=margin)
            rows.append({**row, "estimate": stat["estimate"], "ci_low": stat["ci_low"], "ci_high": stat["ci_high"],
                         "p_two_way": stat["p_value"], "p_equivalence": stat["p_equivalence"],
                         "estimate_pooled": pooled_est, "se": stat["se"], "df": stat.get("df", min(matrix.shape) - 1),
                         "identical": bool(stat.get("identical", False)),
                         "sparse": 0 < stat.get("n_cols_zero", 0) < matrix.shape[1], "state": "ok"})
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=COLUMNS)
    tested = out["state"] == "ok"
    out["p_adjusted"] = out["p_equivalence_adjusted"] = np.nan
    out.loc[tested, "p_adjusted"] = tkstats.adjust(out.loc[tested, "p_two_way"].to_numpy(), method=correction)
    out.loc[tested, "p_equivalence_adjusted"] = tkstats.adjust(out.loc[tested, "p_equivalence"].to_numpy(dtype=float),
                                                               method=correction)
    out.loc[out["state"] == "identical scores", "p_adjusted"] = 1.0
    n_models = out.loc[tested, ["model", "task"]].drop_duplicates().shape[0]
    out["family"] = (f"intersections: {int(tested.sum())} contrasts ({n_models} systems × 7), {correction}"
                     if tested.any() else "")
    out["verdict"] = [
        "not enough data" if r.state == "not enough data" else
        tkstats.verdict(estimate=r.estimate, se=r.se, df=max(r.df, 1) if np.isfinite(r.df) else 1,
                        p_adjusted=r.p_adjusted, p_equivalence=1.0 if r.sparse else r.p_equivalence_adjusted,
                        identical=bool(r.identical), margin=margin, alpha=alpha)
        for r in out.itertuples()]
    return out.loc[:, COLUMNS]
