"""BTC-SAM figures (2025): detection probability and failure % heatmaps (Tables 2 and 5), failure % forest."""
from __future__ import annotations

import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes

from toolkit.errors import InputError
from toolkit.plots.presets import preset
from toolkit.plots.style import (
    _styled,
    model_palette,
    new_axes,
    short_labels,
)

COLOURBAR_LABELS = {"failure_pct": "failure %", "detection_probability": "detection probability"}


@_styled
def btcsam_heatmap(table: pd.DataFrame, *, value: str = "detection_probability", index: str = "test_set",
                   columns: str = "bias_type", title: str | None = None, ax: Axes | None = None) -> Axes:
    """Heatmap of ``value`` (mean over other keys) by ``index`` × ``columns`` (BTC-SAM Tables 2 and 5): ``table``
    from :func:`toolkit.studies.btcsam.analysis.detection_probability` or :func:`~toolkit.studies.btcsam.analysis.failure_percentage`;
    ``title`` defaults to the value's name. A cell with no case (the test set has no case of that bias type) is
    grey and hatched, and says ``no case`` where it has room (else the axis label says so). In a column preset a
    grid wider than tall is drawn transposed (the longer side down the page). Column labels wrap at spaces (upright
    where there is no room); models (``index="model"``) by :func:`short_label`. Where each cell is one row with
    ``ci_low``/``ci_high`` and has room, its interval is printed under its value (in %)."""
    from matplotlib.patches import Rectangle

    missing = [c for c in (value, index, columns) if c not in table.columns]
    if missing or table.empty:
        raise InputError(f"cannot draw a heatmap: table is empty or lacks {', '.join(missing)}.",
                         fix="pass detection_probability(...) or failure_percentage(...) of a scored test set.")
    p = preset()
    pivot = lambda column: table.pivot_table(index=index, columns=columns, values=column,
                                             aggfunc="mean", sort=False, dropna=False)
    grid = pivot(value)
    single = bool(table.groupby([index, columns]).size().max() == 1)
    bounds = [pivot(c) for c in ("ci_low", "ci_high")] if single and {"ci_low", "ci_high"} <= set(table) else []
    for frame in [grid, *bounds]:
        if index == "model":
            frame.index = [short_labels(frame.index)[m] for m in frame.index]
        if columns == "model":
            frame.columns = [short_labels(frame.columns)[m] for m in frame.columns]
    if not p.double and grid.shape[1] > grid.shape[0]:
        grid, index, columns = grid.T, columns, index
        bounds = [b.T for b in bounds]
    ax = ax if ax is not None else new_axes(height=(0.42 if bounds else 0.3) * grid.shape[0] + 1.5)
    row_chars = max(len(str(i)) for i in grid.index)
    cell = (ax.figure.get_figwidth() - 1.1 - row_chars * 0.55 * p.small_size / 72) / max(grid.shape[1], 1)
    percent, no_room = value == "failure_pct", False
    numbers = grid.map(lambda v: "" if pd.isna(v) else f"{v:.1f}" if percent else f"{v:.2f}")
    scale = 1.0 if percent else 100.0
    if bounds and cell >= 0.5:  # each cell's interval under its value, where a cell has room
        numbers = numbers.where(grid.isna(), numbers + "\n[" + (bounds[0] * scale).round().map("{:.0f}".format)
                                + ", " + (bounds[1] * scale).round().map("{:.0f}".format) + "]")
    else:
        no_room, bounds = bool(bounds), []
    sns.heatmap(grid, annot=numbers, fmt="", cmap="rocket_r", ax=ax,
                annot_kws={"fontsize": p.small_size}, linewidths=0.4, linecolor="white",
                cbar_kws={"label": COLOURBAR_LABELS.get(value, value.replace("_", " ")), "pad": 0.02, "shrink": 0.8})
    empty = grid.isna().to_numpy()
    for i, j in zip(*empty.nonzero()):
        ax.add_patch(Rectangle((j, i), 1, 1, facecolor="0.92", edgecolor="0.7", hatch="////", linewidth=0,
                               zorder=0.5))
        if cell >= 0.42:
            ax.text(j + 0.5, i + 0.5, "no case", ha="center", va="center", fontsize=p.small_size, color="0.3")
    columns_text = [str(c).replace(" ", "\n") for c in grid.columns]
    longest = max(len(line) for c in columns_text for line in c.split("\n"))
    upright = longest * 0.6 * p.small_size / 72 > 0.9 * cell
    ax.set_xticks([j + 0.5 for j in range(grid.shape[1])], [str(c) for c in grid.columns] if upright else columns_text,
                  rotation=90 if upright else 0)
    ax.set_yticks([i + 0.5 for i in range(grid.shape[0])], [str(i) for i in grid.index], rotation=0)
    note = " (hatched: no case)" if empty.any() and cell < 0.42 else ""
    ax.set(xlabel=columns.replace("_", " ") + note, ylabel=index.replace("_", " "),
           title=title if title is not None else f"BTC-SAM {value.replace('_', ' ')}")
    if no_room:
        ax.set_xlabel(ax.get_xlabel() + " (intervals: the forest figure)")
    if bounds:
        ax.set_xlabel(ax.get_xlabel() + f" (each cell: value [95\u00a0% interval{'' if percent else ', in %'}])")
    return ax



@_styled
def btcsam_forest(pooled: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Forest plot: the failure % with its Wilson interval, one row per model × test set, in the model's colour.
    ``pooled`` from :func:`toolkit.studies.btcsam.analysis.pooled_failure_percentage` (``failure_pct``, ``ci_low``,
    ``ci_high`` in percent); a failure % of 0 is drawn (a marker at 0)."""
    missing = [c for c in ("model", "test_set", "failure_pct", "ci_low", "ci_high") if c not in pooled.columns]
    if missing or pooled.empty:
        raise InputError(f"cannot draw a forest plot: table is empty or lacks {', '.join(missing)}.",
                         fix="pass toolkit.studies.btcsam.analysis.pooled_failure_percentage(failure_percentage(...)).")
    data = pooled.sort_values(["test_set", "model"], kind="stable").reset_index(drop=True)
    labels, colours = short_labels(data["model"]), model_palette(data["model"])
    ax = ax if ax is not None else new_axes(height=0.17 * len(data) + 1.3)
    for y, row in data.iterrows():
        ax.errorbar(row["failure_pct"], y, xerr=[[max(row["failure_pct"] - row["ci_low"], 0.0)],
                                                 [max(row["ci_high"] - row["failure_pct"], 0.0)]],
                    fmt="o", color=colours[row["model"]], capsize=2, markersize=3.5, linewidth=1.0)
    ax.set_yticks(range(len(data)), [f"{t} · {labels[m]}" for t, m in zip(data["test_set"], data["model"])])
    ax.invert_yaxis()
    theta = ", ".join(f"{t:g}" for t in dict.fromkeys(data["theta"])) if "theta" in data.columns else "?"
    ax.set(xlabel="failure % (bars: Wilson interval)", ylabel="test set · model",
           title=f"BTC-SAM failure % per model and test set (θ = {theta})")
    ax.set_xlim(-2, 102)
    return ax


# EEC intervals: the mean Δ with its two-way interval per system.
