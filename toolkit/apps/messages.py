"""A coded error as one line for an app: its code, message and fix, the fix worded for the app's fields where the
error's own speaks the Python API (``pass models=[…]``)."""
from __future__ import annotations

import re

from toolkit.errors import ToolkitError

_PYTHON_FIX = re.compile(r"\w\(|\b\w+=|\bpass\b|\bimport\b")
FIELD_FIX = {  # an error's fix worded for the apps' fields, where the error's own speaks the Python API
    "TK101": "check the file named in the app's fields: it lacks a column the study needs.",
    "TK102": "change the app's fields (see the message) and press Run again.",
    "TK103": "tick a model in the list or type a spec such as hf:<folder-or-owner/name> in 'more specs'.",
    "TK104": "type 'sample' or the path of a CSV/JSONL file with a text column in the corpus field.",
    "TK105": "the message names the folder that cannot be written (no permission, or a file in its place): free "
             "it, or set the environment variable TOOLKIT_DATA to a folder you can write to and restart the kernel; "
             "then press the button again.",
    "TK201": "correct the spec in 'more specs' (hf:<folder-or-id>?max_length=…, py:module:function, llm:…).",
    "TK202": "add ?labels=negative,positive (the head's labels in order) to the hf: spec in 'more specs'.",
    "TK204": "install the package the message names in the notebook's environment, then press Run again.",
}


def widget_message(exc: ToolkitError) -> str:
    """``exc`` as one line for an app: its code and message, and its fix — replaced by a hint about the app's
    fields when the fix speaks the Python API (``pass models=[…]``)."""
    fix = exc.fix
    if fix and _PYTHON_FIX.search(fix):
        fix = FIELD_FIX.get(exc.code, "change the app's fields and press Run again.")
    return f"[{exc.code}] {exc.message}" + (f" Fix: {fix}" if fix else "")
