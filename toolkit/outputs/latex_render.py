r"""The LaTeX table model of :mod:`toolkit.outputs.latex` and its renderer: escaping for pdfLaTeX, the widths and
heights of the presets, columns/blocks/layouts, and :func:`render` fitting a layout to a preset's page: its narrow
form where that needs fewer panels, panels under one caption where the blocks do not fit side by side, and a table
taller than the page continued over several floats (the same table number, "continued" in the caption). Pure: a
:class:`Layout` in, TeX text out. The papers' tables are
built from study frames in :mod:`toolkit.outputs.latex_tables`; the module docstring of :mod:`toolkit.outputs.latex`
gives the rules (layout, width, escaping).
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from toolkit import formatting
from toolkit.errors import unknown

MISSING = "--"  # a missing number in a LaTeX cell (an en dash)
_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"$<$",
            ">": r"$>$", "Δ": r"$\Delta$", "↑": r"$\uparrow$", "↓": r"$\downarrow$", "θ": r"$\theta$",
            "κ": r"$\kappa$", "±": r"$\pm$", "−": r"$-$", "≥": r"$\geq$", "≤": r"$\leq$", "×": r"$\times$",
            "≠": r"$\neq$", "≈": r"$\approx$", "∞": r"$\infty$", "\n": " ", "\r": " ", "\t": " ", "[": "{[}",
            "*": "{*}", "|": r"\textbar{}"}
ENVIRONMENTS = ("table", "table*")
_SAFE_RANGES = ((0x20, 0x7E), (0xA0, 0xAA), (0xAC, 0xBA), (0xBC, 0xCF), (0xD1, 0xDD), (0xDF, 0xEF), (0xF1, 0xFD),
                (0xFF, 0x103), (0x106, 0x10F), (0x112, 0x117), (0x11A, 0x125), (0x128, 0x12D), (0x130, 0x137),
                (0x139, 0x13E), (0x141, 0x148), (0x14C, 0x165), (0x168, 0x171), (0x174, 0x17E), (0x192, 0x192),
                (0x1C4, 0x1D4), (0x1E2, 0x1E3), (0x1E6, 0x1E9), (0x1F0, 0x1F0), (0x1F4, 0x1F5), (0x218, 0x21B),
                (0x232, 0x233), (0x237, 0x237), (0x2010, 0x2016), (0x2018, 0x2019), (0x201C, 0x201D),
                (0x2020, 0x2022), (0x2026, 0x2026), (0x2030, 0x2031), (0x203B, 0x203B), (0x203D, 0x203D),
                (0x2044, 0x2044), (0x204E, 0x204E), (0x2052, 0x2052), (0x20AC, 0x20AC), (0x2103, 0x2103),
                (0x2116, 0x2116), (0x2122, 0x2122), (0x2190, 0x2190), (0x2192, 0x2192))
SAFE_CODEPOINTS = frozenset(c for low, high in _SAFE_RANGES for c in range(low, high + 1))
"""Code points pdfLaTeX (UTF-8 input, OT1 or T1 font encoding) prints as they are; others are escaped, mapped to
math, removed (format characters) or shown as :data:`PLACEHOLDER`."""
PLACEHOLDER = r"\textbf{?}\textsuperscript{U+%04X}"
_LIGATURES = frozenset({"--", "``", "''", "!`", "?`", ",,"})


def _character(ch: str) -> str:
    if ch in _SPECIAL:
        return _SPECIAL[ch]
    if ord(ch) in SAFE_CODEPOINTS:
        return ch
    if unicodedata.category(ch) == "Cf":  # bidi controls, zero-width characters, BOM: invisible, never printed
        return ""
    return PLACEHOLDER % ord(ch)


def escape(text: object) -> str:
    """``text`` as LaTeX text that pdfLaTeX compiles and prints as written (module docstring)."""
    out: list[str] = []
    previous = ""
    for ch in unicodedata.normalize("NFC", str(text)):
        piece = _character(ch)
        if piece and previous + ch in _LIGATURES:
            out.append("{}")
        out.append(piece)
        previous = ch if piece == ch else ""
    return "".join(out)


def format_number(value: object, *, decimals: int = 3, p_value: bool = False) -> str:
    """One cell as TeX: :func:`toolkit.formatting.format_number` escaped (math minus, ``$<$0.001``), missing values
    as ``--``."""
    if formatting.is_missing(value):
        return MISSING
    return escape(formatting.format_number(value, decimals=decimals, p_value=p_value))


column_decimals = formatting.column_decimals


# --- widths -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Width:
    """A page geometry a table is rendered for: the environment, the length it must fit and its size in pt, and
    the text height (pt) no float may exceed."""

    preset: str
    environment: str
    length: str
    limit_pt: float
    height_pt: float = 626.0
    line_pt: float = 12.0  # a table line at \small in the template's body size


WIDTHS: dict[str, Width] = {w.preset: w for w in (
    Width("acl-single", "table", r"\columnwidth", 219.08, 702.78, 12.0),  # acl.sty: 7.7 cm column, 24.7 cm high
    Width("acl-double", "table*", r"\textwidth", 455.24, 702.78, 12.0),   # 16 cm text width; \small 10/12 pt
    Width("acm-single", "table", r"\columnwidth", 241.14, 626.0, 11.0),   # acmart sigconf (geometry's text height)
    Width("acm-double", "table*", r"\textwidth", 506.295, 626.0, 11.0),   # \small 9/11 pt at 10 pt (or smaller)
)}
DEFAULT_PRESET = "acl-double"  # as the figures' default preset
FONT = r"\small"
FONT_PT = 10.0  # \small in ACL's 11 pt article (the largest body among the presets)
TABCOLSEP_PT = 4.0
ESTIMATE_MARGIN = 1.03  # estimated text widths are scaled up by this (kerning, T1 vs OT1 glyphs)
PANEL_GAP = r"\par\medskip"

# Heights in pt: booktabs' rules with the space around them, \addlinespace, the gap between panels and the skip
# above a caption (a line of a row, \arraystretch 1, is the preset's Width.line_pt).
TOPRULE_PT, MIDRULE_PT, BOTTOMRULE_PT, CMIDRULE_PT = 3.6, 5.0, 2.5, 4.8
ADDSPACE_PT, PANEL_GAP_PT, CAPTION_SKIP_PT = 5.0, 7.0, 10.0
HEIGHT_MARGIN = 1.04  # estimated heights are scaled up by this
PAGE_SHARE = 0.97  # a float may fill this share of the text height (the rest: what the estimate may miss)
CONTINUED = "continued"
# Computer Modern Roman glyph widths at 10 pt (cmr10.tfm, rounded up); others count as an em (10 pt).
_GLYPH = {**{c: 5.0 for c in "0123456789"}, " ": 3.34, ".": 2.78, ",": 2.78, ":": 2.78, ";": 2.78, "'": 2.78,
          "(": 3.89, ")": 3.89, "[": 2.78, "]": 2.78, "-": 3.34, "/": 5.0, "%": 8.34, "+": 7.78, "=": 7.78,
          "<": 7.78, ">": 7.78, "−": 7.78, "–": 5.0, "—": 10.0, "±": 7.78, "≈": 7.78, "≠": 7.78, "×": 7.78,
          "Δ": 8.34, "θ": 4.7, "κ": 5.8, "↑": 5.0, "↓": 5.0, "#": 8.34, "&": 7.78, "?": 4.73, "!": 2.78,
          "*": 5.0, "_": 5.0, "|": 2.78, "i": 2.78, "l": 2.78, "j": 3.06, "f": 3.06, "t": 3.89, "r": 3.92,
          "s": 3.95, "c": 4.45, "e": 4.45, "a": 5.0, "z": 4.45, "v": 5.28, "x": 5.28, "y": 5.28, "k": 5.28,
          "b": 5.56, "d": 5.56, "g": 5.0, "h": 5.56, "n": 5.56, "o": 5.0, "p": 5.56, "q": 5.28, "u": 5.56,
          "m": 8.34, "w": 7.23, "I": 3.62, "J": 5.14, "M": 9.17, "W": 10.28}


PLACEHOLDER_PT = (16.4, 4.2)
"""The printed width of :data:`PLACEHOLDER` at 10 pt, a bold "?" and the code point as a superscript ("U+65E5"):
the first number plus the second per hex digit (measured in pdfLaTeX: 33.2 pt for four digits, 36.4 for five)."""


def _glyph_width(ch: str) -> float:
    """One character's width at 10 pt as printed: :data:`PLACEHOLDER_PT` for a character shown as its code point
    (CJK, Cyrillic, emoji …), 0 for an invisible format character, else its cmr10 glyph (uppercase 7.5 pt,
    anything else an em)."""
    if ch in _GLYPH:
        return _GLYPH[ch]
    if ch not in _SPECIAL and ord(ch) not in SAFE_CODEPOINTS:
        return 0.0 if unicodedata.category(ch) == "Cf" else \
            PLACEHOLDER_PT[0] + PLACEHOLDER_PT[1] * len(f"{ord(ch):04X}")
    return 7.5 if ch.isupper() else 10.0


def text_width(text: str, *, size_pt: float = FONT_PT, bold: bool = False, italic: bool = False) -> float:
    """Estimated width in pt of one line of plain ``text`` in Computer Modern at ``size_pt`` (cmr10 widths,
    uppercase 7.5 pt, anything else an em, a character pdfLaTeX cannot print as wide as its placeholder; bold and
    italic 10 % wider)."""
    total = sum(_glyph_width(ch) for ch in unicodedata.normalize("NFC", str(text)))
    return total * size_pt / 10.0 * (1.1 if bold or italic else 1.0) * ESTIMATE_MARGIN


# --- the table model ----------------------------------------------------------------------------------------------

@dataclass
class Column:
    """One column: its header (lines separated by ``\\n``), ``l``/``r`` alignment and plain-text cells."""

    header: str
    cells: list[str]
    align: str = "r"
    wrap: float = 0.0  # > 0: body cells broken into lines at this width (pt)
    stacked: bool = False  # body cells hold lines separated by "\n" (an estimate above its interval)
    whole: float | None = None  # the widest header word kept whole (None: WHOLE_HEADER_WORD_PT; 0: cut to fit)


@dataclass
class Block:
    """Columns that stay together in one panel, under one spanning header (``title``; "" for none)."""

    title: str
    columns: list[Column]


@dataclass
class Layout:
    """A table before TeX: row-label columns repeated in every panel, the blocks, and the row sequence: ``sections``
    maps a row index to the heading printed above it (blocks of tasks, corpora, models…)."""

    keys: list[Column]
    blocks: list[Block]
    caption: str
    label: str
    sections: dict[int, str] = field(default_factory=dict)
    heading_wrap: float = 0.0  # > 0: section headings broken into lines at this width (pt)
    narrow: "Layout | None" = None  # the same table laid out narrower (fewer, stacked columns), for a column
    title: str = ""  # what a continued float's caption names ("" : the caption's first sentence)

    @property
    def n_rows(self) -> int:
        return len((self.keys or self.blocks[0].columns)[0].cells)


MIN_HEADER_PT = 40.0  # a header is broken into lines down to this width (or its cells' width, when wider)
WHOLE_HEADER_WORD_PT = 80.0  # a header word up to this wide stays whole ("attribute", never "attribut" + "e")
KEY_SHARE = 0.3  # row labels that must break keep at least this share of the page width


def wrap(text: str, target: float, *, whole: float = 0.0) -> list[str]:
    """``text`` (lines separated by ``\n``) with every line wider than ``target`` pt broken after spaces, ``_``,
    ``-`` and ``/``; a piece without such a break that is itself wider than ``max(target, whole)`` (a 300-character
    word, a run of characters shown as code points) is broken between characters (``whole``: the widest word kept
    whole although wider than ``target``, as a header's "attribute" over cells of "race")."""
    out: list[str] = []
    for line in str(text).split("\n"):
        current = ""
        for piece in (p for p in re.split(r"(?<=[ _/-])", line) if p):
            for part in _hard_parts(piece, max(target, whole)):
                if current and text_width((current + part).rstrip()) > target:
                    out.append(current.rstrip())
                    current = part
                else:
                    current += part
        out.append(current.rstrip())
    return out


def _hard_parts(piece: str, target: float) -> list[str]:
    """``piece`` whole when it fits ``target`` pt, else cut between characters into parts that fit."""
    if text_width(piece.rstrip()) <= target:
        return [piece]
    parts, current = [], ""
    for ch in piece:
        if current and text_width(current + ch) > target:
            parts.append(current)
            current = ch
        else:
            current += ch
    return [*parts, current] if current else parts


def cell_lines(column: Column, text: str) -> list[str]:
    """The lines of one body cell: its own lines in a ``stacked`` column, broken only in a column with a ``wrap``
    width (row labels)."""
    lines = str(text).split("\n") if column.stacked else [text]
    return [piece for line in lines for piece in wrap(line, column.wrap)] if column.wrap else lines


def _cells_width(column: Column) -> float:
    return max((text_width(line) for c in column.cells for line in cell_lines(column, c)), default=0.0)


def header_lines(column: Column) -> list[str]:
    """The header's lines: its own ``\n`` breaks, and a line wider than the column's cells (at least
    :data:`MIN_HEADER_PT`) broken after spaces, ``_``, ``-`` and ``/``; a word up to :data:`WHOLE_HEADER_WORD_PT`
    wide is never cut between letters (the column widens to it), unless the fitting gave the column a narrower
    ``wrap`` width."""
    whole = WHOLE_HEADER_WORD_PT if column.whole is None else column.whole
    whole = min(whole, column.wrap) if column.wrap else whole  # a width the fitting gave the column rules
    return wrap(column.header, max(MIN_HEADER_PT, _cells_width(column)), whole=whole)


def _column_width(column: Column) -> float:
    lines = [text_width(line) for line in header_lines(column)]
    return max([*lines, _cells_width(column)]) + 2 * TABCOLSEP_PT


def title_lines(block: Block) -> list[str]:
    """A block's spanning title, broken to the width of its columns (at least :data:`MIN_HEADER_PT`)."""
    inner = sum(_column_width(c) for c in block.columns) - 2 * TABCOLSEP_PT
    return wrap(block.title, max(MIN_HEADER_PT, inner)) if block.title else []


def _block_width(block: Block) -> float:
    inner = sum(_column_width(c) for c in block.columns)
    return max([inner, *(text_width(line) + 2 * TABCOLSEP_PT for line in title_lines(block))])


def panels(layout: Layout, *, limit_pt: float) -> list[list[Block]]:
    """The blocks packed in order into panels whose estimated width fits ``limit_pt`` (a block wider than the
    limit is split column by column; a single column always makes a panel)."""
    keys = sum(_column_width(c) for c in layout.keys)
    pieces: list[Block] = []
    for block in layout.blocks:
        if keys + _block_width(block) <= limit_pt or len(block.columns) == 1:
            pieces.append(block)
            continue
        columns = block.columns
        for parts in range(2, len(columns) + 1):  # split a wide block into the fewest parts of equal size that fit
            size = -(-len(columns) // parts)
            chunks = [Block(block.title, columns[i:i + size]) for i in range(0, len(columns), size)]
            if all(keys + _block_width(chunk) <= limit_pt for chunk in chunks) or size == 1:
                pieces += chunks
                break
    out: list[list[Block]] = []
    for piece in pieces:
        if out and keys + sum(_block_width(b) for b in out[-1]) + _block_width(piece) <= limit_pt:
            out[-1].append(piece)
        else:
            out.append([piece])
    return out


def estimated_width(layout: Layout, blocks: Sequence[Block]) -> float:
    """The estimated width in pt of one panel holding ``blocks``."""
    return sum(_column_width(c) for c in layout.keys) + sum(_block_width(b) for b in blocks)


def _lines_cell(lines: list[str], align: str, position: str = "b") -> str:
    escaped = [escape(line) for line in lines]
    if len(escaped) == 1:
        return escaped[0]
    return rf"\begin{{tabular}}[{position}]{{@{{}}{align}@{{}}}}" + r"\\".join(escaped) + r"\end{tabular}"


def _header_cell(column: Column) -> str:
    return _lines_cell(header_lines(column), column.align)


def _panel(layout: Layout, blocks: Sequence[Block], rows: range | None = None) -> list[str]:
    columns = [*layout.keys, *(c for b in blocks for c in b.columns)]
    n = len(columns)
    spec = "".join(c.align for c in columns)
    lines = [rf"\begin{{tabular}}{{@{{}}{spec}@{{}}}}", r"\toprule"]
    if any(b.title for b in blocks):
        spans, rules, start = [""] * len(layout.keys), [], len(layout.keys) + 1
        for block in blocks:
            width = len(block.columns)
            if block.title:
                spans.append(rf"\multicolumn{{{width}}}{{c}}{{{_lines_cell(title_lines(block), 'c')}}}")
                trim = "lr" if start > 1 else "r"
                rules.append(rf"\cmidrule({trim}){{{start}-{start + width - 1}}}")
            else:
                spans += [""] * width
            start += width
        lines += [" & ".join(spans) + r" \\", "".join(rules)]
    lines += [" & ".join(_header_cell(c) for c in columns) + r" \\",
              r"\midrule"]
    rows = range(layout.n_rows) if rows is None else rows
    for row in rows:
        section = row if row in layout.sections else (_section_of(layout, row) if row == rows.start else None)
        if section is not None:
            if row != rows.start:
                lines.append(r"\addlinespace")
            text = layout.sections[section] + ("" if section == row else f" ({CONTINUED})")
            heading = wrap(text, layout.heading_wrap) if layout.heading_wrap else [text]
            lines.append(rf"\multicolumn{{{n}}}{{@{{}}l}}{{\itshape {_lines_cell(heading, 'l', 't')}}} \\")
        lines.append(" & ".join(_lines_cell(cell_lines(c, c.cells[row]), c.align, "t") for c in columns) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return lines


def render(layout: Layout, *, preset: str = DEFAULT_PRESET) -> str:
    """``layout`` as LaTeX for ``preset`` (:data:`WIDTHS`): ``table`` or ``table*``, ``\\small``; its narrow form
    where that needs fewer panels (:func:`chosen`); the blocks side by side where they fit the preset's width,
    else stacked as panels; caption and label below. A table taller than the page (:func:`estimated_height`) is
    continued over several floats of at most the text height (:func:`parts`): rows broken between sections where
    it can, a section heading repeated with "(continued)", each later float captioned with the same table number
    and "continued"."""
    width = WIDTHS[check_preset(preset)]
    layout, pieces = floats(layout, preset=preset)
    out = []
    for number, piece in enumerate(pieces):
        lines = [rf"\begin{{{width.environment}}}[t]", r"\centering", FONT,
                 rf"\setlength{{\tabcolsep}}{{{TABCOLSEP_PT:g}pt}}"]
        for position, (blocks, rows) in enumerate(piece):
            if position:
                lines.append(PANEL_GAP)
            lines += _panel(layout, blocks, rows)
        if number:
            lines += [r"\addtocounter{table}{-1}", rf"\caption{{{caption_text(continued_caption(layout))}}}"]
        else:
            lines += [rf"\caption{{{caption_text(layout.caption)}}}", rf"\label{{{layout.label}}}"]
        lines.append(rf"\end{{{width.environment}}}")
        out.append("\n".join(lines) + "\n")
    return "".join(out)


def floats(layout: Layout, *, preset: str) -> tuple[Layout, list[list[tuple[list[Block], range]]]]:
    """The form of ``layout`` :func:`render` draws at ``preset`` (:func:`chosen`) and its floats (:func:`parts`):
    each a list of (the blocks of a panel, its rows)."""
    layout = chosen(layout, preset=preset)
    return layout, parts(layout, panels(layout, limit_pt=WIDTHS[preset].limit_pt), preset=preset)


def float_heights(layout: Layout, *, preset: str) -> list[float]:
    """The estimated height in pt of each float :func:`render` draws for ``layout`` at ``preset`` (what the test
    suite checks against the text height where pdflatex is missing)."""
    form, pieces = floats(layout, preset=preset)
    return [estimated_height(form, [blocks for blocks, _ in piece], preset=preset, rows=piece[0][1],
                             caption=form.caption if number == 0 else continued_caption(form))
            for number, piece in enumerate(pieces)]


def continued_caption(layout: Layout) -> str:
    """The caption of a continued float: its title (default: the caption's first sentence), "continued"."""
    title = layout.title or re.split(r"(?<!\bal)\.\s", layout.caption, maxsplit=1)[0].rstrip(".")
    return f"{title} ({CONTINUED})."


def chosen(layout: Layout, *, preset: str) -> Layout:
    """``layout`` or one of its narrower forms (:attr:`~Layout.narrow`, and its own), fitted to ``preset``
    (:func:`fitted`), empty columns dropped (:func:`without_empty`): the one continued over the fewest floats, then
    with the fewest panels (ties: the first, the paper's form)."""
    width = WIDTHS[check_preset(preset)]
    options, option = [], layout
    while option is not None:
        form = fitted(without_empty(option), preset=preset)
        if any(estimated_width(form, blocks) > width.limit_pt for blocks in panels(form, limit_pt=width.limit_pt)):
            form = fitted(without_empty(_cut_words(option)), preset=preset)  # header words whole cost the page
        options.append(form)
        option = option.narrow

    return min(options, key=lambda option: _cost(option, preset=preset))


def _cut_words(layout: Layout) -> Layout:
    """``layout`` with every header word cut between letters where its column is narrower (as before whole words)."""
    return replace(layout, keys=[replace(c, whole=0.0) for c in layout.keys],
                   blocks=[replace(b, columns=[replace(c, whole=0.0) for c in b.columns]) for b in layout.blocks])


def without_empty(layout: Layout) -> Layout:
    """``layout`` without the block columns whose every cell is missing (a block left empty goes too; one column
    stays when every column is empty)."""
    blocks = [Block(b.title, [c for c in b.columns if any(cell not in (MISSING, formatting.MISSING, "")
                                                           for cell in c.cells)])
              for b in layout.blocks]
    kept = [b for b in blocks if b.columns]
    if not kept:
        return layout
    return replace(layout, blocks=kept)


# --- heights ------------------------------------------------------------------------------------------------------

def _row_lines(layout: Layout, columns: Sequence[Column], row: int) -> int:
    return max((len(cell_lines(c, c.cells[row])) for c in columns), default=1)


def _heading_lines(layout: Layout, row: int, *, continued: bool = False) -> int:
    text = layout.sections.get(row, "") + (f" ({CONTINUED})" if continued else "")
    return len(wrap(text, layout.heading_wrap)) if layout.heading_wrap else 1


def panel_height(layout: Layout, blocks: Sequence[Block], rows: range | None = None, *,
                 preset: str = DEFAULT_PRESET) -> float:
    """The estimated height in pt of one panel holding ``blocks`` and the rows ``rows`` (default all) at
    ``preset``: rules, the spanning titles, the header, the section headings (one repeated at a part's first row)
    and the rows."""
    line = WIDTHS[check_preset(preset)].line_pt
    rows = range(layout.n_rows) if rows is None else rows
    columns = [*layout.keys, *(c for b in blocks for c in b.columns)]
    height = TOPRULE_PT + MIDRULE_PT + BOTTOMRULE_PT
    titles = [len(title_lines(b)) for b in blocks if b.title]
    if titles:
        height += max(titles) * line + CMIDRULE_PT
    height += max(len(header_lines(c)) for c in columns) * line
    for row in rows:
        section = row if row in layout.sections else (_section_of(layout, row) if row == rows.start else None)
        if section is not None:
            height += (_heading_lines(layout, section, continued=section != row) * line
                       + (ADDSPACE_PT if row != rows.start else 0.0))
        height += _row_lines(layout, columns, row) * line
    return height * HEIGHT_MARGIN


def caption_height(text: str, *, preset: str) -> float:
    """The estimated height in pt of a caption ("Table 12: " and ``text``) at ``preset``'s width."""
    width = WIDTHS[check_preset(preset)]
    lines = wrap("Table 12: " + text, width.limit_pt / ESTIMATE_MARGIN * 0.97)
    return (CAPTION_SKIP_PT + len(lines) * width.line_pt) * HEIGHT_MARGIN


def estimated_height(layout: Layout, packed: Sequence[Sequence[Block]], *, preset: str,
                     rows: range | None = None, caption: str | None = None) -> float:
    """The estimated height in pt of one float: the panels ``packed`` over ``rows``, the gaps and the caption."""
    panels_pt = [panel_height(layout, blocks, rows, preset=preset) for blocks in packed]
    text = layout.caption if caption is None else caption
    return sum(panels_pt) + PANEL_GAP_PT * (len(panels_pt) - 1) + caption_height(text, preset=preset)


def _section_of(layout: Layout, row: int) -> int | None:
    """The row whose section heading ``row`` falls under (None: no section)."""
    starts = [r for r in layout.sections if r <= row]
    return max(starts) if starts else None


class _Heights:
    """Float heights of ``packed`` over row ranges from prefix sums of each panel's row heights (as
    :func:`estimated_height` computes them, in constant time per range)."""

    def __init__(self, layout: Layout, packed: Sequence[Sequence[Block]], *, preset: str) -> None:
        self.layout, self.packed, self.preset = layout, [list(b) for b in packed], preset
        self.line = WIDTHS[check_preset(preset)].line_pt
        self.fixed, self.prefix, self.captions = [], [], {}
        for blocks in self.packed:
            columns = [*layout.keys, *(c for b in blocks for c in b.columns)]
            self.fixed.append(panel_height(layout, blocks, range(0, 0), preset=preset))
            sums = [0.0]
            for row in range(layout.n_rows):
                heading = (_heading_lines(layout, row) * self.line + ADDSPACE_PT) if row in layout.sections else 0.0
                sums.append(sums[-1] + (heading + _row_lines(layout, columns, row) * self.line) * HEIGHT_MARGIN)
            self.prefix.append(sums)

    def height(self, panels: Sequence[int], start: int, end: int, caption: str) -> float:
        section = _section_of(self.layout, start)
        if start in self.layout.sections:
            first = -ADDSPACE_PT  # the first row's own heading: no space above it
        else:
            first = (_heading_lines(self.layout, section, continued=True) * self.line
                     if section is not None else 0.0)
        total = sum(self.fixed[p] + self.prefix[p][end] - self.prefix[p][start] + first * HEIGHT_MARGIN
                    for p in panels)
        if caption not in self.captions:
            self.captions[caption] = caption_height(caption, preset=self.preset)
        return total + PANEL_GAP_PT * (len(panels) - 1) + self.captions[caption]


def _split(fits: Callable[[int, int], bool], n: int, ends: Sequence[int] | None) -> list[int]:
    """Greedy: the ends of consecutive row ranges, each as long as ``fits`` allows (a longer range is never
    shorter), ending at one of ``ends`` (None: anywhere) where one fits, else anywhere (at least one row each)."""
    out, start = [], 0
    while start < n:
        end = start + 1
        while end < n and fits(start, end + 1):
            end += 1
        if ends is not None and end < n:
            allowed = [e for e in ends if start < e <= end]
            end = max(allowed) if allowed else end
        out.append(end)
        start = end
    return out


def parts(layout: Layout, packed: Sequence[Sequence[Block]], *, preset: str) -> list[list[tuple[list[Block], range]]]:
    """``packed`` (the panels) split into the fewest floats no taller than the text height (:data:`PAGE_SHARE` of
    it), each a list of (panel, rows). Either the rows are split, every float holding all panels of its rows, or
    the panels are (consecutive panels of all rows in one float, a panel too tall alone split by rows); the fewer
    floats win, ties keep rows together. Rows are shared out evenly, broken between sections where that needs no
    more floats, else anywhere (the section heading repeated with "continued")."""
    limit = WIDTHS[check_preset(preset)].height_pt * PAGE_SHARE
    n = layout.n_rows
    if estimated_height(layout, packed, preset=preset) <= limit or n <= 1:
        return [[(list(blocks), range(n)) for blocks in packed]]
    heights = _Heights(layout, packed, preset=preset)
    later = continued_caption(layout)
    every = list(range(len(packed)))

    def by_rows(group: list[int], first: bool) -> list[list[tuple[list[Block], range]]]:
        def fits_under(cap: float) -> Callable[[int, int], bool]:
            return lambda a, b: heights.height(group, a, b, layout.caption if first and a == 0 else later) <= cap

        section_ends = sorted({*(r for r in layout.sections if r > 0), n})
        anywhere = _split(fits_under(limit), n, None)
        aligned = _split(fits_under(limit), n, section_ends)
        allowed = section_ends if len(aligned) <= len(anywhere) else None
        count = min(len(aligned), len(anywhere))
        low, high = 0.0, limit  # the lowest cap that still needs no more floats: the rows shared out evenly
        for _ in range(24):
            middle = (low + high) / 2
            if len(_split(fits_under(middle), n, allowed)) <= count:
                high = middle
            else:
                low = middle
        out, start = [], 0
        for end in _split(fits_under(high), n, allowed):
            out.append([(heights.packed[p], range(start, end)) for p in group])
            start = end
        return out

    options = []
    if heights.height(every, 0, 1, layout.caption) <= limit:
        options.append(by_rows(every, True))
    groups: list[list[int]] = []
    for p in every:
        if groups and heights.height(groups[-1] + [p], 0, n, layout.caption if len(groups) == 1 else later) <= limit:
            groups[-1].append(p)
        else:
            groups.append([p])
    by_panels: list[list[tuple[list[Block], range]]] = []
    for group in groups:
        caption = layout.caption if not by_panels else later
        if heights.height(group, 0, n, caption) <= limit:
            by_panels.append([(heights.packed[p], range(n)) for p in group])
        else:
            by_panels += by_rows(group, not by_panels)
    options.append(by_panels)
    return min(options, key=len)


def caption_text(text: str) -> str:
    """A caption escaped, with a break allowed after ``/`` and ``_`` (a corpus path or a test set's name is one long
    word, which would stick out of a column)."""
    return escape(text).replace("/", r"/\allowbreak{}").replace(r"\_", r"\_\allowbreak{}")


def fitted(layout: Layout, *, preset: str) -> Layout:
    """``layout`` for ``preset``: a text column too wide to stand beside the row labels is broken into lines; its
    text row labels as they fit best: unbroken, or broken into lines (never narrower than their longest unbreakable
    piece) so that more columns fit beside them — all of them, or at least :data:`KEY_SHARE` of the width each —
    whichever needs the fewest floats, then panels (ties: unbroken); when the row labels and the widest column do
    not fit together they are always broken (to at least :data:`KEY_SHARE` of the width each). Section headings
    break at 60 % of the width."""
    limit = WIDTHS[check_preset(preset)].limit_pt
    narrowest_keys = sum(min(_column_width(c), KEY_SHARE * limit + 2 * TABCOLSEP_PT) if c.align == "l"
                         else _column_width(c) for c in layout.keys)
    room = max(MIN_HEADER_PT, limit - narrowest_keys - 2 * TABCOLSEP_PT)  # a text column beside the row labels
    layout = replace(layout, blocks=[replace(b, columns=[replace(c, wrap=room) if c.align == "l" and
                                                         _column_width(c) > room + 2 * TABCOLSEP_PT else c
                                                         for c in b.columns]) for b in layout.blocks])
    plain = replace(layout, heading_wrap=0.6 * limit)
    text = [c for c in layout.keys if c.align == "l"]
    if not text:
        return plain
    widest = max((_column_width(c) for b in layout.blocks for c in b.columns), default=0.0)
    keys = sum(_column_width(c) for c in layout.keys)
    others = sum(_column_width(c) for c in layout.keys if c.align != "l")
    pieces = max(text_width(piece.rstrip()) for c in text for cell in [*c.cells, c.header]
                 for line in str(cell).split("\n") for piece in re.split(r"(?<=[ _/-])", line) or [""])

    def broken(each: float) -> Layout:
        return replace(plain, keys=[replace(c, wrap=each) if c.align == "l" else c for c in layout.keys])

    forced = max(KEY_SHARE * limit, (limit - widest - others) / len(text) - 2 * TABCOLSEP_PT)
    all_blocks = (limit - sum(_block_width(b) for b in layout.blocks) - others) / len(text) - 2 * TABCOLSEP_PT
    options = ([plain] if keys + widest <= limit else [broken(forced)]) + [
        broken(each) for each in sorted({all_blocks, KEY_SHARE * limit, pieces}, reverse=True)
        if each >= pieces and sum(_column_width(c) for c in broken(each).keys) + widest <= limit]

    return min(options, key=lambda option: _cost(option, preset=preset))


def _cost(layout: Layout, *, preset: str) -> tuple[int, int]:
    """How a layout reads at ``preset``, smaller first: its floats (:func:`parts`), then its panels."""
    packed = panels(layout, limit_pt=WIDTHS[preset].limit_pt)
    return len(parts(layout, packed, preset=preset)), len(packed)


def check_preset(preset: str) -> str:
    if preset not in WIDTHS:
        raise unknown("table preset", preset, WIDTHS)
    return preset
