"""One results folder per run: the tables as CSV, ``provenance.json`` beside them, the figures as PNG.

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
from toolkit.errors import OutputDirError


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
        if path.name.startswith(f"{study}_") and path.suffix in (".csv", ".png", ".pdf", ".svg") and path.is_file():
            path.unlink()
            removed.append(path)
    return removed


def write(*, study: str, tables: Mapping[str, pd.DataFrame], axes: Mapping[str, Axes], scored: pd.DataFrame,
          models: list[str], settings: dict, out_dir: str | Path | None = None,
          figures_dir: str | Path | None = None) -> list[Path]:
    """Write ``<name>.csv`` per table and ``provenance.json`` (models with the fingerprints that scored them) to
    ``out_dir`` (default ``data/results/<study>``), ``<stem>.png`` per Axes to ``figures_dir`` (default
    ``figures/``) with a PDF copy beside each PNG, and return the paths written."""
    out = Path(out_dir) if out_dir is not None else paths.data_dir() / "results" / study
    figures = Path(figures_dir) if figures_dir is not None else paths.figures_dir()
    check_writable(out, figures)
    out.mkdir(parents=True, exist_ok=True)
    figures.mkdir(parents=True, exist_ok=True)
    _clear_previous(out, study)
    written = []
    for name, frame in tables.items():
        frame.to_csv(out / f"{name}.csv", index=False)
        written.append(out / f"{name}.csv")
    for stem, ax in axes.items():
        png = plots.save(ax, figures / f"{stem}.png")
        written += [png, png.with_suffix(f".{plots.VECTOR_FORMAT}")]
    outputs = [str(p.relative_to(out)) if p.parent == out else str(p.resolve()) for p in written]
    written.append(provenance.write(out, models=models, settings=settings,
                                    fingerprints=scored.attrs.get("fingerprints"), outputs=outputs))
    return written
