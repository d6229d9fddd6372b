"""PSA figures (Prabhakaran et al. 2019): ScoreSens per name (Figure 1), LabelDist against c (Figure 2), label
flips per name."""
from __future__ import annotations

import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes

from toolkit.errors import InputError
from toolkit.plots.presets import preset
from toolkit.plots.style import (
    _mark_zero_bars,
    _styled,
    category_palette,
    model_colour,
    new_axes,
    short_label,
    short_labels,
)


@_styled
def psa_score_sens(names: pd.DataFrame, *, model: str | None = None, ax: Axes | None = None) -> Axes:
    """ScoreSens per name, female names then male names, coloured by category (PSA Figure 1); a name whose
    ScoreSens is exactly 0 is a diamond on the zero line. Vertical bars at double width; in a column preset the
    bars run horizontally (names down the side, female above the dashed line).

    ``names`` from :func:`toolkit.studies.psa.score_sens`; ``model`` picks one model (default: the first).
    """
    models = list(dict.fromkeys(names["model"]))
    if not models:
        raise InputError("no ScoreSens rows to plot.", fix="pass toolkit.studies.psa.score_sens(scored).")
    model = model or models[0]
    if model not in models:
        raise InputError(f"model {model!r} is not in the table; it has {models}.", fix="pick one of them.")
    p = preset()
    vertical = p.double
    data = names[names["model"] == model].sort_values(["gender", "score_sens"], kind="stable")
    if ax is None:
        ax = new_axes(height=p.height + 0.9) if vertical else new_axes(height=0.115 * len(data) + 1.3)
    palette = category_palette(names["category"])
    hue_order = [c for c in palette if c in set(names["category"])]
    boundary = int((data["gender"] == "female").sum()) - 0.5
    if vertical:
        sns.barplot(saturation=1, data=data, x="name", y="score_sens", hue="category", order=data["name"].tolist(),
                    dodge=False, palette=palette, hue_order=hue_order, ax=ax)
        ax.axvline(boundary, color="black", linestyle="--", linewidth=0.6)
        ax.axhline(0.0, color="black", linewidth=0.6)
        ax.set(xlabel="female names  |  male names", ylabel="ScoreSens (valence)")
        ax.tick_params(axis="x", rotation=90)
        ax.legend(title="category", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    else:
        sns.barplot(saturation=1, data=data, y="name", x="score_sens", hue="category", order=data["name"].tolist(),
                    dodge=False, palette=palette, hue_order=hue_order, orient="h", ax=ax)
        ax.axhline(boundary, color="black", linestyle="--", linewidth=0.6)
        ax.axvline(0.0, color="black", linewidth=0.6)
        ax.set(ylabel="female names (top)  |  male names", xlabel="ScoreSens (valence)")
        ax.legend(title="category", loc="best")
    _mark_zero_bars(ax, vertical=vertical)
    label = short_label(model)
    ax.set_title(f"PSA ScoreSens: {label}")
    if data["score_sens"].abs().max() < 1e-12:
        ax.text(0.5, 0.6, f"{label} gives every name\nthe same score: ScoreSens = 0\n(correlation undefined)",
                transform=ax.transAxes, ha="center", va="center", fontsize=p.small_size,
                bbox={"facecolor": "white", "edgecolor": "0.6", "linewidth": 0.5})
    return ax


@_styled
def psa_label_dist(label_dist: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """LabelDist against the threshold, one line per model in its :func:`model_colour` (style per corpus) (PSA
    Figure 2), with the bootstrap interval (``label_dist_low``/``label_dist_high``, where the table has them) as a
    band in the model's colour; a point at 0 is drawn (a marker on every threshold)."""
    ax = ax if ax is not None else new_axes()
    style = "corpus" if label_dist["corpus"].nunique() > 1 else None
    labels = short_labels(label_dist["model"])
    data = label_dist.assign(system=label_dist["model"].map(labels))
    palette = {labels[m]: model_colour(m) for m in labels}
    sns.lineplot(data=data, x="threshold", y="label_dist", hue="system", hue_order=list(labels.values()), style=style,
                 marker="o", markersize=3.5, palette=palette, ax=ax)
    if {"label_dist_low", "label_dist_high"} <= set(label_dist.columns):
        for (model, _), block in label_dist.dropna(subset=["label_dist_low"]).groupby(["model", "corpus"]):
            block = block.sort_values("threshold")
            ax.fill_between(block["threshold"], block["label_dist_low"], block["label_dist_high"],
                            color=model_colour(model), alpha=0.2, linewidth=0)
    ax.set(xlabel="threshold c (valence)", ylabel="LabelDist", title="PSA LabelDist")
    ax.legend(title="", loc="best")
    return ax


@_styled
def psa_label_flips(flips: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Share of sentences whose label flips per name at one threshold, one bar per model in its colour; a rate of
    exactly 0 is a diamond on the zero line. Horizontal bars in a column preset."""
    if flips.empty:
        raise InputError("no label flips to plot.", fix="pass toolkit.studies.psa.label_flips(scored, threshold=c).")
    p = preset()
    labels = short_labels(flips["model"])
    data = flips.sort_values(["gender", "name"]).assign(system=lambda f: f["model"].map(labels))
    palette = {labels[m]: model_colour(m) for m in labels}
    n = data["name"].nunique()
    if ax is None:
        ax = new_axes(height=p.height + 0.9) if p.double else new_axes(height=0.06 * n * len(labels) + 0.1 * n + 1.3)
    if p.double:
        sns.barplot(saturation=1, data=data, x="name", y="flip_rate", hue="system", hue_order=list(labels.values()),
                    palette=palette, ax=ax)
        ax.set(xlabel="name", ylabel="label flip rate")
        ax.tick_params(axis="x", rotation=90)
    else:
        sns.barplot(saturation=1, data=data, y="name", x="flip_rate", hue="system", hue_order=list(labels.values()),
                    palette=palette, orient="h", ax=ax)
        ax.set(ylabel="name", xlabel="label flip rate")
    _mark_zero_bars(ax, vertical=p.double)
    ax.set_title(f"Labels flipped at c = {data['threshold'].iloc[0]:.2f} (◆: none)")
    ax.legend(title="", loc="best")
    return ax


