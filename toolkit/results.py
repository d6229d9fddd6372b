"""Moved to :mod:`toolkit.outputs`: the file layer is :mod:`toolkit.outputs.files`, a study's run
:func:`toolkit.outputs.runs.write`. This shim re-exports the public names for one release.

``also_write`` is gone: pass ``latex_tables=True`` / ``report_html=True`` to :func:`toolkit.outputs.runs.write`
(or ``latex=True`` / ``report=True`` to a study's ``write``)."""
from __future__ import annotations

from toolkit.errors import moved

moved("toolkit.results", "toolkit.outputs (toolkit.outputs.files, toolkit.outputs.runs)")

from toolkit.outputs.files import (
    CSV_FORMULA_GUARD,
    FORMATS,
    FORMULA_STARTS,
    LOCK_NAME,
    LOCK_TIMEOUT_S,
    OWN_SUFFIXES,
    REPORT_NAME,
    STAGING_PREFIX,
    Render,
    check_formats,
    check_writable,
    guard_frame,
    guard_text,
    lock,
    read_table,
    unguard_text,
    write_file,
    write_table,
)
from toolkit.outputs.runs import write
