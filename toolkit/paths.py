"""Where data, caches and figures live.

With the editable install the README sets up, the project root is the folder holding ``pyproject.toml`` above the
package; otherwise the current directory. ``TOOLKIT_DATA`` and ``TOOLKIT_FIGURES`` override both folders.
:func:`btcsam_dirs` lists, in search order, where the released BTC-SAM sets may lie (``TOOLKIT_BTCSAM_DIR``,
``data/btcsam/``, ``../shared/data/btcsam`` beside the project); :func:`multilingual_dirs` likewise for the
multilingual EEC corpora (``TOOLKIT_MULTILINGUAL_DIR``, ``data/multilingual_eec/``,
``../shared/data/multilingual_eec``).
"""
from __future__ import annotations

import errno
import os
from pathlib import Path


def project_root() -> Path:
    here = Path(__file__).resolve().parent.parent
    return here if (here / "pyproject.toml").exists() else Path.cwd()


def data_dir() -> Path:
    return Path(os.environ.get("TOOLKIT_DATA") or project_root() / "data")


def results_dir(study: str) -> Path:
    """Where a study's run writes by default: ``data/results/<study>``."""
    return data_dir() / "results" / study


def cache_dir() -> Path:
    return data_dir() / "cache"


def figures_dir() -> Path:
    path = Path(os.environ.get("TOOLKIT_FIGURES") or project_root() / "figures")
    path.mkdir(parents=True, exist_ok=True)
    return path


def btcsam_dirs() -> list[Path]:
    """Where the released BTC-SAM files (``<set>_output.csv``) are looked for, in order: ``$TOOLKIT_BTCSAM_DIR`` (when
    set), ``data/btcsam/`` (under ``$TOOLKIT_DATA`` when set), then ``../shared/data/btcsam`` beside the project
    folder (the developers' layout). :func:`toolkit.studies.btcsam.find_sets` takes the first that holds the files."""
    chosen = os.environ.get("TOOLKIT_BTCSAM_DIR")
    candidates = ([Path(chosen).expanduser()] if chosen else []) + [
        data_dir() / "btcsam", project_root().parent / "shared" / "data" / "btcsam"]
    return list(dict.fromkeys(candidates))


def relative_base() -> str:
    """Where a relative path typed into an app is read from, as a reader knows it: the kernel's working folder
    (the notebook's folder: ``notebooks/`` for the project's notebooks), relative to the project root when inside
    it."""
    here = Path.cwd().resolve()
    try:
        return here.relative_to(project_root().resolve()).as_posix().rstrip("/") + "/" if here != \
            project_root().resolve() else "the project folder"
    except ValueError:
        return str(here)


def path_hint(text: str) -> str:
    """An app field's placeholder for a path: ``text`` and where a relative path is read from."""
    return f"{text} (relative to {relative_base()})"


def path_tooltip(text: str) -> str:
    """An app field's tooltip for a path: ``text``, and the folder relative paths are read from, in full."""
    return f"{text}. A relative path is read from {Path.cwd().resolve()} (the notebook's folder)."


def multilingual_dirs() -> list[Path]:
    """Where the multilingual EEC corpora (folders ``camara2022/`` and ``goldfarb_tarrant2023/``) are looked for:
    ``$TOOLKIT_MULTILINGUAL_DIR`` alone when set (the user's choice: a copy missing there is an error, never another
    copy found elsewhere), else ``data/multilingual_eec/`` (under ``$TOOLKIT_DATA`` when set), then
    ``../shared/data/multilingual_eec`` beside the project folder (the developers' layout)."""
    chosen = os.environ.get("TOOLKIT_MULTILINGUAL_DIR")
    if chosen:
        return [Path(chosen).expanduser()]
    return list(dict.fromkeys([data_dir() / "multilingual_eec",
                               project_root().parent / "shared" / "data" / "multilingual_eec"]))


def mount_point(folder: str | Path) -> Path:
    """The mount point of the filesystem holding ``folder``: where to free space when it fills up."""
    path = Path(folder).resolve()
    while not os.path.ismount(path) and path != path.parent:
        path = path.parent
    return path


def is_disk_full(exc: BaseException | None) -> bool:
    """Whether ``exc``, or what it was raised from (pyarrow wraps the OSError), says the disk or quota is full: an
    OSError with ENOSPC/EDQUOT, or SQLite's SQLITE_FULL ("database or disk is full")."""
    while exc is not None:
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if getattr(exc, "sqlite_errorcode", None) == 13 or any(
                words in str(exc) for words in ("No space left on device", "disk is full")):
            return True
        exc = exc.__cause__ or exc.__context__
    return False
