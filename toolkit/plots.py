"""Figures: data in, matplotlib Axes out (seaborn underneath). Saving is the caller's choice (see ``save``).

No function here touches pyplot's global figure manager: each draws on the Axes it is given or on a fresh
:class:`matplotlib.figure.Figure` of its own (:func:`new_axes`) that no pyplot hook knows about, so nothing redraws
it behind the caller's back (JupyterLab handles widget messages on other threads; pyplot's post-execute redraw of
"its" figures there garbled the apps' plots). The caller owns the figure: :func:`save` writes it (PNG plus a
vector copy), :func:`show` displays it in a notebook or widget Output. A new plot function follows the pattern::

    def my_plot(data, *, ax: Axes | None = None) -> Axes:
        ax = ax if ax is not None else new_axes(figsize=(6, 4))
        sns.barplot(data=data, ..., ax=ax)
        ax.set(title=..., xlabel=..., ylabel=...)
        return ax
"""
from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from toolkit.errors import InputError
from toolkit.studies import eec as eec_study

_DIRECTION_COLOURS = ("#9e9e9e", "#d95f02", "#1b9e77")  # not significant, a↑–b↓, a↓–b↑
# One colour per PSA name category in every figure (the default name set's six, then a fallback cycle).
CATEGORY_COLOURS = {"actor": "#1b9e77", "athlete": "#d95f02", "business": "#7570b3", "musician": "#e7298a",
                    "politician": "#66a61e", "scientist": "#e6ab02"}
_FALLBACK_COLOURS = ("#a6761d", "#666666", "#1f78b4", "#b2df8a", "#fb9a99", "#cab2d6")
VECTOR_FORMAT = "pdf"  # written beside every PNG by save()


def new_axes(*, figsize: tuple[float, float] = (6.0, 4.0)) -> Axes:
    """One Axes on a new :class:`~matplotlib.figure.Figure` that pyplot does not manage (constrained layout)."""
    return Figure(figsize=figsize, layout="constrained").add_subplot()


def category_palette(categories: Iterable[str]) -> dict[str, str]:
    """Fixed colours for name categories: :data:`CATEGORY_COLOURS`, unknown ones in sorted order from a fallback."""
    extra = sorted(set(categories) - set(CATEGORY_COLOURS))
    return {**CATEGORY_COLOURS, **{c: _FALLBACK_COLOURS[i % len(_FALLBACK_COLOURS)] for i, c in enumerate(extra)}}


def model_palette(models: Iterable[str]) -> dict[str, tuple]:
    """One colour per model, in order of first appearance (seaborn's colour-blind palette)."""
    names = list(dict.fromkeys(models))
    return dict(zip(names, sns.color_palette("colorblind", max(len(names), 1))))


def _figure(item: Axes | Figure) -> Figure:
    return item if isinstance(item, Figure) else item.figure


def png(item: Axes | Figure, *, dpi: int = 100) -> bytes:
    """The figure holding ``item`` as PNG bytes."""
    buffer = io.BytesIO()
    _figure(item).savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def show(items: Axes | Figure | Mapping[str, Axes] | Iterable[Axes | Figure], *, output=None) -> None:
    """Display figures explicitly (as PNG images): in ``output`` (an ipywidgets ``Output``; appended, so it works
    from any thread) or in the current cell. ``items``: an Axes, a Figure, a list of them or a dict as returned by
    the studies' ``figures()``."""
    from IPython.display import Image, display

    if isinstance(items, (Axes, Figure)):
        items = [items]
    elif isinstance(items, Mapping):
        items = list(items.values())
    for item in items:
        image = Image(data=png(item), format="png")
        if output is not None:
            output.append_display_data(image)
        else:
            display(image)


def eec_deltas(pairs: pd.DataFrame, tests: pd.DataFrame, *, attribute: str, subset: str = "all",
               order: Sequence[str] | None = None, ax: Axes | None = None) -> Axes:
    """Box plots of Δ per system, coloured by the paper's significance group (Figures 1 and 2).

    ``pairs`` from :func:`toolkit.studies.eec.pairs`, ``tests`` from :func:`toolkit.studies.eec.ttests`; ``order``
    lists the systems left to right (default: by mean Δ, as the paper sorts by rank).
    """
    data = pairs[(pairs["attribute"] == attribute) & (pairs["subset"] == subset)]
    groups = tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)][["model", "direction"]]
    data = data.merge(groups, on="model", how="left")
    if data.empty:
        raise InputError(f"no pairs for attribute={attribute!r}, subset={subset!r}.",
                         fix="pass the pairs and tests of that attribute and subset.")
    models = list(dict.fromkeys(data["model"]))
    if order is None:
        order = data.groupby("model")["delta"].mean().sort_values().index.tolist()
    else:
        unknown = [m for m in order if m not in models]
        if unknown or set(models) - set(order):
            raise InputError(f"order must list each scored model once; got {list(order)} for {models}.",
                             fix=f"use a permutation of {models}.")
    ax = ax if ax is not None else new_axes(figsize=(max(4.0, 0.9 * len(order) + 2), 4))
    palette = dict(zip(eec_study.directions(attribute), _DIRECTION_COLOURS))
    sns.boxplot(data=data, x="model", y="delta", hue="direction", order=list(order), palette=palette,
                hue_order=[d for d in palette if d in set(data["direction"])], dodge=False, fliersize=2, ax=ax)
    _, _, a, b = eec_study.ATTRIBUTES[attribute]
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set(xlabel="system", ylabel=f"Δ = score({a}) − score({b})", title=f"EEC {attribute} ({subset})")
    ax.tick_params(axis="x", rotation=30)
    ax.legend(title="", fontsize="small", loc="best")
    return ax


def _task_panels(data: pd.DataFrame, *, value: str, what: str, attribute: str, subset: str,
                 pearson: Mapping[str, float] | None) -> list[tuple[str, pd.DataFrame, list[str], Axes]]:
    """One new Figure with a panel per task of ``data`` (the paper's task order); per panel the task, its rows and
    its systems ordered by ``pearson`` (best first), then by their mean ``value``."""
    tasks = [t for t in eec_study.TASK_ORDER if t in set(data["task"])]
    if not tasks:
        raise InputError(f"no {what} for attribute={attribute!r}, subset={subset!r}.",
                         fix=f"pass the {what} of that attribute and subset.")
    pearson = dict(pearson or {})
    widest = max(data.loc[data["task"] == t, "model"].nunique() for t in tasks)
    figure = Figure(figsize=(max(4.0, 0.9 * widest + 2), 4.0 * len(tasks)), layout="constrained")
    panels = []
    for task, ax in zip(tasks, figure.subplots(len(tasks), 1, squeeze=False)[:, 0]):
        block = data[data["task"] == task]
        mean = block.groupby("model")[value].mean()
        order = sorted(mean.index, key=lambda m: (m not in pearson, -pearson.get(m, 0.0), mean[m]))
        panels.append((task, block, order, ax))
    return panels


def eec_task_deltas(pairs: pd.DataFrame, tests: pd.DataFrame, *, attribute: str, subset: str = "all",
                    pearson: Mapping[str, float] | None = None) -> list[Axes]:
    """Figures 1–2 per task: one panel per task (anger, fear, joy, sadness, valence, as the paper) of Δ box plots, systems
    ordered left to right by ``pearson`` (spec → Pearson r on the task's test set), best first — as the paper ordered
    them by official rank; systems without one follow, by mean Δ. One new Figure; returns its Axes."""
    data = pairs[(pairs["attribute"] == attribute) & (pairs["subset"] == subset)]
    axes = []
    for task, block, order, ax in _task_panels(data, value="delta", what="pairs", attribute=attribute,
                                               subset=subset, pearson=pearson):
        eec_deltas(block, tests[tests["task"] == task], attribute=attribute, subset=subset, order=order, ax=ax)
        ax.set_title(f"{task}: EEC {attribute} ({subset}), systems by Pearson r on the {task} test set")
        axes.append(ax)
    return axes


SAVE_RC = {"pdf.fonttype": 42, "ps.fonttype": 42}
"""Fonts embedded as TrueType (Type 42) in PDF and PostScript: ACL's and IEEE's PDF checks reject the Type 3 fonts
matplotlib embeds by default."""


def write_figure(item: Axes | Figure, target, *, fmt: str | None = None) -> None:
    """Write the figure holding ``item`` to ``target`` (a path or a binary file; ``fmt`` png, pdf, svg … when it is
    a file): PNG at 150 dpi, vector formats with TrueType fonts (:data:`SAVE_RC`)."""
    import matplotlib

    kind = (fmt or Path(target).suffix.lstrip(".")).lower()
    with matplotlib.rc_context(SAVE_RC):
        _figure(item).savefig(target, format=fmt, **({"dpi": 150} if kind == "png" else {}))


def save(ax: Axes | Figure, path: str | Path, *, vector: str | None = VECTOR_FORMAT) -> Path:
    """Save the figure holding ``ax`` to ``path`` (folders created) and, unless ``vector`` is None, a vector copy
    beside it (``.pdf`` by default, or ``"svg"``; fonts embedded as TrueType); return ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_figure(ax, path)
    if vector is not None and path.suffix.lower() != f".{vector}":
        write_figure(ax, path.with_suffix(f".{vector}"))
    return path


def psa_score_sens(names: pd.DataFrame, *, model: str | None = None, ax: Axes | None = None) -> Axes:
    """ScoreSens per name, female names then male names, coloured by category (PSA Figure 1).

    ``names`` from :func:`toolkit.studies.psa.score_sens`; ``model`` picks one model (default: the first).
    """
    models = list(dict.fromkeys(names["model"]))
    if not models:
        raise InputError("no ScoreSens rows to plot.", fix="pass toolkit.studies.psa.score_sens(scored).")
    model = model or models[0]
    if model not in models:
        raise InputError(f"model {model!r} is not in the table; it has {models}.", fix="pick one of them.")
    data = names[names["model"] == model].sort_values(["gender", "score_sens"])
    ax = ax if ax is not None else new_axes(figsize=(max(6.0, 0.22 * len(data) + 2), 4))
    palette = category_palette(names["category"])
    sns.barplot(data=data, x="name", y="score_sens", hue="category", order=data["name"].tolist(), dodge=False,
                palette=palette, hue_order=[c for c in palette if c in set(names["category"])], ax=ax)
    boundary = int((data["gender"] == "female").sum()) - 0.5
    ax.axvline(boundary, color="black", linestyle="--", linewidth=0.8)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set(xlabel="female names  |  male names", ylabel="ScoreSens (valence)", title=f"PSA ScoreSens — {model}")
    ax.tick_params(axis="x", rotation=90, labelsize=7)
    ax.legend(title="category", fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    if data["score_sens"].abs().max() < 1e-12:
        ax.text(0.5, 0.6, f"{model} gives every name the same score:\nScoreSens is 0 for all names "
                "(and its correlation is undefined)", transform=ax.transAxes, ha="center", va="center",
                fontsize="small", bbox={"facecolor": "white", "edgecolor": "0.6"})
    return ax


def psa_label_dist(label_dist: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """LabelDist against the threshold, one line per model (style per corpus) (PSA Figure 2), with the bootstrap
    interval (``label_dist_low``/``label_dist_high``, where the table has them) as a band in the model's colour."""
    ax = ax if ax is not None else new_axes(figsize=(6, 4))
    style = "corpus" if label_dist["corpus"].nunique() > 1 else None
    palette = model_palette(label_dist["model"])
    sns.lineplot(data=label_dist, x="threshold", y="label_dist", hue="model", style=style, marker="o",
                 palette=palette, ax=ax)
    if {"label_dist_low", "label_dist_high"} <= set(label_dist.columns):
        for (model, _), block in label_dist.dropna(subset=["label_dist_low"]).groupby(["model", "corpus"]):
            block = block.sort_values("threshold")
            ax.fill_between(block["threshold"], block["label_dist_low"], block["label_dist_high"],
                            color=palette[model], alpha=0.2, linewidth=0)
    ax.set(xlabel="threshold c (valence)", ylabel="LabelDist", title="PSA LabelDist")
    return ax


def psa_label_flips(flips: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Share of sentences whose label flips per name at one threshold, one bar group per model."""
    if flips.empty:
        raise InputError("no label flips to plot.", fix="pass toolkit.studies.psa.label_flips(scored, threshold=c).")
    data = flips.sort_values(["gender", "name"])
    ax = ax if ax is not None else new_axes(figsize=(max(6.0, 0.22 * data["name"].nunique() + 2), 4))
    sns.barplot(data=data, x="name", y="flip_rate", hue="model", palette=model_palette(data["model"]), ax=ax)
    ax.set(xlabel="name", ylabel="label flip rate", title=f"labels flipped at c = {data['threshold'].iloc[0]:.2f}")
    ax.tick_params(axis="x", rotation=90, labelsize=7)
    return ax


def btcsam_heatmap(table: pd.DataFrame, *, value: str = "detection_probability", index: str = "test_set",
                   columns: str = "bias_type", title: str | None = None, ax: Axes | None = None) -> Axes:
    """Heatmap of ``value`` (mean over other keys) by ``index`` × ``columns`` (BTC-SAM Tables 2 and 5): ``table``
    from :func:`toolkit.studies.btcsam.detection_probability` or :func:`~toolkit.studies.btcsam.failure_percentage`;
    ``title`` defaults to the value's name. Column labels wrap at spaces, row labels stay horizontal."""
    missing = [c for c in (value, index, columns) if c not in table.columns]
    if missing or table.empty:
        raise InputError(f"cannot draw a heatmap: table is empty or lacks {', '.join(missing)}.",
                         fix="pass detection_probability(...) or failure_percentage(...) of a scored test set.")
    grid = table.pivot_table(index=index, columns=columns, values=value, aggfunc="mean", sort=False)
    width = max(4.0, 1.1 * grid.shape[1] + 0.09 * max(len(str(i)) for i in grid.index) + 2)
    ax = ax if ax is not None else new_axes(figsize=(width, max(2.5, 0.5 * grid.shape[0] + 1.8)))
    sns.heatmap(grid, annot=True, fmt=".2f" if value != "failure_pct" else ".1f", cmap="rocket_r", ax=ax,
                cbar_kws={"label": value.replace("_", " ")})
    ax.set_xticks(ax.get_xticks(), [str(c).replace(" ", "\n") for c in grid.columns], rotation=0, fontsize="small")
    ax.set_yticks(ax.get_yticks(), [str(i) for i in grid.index], rotation=0, fontsize="small")
    ax.set(xlabel=columns.replace("_", " "), ylabel=index.replace("_", " "),
           title=title if title is not None else f"BTC-SAM {value.replace('_', ' ')}")
    return ax


def biasfinder_btcs(table4: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """BTCs per characteristic, one bar per model (BiasFinder Table 4 as a figure; log scale when counts span
    more than two orders of magnitude). ``table4`` from :func:`toolkit.studies.biasfinder.table4`."""
    if table4.empty:
        raise InputError("no Table 4 rows to plot.", fix="generate templates from a corpus that yields some.")
    ax = ax if ax is not None else new_axes(figsize=(6, 4))
    sns.barplot(data=table4, x="attribute", y="btcs", hue="model", palette=model_palette(table4["model"]), ax=ax)
    positive = table4.loc[table4["btcs"] > 0, "btcs"]
    if len(positive) and positive.max() > 100 * positive.min():
        ax.set_yscale("log")
    ax.set(xlabel="characteristic", ylabel="bias-uncovering test cases", title="BiasFinder BTCs (Table 4)")
    ax.legend(title="", fontsize="small", loc="best")
    return ax


def agreement_tau(tau: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Kendall's τ between the studies' rankings (:func:`toolkit.agreement.agreement`'s ``tau``): a study × study
    matrix, each cell τ with its bootstrap interval; the diagonal is 1."""
    import numpy as np

    studies = list(dict.fromkeys([*tau["study_a"], *tau["study_b"]]))
    matrix = pd.DataFrame(np.eye(len(studies)), index=studies, columns=studies)
    labels = pd.DataFrame("1", index=studies, columns=studies)
    for row in tau.itertuples(index=False):
        for a, b in ((row.study_a, row.study_b), (row.study_b, row.study_a)):
            matrix.loc[a, b] = row.tau
            labels.loc[a, b] = (f"{row.tau:.2f}\n[{row.ci_low:.2f}, {row.ci_high:.2f}]" if np.isfinite(row.tau)
                                else "undefined")
    ax = ax if ax is not None else new_axes(figsize=(1.4 * len(studies) + 1.6, 1.2 * len(studies) + 1.0))
    sns.heatmap(matrix.astype(float), annot=labels, fmt="", vmin=-1, vmax=1, cmap="vlag", cbar_kws={"label": "τ-b"},
                annot_kws={"fontsize": 8}, ax=ax)
    n = int(tau["n_models"].iloc[0]) if len(tau) else 0
    ax.set(title=f"Agreement of the studies' rankings ({n} models)", xlabel="", ylabel="")
    return ax


def agreement_ranks(headlines: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Each model's rank (1 = most biased) under each study's headline measure, one line per model."""
    studies = list(dict.fromkeys(headlines["study"]))
    ax = ax if ax is not None else new_axes(figsize=(1.3 * len(studies) + 2.5, 3.6))
    palette = model_palette(sorted(set(headlines["model"])))
    for model, block in headlines.groupby("model", sort=True):
        block = block.set_index("study").reindex(studies)
        ax.plot(range(len(studies)), block["rank"], marker="o", color=palette[model], label=model)
    ax.set_xticks(range(len(studies)), studies)
    ax.set_yticks(range(1, int(headlines["rank"].max()) + 1))
    ax.invert_yaxis()
    ax.set(title="Rank by study (1 = most biased)", ylabel="rank")
    ax.legend(fontsize=7, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return ax


def btcsam_forest(pooled: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Forest plot: the failure % with its Wilson interval, one row per model × test set, coloured by model.
    ``pooled`` from :func:`toolkit.studies.btcsam.pooled_failure_percentage` (``failure_pct``, ``ci_low``,
    ``ci_high`` in percent)."""
    missing = [c for c in ("model", "test_set", "failure_pct", "ci_low", "ci_high") if c not in pooled.columns]
    if missing or pooled.empty:
        raise InputError(f"cannot draw a forest plot: table is empty or lacks {', '.join(missing)}.",
                         fix="pass toolkit.studies.btcsam.pooled_failure_percentage(failure_percentage(...)).")
    data = pooled.sort_values(["test_set", "model"], kind="stable").reset_index(drop=True)
    palette = model_palette(pooled["model"])
    ax = ax if ax is not None else new_axes(figsize=(7.0, max(2.5, 0.28 * len(data) + 1.5)))
    for y, row in data.iterrows():
        ax.errorbar(row["failure_pct"], y, xerr=[[max(row["failure_pct"] - row["ci_low"], 0.0)],
                                                 [max(row["ci_high"] - row["failure_pct"], 0.0)]],
                    fmt="o", color=palette[row["model"]], capsize=3, markersize=4)
    ax.set_yticks(range(len(data)), [f"{t} · {m}" for t, m in zip(data["test_set"], data["model"])],
                  fontsize="small")
    ax.invert_yaxis()
    theta = ", ".join(f"{t:g}" for t in dict.fromkeys(data["theta"])) if "theta" in data.columns else "?"
    ax.set(xlabel="failure % (bars: Wilson interval)", ylabel="test set · model",
           title=f"BTC-SAM failure % per model and test set (θ = {theta})")
    ax.set_xlim(-2, 102)
    return ax


# EEC intervals (issue 24): the mean Δ with its two-way interval per system.
_VERDICT_COLOURS = {"a higher": "#d95f02", "b higher": "#1b9e77", "equivalent": "#7570b3", "inconclusive": "#9e9e9e"}


def _verdict_kind(verdict: str) -> str:
    return "equivalent" if str(verdict).startswith("equivalent") else str(verdict)


def eec_intervals(tests: pd.DataFrame, *, attribute: str, subset: str = "all", order: Sequence[str] | None = None,
                  ax: Axes | None = None) -> Axes:
    """Mean Δ per system with its two-way interval (names and templates as samples; thick, coloured by
    ``verdict``) and the paper's sentence-level t interval (thin, grey), a zero line and the ±``margin`` band.

    ``tests`` from :func:`toolkit.studies.eec.ttests`; ``order`` lists the systems left to right (default: by mean
    Δ, as :func:`eec_deltas`, so the two figures line up).
    """
    data = tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)].drop_duplicates("model")
    if data.empty or "ci_low" not in data.columns:
        raise InputError(f"no intervals for attribute={attribute!r}, subset={subset!r}.",
                         fix="pass toolkit.studies.eec.ttests(...) of that attribute and subset.")
    models = list(data["model"])
    if order is None:
        order = data.set_index("model")["mean_diff"].sort_values(kind="stable").index.tolist()
    elif [m for m in order if m not in models] or set(models) - set(order):
        raise InputError(f"order must list each tested model once; got {list(order)} for {models}.",
                         fix=f"use a permutation of {models}.")
    data = data.set_index("model").loc[list(order)]
    ax = ax if ax is not None else new_axes(figsize=(max(4.0, 0.9 * len(order) + 2), 4))
    x = list(range(len(order)))
    margin = float(data["margin"].iloc[0])
    ax.axhspan(-margin, margin, color="#7570b3", alpha=0.12, linewidth=0, label=f"±{margin:g} (equivalence)")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.vlines([i + 0.15 for i in x], data["t_ci_low"], data["t_ci_high"], color="0.5", linewidth=1,
              label="t interval over sentences (paper)")
    for i, (_, row) in zip(x, data.iterrows()):
        colour = _VERDICT_COLOURS.get(_verdict_kind(row["verdict"]), "#9e9e9e")
        ax.errorbar(i, row["estimate"], yerr=[[row["estimate"] - row["ci_low"]], [row["ci_high"] - row["estimate"]]],
                    fmt="o", color=colour, capsize=3, linewidth=2)
    for kind, colour in _VERDICT_COLOURS.items():
        if kind in {_verdict_kind(v) for v in data["verdict"]}:
            ax.plot([], [], "o", color=colour, label=kind)
    _, _, a, b = eec_study.ATTRIBUTES[attribute]
    ax.set_xticks(x, list(order), rotation=30, ha="right")
    ax.set(xlabel="system", ylabel=f"mean Δ = score({a}) − score({b})",
           title=f"EEC {attribute} ({subset}): mean Δ, two-way 95 % CI")
    ax.legend(title="", fontsize="small", loc="best")
    return ax


def eec_task_intervals(tests: pd.DataFrame, *, attribute: str, subset: str = "all",
                       pearson: Mapping[str, float] | None = None) -> list[Axes]:
    """:func:`eec_intervals` per task (one panel each, the paper's task order), systems ordered as
    :func:`eec_task_deltas` orders them (``pearson`` best first, then by mean Δ). One new Figure; returns its Axes."""
    data = tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)]
    axes = []
    for task, block, order, ax in _task_panels(data, value="mean_diff", what="tests", attribute=attribute,
                                               subset=subset, pearson=pearson):
        eec_intervals(block, attribute=attribute, subset=subset, order=order, ax=ax)
        ax.set_title(f"{task}: EEC {attribute} ({subset}), mean Δ, two-way 95 % CI", fontsize="medium")
        axes.append(ax)
    return axes


def biasfinder_rates(rates: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """BTC rate between classes (filled) and its within-class null (open) with their intervals, per characteristic,
    one colour per model (point-range; zero drawn). ``rates`` from :func:`toolkit.studies.biasfinder.rates`: the
    intervals are ``rate_low/high`` and ``null_low/high`` (template-clustered by default); a point without an
    interval has none (fewer than 2 templates); characteristics without a null (occupation) show the rate only."""
    import numpy as np

    if rates.empty:
        raise InputError("no BTC rates to plot.", fix="pass toolkit.studies.biasfinder.rates(scored).")
    attributes, models = list(dict.fromkeys(rates["attribute"])), list(dict.fromkeys(rates["model"]))
    palette = model_palette(models)
    width_in = min(12.0, max(5.0, 0.5 * len(attributes) * len(models) + 2.5))
    ax = ax if ax is not None else new_axes(figsize=(width_in, 4))
    width = 0.8 / len(models)
    for j, model in enumerate(models):
        block = rates[rates["model"] == model].set_index("attribute").reindex(attributes)
        x = np.arange(len(attributes)) - 0.4 + width * (j + 0.5)
        for column, low, high, shift, face in (("rate_between", "rate_low", "rate_high", -0.15, palette[model]),
                                               ("rate_within", "null_low", "null_high", 0.15, "white")):
            y = block[column].to_numpy(float)
            err = np.vstack([y - block[low].to_numpy(float), block[high].to_numpy(float) - y])
            ax.errorbar(x + shift * width, y, yerr=np.clip(np.nan_to_num(err, nan=0.0), 0.0, None), fmt="o", color=palette[model],
                        markerfacecolor=face, capsize=3, linewidth=1.2)
        ax.plot([], [], "o", color=palette[model], label=model)
    ax.plot([], [], "o", color="0.3", label="between classes (BTC rate)")
    ax.plot([], [], "o", color="0.3", markerfacecolor="white", label="within a class (null)")
    ax.axhline(0.0, color="black", linewidth=0.8)
    top = np.nanmax(rates[["rate_between", "rate_high", "rate_within", "null_high"]].to_numpy(float))
    top = top if np.isfinite(top) and top > 0 else 0.01
    ax.set_ylim(-0.04 * top, 1.1 * top)
    ax.set_xticks(np.arange(len(attributes)), attributes)
    ax.set(xlabel="characteristic", ylabel="BTCs / mutant pairs",
           title=f"BiasFinder BTC rate and its within-class null (intervals: {rates['interval'].iloc[0]})")
    ax.legend(title="", fontsize="small", loc="best")
    return ax
