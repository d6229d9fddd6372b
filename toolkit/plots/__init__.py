"""Figures: data in, matplotlib Axes out (seaborn underneath), sized and styled for a paper.

Modules: :mod:`~toolkit.plots.presets` (the active preset, a ContextVar), :mod:`~toolkit.plots.style` (labels,
colours, layout), :mod:`~toolkit.plots.io` (save, show) and :mod:`~toolkit.plots.instrument` (names and templates).
Each study draws its own figures with these (``toolkit.studies.<study>.figures``).

Every figure draws for the *active* preset (:func:`preset`): its width is the preset's column or text width, its
fonts 7-9 pt, in sans-serif or (``use_preset(..., font="serif")``) Times-like STIX, and every PDF embeds TrueType
fonts (:data:`SAVE_RC`). The active preset is the one :func:`use_preset` set (a setter, or a context manager for a
block), else ``$TOOLKIT_FIGURE_PRESET`` (``make figures PRESET=…``), else :data:`DEFAULT_PRESET` (``acl-double``).

Models are labelled by :func:`short_label`, coloured by :func:`model_palette` and marked by :func:`model_markers`:
every registry model kind (:func:`model_kind`) one fixed colour and marker in every figure, your own models the free
ones in sorted order, every model of one figure a different colour.
A result that is exactly zero is drawn (a marker on the zero line) and said.

Each function returns the Axes it drew on, except the per-task EEC figures (:func:`eec_task_deltas`,
:func:`eec_task_intervals`), which return the list of their panels' Axes (one Figure). No function touches pyplot's
figure manager: each draws on the Axes it is given or on a fresh :class:`matplotlib.figure.Figure`
(:func:`new_axes`); the caller owns it: :func:`save` writes it (PNG plus a vector copy), :func:`show` displays it.

Docs: ``docs/figures.md`` (presets, colours, each paper figure and how it compares with the paper's).
"""
from __future__ import annotations

from toolkit.plots.instrument import ANALYSIS_STYLE, confounds, intersections, wording
from toolkit.plots.io import (
    TITLES,
    TITLES_ENV,
    caption_text,
    figure_captions,
    figure_titles,
    png,
    save,
    show,
    write_figure,
)
from toolkit.plots.presets import (
    DEFAULT_PRESET,
    FONT_ENV,
    FONTS,
    PRESET_ENV,
    PRESETS,
    SAVE_RC,
    Preset,
    preset,
    style,
    use_preset,
)
from toolkit.plots.style import (
    CATEGORY_COLOURS,
    MARKER_CYCLE,
    MODEL_COLOURS,
    MODEL_MARKERS,
    NOISE,
    OWN_COLOURS,
    PALETTE,
    SCORE_RANGE,
    VECTOR_FORMAT,
    ZERO_GREY,
    ZERO_MARK,
    category_palette,
    model_colour,
    model_kind,
    model_markers,
    model_palette,
    new_axes,
    open_edge,
    short_label,
    short_labels,
)

PAPER_FIGURES: dict[str, tuple[str, str, str]] = {
    "eec_race_confounds": ("confounds", "none", ("the race gap as measured, adjusted for name frequency "
                           "and on frequency-matched names, with intervals")),
    "psa_confounds": ("confounds", "none", ("PSA's gender gap as measured, adjusted for name frequency and on "
                      "frequency-matched names, with intervals")),
    "eec_intersections": ("intersections", "none", ("gender × race cell contrasts with 95 % intervals, "
                          "filled where Holm-corrected p < α")),
    "eec_race_wordings": ("wording", "none", ("the race estimate under the published and reworded "
                          "templates")),
    "eec_gender_wordings": ("wording", "none", ("the gender estimate under the published and reworded "
                            "templates")),
}
"""The names-and-templates figures drawn here (:mod:`toolkit.plots.instrument`): file stem → (the function that draws
it, the paper figure or table it reproduces, how it compares). Each study declares its own figures the same way
(:attr:`toolkit.studies.base.Study.paper_figures`; all of them: :func:`toolkit.studies.paper_figures`); the long form
is in ``docs/figures.md``."""

