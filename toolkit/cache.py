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
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from toolkit import paths
from toolkit.errors import CacheError, warn
from toolkit.models.base import Predictions

# the checked SQLite opener lives in the leaf toolkit.sqlite (the prompt store uses it too); kept importable here
from toolkit.sqlite import check_location, disk_full_error, open_checked, write_failure  # noqa: F401

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
        except sqlite3.IntegrityError as exc:  # the schema's range checks: the engine checks scores before
            raise CacheError(f"score cache {self.path} refused a batch: {exc}.",
                             fix="scores must be valences in [0, 1] (or NaN: no valence).") from exc
        except (sqlite3.DatabaseError, OSError) as exc:
            raise write_failure(self.path, exc, self._db) from exc

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
