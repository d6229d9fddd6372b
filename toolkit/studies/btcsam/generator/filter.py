"""The counterfactual filter (Kardkovács et al. 2025, Section 4.5): a counterfactual group is dropped when a
counterfactual is missing, equals its source sentence, or lacks its identity term.

Input: a BTC-SAM case table (one case per group; the row with ``is_original`` is the source, ``fill`` the identity
term). Output: the kept cases and :data:`FILTER_COLUMNS` counts (groups per stage and reason; reason ``kept`` for the
groups that pass). A group is counted once, under its first failing reason in :data:`REASONS` order.
"""
from __future__ import annotations

import re

import pandas as pd

REASONS = ("missing_counterfactual", "same_as_source", "missing_identity_term")
FILTER_COLUMNS = ("stage", "reason", "groups")


def _mentions(text: str, term: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, flags=re.IGNORECASE) is not None


def _reason(group: pd.DataFrame) -> str:
    source = group.loc[group["is_original"], "text"].iloc[0].strip()
    others = group[~group["is_original"]]
    if (others["text"].str.strip() == "").any():
        return "missing_counterfactual"
    if (others["text"].str.strip() == source).any():
        return "same_as_source"
    if not all(_mentions(t, term) for t, term in zip(group["text"], group["fill"])):
        return "missing_identity_term"
    return "kept"


def filter_counterfactuals(cases: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return ``(kept_cases, counts)``; see the module docstring."""
    reasons = cases.groupby("case_id", sort=False).apply(_reason, include_groups=False).rename("reason")
    kept = cases[cases["case_id"].map(reasons) == "kept"].reset_index(drop=True)
    stages = cases.drop_duplicates("case_id").set_index("case_id")["stage"]
    counts = (pd.DataFrame({"stage": stages.reindex(reasons.index), "reason": reasons})
              .groupby(["stage", "reason"], sort=False).size().rename("groups").reset_index())
    return kept, counts.loc[:, list(FILTER_COLUMNS)]
