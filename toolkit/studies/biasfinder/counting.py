"""BiasFinder's bias-uncovering test cases (BTCs), counted (Asyrofi et al., IEEE TSE 2021; Table 4).

- :func:`btcs` — per model × case (template): the number of BTCs, i.e. pairs of mutants of the same template, of
  different classes (``group``), with different predicted labels (:data:`BTC_COLUMNS`). For two classes this is the
  paper's pos_A × neg_B + neg_A × pos_B; for more classes it sums over every pair of classes. Rows without a class
  (``group`` = "") are not mutants. ``n_btcs_unflagged`` counts only pairs whose mutants both have an empty
  ``fill_flag`` (:mod:`toolkit.studies.biasfinder.generator.lint`; all pairs when the table has no such column).
- :func:`sample_templates` — a seeded random sample of at most ``max_templates`` templates per characteristic, each
  with all its rows.
- :func:`table4` — per model × characteristic: templates, mutants, templates with a BTC, BTCs (the paper's Table 4)
  and BTCs without flagged fills; templates past the model's window are reported in ``templates_past_window``.
- :func:`pair_counts` — per model × template: mutant pairs of different classes and of the same class, and the BTCs
  among each (:data:`PAIR_COLUMNS`), what :mod:`.btc_rates` estimates from.
- :func:`rate_rows` — the rows the BTC-rate statistics read: every row but the mutants that cross a name with a noun
  other than the template's own pair under ``noun_fills="all"`` (``noun_fill == "crossed"``), which Table 4 counts.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit.cases import with_scores
from toolkit.errors import InputError, SchemaError

BTC_COLUMNS = ("model", "attribute", "case_id", "n_mutants", "n_classes", "n_btcs", "n_btcs_unflagged", "past_window")
TABLE4_COLUMNS = ("model", "attribute", "templates", "mutants", "templates_with_btc", "btcs", "btcs_unflagged",
                  "templates_past_window")


def _mutants(scored: pd.DataFrame, *, required: tuple[str, ...]) -> pd.DataFrame:
    """The rows of ``scored`` that carry a class (``group``), checked for the ``required`` columns (TK101) and for
    usable scores."""
    missing = [c for c in required if c not in scored]
    if missing:
        raise SchemaError(f"not a scored case table: column {missing[0]!r} is missing.",
                          fix="score a case table with toolkit.scoring.score().")
    if "score" in scored.columns:
        scored = with_scores(scored, study="biasfinder")
    return scored[scored["group"] != ""]


def btcs(scored: pd.DataFrame) -> pd.DataFrame:
    """BTC counts per model × case (columns :data:`BTC_COLUMNS`)."""
    mutants = _mutants(scored, required=("model", "label", "case_id", "group", "attribute", "is_original"))
    keys = ["model", "attribute", "case_id", "group", "label"]
    counts = mutants.groupby(keys, observed=True).size().rename("n")
    # rows of other generators (NaN after a concat or a CSV round trip) are not flagged
    clean = mutants[~_is_flagged(mutants["fill_flag"])] if "fill_flag" in mutants.columns else mutants
    clean_btcs = {key: _btc_pairs(block) for key, block in clean.groupby(keys, observed=True).size().groupby(
        level=["model", "attribute", "case_id"], sort=False)}
    inputs = (mutants.groupby(["model", "case_id"], observed=True)["input_id"].nunique().to_dict()
              if "input_id" in mutants.columns else {})
    rows = []
    for (model, attribute, case_id), block in counts.groupby(level=["model", "attribute", "case_id"], sort=False):
        n_mutants = int(block.sum())
        rows.append({"model": model, "attribute": attribute, "case_id": case_id, "n_mutants": n_mutants,
                     "n_classes": int(block.index.get_level_values("group").nunique()), "n_btcs": _btc_pairs(block),
                     "n_btcs_unflagged": clean_btcs.get((model, attribute, case_id), 0),
                     "past_window": bool(n_mutants > 1 and inputs.get((model, case_id), 2) == 1)})
    return pd.DataFrame(rows, columns=list(BTC_COLUMNS))


def _btc_pairs(block: pd.Series) -> int:
    """Pairs of mutants of different classes with different labels, from one case's counts by (…, group, label)."""
    per_class = block.droplevel(["model", "attribute", "case_id"]).unstack("label", fill_value=0).to_numpy()
    total = per_class.sum(axis=0)
    # pairs across different classes with different labels = all cross-class pairs − cross-class same-label pairs
    cross_pairs = (per_class.sum() ** 2 - (per_class.sum(axis=1) ** 2).sum()) / 2
    same_label = ((total ** 2 - (per_class ** 2).sum(axis=0)) / 2).sum()
    return int(round(cross_pairs - same_label))


def sample_templates(cases: pd.DataFrame, *, max_templates: int, seed: int = 0) -> pd.DataFrame:
    """The rows of at most ``max_templates`` templates (``case_id``) per ``attribute``, drawn at random (seeded, per
    attribute, from the sorted ids: a smaller sample is a subset of a larger one), in their original order."""
    if max_templates < 1:
        raise InputError(f"max_templates must be at least 1; got {max_templates}.",
                         fix="pass a positive number of templates per characteristic, or None to keep them all.")
    kept = []
    for _, ids in cases.groupby("attribute")["case_id"]:
        unique = np.sort(ids.unique())
        kept.extend(np.random.default_rng(seed).permutation(unique)[:max_templates])
    return cases[cases["case_id"].isin(kept)]


def table4(btc_counts: pd.DataFrame) -> pd.DataFrame:
    """Templates, mutants, templates with ≥ 1 BTC and BTCs per model × characteristic (:data:`TABLE4_COLUMNS`)."""
    past = (btc_counts["past_window"].astype(bool) if "past_window" in btc_counts
            else pd.Series(False, index=btc_counts.index))  # a BTC table written before the flag
    unflagged = btc_counts["n_btcs_unflagged"] if "n_btcs_unflagged" in btc_counts else btc_counts["n_btcs"]
    tested = btc_counts.assign(tested=~past, mutants=btc_counts["n_mutants"].where(~past, 0), past=past,
                               unflagged=unflagged)
    grouped = tested.groupby(["model", "attribute"], sort=False)
    out = grouped.agg(templates=("tested", "sum"), mutants=("mutants", "sum"),
                      templates_with_btc=("n_btcs", lambda s: int((s > 0).sum())), btcs=("n_btcs", "sum"),
                      btcs_unflagged=("unflagged", "sum"), templates_past_window=("past", "sum"))
    return out.reset_index().loc[:, list(TABLE4_COLUMNS)].astype({c: int for c in TABLE4_COLUMNS[2:]})


def _flag_text(value) -> str:
    """A ``fill_flag`` cell as text: "" for a clean fill and for any missing value (None, NaN, pd.NA)."""
    return "" if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)) else str(value)


def _is_flagged(values: pd.Series) -> pd.Series:
    """``fill_flag`` cells that name a reason (not "" or missing)."""
    return values.map(_flag_text).ne("")


PAIR_COLUMNS = ("model", "attribute", "case_id", "pairs_between", "btcs_between", "pairs_within", "btcs_within",
                "past_window")


def pair_counts(scored: pd.DataFrame) -> pd.DataFrame:
    """Per model × case (template): mutant pairs of different classes (``pairs_between``) and of the same class
    (``pairs_within``, the placebo null), and how many of each have different labels (``btcs_between`` equals
    :func:`btcs`'s ``n_btcs``). Columns :data:`PAIR_COLUMNS`; ``past_window`` as in :func:`btcs`."""
    mutants = _mutants(scored, required=("model", "label", "case_id", "group", "attribute"))
    case = ["model", "attribute", "case_id"]
    half_pairs = (lambda n: n * (n - 1) // 2)
    cells = mutants.groupby([*case, "group", "label"], observed=True).size().rename("n").reset_index()
    per_class = cells.groupby([*case, "group"], observed=True)["n"].sum()
    per_label = cells.groupby([*case, "label"], observed=True)["n"].sum()
    out = pd.DataFrame({
        "n": per_class.groupby(level=case, sort=False).sum(),
        "pairs_within": half_pairs(per_class).groupby(level=case).sum(),
        "same_label_within": half_pairs(cells["n"]).groupby([cells[c] for c in case]).sum(),
        "same_label": half_pairs(per_label).groupby(level=case).sum()}).reset_index()
    pairs = half_pairs(out["n"])
    different_labels = pairs - out["same_label"]
    out["btcs_within"] = out["pairs_within"] - out["same_label_within"]
    out["pairs_between"] = pairs - out["pairs_within"]
    out["btcs_between"] = different_labels - out["btcs_within"]
    if "input_id" in mutants.columns:  # as btcs(): every mutant reads the same input → past the model's window
        inputs = mutants.groupby(["model", "case_id"], observed=True)["input_id"].nunique().rename("inputs")
        out = out.merge(inputs.reset_index(), on=["model", "case_id"], how="left")
        out["past_window"] = (out["n"] > 1) & out["inputs"].eq(1)
    else:
        out["past_window"] = False
    return out.loc[:, list(PAIR_COLUMNS)].astype({c: int for c in PAIR_COLUMNS[3:7]})


def rate_rows(scored: pd.DataFrame) -> pd.DataFrame:
    """``scored`` without the rows whose ``noun_fill`` is ``"crossed"`` (all rows when there is no such column, and
    rows of other generators, NaN there). A template with a name and a noun filled as BiasFinder fills it
    (``noun_fills="all"``: every name times every noun of the class) has mutants that share a name or a noun with
    their classmates and never across classes, so its within-class pairs differ in fewer words than its
    between-class pairs, and a model with no class effect shows an excess (docs/statistics.md: 16 % false alarms at
    alpha 5 % in the preset's design on IMDB train, 69 % with twelve such templates). Kept: that template's own noun
    pair (``"own"``, named by the name alone as in every other template), the templates whose nouns are their only
    fills (``"other"``), and every template without a noun. Table 4's BTC counts read every row."""
    if "noun_fill" not in scored.columns:
        return scored
    return scored[scored["noun_fill"].astype(object).ne("crossed")]
