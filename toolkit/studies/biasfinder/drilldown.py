"""The drill-down pairs of the study (:mod:`toolkit.drilldown`: the fixed pair columns and the viewer).

- :func:`biasfinder_pairs` — a BiasFinder ``template`` (its ``case_id``), every model: the pairs of mutants of
different classes (``btcs_only=True``: only those the model labels differently, the BTCs). ``key``: the BTC id
of :func:`toolkit.studies.biasfinder.analysis.sample_btcs`, ``model|variant_a|variant_b``.
"""
from __future__ import annotations

import pandas as pd

from toolkit.drilldown import PAIR_COLUMNS, pairs_frame, pick, scored_table


def biasfinder_pairs(result, *, template: str, btcs_only: bool = False) -> pd.DataFrame:
    """The mutant pairs of BiasFinder template ``template`` (a ``case_id`` of the result's scored table) for every
    model of a BiasFinder result (:class:`toolkit.studies.result.StudyResult`): each pair of mutants of different classes, ordered by
    variant id (``btcs_only``: only the BTCs, pairs the model labels differently), columns :data:`PAIR_COLUMNS`."""
    scored = scored_table(result, study="biasfinder", columns=("model", "case_id", "variant_id", "text", "group", "label",
                                                          "score"))
    data = pick(scored, "case_id", template, kind="template")
    data = data[data["group"].fillna("").astype(str) != ""]
    if "is_original" in data.columns:
        data = data[~data["is_original"].fillna(False).astype(bool)]
    data = data.loc[:, ["model", "variant_id", "text", "group", "label", "score"]]
    data["_model"] = pd.factorize(data["model"])[0]  # the models in the table's order
    data = data.sort_values(["_model", "variant_id"], kind="stable")
    data["_rank"] = range(len(data))
    both = data.merge(data.drop(columns="model"), on="_model", suffixes=("_a", "_b"))  # each model's mutants²
    keep = (both["_rank_a"] < both["_rank_b"]) & (both["group_a"] != both["group_b"])
    if btcs_only:
        keep &= both["label_a"] != both["label_b"]
    both = both[keep].sort_values(["_rank_a", "_rank_b"])
    return pairs_frame(pd.DataFrame({
        "key": both["model"].astype(str) + "|" + both["variant_id_a"].astype(str) + "|"
        + both["variant_id_b"].astype(str), "model": both["model"], "text_a": both["text_a"],
        "text_b": both["text_b"], "group_a": both["group_a"], "group_b": both["group_b"],
        "score_a": both["score_a"], "score_b": both["score_b"]}))
