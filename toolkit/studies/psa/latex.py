"""PSA's paper tables (Prabhakaran et al. 2019, Table 2, and the gender gap) as LaTeX layouts."""
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
    verdict_label,
)


def _psa_table2(frame: pd.DataFrame, **_: object) -> Layout:
    require(frame, ("model", "corpus", "n_texts", "score_dev", "score_range"), name="psa_table2",
             source="psa_summary")
    rows = frame.sort_values("corpus", kind="stable").reset_index(drop=True)
    blocks = [Block("Paper", [Column("ScoreDev", numbers(rows["score_dev"], rate=True)),
                              Column("ScoreRange", numbers(rows["score_range"], rate=True))])]
    added = [(c, h) for c, h in (("score_dev", "ScoreDev"), ("score_range", "ScoreRange"))
             if has(rows, f"{c}_low", f"{c}_high")]
    if added:
        blocks.append(Block("Added: 95% CI", [Column(h, intervals(rows, f"{c}_low", f"{c}_high"))
                                              for c, h in added]))
    corpus = only(rows, "corpus")
    n = only(rows, "n_texts")
    return Layout(
        keys=[Column("Model", model_labels(rows["model"]), "l")], blocks=blocks, sections=sections(rows, "corpus"),
        label="tab:psa-table2",
        caption="PSA: ScoreDev and ScoreRange per model (Prabhakaran et al. 2019, Table 2)"
                + (f" on {corpus}" if corpus else "") + (f", {n} sentences" if n else "")
                + "; valence in [0, 1], half the paper's [−1, 1] scale."
                + (" Added: 95% bootstrap intervals over sentences." if added else ""))


def _psa_gender(frame: pd.DataFrame, **_: object) -> Layout:
    require(frame, ("model", "corpus", "n_texts", "n_pairs", "estimate", "ci_low", "ci_high", "p_adjusted",
                     "verdict"), name="psa_gender_gap", source="psa_gender")
    rows = frame.sort_values("corpus", kind="stable").reset_index(drop=True)
    a = only(rows, "a") or "female"
    b = only(rows, "b") or "male"
    columns = [Column("est. [95% CI]", estimates(rows, "estimate", "ci_low", "ci_high"))]
    if has(rows, "null_low", "null_high"):
        columns.append(Column("null range", intervals(rows, "null_low", "null_high")))
    columns += [Column("p adj.", numbers(rows["p_adjusted"], p_value=True, decimals=3)),
                Column("verdict", [verdict_label(v, a="F", b="M") for v in rows["verdict"]], "l")]
    corpus = only(rows, "corpus")
    return Layout(
        keys=[Column("Model", model_labels(rows["model"]), "l"), Column("pairs", numbers(rows["n_pairs"]))],
        blocks=[Block("", columns)], sections=sections(rows, "corpus"), label="tab:psa-gender-gap",
        caption=f"PSA, beyond the paper: mean score with {a} names − with {b} names"
                + (f" on {corpus}" if corpus else "")
                + ", its two-way bootstrap interval (sentences and name pairs as samples), the placebo null's "
                  f"range, corrected p and the verdict ({VERDICT_NOTE.removeprefix('verdict: ')}; F = {a}, "
                  f"M = {b}).")


LATEX_LAYOUTS: dict[str, PaperTable] = {entry.name: entry for entry in [
    PaperTable("psa_table2", "Prabhakaran et al. 2019, Table 2", "psa_summary", _psa_table2),
    PaperTable("psa_gender_gap", "beyond Prabhakaran et al. 2019", "psa_gender", _psa_gender),
]}
