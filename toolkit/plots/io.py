"""Figures out: PNG bytes, display in a notebook or widget Output, files (PNG plus a TrueType vector copy)."""
from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from toolkit.errors import InputError
from toolkit.plots.presets import SAVE_RC
from toolkit.plots.style import VECTOR_FORMAT

TITLES_ENV = "TOOLKIT_FIGURE_TITLES"
TITLES = ("on", "off")
"""``$TOOLKIT_FIGURE_TITLES``: ``on`` (default) draws each figure's titles; ``off`` saves it without them (the
caption says it in the paper) and puts their words in the file's ``Title`` metadata (``make figures TITLES=off``)."""


def figure_titles() -> bool:
    """Whether saved figures keep their titles: ``$TOOLKIT_FIGURE_TITLES`` (:data:`TITLES`; unset or empty: on);
    any other value is TK102 naming the valid ones."""
    value = os.environ.get(TITLES_ENV, "").strip().lower()
    if value not in ("", *TITLES):
        raise InputError(f"${TITLES_ENV}={value!r} is not one of {', '.join(TITLES)}.",
                         fix=f"set {TITLES_ENV}=off to save figures without titles, on (or unset) to keep them.")
    return value != "off"


@contextmanager
def _without_titles(figure: Figure) -> Iterator[str]:
    """The figure with its titles (the suptitle, every Axes' left, centre and right title) blanked, yielding their
    words joined by " | "; restored afterwards, so the figure on screen keeps them."""
    texts = [t for t in [getattr(figure, "_suptitle", None)] + [t for ax in figure.axes for t in
             (ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None))]
             if t is not None and t.get_text().strip()]
    words = [t.get_text() for t in texts]
    try:
        for text in texts:
            text.set_text("")
        yield " | ".join(" ".join(w.split()) for w in words)
    finally:
        for text, word in zip(texts, words):
            text.set_text(word)


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


def write_figure(item: Axes | Figure, target, *, fmt: str | None = None, titles: bool | None = None) -> None:
    """Write the figure holding ``item`` to ``target`` (a path or a binary file; ``fmt`` png, pdf, svg … when it is
    a file): PNG at 150 dpi, vector formats with TrueType fonts (:data:`SAVE_RC`), at the figure's own size (no
    tight bounding box: the PDF is as wide as the preset). ``titles`` False (default :func:`figure_titles`) saves it
    without its titles, their words in the file's ``Title`` metadata (for the caption)."""
    kind = (fmt or Path(target).suffix.lstrip(".")).lower()
    if titles is not None and not isinstance(titles, bool):  # "off" is a true value: it would keep them
        raise InputError(f"titles={titles!r}: give True, False or None (None: ${TITLES_ENV}).",
                         fix="pass titles=False to save without titles.")
    keep = figure_titles() if titles is None else titles
    figure = _figure(item)
    with matplotlib.rc_context(SAVE_RC):
        if keep:
            figure.savefig(target, format=fmt, **({"dpi": 150} if kind == "png" else {}))
            return
        with _without_titles(figure) as words:
            metadata = {"Title": words} if words and kind in ("png", "pdf", "svg") else None
            figure.savefig(target, format=fmt, metadata=metadata, **({"dpi": 150} if kind == "png" else {}))


def save(ax: Axes | Figure, path: str | Path, *, vector: str | None = VECTOR_FORMAT,
         titles: bool | None = None) -> Path:
    """Save the figure holding ``ax`` to ``path`` (folders created) and, unless ``vector`` is None, a vector copy
    beside it (``.pdf`` by default, or ``"svg"``; fonts embedded as TrueType); ``titles``: as
    :func:`write_figure`; return ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_figure(ax, path, titles=titles)
    if vector is not None and path.suffix.lower() != f".{vector}":
        write_figure(ax, path.with_suffix(f".{vector}"), titles=titles)
    return path

