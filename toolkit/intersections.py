"""Intersectional cells of the EEC's names: gender × race (Câmara, Taneja et al. 2022, "Mapping the multilingual
margins: intersectional biases of sentiment analysis systems").

The EEC's 40 names form four cells of 10 (African-American female, African-American male, European female,
European male). Per model × task, :func:`cells` compares them:

- the six contrasts between two cells (cell a's names minus cell b's), and the ``interaction``: (AA female − European
  female) − (AA male − European male), i.e. whether the race gap differs between women and men;
- each a contrast of cell means with :func:`toolkit.stats.nested_contrast`: each cell keeps all its own names
  (cells may differ in size; ``n_names_a``/``n_names_b`` are the cells' own counts — for the interaction, the names
  of the two cells counted + and of the two counted −), templates and names are samples, one Satterthwaite t gives
  the interval, the p and the equivalence p; ``p_adjusted`` corrects the two-way p over every contrast of every
  system in the run (``family`` names it; ``correction`` as the EEC study), and so is the equivalence (TOST) p at
  ``margin``; ``ci_low``/``ci_high`` are at 1 − alpha for one contrast, ``ci_low_simultaneous``/``_high`` at
  ``ci_level`` = 1 − alpha/m over the family's m contrasts (Bonferroni: they exclude 0 exactly where the
  Bonferroni-adjusted p is below alpha, so a contrast whose corrected p is not below alpha always has 0 inside);
  ``verdict`` from :func:`toolkit.stats.verdict` (no equivalence is claimed where some names never move
  the score while others do: the names are samples, and such a sample comes from a population where a few names
  carry the effect — the EEC study's sparse rule);
- ``state``: ``ok``; ``not enough data`` (fewer than 2 templates, or a cell of the contrast with fewer than
  ``min_names`` names: no number for that contrast, and ``reason`` names the cell — the other contrasts are
  given); ``identical scores`` (no name of the contrast's cells moves the score: estimate 0, no test needed).

No partially pooled (empirical-Bayes) estimate is given: in simulation it shrank real contrasts by 3–20 % with no
gain in accuracy and had no interval (docs/names_and_templates.md).

Columns: :data:`COLUMNS`.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy import stats as sps

from toolkit import checks
from toolkit import stats as tkstats
from toolkit.cases import with_scores
from toolkit.errors import SchemaError

CELLS = (("African-American", "female"), ("African-American", "male"), ("European", "female"),
         ("European", "male"))
INTERACTION = "interaction"
COLUMNS = ["model", "task", "contrast", "cell_a", "cell_b", "n_names_a", "n_names_b", "n_templates", "estimate",
           "ci_low", "ci_high", "ci_low_simultaneous", "ci_high_simultaneous", "ci_level", "p_two_way", "p_adjusted",
           "p_equivalence_adjusted", "family", "verdict", "state", "reason"]


def _label(cell: tuple[str, str]) -> str:
    return f"{cell[0]} {cell[1]}"


def _contrasts(groups: tuple[tuple[str, str], ...]) -> list[tuple[str, str, str, dict]]:
    """(name, cell_a, cell_b, {cell: sign}) for the six cell contrasts and the interaction."""
    out = [(f"{_label(a)} − {_label(b)}", _label(a), _label(b), {a: 1.0, b: -1.0})
           for a, b in itertools.combinations(groups, 2)]
    f_min, m_min, f_maj, m_maj = groups
    return out + [(INTERACTION, "", "", {f_min: 1.0, f_maj: -1.0, m_min: -1.0, m_maj: 1.0})]


def cells(scored: pd.DataFrame, *, alpha: float = tkstats.ALPHA, correction: str = "holm",
          margin: float = tkstats.MARGIN, n_boot: int = tkstats.N_BOOT, seed: int = 0,
          min_names: int = 3, groups: tuple[tuple[str, str], ...] = CELLS) -> pd.DataFrame:
    """The gender × race contrasts of a scored EEC table (see the module docstring). ``groups``: the four cells as
    (race, gender), in the order minoritized female, minoritized male, majority female, majority male (the EEC's
    :data:`CELLS` by default; another corpus names its own, e.g. Latino/Anglo). ``n_boot``/``seed`` are checked and
    kept for the callers; the estimator is not resampled."""
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
        for name, cell_a, cell_b, signs in _contrasts(groups):
            plus = sum(len(members[c]) for c, s in signs.items() if s > 0)
            minus = sum(len(members[c]) for c, s in signs.items() if s < 0)
            row = {"model": model, "task": task, "contrast": name, "cell_a": cell_a, "cell_b": cell_b,
                   "n_names_a": plus, "n_names_b": minus, "n_templates": int(wide.shape[0]), "estimate": np.nan,
                   "ci_low": np.nan, "ci_high": np.nan, "p_two_way": np.nan, "p_equivalence": np.nan, "se": np.nan,
                   "df": np.nan, "identical": False, "sparse": False, "reason": ""}
            small = [f"{_label(c)} ({len(members[c])} names)" for c in signs if len(members[c]) < min_names]
            if wide.shape[0] < 2 or small:
                why = (f"{wide.shape[0]} template(s) with every name scored: fewer than 2" if wide.shape[0] < 2 else
                       f"fewer than {min_names} names in {', '.join(small)}")
                rows.append({**row, "state": "not enough data", "reason": why})
                continue
            stat = tkstats.nested_contrast([wide[members[c]] for c in signs], list(signs.values()), alpha=alpha,
                                           margin=margin)
            if stat["identical"]:
                rows.append({**row, "estimate": 0.0, "ci_low": 0.0, "ci_high": 0.0, "p_two_way": 1.0,
                             "identical": True, "state": "identical scores"})
                continue
            rows.append({**row, "estimate": stat["estimate"], "ci_low": stat["ci_low"], "ci_high": stat["ci_high"],
                         "p_two_way": stat["p_value"], "p_equivalence": stat["p_equivalence"], "se": stat["se"],
                         "df": stat["df"], "sparse": 0 < stat["n_cols_zero"] < stat["n_cols"], "state": "ok",
                         # every name and template moved by one amount: the data decide without noise (said)
                         "reason": tkstats.CONSTANT_SHIFT if np.isfinite(stat["se"]) and stat["se"] <= 1e-12
                         and abs(stat["estimate"]) > 1e-12 else ""})
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=COLUMNS)
    tested = out["state"] == "ok"
    out["p_adjusted"] = out["p_equivalence_adjusted"] = np.nan
    out.loc[tested, "p_adjusted"] = tkstats.adjust(out.loc[tested, "p_two_way"].to_numpy(), method=correction)
    out.loc[tested, "p_equivalence_adjusted"] = tkstats.adjust(out.loc[tested, "p_equivalence"].to_numpy(dtype=float),
                                                               method=correction)
    out.loc[out["state"] == "identical scores", "p_adjusted"] = 1.0
    m = int(tested.sum())
    out["ci_level"] = 1 - alpha / max(m, 1)
    q = sps.t.ppf(1 - alpha / (2 * max(m, 1)), out["df"].where(tested).to_numpy(dtype=float))
    out["ci_low_simultaneous"] = np.where(tested, out["estimate"] - q * out["se"], out["ci_low"])
    out["ci_high_simultaneous"] = np.where(tested, out["estimate"] + q * out["se"], out["ci_high"])
    n_models = out.loc[tested, ["model", "task"]].drop_duplicates().shape[0]
    out["family"] = (f"intersections: {int(tested.sum())} contrasts ({n_models} systems), {correction}"
                     if tested.any() else "")
    out["verdict"] = [
        "not enough data" if r.state == "not enough data" else
        tkstats.verdict(estimate=r.estimate, se=r.se, df=r.df if np.isfinite(r.df) else np.inf,
                        p_adjusted=r.p_adjusted, p_equivalence=1.0 if r.sparse else r.p_equivalence_adjusted,
                        identical=bool(r.identical), margin=margin, alpha=alpha)
        for r in out.itertuples()]
    return out.loc[:, COLUMNS]
