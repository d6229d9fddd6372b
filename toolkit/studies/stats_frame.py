"""The statistics frame: one shape for every study's conclusions (:data:`COLUMNS`).

One row per conclusion — a model's gap on one attribute in one scope (an EEC task × subset, a PSA corpus, a
BiasFinder characteristic, a BTC-SAM test set × bias type) — with its estimate, interval, effect size, raw and
corrected p, verdict (the stored word a CI gate matches: ``a higher``, ``inconclusive``, …) and ``conclusion`` (the
verdict as a sentence naming the groups: ``female higher than male``, :func:`toolkit.verdicts.conclusion`), and,
where a number has no interval or test, the reason. ``unit`` says what the estimate is
measured in (a valence difference, a BTC-rate excess, a failure-rate excess), ``family`` the correction family and
``null`` the null the test is against. :func:`frame` builds and checks one; :func:`toolkit.audit.audit` stacks them.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from toolkit import verdicts
from toolkit.errors import SchemaError

COLUMNS = ("study", "model", "attribute", "scope", "estimate", "ci_low", "ci_high", "effect_size", "p_value",
           "p_adjusted", "verdict", "conclusion", "unit", "family", "correction", "null", "reason")
"""The columns of every statistics frame, in this order."""
NUMERIC = ("estimate", "ci_low", "ci_high", "effect_size", "p_value", "p_adjusted")
TEXT = tuple(c for c in COLUMNS if c not in NUMERIC)


def frame(rows: pd.DataFrame | list[Mapping], **constant: object) -> pd.DataFrame:
    """A statistics frame from ``rows`` (a frame or dicts holding some of :data:`COLUMNS`) with ``constant``
    columns set for every row; missing numbers are NaN, missing text "". Columns other than :data:`COLUMNS` are
    dropped. A row with a number but no verdict is a SchemaError (every number carries a verdict or a reason)."""
    data = pd.DataFrame(rows if isinstance(rows, pd.DataFrame) else list(rows)).copy()
    for key, value in constant.items():
        data[key] = value
    for column in NUMERIC:
        data[column] = pd.to_numeric(data[column], errors="coerce") if column in data else np.nan
    for column in TEXT:
        data[column] = data[column].fillna("").astype(str) if column in data else ""
    data = data.loc[:, list(COLUMNS)].reset_index(drop=True)
    bare = data["estimate"].notna() & (data["verdict"] == "") & (data["reason"] == "")
    if bare.any():
        raise SchemaError(f"{int(bare.sum())} conclusion(s) have an estimate but neither a verdict nor a reason "
                          f"(first: {data.loc[bare].iloc[0][['study', 'model', 'attribute', 'scope']].to_dict()}).",
                          fix="give every estimate its verdict, or say in `reason` why it has none.")
    return data


def empty() -> pd.DataFrame:
    """A statistics frame with no rows."""
    return frame([])


def with_conclusions(data: pd.DataFrame, *, groups: "verdicts.VerdictGroups | None",
                     by: str | None = None) -> pd.DataFrame:
    """``data`` (a statistics frame) with each empty ``conclusion`` filled from its verdict
    (:func:`toolkit.verdicts.conclusion`; the groups as :func:`toolkit.verdicts.groups_of` picks them: ``groups``,
    or ``groups[row[by]]``); without ``groups``, the verdict as it is."""
    out = data.copy()
    empty = out["conclusion"].fillna("").astype(str) == ""
    if not empty.any():
        return out
    rows = out.loc[empty].to_dict("records")
    out.loc[empty, "conclusion"] = [
        verdicts.conclusion(row["verdict"], groups=verdicts.groups_of(row, groups=groups, by=by))
        if groups is not None else str(row["verdict"]) for row in rows]
    return out
