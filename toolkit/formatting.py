"""The one number and label formatter of the toolkit: reports (HTML), LaTeX tables and the apps print numbers,
intervals, headers and model names through these functions, so a value reads the same everywhere.

- :func:`format_value` — a single value anywhere (report cells, app captions): whole numbers with thousands
  separators, other numbers to 4 significant digits, missing values as an em dash.
- :func:`column_decimals` and :func:`format_number` — one precision per table column (the paper tables): 0 decimals
  for whole-number columns, else 3 below 10, 2 below 100, 1 below 1000; p-values below 0.001 as ``<0.001``; a true
  minus sign (U+2212).
- :func:`format_interval` / :func:`format_estimate` — ``[low, high]`` and ``est. [low, high]`` at one precision.
- :func:`header_text` — a column name as plain text (a pivot's tuple ``('score_dev', 'imdb')`` → ``score_dev imdb``).
- :func:`short_label` / :func:`short_labels` — a model spec as a short, unique label (``hf:/tmp/x/bert?labels=…`` →
  ``bert``).

Every function returns plain Unicode text; the renderers escape it for HTML or TeX.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import pandas as pd

MISSING = "—"
MINUS = "\u2212"
P_FLOOR = 0.001  # p-values below this print as "<0.001"


def is_missing(value: Any) -> bool:
    """None, NA, NaT or a float NaN."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral) and math.isnan(float(value))


def is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def is_number(value: Any) -> bool:
    """A real number that is not a boolean."""
    return isinstance(value, numbers.Real) and not is_bool(value)


def format_value(value: Any) -> str:
    """One value as text: whole numbers with thousands separators, other numbers to 4 significant digits (no
    exponent between 10⁻⁴ and 10¹⁵), missing values (None, NaN, NA) as an em dash, anything else as ``str``."""
    if is_missing(value):
        return MISSING
    if is_bool(value):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isinf(number):
            return "∞" if number > 0 else "−∞"
        if number != 0 and 1e4 <= abs(number) < 1e15:
            return f"{number:,.0f}" if number.is_integer() else f"{number:,.1f}"
        return f"{number:.4g}"
    return str(value)


def column_decimals(series: pd.Series | Iterable[Any], *, counts: bool = True) -> int:
    """Decimals for a numeric column: 3 below 10, 2 below 100, 1 below 1000, 0 from there (by the largest
    magnitude), so a column reads with one precision; with ``counts`` (default) 0 when every value is whole (a count
    stored as float). Pass ``counts=False`` for rates, estimates and bounds: a column of zeros still reads 0.000."""
    values = pd.to_numeric(pd.Series(list(series) if not isinstance(series, pd.Series) else series),
                           errors="coerce").dropna().astype(float)
    values = values[values.abs() != math.inf]
    if values.empty:
        return 0 if counts else 3
    if counts and (values == values.round()).all():
        return 0
    largest = values.abs().max()
    return 3 if largest < 10 else 2 if largest < 100 else 1 if largest < 1000 else 0


def format_number(value: Any, *, decimals: int = 3, p_value: bool = False) -> str:
    """One table cell: a number with ``decimals`` decimals (an integer as it is), a true minus sign, ``-0.000`` as
    ``0.000``, a p-value (``p_value``) below 0.001 as ``<0.001``, missing values as :data:`MISSING`, booleans as
    yes/no, ±infinity as ``∞``/``−∞``, anything else as ``str``."""
    if is_missing(value):
        return MISSING
    if is_bool(value):
        return "yes" if value else "no"
    if not isinstance(value, numbers.Real):
        return str(value)
    number = float(value)
    if math.isinf(number):
        return "∞" if number > 0 else MINUS + "∞"
    if p_value and 0 <= number < P_FLOOR:
        return f"<{P_FLOOR:g}"
    text = f"{int(value):d}" if isinstance(value, numbers.Integral) else f"{number:.{decimals}f}"
    if text.lstrip("-").strip("0.") == "":  # -0.000 is 0.000
        text = text.lstrip("-")
    return MINUS + text[1:] if text.startswith("-") else text


def format_interval(low: Any, high: Any, *, decimals: int = 3) -> str:
    """``[low, high]`` at ``decimals``; :data:`MISSING` when either end is missing."""
    if is_missing(low) or is_missing(high):
        return MISSING
    return f"[{format_number(low, decimals=decimals)}, {format_number(high, decimals=decimals)}]"


def format_estimate(estimate: Any, low: Any = None, high: Any = None, *, decimals: int = 3) -> str:
    """``est. [low, high]`` at one precision; the estimate alone when the interval is missing."""
    text = format_number(estimate, decimals=decimals)
    if is_missing(estimate) or is_missing(low) or is_missing(high):
        return text
    return f"{text} {format_interval(low, high, decimals=decimals)}"


def header_text(column: Any) -> str:
    """A column name as plain text: a tuple (a pivot's MultiIndex column) joined by spaces, empty parts dropped."""
    if isinstance(column, tuple):
        return " ".join(str(part) for part in column if str(part) not in ("", "None"))
    return str(column)


def short_label(spec: str) -> str:
    """A model's label in tables and figures: ``minilm-imdb``, ``vader``; ``hf:<path or id>[?…]`` → the last path
    part (a hub cache snapshot → the model's name); ``py:<module>:<callable>`` → the callable;
    ``ait:<system>/<task>`` → the system; ``llm:hf:…``/``llm:openai:<model>@<url>`` → ``llm:<name>``. Query strings
    are dropped."""
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
        values = list(labels.values())
        clash = {v for v in values if values.count(v) > 1}
        labels = {s: (fallback(s) if labels[s] in clash else labels[s]) for s in specs}
    return labels
