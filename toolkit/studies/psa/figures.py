"""PSA figures (Prabhakaran et al. 2019): ScoreSens per name (Figure 1), LabelDist against c (Figure 2), label
flips per name."""
from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import Affine2D

from toolkit.errors import InputError, unknown
from toolkit.plots.presets import preset
from toolkit.plots.style import (
    NOISE,
    SCORE_RANGE,
    ZERO_MARK,
    _caption_only,
    _fit_labels,
    _legend_outside,
    _mark_zero_bars,
    _min_span,
    _styled,
    _text_inches,
    category_palette,
    model_markers,
    model_palette,
    new_axes,
    short_label,
    short_labels,
    text_colour,
)

PERTURBED = ("PSA (Prabhakaran et al. 2019) puts each name in the place of a sentence's pronoun anchor (a gendered "
             "pronoun standing for a person), the rest of the sentence as written.")
"""The caption's first sentence in the PSA figures: how a sentence is perturbed."""
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


INTERVAL_KEYS = {"hall": "95\u00a0% interval (Hall's skewness-corrected t)", "t": "95\u00a0% t interval",
                 None: "95\u00a0% interval over sentences"}
"""The legend's words for ScoreSens's interval per method (:data:`toolkit.studies.psa.analysis.SCORE_SENS_INTERVALS`;
None: a table that does not say which)."""


def _score_sens_words(label: str, *, vertical: bool, interval: str | None = None) -> dict[str, str]:
    """The words of :func:`psa_score_sens` (one place, to change the vocabulary); ``interval``: the method."""
    key = INTERVAL_KEYS[interval]
    return {"title": f"PSA ScoreSens: {label}",
            "value": f"ScoreSens (valence, {SCORE_RANGE})",
            "names": "female names  |  male names" if vertical else "female names (top)  |  male names",
            "interval": f"bars: ScoreSens; lines: {key} over sentences, per name, not adjusted across names",
            "key": key}


@_styled
def psa_score_sens(names: pd.DataFrame, *, model: str | None = None, interval: str | None = None,
                   ax: Axes | None = None) -> Axes:
    """ScoreSens per name, female names then male names, coloured by category (PSA Figure 1), each with its
    interval over sentences (``score_sens_low``/``score_sens_high``, where the table has them) as a thin line; a name
    whose ScoreSens is 0 (or floating-point noise of 0, below :data:`NOISE`) is a diamond on the zero line, and the
    axis spans at least 0.02 (never scaled to noise). Vertical bars at double width; in a column preset the
    bars run horizontally (names down the side, female above the dashed line). Whether a model's figure says
    anything: :func:`score_sens_note`.

    ``names`` from :func:`toolkit.studies.psa.analysis.score_sens`; ``model`` picks one model (default: the first);
    ``interval``: how the intervals were made (``hall`` or ``t``, named in the legend; default: the table's
    ``attrs["score_sens_interval"]``, which :func:`~toolkit.studies.psa.analysis.score_sens` sets, else unnamed).
    """
    interval = interval if interval is not None else names.attrs.get("score_sens_interval")
    if not (interval is None or isinstance(interval, str)) or interval not in INTERVAL_KEYS:  # ["t"]: unhashable
        raise unknown("ScoreSens interval", str(interval), [k for k in INTERVAL_KEYS if k])
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
    words = _score_sens_words(label, vertical=vertical, interval=interval)
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
        texts.append(words["key"])
    if _mark_zero_bars(ax, vertical=vertical):
        handles.append(Line2D([], [], color="0.6", **ZERO_MARK))
        texts.append("ScoreSens 0 (no bar)")
    _caption_only(ax, f"{PERTURBED} ScoreSens of a name: the system's mean score change over the sentences, "
                  "f(sentence with the name) − f(sentence as written); a bar per name, coloured by the name's "
                  "category, female names then male names. Intervals: "
                  + {"hall": "Hall's (1992) skewness-corrected t, ", "t": "t, "}.get(interval, "")
                  + "over the sentences, per name, not adjusted across names.")
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
    # the band's key heads the legend, the models in rows under it (round 24: as a fifth entry it left vader
    # alone in a second column beside a grey swatch)
    band = "shaded, in each model's colour: 95 % bootstrap CI over sentences, pointwise per threshold" if has_band \
        else ""
    top = float(np.nanmax(label_dist[["label_dist"] + (["label_dist_high"] if has_band else [])].to_numpy(float)))
    ax.set_ylim(-0.03 * max(top, 0.05), 1.08 * max(top, 0.05))
    ax.set(xlabel="threshold c (valence score ≥ c: positive)", ylabel="LabelDist (mean Jaccard distance)",
           title="PSA LabelDist across thresholds c")
    _caption_only(ax, f"{PERTURBED} A sentence is labelled positive where its score is at least c. LabelDist(c): per "
                  "name, the Jaccard distance between the sentences labelled positive as written and those labelled "
                  "positive with the name, averaged over the names (0: no label changes). Bands: 95\u00a0% "
                  "percentile bootstrap over sentences.")
    _legend_outside(ax, handles, texts, title=_fit_labels([band], ax.figure.get_figwidth() * 0.95)[0] if band else "")
    return ax


def _name_lines(ax: Axes, lines: list[tuple[float, str]], *, palette: dict, vertical: bool) -> None:
    """Name each system's dashed shared-rate line where it ends (round 20: keyed only in the legend), past the axes
    in a double preset (round 22: inside, it ran over the last bar): systems on the same rate share one label,
    "vader =" over "afinn", in dark grey (round 27: their names were drawn over each other), and labels of nearby
    rates are pushed apart (in a column: the later one over the top edge)."""
    size = preset().small_size
    groups: list[tuple[float, list[str]]] = []
    for rate, system in sorted(lines):
        if groups and np.isclose(groups[-1][0], rate, rtol=0, atol=NOISE):
            groups[-1][1].append(system)
        else:
            groups.append((rate, [system]))
    floor = -np.inf  # in points along the rate axis: each label at least a line above the last
    halves = [0.6 * size * len(systems) + 1.0 for _, systems in groups]  # a line of text is 1.2 sizes; a point spare

    def placed(renderer, k: int) -> Affine2D:
        """Where label ``k`` goes, worked out when the figure is drawn (the final limits and layout): past the
        axes' right edge at its rate, raised over the labels below it."""
        scale = ax.figure.dpi / 72
        top = -np.inf
        for j, (rate, _) in enumerate(groups[:k + 1]):
            at = ax.transData.transform((0, rate))[1]
            y = max(at, top + halves[j] * scale)
            top = y + halves[j] * scale
        return Affine2D().translate(ax.transAxes.transform((1, 0))[0] + 2 * scale, y)

    for k, (rate, systems) in enumerate(groups):
        colour = text_colour(palette[systems[0]]) if len(systems) == 1 else "0.2"
        if vertical:  # one name a line, so the label is no wider than the longest name (the axes keep their width)
            ax.annotate(" =\n".join(systems), (1.0, rate), xycoords=("axes fraction", "data"), xytext=(0, 0),
                        textcoords=lambda renderer, k=k: placed(renderer, k), ha="left", va="center",
                        annotation_clip=False, fontsize=size, color=colour)
        else:  # names under the top edge, one a line; a label that would reach the one before goes over the edge
            at = ax.transData.transform((rate, 0))[0] * 72 / ax.figure.dpi
            above = at < floor
            if not above:  # the layout may narrow the axes: a label's reach is taken 1.5 times
                floor = at + 1.5 * (72 * max(_text_inches(name, size) for name in systems) + 4)
            ax.annotate("\n".join(systems), (rate, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(2, 2 if above else -2), textcoords="offset points", ha="left",
                        va="bottom" if above else "top", annotation_clip=False, fontsize=size, color=colour)


@_styled
def psa_label_flips(flips: pd.DataFrame, *, alpha: float = 0.05, ax: Axes | None = None) -> Axes:
    """Share of sentences whose label flips per name at one threshold, female names then male names (an empty slot
    with a light line between them, :data:`GENDER_GAP`), each gender's names by their mean bar rate, lowest first
    (as the ScoreSens figure orders its names by value), one bar per model in its colour; a rate of exactly 0 draws
    no bar (the legend says so: a marker per zero would bury the bars of 50 names × systems); a model that flips no
    label for any name gets no bars and is named in the legend instead. A model whose names mostly
    (:data:`SHARED_RATE`) share one rate — flips the name slot causes whatever the name, as a lexicon that knows no
    name — takes no bar slot: its shared rate is one dashed line in its colour (none at 0), named past the axes'
    right edge in a double preset, and each name that differs a point in its marker inside its name's slot
    (:func:`_point_offsets`), said in the legend with the counts (:func:`_shared_rates`; the names themselves where
    few, :data:`NAMED_POINTS`). Horizontal bars in a column preset. Where the table has them
    (:func:`~toolkit.studies.psa.analysis.label_flips`' ``flip_low``/``flip_high``), each bar and point carries its
    Wilson interval and the legend says n and the level (``alpha``: the one ``label_flips`` was given); a zero rate
    draws its whisker from 0 where there are few (:data:`ZERO_WHISKERS`), else none (150 of them buried the bars)
    and the legend gives the upper bound no flip in n sentences allows."""
    if flips.empty:
        raise InputError("no label flips to plot.",
                         fix="pass toolkit.studies.psa.analysis.label_flips(scored, threshold=c).")
    several = {column: sorted(map(str, flips[column].dropna().unique())) for column in ("corpus", "threshold")
               if column in flips.columns and flips[column].nunique() > 1}
    if several:  # a name's bar per model holds one corpus at one threshold (two crashed in reindexing)
        column, values = next(iter(several.items()))
        raise InputError(f"the label flips hold {len(values)} {column} values ({', '.join(values)}); the figure "
                         "draws one.", fix=f"pass one of them, e.g. flips[flips[{column!r}] == {values[0]!r}]"
                         if column == "corpus" else f"pass one of them, e.g. flips[flips[{column!r}] == {values[0]}]")
    p = preset()
    labels = short_labels(flips["model"])
    still = [m for m in labels if not (flips.loc[flips["model"] == m, "flip_rate"].fillna(0) > 0).any()]
    drawn = {m: label for m, label in labels.items() if m not in still} or labels
    data = flips[flips["model"].isin(list(drawn))].sort_values(["gender", "name"], kind="stable")
    data = data.assign(system=data["model"].map(drawn))
    colours, markers = model_palette(labels), model_markers(labels)
    palette = {drawn[m]: colours[m] for m in drawn}
    shapes = {drawn[m]: markers[m] for m in drawn}
    shared = _shared_rates(data)  # a rate most names share is the slot's, not a name's: a line, not 48 bars
    bars = [system for system in drawn.values() if system not in shared]
    bar_data = data[data["system"].isin(bars)]
    # names by value within each gender, as the ScoreSens figure orders them: the mean rate of the bars, lowest first
    rate = bar_data.groupby("name")["flip_rate"].mean() if bars else pd.Series(dtype=float)
    names = data.drop_duplicates("name")[["gender", "name"]].assign(_rate=lambda f: f["name"].map(rate).fillna(0.0))
    names = names.assign(_male=names["gender"].astype(str).str.lower().ne("female"))  # female first, whatever else
    order = names.sort_values(["_male", "gender", "_rate", "name"], kind="stable")["name"].tolist()
    n_female = int(names["_male"].eq(False).sum())
    gap = 0 < n_female < len(order)
    if gap:  # an empty slot between the genders (round 22 read Messi's whisker as the divider)
        order = order[:n_female] + [GENDER_GAP] + order[n_female:]
    n = len(order)
    boundary = float(n_female) if gap else n_female - 0.5
    if ax is None:
        slots = max(len(bars), 1)
        ax = new_axes(height=p.height + 0.9) if p.double else new_axes(height=0.06 * n * slots + 0.1 * n + 1.3)
    present = list(dict.fromkeys(data.drop_duplicates("name")["gender"].astype(str)))
    names = ("female names  |  male names" if p.double else "female names (top)  |  male names") if gap else \
        " and ".join(f"{g} names" for g in present)
    value = "label flip rate\n(share of sentences whose label\ndiffers from the original's)" if p.double \
        else "label flip rate (share of sentences whose label\ndiffers from the original sentence's)"
    if bars:
        if p.double:
            sns.barplot(saturation=1, data=bar_data, x="name", y="flip_rate", hue="system", hue_order=bars,
                        palette=palette, order=order, ax=ax)
        else:
            sns.barplot(saturation=1, data=bar_data, y="name", x="flip_rate", hue="system", hue_order=bars,
                        palette=palette, order=order, orient="h", ax=ax)
    else:  # every model shares a rate: the names' axis without bars
        (ax.set_xticks if p.double else ax.set_yticks)(range(n), order)
        (ax.set_xlim if p.double else ax.set_ylim)(*((-0.5, n - 0.5) if p.double else (n - 0.5, -0.5)))
    divider = {"color": "0.6", "linestyle": (0, (4, 3)), "linewidth": 1.0, "zorder": 0.5}  # dashed, in the gap:
    # unlike a zero rate's whisker, thin, solid and dark (round 23 read a solid divider as Messi's interval)
    if gap:  # one gender: no divider
        (ax.axvline if p.double else ax.axhline)(boundary, **divider)
    if p.double:
        ax.set(xlabel=names, ylabel=value)
        ax.tick_params(axis="x", rotation=90)
    else:
        ax.set(ylabel=names, xlabel=value)
    intervals = _flip_intervals(ax, bar_data, order=order, systems=bars, vertical=p.double) if bars else ""
    position = {name: k for k, name in enumerate(order)}
    own, lines = [], []
    for k, (system, (rate, flipped, n_names, n_all, n_sent)) in enumerate(shared.items()):
        if rate > 0:
            (ax.axhline if p.double else ax.axvline)(rate, color=palette[system], linestyle=(0, (4, 2)),
                                                     linewidth=1.1, zorder=2.5)
            lines.append((rate, system))
        rows = data[(data["system"] == system) & ~np.isclose(data["flip_rate"].fillna(-1), rate)]
        rows = rows[rows["flip_rate"].notna()]
        # within its name's slot, where no bar's interval line is (they stand at the bars' centres; round 20: the
        # points hid on Taylor Swift's line; round 22: at the slot's edge they read as the next name's)
        beside = _point_offsets(len(bars), len(shared))[k] if bars else 0.0
        at = rows["name"].map(position).to_numpy(float) + beside
        rate_of = rows["flip_rate"].to_numpy(float)
        err = None
        if len(rows) and {"flip_low", "flip_high"} <= set(rows.columns) and \
                rows[["flip_low", "flip_high"]].notna().all().all():
            err = np.clip(np.vstack([rate_of - rows["flip_low"], rows["flip_high"] - rate_of]), 0, None)
            intervals = intervals or _n_words(data)
        xy = (at, rate_of) if p.double else (rate_of, at)
        if len(rows):  # every name shares the rate: the line alone
            ax.errorbar(*xy, **({"yerr": err} if p.double else {"xerr": err}), fmt=shapes[system],
                        color=palette[system], markersize=4, markeredgecolor="white", markeredgewidth=0.4,
                        ecolor=palette[system], elinewidth=0.6, capsize=0, zorder=4)  # whose interval: its colour
        flipped_words = f"{flipped} of {n_sent}" if flipped and n_sent else f"a share {rate:.3f} of"
        said = (f"{system}: {flipped_words} sentences flip for {n_names} of {n_all} names" if rate > 0
                else f"{system}: no flips for {n_names} of {n_all} names")
        own.append((Line2D([], [], color=palette[system], linestyle=(0, (4, 2)) if rate > 0 else "none",
                           marker=shapes[system], markersize=4, markeredgecolor="white", markeredgewidth=0.4),
                    said + (" (dashed)" if rate > 0 else "") + _differing_words(rows)))
    _name_lines(ax, lines, palette=palette, vertical=p.double)
    ax.axhline(0.0, color="black", linewidth=0.6) if p.double else ax.axvline(0.0, color="black", linewidth=0.6)
    ax.set_title(f"PSA label flips per name (a sentence's label: positive where its score ≥ c = "
                 f"{data['threshold'].iloc[0]:.2f})" if p.double else
                 f"PSA label flips at c = {data['threshold'].iloc[0]:.2f}")
    handles, texts = ax.get_legend_handles_labels()
    handles += [handle for handle, _ in own]
    texts += [text for _, text in own]
    if bars and (bar_data["flip_rate"].fillna(0) == 0).any():  # a diamond per zero would bury the bars
        handles.append(Line2D([], [], color="none"))
        texts.append("no bar: no flips" + _zero_bound(bar_data, alpha=alpha))
    if still and len(drawn) < len(labels):
        handles.append(Line2D([], [], color="none"))
        texts.append(f"{', '.join(labels[m] for m in still)}: no flips for any name (not drawn)")
    if intervals:
        handles.append(Line2D([], [], color="0.3", linewidth=0.5, marker="|", markersize=4))
        texts.append(f"{intervals}: {100 * (1 - alpha):g}\u00a0% Wilson interval per name, "
                     "not adjusted across names")
    _caption_only(ax, f"{PERTURBED} A flip: the sentence's label (positive where its score is at least the "
                  "threshold c of the title) differs with the name from its label as written; per name, the share of "
                  "the sentences it was scored in.")
    _legend_outside(ax, handles, texts)
    return ax


GENDER_GAP = "\u2009"
""":func:`psa_label_flips`' empty slot between the female and the male names (a thin space: a tick label that shows
nothing and names no one)."""


NAMED_POINTS = 3
"""At most this many names that differ from a shared rate are named in :func:`psa_label_flips`' legend, each with its
count (round 22: a point between bars could not be matched to its name)."""


def _differing_words(rows: pd.DataFrame) -> str:
    """The legend's words for the points of a shared-rate system: each name with its flips of n where there are
    few (:data:`NAMED_POINTS`) and the counts are known, else what a point is; "" without points."""
    if not len(rows):
        return ""
    counts = {"flips", "n_sentences"} <= set(rows.columns) and rows[["flips", "n_sentences"]].notna().all().all()
    if len(rows) > NAMED_POINTS or not counts:
        return "; a point: a name that differs"
    named = ", ".join(f"{r.name} ({int(r.flips)} of {int(r.n_sentences)})"
                      for r in rows[["name", "flips", "n_sentences"]].itertuples(index=False))
    return f"; a point: {named}"


def _point_offsets(n_bars: int, n_points: int) -> list[float]:
    """Where, within a name's slot (−0.4 to 0.4, its bars side by side), each shared-rate system's point sits: between
    two bars' centres (their interval lines), then inside the outer bars, never on the slot's edge (round 22: there
    it read as the next name's); ±0.2 with one bar."""
    width = 0.8 / max(n_bars, 1)
    centres = [-0.4 + width * (i + 0.5) for i in range(max(n_bars, 1))]
    inner = [(a + b) / 2 for a, b in zip(centres, centres[1:])] or [-0.2, 0.2]
    outer = [0.4 - width / 4, -(0.4 - width / 4)] if n_bars > 1 else []
    spots = sorted(inner, key=abs) + outer
    return [spots[k % len(spots)] for k in range(n_points)]


SHARED_RATE = 0.75
"""A model whose names share one flip rate this often takes no bar slot in :func:`psa_label_flips`: a line at the
shared rate and a point per name that differs."""


def _shared_rates(data: pd.DataFrame) -> dict[str, tuple[float, int, int, int, int]]:
    """Per system whose names mostly (a share ≥ :data:`SHARED_RATE`, more than one name) have one and the same flip
    rate — flips the name slot causes whatever the name, e.g. a lexicon that knows no name: (the rate, its flips,
    how many names have it, how many names there are, its sentences; the counts 0 where the table lacks them)."""
    out = {}
    for system, rows in data.groupby("system", sort=False):
        rates = rows["flip_rate"].dropna().round(12)
        if rates.empty:
            continue
        counts = rates.value_counts()
        rate, n_names = float(counts.index[0]), int(counts.iloc[0])
        if n_names > 1 and n_names >= SHARED_RATE * len(rows):
            at = rows[np.isclose(rows["flip_rate"].fillna(-1), rate)]
            flipped = int(at["flips"].iloc[0]) if "flips" in at and at["flips"].notna().all() else 0
            n_sent = int(at["n_sentences"].iloc[0]) if "n_sentences" in at and at["n_sentences"].nunique() == 1 \
                else 0
            out[str(system)] = (rate, flipped, n_names, len(rows), n_sent)
    return out


def _n_words(data: pd.DataFrame) -> str:
    """How the legend names the interval lines: "lines (n = 56 sentences)", "n = 50–56" where names differ."""
    n = data["n_sentences"].dropna().astype(int) if "n_sentences" in data.columns else pd.Series(dtype=int)
    if n.empty:
        return "lines"
    return f"lines (n = {n.min()} sentences)" if n.min() == n.max() else f"lines (n = {n.min()}–{n.max()} sentences)"


def _flip_intervals(ax: Axes, data: pd.DataFrame, *, order: list[str], systems: list[str], vertical: bool) -> str:
    """Draw each bar's Wilson interval (``flip_low``/``flip_high``) at the bar's centre; returns how the legend
    names them ("n = 56 sentences", or "n = 50–56 sentences" where names differ), "" when the table has none."""
    if not {"flip_low", "flip_high"} <= set(data.columns) or data["flip_low"].isna().all():
        return ""
    for container, system in zip(ax.containers, systems):
        centres = np.array([(b.get_x() + b.get_width() / 2) if vertical else (b.get_y() + b.get_height() / 2)
                            for b in container.patches], dtype=float)
        # a bar sits within half a slot of its name's position (seaborn leaves out the bars of missing rates)
        names = [order[int(k)] for k in np.clip(np.rint(centres), 0, len(order) - 1)]
        rows = data[data["system"] == system].set_index("name").reindex(names)
        at = centres
        low, high, rate = (rows[c].to_numpy(float) for c in ("flip_low", "flip_high", "flip_rate"))
        few = _few_zeros(data)  # a few zeros keep their whisker (round 15 missed Messi's); many: once, in the legend
        ok = np.isfinite(low) & np.isfinite(high) & ((np.nan_to_num(rate) > 0) | few)
        err = np.clip(np.vstack([rate - low, high - rate])[:, ok], 0, None)  # Wilson ends can sit 1e-17 past p̂
        if vertical:
            ax.errorbar(at[ok], rate[ok], yerr=err, fmt="none", ecolor="0.3", elinewidth=0.5, capsize=0, zorder=3)
        else:
            ax.errorbar(rate[ok], at[ok], xerr=err, fmt="none", ecolor="0.3", elinewidth=0.5, capsize=0, zorder=3)
    return _n_words(data)


ZERO_WHISKERS = 5
"""At most this many bars of rate 0 in :func:`psa_label_flips` draw their Wilson whisker from 0 (round 15 found
Messi's bar with no interval); more (150 once buried the bars) give their bound once, in the legend."""


def _few_zeros(data: pd.DataFrame) -> bool:
    """Whether the zero rates of ``data`` are few enough (:data:`ZERO_WHISKERS`) to draw each one's whisker."""
    return int((data["flip_rate"].fillna(1) == 0).sum()) <= ZERO_WHISKERS


def _zero_bound(data: pd.DataFrame, *, alpha: float) -> str:
    """How high a rate no flip allows (the largest ``flip_high`` of a zero rate), for the legend; "" when none, and
    "(its whisker drawn)" where each zero draws its own (:func:`_few_zeros`)."""
    zero = data[(data["flip_rate"].fillna(1) == 0)] if "flip_high" in data.columns else data.iloc[:0]
    if not len(zero) or not zero["flip_high"].notna().any():
        return ""
    if _few_zeros(data):
        return f" (the grey line from 0: its {100 * (1 - alpha):g}\u00a0% interval)"
    return f" (upper {100 * (1 - alpha):g}\u00a0% bound {zero['flip_high'].max():.3f})"


