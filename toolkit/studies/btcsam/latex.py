"""BTC-SAM's paper tables (Kardkovács et al. 2025, Tables 2–5) as LaTeX layouts."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from toolkit import formatting
from toolkit.outputs.latex_render import Block, Column, Layout
from toolkit.outputs.latex_tables import (
    PaperTable,
    estimates,
    has,
    intervals,
    margin_text,
    model_labels,
    numbers,
    only,
    require,
    sections,
    stacked,
    texts,
    verdict_cells,
    verdict_legend,
)
from toolkit.studies.btcsam.analysis import VERDICT_GROUPS


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
    cis = has(rows, "ci_low", "ci_high")
    ci_places = formatting.column_decimals(pd.concat([rows["ci_low"], rows["ci_high"]]), counts=False) if cis else 0

    def interval(r: pd.Series) -> str:
        return formatting.format_interval(r["ci_low"], r["ci_high"], decimals=ci_places)

    if cis:
        blocks.append(Block("Added: 95% Wilson CI", _pivot_cells(
            rows, index="bias_type", columns="test_set", index_order=types, column_order=sets, cell=interval)))
    models = only(rows, "n_models")
    head = (f"BTC-SAM: detection probability per bias type and test set at θ = {theta:g}, averaged over "
            f"{models + ' ' if models else ''}models and cases (Kardkovács et al. 2025, Table 2)")
    where = dict(label="tab:btcsam-table2", title=f"BTC-SAM Table 2 (θ = {theta:g})")
    long = rows.assign(_set=pd.Categorical(rows["test_set"], sets), _type=pd.Categorical(rows["bias_type"], types))
    long = long.sort_values(["_set", "_type"], kind="stable").reset_index(drop=True)
    by_set = Layout(keys=[Column("Bias type", texts(long["bias_type"]), "l")],
                    blocks=[Block("", [Column("detection\nprobability", [formatting.format_number(
                        v, decimals=places) for v in long["detection_probability"]])]),
                            *([Block("", [Column("95% Wilson CI", [interval(r) for _, r in long.iterrows()])])]
                              if cis else [])],
                    sections=sections(long, "test_set"),
                    caption=head + (", a block per test set. Added: 95% Wilson intervals." if cis else
                                    ", a block per test set."), **where)
    stacked_form = None
    if cis:
        stacked_form = Layout(
            keys=[Column("Bias type", types, "l")], narrow=by_set,
            blocks=[Block("Detection probability [added: 95% Wilson CI]", _pivot_cells(
                rows, index="bias_type", columns="test_set", index_order=types, column_order=sets,
                cell=lambda r: formatting.format_number(r["detection_probability"], decimals=places) + "\n"
                + interval(r)))],
            caption=head + ". Added: below each probability, its 95% Wilson interval.", **where)
        for column in stacked_form.blocks[0].columns:
            column.stacked = True
    return Layout(keys=[Column("Bias type", types, "l")], blocks=blocks, narrow=stacked_form or by_set,
                  caption=head + (". Added: 95% Wilson intervals." if cis else "."), **where)


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
    rows["test_set"] = rows["test_set"].astype(str)
    sets = list(dict.fromkeys(rows["test_set"]))
    types = list(dict.fromkeys(rows["bias_type"]))
    places = formatting.column_decimals(rows["failure_pct"], counts=False)
    cis = has(rows, "ci_low", "ci_high")
    ci_places = formatting.column_decimals(pd.concat([rows["ci_low"], rows["ci_high"]]), counts=False) if cis else 0
    cells = {(r["test_set"], r["_label"], r["bias_type"]): r for _, r in rows.iterrows()}
    order = [(test_set, model) for test_set in sets
             for model in dict.fromkeys(rows.loc[rows["test_set"] == test_set, "_label"])]
    heads = {start: test_set for start, (test_set, _) in enumerate(order)
             if len(sets) > 1 and (start == 0 or order[start - 1][0] != test_set)}

    def column(bias_type: str, cell: Callable[[pd.Series], str], **options: object) -> Column:
        got = [cells.get((test_set, model, bias_type)) for test_set, model in order]
        return Column(bias_type, [formatting.MISSING if r is None else cell(r) for r in got], **options)

    def pct(r: pd.Series) -> str:
        return formatting.format_number(r["failure_pct"], decimals=places)

    def interval(r: pd.Series) -> str:
        return formatting.format_interval(r["ci_low"], r["ci_high"], decimals=ci_places)

    blocks = [Block("Failure %", [column(t, pct) for t in types])]
    if cis:
        blocks.append(Block("Added: 95% Wilson CI of failure %", [column(t, interval) for t in types]))
    excess = has(rows, "excess_pct", "excess_low", "excess_high")
    reason = only(rows, "no_test_reason") if "no_test_reason" in rows.columns else ""
    test_set = sets[0] if len(sets) == 1 else ""
    head = (f"BTC-SAM: failure % per model and bias type at θ = {theta:g}" + (f" on {test_set}" if test_set else "")
            + " (Kardkovács et al. 2025, Table 5)")
    tail = (" The excess of cross-group over same-group pairs and its verdict: Table "
            r"\ref{tab:btcsam-table5-excess}." if excess else
            f" No excess over a same-group null: {reason}." if reason and reason != "nan" else "")
    where = dict(keys=[Column("Model", [model for _, model in order], "l")], sections=heads,
                 label="tab:btcsam-table5", title=f"BTC-SAM Table 5 (θ = {theta:g})")
    by_type = _table5_by_type(rows, cells=cells, sets=sets, types=types, pct=pct, interval=interval if cis else None,
                              head=head, tail=tail, label=where["label"], title=where["title"])
    narrow = by_type
    if cis:
        narrow = Layout(blocks=[Block("Failure % [added: 95% Wilson CI]", [
            column(t, lambda r: f"{pct(r)}\n{interval(r)}", stacked=True) for t in types])], narrow=by_type,
            caption=head + ". Added: below each failure %, its 95% Wilson interval." + tail, **where)
    return Layout(blocks=blocks, narrow=narrow,
                  caption=head + (". Added: the 95% Wilson interval of each failure %." if cis else ".") + tail,
                  **where)


def _table5_by_type(rows: pd.DataFrame, *, cells: Mapping, sets: Sequence[str], types: Sequence[str],
                    pct: Callable[[pd.Series], str], interval: Callable[[pd.Series], str] | None, head: str,
                    tail: str, label: str, title: str) -> Layout:
    """Table 5 turned: a row per bias type in a block per test set, a column per model (where that needs fewer
    floats: many test sets, few models); each cell the failure % and its interval, on one line or stacked."""
    models = list(dict.fromkeys(rows["_label"]))
    order = [(test_set, t) for test_set in sets for t in types
             if any((test_set, m, t) in cells for m in models)]
    heads = {start: test_set for start, (test_set, _) in enumerate(order)
             if len(sets) > 1 and (start == 0 or order[start - 1][0] != test_set)}

    def column(model: str, cell: Callable[[pd.Series], str], **options: object) -> Column:
        got = [cells.get((test_set, model, t)) for test_set, t in order]
        return Column(model, [formatting.MISSING if r is None else cell(r) for r in got], **options)

    where = dict(keys=[Column("Bias type", [t for _, t in order], "l")], sections=heads, label=label, title=title)
    turned = head + ", a row per bias type and a column per model"
    if interval is None:
        return Layout(blocks=[Block("Failure %", [column(m, pct) for m in models])], caption=turned + "." + tail,
                      **where)
    stacked_form = Layout(blocks=[Block("Failure % [added: 95% Wilson CI]", [
        column(m, lambda r: f"{pct(r)}\n{interval(r)}", stacked=True) for m in models])],
        caption=turned + ". Added: below each failure %, its 95% Wilson interval." + tail, **where)
    return Layout(blocks=[Block("Failure % [added: 95% Wilson CI]", [
        column(m, lambda r: f"{pct(r)} {interval(r)}") for m in models])], narrow=stacked_form,
        caption=turned + ". Added: after each failure %, its 95% Wilson interval." + tail, **where)


def _excess_rows(frame: pd.DataFrame, settings: Mapping | None = None) -> pd.DataFrame:
    if not {"excess_pct", "theta"} <= set(frame.columns):
        return frame.iloc[0:0]
    rows = _at_theta(frame, _theta(frame, settings))
    return rows[pd.to_numeric(rows["excess_pct"], errors="coerce").notna()]


def _btcsam_table5_excess(frame: pd.DataFrame, *, settings: Mapping | None = None, **_: object) -> Layout:
    require(frame, ("model", "test_set", "bias_type", "theta", "cross_pct", "null_pct", "excess_pct", "excess_low",
                     "excess_high", "p_adjusted", "verdict"), name="btcsam_table5_excess",
             source="btcsam_failure_pct")
    theta = _theta(frame, settings)
    rows = _excess_rows(frame, settings).copy()
    rows["_label"] = model_labels(rows["model"])
    rows = rows.sort_values(["test_set"], kind="stable").reset_index(drop=True)
    one_set = only(rows, "test_set")
    rows["_block"] = [label if one_set else f"{test_set} · {label}"
                      for test_set, label in zip(rows["test_set"].astype(str), rows["_label"])]
    legend = verdict_legend(rows["verdict"], groups=VERDICT_GROUPS, margin=margin_text(settings))
    columns = [Column("cross %", numbers(rows["cross_pct"], rate=True)),
               Column("same-\ngroup %", numbers(rows["null_pct"], rate=True)),
               Column("excess, % [95% CI]", estimates(rows, "excess_pct", "excess_low", "excess_high")),
               Column("p adj.", numbers(rows["p_adjusted"], p_value=True, decimals=3)),
               Column("verdict", verdict_cells(rows["verdict"], groups=VERDICT_GROUPS), "l")]
    narrow = [columns[0], columns[1],
              Column("excess, %\n[95% CI]", stacked(numbers(rows["excess_pct"], rate=True),
                                                     intervals(rows, "excess_low", "excess_high")), stacked=True),
              Column("p adj.\nverdict", stacked(columns[3].cells, columns[4].cells), "l", stacked=True)]
    where = dict(keys=[Column("Bias type", texts(rows["bias_type"]), "l")], sections=sections(rows, "_block"),
                 label="tab:btcsam-table5-excess", title=f"BTC-SAM excess over same-group pairs (θ = {theta:g})",
                 caption=f"BTC-SAM, beyond the paper: at θ = {theta:g}" + (f" on {one_set}" if one_set else "")
                         + ", per model (a block each" + ("" if one_set else ", with its test set")
                         + "), the failure % of cross-group pairs, of same-group pairs (the null), the excess "
                           "(cross − same) with Newcombe's 95% interval, p corrected over model × test set × bias "
                           f"type, and the verdict ({legend}).")
    return Layout(blocks=[Block("", columns)], narrow=Layout(blocks=[Block("", narrow)], **where), **where)


LATEX_LAYOUTS: dict[str, PaperTable] = {entry.name: entry for entry in [
    PaperTable("btcsam_table2", "Kardkovács et al. 2025, Table 2", "btcsam_detection", _btcsam_table2),
    PaperTable("btcsam_table3", "Kardkovács et al. 2025, Table 3", "btcsam_diversity", _btcsam_table3),
    PaperTable("btcsam_table4", "Kardkovács et al. 2025, Table 4", "btcsam_stage_diversity", _btcsam_table4),
    PaperTable("btcsam_table5", "Kardkovács et al. 2025, Table 5", "btcsam_failure_pct", _btcsam_table5),
    PaperTable("btcsam_table5_excess", "beyond Kardkovács et al. 2025, Table 5", "btcsam_failure_pct",
               _btcsam_table5_excess, lambda frame: len(_excess_rows(frame))),
]}
