"""Checked SQLite stores (a leaf): open a store of this toolkit only after checking it is one, and say what to do
when its disk is full or a plain file stands where its folder must be.

:func:`open_checked` is shared by the score cache (:mod:`toolkit.cache`) and the LLM prompt store
(:mod:`toolkit.llm`); both stamp their files with an application id and schema version.
"""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from toolkit import paths
from toolkit.errors import CacheError, DiskFullError


def check_location(path: Path, *, what: str = "score cache") -> None:
    """Raise :class:`CacheError` (TK301) naming the plain file that stands where a folder above ``path`` must be
    (``--cache /tmp/afile/sub/cache.sqlite``); creates nothing."""
    for folder in (path.parent, *path.parent.parents):  # the nearest existing one decides
        if folder.exists():
            if not folder.is_dir():
                raise CacheError(f"the {what} {path} cannot be created: {folder} is a file, not a folder.",
                                 fix=f"pass a cache path under a folder (--cache), or move {folder} aside.")
            return


def disk_full_error(path: Path, exc: BaseException, *, what: str = "score cache") -> DiskFullError:
    """TK106 for a full disk under the store at ``path``: how big the store is, how much room is left, where to free
    space; what was committed before stays."""
    size = sum(f.stat().st_size for f in (path, path.with_name(path.name + "-wal")) if f.is_file())
    folder = next((f for f in (path.parent, *path.parent.parents) if f.is_dir()), Path("/"))
    mount = paths.mount_point(folder)
    free = shutil.disk_usage(folder).free
    return DiskFullError(
        f"the disk holding the {what} {path} is full ({free / 1e6:.1f} MB free; the {what} is "
        f"{size / 1e6:.1f} MB): {exc}.",
        fix=f"free space on {mount} (every batch committed so far is kept, so a re-run resumes), or pass --no-cache "
            "or another --cache on a disk with room.")


def file_size_limit() -> int | None:
    """The largest file this process may write, in bytes (``ulimit -f``, RLIMIT_FSIZE); None when unlimited."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return None
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return None if soft == resource.RLIM_INFINITY else int(soft)


def write_failure(path: Path, exc: BaseException, db: sqlite3.Connection, *, what: str = "score cache") \
        -> CacheError | DiskFullError:
    """The coded error for a write the store at ``path`` refused: past this process's file size limit (TK301
    naming ``ulimit -f``), a full disk (TK106), a store whose integrity check still passes (TK301: the write
    failed, the store is intact, so the fix is not to delete it), else a damaged store (TK301: delete it)."""
    size = sum(f.stat().st_size for f in (path, path.with_name(path.name + "-journal"),
                                          path.with_name(path.name + "-wal")) if f.is_file())
    limit = file_size_limit()
    if limit is not None and size + 2**20 >= limit:  # within a write of the limit: that is what refused it
        return CacheError(
            f"the {what} {path} could not grow: this process may write files of at most {limit:,} bytes (the "
            f"shell's file size limit, ulimit -f) and the {what} is {size:,} bytes ({exc}). The {what} is intact: "
            "every batch stored before is kept.",
            fix="raise the limit (ulimit -f unlimited) and re-run, which resumes from the cache; or pass --no-cache "
                "or another --cache.")
    if paths.is_disk_full(exc):
        return disk_full_error(path, exc, what=what)
    try:
        intact = db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    except sqlite3.DatabaseError:
        intact = False
    if intact:
        return CacheError(f"the {what} {path} refused a batch: {exc}. The {what} itself is intact (SQLite's check "
                          "passes) and keeps every batch stored before.",
                          fix="check the disk and the folder's permissions, then re-run to resume; or pass "
                              "--no-cache or another --cache.")
    return CacheError(f"the {what} {path} refused a batch and is damaged: {exc}.",
                      fix=f"delete {path} (its scores are computed again), or pass another --cache.")


def open_checked(path: Path, *, application_id: int, schema: str, what: str,
                 legacy_tables: frozenset[str] = frozenset(), version: int = 1) -> sqlite3.Connection:
    """Open (or create) a SQLite store of this toolkit at ``path``, checked before it is trusted: a new file gets
    ``application_id``, schema version and ``schema``; a file with another id or version, or one that fails SQLite's
    quick_check, raises :class:`CacheError` (TK301). An unstamped file holding exactly ``legacy_tables`` (written
    before stores were stamped) is stamped and kept. ``what`` names the store in messages; ``version`` is the
    store's own schema version (the prompt store's is 1, the score cache's :data:`SCHEMA_VERSION`)."""
    check_location(path, what=what)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if paths.is_disk_full(exc):
            raise disk_full_error(path, exc, what=what) from exc
        raise CacheError(f"the folder of the {what} {path} cannot be created: {exc}.",
                         fix="pass a cache path (--cache) in a folder you can write, or --no-cache.") from exc
    fix = f"move {path} aside (or delete it) or pass another path."
    try:
        db = sqlite3.connect(path, timeout=60)
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        found = db.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if app_id == 0 and (not tables or (legacy_tables and tables == legacy_tables)):
            with db:
                db.execute(f"PRAGMA application_id = {application_id}")
                db.execute(f"PRAGMA user_version = {version}")
                db.executescript(schema)
        elif app_id != application_id or found != version:
            raise CacheError(f"{path} is not a {what} of this toolkit (application id {app_id:#x}, "
                             f"schema {found}; expected {version}).", fix=fix)
        check = db.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise CacheError(f"{what} {path} is corrupt: {check}.", fix=fix)
        db.execute("PRAGMA journal_mode=WAL")
    except sqlite3.DatabaseError as exc:
        if paths.is_disk_full(exc):
            raise disk_full_error(path, exc, what=what) from exc
        raise CacheError(f"{what} {path} cannot be read: {exc}.", fix=fix) from exc
    return db


__all__ = ["check_location", "disk_full_error", "open_checked"]
