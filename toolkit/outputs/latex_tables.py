"""The papers' tables as :class:`toolkit.outputs.latex_render.Layout` s, built from the study frames a run writes
(EEC Tables 5–7 in task blocks, PSA Table 2 and the gender gap, BiasFinder Tables 4–5, BTC-SAM Tables 2–5), and
:func:`to_latex` for any frame. Pure: frames in, TeX text out (rules in :mod:`toolkit.outputs.latex`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from toolkit import formatting
from toolkit.errors import InputError, SchemaError, unknown
from toolkit.outputs.latex_render import (DEFAULT_PRESET, ENVIRONMENTS, WIDTHS, Block, Column, Layout,
                                          check_preset, render)

# --- building layouts from frames ---------------------------------------------------------------------------------

def _numbers(series: pd.Series, *, p_value: bool = False, decimals: int | None = None, rate: bool = False
             ) -> list[str]:
    """Cells of a numeric column at one precision (``rate``: a rate or estimate, never printed as a count)."""
    values = pd.to_numeric(series, errors="coerce")
    places = formatting.column_decimals(values, counts=not rate) if decimals is None else decimals
    whole = not rate and (pd.api.types.is_integer_dtype(series.dtype) or places == 0)
    out = []
    for value in values:
        if formatting.is_missing(value):
            out.append(formatting.MISSING)
        elif whole and not p_value and float(value).is_integer():
            out.append(formatting.format_number(int(value)))
        else:
            out.append(formatting.format_number(float(value), decimals=places, p_value=p_value))
    return out


def _estimates(frame: pd.DataFrame, est: str, low: str, high: str) -> list[str]:
    """``est. [low, high]`` cells at one precision (that of the three columns together)."""
    places = formatting.column_decimals(pd.concat([pd.to_numeric(frame[c], errors="coerce")
                                                   for c in (est, low, high)]), counts=False)
    return [formatting.format_estimate(e, lo, hi, decimals=places)
            for e, lo, hi in zip(frame[est], frame[low], frame[high])]


def _intervals(frame: pd.DataFrame, low: str, high: str) -> list[str]:
    places = formatting.column_decimals(pd.concat([pd.to_numeric(frame[c], errors="coerce") for c in (low, high)]),
                                        counts=False)
    return [formatting.format_interval(lo, hi, decimals=places) for lo, hi in zip(frame[low], frame[high])]


def verdict_label(verdict: object, *, a: str = "a", b: str = "b") -> str:
    """The short form of a :func:`toolkit.stats.verdict` for a table cell: ``a>b`` / ``a<b`` (with the groups'
    names), ``equiv.`` (equivalent within the margin), ``small`` (different but within it), ``?`` (inconclusive),
    ``same`` (identical scores); missing as the missing mark."""
    text = "" if formatting.is_missing(verdict) else str(verdict)
    if not text:
        return formatting.MISSING
    return ("{a}>{b}" if text == "a higher" else "{a}<{b}" if text == "b higher" else
            "equiv." if text.startswith("equivalent") else "small" if text.startswith("different but") else
            "?" if text == "inconclusive" else "same" if text.startswith("identical") else text).format(a=a, b=b)


VERDICT_NOTE = ("verdict: a>b or a<b significant, equiv. = equivalent within the margin, small = different but "
                "within it, ? = inconclusive")


def _texts(series: pd.Series) -> list[str]:
    return [formatting.MISSING if formatting.is_missing(v) else str(v) for v in series]


def _labels(series: pd.Series, within: pd.Series | None = None) -> list[str]:
    """Short model labels, unique among the rows of each value of ``within`` (a task's block: the ``ait:`` systems
    of five tasks share their short names)."""
    groups = within.astype(str) if within is not None else pd.Series("", index=series.index)
    labels = {}
    for group in dict.fromkeys(groups):
        specs = [str(v) for v, g in zip(series, groups) if g == group]
        labels.update({(group, spec): label for spec, label in formatting.short_labels(specs).items()})
    return [labels[(g, str(v))] for v, g in zip(series, groups)]


def _numeric(frame: pd.DataFrame) -> pd.DataFrame:
    """A table read back from CSV (empty cells as ""): text columns whose non-empty cells are all numbers become
    numeric, their empty cells NaN."""
    out = frame.copy()
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        if not (column.dtype == object or pd.api.types.is_string_dtype(column.dtype)):
            continue
        text = column.astype(str).str.strip()
        filled = column[text != ""]
        converted = pd.to_numeric(filled, errors="coerce")
        if len(filled) and converted.notna().all() and not text[text != ""].str.match(r"^[+-]?0\d").any():
            out.isetitem(position, pd.to_numeric(column.where(text != ""), errors="coerce"))
        elif not len(filled) and len(column):
            out.isetitem(position, pd.Series(float("nan"), index=column.index))
    return out


def _sections(frame: pd.DataFrame, column: str | None, *, label: Callable[[object], str] = str
              ) -> dict[int, str]:
    """A heading at each row where ``column`` changes (none when it holds one value: the caption names it)."""
    if column is None or column not in frame.columns or frame[column].nunique(dropna=False) <= 1:
        return {}
    out, previous = {}, object()
    for position, value in enumerate(frame[column]):
        if value != previous:
            out[position] = label(value)
        previous = value
    return out


def _only(frame: pd.DataFrame, column: str) -> str:
    values = list(dict.fromkeys(str(v) for v in frame[column])) if column in frame.columns else []
    return values[0] if len(values) == 1 else ""


def _require(frame: pd.DataFrame, columns: Sequence[str], *, name: str, source: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise SchemaError(f"{name} is drawn from {source}, but the table given lacks "
                          f"{', '.join(map(repr, missing))}.", fix=f"pass the {source} table of a run.")


def _has(frame: pd.DataFrame, *columns: str) -> bool:
    return all(c in frame.columns for c in columns) and frame[list(columns)].notna().any().any()


def _order(frame: pd.DataFrame, column: str, order: Sequence[str]) -> pd.DataFrame:
    rank = {v: i for i, v in enumerate(order)}
    return frame.assign(_o=frame[column].map(lambda v: rank.get(v, len(rank)))).sort_values(
        "_o", kind="stable").drop(columns="_o")


# --- the papers' tables -------------------------------------------------------------------------------------------

_EEC = "Kiritchenko & Mohammad 2018"
_EEC_TABLES = {"5": ("Table 5", "gender", "all", "F", "M", "gender, all sentences"),
               "6": ("Table 6", "gender", "neutral", "F", "M", "gender, sentences without an emotion word"),
               "7": ("Table 7", "race", "all", "AA", "EA", "race, all sentences")}
_TASKS = ("anger", "fear", "joy", "sadness", "valence")


def _eec_summary(number: str) -> Callable[..., Layout]:
    table, _, _, a, b, what = _EEC_TABLES[number]

    def build(frame: pd.DataFrame, **_: object) -> Layout:
        name = f"eec_table{number}"
        _require(frame, ("table", "task", "direction", "n_systems", "avg_diff_a_higher", "avg_diff_a_lower"),
                 name=name, source="eec_summary")
        rows = _order(frame[frame["table"].astype(str) == table], "task", _TASKS).reset_index(drop=True)
        up, down = f"{a}↑–{b}↓", f"{a}↓–{b}↑"
        blocks = [Block("Avg. score diff.", [Column(up, _numbers(rows["avg_diff_a_higher"], rate=True)),
                                             Column(down, _numbers(rows["avg_diff_a_lower"], rate=True))])]
        cis = [(c, h) for c, h in (("avg_diff_a_higher", up), ("avg_diff_a_lower", down))
               if _has(rows, f"{c}_low", f"{c}_high")]
        if cis:
            blocks.append(Block("Added: 95% CI", [Column(h, _intervals(rows, f"{c}_low", f"{c}_high"))
                                                  for c, h in cis]))
        task = _only(rows, "task")
        return Layout(
            keys=[Column("Bias group", _texts(rows["direction"]), "l"),
                  Column("#Sys.", _numbers(rows["n_systems"]))],
            blocks=blocks, sections=_sections(rows, "task", label=lambda t: f"{str(t).capitalize()}"),
            label=f"tab:{name.replace('_', '-')}",
            caption=f"EEC ({what}{', ' + task if task else ''}): systems per bias group and their average score "
                    f"difference ({_EEC}, {table}); scores are valence or intensity in [0, 1]."
                    + (" Added: the 95% interval over systems (none for fewer than two)." if cis else ""))
    return build


def _eec_systems(number: str) -> Callable[..., Layout]:
    table, attribute, subset, a, b, what = _EEC_TABLES[number]

    def build(frame: pd.DataFrame, **_: object) -> Layout:
        name = f"eec_table{number}_systems"
        _require(frame, ("model", "task", "attribute", "subset", "n_pairs", "mean_diff", "p_bonferroni"),
                 name=name, source="eec_tests")
        rows = frame[(frame["attribute"].astype(str) == attribute) & (frame["subset"].astype(str) == subset)]
        rows = _order(rows, "task", _TASKS).reset_index(drop=True)
        blocks = [Block("Paper", [Column("n", _numbers(rows["n_pairs"])),
                                  Column(f"mean Δ\n{a}−{b}", _numbers(rows["mean_diff"], rate=True)),
                                  Column("p Bonf.", _numbers(rows["p_bonferroni"], p_value=True, decimals=3))])]
        added = _has(rows, "estimate", "ci_low", "ci_high")
        if added:
            columns = [Column("est. [95% CI]", _estimates(rows, "estimate", "ci_low", "ci_high"))]
            if _has(rows, "verdict"):
                columns.append(Column("verdict", [verdict_label(v, a=a, b=b) for v in rows["verdict"]], "l"))
            blocks.append(Block("Added", columns))
        task = _only(rows, "task")
        return Layout(
            keys=[Column("System", _labels(rows["model"], rows["task"]), "l")], blocks=blocks,
            sections=_sections(rows, "task", label=lambda t: str(t).capitalize()),
            label=f"tab:{name.replace('_', '-')}",
            caption=f"EEC ({what}{', ' + task if task else ''}), per system: paired t-test over n sentence pairs "
                    f"with Bonferroni p, as in {_EEC}, {table}"
                    + (f". Added: the mean Δ = {a} − {b} with templates and names as samples, its 95% interval "
                       f"simultaneous over the family, and the verdict ({VERDICT_NOTE.removeprefix('verdict: ')})."
                       if added else "."))
    return build


def _psa_table2(frame: pd.DataFrame, **_: object) -> Layout:
    _require(frame, ("model", "corpus", "n_texts", "score_dev", "score_range"), name="psa_table2",
             source="psa_summary")
    rows = frame.sort_values("corpus", kind="stable").reset_index(drop=True)
    blocks = [Block("Paper", [Column("ScoreDev", _numbers(rows["score_dev"], rate=True)),
                              Column("ScoreRange", _numbers(rows["score_range"], rate=True))])]
    added = [(c, h) for c, h in (("score_dev", "ScoreDev"), ("score_range", "ScoreRange"))
             if _has(rows, f"{c}_low", f"{c}_high")]
    if added:
        blocks.append(Block("Added: 95% CI", [Column(h, _intervals(rows, f"{c}_low", f"{c}_high"))
                                              for c, h in added]))
    corpus = _only(rows, "corpus")
    n = _only(rows, "n_texts")
    return Layout(
        keys=[Column("Model", _labels(rows["model"]), "l")], blocks=blocks, sections=_sections(rows, "corpus"),
        label="tab:psa-table2",
        caption="PSA: ScoreDev and ScoreRange per model (Prabhakaran et al. 2019, Table 2)"
                + (f" on {corpus}" if corpus else "") + (f", {n} sentences" if n else "")
                + "; valence in [0, 1], half the paper's [−1, 1] scale."
                + (" Added: 95% bootstrap intervals over sentences." if added else ""))


def _psa_gender(frame: pd.DataFrame, **_: object) -> Layout:
    _require(frame, ("model", "corpus", "n_texts", "n_pairs", "estimate", "ci_low", "ci_high", "p_adjusted",
                     "verdict"), name="psa_gender_gap", source="psa_gender")
    rows = frame.sort_values("corpus", kind="stable").reset_index(drop=True)
    a = _only(rows, "a") or "female"
    b = _only(rows, "b") or "male"
    columns = [Column("est. [95% CI]", _estimates(rows, "estimate", "ci_low", "ci_high"))]
    if _has(rows, "null_low", "null_high"):
        columns.append(Column("null range", _intervals(rows, "null_low", "null_high")))
    columns += [Column("p adj.", _numbers(rows["p_adjusted"], p_value=True, decimals=3)),
                Column("verdict", [verdict_label(v, a="F", b="M") for v in rows["verdict"]], "l")]
    corpus = _only(rows, "corpus")
    return Layout(
        keys=[Column("Model", _labels(rows["model"]), "l"), Column("pairs", _numbers(rows["n_pairs"]))],
        blocks=[Block("", columns)], sections=_sections(rows, "corpus"), label="tab:psa-gender-gap",
        caption=f"PSA, beyond the paper: mean score with {a} names − with {b} names"
                + (f" on {corpus}" if corpus else "")
                + ", its two-way bootstrap interval (sentences and name pairs as samples), the placebo null's "
                  f"range, corrected p and the verdict ({VERDICT_NOTE.removeprefix('verdict: ')}; F = {a}, "
                  f"M = {b}).")


def _biasfinder_table4(frame: pd.DataFrame, **_: object) -> Layout:
    _require(frame, ("model", "attribute", "templates", "mutants", "templates_with_btc", "btcs"),
             name="biasfinder_table4", source="biasfinder_table4")
    rows = frame.copy()
    rows["_label"] = _labels(rows["model"])
    rows = rows.sort_values("_label", kind="stable").reset_index(drop=True)
    blocks = [Block("Paper", [Column("templ.", _numbers(rows["templates"])),
                              Column("mutants", _numbers(rows["mutants"])),
                              Column("templ.\nw/ BTC", _numbers(rows["templates_with_btc"])),
                              Column("BTCs", _numbers(rows["btcs"]))])]
    columns = []
    if _has(rows, "btc_rate", "btc_rate_low", "btc_rate_high"):
        columns.append(Column("BTC rate [95% CI]", _estimates(rows, "btc_rate", "btc_rate_low", "btc_rate_high")))
    elif _has(rows, "btc_rate"):
        columns.append(Column("BTC rate", _numbers(rows["btc_rate"], rate=True)))
    if _has(rows, "null_rate"):
        columns.append(Column("null", _numbers(rows["null_rate"], rate=True)))
    if _has(rows, "excess", "excess_low", "excess_high"):
        columns.append(Column("excess [95% CI]", _estimates(rows, "excess", "excess_low", "excess_high")))
    if _has(rows, "verdict"):
        columns.append(Column("verdict", [verdict_label(v, a="b", b="w") for v in rows["verdict"]], "l"))
    if columns:
        blocks.append(Block("Added", columns))
    model = _only(rows, "_label")
    return Layout(
        keys=[Column("Charact.", _texts(rows["attribute"]), "l")], blocks=blocks,
        sections=_sections(rows, "_label"), label="tab:biasfinder-table4",
        caption="BiasFinder: templates, mutants, templates with a bias-uncovering test case (BTC) and BTCs per "
                "characteristic" + (f" for {model}" if model else " and model")
                + " (Asyrofi et al. 2021, Table 4)."
                + (" Added: the BTC rate between classes with its 95% interval, the within-class null rate, the "
                   "excess over it and the verdict (b>w: between-class pairs flip more; "
                   + VERDICT_NOTE.removeprefix("verdict: a>b or a<b significant, ") + ")." if columns else ""))


def _biasfinder_table5(frame: pd.DataFrame, **_: object) -> Layout:
    _require(frame, ("annotator", "n_btcs", "tpr"), name="biasfinder_table5", source="biasfinder_tpr")
    rows = frame.reset_index(drop=True)
    paper = [Column("BTCs", _numbers(rows["n_btcs"]))]
    if _has(rows, "true_positives"):
        paper.append(Column("true pos.", _numbers(rows["true_positives"])))
    paper.append(Column("TPR", _numbers(rows["tpr"], rate=True)))
    blocks = [Block("Paper", paper)]
    if _has(rows, "tpr_low", "tpr_high"):
        blocks.append(Block("Added", [Column("95% CI", _intervals(rows, "tpr_low", "tpr_high"))]))
    rule = _only(rows, "rule")
    keys = [Column("Annotator", _texts(rows["annotator"]), "l")]
    if "rule" in rows.columns and not rule:
        keys.append(Column("rule", _texts(rows["rule"]), "l"))
    return Layout(keys=keys, blocks=blocks, label="tab:biasfinder-table5",
                  caption="BiasFinder: true-positive rate of the annotated BTCs per annotator (Asyrofi et al. 2021, "
                          "Table 5)" + (f", {rule} rule" if rule else "")
                          + (". Added: the 95% Wilson interval." if len(blocks) > 1 else "."))


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
    _require(frame, ("test_set", "bias_type", "theta", "detection_probability"), name="btcsam_table2",
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
    if _has(rows, "ci_low", "ci_high"):
        ci_places = formatting.column_decimals(pd.concat([rows["ci_low"], rows["ci_high"]]), counts=False)
        blocks.append(Block("Added: 95% Wilson CI", _pivot_cells(
            rows, index="bias_type", columns="test_set", index_order=types, column_order=sets,
            cell=lambda r: formatting.format_interval(r["ci_low"], r["ci_high"], decimals=ci_places))))
    models = _only(rows, "n_models")
    return Layout(keys=[Column("Bias type", types, "l")], blocks=blocks, label="tab:btcsam-table2",
                  caption=f"BTC-SAM: detection probability per bias type and test set at θ = {theta:g}, averaged "
                          f"over {models + ' ' if models else ''}models and cases (Kardkovács et al. 2025, Table 2)"
                          + (". Added: 95% Wilson intervals." if len(blocks) > 1 else "."))


_METRICS = (("unique_cases", "cases"), ("sentences", "sent."), ("unique_tokens", "unique\ntokens"),
            ("mean_chars", "chars/\nsent."), ("mean_tokens", "tokens/\nsent."), ("mean_word_len", "word\nlength"),
            ("identity_terms", "identity\nterms"), ("concept_terms", "concept\nterms"))


def _btcsam_table3(frame: pd.DataFrame, **_: object) -> Layout:
    _require(frame, ("test_set", *(c for c, _ in _METRICS)), name="btcsam_table3", source="btcsam_diversity")
    rows = frame.reset_index(drop=True)
    return Layout(keys=[Column("Test set", _texts(rows["test_set"]), "l")],
                  blocks=[Block("", [Column(h, _numbers(rows[c]))]) for c, h in _METRICS],
                  label="tab:btcsam-table3",
                  caption="BTC-SAM: diversity of each test set (Kardkovács et al. 2025, Table 3).")


def _btcsam_table4(frame: pd.DataFrame, **_: object) -> Layout:
    metrics = (*_METRICS, ("mean_edit_distance", "edit\ndistance"))
    _require(frame, ("test_set", "stage", *(c for c, _ in metrics)), name="btcsam_table4",
             source="btcsam_stage_diversity")
    rows = frame.sort_values("test_set", kind="stable").reset_index(drop=True)
    test_set = _only(rows, "test_set")
    return Layout(keys=[Column("Stage", _texts(rows["stage"]), "l")],
                  blocks=[Block("", [Column(h, _numbers(rows[c]))]) for c, h in metrics],
                  sections=_sections(rows, "test_set"), label="tab:btcsam-table4",
                  caption="BTC-SAM: diversity per generation stage" + (f" of {test_set}" if test_set else "")
                          + ", with the mean word-level edit distance to the source (Kardkovács et al. 2025, "
                            "Table 4).")


def _btcsam_table5(frame: pd.DataFrame, *, settings: Mapping | None = None, **_: object) -> Layout:
    _require(frame, ("model", "test_set", "bias_type", "theta", "failure_pct"), name="btcsam_table5",
             source="btcsam_failure_pct")
    theta = _theta(frame, settings)
    rows = _at_theta(frame, theta).copy()
    rows["_label"] = _labels(rows["model"])
    rows["bias_type"] = rows["bias_type"].astype(str)
    sets = list(dict.fromkeys(rows["test_set"].astype(str)))
    types = list(dict.fromkeys(rows["bias_type"]))
    sections, paper, added = {}, {t: [] for t in types}, {t: [] for t in types}
    labels: list[str] = []
    places = formatting.column_decimals(rows["failure_pct"], counts=False)
    has_excess = _has(rows, "excess_pct", "excess_low", "excess_high")
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
    if _has(rows, "ci_low", "ci_high"):
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
    reason = _only(rows, "no_test_reason") if "no_test_reason" in rows.columns else ""
    test_set = sets[0] if len(sets) == 1 else ""
    return Layout(keys=[Column("Model", labels, "l")], blocks=blocks, sections=sections,
                  label="tab:btcsam-table5",
                  caption=f"BTC-SAM: failure % per model and bias type at θ = {theta:g}"
                          + (f" on {test_set}" if test_set else "") + " (Kardkovács et al. 2025, Table 5)"
                          + (". Added: the 95% Wilson interval of each failure %"
                             if _has(rows, "ci_low", "ci_high") else ".")
                          + ("; the excess of cross-group over same-group pairs with Newcombe's interval "
                             "(x>s: significant after correction)." if has_excess else
                             f". No excess over a same-group null: {reason}." if reason and reason != "nan"
                             else "."))


@dataclass(frozen=True)
class PaperTable:
    """One paper table: the study table it is drawn from (``source``) and the function laying it out."""

    name: str
    paper: str
    source: str
    build: Callable[..., Layout]

    def rows(self, frame: pd.DataFrame) -> int:
        """How many rows of ``frame`` the table would show (0: not rendered)."""
        if self.source == "eec_summary" and "table" in frame.columns:
            return int((frame["table"].astype(str) == _EEC_TABLES[self.name[9]][0]).sum())
        if self.source == "eec_tests" and {"attribute", "subset"} <= set(frame.columns):
            _, attribute, subset, *_ = _EEC_TABLES[self.name[9]]
            return int(((frame["attribute"].astype(str) == attribute)
                        & (frame["subset"].astype(str) == subset)).sum())
        return len(frame)


PAPER_TABLES: dict[str, PaperTable] = {entry.name: entry for entry in [
    *(PaperTable(f"eec_table{n}", f"{_EEC}, {t[0]}", "eec_summary", _eec_summary(n)) for n, t in _EEC_TABLES.items()),
    *(PaperTable(f"eec_table{n}_systems", f"{_EEC}, {t[0]} (per system)", "eec_tests", _eec_systems(n))
      for n, t in _EEC_TABLES.items()),
    PaperTable("psa_table2", "Prabhakaran et al. 2019, Table 2", "psa_summary", _psa_table2),
    PaperTable("psa_gender_gap", "beyond Prabhakaran et al. 2019", "psa_gender", _psa_gender),
    PaperTable("biasfinder_table4", "Asyrofi et al. 2021, Table 4", "biasfinder_table4", _biasfinder_table4),
    PaperTable("biasfinder_table5", "Asyrofi et al. 2021, Table 5", "biasfinder_tpr", _biasfinder_table5),
    PaperTable("btcsam_table2", "Kardkovács et al. 2025, Table 2", "btcsam_detection", _btcsam_table2),
    PaperTable("btcsam_table3", "Kardkovács et al. 2025, Table 3", "btcsam_diversity", _btcsam_table3),
    PaperTable("btcsam_table4", "Kardkovács et al. 2025, Table 4", "btcsam_stage_diversity", _btcsam_table4),
    PaperTable("btcsam_table5", "Kardkovács et al. 2025, Table 5", "btcsam_failure_pct", _btcsam_table5),
]}


def layout(*, name: str, table: pd.DataFrame, settings: Mapping | None = None) -> Layout:
    """The :class:`Layout` of the paper table ``name`` drawn from ``table`` (its source study table); ``settings``:
    the run's (BTC-SAM's θ). Unknown name: TK103 listing the names; a missing column: TK101."""
    if name not in PAPER_TABLES:
        raise unknown("paper table", name, PAPER_TABLES)
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"table must be a pandas DataFrame; got {type(table).__name__}.",
                         fix=f"pass the {PAPER_TABLES[name].source} table of a run.")
    frame = table.reset_index() if any(n is not None for n in table.index.names) else table
    return PAPER_TABLES[name].build(_numeric(frame), settings=settings)


def paper_table(*, name: str, table: pd.DataFrame, preset: str = DEFAULT_PRESET,
                settings: Mapping | None = None) -> str:
    """The LaTeX of the paper table ``name`` (a key of :data:`PAPER_TABLES`) drawn from ``table``, its source
    (e.g. ``eec_summary`` for ``eec_table5``), for ``preset`` (:data:`WIDTHS`)."""
    return render(layout(name=name, table=table, settings=settings), preset=preset)


def paper_tables(*, tables: Mapping[str, pd.DataFrame], preset: str = DEFAULT_PRESET,
                 settings: Mapping | None = None) -> dict[str, str]:
    """``{name: LaTeX}`` for every paper table whose source is among ``tables`` (name → frame, as a study's
    ``write`` passes them) and that has at least one row, for ``preset``."""
    check_preset(preset)
    return {name: paper_table(name=name, table=tables[entry.source], preset=preset, settings=settings)
            for name, entry in PAPER_TABLES.items()
            if entry.source in tables and entry.rows(tables[entry.source])}


def to_latex(*, table: pd.DataFrame, caption: str, label: str,
             columns: Sequence[str] | Mapping[str, str] | None = None, group: str | None = None,
             environment: str | None = None, note: str = "", preset: str = DEFAULT_PRESET) -> str:
    """Any frame as a booktabs table: ``columns`` (names, or name → header; default all), ``group`` (one of them)
    as italic heading rows between blocks, numbers at one precision per column, ``note`` added to the caption.
    ``environment`` (``table``/``table*``) overrides the preset's. Unknown columns: SchemaError (TK101)."""
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"table must be a pandas DataFrame; got {type(table).__name__}.",
                         fix="pass a study's result table.")
    if environment is not None and environment not in ENVIRONMENTS:
        raise unknown("environment", environment, ENVIRONMENTS)
    if not label or any(ch in label for ch in "\\{}%#$&~^ "):
        raise InputError(f"label {label!r} must be non-empty, without spaces or LaTeX special characters.",
                         fix="use letters, digits and : - . _ only, e.g. 'tab:eec-table5'.")
    frame = table.reset_index() if any(n is not None for n in table.index.names) else table
    headers = dict(columns) if isinstance(columns, Mapping) else {c: c for c in (columns or list(frame.columns))}
    missing = [c for c in headers if c not in frame.columns]
    if group is not None and group not in frame.columns:
        missing.append(group)
    if missing:
        raise SchemaError(f"the table lacks column(s) {', '.join(map(repr, missing))}; it has "
                          f"{', '.join(map(str, frame.columns))}.", fix="pick columns the table has.")
    frame = frame.reset_index(drop=True)
    out = []
    for name, header in headers.items():
        if name == group:
            continue
        series = frame[name]
        number = pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)
        p = str(name) == "p" or str(name).startswith(("p_", "null_p"))
        out.append(Column(formatting.header_text(header), _numbers(series, p_value=p) if number
                          else _texts(series), "r" if number else "l"))
    built = Layout(keys=out[:1], blocks=[Block("", [c]) for c in out[1:]] or [Block("", [])],
                   caption=caption + (" " + note if note else ""), label=label,
                   sections=_sections(frame, group) if group is not None else {})
    if not out[1:]:
        built = Layout(keys=[], blocks=[Block("", out)], caption=built.caption, label=label,
                       sections=built.sections)
    text = render(built, preset=preset)
    if environment is not None:
        current = WIDTHS[preset].environment
        text = text.replace(rf"\begin{{{current}}}", rf"\begin{{{environment}}}").replace(
            rf"\end{{{current}}}", rf"\end{{{environment}}}")
    return text
