"""BiasFinder's paper tables (Asyrofi et al. 2021, Tables 4 and 5) as LaTeX layouts."""
from __future__ import annotations

import pandas as pd

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
from toolkit.studies.biasfinder.analysis import VERDICT_GROUPS


def _biasfinder_table4(frame: pd.DataFrame, *, settings: object = None, **_: object) -> Layout:
    require(frame, ("model", "attribute", "templates", "mutants", "templates_with_btc", "btcs"),
             name="biasfinder_table4", source="biasfinder_table4")
    rows = frame.copy()
    rows["_label"] = model_labels(rows["model"])
    rows = rows.sort_values("_label", kind="stable").reset_index(drop=True)
    paper = Block("Paper", [Column("templ.", numbers(rows["templates"])),
                            Column("mutants", numbers(rows["mutants"])),
                            Column("BTC\ntempl.", numbers(rows["templates_with_btc"])),
                            Column("BTCs", numbers(rows["btcs"]))])
    columns, narrow, legend = [], [], ""
    if has(rows, "btc_rate", "btc_rate_low", "btc_rate_high"):
        columns.append(Column("BTC rate [95% CI]", estimates(rows, "btc_rate", "btc_rate_low", "btc_rate_high")))
        narrow.append(Column("BTC rate\n[95% CI]", stacked(numbers(rows["btc_rate"], rate=True),
                                                           intervals(rows, "btc_rate_low", "btc_rate_high")),
                             stacked=True))
    elif has(rows, "btc_rate"):
        columns.append(Column("BTC rate", numbers(rows["btc_rate"], rate=True)))
        narrow.append(columns[-1])
    if has(rows, "null_rate"):
        columns.append(Column("null", numbers(rows["null_rate"], rate=True)))
        narrow.append(columns[-1])
    tested = rows["excess"].notna().tolist() if "excess" in rows.columns else None
    if has(rows, "excess", "excess_low", "excess_high"):
        columns.append(Column("excess [95% CI]", estimates(rows, "excess", "excess_low", "excess_high")))
        narrow.append(Column("excess\n[95% CI]", stacked(numbers(rows["excess"], rate=True),
                                                         intervals(rows, "excess_low", "excess_high")),
                             stacked=True))
    if has(rows, "verdict") and (tested is None or any(tested)):
        columns.append(Column("verdict", verdict_cells(rows["verdict"], groups=VERDICT_GROUPS, tested=tested), "l"))
        narrow.append(columns[-1])
        legend = verdict_legend(rows["verdict"], groups=VERDICT_GROUPS, margin=margin_text(settings), tested=tested)
    model = only(rows, "_label")
    caption = ("BiasFinder: templates, mutants, templates with a bias-uncovering test case (BTC templ.) and BTCs "
               "per characteristic" + (f" for {model}" if model else " and model")
               + " (Asyrofi et al. 2021, Table 4).")
    if columns:
        untested = tested is not None and not all(tested)
        caption += (" Added: the BTC rate between classes with its 95% interval, the within-class null rate, the "
                    "excess over it" + (f" and the verdict ({legend}" + ("; — where no null allows a test" if untested
                                                                         else "") + ")" if legend else
                                        " (— where no null allows a test)" if untested else "") + ".")
    where = dict(keys=[Column("Charact.", texts(rows["attribute"]), "l")], sections=sections(rows, "_label"),
                 label="tab:biasfinder-table4", caption=caption, title="BiasFinder Table 4")
    return Layout(blocks=[paper, *([Block("Added", columns)] if columns else [])],
                  narrow=Layout(blocks=[paper, Block("Added", narrow)], **where) if columns else None, **where)


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
