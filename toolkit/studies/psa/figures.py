"""PSA figures (Prabhakaran et al. 2019): ScoreSens per name (Figure 1), LabelDist against c (Figure 2), label
flips per name."""
from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from toolkit.errors import InputError
from toolkit.plots.presets import preset
from toolkit.plots.style import (
    NOISE,
    SCORE_RANGE,
    ZERO_MARK,
    _legend_outside,
    _mark_zero_bars,
    _min_span,
    _styled,
    category_palette,
    model_markers,
    model_palette,
    new_axes,
    short_label,
    short_labels,
)

MIN_DIFFERING = 3
"""ScoreSens per name is drawn only when at least this many names (and a tenth of them) differ from the value most
names share; fewer is one bar or none, said in words instead (:func:`score_sens_note`)."""


def score_sens_note(names: pd.DataFrame, *, model: str) -> str:
    """Why ``model``'s ScoreSens per name is said in words instead of drawn, or ``""`` when a figure shows
    something: when fewer than :data:`MIN_DIFFERING` names (or a tenth of them) differ from the value most names
    share (floating-point noise below :data:`NOISE` read as 0), the note names that value and the names that
    differ, with theirs. ``names`` from :func:`toolkit.studies.psa.analysis.score_sens`."""
    data = names[names["model"] == model]
    if data.empty:
        return ""
    values = data["score_sens"].where(data["score_sens"].abs() > NOISE, 0.0).round(9)
    shared = float(values.mode().iloc[0])
    differ = data.assign(value=values)[(values - shared).abs() > NOISE]
    if len(differ) >= max(MIN_DIFFERING, int(np.ceil(0.1 * len(data)))):
        return ""
    label = short_label(model)
    same = (f"{label} gives every name the same score (ScoreSens 0)" if shared == 0 and differ.empty else
            f"{label}: {len(data) - len(differ)} of {len(data)} names have ScoreSens {shared:+.4f}"
            if shared != 0 else f"{label}: {len(data) - len(differ)} of {len(data)} names have ScoreSens 0")
    others = "; ".join(f"{r.name} {r.value:+.4f}" for r in differ.sort_values("value").itertuples())
    return (same + (", every name alike" if differ.empty and shared != 0 else "")
            + (f"; only {others}" if others else "") + ". No figure: a bar chart would show one bar or none "
            "(the values are in psa_names.csv).")


def _score_sens_words(label: str, *, vertical: bool) -> dict[str, str]:
    """The words of :func:`psa_score_sens` (one place, to change the vocabulary)."""
    interval = ("bars: ScoreSens; lines: 95\u00a0% t interval over sentences, per name, not adjusted across names "
                "(Hall's skewness-corrected t by default)")
    return {"title": f"PSA ScoreSens: {label}",
            "value": f"ScoreSens (valence, {SCORE_RANGE})",
            "names": "female names  |  male names" if vertical else "female names (top)  |  male names",
            "interval": interval}


@_styled
def psa_score_sens(names: pd.DataFrame, *, model: str | None = None, ax: Axes | None = None) -> Axes:
    """ScoreSens per name, female names then male names, coloured by category (PSA Figure 1), each with its
    interval over sentences (``score_sens_low``/``score_sens_high``, where the table has them) as a thin line; a name
    whose ScoreSens is 0 (or floating-point noise of 0, below :data:`NOISE`) is a diamond on the zero line, and the
    axis spans at least 0.02 (never scaled to noise). Vertical bars at double width; in a column preset the
    bars run horizontally (names down the side, female above the dashed line). Whether a model's figure says
    anything: :func:`score_sens_note`.

    ``names`` from :func:`toolkit.studies.psa.analysis.score_sens`; ``model`` picks one model (default: the first).
    """
    models = list(dict.fromkeys(names["model"]))
    if not models:
        raise InputError("no ScoreSens rows to plot.", fix="pass toolkit.studies.psa.analysis.score_sens(scored).")
    model = model or models[0]
    if model not in models:
        raise InputError(f"model {model!r} is not in the table; it has {models}.", fix="pick one of them.")
    p = preset()
    vertical = p.double
    data = names[names["model"] == model]
    data = data.assign(score_sens=data["score_sens"].where(data["score_sens"].abs() > NOISE, 0.0))  # noise: 0
    data = data.sort_values(["gender", "score_sens"], kind="stable")
    if ax is None:
        ax = new_axes(height=p.height + 0.9) if vertical else new_axes(height=0.115 * len(data) + 1.5)
    palette = category_palette(names["category"])
    hue_order = [c for c in palette if c in set(names["category"])]
    boundary = int((data["gender"] == "female").sum()) - 0.5
    label = short_label(model)
    words = _score_sens_words(label, vertical=vertical)
    order = data["name"].tolist()
    if vertical:
        sns.barplot(saturation=1, data=data, x="name", y="score_sens", hue="category", order=order,
                    dodge=False, palette=palette, hue_order=hue_order, ax=ax)
        ax.axvline(boundary, color="black", linestyle="--", linewidth=0.6)
        ax.axhline(0.0, color="black", linewidth=0.6)
        ax.set(xlabel=words["names"], ylabel=words["value"])
        ax.tick_params(axis="x", rotation=90)
    else:
        sns.barplot(saturation=1, data=data, y="name", x="score_sens", hue="category", order=order,
                    dodge=False, palette=palette, hue_order=hue_order, orient="h", ax=ax)
        ax.axhline(boundary, color="black", linestyle="--", linewidth=0.6)
        ax.axvline(0.0, color="black", linewidth=0.6)
        ax.set(ylabel=words["names"], xlabel=words["value"])
    handles, texts = ax.get_legend_handles_labels()
    if {"score_sens_low", "score_sens_high"} <= set(data.columns) and data["score_sens_low"].notna().any():
        where = np.arange(len(data))
        low, high = data["score_sens_low"].to_numpy(float), data["score_sens_high"].to_numpy(float)
        ok = np.isfinite(low) & np.isfinite(high) & (high - low > NOISE)
        limits = ax.get_xlim() if vertical else ax.get_ylim()  # the names' axis stays as the bars set it
        (ax.vlines if vertical else ax.hlines)(where[ok], low[ok], high[ok], color="0.15", linewidth=0.7, zorder=4)
        (ax.set_xlim if vertical else ax.set_ylim)(limits)
        handles.append(Line2D([], [], color="0.15", linewidth=0.7))
        texts.append("95\u00a0% t interval")
    if _mark_zero_bars(ax, vertical=vertical):
        handles.append(Line2D([], [], color="0.6", **ZERO_MARK))
        texts.append("ScoreSens 0 (no bar)")
    _legend_outside(ax, handles, texts, title="category")
    _min_span(ax, axis="y" if vertical else "x", span=0.02)
    if not vertical:  # a column's narrow value axis: few ticks, so their labels never touch
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
    ax.set_title(words["title"])
    if (data["score_sens"] == 0).all():
        note = f"{label} gives every name the same score: ScoreSens = 0 (correlation undefined)"
        if vertical:
            ax.text(0.5, 0.96, note, transform=ax.transAxes, ha="center", va="top", fontsize=p.small_size,
                    bbox={"facecolor": "white", "edgecolor": "0.6", "linewidth": 0.5})
        else:  # no room beside the zero line in a column: under the axis
            ax.set_xlabel(ax.get_xlabel() + "\n" + textwrap.fill(note, 40))
    return ax


@_styled
def psa_label_dist(label_dist: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """LabelDist against the threshold (PSA Figure 2), one line per model (and corpus) in its colour
    (:func:`model_palette`) and marker (:func:`model_markers`), with the bootstrap interval (``label_dist_low``/``label_dist_high``, where the
    table has them) as a band in the model's colour, said in the legend; a model whose curve equals an earlier one's
    says so in the legend (``= vader``) and is drawn dashed with small markers on top, so both show; a point at 0 is drawn."""
    ax = ax if ax is not None else new_axes()
    models = list(dict.fromkeys(label_dist["model"]))
    corpora = list(dict.fromkeys(label_dist["corpus"]))
    labels, colours, markers = short_labels(models), model_palette(models), model_markers(models)
    has_band = {"label_dist_low", "label_dist_high"} <= set(label_dist.columns) and \
        label_dist["label_dist_low"].notna().any()
    drawn: list[tuple[str, tuple]] = []
    for k, corpus in enumerate(corpora):
        for model in models:
            block = label_dist[(label_dist["model"] == model) & (label_dist["corpus"] == corpus)]
            block = block.sort_values("threshold")
            if block.empty:
                continue
            curve = tuple(np.round(block["label_dist"].to_numpy(float), 9))
            same = next((labels[m] for m, other in drawn if other == curve), None)
            drawn.append((model, curve))
            label = labels[model] + (f" ({corpus})" if len(corpora) > 1 else "") + (f" (= {same})" if same else "")
            if has_band:
                ax.fill_between(block["threshold"], block["label_dist_low"], block["label_dist_high"],
                                color=colours[model], alpha=0.15, linewidth=0)
            ax.plot(block["threshold"], block["label_dist"], color=colours[model], marker=markers[model],
                    markersize=2.2 if same else 4.5, linewidth=1.0, label=label, zorder=4 if same else 3,
                    linestyle=(0, (2, 2)) if same else ("-", "--", ":", "-.")[k % 4])  # a copy: dashed, on top
    handles, texts = ax.get_legend_handles_labels()
    if has_band:
        handles.append(Patch(facecolor="0.5", alpha=0.3, linewidth=0))
        texts.append("shaded, in the model's colour: 95 % bootstrap CI over sentences")
    top = float(np.nanmax(label_dist[["label_dist"] + (["label_dist_high"] if has_band else [])].to_numpy(float)))
    ax.set_ylim(-0.03 * max(top, 0.05), 1.08 * max(top, 0.05))
    ax.set(xlabel="threshold c (valence score ≥ c: positive)", ylabel="LabelDist (mean Jaccard distance)",
           title="PSA LabelDist across thresholds c")
    _legend_outside(ax, handles, texts)
    return ax


@_styled
def psa_label_flips(flips: pd.DataFrame, *, alpha: float = 0.05, ax: Axes | None = None) -> Axes:
    """Share of sentences whose label flips per name at one threshold, female names then male names (a dashed line
    between them), one bar per model in its colour; a rate of exactly 0 draws no bar (the legend says so: a marker
    per zero would bury the bars of 50 names × systems); a model that flips no label for any name gets no bars and
    is named in the legend instead. Horizontal bars in a column preset. Where the table has them
    (:func:`~toolkit.studies.psa.analysis.label_flips`' ``flip_low``/``flip_high``), each bar carries its Wilson
    interval and the legend says n and the level (``alpha``: the one ``label_flips`` was given); a zero rate draws
    no line (150 of them buried the bars), and the legend gives the upper bound no flip in n sentences allows."""
    if flips.empty:
        raise InputError("no label flips to plot.",
                         fix="pass toolkit.studies.psa.analysis.label_flips(scored, threshold=c).")
    p = preset()
    labels = short_labels(flips["model"])
    still = [m for m in labels if not (flips.loc[flips["model"] == m, "flip_rate"].fillna(0) > 0).any()]
    drawn = {m: label for m, label in labels.items() if m not in still} or labels
    data = flips[flips["model"].isin(list(drawn))].sort_values(["gender", "name"], kind="stable")
    data = data.assign(system=data["model"].map(drawn))
    colours = model_palette(labels)
    palette = {drawn[m]: colours[m] for m in drawn}
    order = list(dict.fromkeys(data["name"]))
    n = len(order)
    boundary = int(data.drop_duplicates("name")["gender"].eq("female").sum()) - 0.5
    if ax is None:
        ax = new_axes(height=p.height + 0.9) if p.double else new_axes(height=0.06 * n * len(drawn) + 0.1 * n + 1.3)
    names = "female names  |  male names" if p.double else "female names (top)  |  male names"
    if p.double:
        sns.barplot(saturation=1, data=data, x="name", y="flip_rate", hue="system", hue_order=list(drawn.values()),
                    palette=palette, order=order, ax=ax)
        ax.axvline(boundary, color="black", linestyle="--", linewidth=0.6)
        ax.set(xlabel=names, ylabel="label flip rate (share of sentences)")
        ax.tick_params(axis="x", rotation=90)
    else:
        sns.barplot(saturation=1, data=data, y="name", x="flip_rate", hue="system", hue_order=list(drawn.values()),
                    palette=palette, order=order, orient="h", ax=ax)
        ax.axhline(boundary, color="black", linestyle="--", linewidth=0.6)
        ax.set(ylabel=names, xlabel="label flip rate (share of sentences)")
    intervals = _flip_intervals(ax, data, order=order, systems=list(drawn.values()), vertical=p.double)
    ax.axhline(0.0, color="black", linewidth=0.6) if p.double else ax.axvline(0.0, color="black", linewidth=0.6)
    ax.set_title(f"PSA: sentences whose label (score ≥ c = {data['threshold'].iloc[0]:.2f}: positive) flips "
                 "when the name goes in" if p.double else f"PSA label flips at c = {data['threshold'].iloc[0]:.2f}")
    handles, texts = ax.get_legend_handles_labels()
    if (data["flip_rate"].fillna(0) == 0).any():  # a diamond per zero would bury the bars of 50 names × systems
        handles.append(Line2D([], [], color="none"))
        texts.append("no bar: no flips" + _zero_bound(data, alpha=alpha))
    if still and len(drawn) < len(labels):
        handles.append(Line2D([], [], color="none"))
        texts.append(f"{', '.join(labels[m] for m in still)}: no flips for any name (not drawn)")
    if intervals:
        handles.append(Line2D([], [], color="0.3", linewidth=0.5, marker="|", markersize=4))
        texts.append(f"{intervals}: {100 * (1 - alpha):g}\u00a0% Wilson interval per name, "
                     "not adjusted across names")
    _legend_outside(ax, handles, texts)
    return ax


def _flip_intervals(ax: Axes, data: pd.DataFrame, *, order: list[str], systems: list[str], vertical: bool) -> str:
    """Draw each bar's Wilson interval (``flip_low``/``flip_high``) at the bar's centre; returns how the legend
    names them ("n = 56 sentences", or "n = 50–56 sentences" where names differ), "" when the table has none."""
    if not {"flip_low", "flip_high"} <= set(data.columns) or data["flip_low"].isna().all():
        return ""
    for container, system in zip(ax.containers, systems):
        rows = data[data["system"] == system].set_index("name").reindex(order)
        centres = [(b.get_x() + b.get_width() / 2) if vertical else (b.get_y() + b.get_height() / 2)
                   for b in container.patches]
        at = np.asarray(centres[:len(order)], dtype=float)
        low, high, rate = (rows[c].to_numpy(float) for c in ("flip_low", "flip_high", "flip_rate"))
        ok = np.isfinite(low) & np.isfinite(high) & (rate > 0)  # a zero's bound is said once in the legend
        err = np.clip(np.vstack([rate - low, high - rate])[:, ok], 0, None)  # Wilson ends can sit 1e-17 past p̂
        if vertical:
            ax.errorbar(at[ok], rate[ok], yerr=err, fmt="none", ecolor="0.3", elinewidth=0.5, capsize=0, zorder=3)
        else:
            ax.errorbar(rate[ok], at[ok], xerr=err, fmt="none", ecolor="0.3", elinewidth=0.5, capsize=0, zorder=3)
    n = data["n_sentences"].dropna().astype(int) if "n_sentences" in data.columns else pd.Series(dtype=int)
    if n.empty:
        return "lines"
    return f"lines (n = {n.min()} sentences)" if n.min() == n.max() else f"lines (n = {n.min()}–{n.max()} sentences)"


def _zero_bound(data: pd.DataFrame, *, alpha: float) -> str:
    """How high a rate no flip allows (the largest ``flip_high`` of a zero rate), for the legend; "" when none."""
    zero = data[(data["flip_rate"].fillna(1) == 0)] if "flip_high" in data.columns else data.iloc[:0]
    if not len(zero) or not zero["flip_high"].notna().any():
        return ""
    return f" (upper {100 * (1 - alpha):g}\u00a0% bound {zero['flip_high'].max():.3f})"


