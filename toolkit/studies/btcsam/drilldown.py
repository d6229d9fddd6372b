"""The drill-down pairs of the study (:mod:`toolkit.drilldown`: the fixed pair columns and the viewer).

- :func:`btcsam_pairs` — a BTC-SAM cell (``test_set`` × ``model``, optionally one ``bias_type``): per test case,
the text with the highest valence against the one with the lowest (the pair that spans the case's score range).
``key``: the ``case_id``.
"""
from __future__ import annotations

import pandas as pd

from toolkit.drilldown import PAIR_COLUMNS, pairs_frame, pick, scored_table


def btcsam_pairs(result, *, test_set: str, model: str, bias_type: str | None = None) -> pd.DataFrame:
    """Per test case of ``test_set`` (and ``bias_type``, if given) scored by ``model`` in a
    BTC-SAM result (:class:`toolkit.studies.result.StudyResult`): its highest-valence text (a) against its lowest (b), columns
    :data:`PAIR_COLUMNS`, ``key`` the case id; cases with fewer than two scored texts are left out. Ties: the
    last of the highest and the first of the lowest in the table's order."""
    scored = scored_table(result, study="btcsam", columns=("model", "test_set", "bias_type", "case_id", "text", "score"))
    data = pick(pick(scored, "test_set", test_set, kind="test set"), "model", model, kind="model")
    if bias_type is not None:
        data = pick(data, "bias_type", bias_type, kind="bias type")
    data = data[data["score"].notna()]
    group = (data["group"] if "group" in data.columns else pd.Series("", index=data.index)).fillna("").astype(str)
    if "fill" in data.columns:
        group = group.where(group != "", data["fill"].fillna("").astype(str))
    data = data.assign(_group=group).sort_values(["case_id", "score"], kind="stable")
    sizes = data.groupby("case_id", sort=True)["score"].transform("size")
    data = data[sizes >= 2]
    by_case = data.groupby("case_id", sort=True)
    a, b = by_case.nth(-1).set_index("case_id"), by_case.nth(0).set_index("case_id")
    return pairs_frame(pd.DataFrame({"key": a.index, "model": model, "text_a": a["text"].to_numpy(),
                                     "text_b": b["text"].to_numpy(), "group_a": a["_group"].to_numpy(),
                                     "group_b": b["_group"].to_numpy(), "score_a": a["score"].to_numpy(),
                                     "score_b": b["score"].to_numpy()}))
