"""What produced a results folder: model specs and fingerprints, package versions (spaCy pipelines and Faker
included), settings (the studies put the corpus path and SHA-256 there), git commit and whether the working tree had
uncommitted changes, time, and the files the run wrote. :func:`toolkit.results.write` adds
``settings["csv_formula_guard"]`` (whether the run's CSV text cells got a leading ``'`` against spreadsheet formulas)
and writes the file last, after every other output is in place; :func:`write` on its own replaces the file
atomically."""
from __future__ import annotations

import errno
import json
import os
import platform
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from toolkit import __version__, paths
from toolkit.errors import DiskFullError, redact
from toolkit.models import load_all

_PACKAGES = ("pandas", "numpy", "scipy", "statsmodels", "torch", "transformers", "vaderSentiment", "textblob",
             "afinn", "spacy", "faker", "tokenizers")


def _spacy_pipelines() -> dict[str, str]:
    """Installed spaCy pipeline packages (``en_core_web_*``…) and their versions."""
    out = {}
    for dist in metadata.distributions():
        name = dist.metadata.get("Name") or ""
        if name.lower().replace("_", "-").startswith(("en-core-", "xx-", "en-coreference")):
            out[name] = dist.version
    return dict(sorted(out.items()))


def _git_dirty() -> bool | None:
    """True when the working tree has uncommitted changes (None outside a git checkout)."""
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=paths.project_root(),
                             capture_output=True, text=True, timeout=5)
        return bool(out.stdout.strip()) if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.project_root(), capture_output=True, text=True,
                             timeout=5)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def record(*, models: list[str], settings: dict, fingerprints: Mapping[str, str] | None = None,
           outputs: list[str] | None = None, inputs: Mapping[str, dict] | None = None) -> dict:
    """A JSON-ready record of this run; ``fingerprints`` (spec → fingerprint, as in
    :class:`toolkit.scoring.ScoreRecord`) saves loading the models again; ``inputs`` (the score record's ``inputs``):
    per model the rows, distinct texts and distinct model inputs the engine saw."""
    versions = {}
    for package in _PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    return {
        "toolkit": __version__,
        "git_commit": _git_commit(),
        "git_dirty": _git_dirty(),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "models": ([{"spec": spec, "fingerprint": fingerprints[spec]} for spec in models] if fingerprints else
                   [{"spec": m.spec, "fingerprint": m.fingerprint} for m in load_all(models)]),
        "packages": versions,
        "spacy_pipelines": _spacy_pipelines(),
        "settings": settings,
        "inputs": dict(inputs or {}),
        "outputs": list(outputs or []),
    }


def dumps(record: dict) -> str:
    """``record`` as the text of ``provenance.json``; credentials in any URL it holds are redacted."""
    return redact(json.dumps(record, indent=2, default=str)) + "\n"


def write(out_dir: str | Path, *, models: list[str], settings: dict,
          fingerprints: Mapping[str, str] | None = None, outputs: list[str] | None = None,
          inputs: Mapping[str, dict] | None = None) -> Path:
    """Write ``provenance.json`` into ``out_dir`` and return its path: written to a temporary file beside it and
    renamed over it, so an existing provenance stays whole when the disk is full (DiskFullError, TK106)."""
    path = Path(out_dir) / "provenance.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return _replace(path, dumps(record(models=models, settings=settings, fingerprints=fingerprints, outputs=outputs,
                                       inputs=inputs)).encode("utf-8"))


def add_outputs(out_dir: str | Path, *, paths_written: list[Path], step: str,
                settings: Mapping | None = None) -> Path | None:
    """Record files written after a run from its result (an analysis, its figures) in ``out_dir``'s
    ``provenance.json``: each joins ``outputs`` (a bare name inside ``out_dir``, else the absolute path, as a run
    lists them) and ``{"step", "settings", "outputs", "created"}`` joins ``added``; the file is replaced
    atomically. Returns its path, or None when ``out_dir`` holds no provenance record to add to (nothing written)."""
    path = Path(out_dir) / "provenance.json"
    try:
        current = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(current, dict) or not isinstance(current.get("outputs"), list):
        return None
    folder = path.parent.resolve()
    names = [p.name if Path(p).parent.resolve() == folder else str(Path(p).resolve()) for p in paths_written]
    current["outputs"] = [*current["outputs"], *[n for n in names if n not in current["outputs"]]]
    previous = current.get("added") if isinstance(current.get("added"), list) else []
    added = [entry for entry in previous if not (isinstance(entry, dict) and entry.get("step") == step)]
    current["added"] = [*added, {"step": step, "settings": dict(settings or {}), "outputs": names,
                                 "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}]
    return _replace(path, dumps(current).encode("utf-8"))


def _replace(path: Path, text: bytes) -> Path:
    """Write ``text`` to ``path`` through a temporary file beside it renamed over it (DiskFullError, TK106)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".provenance.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        raise DiskFullError(f"the disk holding {str(path.parent)!r} is full: provenance.json needs {len(text):,} "
                            f"bytes and {shutil.disk_usage(path.parent).free:,} are free; the previous "
                            "provenance.json (if any) is unchanged.",
                            fix="free space on that disk or pass another --out.") from None
    finally:
        Path(temporary).unlink(missing_ok=True)
    return path
