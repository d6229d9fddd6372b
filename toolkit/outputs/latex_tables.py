"""The papers' tables as :class:`toolkit.outputs.latex_render.Layout` s, built from the study frames a run writes
(each study declares its layouts in ``toolkit/studies/<study>/latex.py``: :class:`PaperTable` entries built with
the helpers here), and :func:`to_latex` for any frame. Pure: frames in, TeX text out (rules in :mod:`toolkit.outputs.latex`).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from toolkit import formatting
from toolkit.errors import InputError, SchemaError, unknown
from toolkit.outputs.latex_render import (
    DEFAULT_PRESET,
    ENVIRONMENTS,
    WIDTHS,
    Block,
    Column,
    Layout,
    check_preset,
    render,
)

# --- building layouts from frames ---------------------------------------------------------------------------------

def numbers(series: pd.Series, *, p_value: bool = False, decimals: int | None = None, rate: bool = False
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


def estimates(frame: pd.DataFrame, est: str, low: str, high: str) -> list[str]:
    """``est. [low, high]`` cells at one precision (that of the three columns together)."""
    places = formatting.column_decimals(pd.concat([pd.to_numeric(frame[c], errors="coerce")
                                                   for c in (est, low, high)]), counts=False)
    return [formatting.format_estimate(e, lo, hi, decimals=places)
            for e, lo, hi in zip(frame[est], frame[low], frame[high])]


def intervals(frame: pd.DataFrame, low: str, high: str) -> list[str]:
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


def texts(series: pd.Series) -> list[str]:
    return [formatting.MISSING if formatting.is_missing(v) else str(v) for v in series]


def model_labels(series: pd.Series, within: pd.Series | None = None) -> list[str]:
    """Short model labels, unique among the rows of each value of ``within`` (a task's block: the ``ait:`` systems
    of five tasks share their short names)."""
    groups = within.astype(str) if within is not None else pd.Series("", index=series.index)
    labels = {}
    for group in dict.fromkeys(groups):
        specs = [str(v) for v, g in zip(series, groups) if g == group]
        labels.update({(group, spec): label for spec, label in formatting.short_labels(specs).items()})
    return [labels[(g, str(v))] for v, g in zip(series, groups)]


_SURROGATE = re.compile("[\ud800-\udfff]")


def _joined(text: str) -> str:
    """``text`` with surrogate pairs joined into their character and a lone surrogate (not text: it cannot be
    encoded) replaced by U+FFFD, which the table prints as a placeholder."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def valid_text(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with :func:`_joined` applied to every string of its object columns (pandas' text operations
    cannot hold a lone surrogate); the frame itself when it holds none."""
    columns = [i for i in range(frame.shape[1]) if frame.iloc[:, i].dtype == object
               and frame.iloc[:, i].map(lambda v: isinstance(v, str) and bool(_SURROGATE.search(v))).any()]
    if not columns:
        return frame
    out = frame.copy()
    for i in columns:
        out.isetitem(i, frame.iloc[:, i].map(lambda v: _joined(v) if isinstance(v, str) else v))
    return out


def numeric(frame: pd.DataFrame) -> pd.DataFrame:
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


def sections(frame: pd.DataFrame, column: str | None, *, label: Callable[[object], str] = str
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


def only(frame: pd.DataFrame, column: str) -> str:
    values = list(dict.fromkeys(str(v) for v in frame[column])) if column in frame.columns else []
    return values[0] if len(values) == 1 else ""


def require(frame: pd.DataFrame, columns: Sequence[str], *, name: str, source: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise SchemaError(f"{name} is drawn from {source}, but the table given lacks "
                          f"{', '.join(map(repr, missing))}.", fix=f"pass the {source} table of a run.")


def has(frame: pd.DataFrame, *columns: str) -> bool:
    return all(c in frame.columns for c in columns) and frame[list(columns)].notna().any().any()


def order(frame: pd.DataFrame, column: str, order: Sequence[str]) -> pd.DataFrame:
    rank = {v: i for i, v in enumerate(order)}
    return frame.assign(_o=frame[column].map(lambda v: rank.get(v, len(rank)))).sort_values(
        "_o", kind="stable").drop(columns="_o")


@dataclass(frozen=True)
class PaperTable:
    """One paper table: the study table it is drawn from (``source``) and the function laying it out."""

    name: str
    paper: str
    source: str
    build: Callable[..., Layout]
    count: Callable[[pd.DataFrame], int] | None = None  # the rows the table would show; None: every row

    def rows(self, frame: pd.DataFrame) -> int:
        """How many rows of ``frame`` the table would show (0: not rendered)."""
        return int(self.count(frame)) if self.count is not None else len(frame)




def layout(*, name: str, table: pd.DataFrame, layouts: Mapping[str, PaperTable],
           settings: Mapping | None = None) -> Layout:
    """The :class:`Layout` of the paper table ``name`` (a key of ``layouts``, a study's
    :attr:`~toolkit.studies.base.Study.latex_layouts`) drawn from ``table`` (its source study table); ``settings``:
    the run's (BTC-SAM's θ). Unknown name: TK103 listing the names; a missing column: TK101."""
    if name not in layouts:
        raise unknown("paper table", name, layouts)
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"table must be a pandas DataFrame; got {type(table).__name__}.",
                         fix=f"pass the {layouts[name].source} table of a run.")
    frame = table.reset_index() if any(n is not None for n in table.index.names) else table
    return layouts[name].build(numeric(valid_text(frame)), settings=settings)


def paper_table(*, name: str, table: pd.DataFrame, layouts: Mapping[str, PaperTable],
                preset: str = DEFAULT_PRESET, settings: Mapping | None = None) -> str:
    """The LaTeX of the paper table ``name`` (a key of ``layouts``) drawn from ``table``, its source (e.g.
    ``eec_summary`` for ``eec_table5``), for ``preset`` (:data:`WIDTHS`)."""
    return render(layout(name=name, table=table, layouts=layouts, settings=settings), preset=preset)


def paper_tables(*, tables: Mapping[str, pd.DataFrame], layouts: Mapping[str, PaperTable],
                 preset: str = DEFAULT_PRESET, settings: Mapping | None = None) -> dict[str, str]:
    """``{name: LaTeX}`` for every paper table of ``layouts`` whose source is among ``tables`` (name → frame, as a
    study's ``write`` passes them) and that has at least one row, for ``preset``."""
    check_preset(preset)
    return {name: paper_table(name=name, table=tables[entry.source], layouts=layouts, preset=preset,
                              settings=settings)
            for name, entry in layouts.items()
            if entry.source in tables and entry.rows(tables[entry.source])}


def frame_layout(*, table: pd.DataFrame, caption: str, label: str,
                 columns: Sequence[str] | Mapping[str, str] | None = None, group: str | None = None,
                 note: str = "") -> Layout:
    """Any frame as a :class:`Layout` (what :func:`to_latex` renders): ``columns`` (names, or name → header;
    default all), ``group`` (one of them) as italic heading rows between blocks, numbers at one precision per
    column, ``note`` added to the caption. Unknown columns: SchemaError (TK101)."""
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"table must be a pandas DataFrame; got {type(table).__name__}.",
                         fix="pass a study's result table.")
    if not label or any(ch in label for ch in "\\{}%#$&~^ "):
        raise InputError(f"label {label!r} must be non-empty, without spaces or LaTeX special characters.",
                         fix="use letters, digits and : - . _ only, e.g. 'tab:eec-table5'.")
    frame = valid_text(table.reset_index() if any(n is not None for n in table.index.names) else table)
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
        out.append(Column(formatting.header_text(header), numbers(series, p_value=p) if number
                          else texts(series), "r" if number else "l"))
    built = Layout(keys=out[:1], blocks=[Block("", [c]) for c in out[1:]] or [Block("", [])],
                   caption=caption + (" " + note if note else ""), label=label,
                   sections=sections(frame, group) if group is not None else {})
    if not out[1:]:
        built = Layout(keys=[], blocks=[Block("", out)], caption=built.caption, label=label,
                       sections=built.sections)
    return built


def to_latex(*, table: pd.DataFrame, caption: str, label: str,
             columns: Sequence[str] | Mapping[str, str] | None = None, group: str | None = None,
             environment: str | None = None, note: str = "", preset: str = DEFAULT_PRESET) -> str:
    """Any frame as a booktabs table (:func:`frame_layout`, rendered for ``preset``); ``environment``
    (``table``/``table*``) overrides the preset's."""
    if environment is not None and environment not in ENVIRONMENTS:
        raise unknown("environment", environment, ENVIRONMENTS)
    text = render(frame_layout(table=table, caption=caption, label=label, columns=columns, group=group, note=note),
                  preset=preset)
    if environment is not None:
        current = WIDTHS[preset].environment
        text = text.replace(rf"\begin{{{current}}}", rf"\begin{{{environment}}}").replace(
            rf"\end{{{current}}}", rf"\end{{{environment}}}")
    return text
