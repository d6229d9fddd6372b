"""BiasFinder figures (Asyrofi et al. 2021): BTCs per template (Table 4 as a figure), the BTC rate and its
within-class null."""
from __future__ import annotations

import re

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

from toolkit import checks, verdicts
from toolkit import stats as tkstats
from toolkit.errors import InputError
from toolkit.plots.presets import preset
from toolkit.plots.style import (
    MARGIN_BAND,
    NOISE,
    ZERO_GREY,
    _caption_only,
    _legend_outside,
    _note_below,
    _styled,
    model_markers,
    model_palette,
    new_axes,
    open_edge,
    short_labels,
)
from toolkit.studies.biasfinder.btc_rates import MIN_TEMPLATES, VERDICT_GROUPS

DWARF_RATIO = 50
"""Where the largest BTCs per template is more than this many times the smallest non-zero one, the y axis is
logarithmic above a small linear stretch at 0 (:func:`_log_axis`), so both read off the axis."""


def _value_text(value: float) -> str:
    """A value to two significant digits, with no decimals past them (``355``, ``1.5``, ``0.024``; at most 3
    decimals); 0 as ``0``."""
    import numpy as np

    if value == 0:
        return "0"
    decimals = int(min(3, max(0, 1 - np.floor(np.log10(abs(value))))))
    return f"{value:.{decimals}f}"


def _square_root_axis(ax: Axes, *, top: float, headroom: float = 1.0, axis: str = "y", gap: float = 0.15) -> str:
    """A square-root ``axis`` (``"y"`` or ``"x"``) on ``ax`` up to ``top`` × ``headroom``², room below 0 for the
    zero markers, ticks at round values at least ``gap`` × √top apart on the √ scale (wider on a narrow axis);
    returns the words for the axis label (``" (√ scale)"``)."""
    import numpy as np

    scale = getattr(ax, f"set_{axis}scale")
    scale("function", functions=(lambda v: np.sign(v) * np.sqrt(np.abs(v)), lambda v: np.sign(v) * np.square(v)))
    getattr(ax, f"set_{axis}lim")(-(0.04 * np.sqrt(top) * headroom) ** 2, top * headroom ** 2)
    ticks, last = [0.0], 0.0
    for nice in (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000):
        if nice <= top * headroom ** 2 and np.sqrt(nice) - np.sqrt(last) >= gap * np.sqrt(top):
            ticks.append(nice)
            last = nice
    which = ax.yaxis if axis == "y" else ax.xaxis
    which.set_major_locator(FixedLocator(ticks))
    which.set_minor_locator(NullLocator())
    which.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
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


def _template_counts(table4: pd.DataFrame) -> str:
    """The templates behind each characteristic of :func:`biasfinder_btcs`, for its caption: " (templates: gender
    44, occupation 5)", a range where the models were scored on different numbers."""
    if "templates" not in table4.columns or table4.empty:
        return ""
    counts = pd.to_numeric(table4["templates"], errors="coerce").groupby(table4["attribute"], sort=False)
    words = [f"{a} {int(c.min()):,}" if c.min() == c.max() else f"{a} {int(c.min()):,}–{int(c.max()):,}"
             for a, c in counts if c.notna().any()]
    return f" (templates: {', '.join(words)})" if words else ""


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
    _caption_only(ax, "A bias-uncovering test case (BTC; Asyrofi et al. 2021): two mutants of one template that "
                  "differ only in the characteristic's fill (a name of the other gender or of another country, "
                  "another occupation) and get different labels from the model. Per template: a model's BTCs over "
                  "the characteristic's templates" + _template_counts(table4) + ".")
    _legend_outside(ax, title="in parentheses: each model's BTCs over all characteristics")
    return ax



INTERVAL_WORDS = {"cluster": "95\u00a0% CIs clustered by template",
                  "cluster-bootstrap": "95\u00a0% template-cluster bootstrap CIs",
                  "templates": "95\u00a0% CIs over templates", "pairs": "95\u00a0% Wilson CIs over pairs"}
"""How :func:`biasfinder_rates`' title names each :data:`~toolkit.studies.biasfinder.btc_rates.RATE_INTERVALS`."""


P_ADJ = r"$p_\mathrm{adj}$"
"""The corrected p as the figures set it (subscripted, as the agreement figure's; round 20 found both forms)."""
FIGURE_GROUPS = verdicts.Groups("rate", "null", "rate", "null", VERDICT_GROUPS.says_a, VERDICT_GROUPS.says_b)
""":func:`biasfinder_rates`' verdict words, named by the marks they compare: "rate higher" (the filled BTC rate above
its open null; round 20's readers found "between higher" jargon), defined in the note as the tables define them."""


ROW_OFFSET = 0.2
""":func:`biasfinder_rates`: a model's rate sits this far above its row's centre and its null as far below (in rows;
a 0.28-inch row puts their centres 8 pt apart)."""


def _verdict_text(row: pd.Series) -> str:
    """The right-hand label of a model's row in :func:`biasfinder_rates`: its verdict word and corrected p (``rate
    higher, p_adj 0.004``, p_adj set as :data:`P_ADJ`; ``≤ 0.004`` where the permutation p is the smallest its draws allow, 1/(draws + 1), as
    ``p_method`` counts them), ``no null`` where the characteristic has none, "" without a verdict."""
    import numpy as np

    if not np.isfinite(float(row.get("rate_within", np.nan))):
        return "no null"
    shown = verdicts.word(row.get("verdict"), groups=FIGURE_GROUPS)
    p = float(row.get("p_adjusted", np.nan))  # the difference test's p: said beside a difference only
    said = verdicts.kind(row.get("verdict")) in ("a", "b", "small") and np.isfinite(p)
    draws = re.search(r"\((\d+)\)", str(row.get("p_method", "")))  # "names permuted between classes (2000)"
    floor = draws is not None and float(row.get("p_value", np.nan)) <= 1 / (int(draws.group(1)) + 1) + 1e-12
    return f"{shown}, {P_ADJ} {'≤ ' if floor else ''}{p:.2g}" if said else shown  # at the floor: no smaller p seen


@_styled
def biasfinder_rates(rates: pd.DataFrame, *, margin: float | None = None, correction: str | None = None,
                     alpha: float | None = None, ax: Axes | None = None) -> Axes:
    """BTC rate between classes (filled) and its within-class null (open) with their intervals, one row per model
    (named on the axis; the model's colour and marker, :func:`model_palette`, :func:`model_markers`), the rate just
    above the null, each characteristic under its own bold header row; on the right each row's verdict on the excess
    over the null with its corrected p (:data:`~toolkit.studies.biasfinder.btc_rates.VERDICT_GROUPS`' words, defined
    in the note with ``margin`` and ``correction``, the run's settings: default the margin a verdict names, else
    :data:`toolkit.stats.MARGIN`, and no correction named). A rate of exactly 0 with no width (no BTC among the
    pairs) is drawn grey, a null of 0 edged grey (the row names the model), in the legend; a square-root x axis
    where the highest point is over :data:`DWARF_RATIO` times the lowest non-zero one. ``rates`` from
    :func:`toolkit.studies.biasfinder.analysis.rates`: the intervals are ``rate_low/high`` and ``null_low/high``
    (template-clustered by default, said in the title); a point without an interval has none (fewer than
    ``MIN_TEMPLATES`` templates, or one template with a null); a characteristic's header says ``(no null)`` or ``(no
    CI)`` where no model has one. A characteristic with neither a null nor an interval for any model (``make
    figures``' 1 country and 5 occupation templates) is left out and named in a note, unless every characteristic
    is. With an excess (``estimate``) and no ``ax`` given, a second panel draws each excess with its interval
    (``ci_low/high``, its scope from ``excess_scope``; :func:`_draw_excess`) beside the verdicts, under one title at
    the run's ``alpha``; where a null rests on fewer templates than the rate, the filled point is the rate on the
    null's templates (``rate_matched``, ``matched_low/high``), so the excess reads as rate − null."""
    import numpy as np
    from matplotlib.transforms import blended_transform_factory

    if rates.empty:
        raise InputError("no BTC rates to plot.", fix="pass toolkit.studies.biasfinder.analysis.rates(scored).")
    missing = [c for c in ("model", "attribute", "rate_between") if c not in rates.columns]
    if missing:
        raise InputError(f"cannot draw the BTC rates: the table lacks {', '.join(missing)}.",
                         fix="pass toolkit.studies.biasfinder.analysis.rates(scored) (biasfinder_rates.csv).")
    margin = None if margin is None else checks.fraction(margin, name="margin")
    read = "p_value" if "p_value" in rates.columns else "p_adjusted"  # an older table: the corrected p's rows
    tested = int(np.isfinite(pd.to_numeric(rates.get(read, pd.Series(dtype=float)), errors="coerce")).sum())
    untested = _untested(rates)
    if untested and len(untested) < rates["attribute"].nunique():
        rates = rates[~rates["attribute"].isin(untested)]
    else:
        untested = {}
    attributes, models = list(dict.fromkeys(rates["attribute"])), list(dict.fromkeys(rates["model"]))
    labels, colours, markers = short_labels(models), model_palette(models), model_markers(models)
    data = rates.assign(_a=rates["attribute"].map({a: i for i, a in enumerate(attributes)}),
                        _m=rates["model"].map({m: i for i, m in enumerate(models)}))
    data = data.sort_values(["_a", "_m"], kind="stable").reset_index(drop=True)
    headed = len(attributes) > 1  # one characteristic is named in the x label, not a header row (round 16)
    rows = data["_a"].to_numpy() * headed + headed + np.arange(len(data))  # a header row above each characteristic
    wide = preset().double  # a column: each row's verdict under its model's name, not in a right-hand column
    row_inches = 0.28 if wide else 0.38
    height = row_inches * (len(data) + len(attributes) * headed) + 1.2
    has_excess = "estimate" in data.columns and bool(np.isfinite(pd.to_numeric(data["estimate"],
                                                                               errors="coerce")).any())
    excess_ax = None
    if ax is None and has_excess:  # the excess and the verdict in one panel, beside the rates (round 17)
        figure = Figure(figsize=(preset().width, min(height, preset().max_height)), layout="constrained")
        figure.toolkit_preset = preset().name
        ax, excess_ax = figure.subplots(1, 2, sharey=True, width_ratios=[3, 2] if wide else [1, 1])
        excess_ax.tick_params(labelleft=False)
    ax = ax if ax is not None else new_axes(height=height)
    zero = zero_null = False
    shown = {"rate": False, "null": False}  # a non-zero rate / null drawn: its legend entry
    # beside an excess panel, a rate whose null rests on fewer templates is drawn on the null's templates, so that
    # excess = rate − null reads off the figure (round 18: 0.89 − 0.06 beside an excess of 0.87)
    same = excess_ax is not None and "rate_matched" in data.columns and bool(
        (pd.to_numeric(data.get("null_templates"), errors="coerce") < pd.to_numeric(data.get("templates"),
                                                                                   errors="coerce")).any())
    matched_rows, overall_rows, drawn_matched = 0, 0, []
    for y, (_, row) in zip(rows, data.iterrows()):
        colour, marker = colours[row["model"]], markers[row["model"]]
        on_null = (same and np.isfinite(float(row.get("rate_within", np.nan)))
                   and np.isfinite(float(row.get("rate_matched", np.nan)))
                   and (np.isfinite(float(row.get("matched_low", np.nan)))  # never trade an interval for none
                        or not np.isfinite(float(row.get("rate_low", np.nan)))))
        matched_rows, overall_rows = matched_rows + on_null, overall_rows + (not on_null)
        drawn_matched.append(bool(on_null))
        rate = ("rate_matched", "matched_low", "matched_high") if on_null else ("rate_between", "rate_low",
                                                                                 "rate_high")
        for column, low, high, shift, filled in ((*rate, -ROW_OFFSET, True),
                                                 ("rate_within", "null_low", "null_high", ROW_OFFSET, False)):
            x = float(row.get(column, np.nan))
            if not np.isfinite(x):
                continue
            lo, hi = float(row.get(low, np.nan)), float(row.get(high, np.nan))
            if x == 0 and not (np.isfinite(hi) and hi > 0):  # exactly 0, no width: grey (a rate filled, a null edged)
                ax.plot([x], [y + shift], linestyle="none", marker=marker, markersize=4.5,
                        markerfacecolor=ZERO_GREY if filled else "white", markeredgecolor=ZERO_GREY,
                        markeredgewidth=0.7 if filled else open_edge(marker), zorder=4)
                zero_null |= not filled
                zero |= filled
                continue
            shown["rate" if filled else "null"] = True
            err = [[max(x - lo, 0.0)], [max(hi - x, 0.0)]] if np.isfinite(lo) and np.isfinite(hi) else None
            ax.errorbar([x], [y + shift], xerr=err, fmt=marker, color=colour,
                        markerfacecolor=colour if filled else "white", capsize=2, linewidth=1.0, markersize=4.0,
                        markeredgewidth=1.0 if filled else open_edge(marker), zorder=3)
    side = blended_transform_factory(ax.transAxes, ax.transData)
    headers = {attribute: _header(data[data["attribute"] == attribute], attribute) for attribute in attributes}
    if same:  # the rate drawn is on the null's templates too (a column: shorter, the excess axis names all three)
        headers = {a: h.replace("(null given", "(rate and null given" if wide else "(given")
                   for a, h in headers.items()}
    for i, attribute in enumerate(attributes if headed else ()):  # a header row per characteristic
        header = int(rows[(data["attribute"] == attribute).to_numpy()].min()) - 1
        if i:
            for panel in (ax, excess_ax) if excess_ax is not None else (ax,):
                panel.axhline(header - 0.5, color="0.8", linewidth=0.6, zorder=0)
        ax.text(0.01, header, headers[attribute], transform=side, ha="left", va="center", fontweight="bold",
                fontsize=preset().small_size)
    verdict_texts = [_verdict_text(row) for _, row in data.iterrows()]
    names = [labels[m] for m in data["model"]]
    ax.set_yticks(rows, names if wide else [f"{n}\n{v.replace(', ', chr(10))}" if v else n
                                            for n, v in zip(names, verdict_texts)])  # a column: short lines
    ax.set_ylim(rows.max() + 0.7, -0.7)
    band = None
    if excess_ax is not None:
        scope = _draw_excess(excess_ax, data, rows, colours=colours, markers=markers, rate_too=bool(matched_rows))
        band_margin = _band_margin(data, margin)
        if band_margin:  # the margin the verdicts' "equivalent" names, drawn (round 24: named and not shown)
            band = excess_ax.axvspan(-band_margin, band_margin, **MARGIN_BAND, zorder=0)
    if wide and any(verdict_texts):
        verdict_axis = (excess_ax if excess_ax is not None else ax).secondary_yaxis("right")
        verdict_axis.set_yticks(rows, verdict_texts)
        verdict_axis.tick_params(length=0, labelsize=preset().small_size)
    ax.axvline(0.0, color="black", linewidth=0.6, zorder=1)
    values = data.reindex(columns=["rate_between", "rate_high", "rate_within", "null_high"] + (
        ["rate_matched", "matched_high"] if same else [])).to_numpy(float)
    top = np.nanmax(values) if np.isfinite(values).any() else 0.0
    positive = values[np.isfinite(values) & (values > 0)]
    scale = ""
    if top > 0 and top / positive.min() > DWARF_RATIO:  # the lowest non-zero point would sit on the zero line
        scale = _square_root_axis(ax, top=top, headroom=1.1, axis="x", gap=0.15 if wide else 0.3)
    else:
        top = top if top > 0 else 0.01
        ax.set_xlim(-0.04 * top, 1.1 * top)
    ax.xaxis.grid(True, color="0.9", linewidth=0.5, zorder=0)
    ax.set_axisbelow(True)
    method = str(data["interval"].iloc[0]) if "interval" in data.columns else ""
    words = INTERVAL_WORDS.get(method, method + " intervals")
    named = "" if headed else f", {headers[attributes[0]]}"
    if excess_ax is not None and not wide:  # a column's two panels: the label no wider than its panel (the null's
        named, scale = named.split(" (")[0], scale and "\n" + scale.strip()  # scope is on the excess panel's)
        named = ",\n" + named[2:] if named else named
    elif excess_ax is not None and " (" in named:  # two panels: the label no wider than its panel
        named, scale = named.replace(" (", "\n(", 1), (scale and "; " + scale.strip(" ()") + ")")
        named = named[:-1] if scale else named
    ax.set(xlabel="BTCs / mutant pairs" + named + scale)
    if excess_ax is None:
        ax.set_title(f"BiasFinder BTC rate and within-class null, {words}")
    else:  # the given intervals are not clustered by template: the labels say their scope
        level = 100 * (1 - (tkstats.ALPHA if alpha is None else checks.alpha(alpha)))
        given = _given_scopes(data)
        where = _given_words(data) if len(given) == 1 and not headed else ""
        ax.figure.suptitle(f"BiasFinder BTC rate, within-class null and excess, {level:g}\u00a0% CIs{where}"
                           if scope else f"BiasFinder BTC rate, within-class null and excess, {words}",
                           fontsize=preset().title_size)
    handles, texts = [], []
    if shown["rate"]:
        handles.append(Line2D([], [], linestyle="none", marker="o", color="0.3", markersize=4.0))
        counts = pd.to_numeric(data.get("null_templates", pd.Series(dtype=float)), errors="coerce").dropna()
        one = len(counts) > 0 and counts.max() == 1  # round 24: "the templates" read wrong beside "1 of 44"
        texts.append("filled: between classes (BTC rate" + (")" if not matched_rows else
                                                             (", on the template with a null)" if one else
                                                              ", on the templates with a null)") if not overall_rows
                                                             else "; with a null: on its templates)"))
    if shown["null"]:
        handles.append(Line2D([], [], linestyle="none", marker="o", color="0.3", markerfacecolor="white",
                              markersize=4.0))
        texts.append("open: null, swaps within one class")
    if zero or zero_null:  # one key for both zeros (round 12: four fill states were one too many to decode)
        half = "left" if zero and zero_null else "full"  # both: half filled grey (a rate), half white (a null)
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=4.5, fillstyle=half,
                              markerfacecolor=ZERO_GREY if zero else "white", markerfacecoloralt="white",
                              markeredgecolor=ZERO_GREY))
        texts.append("grey: exactly 0, no BTC" + (" (a rate filled, a null edged)" if zero and zero_null else
                                                 " (a rate)" if zero else " (a null)"))
    if band is not None:
        handles.append(band)
        texts.append(f"±{_band_margin(data, margin):g} (equivalence margin)")
    notes = []
    if "verdict" in data.columns:
        found = [verdicts.margin_of(v) for v in data["verdict"] if verdicts.margin_of(v)]
        words = verdicts.legend(data["verdict"], groups=FIGURE_GROUPS, margin=(
            f"±{margin:g}" if margin is not None else found[0] if found else f"±{tkstats.MARGIN:g}"))
        named = checks.CORRECTION_NAMES.get(str(correction), str(correction)) if correction else ""
        family = (f"; {P_ADJ}: not corrected, each row on its own" if correction == "none" else
                  f"; {P_ADJ}: {named + ' ' if named else ''}correction over the {tested} model × characteristic rows "
                  "with a test" if "p_adjusted" in data else "")
        how = data["p_method"].dropna().astype(str) if "p_method" in data.columns else pd.Series(dtype=str)
        how = how[how.str.strip() != ""]  # a row without a test has no p_method: say none, not "p: ,"
        test = (f"; p: {how.iloc[0]}, within each template" if len(how) else "")
        cis = []  # what the intervals are, a paragraph of its own (round 22: one run-on note read as a wall)
        if excess_ax is not None:
            level = tkstats.ALPHA if alpha is None else checks.alpha(alpha)
            two_way = data.get("ci_method", pd.Series(dtype=str)).astype(str).str.startswith("rate: two-way")
            matched = pd.Series(drawn_matched, index=data.index)  # the rate drawn: the null's templates' or all
            scopes = data.get("excess_scope", pd.Series("", index=data.index)).astype(str)
            drawn_two_way = (two_way & ~matched) | (matched & scopes.eq("templates and names"))
            if method == "cluster":
                cis.append(f"the excess's CI inverts that test (holds 0 exactly when p ≥ {level:g}, before "
                           "correction)")
            cis.append("the excess's CI can be narrower than the rate's and the null's: both are read on the same "
                       "templates and names, so what they share cancels in their difference")
            cis += [scope] if scope else []
            cis += ["the rate's CI also resamples templates"] if drawn_two_way.any() else []
            alike = data.get("ci_method", pd.Series(dtype=str)).astype(str).str.contains("Clopper-Pearson")
            if alike.any():  # round 18 read three nulls ending at one value as a degenerate resample
                cis.append("exact (Clopper-Pearson) where a class gives one label throughout")
        else:
            test += (" (the rate's interval also resamples templates, so it can hold the null where the names' test "
                     "rejects)" if len(how) else "")
        where = "right" if wide else "under each model"
        notes.append(f"{where}: the verdict on the excess (rate − null)" + (f"; {words}" if words else ""))
        if family or test:
            notes.append((family + test).removeprefix("; "))
        if cis:
            notes.append("CIs: " + "; ".join(cis))
    if untested:
        notes.append("not drawn (one name per class or too few templates: no null, no CI): "
                     + ", ".join(
            f"{a} ({n} template{'s' if n != 1 else ''})" if n is not None else a for a, n in untested.items()))
    if notes:  # a paragraph each: the verdict, its test, the intervals, what is left out
        _note_below(ax, "\n".join(notes))
    _legend_outside(ax, handles, texts, under=excess_ax is not None)  # two panels: one legend under both
    return ax


def _band_margin(data: pd.DataFrame, margin: float | None) -> float:
    """The equivalence margin the excess panel draws as a band: ``margin`` where given, else the one the verdicts
    name, else 0 (a table without verdicts: no band)."""
    if "verdict" not in data.columns:
        return 0.0
    if margin is not None:
        return float(margin)
    found = [verdicts.margin_of(v) for v in data["verdict"] if verdicts.margin_of(v)]
    return float(found[0].lstrip("±")) if found else float(tkstats.MARGIN)


def _draw_excess(ax: Axes, data: pd.DataFrame, rows, *, colours: dict, markers: dict, rate_too: bool = False) -> str:
    """The excess (``estimate``, between − within) of each row of :func:`biasfinder_rates` with its interval
    (``ci_low/high``; an end without bound drawn to the panel's edge with an arrow) on ``ax``, at the rows' heights,
    a line at 0; returns the note's words for intervals given the templates (``excess_scope`` "names, given …") and
    for unbounded ends, else ""."""
    import numpy as np

    unbounded = []
    for y, (_, row) in zip(rows, data.iterrows()):
        x = float(row.get("estimate", np.nan))
        if not np.isfinite(x):
            continue
        lo, hi = float(row.get("ci_low", np.nan)), float(row.get("ci_high", np.nan))
        err = [[max(x - lo, 0.0)], [max(hi - x, 0.0)]] if np.isfinite(lo) and np.isfinite(hi) else None
        grey = x == 0 and err is None and not (np.isinf(lo) or np.isinf(hi))  # exactly 0, no interval: grey
        colour = ZERO_GREY if grey else colours[row["model"]]
        ax.errorbar([x], [y], xerr=err, fmt=markers[row["model"]], color=colour, capsize=2, linewidth=1.0,
                    markersize=4.5 if grey else 4.0, zorder=3)
        unbounded += [(x, y, end, colour) for end in (lo, hi) if np.isinf(end)]
    ax.axvline(0.0, color="black", linewidth=0.6, zorder=1)
    ax.xaxis.grid(True, color="0.9", linewidth=0.5, zorder=0)
    ax.set_axisbelow(True)
    scopes = data.get("excess_scope", pd.Series("", index=data.index)).fillna("").astype(str)
    given = _given_scopes(data)
    mixed = bool(given) and bool((scopes[np.isfinite(pd.to_numeric(data.get("estimate"), errors="coerce"))]
                                  .map(lambda s: not s.startswith("names, given"))).any())
    wide = preset().double
    if mixed:  # some rows given their templates, others not: name the characteristics given them
        attrs = sorted(set(data.loc[scopes.str.startswith("names, given"), "attribute"]))
        words = ", ".join(attrs) + ": " + (given[0].replace("names, ", "") if len(given) == 1 else
                                           "given their templates with a null")
    else:
        words = (given[0].replace("names, ", "") if len(given) == 1 else
                 "given each row's templates with a null" if given else "")  # several scopes: one line
    scale = _signed_root_axis(ax, data)  # round 19: intervals of 0.01 beside one of 0.6 were invisible
    ax.set_xlabel(("excess (rate − null)" if wide else "excess\n(rate − null)") + scale
                  + (("\n" if wide else "\nrate, null and excess\n" if rate_too else "\nnull and excess\n") + words
                     if words else ""),
                  loc="center" if wide else "right")  # a column: the label ends at the panel's edge
    if not scale:
        if not wide:  # a column's narrow panel: few ticks, so their labels never touch
            ax.xaxis.set_major_locator(MaxNLocator(nbins=3))
        ax.margins(x=0.08)  # a point at the end of the range whole, not cut by the frame
    if unbounded:
        low, high = ax.get_xlim()
        for x, y, end, colour in unbounded:
            edge = high if end > 0 else low
            ax.annotate("", xy=(edge, y), xytext=(x, y), arrowprops={"arrowstyle": "->", "color": colour,
                                                                      "linewidth": 1.0, "shrinkA": 3, "shrinkB": 0})
        ax.set_xlim(low, high)
    notes = []
    if given:
        notes.append("given the templates: the names resampled with those templates fixed, so an interval "
                     "inside the band is not called equivalent")  # round 24 read "no equivalence" against the band
    if unbounded:
        notes.append("an arrow: a CI without that end (too few names for the test to bound it)")
    return "; ".join(notes)


def _signed_root_axis(ax: Axes, data: pd.DataFrame) -> str:
    """A signed square-root x axis on the excess panel where its largest finite value is over :data:`DWARF_RATIO`
    times its smallest non-zero one (so an interval of 0.01 beside an excess of 0.6 is seen), with round ticks on
    both sides of 0 at least 0.15 √top apart; returns the words for the label (" (signed √ scale)") or ""."""
    import numpy as np

    values = data.reindex(columns=["estimate", "ci_low", "ci_high"]).to_numpy(float).ravel()
    values = values[np.isfinite(values)]
    magnitude = np.abs(values[values != 0])
    if not len(magnitude) or magnitude.max() / max(magnitude.min(), 1e-12) <= DWARF_RATIO:
        return ""
    top, bottom = max(values.max(), 0.0), min(values.min(), 0.0)
    reach = np.sqrt(max(top, -bottom))
    ax.set_xscale("function", functions=(lambda v: np.sign(v) * np.sqrt(np.abs(v)),
                                        lambda v: np.sign(v) * np.square(v)))
    ax.set_xlim(-(np.sqrt(-bottom) + 0.06 * reach) ** 2, (np.sqrt(top) + 0.06 * reach) ** 2)
    ticks = [0.0]
    nices = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
    for side, end in ((1.0, top), (-1.0, -bottom)):
        last = 0.0
        for nice in nices:
            if nice <= end * 1.001 and np.sqrt(nice) - np.sqrt(last) >= 0.3 * reach:
                ticks.append(side * nice)
                last = nice
        # a side with data but no tick gets the first round value half as far from 0, the axis reaching it (round
        # 22: the negative side had no label, so the intervals left of 0 read as unscaled)
        if last == 0.0 and end > NOISE:
            near = next(nice for nice in nices if np.sqrt(nice) >= 0.15 * reach or nice == nices[-1])
            if np.sqrt(near) > 2 * np.sqrt(end):
                continue  # the axis would reach far past the data (in √ terms over twice as far): no tick
            ticks.append(side * near)
            low, high = ax.get_xlim()
            edge = side * (np.sqrt(near) + 0.06 * reach) ** 2
            ax.set_xlim(min(low, edge), max(high, edge))
    ax.xaxis.set_major_locator(FixedLocator(sorted(ticks)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}".replace("-", "\u2212")))
    return " (signed √\u00a0scale)"


def _given_words(data: pd.DataFrame) -> str:
    """The title's words for intervals given the templates with a null: " on the 1 of 44 gender templates with a
    within-class null, over its names" (round 20: "given 1 template" beside 44 templates was read as undecodable)."""
    import numpy as np

    null = pd.to_numeric(data.get("null_templates", pd.Series(dtype=float)), errors="coerce")
    total = pd.to_numeric(data.get("templates", pd.Series(dtype=float)), errors="coerce")
    if not (np.isfinite(null).any() and np.isfinite(total).any()):
        return " " + _given_scopes(data)[0].replace("names, ", "")
    n, of = int(null.max()), int(total.max())
    attribute = str(data["attribute"].iloc[0])
    held = f"the {n} of {of} {attribute} templates" if n < of else f"the {n} {attribute} templates"
    return f" on {held} with a within-class null, over {'its' if n == 1 else 'their'} names"


def _given_scopes(table: pd.DataFrame) -> list[str]:
    """The distinct ``excess_scope`` values of ``table`` that are given the templates ("names, given 1 template")."""
    return sorted({str(v) for v in table.get("excess_scope", pd.Series(dtype=str)).dropna()
                   if str(v).startswith("names, given")})


def _header(block: pd.DataFrame, attribute: str) -> str:
    """A characteristic's header in :func:`biasfinder_rates`, with what it lacks: ``occupation (no null)``,
    ``country (1 template: no null or CI)``, ``gender (null from 1 template: no CI)``."""
    missing = [what for what, column in (("null", "rate_within"), ("CI", "rate_low"))
               if column not in block.columns or block[column].isna().all()]
    n = int(block["templates"].max()) if "CI" in missing and "templates" in block.columns else None
    few = f"{n} template{'s' if n != 1 else ''}: " if n is not None and n < MIN_TEMPLATES else ""
    bare = ("null" not in missing and "null_low" in block.columns and block["null_low"].isna().all()
            and "null_templates" in block.columns)  # a null but no interval for it: why
    k = int(block["null_templates"].max()) if bare else 0
    why = f"null from {k} template{'s' if k != 1 else ''}: no CI" if bare and k < MIN_TEMPLATES else ""
    given = _given_scopes(block)
    why = why or (f"null {given[0].replace('names, given', 'given')}" if len(given) == 1 else "")
    said = ", ".join(w for w in (f"{few}no {' or '.join(missing)}" if missing else "", why) if w)
    return attribute + (f" ({said})" if said else "")


def _untested(rates: pd.DataFrame) -> dict[str, int | None]:
    """The characteristics of ``rates`` with neither a null (``rate_within``) nor an interval (``rate_low``) for
    any model, each with its number of templates (None where the table does not say)."""
    out = {}
    for attribute, block in rates.groupby("attribute", sort=False):
        if all(column not in block.columns or block[column].isna().all() for column in ("rate_within", "rate_low")):
            out[attribute] = int(block["templates"].max()) if "templates" in block.columns else None
    return out
