"""Figures out: PNG bytes, display in a notebook or widget Output, files (PNG plus a TrueType vector copy)."""
from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from pathlib import Path

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from toolkit.plots.presets import SAVE_RC
from toolkit.plots.style import VECTOR_FORMAT


def _figure(item: Axes | Figure) -> Figure:
    return item if isinstance(item, Figure) else item.figure


def png(item: Axes | Figure, *, dpi: int = 100) -> bytes:
    """The figure holding ``item`` as PNG bytes."""
    buffer = io.BytesIO()
    _figure(item).savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def show(items: Axes | Figure | Mapping[str, Axes] | Iterable[Axes | Figure], *, output=None) -> None:
    """Display figures explicitly (as PNG images): in ``output`` (an ipywidgets ``Output``; appended, so it works
    from any thread) or in the current cell. ``items``: an Axes, a Figure, a list of them or a dict as returned by
    the studies' ``figures()``."""
    from IPython.display import Image, display

    if isinstance(items, (Axes, Figure)):
        items = [items]
    elif isinstance(items, Mapping):
        items = list(items.values())
    for item in items:
        image = Image(data=png(item), format="png")
        if output is not None:
            output.append_display_data(image)
        else:
            display(image)


def write_figure(item: Axes | Figure, target, *, fmt: str | None = None) -> None:
    """Write the figure holding ``item`` to ``target`` (a path or a binary file; ``fmt`` png, pdf, svg … when it is
    a file): PNG at 150 dpi, vector formats with TrueType fonts (:data:`SAVE_RC`), at the figure's own size (no
    tight bounding box: the PDF is as wide as the preset)."""
    kind = (fmt or Path(target).suffix.lstrip(".")).lower()
    with matplotlib.rc_context(SAVE_RC):
        _figure(item).savefig(target, format=fmt, **({"dpi": 150} if kind == "png" else {}))


def save(ax: Axes | Figure, path: str | Path, *, vector: str | None = VECTOR_FORMAT) -> Path:
    """Save the figure holding ``ax`` to ``path`` (folders created) and, unless ``vector`` is None, a vector copy
    beside it (``.pdf`` by default, or ``"svg"``; fonts embedded as TrueType); return ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_figure(ax, path)
    if vector is not None and path.suffix.lower() != f".{vector}":
        write_figure(ax, path.with_suffix(f".{vector}"))
    return path

