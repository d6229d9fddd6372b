"""BiasFinder's paper tables (Asyrofi et al. 2021, Tables 4 and 5) as LaTeX layouts."""
from __future__ import annotations

import pandas as pd

from toolkit.outputs.latex_render import Block, Column, Layout
from toolkit.outputs.latex_tables import (
    VERDICT_NOTE,
    PaperTable,
    estimates,
    has,
    intervals,
    model_labels,
    numbers,
    only,
    require,
    sections,
    texts,
    verdict_label,
)


def _biasfinder_table4(frame: pd.DataFrame, **_: object) -> Layout:
    require(frame, ("model", "attribute", "templates", "mutants", "templates_with_btc", "btcs"),
             name="biasfinder_table4", source="biasfinder_table4")
    rows = frame.copy()
    rows["_label"] = model_labels(rows["model"])
    rows = rows.sort_values("_label", kind="stable").reset_index(drop=True)
    blocks = [Block("Paper", [Column("templ.", numbers(rows["templates"])),
                              Column("mutants", numbers(rows["mutants"])),
                              Column("templ.\nw/ BTC", numbers(rows["templates_with_btc"])),
                              Column("BTCs", numbers(rows["btcs"]))])]
    columns = []
    if has(rows, "btc_rate", "btc_rate_low", "btc_rate_high"):
        columns.append(Column("BTC rate [95% CI]", estimates(rows, "btc_rate", "btc_rate_low", "btc_rate_high")))
    elif has(rows, "btc_rate"):
        columns.append(Column("BTC rate", numbers(rows["btc_rate"], rate=True)))
    if has(rows, "null_rate"):
        columns.append(Column("null", numbers(rows["null_rate"], rate=True)))
    if has(rows, "excess", "excess_low", "excess_high"):
        columns.append(Column("excess [95% CI]", estimates(rows, "excess", "excess_low", "excess_high")))
    if has(rows, "verdict"):
        columns.append(Column("verdict", [verdict_label(v, a="b", b="w") for v in rows["verdict"]], "l"))
    if columns:
        blocks.append(Block("Added", columns))
    model = only(rows, "_label")
    return Layout(
        keys=[Column("Charact.", texts(rows["attribute"]), "l")], blocks=blocks,
        sections=sections(rows, "_label"), label="tab:biasfinder-table4",
        caption="BiasFinder: templates, mutants, templates with a bias-uncovering test case (BTC) and BTCs per "
                "characteristic" + (f" for {model}" if model else " and model")
                + " (Asyrofi et al. 2021, Table 4)."
                + (" Added: the BTC rate between classes with its 95% interval, the within-class null rate, the "
                   "excess over it and the verdict (b>w: between-class pairs flip more; "
                   + VERDICT_NOTE.removeprefix("verdict: a>b or a<b significant, ") + ")." if columns else ""))


def _biasfinder_table5(frame: pd.DataFrame, **_: object) -> Layout:
    require(frame, ("annotator", "n_btcs", "tpr"), name="biasfinder_table5", source="biasfinder_tpr")
    rows = frame.reset_index(drop=True)
    paper = [Column("BTCs", numbers(rows["n_btcs"]))]
    if has(rows, "true_positives"):
        paper.append(Column("true pos.", numbers(rows["true_positives"])))
    paper.append(Column("TPR", numbers(rows["tpr"], rate=True)))
    blocks = [Block("Paper", paper)]
    if has(rows, "tpr_low", "tpr_high"):
        blocks.append(Block("Added", [Column("95% CI", intervals(rows, "tpr_low", "tpr_high"))]))
    rule = only(rows, "rule")
    keys = [Column("Annotator", texts(rows["annotator"]), "l")]
    if "rule" in rows.columns and not rule:
        keys.append(Column("rule", texts(rows["rule"]), "l"))
    return Layout(keys=keys, blocks=blocks, label="tab:biasfinder-table5",
                  caption="BiasFinder: true-positive rate of the annotated BTCs per annotator (Asyrofi et al. 2021, "
                          "Table 5)" + (f", {rule} rule" if rule else "")
                          + (". Added: the 95% Wilson interval." if len(blocks) > 1 else "."))


LATEX_LAYOUTS: dict[str, PaperTable] = {entry.name: entry for entry in [
    PaperTable("biasfinder_table4", "Asyrofi et al. 2021, Table 4", "biasfinder_table4", _biasfinder_table4),
    PaperTable("biasfinder_table5", "Asyrofi et al. 2021, Table 5", "biasfinder_tpr", _biasfinder_table5),
]}
