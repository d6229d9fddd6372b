r"""The LaTeX renderer of :mod:`toolkit.outputs`: the papers' tables as booktabs tables a reviewer accepts. Pure:
frames in, TeX text out (:func:`toolkit.outputs.runs.export_latex` writes the files). The table model, escaping and
fitting are in :mod:`toolkit.outputs.latex_render`, the papers' layouts in :mod:`toolkit.outputs.latex_tables`; this
module is their one face.

Layout (docs/outputs.md): each table is laid out as its paper laid it out — pivoted where the paper pivots (EEC
Tables 5–7 in task blocks, BTC-SAM Tables 2 and 5 with test sets or bias types as columns at the run's one θ), with
short model labels (:func:`toolkit.formatting.short_labels`: ``hf:/tmp/x/bert?labels=…`` → ``bert``), one precision
per column (:func:`toolkit.formatting.column_decimals`), the paper's columns under "Paper" and the statistics this
toolkit adds under "Added" (a compact ``est. [CI]`` cell and a verdict in the words of :mod:`toolkit.verdicts`,
each defined in the caption), blocks (tasks, corpora, models, test
sets) as italic heading rows, and booktabs rules only under the header and at the ends.

Width: a table is rendered for a preset (:data:`WIDTHS`, the figure presets' names): ``*-single`` is a ``table``
that must fit ``\columnwidth`` (ACL 219 pt, ACM 241 pt), ``*-double`` a ``table*`` that must fit ``\textwidth``
(ACL 455 pt, ACM 506 pt). The renderer estimates every column's width from the glyph widths of Computer Modern at
the table's font size (:func:`text_width`, a few percent over the real widths) and, where the blocks do not fit side
by side, stacks them as panels under one caption, each panel repeating the row labels (a block wider than the page
is split column by column); a table may have a narrower form (an interval stacked below its estimate) that it takes
where that needs fewer floats or panels (:func:`~toolkit.outputs.latex_render.chosen`).

Height: no float is taller than the preset's text height (:attr:`Width.height_pt`; ACL 702.78 pt, ACM 626 pt). The
renderer estimates each float's height (rows, rules, headings, caption; :func:`float_heights`) and continues a
taller table over several floats, each at most :data:`PAGE_SHARE` of the text height: the later ones captioned
"… (continued)" under the same table number, split between sections where that needs no more floats, or panel by
panel where that needs fewer. ``tests/test_outputs_latex.py`` checks the estimates everywhere and, with pdflatex,
compiles every table at every preset and fails on any overfull box or float too large for the page.

Escaping (:func:`escape`): every cell and header is plain text until the end, then escaped for pdfLaTeX (OT1 and
T1): ``\ & % $ # _ { } ~ ^ < > |`` escaped; ``[`` and ``*`` braced (a cell starting with ``[`` would be the optional
argument of the ``\\`` before it); the ligature pairs (``--``, ``---``, ````` `` `````, ``''``, ``!```, ``?```,
``,,``) split by ``{}``; invisible format characters (bidi controls such as U+202E, zero-width characters, BOM)
removed; characters the fonts lack (emoji, CJK, control characters) shown as a bold ``?`` with their code point
(:data:`PLACEHOLDER`); the Greek letters, arrows and signs of the headers (Δ ↑ ↓ θ κ ± − ≥ ≤ × ≠ ≈) as math.
:data:`SAFE_CODEPOINTS` passes unchanged (checked against TeX Live's pdfLaTeX).
"""
from __future__ import annotations

from toolkit.outputs.latex_render import (
    DEFAULT_PRESET,
    ENVIRONMENTS,
    ESTIMATE_MARGIN,
    FONT,
    FONT_PT,
    KEY_SHARE,
    MIN_HEADER_PT,
    MISSING,
    PAGE_SHARE,
    PANEL_GAP,
    PLACEHOLDER,
    SAFE_CODEPOINTS,
    TABCOLSEP_PT,
    WIDTHS,
    Block,
    Column,
    Layout,
    Width,
    caption_text,
    cell_lines,
    check_preset,
    column_decimals,
    escape,
    estimated_height,
    estimated_width,
    fitted,
    float_heights,
    floats,
    format_number,
    header_lines,
    panels,
    render,
    text_width,
    title_lines,
    wrap,
)
from toolkit.outputs.latex_tables import (
    PaperTable,
    frame_layout,
    layout,
    model_labels,
    paper_table,
    paper_tables,
    stacked,
    to_latex,
    verdict_cells,
    verdict_legend,
)
