"""BTC-SAM's paper tables (Kardkovács et al. 2025, Tables 2–5) as LaTeX layouts."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from toolkit import formatting
from toolkit.outputs.latex_render import Block, Column, Layout
from toolkit.outputs.latex_tables import (
    PaperTable,
    has,
    model_labels,
    numbers,
    only,
    require,
    sections,
    texts,
    verdict_label,
)


def _theta(frame: pd.DataFrame, settings: Mapping | None) -> float | None:
    values = sorted(set(pd.to_numeric(frame["theta"], errors="coerce").dropna()))
    wanted = (settings or {}).get("theta")
    if wanted is not None and any(abs(v - float(wanted)) < 1e-9 for v in values):
        return float(wanted)
    return 0.2 if any(abs(v - 0.2) < 1e-9 for v in values) else (values[0] if values else None)


def _at_theta(frame: pd.DataFrame, theta: float | None) -> pd.DataFrame:
    if theta is None:
        return frame
    return frame[(pd.to_numeric(frame["theta"], errors="coerce") - theta).abs() < 1e-9]


def _pivot_cells(rows: pd.DataFrame, *, index: str, columns: str, cell: Callable[[pd.Series], str],
                 index_order: Sequence[str], column_order: Sequence[str]) -> list[Column]:
    cells = {(r[index], r[columns]): cell(r) for _, r in rows.iterrows()}
    return [Column(str(c), [cells.get((i, c), formatting.MISSING) for i in index_order]) for c in column_order]


def _btcsam_table2(frame: pd.DataFrame, *, settings: Mapping | None = None, **_: object) -> Layout:
    require(frame, ("test_set", "bias_type", "theta", "detection_probability"), name="btcsam_table2",
             source="btcsam_detection")
    theta = _theta(frame, settings)
    rows = _at_theta(frame, theta).reset_index(drop=True)
    types = list(dict.fromkeys(rows["bias_type"].astype(str)))
    sets = list(dict.fromkeys(rows["test_set"].astype(str)))
    rows = rows.assign(bias_type=rows["bias_type"].astype(str), test_set=rows["test_set"].astype(str))
    places = formatting.column_decimals(rows["detection_probability"], counts=False)
    paper = _pivot_cells(rows, index="bias_type", columns="test_set", index_order=types, column_order=sets,
                         cell=lambda r: formatting.format_number(r["detection_probability"], decimals=places))
    blocks = [Block("Detection probability", paper)]
    if has(rows, "ci_low", "ci_high"):
        ci_places = formatting.column_decimals(pd.concat([rows["ci_low"], rows["ci_high"]]), counts=False)
        blocks.append(Block("Added: 95% Wilson CI", _pivot_cells(
            rows, index="bias_type", columns="test_set", index_order=types, column_order=sets,
            cell=lambda r: formatting.format_interval(r["ci_low"], r["ci_high"], decimals=ci_places))))
    models = only(rows, "n_models")
    return Layout(keys=[Column("Bias type", types, "l")], blocks=blocks, label="tab:btcsam-table2",
                  caption=f"BTC-SAM: detection probability per bias type and test set at θ = {theta:g}, averaged "
                          f"over {models + ' ' if models else ''}models and cases (Kardkovács et al. 2025, Table 2)"
                          + (". Added: 95% Wilson intervals." if len(blocks) > 1 else "."))


_METRICS = (("unique_cases", "cases"), ("sentences", "sent."), ("unique_tokens", "unique\ntokens"),
            ("mean_chars", "chars/\nsent."), ("mean_tokens", "tokens/\nsent."), ("mean_word_len", "word\nlength"),
            ("identity_terms", "identity\nterms"), ("concept_terms", "concept\nterms"))


def _btcsam_table3(frame: pd.DataFrame, **_: object) -> Layout:
    require(frame, ("test_set", *(c for c, _ in _METRICS)), name="btcsam_table3", source="btcsam_diversity")
    rows = frame.reset_index(drop=True)
    return Layout(keys=[Column("Test set", texts(rows["test_set"]), "l")],
                  blocks=[Block("", [Column(h, numbers(rows[c]))]) for c, h in _METRICS],
                  label="tab:btcsam-table3",
                  caption="BTC-SAM: diversity of each test set (Kardkovács et al. 2025, Table 3).")


def _btcsam_table4(frame: pd.DataFrame, **_: object) -> Layout:
    metrics = (*_METRICS, ("mean_edit_distance", "edit\ndistance"))
    require(frame, ("test_set", "stage", *(c for c, _ in metrics)), name="btcsam_table4",
             source="btcsam_stage_diversity")
    rows = frame.sort_values("test_set", kind="stable").reset_index(drop=True)
    test_set = only(rows, "test_set")
    return Layout(keys=[Column("Stage", texts(rows["stage"]), "l")],
                  blocks=[Block("", [Column(h, numbers(rows[c]))]) for c, h in metrics],
                  sections=sections(rows, "test_set"), label="tab:btcsam-table4",
                  caption="BTC-SAM: diversity per generation stage" + (f" of {test_set}" if test_set else "")
                          + ", with the mean word-level edit distance to the source (Kardkovács et al. 2025, "
                            "Table 4).")


def _btcsam_table5(frame: pd.DataFrame, *, settings: Mapping | None = None, **_: object) -> Layout:
    require(frame, ("model", "test_set", "bias_type", "theta", "failure_pct"), name="btcsam_table5",
             source="btcsam_failure_pct")
    theta = _theta(frame, settings)
    rows = _at_theta(frame, theta).copy()
    rows["_label"] = model_labels(rows["model"])
    rows["bias_type"] = rows["bias_type"].astype(str)
    sets = list(dict.fromkeys(rows["test_set"].astype(str)))
    types = list(dict.fromkeys(rows["bias_type"]))
    sections, paper, added = {}, {t: [] for t in types}, {t: [] for t in types}
    labels: list[str] = []
    places = formatting.column_decimals(rows["failure_pct"], counts=False)
    has_excess = has(rows, "excess_pct", "excess_low", "excess_high")
    ex_places = formatting.column_decimals(pd.concat([rows[c] for c in ("excess_pct", "excess_low", "excess_high")]),
                                           counts=False) if has_excess else 3
    for test_set in sets:
        block = rows[rows["test_set"].astype(str) == test_set]
        models = list(dict.fromkeys(block["_label"]))
        if len(sets) > 1:
            sections[len(labels)] = test_set
        labels += models
        for bias_type in types:
            cells = {r["_label"]: r for _, r in block[block["bias_type"] == bias_type].iterrows()}
            for model in models:
                r = cells.get(model)
                paper[bias_type].append(formatting.MISSING if r is None
                                        else formatting.format_number(r["failure_pct"], decimals=places))
                mark = "" if r is None or not has_excess else verdict_label(r.get("verdict"), a="x", b="s")
                added[bias_type].append(formatting.MISSING if r is None or not has_excess
                                        else formatting.format_estimate(r["excess_pct"], r["excess_low"],
                                                                        r["excess_high"], decimals=ex_places)
                                        + ("" if mark in ("?", formatting.MISSING) else f" {mark}"))
    blocks = [Block("Failure %", [Column(t, paper[t]) for t in types])]
    if has(rows, "ci_low", "ci_high"):
        ci_places = formatting.column_decimals(pd.concat([rows["ci_low"], rows["ci_high"]]), counts=False)
        cis = {t: [] for t in types}
        for test_set in sets:
            block = rows[rows["test_set"].astype(str) == test_set]
            for bias_type in types:
                cells = {r["_label"]: r for _, r in block[block["bias_type"] == bias_type].iterrows()}
                for model in dict.fromkeys(block["_label"]):
                    r = cells.get(model)
                    cis[bias_type].append(formatting.MISSING if r is None else formatting.format_interval(
                        r["ci_low"], r["ci_high"], decimals=ci_places))
        blocks.append(Block("Added: 95% Wilson CI of failure %", [Column(t, cis[t]) for t in types]))
    if has_excess:
        blocks.append(Block("Added: excess, % [95% CI]", [Column(t, added[t]) for t in types]))
    reason = only(rows, "no_test_reason") if "no_test_reason" in rows.columns else ""
    test_set = sets[0] if len(sets) == 1 else ""
    return Layout(keys=[Column("Model", labels, "l")], blocks=blocks, sections=sections,
                  label="tab:btcsam-table5",
                  caption=f"BTC-SAM: failure % per model and bias type at θ = {theta:g}"
                          + (f" on {test_set}" if test_set else "") + " (Kardkovács et al. 2025, Table 5)"
                          + (". Added: the 95% Wilson interval of each failure %"
                             if has(rows, "ci_low", "ci_high") else ".")
                          + ("; the excess of cross-group over same-group pairs with Newcombe's interval "
                             "(x>s: significant after correction)." if has_excess else
                             f". No excess over a same-group null: {reason}." if reason and reason != "nan"
                             else "."))


LATEX_LAYOUTS: dict[str, PaperTable] = {entry.name: entry for entry in [
    PaperTable("btcsam_table2", "Kardkovács et al. 2025, Table 2", "btcsam_detection", _btcsam_table2),
    PaperTable("btcsam_table3", "Kardkovács et al. 2025, Table 3", "btcsam_diversity", _btcsam_table3),
    PaperTable("btcsam_table4", "Kardkovács et al. 2025, Table 4", "btcsam_stage_diversity", _btcsam_table4),
    PaperTable("btcsam_table5", "Kardkovács et al. 2025, Table 5", "btcsam_failure_pct", _btcsam_table5),
]}
