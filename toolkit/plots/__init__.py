"""Figures: data in, matplotlib Axes out (seaborn underneath), sized and styled for a paper.

Modules: :mod:`~toolkit.plots.presets` (the active preset, a ContextVar), :mod:`~toolkit.plots.style` (labels,
colours, layout), :mod:`~toolkit.plots.io` (save, show) and :mod:`~toolkit.plots.instrument` (names and templates).
Each study draws its own figures with these (``toolkit.studies.<study>.figures``).

Every figure draws for the *active* preset (:func:`preset`): its width is the preset's column or text width, its
fonts 7-9 pt, in sans-serif or (``use_preset(..., font="serif")``) Times-like STIX, and every PDF embeds TrueType
fonts (:data:`SAVE_RC`). The active preset is the one :func:`use_preset` set (a setter, or a context manager for a
block), else ``$TOOLKIT_FIGURE_PRESET`` (``make figures PRESET=…``), else :data:`DEFAULT_PRESET` (``acl-double``).

Models are labelled by :func:`short_label` and coloured by :func:`model_palette`: every model of one figure a
different colour, the registry's named models always the same one, the others from :data:`PALETTE` in sorted order.
A result that is exactly zero is drawn (a marker on the zero line) and said.

Each function returns the Axes it drew on, except the per-task EEC figures (:func:`eec_task_deltas`,
:func:`eec_task_intervals`), which return the list of their panels' Axes (one Figure). No function touches pyplot's
figure manager: each draws on the Axes it is given or on a fresh :class:`matplotlib.figure.Figure`
(:func:`new_axes`); the caller owns it: :func:`save` writes it (PNG plus a vector copy), :func:`show` displays it.

Docs: ``docs/figures.md`` (presets, colours, each paper figure and how it compares with the paper's).
"""
from __future__ import annotations

from toolkit.plots.instrument import ANALYSIS_STYLE, confounds, intersections, wording  # noqa: F401
from toolkit.plots.io import png, save, show, write_figure  # noqa: F401
from toolkit.plots.presets import (  # noqa: F401
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
from toolkit.plots.style import (  # noqa: F401
    CATEGORY_COLOURS,
    MODEL_COLOURS,
    NOISE,
    PALETTE,
    VECTOR_FORMAT,
    ZERO_MARK,
    category_palette,
    model_colour,
    model_palette,
    new_axes,
    short_label,
    short_labels,
)

PAPER_FIGURES: dict[str, tuple[str, str, str]] = {
    "eec_gender_box": ("eec_task_deltas", "EEC Figure 1", ("as the paper: a box of Δ per system coloured by "
                       "significance group; a panel per task; systems by Pearson r where known, else by mean Δ")),
    "eec_race_box": ("eec_task_deltas", "EEC Figure 2", "as Figure 1, Δ = AA − EA"),
    "eec_gender_intervals": ("eec_task_intervals", "none", "mean Δ with its two-way interval"),
    "eec_race_intervals": ("eec_task_intervals", "none", "mean Δ with its two-way interval"),
    "psa_score_sens_<model>": ("psa_score_sens", "PSA Figure 1", ("ScoreSens per name on the valence scale (half "
                               "the paper's [−1, 1] values); one figure per model")),
    "psa_label_dist": ("psa_label_dist", "PSA Figure 2", "LabelDist against c (valence scale), bootstrap bands added"),
    "biasfinder_btcs": ("biasfinder_btcs", "BiasFinder Table 4", ("BTCs per template, not raw counts (those are in "
                        "biasfinder_table4.csv)")),
    "biasfinder_rates": ("biasfinder_rates", "none", "BTC rate and its within-class null"),
    "btcsam_detection": ("btcsam_heatmap", "BTC-SAM Table 2", "the table as a heatmap; hatched cells: no case"),
    "btcsam_failure_pct": ("btcsam_heatmap", "BTC-SAM Table 5", "the table as a heatmap"),
    "btcsam_failure_forest": ("btcsam_forest", "none", "failure % with Wilson intervals"),
    "agreement_tau": ("agreement_tau", "none", "Kendall's τ between the studies' rankings"),
    "agreement_ranks": ("agreement_ranks", "none", "each model's rank by study"),
    "eec_race_confounds": ("confounds", "none", ("the race gap as measured, adjusted for name frequency "
                           "and on frequency-matched names, with intervals")),
    "eec_intersections": ("intersections", "none", ("gender × race cell contrasts with Holm-corrected "
                          "intervals")),
    "eec_race_wordings": ("wording", "none", ("the race estimate under the published and reworded "
                          "templates")),
    "eec_gender_wordings": ("wording", "none", ("the gender estimate under the published and reworded "
                            "templates")),
}
"""File stem → (the function that draws it, the paper figure or table it reproduces, how it compares), for a
closing note of ``make figures``; the long form is in ``docs/figures.md``."""

