"""A captioned table in the apps' one number format."""
from __future__ import annotations

import html
from collections.abc import Callable

import pandas as pd


# TODO(o35): use toolkit.formatting's one number formatter here once it lands (same rules: three decimals,
# p < 0.001 as "<0.001", counts with thousands separators).
def _number_format(frame: pd.DataFrame) -> dict[str, str | Callable]:
    """One number format for every table: floats with three decimals, p-values below 0.001 as "<0.001", counts
    with thousands separators."""
    formats: dict[str, str | Callable] = {}
    for column in frame.columns:
        dtype = frame[column].dtype
        name = column if isinstance(column, str) else " ".join(map(str, column))
        if pd.api.types.is_bool_dtype(dtype):
            continue
        if pd.api.types.is_float_dtype(dtype) and name.lower().startswith("p"):
            formats[column] = lambda v: "" if pd.isna(v) else "<0.001" if v < 0.001 else f"{v:.3f}"
        elif pd.api.types.is_float_dtype(dtype):
            formats[column] = lambda v: "" if pd.isna(v) else f"{v:.3f}"
        elif pd.api.types.is_integer_dtype(dtype):
            formats[column] = lambda v: "" if pd.isna(v) else f"{int(v):,}"
    return formats


def table(frame: pd.DataFrame, *, caption: str):
    """``frame`` as a captioned table in the apps' one number format (a pandas Styler; the frame is unchanged)."""
    styler = frame.style.format(_number_format(frame), na_rep="", escape="html").set_caption(html.escape(caption))
    return styler.set_table_styles(
        [{"selector": "caption", "props": "caption-side: top; text-align: left; font-weight: bold; color: #333;"}])
