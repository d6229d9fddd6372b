"""Figures: data in, matplotlib Axes out (seaborn underneath), sized and styled for a paper (issue 26).

Paper presets (:data:`PRESETS`): every figure function draws for the *active* preset — its width is the preset's
column or text width, its fonts 7–9 pt (ticks and legends 7, labels 8, titles 9), and every PDF embeds TrueType
fonts (:data:`SAVE_RC`). The active preset is, first, the one set by :func:`use_preset` (a setter and a context
manager), else the environment variable ``TOOLKIT_FIGURE_PRESET`` (``make figures PRESET=…`` sets it), else
:data:`DEFAULT_PRESET` (``acl-double``: the widest figures — 48 PSA names, many EEC systems — only read at the
text width). Multi-panel figures (EEC per task) fill the preset's width: side by side at double width when the
panels are narrow, stacked in a column preset, never taller than :attr:`Preset.max_height`. In a column preset the
per-name PSA bar charts turn horizontal (names down the side) so that 48 names stay at 7 pt.

Models are labelled by :func:`short_label` (``minilm-imdb``, not a path with a query string) and coloured by
:func:`model_palette`: the same colour for a model in every figure and every run, whichever other models are drawn.
A result that is exactly zero is drawn (a marker on the zero line) and annotated (``all Δ = 0``); heatmap cells with
no case say so.

No function here touches pyplot's global figure manager: each draws on the Axes it is given or on a fresh
:class:`matplotlib.figure.Figure` of its own (:func:`new_axes`) that no pyplot hook knows about, so nothing redraws
it behind the caller's back (JupyterLab handles widget messages on other threads; pyplot's post-execute redraw of
"its" figures there garbled the apps' plots). The caller owns the figure: :func:`save` writes it (PNG plus a
vector copy), :func:`show` displays it in a notebook or widget Output. A new plot function follows the pattern::

    @_styled
    def my_plot(data, *, ax: Axes | None = None) -> Axes:
        ax = ax if ax is not None else new_axes()          # the active preset's width and panel height
        sns.barplot(saturation=1, data=data, ..., palette=model_palette(data["model"]), ax=ax)
        ax.set(title=..., xlabel=..., ylabel=...)
        return ax

Docs: ``docs/figures.md`` (presets, colours, each paper figure and how it compares with the paper's).
"""
from __future__ import annotations

import functools
import hashlib
import io
import math
import os
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from toolkit import stats
from toolkit.errors import InputError
from toolkit.studies import eec as eec_study


# --- presets ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Preset:
    """A paper figure style: ``width`` (inches) of the column or text block a figure fills, ``height`` of one
    panel, ``max_height`` of a whole figure (a page's text height less a caption), font sizes in points, and
    ``double`` (True: the figure spans the text width, a LaTeX ``figure*``)."""

    name: str
    venue: str
    width: float
    height: float
    max_height: float
    double: bool
    font_size: float = 8.0   # axis labels, annotations, heatmap numbers
    small_size: float = 7.0  # tick labels, legends
    title_size: float = 9.0


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("acl-single", "ACL/*ACL column, 7.7 cm (acl.sty)", 3.03, 2.2, 8.5, False),
    Preset("acl-double", "ACL/*ACL text width, 16 cm (acl.sty)", 6.30, 2.6, 8.5, True),
    Preset("acm-single", "ACM sigconf (FAccT) column, 241 pt", 3.33, 2.3, 8.5, False),
    Preset("acm-double", "ACM sigconf (FAccT) text width, 506 pt", 7.00, 2.7, 8.5, True),
)}
"""Paper presets by name (see :class:`Preset`)."""

DEFAULT_PRESET = "acl-double"
PRESET_ENV = "TOOLKIT_FIGURE_PRESET"
_ACTIVE: list[str] = []  # the preset use_preset set (last wins); empty: the environment variable, else the default


def _check_preset(name: str, *, source: str = "preset") -> Preset:
    if name not in PRESETS:
        raise InputError(f"unknown figure {source} {name!r}; valid presets: {', '.join(PRESETS)}.",
                         fix=f"pass one of {', '.join(PRESETS)}"
                             + (f" (or unset {PRESET_ENV})." if source != "preset" else "."))
    return PRESETS[name]


def preset(name: str | None = None) -> Preset:
    """The :class:`Preset` called ``name``, or (None) the active one: :func:`use_preset`'s, else
    ``$TOOLKIT_FIGURE_PRESET``, else :data:`DEFAULT_PRESET`. An unknown name is an :class:`InputError` (TK102)."""
    if name is not None:
        return _check_preset(name)
    if _ACTIVE:
        return PRESETS[_ACTIVE[-1]]
    env = os.environ.get(PRESET_ENV, "").strip()
    return _check_preset(env, source=f"preset in ${PRESET_ENV}") if env else PRESETS[DEFAULT_PRESET]


class use_preset:  # noqa: N801 - used as a function: plots.use_preset("acl-single")
    """Make ``name`` the active preset: ``plots.use_preset("acm-single")`` sets it for the session;
    ``with plots.use_preset("acl-single"): …`` sets it for the block and restores the previous one after.
    ``None`` clears a set preset (the environment variable or the default applies again)."""

    def __init__(self, name: str | None) -> None:
        if name is not None:
            _check_preset(name)
        self._previous = list(_ACTIVE)
        _ACTIVE[:] = [] if name is None else [name]
        self.preset = preset()

    def __enter__(self) -> Preset:
        return self.preset

    def __exit__(self, *exc) -> None:
        _ACTIVE[:] = self._previous


def style(p: Preset | None = None) -> dict:
    """The matplotlib settings of preset ``p`` (default: the active one): font sizes, thin lines, TrueType fonts."""
    p = p or preset()
    return {"font.size": p.font_size, "axes.titlesize": p.title_size, "axes.labelsize": p.font_size,
            "xtick.labelsize": p.small_size, "ytick.labelsize": p.small_size, "legend.fontsize": p.small_size,
            "legend.title_fontsize": p.small_size, "figure.titlesize": p.title_size,
            "axes.titlepad": 4.0, "axes.linewidth": 0.6, "lines.linewidth": 1.0, "lines.markersize": 4.0,
            "patch.linewidth": 0.5, "xtick.major.width": 0.6, "ytick.major.width": 0.6, "xtick.major.size": 2.5,
            "ytick.major.size": 2.5, "legend.frameon": False, "legend.borderaxespad": 0.3,
            "legend.handlelength": 1.2, "legend.columnspacing": 1.0, **SAVE_RC}


SAVE_RC = {"pdf.fonttype": 42, "ps.fonttype": 42}
"""Fonts embedded as TrueType (Type 42) in PDF and PostScript: ACL's and IEEE's PDF checks reject the Type 3 fonts
matplotlib embeds by default."""


# --- labels and colours -------------------------------------------------------------------------------------------

def short_label(spec: str) -> str:
    """A model's label in figures: ``minilm-imdb``, ``vader``; ``hf:<path or id>[?…]`` → the last path part
    (a hub cache snapshot → the model's name); ``py:<module>:<callable>`` → the callable; ``ait:<system>/<task>``
    → the system; ``llm:hf:…``/``llm:openai:<model>@<url>`` → ``llm:<name>``. Query strings are dropped."""
    text = str(spec).split("?", 1)[0].strip()

    def last(path: str) -> str:
        parts = [p for p in path.replace("\\", "/").split("/") if p]
        if "snapshots" in parts and parts.index("snapshots") > 0:  # …/models--org--name/snapshots/<hash>
            return parts[parts.index("snapshots") - 1].split("--")[-1]
        return parts[-1] if parts else path

    if text.startswith("llm:"):
        kind, _, rest = text[4:].partition(":")
        return "llm:" + last(rest.split("@", 1)[0] if kind == "openai" else rest) if rest else text
    if text.startswith("hf:"):
        return last(text[3:]) or text
    if text.startswith("py:"):
        return text.rsplit(":", 1)[-1] or text
    if text.startswith("ait:"):
        return text[4:].split("/", 1)[0] or text
    return text or str(spec)


def short_labels(specs: Iterable[str]) -> dict[str, str]:
    """:func:`short_label` of each spec, made unique: specs whose short labels collide keep more (without the query
    string, then the whole spec)."""
    specs = list(dict.fromkeys(specs))
    labels = {s: short_label(s) for s in specs}
    for fallback in (lambda s: str(s).split("?", 1)[0], str):
        clash = {v for v in labels.values() if list(labels.values()).count(v) > 1}
        labels = {s: (fallback(s) if labels[s] in clash else labels[s]) for s in specs}
    return labels


MODEL_COLOURS: dict[str, str] = {"vader": "#0173b2", "textblob": "#de8f05", "afinn": "#029e73",
                                 "minilm-imdb": "#d55e00"}
"""Fixed colours of the registry's named models (seaborn's ``colorblind`` palette, after Okabe & Ito). Add an
entry to pin a colour for a model of your own."""
HASH_COLOURS: tuple[str, ...] = ("#cc78bc", "#ca9161", "#56b4e9", "#949494", "#fbafe4", "#ece133")
"""The rest of the ``colorblind`` palette: any other model takes one by a hash of its spec (SHA-256), so two
unnamed models share a colour with probability 1/6 (their labels still tell them apart)."""


def model_colour(model: str) -> str:
    """The colour of ``model`` (a spec) in every figure and run: :data:`MODEL_COLOURS`, else a hash of the spec into
    :data:`HASH_COLOURS` (independent of the other models, their order and the Python process)."""
    if model in MODEL_COLOURS:
        return MODEL_COLOURS[model]
    digest = hashlib.sha256(str(model).encode("utf-8")).digest()
    return HASH_COLOURS[int.from_bytes(digest[:8], "big") % len(HASH_COLOURS)]


def model_palette(models: Iterable[str]) -> dict[str, str]:
    """``{model: colour}`` by :func:`model_colour`: a model's colour does not depend on which others are listed."""
    return {m: model_colour(m) for m in dict.fromkeys(models)}


_DIRECTION_COLOURS = ("#bbbbbb", "#d55e00", "#0173b2")  # not significant, a↑–b↓, a↓–b↑ (Okabe–Ito)
# One colour per PSA name category in every figure (the default name set's six, then a fallback cycle).
CATEGORY_COLOURS = {"actor": "#0173b2", "athlete": "#de8f05", "business": "#029e73", "musician": "#d55e00",
                    "politician": "#cc78bc", "scientist": "#ca9161"}
_FALLBACK_COLOURS = ("#56b4e9", "#949494", "#fbafe4", "#ece133", "#000000", "#666666")
VECTOR_FORMAT = "pdf"  # written beside every PNG by save()
ZERO_MARK = {"marker": "D", "markersize": 4.5, "markeredgecolor": "black", "markeredgewidth": 0.6,
             "linestyle": "none", "zorder": 6}
"""How a result that is exactly zero is drawn: a diamond on the zero line (then annotated)."""


def category_palette(categories: Iterable[str]) -> dict[str, str]:
    """Fixed colours for name categories: :data:`CATEGORY_COLOURS`, unknown ones in sorted order from a fallback."""
    extra = sorted(set(categories) - set(CATEGORY_COLOURS))
    return {**CATEGORY_COLOURS, **{c: _FALLBACK_COLOURS[i % len(_FALLBACK_COLOURS)] for i, c in enumerate(extra)}}


PAPER_FIGURES: dict[str, tuple[str, str, str]] = {
    "eec_gender_box": ("eec_task_deltas", "EEC Figure 1", "as the paper: a box of Δ per system coloured by "
                       "significance group; a panel per task; systems by Pearson r where known, else by mean Δ"),
    "eec_race_box": ("eec_task_deltas", "EEC Figure 2", "as Figure 1, Δ = AA − EA"),
    "eec_gender_intervals": ("eec_task_intervals", "none (issue 24)", "mean Δ with its two-way interval"),
    "eec_race_intervals": ("eec_task_intervals", "none (issue 24)", "mean Δ with its two-way interval"),
    "psa_score_sens_<model>": ("psa_score_sens", "PSA Figure 1", "ScoreSens per name on the valence scale (half "
                               "the paper's [−1, 1] values); one figure per model"),
    "psa_label_dist": ("psa_label_dist", "PSA Figure 2", "LabelDist against c (valence scale), bootstrap bands added"),
    "biasfinder_btcs": ("biasfinder_btcs", "BiasFinder Table 4", "BTCs per template, not raw counts (those are in "
                        "biasfinder_table4.csv)"),
    "biasfinder_rates": ("biasfinder_rates", "none (issue 24)", "BTC rate and its within-class null"),
    "btcsam_detection": ("btcsam_heatmap", "BTC-SAM Table 2", "the table as a heatmap; hatched cells: no case"),
    "btcsam_failure_pct": ("btcsam_heatmap", "BTC-SAM Table 5", "the table as a heatmap"),
    "btcsam_failure_forest": ("btcsam_forest", "none (issue 24)", "failure % with Wilson intervals"),
    "agreement_tau": ("agreement_tau", "none", "Kendall's τ between the studies' rankings"),
    "agreement_ranks": ("agreement_ranks", "none", "each model's rank by study"),
}
"""File stem → (the function that draws it, the paper figure or table it reproduces, how it compares), for a
closing note of ``make figures``; the long form is in ``docs/figures.md``."""


# --- figures and layout --------------------------------------------------------------------------------------------

def new_axes(*, figsize: tuple[float, float] | None = None, height: float | None = None) -> Axes:
    """One Axes on a new :class:`~matplotlib.figure.Figure` that pyplot does not manage (constrained layout):
    ``figsize`` as given, else the active preset's width and ``height`` (default: its panel height, at most its
    ``max_height``)."""
    p = preset()
    if figsize is None:
        figsize = (p.width, min(height if height is not None else p.height, p.max_height))
    return Figure(figsize=figsize, layout="constrained").add_subplot()


def _axes_list(result) -> list[Axes]:
    if isinstance(result, Axes):
        return [result]
    if isinstance(result, Mapping):
        result = list(result.values())
    return [a for a in result if isinstance(a, Axes)] if isinstance(result, (list, tuple)) else []


def _renderer(figure: Figure):
    figure.draw_without_rendering()  # runs the layout engine
    return figure._get_renderer()


def _fit_titles(figure: Figure, axes: Sequence[Axes]) -> None:
    """Wrap any title, x label or y label of ``axes`` that sticks out of its figure after layout onto more lines
    (each is centred on its Axes, so its room is twice the distance from that centre to the nearer figure edge)."""
    for _ in range(4):
        renderer, changed = _renderer(figure), False
        for text_artist, along in [(t, i) for ax in axes for t, i in ((ax.title, 0), (ax.xaxis.label, 0),
                                                                      (ax.yaxis.label, 1))]:
            text = text_artist.get_text()
            box = text_artist.get_window_extent(renderer)
            full = figure.bbox.width if along == 0 else figure.bbox.height
            low, high = (box.x0, box.x1) if along == 0 else (box.y0, box.y1)
            if not text or (low >= 1 and high <= full - 1):
                continue
            centre = (low + high) / 2
            room = max(2 * min(centre, full - centre) - 6, 0.3 * full)
            longest = max(len(line) for line in text.split("\n"))
            width = max(10, min(longest - 1, int(longest * room / max(high - low, 1.0))))
            text_artist.set_text(textwrap.fill(" ".join(text.split()), width, break_on_hyphens=False))
            changed = True
        if not changed:
            return


def _styled(function):
    """Draw ``function`` under the active preset's style (:func:`style`): fonts and lines are set while its artists
    are made; tick labels keep the preset's size when drawn later; titles wider than the figure wrap."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        p = preset()
        given = kwargs.get("ax")
        before = set(map(id, given.figure.axes)) if isinstance(given, Axes) else None
        with matplotlib.rc_context(style(p)):
            result = function(*args, **kwargs)
            axes = _axes_list(result)
            if axes:
                figure = axes[0].figure
                touched = [a for a in figure.axes if before is None or id(a) not in before or a in axes]
                for ax in touched:
                    ax.tick_params(axis="both", which="both", labelsize=p.small_size)
                _fit_titles(figure, [a for a in axes if a in figure.axes])
        return result

    return wrapper


def _grid(n_panels: int, *, panel_width: float) -> tuple[Figure, list[Axes]]:
    """A new Figure for ``n_panels`` panels filling the active preset's width: two columns at double width when a
    panel of ``panel_width`` inches fits in half of it, else one; rows of the preset's panel height shrunk to fit
    ``max_height`` (at least 1.5 in); unused cells removed. Returns the figure and its panels row by row."""
    p = preset()
    ncols = 2 if p.double and n_panels > 1 and panel_width <= p.width / 2 else 1
    nrows = math.ceil(n_panels / ncols)
    height = min(p.max_height, nrows * max(1.5, min(p.height, p.max_height / nrows)))
    figure = Figure(figsize=(p.width, height), layout="constrained")
    grid = figure.subplots(nrows, ncols, squeeze=False)
    cells = [ax for row in grid for ax in row]
    for ax in cells[n_panels:]:
        ax.remove()
    return figure, cells[:n_panels]


def _mark_zero_bars(ax: Axes, *, vertical: bool = True) -> int:
    """A diamond (:data:`ZERO_MARK`) on each bar of ``ax`` of length exactly 0 (a zero bar draws nothing), in the
    bar's colour; returns how many."""
    from matplotlib.container import BarContainer

    count = 0
    for container in [c for c in ax.containers if isinstance(c, BarContainer)]:
        for bar in container:
            length, thickness = bar.get_height(), bar.get_width()
            if not vertical:
                length, thickness = thickness, length
            if length == 0 and thickness and not math.isnan(thickness):
                centre = (bar.get_x() if vertical else bar.get_y()) + thickness / 2
                ax.plot(*(([centre], [0.0]) if vertical else ([0.0], [centre])), color=bar.get_facecolor(), **ZERO_MARK)
                count += 1
    if count:  # room below (left of) the zero line for the diamonds
        low, high = ax.get_ylim() if vertical else ax.get_xlim()
        if low >= 0:
            (ax.set_ylim if vertical else ax.set_xlim)(-0.04 * (high - low), high)
    return count


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


def write_figure(item: Axes | Figure, target, *, fmt: str | None = None) -> None:
    """Write the figure holding ``item`` to ``target`` (a path or a binary file; ``fmt`` png, pdf, svg … when it is
    a file): PNG at 150 dpi, vector formats with TrueType fonts (:data:`SAVE_RC`), at the figure's own size (no
    tight bounding box: the PDF is as wide as the preset)."""
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


def _tick_labels(ax: Axes, labels: Sequence[str]) -> None:
    """Set categorical x tick labels at 0…n-1, turned 30° when they would not fit side by side."""
    p = preset()
    width = ax.figure.get_figwidth() * ax.get_position().width
    crowded = sum(len(str(s)) + 2 for s in labels) * 0.6 * p.small_size / 72 > 0.9 * width
    ax.set_xticks(range(len(labels)), list(labels), rotation=30 if crowded else 0, ha="right" if crowded else "center",
                  rotation_mode="anchor" if crowded else "default")


def _annotate_zero(ax: Axes, x: float, y: float = 0.0, *, text: str = "all Δ = 0", vertical: bool = True) -> None:
    """The note beside a result that is exactly zero."""
    offset, align = ((0, 5), {"ha": "center", "va": "bottom"}) if vertical else ((5, 0), {"ha": "left", "va": "center"})
    ax.annotate(text, (x, y), xytext=offset, textcoords="offset points", fontsize=preset().small_size, **align)


def _zero_models(data: pd.DataFrame, value: str) -> set[str]:
    """Models whose ``value`` is exactly 0 in every row (an insensitive lexicon: afinn and textblob on EEC)."""
    return {m for m, block in data.groupby("model") if len(block) and bool((block[value].abs() == 0).all())}


@_styled
def eec_deltas(pairs: pd.DataFrame, tests: pd.DataFrame, *, attribute: str, subset: str = "all",
               order: Sequence[str] | None = None, ax: Axes | None = None) -> Axes:
    """Box plots of Δ per system, coloured by the paper's significance group (Figures 1 and 2); a system whose Δ is
    exactly 0 for every pair is a diamond on the zero line marked ``all Δ = 0`` (its box would hide in the line).

    ``pairs`` from :func:`toolkit.studies.eec.pairs`, ``tests`` from :func:`toolkit.studies.eec.ttests`; ``order``
    lists the systems left to right (default: by mean Δ, said in the axis label). Systems by :func:`short_label`.
    """
    data = pairs[(pairs["attribute"] == attribute) & (pairs["subset"] == subset)]
    groups = tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)][["model", "direction"]]
    data = data.merge(groups.drop_duplicates("model"), on="model", how="left")
    if data.empty:
        raise InputError(f"no pairs for attribute={attribute!r}, subset={subset!r}.",
                         fix="pass the pairs and tests of that attribute and subset.")
    models = list(dict.fromkeys(data["model"]))
    xlabel = "system"
    if order is None:
        order = data.groupby("model")["delta"].mean().sort_values(kind="stable").index.tolist()
        xlabel = "system (by mean Δ)"
    else:
        unknown = [m for m in order if m not in models]
        if unknown or set(models) - set(order):
            raise InputError(f"order must list each scored model once; got {list(order)} for {models}.",
                             fix=f"use a permutation of {models}.")
    labels = short_labels(order)
    data = data.assign(system=data["model"].map(labels))
    ax = ax if ax is not None else new_axes()
    palette = dict(zip(eec_study.directions(attribute), _DIRECTION_COLOURS))
    present = [d for d in palette if d in set(data["direction"])]
    sns.boxplot(saturation=1, data=data, x="system", y="delta", hue="direction", order=[labels[m] for m in order],
                palette=palette, hue_order=present, dodge=False, fliersize=1.5, linewidth=0.6, width=0.6, ax=ax)
    ax.axhline(0.0, color="black", linewidth=0.6, zorder=1)
    direction = groups.drop_duplicates("model").set_index("model")["direction"]
    for i, model in enumerate(order):
        if model in _zero_models(data, "delta"):
            ax.plot([i], [0.0], color=palette.get(direction.get(model), "#bbbbbb"), **ZERO_MARK)
            _annotate_zero(ax, i)
    _, _, a, b = eec_study.ATTRIBUTES[attribute]
    _tick_labels(ax, [labels[m] for m in order])
    ax.set(xlabel=xlabel, ylabel=f"Δ = score({a}) − score({b})", title=f"EEC {attribute} ({subset})")
    ax.legend(title="", loc="best")
    return ax


def _task_panels(data: pd.DataFrame, *, value: str, what: str, attribute: str, subset: str,
                 pearson: Mapping[str, float] | None) -> list[tuple[str, pd.DataFrame, list[str], str, Axes]]:
    """One new Figure with a panel per task of ``data`` (the paper's task order; :func:`_grid` lays them out); per
    panel the task, its rows, its systems ordered by ``pearson`` (best first), then by their mean ``value``, and
    the axis label saying which order that is."""
    tasks = [t for t in eec_study.TASK_ORDER if t in set(data["task"])]
    if not tasks:
        raise InputError(f"no {what} for attribute={attribute!r}, subset={subset!r}.",
                         fix=f"pass the {what} of that attribute and subset.")
    pearson = dict(pearson or {})
    widest = max(data.loc[data["task"] == t, "model"].nunique() for t in tasks)
    _, cells = _grid(len(tasks), panel_width=0.35 * widest + 1.2)
    panels = []
    for task, ax in zip(tasks, cells):
        block = data[data["task"] == task]
        mean = block.groupby("model")[value].mean()
        order = sorted(mean.index, key=lambda m: (m not in pearson, -pearson.get(m, 0.0), mean[m]))
        ranked = [m for m in order if m in pearson]
        label = ("system (by mean Δ)" if not ranked else "system (by Pearson r, best first)"
                 if len(ranked) == len(order) else "system (by Pearson r, then mean Δ)")
        panels.append((task, block, order, label, ax))
    return panels


@_styled
def eec_task_deltas(pairs: pd.DataFrame, tests: pd.DataFrame, *, attribute: str, subset: str = "all",
                    pearson: Mapping[str, float] | None = None) -> list[Axes]:
    """Figures 1–2 per task: one panel per task (anger, fear, joy, sadness, valence, as the paper) of Δ box plots,
    systems ordered left to right by ``pearson`` (spec → Pearson r on the task's test set), best first — as the
    paper ordered them by official rank; systems without one follow, by mean Δ (the axis label says which). One
    new Figure at the preset's width; returns its Axes."""
    data = pairs[(pairs["attribute"] == attribute) & (pairs["subset"] == subset)]
    axes = []
    for task, block, order, label, ax in _task_panels(data, value="delta", what="pairs", attribute=attribute,
                                                      subset=subset, pearson=pearson):
        eec_deltas(block, tests[tests["task"] == task], attribute=attribute, subset=subset, order=order, ax=ax)
        ax.set(title=f"{task}: EEC {attribute} ({subset})", xlabel=label)
        axes.append(ax)
    return axes


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


@_styled
def btcsam_heatmap(table: pd.DataFrame, *, value: str = "detection_probability", index: str = "test_set",
                   columns: str = "bias_type", title: str | None = None, ax: Axes | None = None) -> Axes:
    """Heatmap of ``value`` (mean over other keys) by ``index`` × ``columns`` (BTC-SAM Tables 2 and 5): ``table``
    from :func:`toolkit.studies.btcsam.detection_probability` or :func:`~toolkit.studies.btcsam.failure_percentage`;
    ``title`` defaults to the value's name. A cell with no case (the test set has no case of that bias type) is
    grey and hatched, and says ``no case`` where it has room (else the axis label says so). In a column preset a
    grid wider than tall is drawn transposed (the longer side down the page). Column labels wrap at spaces (upright
    where there is no room); models (``index="model"``) by :func:`short_label`."""
    from matplotlib.patches import Rectangle

    missing = [c for c in (value, index, columns) if c not in table.columns]
    if missing or table.empty:
        raise InputError(f"cannot draw a heatmap: table is empty or lacks {', '.join(missing)}.",
                         fix="pass detection_probability(...) or failure_percentage(...) of a scored test set.")
    p = preset()
    grid = table.pivot_table(index=index, columns=columns, values=value, aggfunc="mean", sort=False, dropna=False)
    if index == "model":
        grid.index = [short_labels(grid.index)[m] for m in grid.index]
    if columns == "model":
        grid.columns = [short_labels(grid.columns)[m] for m in grid.columns]
    if not p.double and grid.shape[1] > grid.shape[0]:
        grid, index, columns = grid.T, columns, index
    ax = ax if ax is not None else new_axes(height=0.3 * grid.shape[0] + 1.5)
    sns.heatmap(grid, annot=True, fmt=".2f" if value != "failure_pct" else ".1f", cmap="rocket_r", ax=ax,
                annot_kws={"fontsize": p.small_size}, linewidths=0.4, linecolor="white",
                cbar_kws={"label": value.replace("_", " "), "pad": 0.02})
    row_chars = max(len(str(i)) for i in grid.index)
    cell = (ax.figure.get_figwidth() - 1.1 - row_chars * 0.55 * p.small_size / 72) / max(grid.shape[1], 1)
    empty = grid.isna().to_numpy()
    for i, j in zip(*empty.nonzero()):
        ax.add_patch(Rectangle((j, i), 1, 1, facecolor="0.92", edgecolor="0.7", hatch="////", linewidth=0,
                               zorder=0.5))
        if cell >= 0.42:
            ax.text(j + 0.5, i + 0.5, "no case", ha="center", va="center", fontsize=p.small_size, color="0.3")
    columns_text = [str(c).replace(" ", "\n") for c in grid.columns]
    longest = max(len(line) for c in columns_text for line in c.split("\n"))
    upright = longest * 0.45 * p.small_size / 72 > cell
    ax.set_xticks([j + 0.5 for j in range(grid.shape[1])], [str(c) for c in grid.columns] if upright else columns_text,
                  rotation=90 if upright else 0)
    ax.set_yticks([i + 0.5 for i in range(grid.shape[0])], [str(i) for i in grid.index], rotation=0)
    note = " (hatched: no case)" if empty.any() and cell < 0.42 else ""
    ax.set(xlabel=columns.replace("_", " ") + note, ylabel=index.replace("_", " "),
           title=title if title is not None else f"BTC-SAM {value.replace('_', ' ')}")
    return ax


@_styled
def biasfinder_btcs(table4: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """BTCs per template, per characteristic, one bar per model in its colour (BiasFinder Table 4 as a figure,
    normalised: ``btcs / templates``, since models and characteristics are scored on different numbers of
    templates; linear scale). A model with no BTC is a diamond on the zero line and its legend entry says
    ``(0 BTCs)``; a characteristic without templates draws nothing and is labelled ``no template``.
    ``table4`` from :func:`toolkit.studies.biasfinder.table4`."""
    import numpy as np

    if table4.empty:
        raise InputError("no Table 4 rows to plot.", fix="generate templates from a corpus that yields some.")
    labels = short_labels(table4["model"])
    for model, block in table4.groupby("model", sort=False):
        if (block["btcs"] == 0).all():
            labels[model] = f"{labels[model]} (0 BTCs)"
    templates = table4["templates"].astype(float).where(table4["templates"] > 0)
    data = table4.assign(per_template=table4["btcs"] / templates, system=table4["model"].map(labels))
    palette = {labels[m]: model_colour(m) for m in labels}
    ax = ax if ax is not None else new_axes()
    attributes = list(dict.fromkeys(data["attribute"]))
    sns.barplot(saturation=1, data=data, x="attribute", y="per_template", hue="system", hue_order=list(labels.values()),
                order=attributes, palette=palette, ax=ax)
    _mark_zero_bars(ax)
    for i, attribute in enumerate(attributes):
        if not np.isfinite(data.loc[data["attribute"] == attribute, "per_template"]).any():
            ax.annotate("no template", (i, 0.0), xytext=(0, 5), textcoords="offset points", ha="center",
                        fontsize=preset().small_size)
    top = np.nanmax(data["per_template"].to_numpy(float)) if data["per_template"].notna().any() else 0.0
    if top > 0:
        ax.set_ylim(top=1.1 * top)  # headroom; _mark_zero_bars made room below zero for the diamonds
    else:
        ax.set_ylim(-0.05, 1.0)  # nothing but zeros (or no template): a visible range
    ax.set(xlabel="characteristic", ylabel="BTCs per template", title="BiasFinder BTCs per template (Table 4)")
    ax.legend(title="", loc="best")
    return ax


@_styled
def agreement_tau(tau: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Kendall's τ between the studies' rankings (:func:`toolkit.agreement.agreement`'s ``tau``): a study × study
    matrix, each cell τ with its bootstrap interval; the diagonal is 1; a cell whose τ is undefined (a study that
    ties every model) is grey and says ``undefined``."""
    import numpy as np

    p = preset()
    studies = list(dict.fromkeys([*tau["study_a"], *tau["study_b"]]))
    k = len(studies)
    if ax is None:
        ax = new_axes(figsize=(min(p.width, 1.0 * k + 1.8), min(p.max_height, 0.75 * k + 1.1)))
    cell = (ax.figure.get_figwidth() - 1.6) / max(k, 1)
    sep = "\n" if cell < 0.8 else " "  # the interval's two ends on two lines where a cell is narrow
    matrix = pd.DataFrame(np.eye(k), index=studies, columns=studies)
    labels = pd.DataFrame("1", index=studies, columns=studies)
    for row in tau.itertuples(index=False):
        for a, b in ((row.study_a, row.study_b), (row.study_b, row.study_a)):
            matrix.loc[a, b] = row.tau
            ci = (f"[{row.ci_low:.2f},{sep}{row.ci_high:.2f}]" if np.isfinite(row.ci_low)
                  else f"p={row.p_value:.2f}" if np.isfinite(getattr(row, "p_value", np.nan)) else "")
            labels.loc[a, b] = f"{row.tau:.2f}\n{ci}" if np.isfinite(row.tau) else "undefined"
    sns.heatmap(matrix.astype(float), annot=labels, fmt="", vmin=-1, vmax=1, cmap="vlag", cbar_kws={"label": "τ-b"},
                annot_kws={"fontsize": p.small_size}, ax=ax)
    ax.set_facecolor("0.9")
    for i, j in zip(*matrix.isna().to_numpy().nonzero()):  # seaborn leaves masked (NaN) cells unlabelled
        ax.text(j + 0.5, i + 0.5, "undefined" if sep == " " else "un-\ndefined", ha="center", va="center",
                fontsize=p.small_size, color="0.3")
    n = int(tau["n_models"].iloc[0]) if len(tau) else 0
    ax.set(title=f"Agreement of the studies' rankings ({n} models)", xlabel="", ylabel="")
    return ax


@_styled
def agreement_ranks(headlines: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Each model's rank (1 = most biased) under each study's headline measure, one line per model in its
    :func:`model_colour`."""
    p = preset()
    studies = list(dict.fromkeys(headlines["study"]))
    ax = ax if ax is not None else new_axes(figsize=(min(p.width, 1.1 * len(studies) + 2.6), p.height + 0.3))
    labels = short_labels(sorted(set(headlines["model"])))
    for model, block in headlines.groupby("model", sort=True):
        block = block.set_index("study").reindex(studies)
        ax.plot(range(len(studies)), block["rank"], marker="o", color=model_colour(model), label=labels[model])
    ax.set_xticks(range(len(studies)), studies)
    ax.set_yticks(range(1, int(headlines["rank"].max()) + 1))
    ax.invert_yaxis()
    ax.set(title="Rank by study (1 = most biased)", ylabel="rank")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    return ax


@_styled
def btcsam_forest(pooled: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Forest plot: the failure % with its Wilson interval, one row per model × test set, in the model's colour.
    ``pooled`` from :func:`toolkit.studies.btcsam.pooled_failure_percentage` (``failure_pct``, ``ci_low``,
    ``ci_high`` in percent); a failure % of 0 is drawn (a marker at 0)."""
    missing = [c for c in ("model", "test_set", "failure_pct", "ci_low", "ci_high") if c not in pooled.columns]
    if missing or pooled.empty:
        raise InputError(f"cannot draw a forest plot: table is empty or lacks {', '.join(missing)}.",
                         fix="pass toolkit.studies.btcsam.pooled_failure_percentage(failure_percentage(...)).")
    data = pooled.sort_values(["test_set", "model"], kind="stable").reset_index(drop=True)
    labels = short_labels(data["model"])
    ax = ax if ax is not None else new_axes(height=0.17 * len(data) + 1.3)
    for y, row in data.iterrows():
        ax.errorbar(row["failure_pct"], y, xerr=[[max(row["failure_pct"] - row["ci_low"], 0.0)],
                                                 [max(row["ci_high"] - row["failure_pct"], 0.0)]],
                    fmt="o", color=model_colour(row["model"]), capsize=2, markersize=3.5, linewidth=1.0)
    ax.set_yticks(range(len(data)), [f"{t} · {labels[m]}" for t, m in zip(data["test_set"], data["model"])])
    ax.invert_yaxis()
    theta = ", ".join(f"{t:g}" for t in dict.fromkeys(data["theta"])) if "theta" in data.columns else "?"
    ax.set(xlabel="failure % (bars: Wilson interval)", ylabel="test set · model",
           title=f"BTC-SAM failure % per model and test set (θ = {theta})")
    ax.set_xlim(-2, 102)
    return ax


# EEC intervals (issue 24): the mean Δ with its two-way interval per system.
_VERDICT_COLOURS = {"a higher": "#d55e00", "b higher": "#0173b2", "different but within ±m": "#cc78bc",
                    "equivalent": "#029e73", "inconclusive": "#949494", stats.IDENTICAL: "#000000"}


def _verdict_kind(verdict: str) -> str:
    """The colour key of a verdict string (:data:`toolkit.stats.VERDICTS`; the margin dropped)."""
    text = str(verdict)
    if text.startswith("equivalent"):
        return "equivalent"
    return "different but within ±m" if text.startswith("different but within") else text


def _level(tests: pd.DataFrame) -> str:
    """How the intervals of an EEC tests table are made, for a title: simultaneous over m tests, or 95 %."""
    if "n_family" in tests.columns and tests["n_family"].notna().any():
        m = int(tests["n_family"].max())
        return "95 % simultaneous" + (f" (m = {m})" if m > 1 else "")
    return "95 %"


@_styled
def eec_intervals(tests: pd.DataFrame, *, attribute: str, subset: str = "all", order: Sequence[str] | None = None,
                  ax: Axes | None = None) -> Axes:
    """Mean Δ per system with its two-way interval (names and templates as samples, simultaneous over the
    verdict's family: ``ci_low``/``ci_high``; thick, coloured by ``verdict``) and the paper's sentence-level t
    interval (thin, grey), a zero line and the ±``margin`` band; a system whose Δ is exactly 0 (estimate and
    interval) is marked ``all Δ = 0``.

    ``tests`` from :func:`toolkit.studies.eec.ttests`; ``order`` lists the systems left to right (default: by mean
    Δ, as :func:`eec_deltas`, so the two figures line up).
    """
    data = tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)].drop_duplicates("model")
    if data.empty or "ci_low" not in data.columns:
        raise InputError(f"no intervals for attribute={attribute!r}, subset={subset!r}.",
                         fix="pass toolkit.studies.eec.ttests(...) of that attribute and subset.")
    models = list(data["model"])
    xlabel = "system"
    if order is None:
        order = data.set_index("model")["mean_diff"].sort_values(kind="stable").index.tolist()
        xlabel = "system (by mean Δ)"
    elif [m for m in order if m not in models] or set(models) - set(order):
        raise InputError(f"order must list each tested model once; got {list(order)} for {models}.",
                         fix=f"use a permutation of {models}.")
    data = data.set_index("model").loc[list(order)]
    ax = ax if ax is not None else new_axes()
    x = list(range(len(order)))
    margin = float(data["margin"].iloc[0])
    ax.axhspan(-margin, margin, color="#029e73", alpha=0.12, linewidth=0, label=f"±{margin:g} (equivalence)")
    ax.axhline(0.0, color="black", linewidth=0.6)
    ax.vlines([i + 0.15 for i in x], data["t_ci_low"], data["t_ci_high"], color="0.5", linewidth=0.8,
              label="t interval over sentences (paper)")
    for i, (_, row) in zip(x, data.iterrows()):
        colour = _VERDICT_COLOURS.get(_verdict_kind(row["verdict"]), "#949494")
        ax.errorbar(i, row["estimate"], yerr=[[row["estimate"] - row["ci_low"]], [row["ci_high"] - row["estimate"]]],
                    fmt="o", color=colour, capsize=2, linewidth=1.5, markersize=3.5)
        if all(row[c] == 0 for c in ("estimate", "ci_low", "ci_high")):
            ax.plot([i], [0.0], color=colour, **ZERO_MARK)
            _annotate_zero(ax, i)
    for kind, colour in _VERDICT_COLOURS.items():
        if kind in {_verdict_kind(v) for v in data["verdict"]}:
            ax.plot([], [], "o", color=colour, label=kind)
    _, _, a, b = eec_study.ATTRIBUTES[attribute]
    _tick_labels(ax, list(short_labels(order).values()))
    ax.set(xlabel=xlabel, ylabel=f"mean Δ = score({a}) − score({b})",
           title=f"EEC {attribute} ({subset}): mean Δ, {_level(data)} CI")
    ax.legend(title="", loc="best")
    return ax


@_styled
def eec_task_intervals(tests: pd.DataFrame, *, attribute: str, subset: str = "all",
                       pearson: Mapping[str, float] | None = None) -> list[Axes]:
    """:func:`eec_intervals` per task (one panel each, the paper's task order), systems ordered as
    :func:`eec_task_deltas` orders them (``pearson`` best first, then by mean Δ). One new Figure; returns its Axes."""
    data = tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)]
    axes = []
    for task, block, order, label, ax in _task_panels(data, value="mean_diff", what="tests", attribute=attribute,
                                                      subset=subset, pearson=pearson):
        eec_intervals(block, attribute=attribute, subset=subset, order=order, ax=ax)
        ax.set(title=f"{task}: EEC {attribute} ({subset}), mean Δ, {_level(block)} CI", xlabel=label)
        axes.append(ax)
    return axes


@_styled
def biasfinder_rates(rates: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """BTC rate between classes (filled) and its within-class null (open) with their intervals, per characteristic,
    one colour per model (:func:`model_colour`; point-range; zero drawn). ``rates`` from
    :func:`toolkit.studies.biasfinder.rates`: the intervals are ``rate_low/high`` and ``null_low/high``
    (template-clustered by default); a point without an interval has none (fewer than 2 templates);
    characteristics without a null (occupation) show the rate only."""
    import numpy as np

    if rates.empty:
        raise InputError("no BTC rates to plot.", fix="pass toolkit.studies.biasfinder.rates(scored).")
    attributes, models = list(dict.fromkeys(rates["attribute"])), list(dict.fromkeys(rates["model"]))
    labels = short_labels(models)
    ax = ax if ax is not None else new_axes()
    width = 0.8 / len(models)
    for j, model in enumerate(models):
        colour = model_colour(model)
        block = rates[rates["model"] == model].set_index("attribute").reindex(attributes)
        x = np.arange(len(attributes)) - 0.4 + width * (j + 0.5)
        for column, low, high, shift, face in (("rate_between", "rate_low", "rate_high", -0.15, colour),
                                               ("rate_within", "null_low", "null_high", 0.15, "white")):
            y = block[column].to_numpy(float)
            err = np.vstack([y - block[low].to_numpy(float), block[high].to_numpy(float) - y])
            ax.errorbar(x + shift * width, y, yerr=np.clip(np.nan_to_num(err, nan=0.0), 0.0, None), fmt="o",
                        color=colour, markerfacecolor=face, capsize=2, linewidth=1.0, markersize=3.5)
        ax.plot([], [], "o", color=colour, label=labels[model])
    ax.plot([], [], "o", color="0.3", label="between classes (BTC rate)")
    ax.plot([], [], "o", color="0.3", markerfacecolor="white", label="within a class (null)")
    ax.axhline(0.0, color="black", linewidth=0.6)
    top = np.nanmax(rates[["rate_between", "rate_high", "rate_within", "null_high"]].to_numpy(float))
    top = top if np.isfinite(top) and top > 0 else 0.01
    ax.set_ylim(-0.04 * top, 1.1 * top)
    ax.set_xticks(np.arange(len(attributes)), attributes)
    ax.set(xlabel="characteristic", ylabel="BTCs / mutant pairs",
           title=f"BiasFinder BTC rate and within-class null ({rates['interval'].iloc[0]} intervals)")
    ax.legend(title="", loc="best")
    return ax
