"""Moved to :mod:`toolkit.outputs`: the renderer is :mod:`toolkit.outputs.report`, writing and reading
run folders :mod:`toolkit.outputs.runs`. This shim re-exports the public names for one release."""
from __future__ import annotations

from toolkit.errors import moved

moved("toolkit.report", "toolkit.outputs (toolkit.outputs.report, toolkit.outputs.runs)")

from toolkit.formatting import MISSING, format_value
from toolkit.outputs.files import REPORT_NAME
from toolkit.outputs.report import (
    MAX_ROWS,
    Run,
    Table,
    esc,
    figure_caption,
    figure_html,
    figure_png,
    flatten,
    provenance_html,
    render,
    render_comparison,
    table_html,
)
from toolkit.outputs.runs import (
    LARGE_FILE,
    MAX_DEPTH,
    MAX_FIGURE_BYTES,
    MAX_PROVENANCE_BYTES,
    PNG_MAGIC,
    TABLE_SUFFIXES,
    compare,
    from_run,
    load_run,
    write_html,
    write_report,
)
