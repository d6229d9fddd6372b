"""A captioned table in the apps' one number format."""
from __future__ import annotations

import html
from collections.abc import Callable

import pandas as pd

from toolkit import formatting


def _number_format(frame: pd.DataFrame) -> dict[str, str | Callable]:
    """One number format for every table (:mod:`toolkit.formatting`, as reports and LaTeX): floats with three
    decimals, p-values below 0.001 as "<0.001", counts with thousands separators."""
    formats: dict[str, str | Callable] = {}
    for column in frame.columns:
        dtype = frame[column].dtype
        name = formatting.header_text(column)
        if pd.api.types.is_bool_dtype(dtype):
            continue
        if pd.api.types.is_float_dtype(dtype):
            p_value = name.lower().startswith("p")
            formats[column] = lambda v, p=p_value: "" if pd.isna(v) else formatting.format_number(v, p_value=p)
        elif pd.api.types.is_integer_dtype(dtype):
            formats[column] = lambda v: "" if pd.isna(v) else formatting.format_value(int(v))
    return formats


def table(frame: pd.DataFrame, *, caption: str):
    """``frame`` as a captioned table in the apps' one number format (a pandas Styler; the frame is unchanged)."""
    styler = frame.style.format(_number_format(frame), na_rep="", escape="html").set_caption(html.escape(caption))
    return styler.set_table_styles(
        [{"selector": "caption", "props": "caption-side: top; text-align: left; font-weight: bold; color: #333;"}])
