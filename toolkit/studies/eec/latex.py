"""The EEC's paper tables (Kiritchenko & Mohammad 2018, Tables 5–7, in task blocks) as LaTeX layouts."""
from __future__ import annotations

from collections.abc import Callable

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
    order,
    require,
    sections,
    stacked,
    texts,
    verdict_cells,
    verdict_legend,
)
from toolkit.studies.eec.analysis import VERDICT_GROUPS

_EEC = "Kiritchenko & Mohammad 2018"
_EEC_TABLES = {"5": ("Table 5", "gender", "all", "F", "M", "gender, all sentences"),
               "6": ("Table 6", "gender", "neutral", "F", "M", "gender, sentences without an emotion word"),
               "7": ("Table 7", "race", "all", "AA", "EA", "race, all sentences")}
_TASKS = ("anger", "fear", "joy", "sadness", "valence")


def _eec_summary(number: str) -> Callable[..., Layout]:
    table, _, _, a, b, what = _EEC_TABLES[number]

    def build(frame: pd.DataFrame, **_: object) -> Layout:
        name = f"eec_table{number}"
        require(frame, ("table", "task", "direction", "n_systems", "avg_diff_a_higher", "avg_diff_a_lower"),
                 name=name, source="eec_summary")
        rows = order(frame[frame["table"].astype(str) == table], "task", _TASKS).reset_index(drop=True)
        up, down = f"{a}↑–{b}↓", f"{a}↓–{b}↑"
        paper = {c: numbers(rows[c], rate=True) for c in ("avg_diff_a_higher", "avg_diff_a_lower")}
        blocks = [Block("Avg. score diff.", [Column(up, paper["avg_diff_a_higher"]),
                                             Column(down, paper["avg_diff_a_lower"])])]
        cis = [(c, h) for c, h in (("avg_diff_a_higher", up), ("avg_diff_a_lower", down))
               if has(rows, f"{c}_low", f"{c}_high")]
        if cis:
            blocks.append(Block("Added: 95% CI", [Column(h, intervals(rows, f"{c}_low", f"{c}_high"))
                                                  for c, h in cis]))
        task = only(rows, "task")
        keys = [Column("Bias group", texts(rows["direction"]), "l"), Column("#Sys.", numbers(rows["n_systems"]))]
        head = (f"EEC ({what}{', ' + task if task else ''}): systems per bias group and their average score "
                f"difference ({_EEC}, {table}); scores are valence or intensity in [0, 1].")
        where = dict(sections=sections(rows, "task", label=lambda t: f"{str(t).capitalize()}"),
                     label=f"tab:{name.replace('_', '-')}", title=f"EEC {table} ({what})")
        narrow = None
        if cis:
            below = {c: intervals(rows, f"{c}_low", f"{c}_high") for c, _ in cis}
            narrow = Layout(keys=keys, blocks=[Block("Avg. score diff. [95% CI]", [
                Column(h, stacked(paper[c], below[c]) if c in below else paper[c], stacked=True)
                for c, h in (("avg_diff_a_higher", up), ("avg_diff_a_lower", down))])],
                caption=head + " Added: below each average, its 95% t interval over the systems averaged (none for "
                               "fewer than two; wide for few; held at 0 below, as the differences are sizes).",
                **where)
        return Layout(keys=keys, blocks=blocks, narrow=narrow,
                      caption=head + (" Added: the 95% t interval over the systems averaged (none for fewer than "
                                      "two; wide for few; held at 0 below, as the differences are sizes)."
                                      if cis else ""), **where)
    return build


def _eec_systems(number: str) -> Callable[..., Layout]:
    table, attribute, subset, a, b, what = _EEC_TABLES[number]
    groups = VERDICT_GROUPS[attribute]

    def build(frame: pd.DataFrame, *, settings: object = None, **_: object) -> Layout:
        name = f"eec_table{number}_systems"
        require(frame, ("model", "task", "attribute", "subset", "n_pairs", "mean_diff", "p_bonferroni"),
                 name=name, source="eec_tests")
        rows = frame[(frame["attribute"].astype(str) == attribute) & (frame["subset"].astype(str) == subset)]
        rows = order(rows, "task", _TASKS).reset_index(drop=True)
        n = only(rows, "n_pairs")
        paper = [Column("n", numbers(rows["n_pairs"]))] if not n else []
        paper += [Column(f"mean Δ\n{a}−{b}", numbers(rows["mean_diff"], rate=True)),
                  Column("p Bonf.", numbers(rows["p_bonferroni"], p_value=True, decimals=3))]
        blocks = [Block("Paper", paper)]
        added = has(rows, "estimate", "ci_low", "ci_high")
        legend = ""
        narrow: dict | Layout | None = None
        keys = [Column("System", model_labels(rows["model"], rows["task"]), "l")]
        if added:
            columns = [Column("est. [95% CI]", estimates(rows, "estimate", "ci_low", "ci_high"))]
            if has(rows, "verdict"):
                columns.append(Column("verdict", verdict_cells(rows["verdict"], groups=groups), "l"))
                legend = verdict_legend(rows["verdict"], groups=groups, margin=margin_text(settings))
            blocks.append(Block("Added", columns))
            est = numbers(rows["estimate"], rate=True)
            two = stacked(est, intervals(rows, "ci_low", "ci_high"))
            narrow_added = [Column("est.\n[95% CI]", two, stacked=True)]
            if len(columns) > 1:
                narrow_added.append(columns[1])
            narrow = dict(blocks=[Block("Paper", paper), Block("Added", narrow_added)])
            three = stacked(two, columns[1].cells) if len(columns) > 1 else two
            narrower = dict(blocks=[
                Block("Paper", [*paper[:-2], Column(paper[-2].header + "\np Bonf.",
                                                    stacked(paper[-2].cells, paper[-1].cells), stacked=True)]),
                Block("Added", [Column("est.\n[95% CI]" + ("\nverdict" if len(columns) > 1 else ""), three,
                                       stacked=True)])])
        task = only(rows, "task")
        caption = (f"EEC ({what}{', ' + task if task else ''}), per system: paired t-test over "
                   + (f"n = {int(float(n)):,} sentence pairs" if n else "n sentence pairs")
                   + f" with Bonferroni p, as in {_EEC}, {table}"
                   + (f". Added: the mean Δ = {a} − {b} with templates and names as samples, its 95% interval "
                      f"simultaneous over the family, and the verdict ({legend})." if added and legend else
                      f". Added: the mean Δ = {a} − {b} with templates and names as samples and its 95% interval "
                      "simultaneous over the family." if added else "."))
        where = dict(keys=keys, sections=sections(rows, "task", label=lambda t: str(t).capitalize()),
                     label=f"tab:{name.replace('_', '-')}", caption=caption,
                     title=f"EEC {table} per system ({what})")
        if narrow:
            narrow = Layout(**narrow, narrow=Layout(**narrower, **where), **where)
        return Layout(blocks=blocks, narrow=narrow, **where)
    return build


def _summary_rows(number: str) -> Callable[[pd.DataFrame], int]:
    def count(frame: pd.DataFrame) -> int:
        return int((frame["table"].astype(str) == _EEC_TABLES[number][0]).sum()) if "table" in frame.columns else len(frame)
    return count


def _system_rows(number: str) -> Callable[[pd.DataFrame], int]:
    def count(frame: pd.DataFrame) -> int:
        if not {"attribute", "subset"} <= set(frame.columns):
            return len(frame)
        _, attribute, subset, *_ = _EEC_TABLES[number]
        return int(((frame["attribute"].astype(str) == attribute) & (frame["subset"].astype(str) == subset)).sum())
    return count


LATEX_LAYOUTS: dict[str, PaperTable] = {entry.name: entry for entry in [
    *(PaperTable(f"eec_table{n}", f"{_EEC}, {t[0]}", "eec_summary", _eec_summary(n), _summary_rows(n))
      for n, t in _EEC_TABLES.items()),
    *(PaperTable(f"eec_table{n}_systems", f"{_EEC}, {t[0]} (per system)", "eec_tests", _eec_systems(n),
                 _system_rows(n)) for n, t in _EEC_TABLES.items()),
]}
