"""PSA's paper tables (Prabhakaran et al. 2019, Table 2, and the gender gap) as LaTeX layouts."""
from __future__ import annotations

import pandas as pd

from toolkit import formatting, verdicts
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
    verdict_cells,
    verdict_legend,
)
from toolkit.studies.psa.analysis import VERDICT_GROUPS


def _psa_table2(frame: pd.DataFrame, **_: object) -> Layout:
    require(frame, ("model", "corpus", "n_texts", "score_dev", "score_range"), name="psa_table2",
             source="psa_summary")
    rows = frame.sort_values("corpus", kind="stable").reset_index(drop=True)
    paper = {c: numbers(rows[c], rate=True) for c in ("score_dev", "score_range")}
    blocks = [Block("Paper", [Column("ScoreDev", paper["score_dev"]),
                              Column("ScoreRange", paper["score_range"])])]
    added = [(c, h) for c, h in (("score_dev", "ScoreDev"), ("score_range", "ScoreRange"))
             if has(rows, f"{c}_low", f"{c}_high")]
    if added:
        blocks.append(Block("Added: 95% CI", [Column(h, intervals(rows, f"{c}_low", f"{c}_high"))
                                              for c, h in added]))
    corpus = only(rows, "corpus")
    n = only(rows, "n_texts")
    keys = [Column("Model", model_labels(rows["model"]), "l")]
    head = ("PSA: ScoreDev and ScoreRange per model (Prabhakaran et al. 2019, Table 2)"
            + (f" on {corpus}" if corpus else "") + (f", {n} sentences" if n else "")
            + "; valence in [0, 1], half the paper's [−1, 1] scale.")
    where = dict(keys=keys, sections=sections(rows, "corpus"), label="tab:psa-table2", title="PSA Table 2")
    narrow = None
    if added:
        below = {c: intervals(rows, f"{c}_low", f"{c}_high") for c, _ in added}
        narrow = Layout(blocks=[Block("Paper [added: 95% CI]", [
            Column(h, stacked(paper[c], below[c]) if c in below else paper[c], stacked=True)
            for c, h in (("score_dev", "ScoreDev"), ("score_range", "ScoreRange"))])],
            caption=head + " Added: below each value, its 95% bootstrap interval over sentences.", **where)
    return Layout(blocks=blocks, narrow=narrow,
                  caption=head + (" Added: 95% bootstrap intervals over sentences." if added else ""), **where)


def _psa_gender(frame: pd.DataFrame, *, settings: object = None, **_: object) -> Layout:
    require(frame, ("model", "corpus", "n_texts", "n_pairs", "estimate", "ci_low", "ci_high", "p_adjusted",
                     "verdict"), name="psa_gender_gap", source="psa_gender")
    rows = frame.sort_values("corpus", kind="stable").reset_index(drop=True)
    a = only(rows, "a") or VERDICT_GROUPS.a
    b = only(rows, "b") or VERDICT_GROUPS.b
    groups = VERDICT_GROUPS if (a, b) == (VERDICT_GROUPS.a, VERDICT_GROUPS.b) else verdicts.Groups(a, b)
    null = has(rows, "null_low", "null_high")
    pairs = only(rows, "n_pairs")
    verdict = verdict_cells(rows["verdict"], groups=groups)
    legend = verdict_legend(rows["verdict"], groups=groups, margin=margin_text(settings))
    columns = [Column("est. [95% CI]", estimates(rows, "estimate", "ci_low", "ci_high"))]
    if null:
        columns.append(Column("null range", intervals(rows, "null_low", "null_high")))
    columns += [Column("p adj.", numbers(rows["p_adjusted"], p_value=True, decimals=3)),
                Column("verdict", verdict, "l")]
    est = numbers(rows["estimate"], rate=True)
    first = stacked(est, intervals(rows, "ci_low", "ci_high"))
    if null:
        first = stacked(first, [f"null {c}" if c != formatting.MISSING else c for c in intervals(rows, "null_low", "null_high")])
    narrow_columns = [Column("est. [95% CI]" + ("\nnull range" if null else ""), first, stacked=True),
                      Column("p adj.\nverdict", stacked(numbers(rows["p_adjusted"], p_value=True, decimals=3),
                                                         verdict), "l", stacked=True)]
    keys = [Column("Model", model_labels(rows["model"]), "l")]
    if not pairs:
        keys.append(Column("pairs", numbers(rows["n_pairs"])))
    corpus = only(rows, "corpus")
    caption = (f"PSA, beyond the paper: mean score with {a} names − with {b} names"
               + (f" on {corpus}" if corpus else "") + (f", {int(float(pairs))} name pairs" if pairs else "")
               + ", its two-way t interval (Satterthwaite; sentences and name pairs as samples), the placebo null's "
                 f"range, corrected p and the verdict ({legend}).")
    where = dict(keys=keys, sections=sections(rows, "corpus"), label="tab:psa-gender-gap", caption=caption,
                 title="PSA gender gap")
    return Layout(blocks=[Block("", columns)], narrow=Layout(blocks=[Block("", narrow_columns)], **where), **where)


LATEX_LAYOUTS: dict[str, PaperTable] = {entry.name: entry for entry in [
    PaperTable("psa_table2", "Prabhakaran et al. 2019, Table 2", "psa_summary", _psa_table2),
    PaperTable("psa_gender_gap", "beyond Prabhakaran et al. 2019", "psa_gender", _psa_gender),
]}
