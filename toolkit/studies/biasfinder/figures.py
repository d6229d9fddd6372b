"""BiasFinder figures (Asyrofi et al. 2021): BTCs per template (Table 4 as a figure), the BTC rate and its
within-class null."""
from __future__ import annotations

import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from toolkit.errors import InputError
from toolkit.plots.presets import preset
from toolkit.plots.style import (
    ZERO_MARK,
    _legend_outside,
    _mark_zero_bars,
    _styled,
    _text_inches,
    model_palette,
    new_axes,
    short_labels,
)
from toolkit.studies.biasfinder.btc_rates import MIN_TEMPLATES

DWARF_RATIO = 50
"""Where the tallest BTCs-per-template bar is more than this many times the shortest non-zero one, the axis is a
square root, so the short bars keep a visible height (their values are printed on them either way)."""


def _value_text(value: float) -> str:
    """A bar's value to two significant digits, with no decimals past them (``355``, ``1.5``, ``0.024``; at most 3
    decimals); 0 as ``0``."""
    import numpy as np

    if value == 0:
        return "0"
    decimals = int(min(3, max(0, 1 - np.floor(np.log10(abs(value))))))
    return f"{value:.{decimals}f}"


def _square_root_axis(ax: Axes, *, top: float, headroom: float = 1.0) -> str:
    """A square-root y axis on ``ax`` up to ``top`` × ``headroom``², room below 0 for the zero diamonds, ticks at
    round values that stay apart; returns the words for the axis label (``" (square-root scale)"``)."""
    import numpy as np

    ax.set_yscale("function", functions=(lambda v: np.sign(v) * np.sqrt(np.abs(v)),
                                         lambda v: np.sign(v) * np.square(v)))
    ax.set_ylim(-(0.04 * np.sqrt(top) * headroom) ** 2, top * headroom ** 2)
    ticks, last = [0.0], 0.0
    for nice in (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000):
        if nice <= top * headroom ** 2 and np.sqrt(nice) - np.sqrt(last) >= 0.12 * np.sqrt(top):
            ticks.append(nice)
            last = nice
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    return " (√\u00a0scale)"


@_styled
def biasfinder_btcs(table4: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """BTCs per template, per characteristic, one bar per model in its colour (BiasFinder Table 4 as a figure,
    normalised: ``btcs / templates``, since models and characteristics are scored on different numbers of
    templates; a square-root axis where one bar is over :data:`DWARF_RATIO` times the shortest; each bar labelled
    with its value to two significant digits, so a bar far shorter than the tallest still reads). A model with no
    BTC is a diamond on the zero line and its legend entry says ``(0 BTCs)``; a characteristic without templates draws
    nothing and is labelled ``no template``.
    ``table4`` from :func:`toolkit.studies.biasfinder.analysis.table4`."""
    import numpy as np

    if table4.empty:
        raise InputError("no Table 4 rows to plot.", fix="generate templates from a corpus that yields some.")
    labels = short_labels(table4["model"])
    for model, block in table4.groupby("model", sort=False):
        if (block["btcs"] == 0).all():
            labels[model] = f"{labels[model]} (0 BTCs)"
    templates = table4["templates"].astype(float).where(table4["templates"] > 0)
    data = table4.assign(per_template=table4["btcs"] / templates, system=table4["model"].map(labels))
    colours = model_palette(labels)
    palette = {labels[m]: colours[m] for m in labels}
    ax = ax if ax is not None else new_axes()
    attributes = list(dict.fromkeys(data["attribute"]))
    sns.barplot(saturation=1, data=data, x="attribute", y="per_template", hue="system", hue_order=list(labels.values()),
                order=attributes, palette=palette, ax=ax)
    zeros = _mark_zero_bars(ax)
    for i, attribute in enumerate(attributes):
        if not np.isfinite(data.loc[data["attribute"] == attribute, "per_template"]).any():
            ax.annotate("no template", (i, 0.0), xytext=(0, 5), textcoords="offset points", ha="center",
                        fontsize=preset().small_size)
    values = data["per_template"].to_numpy(float)
    top = np.nanmax(values) if data["per_template"].notna().any() else 0.0
    positive = values[np.isfinite(values) & (values > 0)]
    p = preset()
    bars = [bar for container in ax.containers for bar in container if np.isfinite(bar.get_height())]
    text = _value_text
    widest = max((_text_inches(text(bar.get_height()), p.small_size) for bar in bars), default=0.1)
    bar_inches = ax.figure.get_figwidth() * 0.85 / max(len(attributes) * len(labels) / 0.8, 1)
    upright = widest > 0.95 * bar_inches
    for bar in bars:  # every bar says its value: a bar 100 times shorter than the tallest stays readable
        ax.annotate(text(bar.get_height()), (bar.get_x() + bar.get_width() / 2, max(bar.get_height(), 0.0)),
                    xytext=(0, 5 if bar.get_height() == 0 else 2), textcoords="offset points", ha="center",
                    va="bottom", rotation=90 if upright else 0, fontsize=p.small_size)
    headroom = 1.0 + (widest + 0.1 if upright else 0.2) / max(ax.figure.get_figheight()
                                                                                         - 1.0, 0.8)
    scale = ""
    if len(positive) and top / positive.min() > DWARF_RATIO:  # one bar dwarfs the rest: a square-root axis
        scale = _square_root_axis(ax, top=top, headroom=headroom)
    elif top > 0:
        ax.set_ylim(top=headroom * top)  # room for the values; _mark_zero_bars made room below zero
    else:
        ax.set_ylim(-0.05, 1.0)  # nothing but zeros (or no template): a visible range
    ax.set(xlabel="characteristic", ylabel="BTCs per template" + scale,
           title="BiasFinder BTCs per template (Table 4)")
    handles, texts = ax.get_legend_handles_labels()
    if zeros:
        handles.append(Line2D([], [], color="0.6", **ZERO_MARK))
        texts.append("0 BTCs (no bar)")
    _legend_outside(ax, handles, texts)
    return ax



INTERVAL_WORDS = {"cluster": "95\u00a0% CIs clustered by template",
                  "cluster-bootstrap": "95\u00a0% template-cluster bootstrap CIs",
                  "templates": "95\u00a0% CIs over templates", "pairs": "95\u00a0% Wilson CIs over pairs"}
"""How :func:`biasfinder_rates`' title names each :data:`~toolkit.studies.biasfinder.btc_rates.RATE_INTERVALS`."""


@_styled
def biasfinder_rates(rates: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """BTC rate between classes (filled) and its within-class null (open) with their intervals, per characteristic,
    one colour per model (:func:`model_colour`; point-range). A rate of exactly 0 with no width (no BTC among the
    pairs) is a diamond on the zero line, in the legend; a square-root axis where the highest point is over
    :data:`DWARF_RATIO` times the lowest non-zero one. ``rates`` from
    :func:`toolkit.studies.biasfinder.analysis.rates`: the intervals are ``rate_low/high`` and ``null_low/high``
    (template-clustered by default, said in the title); a point without an interval has none (fewer than
    ``MIN_TEMPLATES`` templates); characteristics without a null (occupation) show the rate only, and their tick
    label says ``(no null)`` (``(no interval)`` where no model has one)."""
    import numpy as np

    if rates.empty:
        raise InputError("no BTC rates to plot.", fix="pass toolkit.studies.biasfinder.analysis.rates(scored).")
    attributes, models = list(dict.fromkeys(rates["attribute"])), list(dict.fromkeys(rates["model"]))
    labels, colours = short_labels(models), model_palette(models)
    ax = ax if ax is not None else new_axes()
    width = 0.8 / len(models)
    zero = zero_null = False
    shown = {"rate": False, "null": False}  # a non-zero rate / null drawn as a circle: its legend entry
    for j, model in enumerate(models):
        colour = colours[model]
        block = rates[rates["model"] == model].set_index("attribute").reindex(attributes)
        x = np.arange(len(attributes)) - 0.4 + width * (j + 0.5)
        for column, low, high, shift, face in (("rate_between", "rate_low", "rate_high", -0.15, colour),
                                               ("rate_within", "null_low", "null_high", 0.15, "white")):
            y = block[column].to_numpy(float)
            lows, highs = block[low].to_numpy(float), block[high].to_numpy(float)
            flat = np.isfinite(y) & (y == 0) & ~(np.isfinite(highs) & (highs > 0))  # 0 with no width
            err = np.vstack([y - lows, highs - y])[:, ~flat]
            shown["rate" if face == colour else "null"] |= bool((np.isfinite(y) & ~flat).any())
            ax.errorbar((x + shift * width)[~flat], y[~flat], yerr=np.clip(np.nan_to_num(err, nan=0.0), 0.0, None),
                        fmt="o", color=colour, markerfacecolor=face, capsize=2, linewidth=1.0, markersize=3.5)
            if flat.any():  # a null of 0: an open diamond edged in the model's colour, so each stays its model's
                edge = "black" if face == colour else colour
                ax.plot((x + shift * width)[flat], y[flat], color=colour,
                        **{**ZERO_MARK, "markerfacecolor": face, "markeredgecolor": edge})
                zero_null |= face != colour
                zero |= face == colour
        ax.plot([], [], "o", color=colour, label=labels[model])
    if shown["rate"]:
        ax.plot([], [], "o", color="0.3", label="between classes (BTC rate)")
    if shown["null"]:
        ax.plot([], [], "o", color="0.3", markerfacecolor="white", label="null: swaps within one class")
    if zero:
        ax.plot([], [], color="0.6", label="rate 0 (no BTC)", **ZERO_MARK)
    if zero_null:
        ax.plot([], [], color="0.3", label="null 0 (no BTC among swaps within one class)",
                **{**ZERO_MARK, "markerfacecolor": "white", "markeredgecolor": "0.3"})
    ax.axhline(0.0, color="black", linewidth=0.6)
    values = rates[["rate_between", "rate_high", "rate_within", "null_high"]].to_numpy(float)
    top = np.nanmax(values) if np.isfinite(values).any() else 0.0
    positive = values[np.isfinite(values) & (values > 0)]
    scale = ""
    if top > 0 and top / positive.min() > DWARF_RATIO:  # the lowest non-zero point would sit on the zero line
        scale = _square_root_axis(ax, top=top, headroom=1.05)
    else:
        top = top if top > 0 else 0.01
        ax.set_ylim(-0.04 * top, 1.1 * top)
    ticks = []
    for attribute in attributes:
        block = rates[rates["attribute"] == attribute]
        missing = [what for what, column in (("null", "rate_within"), ("CI", "rate_low"))
                   if column not in block.columns or block[column].isna().all()]
        n = int(block["templates"].max()) if "CI" in missing and "templates" in block.columns else None
        few = f"{n} template{'s' if n != 1 else ''}: " if n is not None and n < MIN_TEMPLATES else ""
        ticks.append(attribute + (f"\n({few}no {' or '.join(missing)})" if missing else ""))
    ax.set_xticks(np.arange(len(attributes)), ticks)
    method = str(rates["interval"].iloc[0]) if "interval" in rates.columns else ""
    ax.set(xlabel="characteristic", ylabel="BTCs / mutant pairs" + scale,
           title=f"BiasFinder BTC rate and within-class null, {INTERVAL_WORDS.get(method, method + ' intervals')}")
    _legend_outside(ax)
    return ax
