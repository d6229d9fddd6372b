r"""The LaTeX renderer of :mod:`toolkit.outputs`: the papers' tables as booktabs tables a reviewer accepts. Pure:
frames in, TeX text out (:func:`toolkit.outputs.runs.export_latex` writes the files). The table model, escaping and
fitting are in :mod:`toolkit.outputs.latex_render`, the papers' layouts in :mod:`toolkit.outputs.latex_tables`; this
module is their one face.

Layout (docs/outputs.md): each table is laid out as its paper laid it out — pivoted where the paper pivots (EEC
Tables 5–7 in task blocks, BTC-SAM Tables 2 and 5 with test sets or bias types as columns at the run's one θ), with
short model labels (:func:`toolkit.formatting.short_labels`: ``hf:/tmp/x/bert?labels=…`` → ``bert``), one precision
per column (:func:`toolkit.formatting.column_decimals`), the paper's columns under "Paper" and the statistics this
toolkit adds under "Added" (a compact ``est. [CI]`` cell and a short verdict), blocks (tasks, corpora, models, test
sets) as italic heading rows, and booktabs rules only under the header and at the ends.

Width: a table is rendered for a preset (:data:`WIDTHS`, the figure presets' names): ``*-single`` is a ``table``
that must fit ``\columnwidth`` (ACL 219 pt, ACM 241 pt), ``*-double`` a ``table*`` that must fit ``\textwidth``
(ACL 455 pt, ACM 506 pt). The renderer estimates every column's width from the glyph widths of Computer Modern at
the table's font size (:func:`text_width`, a few percent over the real widths) and, where the blocks do not fit side
by side, stacks them as panels under one caption, each panel repeating the row labels (a block wider than the page
is split column by column). ``tests/test_outputs_latex.py`` compiles every table at every preset with pdflatex and
fails on any overfull box.

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
    estimated_width,
    fitted,
    format_number,
    header_lines,
    panels,
    render,
    text_width,
    title_lines,
    wrap,
)
from toolkit.outputs.latex_tables import (
    VERDICT_NOTE,
    PaperTable,
    frame_layout,
    layout,
    model_labels,
    paper_table,
    paper_tables,
    to_latex,
    verdict_label,
)
