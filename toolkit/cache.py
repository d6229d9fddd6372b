"""On-disk score cache: SQLite, keyed by (model fingerprint, SHA-256 of the text).

Every batch is written in one transaction, so a run killed at any moment keeps every finished batch and the next run
scores only what is missing. The file carries an application id and schema version; a foreign file, a corrupt one,
or a stored score outside [0, 1] raises :class:`~toolkit.errors.CacheError` (TK301) instead of being trusted, and so
does a cache path under a plain file (naming it). A full disk while writing raises
:class:`~toolkit.errors.DiskFullError` (TK106: free space there, or ``--no-cache`` / another ``--cache``); the batches
committed before it stay.

Schema 2 stores each row's native view too (``top_label``, ``top_score``, ``class_probs``; ``score`` may be NULL:
no valence). A schema-1 file (written before the native columns; every fingerprint has changed since with
``MAPPING_VERSION`` 2, so none of its rows can be hit again) is migrated in place with a warning: its rows are
dropped, the table widened and the file re-stamped.
"""
from __future__ import annotations

import hashlib
import math
import shutil
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from toolkit import paths
from toolkit.errors import CacheError, DiskFullError, warn
from toolkit.models.base import Predictions

APPLICATION_ID = 0x5341_4254  # "SABT"
SCHEMA_VERSION = 2  # of the score cache; 1: before the native columns (migrated, see the module docstring)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS scores (
    fingerprint TEXT NOT NULL,
    text_key BLOB NOT NULL,
    score REAL CHECK (score IS NULL OR (score >= 0.0 AND score <= 1.0)),
    label TEXT NOT NULL,
    truncated INTEGER NOT NULL,
    top_label TEXT NOT NULL,
    top_score REAL CHECK (top_score IS NULL OR (top_score >= 0.0 AND top_score <= 1.0)),
    class_probs TEXT NOT NULL,
    PRIMARY KEY (fingerprint, text_key)
) WITHOUT ROWID;
"""
Row = tuple[float, str, bool, str, float, str]
"""A cached prediction: score (NaN: no valence), label, truncated, top_label, top_score (NaN: none), class_probs."""


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


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


class ScoreCache:
    """``get`` returns what is cached for a model; ``put`` commits one batch atomically."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._migrate_v1()
        self._db = open_checked(self.path, application_id=APPLICATION_ID, schema=_SCHEMA, what="score cache",
                                version=SCHEMA_VERSION)

    def _migrate_v1(self) -> None:
        """A schema-1 score cache of this toolkit: drop its (unreachable) rows, widen the table, stamp schema 2."""
        if not self.path.is_file():
            return
        try:
            db = sqlite3.connect(self.path, timeout=60)
            try:
                if (db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID
                        or db.execute("PRAGMA user_version").fetchone()[0] != 1):
                    return
                rows = db.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
                with db:
                    db.execute("DROP TABLE scores")
                    db.executescript(_SCHEMA)
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            finally:
                db.close()
        except sqlite3.DatabaseError:
            return  # open_checked reports it
        warn(f"score cache {self.path} had schema 1 (before the native columns); its {rows} rows were "
             "written under fingerprints that no longer occur (MAPPING_VERSION 2) and were dropped.")

    def get(self, fingerprint: str, texts: Iterable[str]) -> dict[str, Row]:
        """Cached :data:`Row` for those of ``texts`` that are cached under ``fingerprint``."""
        by_key = {text_key(t): t for t in texts}
        found: dict[str, Row] = {}
        keys = list(by_key)
        try:
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                rows = self._db.execute(
                    f"SELECT text_key, score, label, truncated, top_label, top_score, class_probs FROM scores "
                    f"WHERE fingerprint = ? AND text_key IN ({','.join('?' * len(chunk))})", [fingerprint, *chunk])
                for key, score, label, truncated, top_label, top_score, class_probs in rows:
                    for value in (score, top_score):
                        if not (value is None or (isinstance(value, float) and 0.0 <= value <= 1.0)):
                            raise CacheError(f"score cache {self.path} holds an invalid score {value!r}.",
                                             fix=f"delete {self.path}.")
                    found[by_key[key]] = (math.nan if score is None else score, label, bool(truncated), top_label,
                                          math.nan if top_score is None else top_score, class_probs)
        except sqlite3.DatabaseError as exc:
            raise CacheError(f"score cache {self.path} cannot be read: {exc}.", fix=f"delete {self.path}.") from exc
        return found

    def put(self, fingerprint: str, texts: list[str], predictions: Predictions) -> None:
        """Store one batch in a single transaction (all rows or none); ``predictions`` has one entry per text, native
        columns filled (the engine's checked predictions)."""
        def real(v: float) -> float | None:
            return None if math.isnan(float(v)) else float(v)

        p = predictions.filled()
        columns = (texts, np.asarray(p.score), p.label, np.asarray(p.truncated), p.top_label, p.top_score,
                   p.class_probs)
        rows = [(fingerprint, text_key(t), real(s), str(lab), int(tr), str(tl), real(ts), str(cp))
                for t, s, lab, tr, tl, ts, cp in zip(*columns)]
        if len(rows) != len(texts):
            raise CacheError(f"cannot store {len(texts)} texts with {len(rows)} complete predictions.",
                             fix="pass one score, label, truncation flag and native view per text.")
        try:
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        except (sqlite3.DatabaseError, OSError) as exc:
            if paths.is_disk_full(exc):
                raise disk_full_error(self.path, exc) from exc
            raise CacheError(f"score cache {self.path} refused a batch: {exc}.",
                             fix=f"delete {self.path} if it is damaged; scores must be valences in [0, 1].") from exc

    def count(self, fingerprint: str | None = None) -> int:
        query, args = "SELECT COUNT(*) FROM scores", ()
        if fingerprint is not None:
            query, args = query + " WHERE fingerprint = ?", (fingerprint,)
        return int(self._db.execute(query, args).fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "ScoreCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
