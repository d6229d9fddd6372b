"""One results folder per run: the tables as CSV (and/or Parquet, for large runs: ``pip install -e .[parquet]``),
``provenance.json`` beside them, the figures as PNG; optionally the long scored table itself
(``<study>_scored.parquet``: each text stored once, as a dictionary column).

All or nothing: :func:`write` first writes every file of the run into a hidden staging folder inside its target
folder (``.toolkit-staging-*``, so on the same filesystem), then moves each into place with ``os.replace``, deletes
the previous run's files that the new run does not overwrite, and moves ``provenance.json`` in last. When the disk
fills up (ENOSPC, EDQUOT) the staging folder is removed, the previous run's files and provenance stay as they were,
and DiskFullError (TK106) says how many bytes the run needed (measured by rendering its files again without storing
them; filesystem overhead not included) and how many are free. Staging folders left by a killed run are removed by
the next run into the folder.

One run at a time: while it writes, :func:`write` holds an exclusive ``fcntl.flock`` on ``.toolkit.lock`` in the
output folder (and in the figures folder when that is another one; the lock files stay). A second run into the same
folder waits for the first, up to :data:`LOCK_TIMEOUT_S` seconds, then fails with OutputDirError (TK105).

``provenance.json`` lists the files the run wrote (``outputs``: names relative to the output folder, absolute paths
for figures written elsewhere); the next run into the folder deletes the files the previous one listed, so no figure
of a model no longer in the run stays beside a provenance that does not list it. Only these are ever deleted:
regular files (not symlinks) with the study's own names (``<study>_*.csv|parquet|png|pdf|svg``), listed as a bare
name and lying directly inside the resolved output folder, or listed as an absolute path directly inside this run's
resolved figures folder (figures a previous run wrote to another figures folder are left alone). A listed name with
``..``, a folder part, or a path anywhere else is ignored. ``report.html`` (the run's report, listed as a bare name)
is removed the same way by a run that does not write one.

Reports and LaTeX (issue 26): with ``report=True`` (or inside :func:`also_write`, the CLI's ``--report``) the run also
writes ``report.html`` (:mod:`toolkit.report`: its tables, the figures' PNGs as the run writes them, and its
provenance, in one self-contained file), and with ``latex=True`` (``--latex``) the paper tables its tables hold as
``<study>_table….tex`` (:mod:`toolkit.latex`), both staged and swapped in with the other files, all or nothing, and
listed in ``outputs``.

CSV files quote every field that is not a number (``csv.QUOTE_NONNUMERIC``), so texts with line breaks, a lone
carriage return, quotes, commas, tabs, NUL or leading spaces read back unchanged with
``pandas.read_csv(path, keep_default_na=False)``. Formula guard: spreadsheet programs run a cell starting with
``=``, ``+``, ``-``, ``@``, tab or carriage return as a formula, so with :data:`CSV_FORMULA_GUARD` (default on;
``csv_formula_guard=False`` turns it off) a text cell starting with one of these, or with ``'``, gets a leading
``'`` in the CSV files (OWASP's advice; the stored text changes). Numeric columns are never changed, and Parquet
files keep the exact text. :func:`unguard_text` and :func:`read_table` take the ``'`` off again, and
``provenance.json`` records ``settings["csv_formula_guard"]``. :func:`check_writable` lets a caller fail before any
scoring when the folder cannot be written.
"""
from __future__ import annotations

import csv
import io
import json
import os
import sys
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from toolkit import executors, paths, plots, provenance
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
REPORT_NAME = "report.html"  # the run's HTML report (toolkit.report), written with report=True
EXTRAS = ("latex", "report")  # what also_write() can add to every write()
_EXTRAS: ContextVar[frozenset[str]] = ContextVar("toolkit_results_extras", default=frozenset())

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
            import pyarrow  # noqa: F401
        except ImportError as exc:
            raise MissingDependencyError("Parquet output needs pyarrow.", fix="pip install -e .[parquet]") from exc


def _table_renderer(frame: pd.DataFrame, fmt: str, *, guard: bool) -> Render:
    if fmt == "parquet":
        check_formats(("parquet",))
        return lambda handle: frame.to_parquet(handle, index=False)
    return lambda handle: (guard_frame(frame) if guard else frame).to_csv(handle, index=False, encoding="utf-8",
                                                                            quoting=csv.QUOTE_NONNUMERIC)


def _figure_renderer(ax: Axes | Figure, fmt: str) -> Render:
    render = lambda handle: plots.write_figure(ax, handle, fmt=fmt)  # as plots.save: dpi, TrueType fonts  # noqa
    return _Rendered(render) if fmt == "png" else render


class _Rendered:
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


def _disk_full(folder: Path, needed: int | None) -> DiskFullError:
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
    staging = _Staging()
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
    return write_file(path, _table_renderer(frame, "parquet" if path.suffix == ".parquet" else "csv", guard=guard))


# --- the output folder: lock, previous run's files, staging -----------------------------------------------------

def check_writable(*folders: str | Path | None) -> None:
    """Write a probe file in each folder (creating it for the probe and removing the folders it created when they
    are still empty, so a run that then fails on its arguments leaves nothing behind and a run writing there at the
    same time loses nothing); a folder that cannot be written raises TK105 at once (TK106 when its disk is full)."""
    for folder in folders:
        if folder is not None:
            _remove_empty(_probe(Path(folder).expanduser()))


def _probe(path: Path) -> list[Path]:
    """Create ``path`` and a probe file in it (TK105/TK106 when that fails); return the folders created."""
    created = [p for p in [path, *path.parents] if not p.exists()]  # deepest first
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-check-"):
            pass
    except OSError as exc:
        if paths.is_disk_full(exc):
            raise _disk_full(path if path.exists() else path.parent, None) from None
        raise OutputDirError(f"cannot write to the output folder {str(path)!r}: {exc.strerror or exc}.",
                             fix="pass an --out folder you can write to (or fix its permissions).") from None
    return created


def _remove_empty(folders: list[Path]) -> None:
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


def _previous_outputs(out: Path, figures: Path, study: str) -> list[Path]:
    """The files the previous run into ``out`` listed in its provenance that may be deleted (module docstring)."""
    try:
        listed = json.loads((out / "provenance.json").read_text()).get("outputs", [])
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
    elif ".." in listed.parts or not listed.name.startswith(f"{study}_") or listed.suffix not in OWN_SUFFIXES:
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


def _remove_stale_staging(folder: Path) -> None:
    """Staging folders of a run that was killed (only called while holding the folder's lock)."""
    for path in folder.glob(f"{STAGING_PREFIX}*"):
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path, ignore_errors=True)


class _Staging:
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
                    raise _disk_full(target.parent, sum(sizes) + rest) from None
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


@contextmanager
def also_write(*, latex: bool = False, report: bool = False) -> Iterator[None]:
    """Inside the block, every :func:`write` (a study's ``write``, which calls it) also writes the paper's tables as
    LaTeX (``latex``: ``<study>_table….tex`` beside the CSVs, :mod:`toolkit.latex`) and/or the run's HTML report
    (``report``: ``report.html`` in the output folder, :mod:`toolkit.report`) as part of the run: staged with the
    other files, listed in ``provenance.json`` and replaced or removed by the next run like them. The CLI's
    ``--latex`` and ``--report``."""
    token = _EXTRAS.set(frozenset(k for k, on in (("latex", latex), ("report", report)) if on))
    try:
        yield
    finally:
        _EXTRAS.reset(token)


def _planned(*, study: str, tables: Mapping[str, pd.DataFrame], axes: Mapping[str, Axes], formats: tuple[str, ...],
             out: Path, figures: Path, guard: bool, latex: bool = False) -> list[tuple[Path, Render]]:
    """(target, renderer) for every table in every format, every figure (PNG and vector copy) and, with ``latex``,
    every paper table the tables hold (:func:`toolkit.latex.paper_tables`)."""
    planned = [(out / f"{name}.{fmt}", _table_renderer(frame, fmt, guard=guard))
               for name, frame in tables.items() for fmt in formats]
    for stem, ax in axes.items():
        planned += [(figures / f"{stem}.{fmt}", _figure_renderer(ax, fmt)) for fmt in ("png", plots.VECTOR_FORMAT)]
    if latex:
        from toolkit import latex as tex

        for stem, text in tex.paper_tables(tables=tables).items():
            planned.append((out / f"{stem}.tex", lambda handle, data=text.encode("utf-8"): handle.write(data)))
    return planned


def _output_name(path: Path, out: Path) -> str:
    return path.name if path.parent.resolve() == out.resolve() else str(path.resolve())


def write(*, study: str, tables: Mapping[str, pd.DataFrame], axes: Mapping[str, Axes], scored: pd.DataFrame,
          models: list[str], settings: dict, out_dir: str | Path | None = None,
          figures_dir: str | Path | None = None, formats: tuple[str, ...] = ("csv",),
          with_scored: bool = False, csv_formula_guard: bool | None = None, latex: bool | None = None,
          report: bool | None = None) -> list[Path]:
    """Write ``<name>.<format>`` per table and format (``formats`` from :data:`FORMATS`), with ``with_scored`` the
    scored table as ``<study>_scored.<format>`` too, and ``provenance.json`` (models with the fingerprints that
    scored them, and the texts / distinct texts / distinct model inputs per model) to ``out_dir`` (default
    ``data/results/<study>``), ``<stem>.png`` per Axes to ``figures_dir`` (default ``figures/``) with a PDF copy
    beside each PNG, and return the paths written. With ``latex`` the paper's tables as ``<study>_table….tex``
    (:mod:`toolkit.latex`) and with ``report`` the run's HTML report ``report.html`` (:mod:`toolkit.report`: the
    tables, figures and provenance) go into ``out_dir`` as well (None: as :func:`also_write` says; default off).
    All or nothing, one run per folder at a time, the previous run's files replaced, and CSV text cells
    formula-guarded unless ``csv_formula_guard=False``: see the module docstring."""
    check_formats(formats)
    extras = _EXTRAS.get()
    latex = "latex" in extras if latex is None else bool(latex)
    report = "report" in extras if report is None else bool(report)
    guard = CSV_FORMULA_GUARD if csv_formula_guard is None else csv_formula_guard
    out = Path(out_dir) if out_dir is not None else paths.data_dir() / "results" / study
    figures = Path(figures_dir) if figures_dir is not None else paths.figures_dir()
    _probe(out)
    _probe(figures)
    if with_scored:
        tables = {**tables, f"{study}_scored": scored}
    planned = _planned(study=study, tables=tables, axes=axes, formats=formats, out=out, figures=figures, guard=guard,
                       latex=latex)
    report_of = {"tables": tables, "axes": axes, "planned": planned, "format": formats[0]} if report else None
    folders = sorted({out.resolve(), figures.resolve()})
    with ExitStack() as held:
        for folder in folders:
            held.enter_context(lock(folder / LOCK_NAME, timeout=LOCK_TIMEOUT_S, what=f"into {str(folder)!r}"))
        for folder in folders:
            _remove_stale_staging(folder)
        return _write_locked(study=study, planned=planned, scored=scored, models=models,
                             settings={**settings, "csv_formula_guard": guard}, out=out, figures=figures,
                             report_of=report_of)


def _report_renderer(*, study: str, out: Path, report_of: dict, record: dict) -> Render:
    """The run's report (:func:`toolkit.report.render`) from the tables and figures in memory; the figures' PNGs
    are the ones the run writes (rendered once)."""
    from toolkit import report

    pngs = {}
    for stem, ax in report_of["axes"].items():
        renderer = next((r for target, r in report_of["planned"] if isinstance(r, _Rendered)
                         and target.name == f"{stem}.png"), None)
        pngs[stem] = renderer.bytes() if renderer is not None else report.figure_png(ax)
    tables = {name: report._Table(frame.reset_index() if report._named_index(frame) else frame, len(frame),
                                  source=f"{name}.{report_of['format']}")
              for name, frame in report_of["tables"].items()}
    run = report.Run(title=f"{study} run: {out.resolve().name}", tables=tables, figures=pngs, provenance=record,
                     folder=str(out.resolve()))
    return lambda handle: handle.write(report.render(run).encode("utf-8"))


def _write_locked(*, study: str, planned: list[tuple[Path, Render]], scored: pd.DataFrame, models: list[str],
                  settings: dict, out: Path, figures: Path, report_of: dict | None = None) -> list[Path]:
    """Stage every file, provenance last; move them in; delete the previous run's other files; move provenance in."""
    previous = _previous_outputs(out, figures, study)
    report_target = [out / REPORT_NAME] if report_of is not None else []
    record = provenance.record(models=models, settings=settings, fingerprints=scored.attrs.get("fingerprints"),
                               outputs=[_output_name(target, out) for target, _ in planned]
                               + [t.name for t in report_target], inputs=scored.attrs.get("inputs"))
    text = provenance.dumps(record).encode("utf-8")
    if report_of is not None:
        planned = [*planned, (report_target[0], _report_renderer(study=study, out=out, report_of=report_of,
                                                                 record=record))]
    every = [target for target, _ in planned] + [out / "provenance.json"]
    blocked = next((t for t in every if t.is_symlink() or (t.exists() and not t.is_file())), None)
    if blocked is not None:  # before anything is written or moved
        raise OutputDirError(f"{str(blocked)!r} is in the way of an output: it is a folder or a link, not a file.",
                             fix="move or delete it, or pass another --out.")
    staging = _Staging()
    try:
        staging.write_all([*planned, (out / "provenance.json", lambda handle: handle.write(text))])
        with executors.signals_deferred():  # Ctrl-C waits until the folder is whole again
            _swap_in(staging, every, stale=[p for p in previous if p.resolve() not in {t.resolve() for t in every}])
    finally:
        staging.discard()
    return every


def _swap_in(staging: _Staging, targets: list[Path], *, stale: list[Path]) -> None:
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
