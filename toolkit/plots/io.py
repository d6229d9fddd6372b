"""Figures out: PNG bytes, display in a notebook or widget Output, files (PNG plus a TrueType vector copy)."""
from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from toolkit.errors import InputError
from toolkit.plots.presets import SAVE_RC, TITLES, TITLES_ENV, figure_captions, figure_titles  # noqa: F401 (TITLES)
from toolkit.plots.style import VECTOR_FORMAT


def _title_texts(figure: Figure) -> list:
    """The figure's titles that hold words: its suptitle where it has one (the panels' own titles then name the
    panels — a task, a system, a study — and stay: round 24 found a grid of unnamed panels), else every Axes' left,
    centre and right title (a single plot's title is the figure's)."""
    suptitle = getattr(figure, "_suptitle", None)
    if suptitle is not None and suptitle.get_text().strip():
        return [suptitle]
    return [t for ax in figure.axes for t in (ax.title, getattr(ax, "_left_title", None),
                                              getattr(ax, "_right_title", None))
            if t is not None and t.get_text().strip()]


def caption_text(item: Axes | Figure) -> str:
    """The caption's words of the figure holding ``item``: its titles (joined by " | ") and the notes
    :func:`toolkit.plots.style._note_below` kept off it under ``TITLES=caption``, one paragraph each (and each
    line of a note: a note's own paragraphs, as the figure draws them, stay paragraphs)."""
    figure = _figure(item)
    titles = " | ".join(" ".join(t.get_text().split()) for t in _title_texts(figure))
    notes = [" ".join(line.split()) for n in getattr(figure, "toolkit_caption_notes", []) for line in n.split("\n")
             if line.strip()]
    return plain_text("\n\n".join(part for part in [titles, *notes] if part)) + "\n"


_MATH = re.compile(r"(?<!\\)\$([^$]+)\$")
_MATH_WORDS = {r"\leq": "≤", r"\geq": "≥", r"\times": "×", r"\pm": "±", r"\Delta": "Δ", r"\tau": "τ",
               r"\kappa": "κ", r"\alpha": "α", r"\approx": "≈", r"\neq": "≠", r"\sqrt": "√", r"\infty": "∞"}


def plain_text(text: str) -> str:
    """``text`` with matplotlib's mathtext (``$p_\\mathrm{adj}$``) written as plain text (``p_adj``), for a caption
    file that a paper's caption is typed from: the font commands dropped, the symbols as Unicode, a subscript as
    ``_``; text without ``$…$`` is returned unchanged."""
    def plain(match: re.Match) -> str:
        math = re.sub(r"\\math(?:rm|it|bf|sf|tt)\{([^}]*)\}", r"\1", match.group(1))
        for command, symbol in _MATH_WORDS.items():
            math = re.sub(re.escape(command) + r"(?![A-Za-z])", symbol, math)
        return math.replace("{", "").replace("}", "").replace("\\", "")
    return _MATH.sub(plain, text).replace("\\$", "$")  # an escaped dollar is a dollar sign


@contextmanager
def _without_titles(figure: Figure) -> Iterator[str]:
    """The figure with its titles (the suptitle, every Axes' left, centre and right title) blanked, yielding their
    words joined by " | "; restored afterwards, so the figure on screen keeps them."""
    texts = _title_texts(figure)
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
    :func:`write_figure`; under ``$TOOLKIT_FIGURE_TITLES=caption`` also ``<stem>.caption.txt``, the words the
    figure left to its caption (:func:`caption_text`); return ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_figure(ax, path, titles=titles)
    if vector is not None and path.suffix.lower() != f".{vector}":
        write_figure(ax, path.with_suffix(f".{vector}"), titles=titles)
    if figure_captions():
        path.with_suffix(".caption.txt").write_text(caption_text(ax), encoding="utf-8")
    return path

