"""BiasFinder figures (Asyrofi et al. 2021): BTCs per template (Table 4 as a figure), the BTC rate and its
within-class null."""
from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from toolkit.errors import InputError
from toolkit.plots.presets import preset
from toolkit.plots.style import (
    _legend_outside,
    _note_below,
    _styled,
    model_markers,
    model_palette,
    new_axes,
    open_edge,
    short_labels,
)
from toolkit.studies.biasfinder.btc_rates import MIN_TEMPLATES

DWARF_RATIO = 50
"""Where the largest BTCs per template is more than this many times the smallest non-zero one, the y axis is
logarithmic above a small linear stretch at 0 (:func:`_log_axis`), so both read off the axis."""
ZERO_GREY = "0.55"
""":func:`biasfinder_rates`' exact 0: a rate's fill, a null's edge (the model's marker kept, as the confounds
figures keep theirs)."""


def _value_text(value: float) -> str:
    """A value to two significant digits, with no decimals past them (``355``, ``1.5``, ``0.024``; at most 3
    decimals); 0 as ``0``."""
    import numpy as np

    if value == 0:
        return "0"
    decimals = int(min(3, max(0, 1 - np.floor(np.log10(abs(value))))))
    return f"{value:.{decimals}f}"


def _square_root_axis(ax: Axes, *, top: float, headroom: float = 1.0) -> str:
    """A square-root y axis on ``ax`` up to ``top`` × ``headroom``², room below 0 for the zero diamonds, ticks at
    round values that stay apart; returns the words for the axis label (``" (√ scale)"``)."""
    import numpy as np

    ax.set_yscale("function", functions=(lambda v: np.sign(v) * np.sqrt(np.abs(v)),
                                         lambda v: np.sign(v) * np.square(v)))
    ax.set_ylim(-(0.04 * np.sqrt(top) * headroom) ** 2, top * headroom ** 2)
    ticks, last = [0.0], 0.0
    for nice in (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000):
        if nice <= top * headroom ** 2 and np.sqrt(nice) - np.sqrt(last) >= 0.15 * np.sqrt(top):
            ticks.append(nice)
            last = nice
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    return " (√\u00a0scale)"


def _log_axis(ax: Axes, *, smallest: float, top: float) -> str:
    """A symmetric-log y axis on ``ax``: linear from 0 to the power of ten at or below ``smallest`` (so 0 has its
    place), logarithmic above, up to the first power of ten over ``top`` (values are printed beside their points); ticks at 0 and
    each power of ten, and a break mark on the axis between 0 and the first power (the scale changes there);
    returns the words for the axis label."""
    import numpy as np
    from matplotlib.transforms import blended_transform_factory

    floor = 10.0 ** np.floor(np.log10(smallest))
    ceiling = 10.0 ** np.ceil(np.log10(top * 1.2))
    ax.set_yscale("symlog", linthresh=floor, linscale=0.6)
    ax.set_ylim(-0.25 * floor, ceiling * 10 ** 0.2)  # the top tick inside the frame, clear of the title
    ticks = [0.0] + [10.0 ** k for k in range(int(np.log10(floor)), int(np.log10(ceiling)) + 1)]
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    on_axis = blended_transform_factory(ax.transAxes, ax.transData)
    for k, y in enumerate((0.45 * floor, 0.65 * floor)):  # two slashes: the axis breaks between 0 and the floor
        ax.plot([-0.012, 0.012], [y - 0.08 * floor, y + 0.08 * floor], transform=on_axis, clip_on=False,
                color="black", linewidth=0.8, zorder=5)
    return " (log scale)"


@_styled
def biasfinder_btcs(table4: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """BTCs per template, per characteristic, as a dot plot: one point per model in its colour and marker
    (:func:`model_palette`, :func:`model_markers`), side by side within a characteristic (BiasFinder Table 4 as a
    figure, normalised: ``btcs / templates``, since models and characteristics are scored on different numbers of
    templates). A point's height is its value (a 0 sits on the 0 line; every non-zero value is printed beside its
    point to two significant digits); where the largest value is over :data:`DWARF_RATIO` times the smallest
    non-zero one, the axis is logarithmic above a linear stretch at 0, with a break mark (:func:`_log_axis`). The
    legend gives each model's BTCs over all characteristics (``afinn (0 BTCs)``, Table 4's raw counts); a characteristic without templates draws nothing and is
    labelled ``no template``. ``table4`` from :func:`toolkit.studies.biasfinder.analysis.table4`."""
    import numpy as np

    if table4.empty:
        raise InputError("no Table 4 rows to plot.", fix="generate templates from a corpus that yields some.")
    missing = [c for c in ("model", "attribute", "templates", "btcs") if c not in table4.columns]
    if missing:
        raise InputError(f"cannot draw BTCs per template: the table lacks {', '.join(missing)}.",
                         fix="pass toolkit.studies.biasfinder.analysis.table4(...).")
    models = list(dict.fromkeys(table4["model"]))
    labels = short_labels(models)
    for model, block in table4.groupby("model", sort=False):  # each model's BTCs over all characteristics
        counts = pd.to_numeric(block["btcs"], errors="coerce")
        total = int(counts.sum()) if counts.notna().all() else None  # a missing count is said, never shown as 0
        labels[model] += (" (BTCs not counted)" if total is None else f" ({total:,} BTC{'' if total == 1 else 's'})")
    templates = table4["templates"].astype(float).where(table4["templates"] > 0)
    data = table4.assign(per_template=table4["btcs"] / templates)
    colours, markers = model_palette(models), model_markers(models)
    ax = ax if ax is not None else new_axes()
    p = preset()
    attributes = list(dict.fromkeys(data["attribute"]))
    step = 0.8 / len(models)
    for j, model in enumerate(models):
        rows = data[data["model"] == model].set_index("attribute")["per_template"]
        xs = [i - 0.4 + step * (j + 0.5) for i, a in enumerate(attributes) if a in rows and np.isfinite(rows[a])]
        ys = [float(rows[a]) for a in attributes if a in rows and np.isfinite(rows[a])]
        ax.plot(xs, ys, linestyle="none", marker=markers[model], color=colours[model], markersize=5,
                markeredgecolor="black", markeredgewidth=0.4, label=labels[model], zorder=3)
        for x, y in zip(xs, ys):
            if y > 0:  # a 0 reads off the 0 line; every other value is printed, the smallest too
                ax.annotate(_value_text(y), (x, y), xytext=(0, 4), textcoords="offset points", ha="center",
                            va="bottom", fontsize=p.small_size)  # above: beside, "21" ran into the next marker
    for i, attribute in enumerate(attributes):
        if not np.isfinite(data.loc[data["attribute"] == attribute, "per_template"]).any():
            ax.annotate("no template", (i, 0.0), xytext=(0, 5), textcoords="offset points", ha="center",
                        fontsize=p.small_size)
        if i:
            ax.axvline(i - 0.5, color="0.85", linewidth=0.6, zorder=0)
    values = data["per_template"].to_numpy(float)
    positive = values[np.isfinite(values) & (values > 0)]
    top = positive.max() if len(positive) else 0.0
    scale = ""
    if len(positive) and top / positive.min() > DWARF_RATIO:
        scale = _log_axis(ax, smallest=positive.min(), top=top)
    elif top > 0:
        ax.set_ylim(-0.04 * top, 1.1 * top)  # a 0 not cut in half
    else:
        ax.set_ylim(-0.05, 1.0)  # nothing but zeros (or no template): a visible range
    ax.yaxis.grid(True, color="0.9", linewidth=0.5, zorder=0)
    ax.set_axisbelow(True)
    ax.set_xticks(range(len(attributes)), attributes)
    ax.set_xlim(-0.5, len(attributes) - 0.5)
    ax.set(xlabel="characteristic", ylabel="BTCs per template" + scale,
           title="BiasFinder BTCs per template (as BiasFinder's Table 4)")
    _legend_outside(ax, title="in brackets: each model's BTCs over all characteristics")
    return ax



INTERVAL_WORDS = {"cluster": "95\u00a0% CIs clustered by template",
                  "cluster-bootstrap": "95\u00a0% template-cluster bootstrap CIs",
                  "templates": "95\u00a0% CIs over templates", "pairs": "95\u00a0% Wilson CIs over pairs"}
"""How :func:`biasfinder_rates`' title names each :data:`~toolkit.studies.biasfinder.btc_rates.RATE_INTERVALS`."""


@_styled
def biasfinder_rates(rates: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """BTC rate between classes (filled) and its within-class null (open) with their intervals, per characteristic,
    each model in its colour and marker (:func:`model_palette`, :func:`model_markers`; point-range). A rate of
    exactly 0 with no width (no BTC among the pairs) is filled grey, a null of 0 edged grey, in the legend; a
    square-root axis where the highest point is over :data:`DWARF_RATIO` times the lowest non-zero one. ``rates``
    from :func:`toolkit.studies.biasfinder.analysis.rates`: the intervals are ``rate_low/high`` and
    ``null_low/high`` (template-clustered by default, said in the title); a point without an interval has none
    (fewer than ``MIN_TEMPLATES`` templates); characteristics without a null (occupation) show the rate only, and
    their tick label says ``(no null)`` (``(no interval)`` where no model has one). A characteristic with neither a
    null nor an interval for any model (too few templates: ``make figures``' 1 country and 5 occupation templates)
    is left out and named in a note, unless every characteristic is (round 13 and 14 readers: two thirds of the
    width for points that test nothing)."""
    import numpy as np

    if rates.empty:
        raise InputError("no BTC rates to plot.", fix="pass toolkit.studies.biasfinder.analysis.rates(scored).")
    untested = _untested(rates)
    if untested and len(untested) < rates["attribute"].nunique():
        rates = rates[~rates["attribute"].isin(untested)]
    else:
        untested = {}
    attributes, models = list(dict.fromkeys(rates["attribute"])), list(dict.fromkeys(rates["model"]))
    labels, colours, markers = short_labels(models), model_palette(models), model_markers(models)
    ax = ax if ax is not None else new_axes()
    width = 0.8 / len(models)
    zero = zero_null = False
    shown = {"rate": False, "null": False}  # a non-zero rate / null drawn: its legend entry
    for j, model in enumerate(models):
        colour, marker = colours[model], markers[model]
        block = rates[rates["model"] == model].set_index("attribute").reindex(attributes)
        x = np.arange(len(attributes)) - 0.4 + width * (j + 0.5)
        # the rate left of its null, a marker's width apart (at ±0.15 they touched, round 13)
        for column, low, high, shift, filled in (("rate_between", "rate_low", "rate_high", -0.28, True),
                                                 ("rate_within", "null_low", "null_high", 0.28, False)):
            y = block[column].to_numpy(float)
            lows, highs = block[low].to_numpy(float), block[high].to_numpy(float)
            flat = np.isfinite(y) & (y == 0) & ~(np.isfinite(highs) & (highs > 0))  # 0 with no width
            err = np.vstack([y - lows, highs - y])[:, ~flat]
            shown["rate" if filled else "null"] |= bool((np.isfinite(y) & ~flat).any())
            edge = 1.0 if filled else open_edge(marker)
            ax.errorbar((x + shift * width)[~flat], y[~flat], yerr=np.clip(np.nan_to_num(err, nan=0.0), 0.0, None),
                        fmt=marker, color=colour, markerfacecolor=colour if filled else "white", capsize=2,
                        linewidth=1.0, markersize=4.0, markeredgewidth=edge)
            if flat.any():  # exactly 0: the model's marker, a rate filled grey, a null edged grey
                ax.plot((x + shift * width)[flat], y[flat], linestyle="none", marker=marker, markersize=4.5,
                        markerfacecolor=ZERO_GREY if filled else "white",
                        markeredgecolor=colour if filled else ZERO_GREY, markeredgewidth=0.7 if filled else edge,
                        zorder=4)
                zero_null |= not filled
                zero |= filled
        ax.plot([], [], linestyle="none", marker=marker, color=colour, markersize=4.0, label=labels[model])
    if shown["rate"]:
        ax.plot([], [], "o", color="0.3", markersize=4.0, label="filled: between classes (BTC rate)")
    if shown["null"]:
        ax.plot([], [], "o", color="0.3", markerfacecolor="white", markersize=4.0,
                label="open: null, swaps within one class")
    handles, texts = ax.get_legend_handles_labels()
    if zero or zero_null:  # one key for both zeros (round 12: four fill states were one too many to decode)
        half = "left" if zero and zero_null else "full"  # both: half filled grey (a rate), half white (a null)
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=4.5, fillstyle=half,
                              markerfacecolor=ZERO_GREY if zero else "white", markerfacecoloralt="white",
                              markeredgecolor=ZERO_GREY))
        texts.append("grey: exactly 0, no BTC" + (" (a rate filled, a null edged)" if zero and zero_null else
                                                 " (a rate)" if zero else " (a null)"))
    ax.axhline(0.0, color="black", linewidth=0.6)
    values = rates[["rate_between", "rate_high", "rate_within", "null_high"]].to_numpy(float)
    top = np.nanmax(values) if np.isfinite(values).any() else 0.0
    positive = values[np.isfinite(values) & (values > 0)]
    scale = ""
    if top > 0 and top / positive.min() > DWARF_RATIO:  # the lowest non-zero point would sit on the zero line
        scale = _square_root_axis(ax, top=top, headroom=1.1)  # a rate near 1 and its cap clear of the frame
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
    if untested:
        _note_below(ax, "not drawn, too few templates for a null or an interval: " + ", ".join(
            f"{a} ({n} template{'s' if n != 1 else ''})" if n is not None else a for a, n in untested.items())
            + "; their rates are in biasfinder_rates.csv and their BTCs in the BTCs-per-template figure")
    _legend_outside(ax, handles, texts)
    return ax


def _untested(rates: pd.DataFrame) -> dict[str, int | None]:
    """The characteristics of ``rates`` with neither a null (``rate_within``) nor an interval (``rate_low``) for
    any model, each with its number of templates (None where the table does not say)."""
    out = {}
    for attribute, block in rates.groupby("attribute", sort=False):
        if all(column not in block.columns or block[column].isna().all() for column in ("rate_within", "rate_low")):
            out[attribute] = int(block["templates"].max()) if "templates" in block.columns else None
    return out
