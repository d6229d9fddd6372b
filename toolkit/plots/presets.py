"""Paper presets: the width, heights, font sizes and font family every figure draws for.

The active preset lives in a :class:`contextvars.ContextVar`: :func:`use_preset` called plainly sets it for the
session (and as the process default, so an app's worker thread draws in it too); used as ``with use_preset(...)``
it applies to the block only (this thread or task) and restores the previous one after. Unset, the environment
variables ``TOOLKIT_FIGURE_PRESET`` (``make figures PRESET=…``) and ``TOOLKIT_FIGURE_FONT`` apply, else
:data:`DEFAULT_PRESET` in a sans-serif font. ``font="serif"`` draws in STIX (Times-like, shipped with matplotlib,
TrueType, so PDFs keep Type 42 fonts).
"""
from __future__ import annotations

import dataclasses
import os
from contextvars import ContextVar
from dataclasses import dataclass

from toolkit.errors import InputError

TITLES_ENV = "TOOLKIT_FIGURE_TITLES"
TITLES = ("on", "off", "caption")
"""``$TOOLKIT_FIGURE_TITLES``: ``on`` (default) draws each figure's titles; ``off`` saves it without them (the
caption says it in the paper) and puts their words in the file's ``Title`` metadata (``make figures TITLES=off``);
``caption`` also leaves the notes under the axes out of the figure and writes the titles and notes to a
``<stem>.caption.txt`` beside it, the caption's text (``make figures TITLES=caption``)."""


def _titles_setting() -> str:
    """``$TOOLKIT_FIGURE_TITLES`` (:data:`TITLES`; unset or empty: on); any other value is TK102 naming them."""
    value = os.environ.get(TITLES_ENV, "").strip().lower()
    if value not in ("", *TITLES):
        raise InputError(f"${TITLES_ENV}={value!r} is not one of {', '.join(TITLES)}.",
                         fix=f"set {TITLES_ENV}=off to save figures without titles, caption to move their titles "
                             "and notes into a caption file, on (or unset) to keep them.")
    return value or "on"


def figure_titles() -> bool:
    """Whether saved figures keep their titles: ``$TOOLKIT_FIGURE_TITLES`` is ``on`` or unset (:data:`TITLES`)."""
    return _titles_setting() == "on"


def figure_captions() -> bool:
    """Whether figures leave their notes to a caption file (``$TOOLKIT_FIGURE_TITLES=caption``): the notes are
    then not drawn, but kept on the figure for :func:`toolkit.plots.io.save` to write."""
    return _titles_setting() == "caption"


@dataclass(frozen=True)
class Preset:
    """A paper figure style: ``width`` (inches) of the column or text block a figure fills, ``height`` of one
    panel, ``max_height`` of a whole figure (a page's text height less a caption), font sizes in points,
    ``double`` (True: the figure spans the text width, a LaTeX ``figure*``) and ``font`` (:data:`FONTS`)."""

    name: str
    venue: str
    width: float
    height: float
    max_height: float
    double: bool
    font_size: float = 8.0   # axis labels, annotations, heatmap numbers
    small_size: float = 7.0  # tick labels, legends
    title_size: float = 9.0
    font: str = "sans"


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("acl-single", "ACL/*ACL column, 7.7 cm (acl.sty)", 3.03, 2.2, 8.5, False),
    Preset("acl-double", "ACL/*ACL text width, 16 cm (acl.sty)", 6.30, 2.6, 8.5, True),
    Preset("acm-single", "ACM sigconf (FAccT) column, 241 pt", 3.33, 2.3, 8.5, False),
    Preset("acm-double", "ACM sigconf (FAccT) text width, 506 pt", 7.00, 2.7, 8.5, True),
)}
"""Paper presets by name (see :class:`Preset`)."""

FONTS: dict[str, dict] = {
    "sans": {"font.family": ["DejaVu Sans"], "mathtext.fontset": "dejavusans"},
    "serif": {"font.family": ["STIXGeneral", "DejaVu Serif"], "mathtext.fontset": "stix"},
}
"""Font families by name, named concretely (a generic ``serif`` would be resolved when the figure is saved, outside
the preset): matplotlib's own TrueType fonts (DejaVu Sans; STIX, Times-like, for ``serif``, DejaVu Serif for a
glyph STIX lacks), so every PDF embeds Type 42 fonts whatever is installed."""

DEFAULT_PRESET = "acl-double"
PRESET_ENV = "TOOLKIT_FIGURE_PRESET"
FONT_ENV = "TOOLKIT_FIGURE_FONT"
SAVE_RC = {"pdf.fonttype": 42, "ps.fonttype": 42}
"""Fonts embedded as TrueType (Type 42) in PDF and PostScript: ACL's and IEEE's PDF checks reject the Type 3 fonts
matplotlib embeds by default."""

_UNSET = ("", "")
_ACTIVE: ContextVar[tuple[str, str]] = ContextVar("toolkit_figure_preset", default=_UNSET)
_SESSION: list[tuple[str, str]] = [_UNSET]  # what a plain use_preset(...) set: seen by threads without a context


def _check_preset(name: str, *, source: str = "preset") -> Preset:
    if name not in PRESETS:
        raise InputError(f"unknown figure {source} {name!r}; valid presets: {', '.join(PRESETS)}.",
                         fix=f"pass one of {', '.join(PRESETS)}"
                             + (f" (or unset {PRESET_ENV})." if source != "preset" else "."))
    return PRESETS[name]


def _check_font(font: str, *, source: str = "font") -> str:
    if font not in FONTS:
        raise InputError(f"unknown figure {source} {font!r}; valid fonts: {', '.join(FONTS)}.",
                         fix=f"pass font= one of {', '.join(FONTS)}"
                             + (f" (or unset {FONT_ENV})." if source != "font" else "."))
    return font


def preset(name: str | None = None, *, font: str | None = None) -> Preset:
    """The :class:`Preset` called ``name``, or (None) the active one: :func:`use_preset`'s, else
    ``$TOOLKIT_FIGURE_PRESET``, else :data:`DEFAULT_PRESET`; in ``font`` (else the active font, else
    ``$TOOLKIT_FIGURE_FONT``, else ``sans``). An unknown name or font is an :class:`InputError` (TK102)."""
    active_name, active_font = _ACTIVE.get()
    if (active_name, active_font) == _UNSET:
        active_name, active_font = _SESSION[0]
    if name is not None:
        chosen = _check_preset(name)
    elif active_name:
        chosen = PRESETS[active_name]
    else:
        env = os.environ.get(PRESET_ENV, "").strip()
        chosen = _check_preset(env, source=f"preset in ${PRESET_ENV}") if env else PRESETS[DEFAULT_PRESET]
    if font is None:
        env_font = os.environ.get(FONT_ENV, "").strip()
        font = active_font or (_check_font(env_font, source=f"font in ${FONT_ENV}") if env_font else "sans")
    return dataclasses.replace(chosen, font=_check_font(font))


class use_preset:
    """Make ``name`` (in ``font``: ``"sans"`` or ``"serif"``) the active preset: ``plots.use_preset("acm-single")``
    sets it for the session; ``with plots.use_preset("acl-single", font="serif"): …`` for the block only (this
    thread or task), restoring the previous one after. ``None`` clears a set preset (the environment variables or
    the default apply again)."""

    def __init__(self, name: str | None, *, font: str | None = None) -> None:
        if name is not None:
            _check_preset(name)
        if font is not None:
            _check_font(font)
        value = _UNSET if name is None else (name, font or "")
        self._token = _ACTIVE.set(value)
        self._session = _SESSION[0]
        _SESSION[0] = value
        self.preset = preset()

    def __enter__(self) -> Preset:
        _SESSION[0] = self._session  # a block changes only its own context
        return self.preset

    def __exit__(self, *exc) -> None:
        _ACTIVE.reset(self._token)


def style(p: Preset | None = None) -> dict:
    """The matplotlib settings of preset ``p`` (default: the active one): font family and sizes, thin lines,
    TrueType fonts."""
    p = p or preset()
    return {"font.size": p.font_size, "axes.titlesize": p.title_size, "axes.labelsize": p.font_size,
            "xtick.labelsize": p.small_size, "ytick.labelsize": p.small_size, "legend.fontsize": p.small_size,
            "legend.title_fontsize": p.small_size, "figure.titlesize": p.title_size,
            "axes.titlepad": 4.0, "axes.linewidth": 0.6, "lines.linewidth": 1.0, "lines.markersize": 4.0,
            "patch.linewidth": 0.5, "xtick.major.width": 0.6, "ytick.major.width": 0.6, "xtick.major.size": 2.5,
            "ytick.major.size": 2.5, "legend.frameon": False, "legend.borderaxespad": 0.3,
            "legend.handlelength": 1.2, "legend.columnspacing": 1.0, "axes.unicode_minus": True,
            **FONTS[p.font], **SAVE_RC}
