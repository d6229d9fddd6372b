"""BTC-SAM figures (2025): detection probability and failure % heatmaps (Tables 2 and 5), failure % forest."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory

from toolkit.corpora.external import BTCSAM_SETS
from toolkit.errors import InputError
from toolkit.plots.presets import preset
from toolkit.plots.style import (
    STUDY_NAMES,
    _caption_only,
    _legend_outside,
    _note_below,
    _readable_annotations,
    _styled,
    _text_inches,
    model_markers,
    model_palette,
    new_axes,
    short_labels,
)

COLOURBAR_LABELS = {"failure_pct": "failure %", "detection_probability": "detection probability",
                    "detection_pct": "detection probability (%)"}
SCALES = {"failure_pct": (0.0, 100.0), "detection_probability": (0.0, 1.0), "detection_pct": (0.0, 100.0)}
PERCENTS = ("failure_pct", "detection_pct")
"""The values a heatmap prints as whole percentages (the study draws detection in %, as the failure figures, since
round 13 readers read ".31" and "31" for one quantity as two units; the CSV keeps the probability)."""
"""The colour scale of each value: its whole range (a colour bar that ends at the largest cell would make the
largest look extreme)."""
ROW_INCHES = 0.27  # a cell: two lines of 7 pt

FAILS = "a case fails where its texts' labels differ or their scores (on [0, 1]) span more than θ"
"""The failure rule in the figures' words (BTC-SAM's published rule, :mod:`.analysis`)."""


def sets_words(sets: Iterable[str] | str) -> str:
    """The caption's definition of the test sets named in a figure (round 27: "BTC-SAM baseline" undefined): the
    released ones and the studies' own, "" when none is either; one name may be given bare."""
    sets = [sets] if isinstance(sets, str) else list(sets)
    released = [s for s in dict.fromkeys(sets) if s in BTCSAM_SETS]
    studies = [STUDY_NAMES[s] for s in dict.fromkeys(sets) if s in STUDY_NAMES]
    words = []
    if released:
        words.append(f"{', '.join(set_name(s) for s in released)}: the test cases BTC-SAM (Kardkovács et al. 2025) "
                     "released, one set per generation setting"
                     + (" (\"llama3\": generated with Llama 3)" if any(r.startswith("llama3") for r in released)
                        else ""))
    if studies:
        words.append(f"{', '.join(studies)}: the counterfactual cases this toolkit's generator of "
                     f"{'that study' if len(studies) == 1 else 'each study'} makes")
    return ("Test sets: " + "; ".join(words) + ".") if words else ""


BIAS_TYPE_WORDS = {
    "gender+race": "EEC sentences that differ only in the name of an African- or European-American woman or man, so "
                   "gender and race vary within one case",
    "name": "PSA's sentences, each with every one of its names of public figures in place of a pronoun's referent",
}
"""The bias types this toolkit's own generators name, as a caption defines them (round 29: "gender+race" and "name"
undefined); the released sets' bias types (gender, race, religion …) name themselves."""


def bias_type_words(bias_types: Iterable[str]) -> str:
    """The caption's definition of the bias types of :data:`BIAS_TYPE_WORDS` among ``bias_types``; "" when none."""
    bias_types = [bias_types] if isinstance(bias_types, str) else bias_types  # one name given bare
    defined = [f"{b}: {BIAS_TYPE_WORDS[b]}" for b in dict.fromkeys(map(str, bias_types)) if b in BIAS_TYPE_WORDS]
    return ("Bias types: " + "; ".join(defined) + ".") if defined else ""


def pooled_words(table: pd.DataFrame) -> str:
    """The caption's list of the test sets each bias type pools (``test_sets`` of
    :func:`~toolkit.studies.btcsam.analysis.failure_by_bias_type`, over every model), bias types pooling the same
    sets named together; "" without the column."""
    if not {"bias_type", "test_sets"} <= set(table.columns):
        return ""
    sets: dict[str, list[str]] = {}
    for bias_type, names in zip(table["bias_type"].astype(str), table["test_sets"].fillna("").astype(str)):
        sets.setdefault(bias_type, [])
        sets[bias_type] += [n for n in names.split(", ") if n and n not in sets[bias_type]]
    groups: dict[tuple[str, ...], list[str]] = {}
    for bias_type, names in sets.items():
        groups.setdefault(tuple(names), []).append(bias_type)
    parts = [f"{', '.join(types)}: {', '.join(set_name(n) for n in names)}" for names, types in groups.items()]
    return "Each column pools, cases summed, every test set holding its bias type (" + "; ".join(parts) + ")."


def set_name(name: str) -> str:
    """A test set as the BTC-SAM figures name it: a study's cases by its paper's name (``EEC``), a set BTC-SAM
    released by its release's name (``BTC-SAM baseline``: round 20's readers found a bare "baseline" undefined),
    any other as it is."""
    if name in STUDY_NAMES:
        return STUDY_NAMES[name]
    return f"BTC-SAM {name.replace('_', ' ')}" if name in BTCSAM_SETS else name


def _value_text(value: float, *, percent: bool) -> str:
    """One number of a heatmap cell: a percentage as an integer, a probability with two decimals and no leading
    zero (it cannot exceed 1; APA style), so a value and its interval read in one unit and one precision."""
    if pd.isna(value):
        return ""
    return f"{value:.0f}" if percent else f"{value:.2f}".removeprefix("0").replace("-0.", "−.")


def heatmap_words(value: str, *, theta: str = "") -> dict[str, str]:
    """The words of :func:`btcsam_heatmap` (one place, to change the vocabulary)."""
    unit = COLOURBAR_LABELS.get(value, value.replace("_", " "))
    meaning = {"detection_probability": f" (the share of case × classifier pairs that fail; {FAILS})",
               "detection_pct": f" (the share of case × classifier pairs that fail; {FAILS})",
               "failure_pct": f" ({FAILS})"}.get(value, "")
    units = ("cases as units; a case's share of failing classifiers varies no more than a yes/no, so the interval "
             "errs wide" if value.startswith("detection") else "cases as units")
    units += "; per cell, not adjusted across cells"
    return {"colourbar": unit, "cell": f"each cell: {unit.replace(' (%)', ' in %')}{meaning}, its 95\u00a0% Wilson "
            f"interval below ({units})", "hatched": "hatched: no case of that type"}


def _cells(table: pd.DataFrame, *, value: str, index: str, columns: str) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The grid of ``value`` (mean over other keys) and, where every cell is one row with an interval, the text of
    each cell (value over its interval; else the value alone)."""
    pivot = lambda column: table.pivot_table(index=index, columns=columns, values=column, aggfunc="mean", sort=False,
                                             dropna=False)
    grid = pivot(value)
    percent = value in PERCENTS
    single = bool(table.groupby([index, columns]).size().max() == 1)
    numbers = grid.map(lambda v: _value_text(v, percent=percent))
    if single and {"ci_low", "ci_high"} <= set(table):
        low, high = pivot("ci_low").reindex_like(grid), pivot("ci_high").reindex_like(grid)
        bounds = low.map(lambda v: _value_text(v, percent=percent)) + "–" + high.map(
            lambda v: _value_text(v, percent=percent))
        return grid, numbers.where(grid.isna(), numbers + "\n" + bounds)
    return grid, None


@_styled
def btcsam_heatmap(table: pd.DataFrame, *, value: str = "detection_probability", index: str = "test_set",
                   columns: str = "bias_type", title: str | None = None, ax: Axes | None = None) -> Axes:
    """Heatmap of ``value`` by ``index`` × ``columns`` (BTC-SAM Tables 2 and 5): ``table`` from
    :func:`toolkit.studies.btcsam.analysis.detection_intervals` (one row per cell) or
    :func:`~toolkit.studies.btcsam.analysis.failure_by_bias_type`; rows with ``ci_low``/``ci_high`` print the value
    with its interval below, in the value's own unit and precision (a probability as ``.25`` over ``.19–.33``, a
    percentage as ``12`` over ``8–17``); a table with several rows per cell is averaged and printed without one. The
    colour scale spans the value's whole range (0–1, 0–100 %). A cell with no case is grey and hatched, said once
    in the axis label. Where the cells with their intervals do not fit across the
    preset's width (a column, many bias types), the columns are split over panels stacked down the page, each
    keeping only its rows that have a case, under one title and one colour bar; so every cell keeps its interval
    at every preset. Models (``index="model"``) by :func:`short_label`. Returns the first panel."""
    from matplotlib.patches import Rectangle

    missing = [c for c in (value, index, columns) if c not in table.columns]
    if missing or table.empty:
        raise InputError(f"cannot draw a heatmap: table is empty or lacks {', '.join(missing)}.",
                         fix="pass detection_intervals(...) or failure_by_bias_type(...) of a scored test set.")
    p = preset()
    grid, texts = _cells(table, value=value, index=index, columns=columns)
    percent = value in PERCENTS
    if texts is None:
        texts = grid.map(lambda v: _value_text(v, percent=percent))
    for frame in (grid, texts):
        if index == "model":
            frame.index = [short_labels(frame.index)[m] for m in frame.index]
        if columns == "model":
            frame.columns = [short_labels(frame.columns)[m] for m in frame.columns]
    words = heatmap_words(value)
    widest_text = max((_text_inches(line, p.small_size) for cell in texts.to_numpy().ravel() for line in
                       str(cell).split("\n")), default=0.3)
    cell_needed = max(widest_text + 0.06, 0.3)
    if ax is None and not p.double and grid.shape[1] > grid.shape[0]:  # a column: the longer side down the page
        grid, texts, index, columns = grid.T, texts.T, columns, index
    row_label = max(_text_inches(str(i), p.small_size) for i in grid.index) + 0.25
    bar = 0.75 if ax is not None or p.double else 0.0  # a vertical colour bar beside one panel; else one under all
    room = (ax.figure.get_figwidth() if ax is not None else p.width) - row_label - bar - 0.2
    per_panel = grid.shape[1] if ax is not None else max(1, min(grid.shape[1], int(room // cell_needed)))
    chunks = [list(grid.columns[i:i + per_panel]) for i in range(0, grid.shape[1], per_panel)]
    cell = room / max(per_panel, 1)
    line = p.small_size * 1.25 / 72

    def column_labels(chunk: list) -> tuple[list[str], bool, float]:
        """The chunk's column labels (wrapped at spaces, or upright when a word is wider than a cell) and the
        height they take."""
        wrapped = [str(c).replace(" ", "\n") for c in chunk]
        longest = max(_text_inches(part, p.small_size) for c in wrapped for part in c.split("\n"))
        if longest <= 0.95 * cell:
            return wrapped, False, max(c.count("\n") + 1 for c in wrapped) * line + 0.12
        return [str(c) for c in chunk], True, max(_text_inches(str(c), p.small_size) for c in chunk) + 0.12

    kept_rows = [grid[chunk].notna().any(axis=1) if len(chunks) > 1 else pd.Series(True, index=grid.index)
                 for chunk in chunks]
    if ax is None:
        heights = [ROW_INCHES * int(kept.sum()) + column_labels(chunk)[2] for chunk, kept in zip(chunks, kept_rows)]
        under = not (p.double and len(chunks) == 1)  # the colour bar under the panels
        extra = 0.75 + (0.25 if not p.double else 0.0) + (0.6 if under else 0.0)  # title, axis label, colour bar
        figure = Figure(figsize=(p.width, min(sum(heights) + extra, p.max_height)), layout="constrained")
        figure.toolkit_preset = p.name
        panels = figure.subplots(len(chunks), 1, squeeze=False, height_ratios=heights)[:, 0].tolist()
    else:
        panels = [ax]
    low, high = SCALES.get(value, (None, None))
    any_empty = False
    for chunk, kept, panel in zip(chunks, kept_rows, panels):
        part, words_part = grid.loc[kept, chunk], texts.loc[kept, chunk]
        sns.heatmap(part, annot=words_part, fmt="", cmap="rocket_r", ax=panel, vmin=low, vmax=high, cbar=False,
                    annot_kws={"fontsize": p.small_size}, linewidths=0.4, linecolor="white")
        _readable_annotations(panel)
        empty = part.isna().to_numpy()
        any_empty |= bool(empty.any())
        for i, j in zip(*empty.nonzero()):
            panel.add_patch(Rectangle((j, i), 1, 1, facecolor="0.92", edgecolor="0.7", hatch="////", linewidth=0,
                                      zorder=0.5))
        labels, upright, _ = column_labels(list(part.columns))
        panel.set_xticks([j + 0.5 for j in range(part.shape[1])], labels, rotation=90 if upright else 0)
        names = [set_name(str(i)) if index == "test_set" else str(i) for i in part.index]
        panel.set_yticks([i + 0.5 for i in range(part.shape[0])], names, rotation=0)
        panel.set(xlabel="", ylabel=index.replace("_", " "))
    in_set = " in the set" if index == "test_set" else " for the model" if index == "model" else ""
    note = f" ({words['hatched']}{in_set})" if any_empty else ""  # said once (round 20: 26 cells saying "no case")
    panels[-1].set_xlabel(columns.replace("_", " ") + note)
    if texts.map(lambda t: "\n" in str(t)).to_numpy().any():
        _note_below(panels[-1], words["cell"])
    if index == "test_set":
        _caption_only(panels[-1], sets_words(table[index]))
    elif "test_sets" in table.columns:
        _caption_only(panels[-1], pooled_words(table))
        _caption_only(panels[-1], sets_words(n for names in table["test_sets"].fillna("").astype(str)
                                             for n in names.split(", ") if n))
    if "bias_type" in (index, columns):
        _caption_only(panels[-1], bias_type_words(table["bias_type"]))
    mappable = panels[0].collections[0]
    colour_bar = {"label": words["colourbar"], "pad": 0.02}
    if ax is not None or p.double and len(panels) == 1:
        panels[0].figure.colorbar(mappable, ax=panels, shrink=0.8, **colour_bar)
    else:
        panels[0].figure.colorbar(mappable, ax=panels, location="bottom", shrink=0.6, aspect=40, **colour_bar)
    panels[0].set_title(title if title is not None else f"BTC-SAM {value.replace('_', ' ')}")
    return panels[0]


@_styled
def btcsam_forest(pooled: pd.DataFrame, *, test_sets: Sequence[str] | None = None, ax: Axes | None = None) -> Axes:
    """Forest plot: the failure % with its Wilson interval, one row per model × test set, in the model's colour and
    marker; each test set under its own bold header row, a thin rule between test sets.
    ``pooled`` from :func:`toolkit.studies.btcsam.analysis.pooled_failure_percentage` (``failure_pct``, ``ci_low``,
    ``ci_high`` in percent); test sets in ``test_sets``' order (default sorted; the study passes the detection
    heatmap's rows; any not listed after them, sorted), models within each in the order ``pooled`` first lists
    them (the run's, as in the heatmaps); the axis runs from 0 to the next 10 % past the highest interval end (at
    most 100 %); a failure % of 0 is drawn (a marker at 0)."""
    missing = [c for c in ("model", "test_set", "failure_pct", "ci_low", "ci_high") if c not in pooled.columns]
    if missing or pooled.empty:
        raise InputError(f"cannot draw a forest plot: table is empty or lacks {', '.join(missing)}.",
                         fix="pass toolkit.studies.btcsam.analysis.pooled_failure_percentage(failure_percentage(...)).")
    if test_sets is not None and (isinstance(test_sets, (str, bytes)) or not isinstance(test_sets, Iterable)):
        raise InputError(f"test_sets={test_sets!r}: give a list of test set names, not one name.",
                         fix=f"wrap it in a list: test_sets=[{test_sets!r}].")
    present = sorted(set(pooled["test_set"]))
    order = [t for t in dict.fromkeys(test_sets or []) if t in present]
    order += [t for t in present if t not in order]
    runs = {m: i for i, m in enumerate(dict.fromkeys(pooled["model"]))}  # the run's model order, as the heatmaps
    data = (pooled.assign(_set=pooled["test_set"].map({t: i for i, t in enumerate(order)}),
                          _order=pooled["model"].map(runs))
            .sort_values(["_set", "_order"], kind="stable").drop(columns=["_set", "_order"]).reset_index(drop=True))
    labels, colours = short_labels(data["model"]), model_palette(data["model"])
    markers = model_markers(data["model"])
    groups = list(dict.fromkeys(data["test_set"]))
    rows = data["test_set"].map({t: i + 1 for i, t in enumerate(groups)}).to_numpy() + np.arange(len(data))
    ax = ax if ax is not None else new_axes(height=0.17 * (len(data) + len(groups)) + 1.3)
    for y, (_, row) in zip(rows, data.iterrows()):
        ax.errorbar(row["failure_pct"], y, xerr=[[max(row["failure_pct"] - row["ci_low"], 0.0)],
                                                 [max(row["ci_high"] - row["failure_pct"], 0.0)]],
                    fmt=markers[row["model"]], color=colours[row["model"]], capsize=2, markersize=4.0,
                    linewidth=1.0)
    side = blended_transform_factory(ax.transAxes, ax.transData)
    for group in groups:  # a header row per test set (the set's name said once, not on each of its rows)
        header = int(rows[(data["test_set"] == group).to_numpy()].min()) - 1
        if header > 0:
            ax.axhline(header - 0.5, color="0.8", linewidth=0.6, zorder=0)
        ax.text(0.01, header, set_name(group), transform=side, ha="left", va="center", fontweight="bold",
                fontsize=preset().small_size)
    ax.set_yticks(rows, [labels[m] for m in data["model"]])
    ax.set_ylim(rows.max() + 0.7, -0.7)
    theta = ", ".join(f"{t:g}" for t in dict.fromkeys(data["theta"])) if "theta" in data.columns else "?"
    ax.set(xlabel="failure % (bars: 95\u00a0% Wilson CI per row, not adjusted)", ylabel="model, by test set",
           title=f"BTC-SAM failure % per model and test set (θ = {theta})")
    top = float(pd.to_numeric(data["ci_high"], errors="coerce").max())
    ax.set_xlim(-2, min(102.0, 10 * np.ceil(top / 10 + 0.05) + 2) if np.isfinite(top) else 102.0)  # to the data
    models = list(dict.fromkeys(data["model"]))  # the models' key, as every figure draws them
    _caption_only(ax, f"Failure %: the share of a test set's cases that fail on the model, all bias types pooled; "
                  f"{FAILS}. Intervals: 95\u00a0% Wilson, cases as units, per row, not adjusted across rows.")
    _caption_only(ax, sets_words(groups))
    _legend_outside(ax, [Line2D([], [], linestyle="none", marker=markers[m], color=colours[m], markersize=4.0)
                         for m in models], [labels[m] for m in models])
    return ax


# EEC intervals: the mean Δ with its two-way interval per system.
