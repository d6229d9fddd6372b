r"""The LaTeX renderer of :mod:`toolkit.outputs`: the papers' tables as booktabs tables a reviewer accepts. Pure:
frames in, TeX text out (:func:`toolkit.outputs.runs.export_latex` writes the files).

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

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from toolkit import formatting
from toolkit.errors import InputError, SchemaError, unknown

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
    """A page geometry a table is rendered for: the environment, the length it must fit and its size in pt."""

    preset: str
    environment: str
    length: str
    limit_pt: float


WIDTHS: dict[str, Width] = {w.preset: w for w in (
    Width("acl-single", "table", r"\columnwidth", 219.08),    # acl.sty: 7.7 cm column
    Width("acl-double", "table*", r"\textwidth", 455.24),     # 16 cm text width
    Width("acm-single", "table", r"\columnwidth", 241.14),    # acmart sigconf
    Width("acm-double", "table*", r"\textwidth", 506.295),
)}
DEFAULT_PRESET = "acl-double"  # as the figures' default preset
FONT = r"\small"
FONT_PT = 10.0  # \small in ACL's 11 pt article (the largest body among the presets)
TABCOLSEP_PT = 4.0
ESTIMATE_MARGIN = 1.03  # estimated text widths are scaled up by this (kerning, T1 vs OT1 glyphs)
PANEL_GAP = r"\par\medskip"

# Computer Modern Roman glyph widths at 10 pt (cmr10.tfm, rounded up); others count as an em (10 pt).
_GLYPH = {**{c: 5.0 for c in "0123456789"}, " ": 3.34, ".": 2.78, ",": 2.78, ":": 2.78, ";": 2.78, "'": 2.78,
          "(": 3.89, ")": 3.89, "[": 2.78, "]": 2.78, "-": 3.34, "/": 5.0, "%": 8.34, "+": 7.78, "=": 7.78,
          "<": 7.78, ">": 7.78, "−": 7.78, "–": 5.0, "—": 10.0, "±": 7.78, "≈": 7.78, "≠": 7.78, "×": 7.78,
          "Δ": 8.34, "θ": 4.7, "κ": 5.8, "↑": 5.0, "↓": 5.0, "#": 8.34, "&": 7.78, "?": 4.73, "!": 2.78,
          "*": 5.0, "_": 5.0, "|": 2.78, "i": 2.78, "l": 2.78, "j": 3.06, "f": 3.06, "t": 3.89, "r": 3.92,
          "s": 3.95, "c": 4.45, "e": 4.45, "a": 5.0, "z": 4.45, "v": 5.28, "x": 5.28, "y": 5.28, "k": 5.28,
          "b": 5.56, "d": 5.56, "g": 5.0, "h": 5.56, "n": 5.56, "o": 5.0, "p": 5.56, "q": 5.28, "u": 5.56,
          "m": 8.34, "w": 7.23, "I": 3.62, "J": 5.14, "M": 9.17, "W": 10.28}


def text_width(text: str, *, size_pt: float = FONT_PT, bold: bool = False, italic: bool = False) -> float:
    """Estimated width in pt of one line of plain ``text`` in Computer Modern at ``size_pt`` (cmr10 widths,
    uppercase 7.5 pt, anything else an em; bold and italic 10 % wider)."""
    total = sum(_GLYPH.get(ch, 7.5 if ch.isupper() else 10.0) for ch in unicodedata.normalize("NFC", str(text)))
    return total * size_pt / 10.0 * (1.1 if bold or italic else 1.0) * ESTIMATE_MARGIN


# --- the table model ----------------------------------------------------------------------------------------------

@dataclass
class Column:
    """One column: its header (lines separated by ``\\n``), ``l``/``r`` alignment and plain-text cells."""

    header: str
    cells: list[str]
    align: str = "r"
    wrap: float = 0.0  # > 0: body cells broken into lines at this width (pt)


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

    @property
    def n_rows(self) -> int:
        return len((self.keys or self.blocks[0].columns)[0].cells)


MIN_HEADER_PT = 40.0  # a header is broken into lines down to this width (or its cells' width, when wider)
KEY_SHARE = 0.3  # row labels that must break keep at least this share of the page width


def wrap(text: str, target: float) -> list[str]:
    """``text`` (lines separated by ``\n``) with every line wider than ``target`` pt broken after spaces, ``_``,
    ``-`` and ``/`` (a piece without such a break stays whole)."""
    out: list[str] = []
    for line in str(text).split("\n"):
        current = ""
        for piece in (p for p in re.split(r"(?<=[ _/-])", line) if p):
            if current and text_width((current + piece).rstrip()) > target:
                out.append(current.rstrip())
                current = piece
            else:
                current += piece
        out.append(current.rstrip())
    return out


def cell_lines(column: Column, text: str) -> list[str]:
    """The lines of one body cell: broken only in a column with a ``wrap`` width (row labels)."""
    return wrap(text, column.wrap) if column.wrap else [text]


def _cells_width(column: Column) -> float:
    return max((text_width(line) for c in column.cells for line in cell_lines(column, c)), default=0.0)


def header_lines(column: Column) -> list[str]:
    """The header's lines: its own ``\n`` breaks, and a line wider than the column's cells (at least
    :data:`MIN_HEADER_PT`) broken after spaces, ``_``, ``-`` and ``/``."""
    return wrap(column.header, max(MIN_HEADER_PT, _cells_width(column)))


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


def _panel(layout: Layout, blocks: Sequence[Block]) -> list[str]:
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
    for row in range(layout.n_rows):
        if row in layout.sections:
            if row:
                lines.append(r"\addlinespace")
            heading = wrap(layout.sections[row], layout.heading_wrap) if layout.heading_wrap else [
                layout.sections[row]]
            lines.append(rf"\multicolumn{{{n}}}{{@{{}}l}}{{\itshape {_lines_cell(heading, 'l', 't')}}} \\")
        lines.append(" & ".join(_lines_cell(cell_lines(c, c.cells[row]), c.align, "t") for c in columns) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return lines


def render(layout: Layout, *, preset: str = DEFAULT_PRESET) -> str:
    """``layout`` as a LaTeX float for ``preset`` (:data:`WIDTHS`): ``table`` or ``table*``, ``\\small``, the
    blocks side by side where they fit the preset's width, else stacked as panels; caption and label below."""
    width = WIDTHS[check_preset(preset)]
    layout = fitted(layout, preset=preset)
    packed = panels(layout, limit_pt=width.limit_pt)
    lines = [rf"\begin{{{width.environment}}}[t]", r"\centering", FONT,
             rf"\setlength{{\tabcolsep}}{{{TABCOLSEP_PT:g}pt}}"]
    for position, blocks in enumerate(packed):
        if position:
            lines.append(PANEL_GAP)
        lines += _panel(layout, blocks)
    lines += [rf"\caption{{{caption_text(layout.caption)}}}", rf"\label{{{layout.label}}}",
              rf"\end{{{width.environment}}}"]
    return "\n".join(lines) + "\n"


def caption_text(text: str) -> str:
    """A caption escaped, with a break allowed after ``/`` and ``_`` (a corpus path or a test set's name is one long
    word, which would stick out of a column)."""
    return escape(text).replace("/", r"/\allowbreak{}").replace(r"\_", r"\_\allowbreak{}")


def fitted(layout: Layout, *, preset: str) -> Layout:
    """``layout`` for ``preset``: when the row labels and the widest column do not fit its width together, the
    text row labels are broken into lines (at least :data:`KEY_SHARE` of the width each); section headings break at
    60 % of the width."""
    limit = WIDTHS[check_preset(preset)].limit_pt
    widest = max((_column_width(c) for b in layout.blocks for c in b.columns), default=0.0)
    keys = sum(_column_width(c) for c in layout.keys)
    text = [c for c in layout.keys if c.align == "l"]
    if keys + widest <= limit or not text:
        return replace(layout, heading_wrap=0.6 * limit)
    others = sum(_column_width(c) for c in layout.keys if c.align != "l")
    each = max(KEY_SHARE * limit, (limit - widest - others) / len(text) - 2 * TABCOLSEP_PT)
    return replace(layout, keys=[replace(c, wrap=each) if c.align == "l" else c for c in layout.keys],
                   heading_wrap=0.6 * limit)


def check_preset(preset: str) -> str:
    if preset not in WIDTHS:
        raise unknown("table preset", preset, WIDTHS)
    return preset


# --- building layouts from frames ---------------------------------------------------------------------------------

def _numbers(series: pd.Series, *, p_value: bool = False, decimals: int | None = None, rate: bool = False
             ) -> list[str]:
    """Cells of a numeric column at one precision (``rate``: a rate or estimate, never printed as a count)."""
    values = pd.to_numeric(series, errors="coerce")
    places = formatting.column_decimals(values, counts=not rate) if decimals is None else decimals
    whole = not rate and (pd.api.types.is_integer_dtype(series.dtype) or places == 0)
    out = []
    for value in values:
        if formatting.is_missing(value):
            out.append(formatting.MISSING)
        elif whole and not p_value and float(value).is_integer():
            out.append(formatting.format_number(int(value)))
        else:
            out.append(formatting.format_number(float(value), decimals=places, p_value=p_value))
    return out


def _estimates(frame: pd.DataFrame, est: str, low: str, high: str) -> list[str]:
    """``est. [low, high]`` cells at one precision (that of the three columns together)."""
    places = formatting.column_decimals(pd.concat([pd.to_numeric(frame[c], errors="coerce")
                                                   for c in (est, low, high)]), counts=False)
    return [formatting.format_estimate(e, lo, hi, decimals=places)
            for e, lo, hi in zip(frame[est], frame[low], frame[high])]


def _intervals(frame: pd.DataFrame, low: str, high: str) -> list[str]:
    places = formatting.column_decimals(pd.concat([pd.to_numeric(frame[c], errors="coerce") for c in (low, high)]),
                                        counts=False)
    return [formatting.format_interval(lo, hi, decimals=places) for lo, hi in zip(frame[low], frame[high])]


def verdict_label(verdict: object, *, a: str = "a", b: str = "b") -> str:
    """The short form of a :func:`toolkit.stats.verdict` for a table cell: ``a>b`` / ``a<b`` (with the groups'
    names), ``equiv.`` (equivalent within the margin), ``small`` (different but within it), ``?`` (inconclusive),
    ``same`` (identical scores); missing as the missing mark."""
    text = "" if formatting.is_missing(verdict) else str(verdict)
    if not text:
        return formatting.MISSING
    return ("{a}>{b}" if text == "a higher" else "{a}<{b}" if text == "b higher" else
            "equiv." if text.startswith("equivalent") else "small" if text.startswith("different but") else
            "?" if text == "inconclusive" else "same" if text.startswith("identical") else text).format(a=a, b=b)


VERDICT_NOTE = ("verdict: a>b or a<b significant, equiv. = equivalent within the margin, small = different but "
                "within it, ? = inconclusive")


def _texts(series: pd.Series) -> list[str]:
    return [formatting.MISSING if formatting.is_missing(v) else str(v) for v in series]


def _labels(series: pd.Series, within: pd.Series | None = None) -> list[str]:
    """Short model labels, unique among the rows of each value of ``within`` (a task's block: the ``ait:`` systems
    of five tasks share their short names)."""
    groups = within.astype(str) if within is not None else pd.Series("", index=series.index)
    labels = {}
    for group in dict.fromkeys(groups):
        specs = [str(v) for v, g in zip(series, groups) if g == group]
        labels.update({(group, spec): label for spec, label in formatting.short_labels(specs).items()})
    return [labels[(g, str(v))] for v, g in zip(series, groups)]


def _numeric(frame: pd.DataFrame) -> pd.DataFrame:
    """A table read back from CSV (empty cells as ""): text columns whose non-empty cells are all numbers become
    numeric, their empty cells NaN."""
    out = frame.copy()
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        if not (column.dtype == object or pd.api.types.is_string_dtype(column.dtype)):
            continue
        text = column.astype(str).str.strip()
        filled = column[text != ""]
        converted = pd.to_numeric(filled, errors="coerce")
        if len(filled) and converted.notna().all() and not text[text != ""].str.match(r"^[+-]?0\d").any():
            out.isetitem(position, pd.to_numeric(column.where(text != ""), errors="coerce"))
        elif not len(filled) and len(column):
            out.isetitem(position, pd.Series(float("nan"), index=column.index))
    return out


def _sections(frame: pd.DataFrame, column: str | None, *, label: Callable[[object], str] = str
              ) -> dict[int, str]:
    """A heading at each row where ``column`` changes (none when it holds one value: the caption names it)."""
    if column is None or column not in frame.columns or frame[column].nunique(dropna=False) <= 1:
        return {}
    out, previous = {}, object()
    for position, value in enumerate(frame[column]):
        if value != previous:
            out[position] = label(value)
        previous = value
    return out


def _only(frame: pd.DataFrame, column: str) -> str:
    values = list(dict.fromkeys(str(v) for v in frame[column])) if column in frame.columns else []
    return values[0] if len(values) == 1 else ""


def _require(frame: pd.DataFrame, columns: Sequence[str], *, name: str, source: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise SchemaError(f"{name} is drawn from {source}, but the table given lacks "
                          f"{', '.join(map(repr, missing))}.", fix=f"pass the {source} table of a run.")


def _has(frame: pd.DataFrame, *columns: str) -> bool:
    return all(c in frame.columns for c in columns) and frame[list(columns)].notna().any().any()


def _order(frame: pd.DataFrame, column: str, order: Sequence[str]) -> pd.DataFrame:
    rank = {v: i for i, v in enumerate(order)}
    return frame.assign(_o=frame[column].map(lambda v: rank.get(v, len(rank)))).sort_values(
        "_o", kind="stable").drop(columns="_o")


# --- the papers' tables -------------------------------------------------------------------------------------------

_EEC = "Kiritchenko & Mohammad 2018"
_EEC_TABLES = {"5": ("Table 5", "gender", "all", "F", "M", "gender, all sentences"),
               "6": ("Table 6", "gender", "neutral", "F", "M", "gender, sentences without an emotion word"),
               "7": ("Table 7", "race", "all", "AA", "EA", "race, all sentences")}
_TASKS = ("anger", "fear", "joy", "sadness", "valence")


def _eec_summary(number: str) -> Callable[..., Layout]:
    table, _, _, a, b, what = _EEC_TABLES[number]

    def build(frame: pd.DataFrame, **_: object) -> Layout:
        name = f"eec_table{number}"
        _require(frame, ("table", "task", "direction", "n_systems", "avg_diff_a_higher", "avg_diff_a_lower"),
                 name=name, source="eec_summary")
        rows = _order(frame[frame["table"].astype(str) == table], "task", _TASKS).reset_index(drop=True)
        up, down = f"{a}↑–{b}↓", f"{a}↓–{b}↑"
        blocks = [Block("Avg. score diff.", [Column(up, _numbers(rows["avg_diff_a_higher"], rate=True)),
                                             Column(down, _numbers(rows["avg_diff_a_lower"], rate=True))])]
        cis = [(c, h) for c, h in (("avg_diff_a_higher", up), ("avg_diff_a_lower", down))
               if _has(rows, f"{c}_low", f"{c}_high")]
        if cis:
            blocks.append(Block("Added: 95% CI", [Column(h, _intervals(rows, f"{c}_low", f"{c}_high"))
                                                  for c, h in cis]))
        task = _only(rows, "task")
        return Layout(
            keys=[Column("Bias group", _texts(rows["direction"]), "l"),
                  Column("#Sys.", _numbers(rows["n_systems"]))],
            blocks=blocks, sections=_sections(rows, "task", label=lambda t: f"{str(t).capitalize()}"),
            label=f"tab:{name.replace('_', '-')}",
            caption=f"EEC ({what}{', ' + task if task else ''}): systems per bias group and their average score "
                    f"difference ({_EEC}, {table}); scores are valence or intensity in [0, 1]."
                    + (" Added: the 95% interval over systems (none for fewer than two)." if cis else ""))
    return build


def _eec_systems(number: str) -> Callable[..., Layout]:
    table, attribute, subset, a, b, what = _EEC_TABLES[number]

    def build(frame: pd.DataFrame, **_: object) -> Layout:
        name = f"eec_table{number}_systems"
        _require(frame, ("model", "task", "attribute", "subset", "n_pairs", "mean_diff", "p_bonferroni"),
                 name=name, source="eec_tests")
        rows = frame[(frame["attribute"].astype(str) == attribute) & (frame["subset"].astype(str) == subset)]
        rows = _order(rows, "task", _TASKS).reset_index(drop=True)
        blocks = [Block("Paper", [Column("n", _numbers(rows["n_pairs"])),
                                  Column(f"mean Δ\n{a}−{b}", _numbers(rows["mean_diff"], rate=True)),
                                  Column("p Bonf.", _numbers(rows["p_bonferroni"], p_value=True, decimals=3))])]
        added = _has(rows, "estimate", "ci_low", "ci_high")
        if added:
            columns = [Column("est. [95% CI]", _estimates(rows, "estimate", "ci_low", "ci_high"))]
            if _has(rows, "verdict"):
                columns.append(Column("verdict", [verdict_label(v, a=a, b=b) for v in rows["verdict"]], "l"))
            blocks.append(Block("Added", columns))
        task = _only(rows, "task")
        return Layout(
            keys=[Column("System", _labels(rows["model"], rows["task"]), "l")], blocks=blocks,
            sections=_sections(rows, "task", label=lambda t: str(t).capitalize()),
            label=f"tab:{name.replace('_', '-')}",
            caption=f"EEC ({what}{', ' + task if task else ''}), per system: paired t-test over n sentence pairs "
                    f"with Bonferroni p, as in {_EEC}, {table}"
                    + (f". Added: the mean Δ = {a} − {b} with templates and names as samples, its 95% interval "
                       f"simultaneous over the family, and the verdict ({VERDICT_NOTE.removeprefix('verdict: ')})."
                       if added else "."))
    return build


def _psa_table2(frame: pd.DataFrame, **_: object) -> Layout:
    _require(frame, ("model", "corpus", "n_texts", "score_dev", "score_range"), name="psa_table2",
             source="psa_summary")
    rows = frame.sort_values("corpus", kind="stable").reset_index(drop=True)
    blocks = [Block("Paper", [Column("ScoreDev", _numbers(rows["score_dev"], rate=True)),
                              Column("ScoreRange", _numbers(rows["score_range"], rate=True))])]
    added = [(c, h) for c, h in (("score_dev", "ScoreDev"), ("score_range", "ScoreRange"))
             if _has(rows, f"{c}_low", f"{c}_high")]
    if added:
        blocks.append(Block("Added: 95% CI", [Column(h, _intervals(rows, f"{c}_low", f"{c}_high"))
                                              for c, h in added]))
    corpus = _only(rows, "corpus")
    n = _only(rows, "n_texts")
    return Layout(
        keys=[Column("Model", _labels(rows["model"]), "l")], blocks=blocks, sections=_sections(rows, "corpus"),
        label="tab:psa-table2",
        caption="PSA: ScoreDev and ScoreRange per model (Prabhakaran et al. 2019, Table 2)"
                + (f" on {corpus}" if corpus else "") + (f", {n} sentences" if n else "")
                + "; valence in [0, 1], half the paper's [−1, 1] scale."
                + (" Added: 95% bootstrap intervals over sentences." if added else ""))


def _psa_gender(frame: pd.DataFrame, **_: object) -> Layout:
    _require(frame, ("model", "corpus", "n_texts", "n_pairs", "estimate", "ci_low", "ci_high", "p_adjusted",
                     "verdict"), name="psa_gender_gap", source="psa_gender")
    rows = frame.sort_values("corpus", kind="stable").reset_index(drop=True)
    a = _only(rows, "a") or "female"
    b = _only(rows, "b") or "male"
    columns = [Column("est. [95% CI]", _estimates(rows, "estimate", "ci_low", "ci_high"))]
    if _has(rows, "null_low", "null_high"):
        columns.append(Column("null range", _intervals(rows, "null_low", "null_high")))
    columns += [Column("p adj.", _numbers(rows["p_adjusted"], p_value=True, decimals=3)),
                Column("verdict", [verdict_label(v, a="F", b="M") for v in rows["verdict"]], "l")]
    corpus = _only(rows, "corpus")
    return Layout(
        keys=[Column("Model", _labels(rows["model"]), "l"), Column("pairs", _numbers(rows["n_pairs"]))],
        blocks=[Block("", columns)], sections=_sections(rows, "corpus"), label="tab:psa-gender-gap",
        caption=f"PSA, beyond the paper: mean score with {a} names − with {b} names"
                + (f" on {corpus}" if corpus else "")
                + ", its two-way bootstrap interval (sentences and name pairs as samples), the placebo null's "
                  f"range, corrected p and the verdict ({VERDICT_NOTE.removeprefix('verdict: ')}; F = {a}, "
                  f"M = {b}).")


def _biasfinder_table4(frame: pd.DataFrame, **_: object) -> Layout:
    _require(frame, ("model", "attribute", "templates", "mutants", "templates_with_btc", "btcs"),
             name="biasfinder_table4", source="biasfinder_table4")
    rows = frame.copy()
    rows["_label"] = _labels(rows["model"])
    rows = rows.sort_values("_label", kind="stable").reset_index(drop=True)
    blocks = [Block("Paper", [Column("templ.", _numbers(rows["templates"])),
                              Column("mutants", _numbers(rows["mutants"])),
                              Column("templ.\nw/ BTC", _numbers(rows["templates_with_btc"])),
                              Column("BTCs", _numbers(rows["btcs"]))])]
    columns = []
    if _has(rows, "btc_rate", "btc_rate_low", "btc_rate_high"):
        columns.append(Column("BTC rate [95% CI]", _estimates(rows, "btc_rate", "btc_rate_low", "btc_rate_high")))
    elif _has(rows, "btc_rate"):
        columns.append(Column("BTC rate", _numbers(rows["btc_rate"], rate=True)))
    if _has(rows, "null_rate"):
        columns.append(Column("null", _numbers(rows["null_rate"], rate=True)))
    if _has(rows, "excess", "excess_low", "excess_high"):
        columns.append(Column("excess [95% CI]", _estimates(rows, "excess", "excess_low", "excess_high")))
    if _has(rows, "verdict"):
        columns.append(Column("verdict", [verdict_label(v, a="b", b="w") for v in rows["verdict"]], "l"))
    if columns:
        blocks.append(Block("Added", columns))
    model = _only(rows, "_label")
    return Layout(
        keys=[Column("Charact.", _texts(rows["attribute"]), "l")], blocks=blocks,
        sections=_sections(rows, "_label"), label="tab:biasfinder-table4",
        caption="BiasFinder: templates, mutants, templates with a bias-uncovering test case (BTC) and BTCs per "
                "characteristic" + (f" for {model}" if model else " and model")
                + " (Asyrofi et al. 2021, Table 4)."
                + (" Added: the BTC rate between classes with its 95% interval, the within-class null rate, the "
                   "excess over it and the verdict (b>w: between-class pairs flip more; "
                   + VERDICT_NOTE.removeprefix("verdict: a>b or a<b significant, ") + ")." if columns else ""))


def _biasfinder_table5(frame: pd.DataFrame, **_: object) -> Layout:
    _require(frame, ("annotator", "n_btcs", "tpr"), name="biasfinder_table5", source="biasfinder_tpr")
    rows = frame.reset_index(drop=True)
    paper = [Column("BTCs", _numbers(rows["n_btcs"]))]
    if _has(rows, "true_positives"):
        paper.append(Column("true pos.", _numbers(rows["true_positives"])))
    paper.append(Column("TPR", _numbers(rows["tpr"], rate=True)))
    blocks = [Block("Paper", paper)]
    if _has(rows, "tpr_low", "tpr_high"):
        blocks.append(Block("Added", [Column("95% CI", _intervals(rows, "tpr_low", "tpr_high"))]))
    rule = _only(rows, "rule")
    keys = [Column("Annotator", _texts(rows["annotator"]), "l")]
    if "rule" in rows.columns and not rule:
        keys.append(Column("rule", _texts(rows["rule"]), "l"))
    return Layout(keys=keys, blocks=blocks, label="tab:biasfinder-table5",
                  caption="BiasFinder: true-positive rate of the annotated BTCs per annotator (Asyrofi et al. 2021, "
                          "Table 5)" + (f", {rule} rule" if rule else "")
                          + (". Added: the 95% Wilson interval." if len(blocks) > 1 else "."))


def _theta(frame: pd.DataFrame, settings: Mapping | None) -> float | None:
    values = sorted(set(pd.to_numeric(frame["theta"], errors="coerce").dropna()))
    wanted = (settings or {}).get("theta")
    if wanted is not None and any(abs(v - float(wanted)) < 1e-9 for v in values):
        return float(wanted)
    return 0.2 if any(abs(v - 0.2) < 1e-9 for v in values) else (values[0] if values else None)


def _at_theta(frame: pd.DataFrame, theta: float | None) -> pd.DataFrame:
    if theta is None:
        return frame
    return frame[(pd.to_numeric(frame["theta"], errors="coerce") - theta).abs() < 1e-9]


def _pivot_cells(rows: pd.DataFrame, *, index: str, columns: str, cell: Callable[[pd.Series], str],
                 index_order: Sequence[str], column_order: Sequence[str]) -> list[Column]:
    cells = {(r[index], r[columns]): cell(r) for _, r in rows.iterrows()}
    return [Column(str(c), [cells.get((i, c), formatting.MISSING) for i in index_order]) for c in column_order]


def _btcsam_table2(frame: pd.DataFrame, *, settings: Mapping | None = None, **_: object) -> Layout:
    _require(frame, ("test_set", "bias_type", "theta", "detection_probability"), name="btcsam_table2",
             source="btcsam_detection")
    theta = _theta(frame, settings)
    rows = _at_theta(frame, theta).reset_index(drop=True)
    types = list(dict.fromkeys(rows["bias_type"].astype(str)))
    sets = list(dict.fromkeys(rows["test_set"].astype(str)))
    rows = rows.assign(bias_type=rows["bias_type"].astype(str), test_set=rows["test_set"].astype(str))
    places = formatting.column_decimals(rows["detection_probability"], counts=False)
    paper = _pivot_cells(rows, index="bias_type", columns="test_set", index_order=types, column_order=sets,
                         cell=lambda r: formatting.format_number(r["detection_probability"], decimals=places))
    blocks = [Block("Detection probability", paper)]
    if _has(rows, "ci_low", "ci_high"):
        ci_places = formatting.column_decimals(pd.concat([rows["ci_low"], rows["ci_high"]]), counts=False)
        blocks.append(Block("Added: 95% Wilson CI", _pivot_cells(
            rows, index="bias_type", columns="test_set", index_order=types, column_order=sets,
            cell=lambda r: formatting.format_interval(r["ci_low"], r["ci_high"], decimals=ci_places))))
    models = _only(rows, "n_models")
    return Layout(keys=[Column("Bias type", types, "l")], blocks=blocks, label="tab:btcsam-table2",
                  caption=f"BTC-SAM: detection probability per bias type and test set at θ = {theta:g}, averaged "
                          f"over {models + ' ' if models else ''}models and cases (Kardkovács et al. 2025, Table 2)"
                          + (". Added: 95% Wilson intervals." if len(blocks) > 1 else "."))


_METRICS = (("unique_cases", "cases"), ("sentences", "sent."), ("unique_tokens", "unique\ntokens"),
            ("mean_chars", "chars/\nsent."), ("mean_tokens", "tokens/\nsent."), ("mean_word_len", "word\nlength"),
            ("identity_terms", "identity\nterms"), ("concept_terms", "concept\nterms"))


def _btcsam_table3(frame: pd.DataFrame, **_: object) -> Layout:
    _require(frame, ("test_set", *(c for c, _ in _METRICS)), name="btcsam_table3", source="btcsam_diversity")
    rows = frame.reset_index(drop=True)
    return Layout(keys=[Column("Test set", _texts(rows["test_set"]), "l")],
                  blocks=[Block("", [Column(h, _numbers(rows[c]))]) for c, h in _METRICS],
                  label="tab:btcsam-table3",
                  caption="BTC-SAM: diversity of each test set (Kardkovács et al. 2025, Table 3).")


def _btcsam_table4(frame: pd.DataFrame, **_: object) -> Layout:
    metrics = (*_METRICS, ("mean_edit_distance", "edit\ndistance"))
    _require(frame, ("test_set", "stage", *(c for c, _ in metrics)), name="btcsam_table4",
             source="btcsam_stage_diversity")
    rows = frame.sort_values("test_set", kind="stable").reset_index(drop=True)
    test_set = _only(rows, "test_set")
    return Layout(keys=[Column("Stage", _texts(rows["stage"]), "l")],
                  blocks=[Block("", [Column(h, _numbers(rows[c]))]) for c, h in metrics],
                  sections=_sections(rows, "test_set"), label="tab:btcsam-table4",
                  caption="BTC-SAM: diversity per generation stage" + (f" of {test_set}" if test_set else "")
                          + ", with the mean word-level edit distance to the source (Kardkovács et al. 2025, "
                            "Table 4).")


def _btcsam_table5(frame: pd.DataFrame, *, settings: Mapping | None = None, **_: object) -> Layout:
    _require(frame, ("model", "test_set", "bias_type", "theta", "failure_pct"), name="btcsam_table5",
             source="btcsam_failure_pct")
    theta = _theta(frame, settings)
    rows = _at_theta(frame, theta).copy()
    rows["_label"] = _labels(rows["model"])
    rows["bias_type"] = rows["bias_type"].astype(str)
    sets = list(dict.fromkeys(rows["test_set"].astype(str)))
    types = list(dict.fromkeys(rows["bias_type"]))
    sections, paper, added = {}, {t: [] for t in types}, {t: [] for t in types}
    labels: list[str] = []
    places = formatting.column_decimals(rows["failure_pct"], counts=False)
    has_excess = _has(rows, "excess_pct", "excess_low", "excess_high")
    ex_places = formatting.column_decimals(pd.concat([rows[c] for c in ("excess_pct", "excess_low", "excess_high")]),
                                           counts=False) if has_excess else 3
    for test_set in sets:
        block = rows[rows["test_set"].astype(str) == test_set]
        models = list(dict.fromkeys(block["_label"]))
        if len(sets) > 1:
            sections[len(labels)] = test_set
        labels += models
        for bias_type in types:
            cells = {r["_label"]: r for _, r in block[block["bias_type"] == bias_type].iterrows()}
            for model in models:
                r = cells.get(model)
                paper[bias_type].append(formatting.MISSING if r is None
                                        else formatting.format_number(r["failure_pct"], decimals=places))
                mark = "" if r is None or not has_excess else verdict_label(r.get("verdict"), a="x", b="s")
                added[bias_type].append(formatting.MISSING if r is None or not has_excess
                                        else formatting.format_estimate(r["excess_pct"], r["excess_low"],
                                                                        r["excess_high"], decimals=ex_places)
                                        + ("" if mark in ("?", formatting.MISSING) else f" {mark}"))
    blocks = [Block("Failure %", [Column(t, paper[t]) for t in types])]
    if _has(rows, "ci_low", "ci_high"):
        ci_places = formatting.column_decimals(pd.concat([rows["ci_low"], rows["ci_high"]]), counts=False)
        cis = {t: [] for t in types}
        for test_set in sets:
            block = rows[rows["test_set"].astype(str) == test_set]
            for bias_type in types:
                cells = {r["_label"]: r for _, r in block[block["bias_type"] == bias_type].iterrows()}
                for model in dict.fromkeys(block["_label"]):
                    r = cells.get(model)
                    cis[bias_type].append(formatting.MISSING if r is None else formatting.format_interval(
                        r["ci_low"], r["ci_high"], decimals=ci_places))
        blocks.append(Block("Added: 95% Wilson CI of failure %", [Column(t, cis[t]) for t in types]))
    if has_excess:
        blocks.append(Block("Added: excess, % [95% CI]", [Column(t, added[t]) for t in types]))
    reason = _only(rows, "no_test_reason") if "no_test_reason" in rows.columns else ""
    test_set = sets[0] if len(sets) == 1 else ""
    return Layout(keys=[Column("Model", labels, "l")], blocks=blocks, sections=sections,
                  label="tab:btcsam-table5",
                  caption=f"BTC-SAM: failure % per model and bias type at θ = {theta:g}"
                          + (f" on {test_set}" if test_set else "") + " (Kardkovács et al. 2025, Table 5)"
                          + (". Added: the 95% Wilson interval of each failure %"
                             if _has(rows, "ci_low", "ci_high") else ".")
                          + ("; the excess of cross-group over same-group pairs with Newcombe's interval "
                             "(x>s: significant after correction)." if has_excess else
                             f". No excess over a same-group null: {reason}." if reason and reason != "nan"
                             else "."))


@dataclass(frozen=True)
class PaperTable:
    """One paper table: the study table it is drawn from (``source``) and the function laying it out."""

    name: str
    paper: str
    source: str
    build: Callable[..., Layout]

    def rows(self, frame: pd.DataFrame) -> int:
        """How many rows of ``frame`` the table would show (0: not rendered)."""
        if self.source == "eec_summary" and "table" in frame.columns:
            return int((frame["table"].astype(str) == _EEC_TABLES[self.name[9]][0]).sum())
        if self.source == "eec_tests" and {"attribute", "subset"} <= set(frame.columns):
            _, attribute, subset, *_ = _EEC_TABLES[self.name[9]]
            return int(((frame["attribute"].astype(str) == attribute)
                        & (frame["subset"].astype(str) == subset)).sum())
        return len(frame)


PAPER_TABLES: dict[str, PaperTable] = {entry.name: entry for entry in [
    *(PaperTable(f"eec_table{n}", f"{_EEC}, {t[0]}", "eec_summary", _eec_summary(n)) for n, t in _EEC_TABLES.items()),
    *(PaperTable(f"eec_table{n}_systems", f"{_EEC}, {t[0]} (per system)", "eec_tests", _eec_systems(n))
      for n, t in _EEC_TABLES.items()),
    PaperTable("psa_table2", "Prabhakaran et al. 2019, Table 2", "psa_summary", _psa_table2),
    PaperTable("psa_gender_gap", "beyond Prabhakaran et al. 2019", "psa_gender", _psa_gender),
    PaperTable("biasfinder_table4", "Asyrofi et al. 2021, Table 4", "biasfinder_table4", _biasfinder_table4),
    PaperTable("biasfinder_table5", "Asyrofi et al. 2021, Table 5", "biasfinder_tpr", _biasfinder_table5),
    PaperTable("btcsam_table2", "Kardkovács et al. 2025, Table 2", "btcsam_detection", _btcsam_table2),
    PaperTable("btcsam_table3", "Kardkovács et al. 2025, Table 3", "btcsam_diversity", _btcsam_table3),
    PaperTable("btcsam_table4", "Kardkovács et al. 2025, Table 4", "btcsam_stage_diversity", _btcsam_table4),
    PaperTable("btcsam_table5", "Kardkovács et al. 2025, Table 5", "btcsam_failure_pct", _btcsam_table5),
]}


def layout(*, name: str, table: pd.DataFrame, settings: Mapping | None = None) -> Layout:
    """The :class:`Layout` of the paper table ``name`` drawn from ``table`` (its source study table); ``settings``:
    the run's (BTC-SAM's θ). Unknown name: TK103 listing the names; a missing column: TK101."""
    if name not in PAPER_TABLES:
        raise unknown("paper table", name, PAPER_TABLES)
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"table must be a pandas DataFrame; got {type(table).__name__}.",
                         fix=f"pass the {PAPER_TABLES[name].source} table of a run.")
    frame = table.reset_index() if any(n is not None for n in table.index.names) else table
    return PAPER_TABLES[name].build(_numeric(frame), settings=settings)


def paper_table(*, name: str, table: pd.DataFrame, preset: str = DEFAULT_PRESET,
                settings: Mapping | None = None) -> str:
    """The LaTeX of the paper table ``name`` (a key of :data:`PAPER_TABLES`) drawn from ``table``, its source
    (e.g. ``eec_summary`` for ``eec_table5``), for ``preset`` (:data:`WIDTHS`)."""
    return render(layout(name=name, table=table, settings=settings), preset=preset)


def paper_tables(*, tables: Mapping[str, pd.DataFrame], preset: str = DEFAULT_PRESET,
                 settings: Mapping | None = None) -> dict[str, str]:
    """``{name: LaTeX}`` for every paper table whose source is among ``tables`` (name → frame, as a study's
    ``write`` passes them) and that has at least one row, for ``preset``."""
    check_preset(preset)
    return {name: paper_table(name=name, table=tables[entry.source], preset=preset, settings=settings)
            for name, entry in PAPER_TABLES.items()
            if entry.source in tables and entry.rows(tables[entry.source])}


def to_latex(*, table: pd.DataFrame, caption: str, label: str,
             columns: Sequence[str] | Mapping[str, str] | None = None, group: str | None = None,
             environment: str | None = None, note: str = "", preset: str = DEFAULT_PRESET) -> str:
    """Any frame as a booktabs table: ``columns`` (names, or name → header; default all), ``group`` (one of them)
    as italic heading rows between blocks, numbers at one precision per column, ``note`` added to the caption.
    ``environment`` (``table``/``table*``) overrides the preset's. Unknown columns: SchemaError (TK101)."""
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"table must be a pandas DataFrame; got {type(table).__name__}.",
                         fix="pass a study's result table.")
    if environment is not None and environment not in ENVIRONMENTS:
        raise unknown("environment", environment, ENVIRONMENTS)
    if not label or any(ch in label for ch in "\\{}%#$&~^ "):
        raise InputError(f"label {label!r} must be non-empty, without spaces or LaTeX special characters.",
                         fix="use letters, digits and : - . _ only, e.g. 'tab:eec-table5'.")
    frame = table.reset_index() if any(n is not None for n in table.index.names) else table
    headers = dict(columns) if isinstance(columns, Mapping) else {c: c for c in (columns or list(frame.columns))}
    missing = [c for c in headers if c not in frame.columns]
    if group is not None and group not in frame.columns:
        missing.append(group)
    if missing:
        raise SchemaError(f"the table lacks column(s) {', '.join(map(repr, missing))}; it has "
                          f"{', '.join(map(str, frame.columns))}.", fix="pick columns the table has.")
    frame = frame.reset_index(drop=True)
    out = []
    for name, header in headers.items():
        if name == group:
            continue
        series = frame[name]
        number = pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)
        p = str(name) == "p" or str(name).startswith(("p_", "null_p"))
        out.append(Column(formatting.header_text(header), _numbers(series, p_value=p) if number
                          else _texts(series), "r" if number else "l"))
    built = Layout(keys=out[:1], blocks=[Block("", [c]) for c in out[1:]] or [Block("", [])],
                   caption=caption + (" " + note if note else ""), label=label,
                   sections=_sections(frame, group) if group is not None else {})
    if not out[1:]:
        built = Layout(keys=[], blocks=[Block("", out)], caption=built.caption, label=label,
                       sections=built.sections)
    text = render(built, preset=preset)
    if environment is not None:
        current = WIDTHS[preset].environment
        text = text.replace(rf"\begin{{{current}}}", rf"\begin{{{environment}}}").replace(
            rf"\end{{{current}}}", rf"\end{{{environment}}}")
    return text
