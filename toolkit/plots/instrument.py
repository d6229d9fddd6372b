"""Names and templates as the instrument: the group gap before and after the name-frequency adjustment,
the estimate across template wordings, and the gender × race contrasts; data in, Axes out."""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from toolkit.plots.style import ZERO_MARK, _legend_outside, _styled, model_palette, new_axes, short_label

ANALYSIS_STYLE = {"raw": ("o", "as measured"), "adjusted": ("s", "adjusted for name frequency"),
                  "overlap": ("D", "adjusted, names in common support"), "matched": ("^", "frequency-matched names")}


def _ranges(ax: Axes, y: np.ndarray, est, low, high, *, colour: str, marker: str, label: str | None) -> None:
    est, low, high = (np.asarray(v, dtype=float) for v in (est, low, high))
    ok = np.isfinite(est)
    ax.errorbar(est[ok], y[ok], xerr=[est[ok] - low[ok], high[ok] - est[ok]], fmt=marker, color=colour,
                markersize=4, elinewidth=1, capsize=2, label=label)
    zero = ok & (np.abs(est) <= 1e-12) & (np.abs(high - low) <= 1e-12)
    if zero.any():
        ax.plot(est[zero], y[zero], color=colour, **ZERO_MARK)


@_styled
def confounds(table: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """:func:`toolkit.instrument.confounds.name_confounds`: per system, the gap and its interval as measured, adjusted
    for name frequency (and subword length), adjusted on the names in common support, and on frequency-matched
    names."""
    ax = ax if ax is not None else new_axes()
    models = list(dict.fromkeys(table["model"]))
    offsets = {a: (i - 1.5) * 0.18 for i, a in enumerate(ANALYSIS_STYLE)}
    for analysis, (marker, label) in ANALYSIS_STYLE.items():
        rows = table[table["analysis"] == analysis].set_index("model").reindex(models)
        y = np.arange(len(models)) + offsets[analysis]
        _ranges(ax, y, rows["estimate"], rows["ci_low"], rows["ci_high"], colour="#333333", marker=marker,
                label=label)
    ax.axvline(0, color="#888888", linewidth=0.8, zorder=0)
    ax.set_yticks(np.arange(len(models)), [short_label(m) for m in models])
    ax.invert_yaxis()
    attribute = str(table["attribute"].iloc[0]) if len(table) else ""
    study = "PSA" if "corpus" in table.columns else "EEC"
    ax.set(xlabel=f"{attribute} gap (group a − group b), 95% interval", ylabel="",
           title=f"{study} {attribute} gap and name frequency")
    _legend_outside(ax)
    return ax


@_styled
def wording(table: pd.DataFrame, *, attribute: str, ax: Axes | None = None) -> Axes:
    """:func:`toolkit.instrument.wording.sweep`: per system, the estimate under each template wording set (the
    published wording filled, on top, thicker; each rewording hollow under it), each with its interval."""
    ax = ax if ax is not None else new_axes()
    data = table[table["attribute"] == attribute]
    models = list(dict.fromkeys(data["model"]))
    palette = model_palette(models)
    for i, model in enumerate(models):
        rows = data[data["model"] == model]
        for published, (marker_face, width, y) in ((True, (palette[model], 1.4, [i - 0.24])),
                                                   (False, ("white", 0.7, None))):
            part = rows[(rows["wording"] == "published") == published]
            if part.empty:
                continue
            y = y or list(np.linspace(-0.08, 0.24, len(part)) + i if len(part) > 1 else [i + 0.08])
            ax.errorbar(part["estimate"], y[: len(part)], xerr=[part["estimate"] - part["ci_low"],
                                                                part["ci_high"] - part["estimate"]],
                        fmt="o", mfc=marker_face, color=palette[model], markersize=4.5 if published else 3.5,
                        elinewidth=width, capsize=1.5)
    ax.errorbar([], [], xerr=[], fmt="o", color="0.3", markersize=4.5, elinewidth=1.4, capsize=1.5,
                label="published templates")
    ax.errorbar([], [], xerr=[], fmt="o", mfc="white", color="0.3", markersize=3.5, elinewidth=0.7, capsize=1.5,
                label="reworded templates")
    ax.axvline(0, color="#888888", linewidth=0.8, zorder=0)
    ax.set_yticks(np.arange(len(models)), [short_label(m) for m in models])
    ax.invert_yaxis()
    ax.set(xlabel=f"{attribute} estimate with 95% interval, one per wording set", ylabel="",
           title=f"EEC {attribute} estimate across template wordings")
    _legend_outside(ax)
    return ax


@_styled
def intersections(table: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """:func:`toolkit.intersections.cells`: each contrast with its interval, one colour per system; a
    contrast some system has not enough data for is starred, and the axis label says for which."""
    ax = ax if ax is not None else new_axes(height=3.0)
    contrasts = list(dict.fromkeys(table["contrast"]))
    models = list(dict.fromkeys(table["model"]))
    palette = model_palette(models)
    step = 0.6 / max(len(models), 1)
    for j, model in enumerate(models):
        rows = table[table["model"] == model].set_index("contrast").reindex(contrasts)
        if "state" in rows.columns:  # a cell without enough data has no estimate to show
            rows.loc[rows["state"] == "not enough data", ["estimate", "ci_low", "ci_high"]] = np.nan
        y = np.arange(len(contrasts)) + (j - (len(models) - 1) / 2) * step
        _ranges(ax, y, rows["estimate"], rows["ci_low"], rows["ci_high"], colour=palette[model], marker="o",
                label=short_label(model))
    ax.axvline(0, color="#888888", linewidth=0.8, zorder=0)
    short = [c.replace("African-American", "AA").replace("European", "EA") for c in contrasts]
    sparse = table[table["state"] == "not enough data"] if "state" in table.columns else table.iloc[:0]
    starred = set(sparse["contrast"])
    ax.set_yticks(np.arange(len(contrasts)), [s + ("*" if c in starred else "") for s, c in zip(short, contrasts)])
    ax.invert_yaxis()
    note = ""
    if starred:
        who = ", ".join(short_label(m) for m in dict.fromkeys(sparse["model"]))
        note = f"\n* not enough data for {who} (nothing drawn)"
    ax.set(xlabel="score difference (a − b), 95% interval; AA African-American, EA European names" + note,
           ylabel="", title="EEC gender × race contrasts")
    _legend_outside(ax)
    return ax
