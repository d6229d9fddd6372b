"""Moved to :mod:`toolkit.outputs.latex` (writing the files: :func:`toolkit.outputs.runs.export_latex`).
This shim re-exports the public names for one release."""
from __future__ import annotations

from toolkit.errors import moved

moved("toolkit.latex", "toolkit.outputs.latex")

from toolkit.errors import InputError
from toolkit.outputs.latex import (
    DEFAULT_PRESET,
    ENVIRONMENTS,
    MISSING,
    PLACEHOLDER,
    SAFE_CODEPOINTS,
    WIDTHS,
    Block,
    Column,
    Layout,
    PaperTable,
    column_decimals,
    escape,
    format_number,
    layout,
    paper_table,
    paper_tables,
    render,
    to_latex,
)
from toolkit.outputs.runs import export_latex as from_run
