"""One results folder per run: the tables as CSV (and/or Parquet, for large runs: ``pip install -e .[parquet]``),
``provenance.json`` beside them, the figures as PNG; optionally the long scored table itself
(``<study>_scored.parquet``: each text stored once, as a dictionary column).

``provenance.json`` lists the files the run wrote (``outputs``); a later run into the same folder first deletes the
files the previous one listed (and only those), so no figure of a model no longer in the run stays beside a
provenance that does not list it. :func:`check_writable` lets a caller fail before any scoring when the folder
cannot be written.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes

from toolkit import paths, plots, provenance
from toolkit.errors import InputError, MissingDependencyError, OutputDirError


def check_writable(*folders: str | Path | None) -> None:
    """Write a probe file in each folder (creating it for the probe and removing what was created, so a run that then
    fails on its arguments leaves nothing behind); a folder that cannot be written raises TK105 at once."""
    for folder in folders:
        if folder is None:
            continue
        path = Path(folder).expanduser()
        created = next((p for p in reversed([path, *path.parents]) if not p.exists()), None)
        try:
            path.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path, prefix=".write-check-"):
                pass
            if created is not None:
                shutil.rmtree(created)
        except OSError as exc:
            raise OutputDirError(f"cannot write to the output folder {str(path)!r}: {exc.strerror or exc}.",
                                 fix="pass an --out folder you can write to (or fix its permissions).") from None


def _clear_previous(out: Path, study: str) -> list[Path]:
    """Delete the files the previous run into ``out`` listed in its provenance (only those, and only the study's own
    ``<study>_*.csv|png|pdf|svg`` names, so a hand-edited list deletes nothing else); return them."""
    try:
        previous = json.loads((out / "provenance.json").read_text()).get("outputs", [])
    except (OSError, ValueError, AttributeError):
        return []
    removed = []
    for name in previous if isinstance(previous, list) else []:
        path = out / str(name)  # absolute names (figures elsewhere) stay absolute
        if (path.name.startswith(f"{study}_") and path.suffix in (".csv", ".parquet", ".png", ".pdf", ".svg")
                and path.is_file()):
            path.unlink()
            removed.append(path)
    return removed


FORMATS = ("csv", "parquet")


def write_table(frame: pd.DataFrame, path: Path) -> Path:
    """``frame`` as CSV or Parquet by ``path``'s suffix (Parquet keeps dtypes, categoricals as dictionary columns,
    and needs pyarrow)."""
    if path.suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError as exc:
            raise MissingDependencyError("Parquet output needs pyarrow.", fix="pip install -e .[parquet]") from exc
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def write(*, study: str, tables: Mapping[str, pd.DataFrame], axes: Mapping[str, Axes], scored: pd.DataFrame,
          models: list[str], settings: dict, out_dir: str | Path | None = None,
          figures_dir: str | Path | None = None, formats: tuple[str, ...] = ("csv",),
          with_scored: bool = False) -> list[Path]:
    """Write ``<name>.<format>`` per table and format (``formats`` from :data:`FORMATS`), with ``with_scored`` the
    scored table as ``<study>_scored.<format>`` too, and ``provenance.json`` (models with the fingerprints that
    scored them, and the texts / distinct texts / distinct model inputs per model) to ``out_dir`` (default
    ``data/results/<study>``), ``<stem>.png`` per Axes to ``figures_dir`` (default ``figures/``) with a PDF copy
    beside each PNG, and return the paths written."""
    unknown_formats = [f for f in formats if f not in FORMATS]
    if unknown_formats or not formats:
        raise InputError(f"unknown output format {unknown_formats[0] if unknown_formats else None!r}; available: "
                         f"{', '.join(FORMATS)}.", fix="use csv, parquet or both.")
    out = Path(out_dir) if out_dir is not None else paths.data_dir() / "results" / study
    figures = Path(figures_dir) if figures_dir is not None else paths.figures_dir()
    check_writable(out, figures)
    out.mkdir(parents=True, exist_ok=True)
    figures.mkdir(parents=True, exist_ok=True)
    _clear_previous(out, study)
    written = []
    if with_scored:
        tables = {**tables, f"{study}_scored": scored}
    for name, frame in tables.items():
        for fmt in formats:
            written.append(write_table(frame, out / f"{name}.{fmt}"))
    for stem, ax in axes.items():
        png = plots.save(ax, figures / f"{stem}.png")
        written += [png, png.with_suffix(f".{plots.VECTOR_FORMAT}")]
    outputs = [str(p.relative_to(out)) if p.parent == out else str(p.resolve()) for p in written]
    written.append(provenance.write(out, models=models, settings=settings,
                                    fingerprints=scored.attrs.get("fingerprints"), outputs=outputs,
                                    inputs=scored.attrs.get("inputs")))
    return written
