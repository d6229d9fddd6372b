"""One results folder per run: the tables as CSV, ``provenance.json`` beside them, the figures as PNG."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes

from toolkit import paths, plots, provenance


def write(*, study: str, tables: Mapping[str, pd.DataFrame], axes: Mapping[str, Axes], scored: pd.DataFrame,
          models: list[str], settings: dict, out_dir: str | Path | None = None,
          figures_dir: str | Path | None = None) -> list[Path]:
    """Write ``<name>.csv`` per table and ``provenance.json`` (models with the fingerprints that scored them) to
    ``out_dir`` (default ``data/results/<study>``), ``<stem>.png`` per Axes to ``figures_dir`` (default
    ``figures/``) with a PDF copy beside each PNG, and return the paths written."""
    out = Path(out_dir) if out_dir is not None else paths.data_dir() / "results" / study
    figures = Path(figures_dir) if figures_dir is not None else paths.figures_dir()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in tables.items():
        frame.to_csv(out / f"{name}.csv", index=False)
        written.append(out / f"{name}.csv")
    for stem, ax in axes.items():
        png = plots.save(ax, figures / f"{stem}.png")
        written += [png, png.with_suffix(f".{plots.VECTOR_FORMAT}")]
    written.append(provenance.write(out, models=models, settings=settings,
                                    fingerprints=scored.attrs.get("fingerprints")))
    return written
