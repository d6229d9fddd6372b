"""The files leaf of :mod:`toolkit.outputs`: how a run's files reach the disk, knowing nothing of what they hold.

- Writing one file: :func:`write_file` (a renderer fills a temporary file beside the target, renamed over it) and
  :func:`write_table` (CSV or Parquet by suffix).
- Writing a run: :func:`commit` stages every file of the run in a hidden folder inside its target folder
  (``.toolkit-staging-*``, so on the same filesystem), then moves each into place with ``os.replace``, deletes the
  previous run's files that the new run does not overwrite, and moves ``provenance.json`` in last. When the disk
  fills up (ENOSPC, EDQUOT) the staging folder is removed, the previous run's files and provenance stay as they were,
  and DiskFullError (TK106) says how many bytes the run needed (measured by rendering its files again without storing
  them; filesystem overhead not included) and how many are free. Staging folders left by a killed run are removed by
  the next run into the folder.
- One run at a time: :func:`commit` holds an exclusive ``fcntl.flock`` on ``.toolkit.lock`` in the output folder
  (and in the figures folder when that is another one; the lock files stay). A second run into the same folder waits
  for the first, up to :data:`LOCK_TIMEOUT_S` seconds, then fails with OutputDirError (TK105).
- The previous run's files: ``provenance.json`` lists the files a run wrote (``outputs``: names relative to the
  output folder, absolute paths for figures written elsewhere); the next run deletes them. Only these are ever
  deleted: regular files (not symlinks) with the study's own names (``<study>_*.csv|parquet|png|pdf|svg|tex``),
  listed as a bare name directly inside the resolved output folder, or as an absolute path directly inside this
  run's resolved figures folder; and :data:`REPORT_NAME` as a bare name. A listed name with ``..``, a folder part,
  or a path anywhere else is ignored.
- Tables: CSV files quote every field that is not a number (``csv.QUOTE_NONNUMERIC``), so texts with line breaks,
  quotes, commas, tabs, NUL or leading spaces read back unchanged with :func:`read_table`. Formula guard: a text cell
  starting with ``=``, ``+``, ``-``, ``@``, tab, carriage return or ``'`` gets a leading ``'`` in CSV files
  (OWASP's advice; :data:`CSV_FORMULA_GUARD`, ``csv_formula_guard=False`` turns it off); numeric columns are never
  changed and Parquet keeps the exact text; :func:`unguard_text` and :func:`read_table` take the ``'`` off again.
  :func:`check_writable` lets a caller fail before any scoring when a folder cannot be written.
"""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd

from toolkit import executors, paths
from toolkit.errors import DiskFullError, InputError, MissingDependencyError, OutputDirError, ToolkitError

try:
    import fcntl
except ImportError:  # not on POSIX: no locking
    fcntl = None

FORMATS = ("csv", "parquet")
CSV_FORMULA_GUARD = True  # prefix "'" to text cells that a spreadsheet would run as a formula (module docstring)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
LOCK_TIMEOUT_S = 600.0  # how long a run waits for another run writing into the same folder
LOCK_NAME = ".toolkit.lock"
STAGING_PREFIX = ".toolkit-staging-"
OWN_SUFFIXES = (".csv", ".parquet", ".png", ".pdf", ".svg", ".tex")
CAPTION_SUFFIX = ".caption.txt"  # TITLES=caption's caption beside a figure: the study's own too (any other .txt is not)


def _own_suffix(name: str) -> bool:
    """Whether a listed output ``name`` ends the way the toolkit's own files do (:data:`OWN_SUFFIXES`, a caption)."""
    return Path(name).suffix in OWN_SUFFIXES or name.endswith(CAPTION_SUFFIX)
REPORT_NAME = "report.html"  # the run's HTML report, deleted like the study's own files by a run without one
PROVENANCE_NAME = "provenance.json"

Render = Callable[[BinaryIO], None]


# --- the formula guard ------------------------------------------------------------------------------------------

def guard_text(text: str) -> str:
    """``text`` with a leading ``'`` when it starts like a spreadsheet formula (or with ``'``, so that
    :func:`unguard_text` can always undo it)."""
    return "'" + text if text[:1] in FORMULA_STARTS or text[:1] == "'" else text


def unguard_text(text: str) -> str:
    """Undo :func:`guard_text`."""
    return text[1:] if text[:1] == "'" else text


def _map_column(column: pd.Series, func: Callable[[str], str]) -> pd.Series:
    """``func`` applied to the text cells of an object, string or categorical column; other columns unchanged."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.rename_categories([func(c) if isinstance(c, str) else c for c in column.cat.categories])
    if pd.api.types.is_object_dtype(column.dtype) or pd.api.types.is_string_dtype(column.dtype):
        return column.map(lambda v: func(v) if isinstance(v, str) else v)
    return column


def _map_frame(frame: pd.DataFrame, func: Callable[[str], str]) -> pd.DataFrame:
    mapped = frame.copy()
    for position in range(frame.shape[1]):
        mapped.isetitem(position, _map_column(frame.iloc[:, position], func))
    return mapped


def guard_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with :func:`guard_text` applied to its text cells (numbers are left alone)."""
    return _map_frame(frame, guard_text)


def read_table(path: str | Path, *, csv_formula_guard: bool | None = None, **options: Any) -> pd.DataFrame:
    """A table :func:`write` wrote, by suffix (``options`` go to ``pandas.read_csv`` / ``read_parquet``); for CSV
    the formula guard taken off the text cells (pass ``csv_formula_guard=False`` for files written without it) and
    empty cells read as ""."""
    path = Path(path)
    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path, **options)
        frame = pd.read_csv(path, **{"keep_default_na": False, "encoding": "utf-8", **options})
    except (ValueError, OSError, ImportError) as exc:  # pandas' parser errors, UnicodeDecodeError, pyarrow's
        if isinstance(exc, (FileNotFoundError, MissingDependencyError)):
            raise
        if isinstance(exc, ImportError):
            raise MissingDependencyError(f"reading {path.name!r} needs pyarrow.",
                                         fix="pip install -e .[parquet]") from None
        raise _unreadable(path, exc) from None
    guard = CSV_FORMULA_GUARD if csv_formula_guard is None else csv_formula_guard
    return _map_frame(frame, unguard_text) if guard else frame


def _first_non_utf8(path: Path) -> str:
    """Where the first byte that is not UTF-8 lies (line by line: a newline byte never sits inside a character)."""
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                return f"byte 0x{line[exc.start]:02x} on line {number:,}"
    return ""


def _unreadable(path: Path, exc: BaseException) -> InputError:
    """TK102 for a table file that cannot be parsed: names the file, what is wrong and the fix."""
    if isinstance(exc, UnicodeDecodeError):
        why = f"it is not UTF-8 text ({_first_non_utf8(path) or 'an invalid byte'})"
    else:
        why = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300] or 'empty file'}"
    kind = "Parquet" if path.suffix == ".parquet" else "CSV"
    return InputError(f"cannot read the {kind} table {str(path)!r}: {why}.",
                      fix="re-run the study into that folder (the file is damaged or was not written by the "
                          "toolkit), or remove it and its entry in provenance.json.")


# --- rendering and writing files --------------------------------------------------------------------------------

def check_formats(formats: tuple[str, ...]) -> None:
    """TK102 for an unknown or empty list of table ``formats``, TK204 when Parquet is asked for without pyarrow:
    what :func:`write` would find only after the run (the CLI calls it before scoring)."""
    unknown_formats = [f for f in formats if f not in FORMATS]
    if unknown_formats or not formats:
        raise InputError(f"unknown output format {unknown_formats[0] if unknown_formats else None!r}; available: "
                         f"{', '.join(FORMATS)}.", fix="use csv, parquet or both.")
    if "parquet" in formats:
        try:
            import pyarrow
        except ImportError as exc:
            raise MissingDependencyError("Parquet output needs pyarrow.", fix="pip install -e .[parquet]") from exc


def table_renderer(frame: pd.DataFrame, fmt: str, *, guard: bool) -> Render:
    if fmt == "parquet":
        check_formats(("parquet",))
        return lambda handle: frame.to_parquet(handle, index=False)
    return lambda handle: (guard_frame(frame) if guard else frame).to_csv(handle, index=False, encoding="utf-8",
                                                                            quoting=csv.QUOTE_NONNUMERIC)


def bytes_renderer(data: bytes) -> Render:
    """A renderer that writes ``data``."""
    return lambda handle: handle.write(data)


class Rendered:
    """A renderer that renders once and keeps the bytes (a PNG the report embeds as well)."""

    def __init__(self, render: Render) -> None:
        self.render, self.data = render, None

    def bytes(self) -> bytes:
        if self.data is None:
            buffer = io.BytesIO()
            self.render(buffer)
            self.data = buffer.getvalue()
        return self.data

    def __call__(self, handle: BinaryIO) -> None:
        handle.write(self.bytes())


def _open_new(path: Path) -> BinaryIO:
    """Create ``path`` for writing: every file the module writes is created here (the tests replace it to fill a
    disk)."""
    return open(path, "xb")


def _write_file(path: Path, render: Render) -> int:
    """Create ``path``, fill it with ``render``, flush it to disk and return its size."""
    with _open_new(path) as handle:
        render(handle)
        handle.flush()
        os.fsync(handle.fileno())
    return path.stat().st_size


class _Counter(io.RawIOBase):
    """A sink that only counts the bytes written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        size = memoryview(data).nbytes
        self.size += size
        return size

    def tell(self) -> int:
        return self.size


def _rendered_size(render: Render) -> int:
    counter = _Counter()
    render(counter)
    return counter.size


def disk_full(folder: Path, needed: int | None) -> DiskFullError:
    """TK106 for ``folder``: ``needed`` bytes (None: not known yet) against the bytes free there now."""
    free = shutil.disk_usage(folder).free
    fix = f"free space on the filesystem mounted at {str(paths.mount_point(folder))!r} or pass another --out."
    if needed is None:
        return DiskFullError(f"the disk holding {str(folder)!r} is full ({free:,} bytes free).", fix=fix)
    return DiskFullError(
        f"the disk holding {str(folder)!r} filled up while the run wrote its outputs: they need about {needed:,} "
        f"bytes (measured by rendering them, filesystem overhead not included) and {free:,} bytes are free there. "
        "Nothing was changed: the files already there (a previous run's outputs and provenance.json) are as "
        "they were.", fix=fix)


def _write_error(path: Path, exc: OSError) -> OutputDirError:
    return OutputDirError(f"cannot write {path.name!r} into {str(path.parent)!r}: {exc.strerror or exc}.",
                          fix="check the folder's permissions, or pass another --out folder.")


def write_file(path: str | Path, render: Render) -> Path:
    """Write one file: ``render`` fills a temporary file beside ``path``, which is then renamed over it, so
    ``path`` is never left half-written (TK106 when the disk is full, TK105 for any other failure)."""
    path = Path(path)
    staging = Staging()
    try:
        staging.write_all([(path, render)])
        staging.replace(path)
    except ToolkitError:
        raise
    except OSError as exc:
        raise _write_error(path, exc) from None
    finally:
        staging.discard()
    return path


def write_table(frame: pd.DataFrame, path: Path, *, csv_formula_guard: bool | None = None) -> Path:
    """``frame`` as CSV or Parquet by ``path``'s suffix (Parquet keeps dtypes, categoricals as dictionary columns,
    and needs pyarrow; CSV quoting and formula guard as in the module docstring), written to a temporary file beside
    ``path`` and renamed over it, so ``path`` is never left half-written."""
    path = Path(path)
    guard = CSV_FORMULA_GUARD if csv_formula_guard is None else csv_formula_guard
    return write_file(path, table_renderer(frame, "parquet" if path.suffix == ".parquet" else "csv", guard=guard))


# --- the output folder: lock, previous run's files, staging -----------------------------------------------------

def check_writable(*folders: str | Path | None) -> None:
    """Write a probe file in each folder (creating it for the probe and removing the folders it created when they
    are still empty, so a run that then fails on its arguments leaves nothing behind and a run writing there at the
    same time loses nothing); a folder that cannot be written raises TK105 at once (TK106 when its disk is full)."""
    for folder in folders:
        if folder is not None:
            remove_empty(probe(Path(folder).expanduser()))


def probe(path: Path, *, option: str = "an --out folder") -> list[Path]:
    """Create ``path`` and a probe file in it (TK105/TK106 when that fails; ``option``: what the fix tells the user
    to pass instead, e.g. ``"another figures_dir="``); return the folders created."""
    if path.is_symlink() and not path.exists():
        raise OutputDirError(f"the output folder {str(path)!r} is a link to {os.readlink(path)!r}, which does not "
                             "exist.", fix=f"create the folder the link points to, remove the link, or pass {option}.")
    if path.exists() and not path.is_dir():
        raise OutputDirError(f"the output folder {str(path)!r} is a file, not a folder.",
                             fix=f"pass {option} (a new name creates it), or move the file away.")
    created = [p for p in [path, *path.parents] if not p.exists()]  # deepest first
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-check-"):
            pass
    except OSError as exc:
        if paths.is_disk_full(exc):
            raise disk_full(path if path.exists() else path.parent, None) from None
        raise OutputDirError(f"cannot write to the output folder {str(path)!r}: {exc.strerror or exc}.",
                             fix=f"pass {option} you can write to (or fix its permissions).") from None
    return created


def remove_empty(folders: list[Path]) -> None:
    """Remove ``folders`` (deepest first) while they are empty: another process may have started writing there."""
    for created in folders:
        try:
            created.rmdir()
        except OSError:
            return


@contextmanager
def lock(path: str | Path, *, timeout: float, what: str) -> Iterator[None]:
    """Hold an exclusive ``fcntl.flock`` on the file ``path`` (created if missing, left in place), waiting up to
    ``timeout`` seconds for another process that holds it; then OutputDirError (TK105) naming ``what``."""
    if fcntl is None:
        yield
        return
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)  # again: a concurrent check_writable may remove it
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise OutputDirError(f"cannot create the lock file {str(path)!r}: {exc.strerror or exc}.",
                             fix="check the folder's permissions, or pass another folder.") from None
    try:
        started = time.monotonic()
        deadline, announced = started + timeout, False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not announced and time.monotonic() - started >= 1.0:  # say so once, not for a brief wait
                    print(f"waiting for another process writing {what} (it holds {str(path)!r}; up to "
                          f"{timeout:g} s) …", file=sys.stderr, flush=True)
                    announced = True
                if time.monotonic() >= deadline:
                    raise OutputDirError(f"another process is still writing {what} after {timeout:g} s of waiting "
                                         f"(it holds the lock {str(path)!r}).",
                                         fix="wait for it to finish and try again, or use another folder.") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(handle)  # releases the lock


def run_owner(out: str | Path) -> str | None:
    """The study whose run wrote the folder ``out``: its ``provenance.json``'s ``settings.study``, else the
    ``<study>_`` prefix its listed outputs of the toolkit's kinds share; None when the folder holds no
    ``provenance.json`` or a record that names no study, ``""`` when it holds one that is not a toolkit run's
    record (not a JSON object with an ``outputs`` list)."""
    path = Path(out).expanduser() / PROVENANCE_NAME
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return ""
    if not isinstance(record, dict) or not isinstance(record.get("outputs"), list):
        return ""
    settings = record.get("settings")
    if isinstance(settings, dict) and isinstance(settings.get("study"), str) and settings["study"]:
        return settings["study"]
    prefixes = {Path(n).name.split("_", 1)[0] for n in record["outputs"]
                if isinstance(n, str) and "_" in Path(n).name and _own_suffix(n)}
    return prefixes.pop() if len(prefixes) == 1 else None


def check_owner(out: str | Path, study: str) -> None:
    """OutputDirError (TK105) unless the folder ``out`` is new, empty of runs, or holds a run of ``study``: a run
    folder belongs to one study, so writing another study's run there would replace that run's
    ``provenance.json`` and leave its files unlisted."""
    owner = run_owner(out)
    if owner is None or owner == study:
        return
    folder = Path(out).expanduser()
    what = (f"the results of a {owner} run" if owner else
            "a provenance.json that is not a toolkit run's record")
    raise OutputDirError(
        f"{str(folder)!r} holds {what}; writing this {study} run there would replace its provenance.json and "
        "leave its files unlisted.",
        fix=f"pass a folder of its own to this run (e.g. {str(folder.parent / f'{folder.name}-{study}')!r}), or "
            "delete or move that folder first.")


def previous_outputs(out: Path, figures: Path, study: str) -> list[Path]:
    """The files the previous run into ``out`` listed in its provenance that may be deleted (module docstring)."""
    try:
        listed = json.loads((out / PROVENANCE_NAME).read_text()).get("outputs", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [path for name in (listed if isinstance(listed, list) else []) if isinstance(name, str)
            for path in [_own_file(name, out=out, figures=figures, study=study)] if path is not None]


def _own_file(name: str, *, out: Path, figures: Path, study: str) -> Path | None:
    """The path of a listed output ``name`` when it is one of the study's own regular files directly inside the
    resolved ``out`` (bare names) or ``figures`` (absolute paths); None otherwise."""
    listed = Path(name)
    if name == REPORT_NAME:
        pass  # the report of the run (a bare name in ``out``)
    elif ".." in listed.parts or not listed.name.startswith(f"{study}_") or not _own_suffix(name):
        return None
    if listed.is_absolute():
        folder, path = figures, listed
    elif listed.name == name:
        folder, path = out, out / name
    else:
        return None
    try:
        if path.parent.resolve() != folder.resolve() or not stat.S_ISREG(os.lstat(path).st_mode):
            return None
    except OSError:
        return None
    return path


def remove_stale_staging(folder: Path) -> None:
    """Staging folders of a run that was killed (only called while holding the folder's lock)."""
    for path in folder.glob(f"{STAGING_PREFIX}*"):
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path, ignore_errors=True)


class Staging:
    """New files written into a hidden folder beside their targets (:meth:`write_all`), then moved into place one by
    one (:meth:`replace`); :meth:`discard` removes what was not moved."""

    def __init__(self) -> None:
        self.folders: dict[Path, Path] = {}
        self.staged: dict[Path, Path] = {}  # target -> staged file

    def write_all(self, files: list[tuple[Path, Render]]) -> None:
        """Stage every (target, renderer); on a full disk remove them all and raise DiskFullError with the bytes all
        of them need; any other OSError is OutputDirError."""
        sizes: list[int] = []
        for position, (target, render) in enumerate(files):
            try:
                sizes.append(self._write(target, render))
            except OSError as exc:
                self.discard()
                if paths.is_disk_full(exc):
                    rest = sum(_rendered_size(r) for _, r in files[position:])
                    raise disk_full(target.parent, sum(sizes) + rest) from None
                raise _write_error(target, exc) from None

    def folder(self, parent: Path) -> Path:
        """The staging folder inside ``parent`` (made on first use; same filesystem, so moves are renames)."""
        if parent not in self.folders:
            self.folders[parent] = Path(tempfile.mkdtemp(dir=parent, prefix=STAGING_PREFIX))
        return self.folders[parent]

    def _write(self, target: Path, render: Render) -> int:
        self.staged[target] = self.folder(target.parent) / target.name
        return _write_file(self.staged[target], render)

    def replace(self, target: Path) -> None:
        os.replace(self.staged.pop(target), target)

    def discard(self) -> None:
        for folder in self.folders.values():
            shutil.rmtree(folder, ignore_errors=True)


def output_name(path: Path, out: Path) -> str:
    """How ``provenance.json`` lists ``path``: a bare name inside ``out``, else the absolute path."""
    return path.name if path.parent.resolve() == out.resolve() else str(path.resolve())


def commit(*, study: str, planned: list[tuple[Path, Render]], provenance: bytes, out: Path,
           figures: Path) -> list[Path]:
    """Write the run's ``planned`` files (target, renderer) and then ``provenance`` as ``out/provenance.json``, all
    or nothing, while holding the locks of ``out`` and ``figures``; the previous run's other files are deleted
    (module docstring). Returns every path written, provenance last."""
    executors.check_interrupted()  # a Ctrl-C Python could only print never ends in a written run
    folders = sorted({out.resolve(), figures.resolve()})
    with ExitStack() as held:
        for folder in folders:
            held.enter_context(lock(folder / LOCK_NAME, timeout=LOCK_TIMEOUT_S, what=f"into {str(folder)!r}"))
        check_owner(out, study)  # again under the lock: another study's run may have finished meanwhile
        for folder in folders:
            remove_stale_staging(folder)
        previous = previous_outputs(out, figures, study)
        every = [target for target, _ in planned] + [out / PROVENANCE_NAME]
        blocked = next((t for t in every if t.is_symlink() or (t.exists() and not t.is_file())), None)
        if blocked is not None:  # before anything is written or moved
            raise OutputDirError(f"{str(blocked)!r} is in the way of an output: it is a folder or a link, not a "
                                 "file.", fix="move or delete it, or pass another --out.")
        staging = Staging()
        try:
            staging.write_all([*planned, (out / PROVENANCE_NAME, lambda handle: handle.write(provenance))])
            with executors.signals_deferred():  # Ctrl-C waits until the folder is whole again
                swap_in(staging, every, stale=[p for p in previous
                                               if p.resolve() not in {t.resolve() for t in every}])
        finally:
            staging.discard()
        return every


def swap_in(staging: Staging, targets: list[Path], *, stale: list[Path]) -> None:
    """Move the staged files onto ``targets`` (provenance last) and delete the ``stale`` files of the previous run,
    all or nothing: the files they replace are first moved aside into the staging folder, and any error puts them
    back and removes what was moved in (then TK105 naming the file)."""
    aside: list[tuple[Path, Path]] = []  # (original place, where it waits)
    moved: list[Path] = []
    try:
        for path in [*targets, *stale]:
            if path.exists():
                holding = staging.folder(path.parent) / f".previous-{len(aside)}-{path.name}"
                os.replace(path, holding)
                aside.append((path, holding))
        for target in targets:
            staging.replace(target)
            moved.append(target)
    except OSError as exc:
        for target in moved:
            target.unlink(missing_ok=True)
        for path, holding in reversed(aside):
            os.replace(holding, path)
        raise OutputDirError(f"could not move the run's files into place ({exc.strerror or exc}: "
                             f"{exc.filename or ''}); the previous run's files are as they were.",
                             fix="check the folder's permissions and free space, or pass another --out.") from None
