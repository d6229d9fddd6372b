"""Coded errors: every message says what went wrong, lists valid choices where there are some, and names the fix.

Codes are stable (``TK1xx`` input/schema, ``TK2xx`` models, ``TK3xx`` scoring/cache, ``TK4xx`` studies, ``TK5xx``
LLM backends) so that
notebooks and scripts can catch and test for them.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^\s/?#'\"<>]+@")  # to the netloc's last @
_BARE_CREDENTIALS = re.compile(  # user:password@host[:port] with no scheme (a proxy setting written without one)
    r"(?<![\w/.@:%+-])[^\s/?#:@'\"<>,;()\[\]{}=]+:[^\s/?#:@'\"<>]*@"
    r"(?=(?:\[[0-9a-fA-F:.]+\]|\w[\w.-]*)(?::\d+)?(?![\w:]|\.\w))")
REDACTED = "***"
"""What stands in for the user name and password of a URL in anything the toolkit prints, logs or records."""


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it replaced by :data:`REDACTED`: ``http://user:pw@host``
    becomes ``http://***@host``, and a scheme-less proxy setting ``user:pw@host:port`` becomes ``***@host:port``.
    Hosts, ports and paths are kept, so a message still says where the toolkit tried to connect."""
    if not isinstance(text, str) or "@" not in text:
        return text
    return _BARE_CREDENTIALS.sub(f"{REDACTED}@", _URL_CREDENTIALS.sub(rf"\g<1>{REDACTED}@", text))


class ToolkitError(Exception):
    """Base class. ``code`` is stable; ``fix`` says what to do about it. The message and the fix never show a
    URL's credentials (:func:`redact`)."""

    code = "TK000"

    def __init__(self, message: str, *, fix: str = "", code: str | None = None) -> None:
        message, fix = redact(message), redact(fix)
        self.code = code or self.code
        self.fix = fix
        self.message = message
        ends = "" if message.rstrip().endswith((".", "!", "?")) else "."  # a model's own message may not end one
        super().__init__(f"[{self.code}] {message}" + (f"{ends} Fix: {fix}" if fix else ""))

    def __reduce__(self):
        """Pickle by the original arguments, so an error raised in a worker process reads the same in the driver."""
        return _rebuild, (type(self), self.message, self.fix, self.code)


def _rebuild(cls: type, message: str, fix: str, code: str) -> ToolkitError:
    return cls(message, fix=fix, code=code)


def _rebuild_output(message: str, fix: str, code: str, model: str | None) -> ToolkitError:
    return ModelOutputError(message, fix=fix, code=code, model=model)


class SchemaError(ToolkitError, ValueError):
    """A table lacks a required column or has an invalid value."""

    code = "TK101"


class InputError(ToolkitError, ValueError):
    """An argument is out of range or of the wrong kind."""

    code = "TK102"


class UnknownNameError(ToolkitError, KeyError):
    """A name is not among the registered ones; the message lists them."""

    code = "TK103"

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return self.args[0]


class CorpusError(ToolkitError, ValueError):
    """A corpus file cannot be read as it stands (malformed CSV/JSONL, wrong encoding, empty); names the line."""

    code = "TK104"


class OutputDirError(ToolkitError, OSError):
    """The output folder cannot be written; raised before any work is done."""

    code = "TK105"


class DiskFullError(ToolkitError, OSError):
    """A disk filled up while a run wrote its outputs or its cache; the message says how much space was needed."""

    code = "TK106"


class ModelSpecError(ToolkitError, ValueError):
    """A model spec string cannot be resolved."""

    code = "TK201"


class LabelMappingError(ToolkitError, ValueError):
    """A classifier head whose labels cannot be mapped to valence."""

    code = "TK202"


class ModelOutputError(ToolkitError, ValueError):
    """A model returned something that is not a valence in [0, 1] per text. ``model``: the label (spec) of the
    model, where the raiser knows it (the scoring engine sets it on any it passes on), so that a caller can leave
    that model out and go on with the others."""

    code = "TK203"

    def __init__(self, message: str, *, fix: str = "", code: str | None = None, model: str | None = None) -> None:
        super().__init__(message, fix=fix, code=code)
        self.model = model

    def __reduce__(self):
        return _rebuild_output, (self.message, self.fix, self.code, self.model)


class MissingDependencyError(ToolkitError, ImportError):
    """An optional package is needed; the message says how to install it."""

    code = "TK204"


class UnsupportedHardwareError(ToolkitError, RuntimeError):
    """This machine lacks what an option needs (a CPU instruction set for reduced precision, a GPU); the message
    names what is missing."""

    code = "TK205"


class CacheError(ToolkitError, RuntimeError):
    """The score cache is corrupt or belongs to something else."""

    code = "TK301"


class RunInterruptedError(ToolkitError, RuntimeError):
    """A run was stopped by Ctrl-C or SIGTERM: its workers are ended, what was scored stays in the cache, and a
    re-run resumes from there."""

    code = "TK302"


class WorkerError(ToolkitError, RuntimeError):
    """A worker process or Ray actor died during a run (killed from outside, out of memory): the run stops; what it
    committed stays in the cache and a re-run resumes from there."""

    code = "TK303"


class LLMError(ToolkitError, RuntimeError):
    """An LLM endpoint failed or could not be reached after its retries."""

    code = "TK501"


def unknown(kind: str, name: str, valid: Iterable[str], *, code: str = "TK103") -> UnknownNameError:
    """Build the standard "unknown X 'y'; available: …" error."""
    import difflib

    valid = [str(v) for v in valid]
    near = difflib.get_close_matches(str(name), valid, n=1, cutoff=0.75) if isinstance(name, str) else []
    return UnknownNameError(f"unknown {kind} {name!r}; available: {', '.join(sorted(valid))}.",
                            fix=(f"did you mean {near[0]!r}? " if near else "")
                            + f"Check the spelling; use one of the {kind} names listed.", code=code)


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the user's call: the first frame outside the toolkit package (a notebook
    cell or script), however deep inside the package the warning is raised, so no internal path is shown."""
    import sys
    import warnings
    from pathlib import Path

    package = str(Path(__file__).resolve().parent)
    frame, level = sys._getframe(1), 1
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(redact(message), category, stacklevel=level + 1)


SHIMS_REMOVED_IN = "0.2.0"
"""The release that removes the "moved" modules (each warns on import, naming its new home)."""


def moved(old: str, new: str) -> None:
    """Warn (DeprecationWarning) that module ``old`` moved to ``new`` and goes in :data:`SHIMS_REMOVED_IN`,
    attributed to the line that imported it (the first frame outside the package and the import machinery)."""
    import sys
    import warnings
    from pathlib import Path

    package = str(Path(__file__).resolve().parent)
    frame, level = sys._getframe(1), 1
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen importlib")
                                 or str(Path(frame.f_code.co_filename).resolve()).startswith(package)):
        frame, level = frame.f_back, level + 1
    warnings.warn(f"{old} moved to {new}; the old name goes in toolkit {SHIMS_REMOVED_IN}. Import {new} instead.",
                  DeprecationWarning, stacklevel=level + 1)
