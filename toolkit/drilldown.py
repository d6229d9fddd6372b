"""Drill-down: the cases behind a number — the two texts of each counterfactual pair, the words that
differ highlighted, their scores and Δ.

What: from a study's result, one tidy frame of text pairs (:data:`PAIR_COLUMNS`, fixed), and a widget to step
through them, largest |Δ| first.

Each study builds its own pairs with :func:`pairs_frame`, :func:`scored_table` and :func:`pick`
(``toolkit.studies.<study>.drilldown``: EEC sentence pairs, BiasFinder mutant pairs, BTC-SAM cases).

Δ = ``score_a`` − ``score_b`` (valence in [0, 1]). :func:`changed_words` diffs the two texts token by token
(difflib), :func:`pair_html` renders a pair (HTML-escaped, changed tokens in ``<mark>``), :func:`browser` is the
ipywidgets viewer. Limitation: the diff is on words and punctuation marks (``\\w+`` runs with inner apostrophes,
single marks), not characters, so "He's" → "She's" marks the whole token.
"""
from __future__ import annotations

import difflib
import html
import re

import ipywidgets as w
import pandas as pd

from toolkit.errors import InputError, SchemaError, unknown

PAIR_COLUMNS = ("key", "model", "text_a", "text_b", "group_a", "group_b", "score_a", "score_b", "delta")
"""The columns of every pairs frame (:func:`pairs_frame`)."""

SORTS: dict[str, tuple[str, bool]] = {  # browser order: label -> (column, ascending)
    "|Δ| largest first": ("_abs", False),
    "Δ highest first": ("delta", False),
    "Δ lowest first": ("delta", True),
    "key": ("key", True),
}
_TOKEN = re.compile(r"\s+|\w+(?:['’]\w+)*|[^\w\s]")


def pairs_frame(rows=()) -> pd.DataFrame:
    """A pairs frame with the fixed columns :data:`PAIR_COLUMNS` from ``rows`` (dicts or a frame holding them);
    Δ is recomputed as ``score_a − score_b``."""
    frame = pd.DataFrame(list(rows) if not isinstance(rows, pd.DataFrame) else rows, columns=list(PAIR_COLUMNS))
    frame = frame.astype({"score_a": float, "score_b": float})
    frame["delta"] = frame["score_a"] - frame["score_b"]
    for column in ("key", "model", "text_a", "text_b", "group_a", "group_b"):
        frame[column] = frame[column].astype(str)
    return frame.reset_index(drop=True)


def scored_table(result, *, study: str, columns: tuple[str, ...]) -> pd.DataFrame:
    scored = getattr(result, "scored", None)
    if not isinstance(scored, pd.DataFrame):
        raise InputError(f"not a {study} result: it has no scored table.",
                         fix=f"pass the result of toolkit.{study}.run(...).")
    missing = [c for c in columns if c not in scored.columns]
    if missing:
        raise SchemaError(f"the {study} result's scored table lacks {', '.join(map(repr, missing))}.",
                          fix=f"pass the result of toolkit.{study}.run(...).")
    return scored


def pick(scored: pd.DataFrame, column: str, value: str, *, kind: str) -> pd.DataFrame:
    valid = list(dict.fromkeys(scored[column].astype(str)))
    if value not in valid:
        raise unknown(kind, value, valid)
    return scored[scored[column].astype(str) == value]


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def changed_words(text_a: str, text_b: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """Each text as ``(token, changed)`` tuples: words (with inner apostrophes), single punctuation marks and the
    whitespace between them (never changed), so ``"".join(t for t, _ in tokens)`` gives the text back. A word or
    mark is changed where difflib's alignment of the two texts' word-and-mark sequences does not match it
    (case-sensitive; no junk heuristic)."""
    tokens = {"a": _tokens(str(text_a)), "b": _tokens(str(text_b))}
    words = {v: [i for i, t in enumerate(tokens[v]) if not t.isspace()] for v in "ab"}
    changed = {v: [False] * len(tokens[v]) for v in "ab"}
    matcher = difflib.SequenceMatcher(a=[tokens["a"][i] for i in words["a"]],
                                      b=[tokens["b"][i] for i in words["b"]], autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag != "equal":
            for v, (lo, hi) in (("a", (a0, a1)), ("b", (b0, b1))):
                for k in range(lo, hi):
                    changed[v][words[v][k]] = True
    return (list(zip(tokens["a"], changed["a"])), list(zip(tokens["b"], changed["b"])))


def marked_html(tokens: list[tuple[str, bool]]) -> str:
    """The tokens of :func:`changed_words` as HTML: escaped, changed runs in ``<mark>``."""
    out, run = [], []
    for token, changed in tokens:
        if changed:
            run.append(html.escape(token))
            continue
        if run and token.isspace():  # a space between two changed words stays inside one mark
            run.append(html.escape(token))
            continue
        if run:
            out.append(_close(run))
            run = []
        out.append(html.escape(token))
    if run:
        out.append(_close(run))
    return "".join(out)


def _close(run: list[str]) -> str:
    trailing = []
    while run and run[-1].isspace():
        trailing.insert(0, run.pop())
    return f"<mark>{''.join(run)}</mark>{''.join(trailing)}"


def _number(value) -> str:
    try:
        return "—" if pd.isna(value) else f"{float(value):.3f}"
    except (TypeError, ValueError):
        return html.escape(str(value))


def pair_html(row) -> str:
    """One pair (a row of a pairs frame, or a dict with its columns) as HTML: the key and model, both texts with
    their group and score, the changed words in ``<mark>``, and Δ = score_a − score_b. Everything escaped."""
    get = row.get if hasattr(row, "get") else (lambda k, d=None: getattr(row, k, d))
    a, b = changed_words(str(get("text_a", "")), str(get("text_b", "")))
    delta = get("delta")
    if delta is None or pd.isna(delta):
        try:
            delta = float(get("score_a")) - float(get("score_b"))
        except (TypeError, ValueError):
            delta = float("nan")
    sign = "+" if not pd.isna(delta) and float(delta) > 0 else ""
    line = ('<div style="margin:4px 0"><b>{v}</b> · <i>{group}</i> · score {score}<br>'
            '<span class="tk-pair-text">{text}</span></div>')
    return (f'<div class="tk-pair"><div><code>{html.escape(str(get("key", "")))}</code> · '
            f'{html.escape(str(get("model", "")))} · <b>Δ = {sign}{_number(delta)}</b> (a − b)</div>'
            + line.format(v="a", group=html.escape(str(get("group_a", ""))), score=_number(get("score_a")),
                          text=marked_html(a))
            + line.format(v="b", group=html.escape(str(get("group_b", ""))), score=_number(get("score_b")),
                          text=marked_html(b))
            + "</div>")


class Browser:
    """Step through a pairs frame: an order picker (|Δ| largest first by default), a model picker when it holds
    several models, a slider with Previous/Next, and the current pair (:func:`pair_html`). ``widget`` is the box to
    display; ``current()`` the pair shown (a row, or None when there is none)."""

    def __init__(self, *, pairs: pd.DataFrame, title: str = "") -> None:
        missing = [c for c in PAIR_COLUMNS if c not in getattr(pairs, "columns", ())]
        if missing:
            raise SchemaError(f"not a pairs frame: {', '.join(map(repr, missing))} missing.",
                              fix="build it with toolkit.toolkit.studies.eec.drilldown.eec_pairs / btcsam_pairs / biasfinder_pairs.")
        self.pairs = pairs.loc[:, list(PAIR_COLUMNS)].reset_index(drop=True)
        models = list(dict.fromkeys(self.pairs["model"]))
        self.title = w.HTML(f"<b>{html.escape(title)}</b>" if title else "")
        self.order = w.Dropdown(options=list(SORTS), value="|Δ| largest first", description="order",
                                layout=w.Layout(width="260px"))
        self.model = w.Dropdown(options=["all"] + models, value="all", description="model",
                                layout=w.Layout(width="260px", display="" if len(models) > 1 else "none"))
        self.slider = w.IntSlider(value=1, min=1, max=1, description="pair", continuous_update=True,
                                  layout=w.Layout(width="420px"))
        self.previous = w.Button(description="Previous", icon="arrow-left", layout=w.Layout(width="110px"))
        self.next = w.Button(description="Next", icon="arrow-right", layout=w.Layout(width="110px"))
        self.count = w.HTML(layout=w.Layout(width="160px"))
        self.view = w.HTML()
        self.previous.on_click(lambda _: self.step(-1))
        self.next.on_click(lambda _: self.step(+1))
        self.order.observe(lambda _: self._arrange(), names="value")
        self.model.observe(lambda _: self._arrange(), names="value")
        self.slider.observe(lambda _: self.show(), names="value")
        self.widget = w.VBox([self.title, w.HBox([self.order, self.model]),
                              w.HBox([self.previous, self.slider, self.next, self.count]), self.view])
        self.rows = self.pairs
        self._arrange()

    def _arrange(self) -> None:
        column, ascending = SORTS[self.order.value]
        rows = self.pairs if self.model.value == "all" else self.pairs[self.pairs["model"] == self.model.value]
        rows = rows.assign(_abs=rows["delta"].abs()).sort_values([column, "key"], ascending=[ascending, True],
                                                                 kind="stable", na_position="last")
        self.rows = rows.drop(columns="_abs").reset_index(drop=True)
        self.slider.max = max(len(self.rows), 1)
        self.slider.value = 1
        self.show()

    def step(self, step: int) -> None:
        """Move ``step`` pairs forward (negative: back), within the pairs."""
        self.slider.value = min(max(self.slider.value + step, 1), max(len(self.rows), 1))

    def current(self):
        return self.rows.iloc[self.slider.value - 1] if len(self.rows) else None

    def show(self) -> None:
        n = len(self.rows)
        self.previous.disabled = self.slider.value <= 1
        self.next.disabled = self.slider.value >= n
        self.slider.disabled = n <= 1
        self.count.value = f"{self.slider.value if n else 0} of {n:,} pairs"
        self.view.value = pair_html(self.current()) if n else "<i>No pairs to show.</i>"


def browser(*, pairs: pd.DataFrame, title: str = "") -> w.Widget:
    """A widget stepping through ``pairs`` (:data:`PAIR_COLUMNS`), |Δ| largest first, each shown by
    :func:`pair_html`; the :class:`Browser` behind it is the widget's ``browser`` attribute."""
    app = Browser(pairs=pairs, title=title)
    app.widget.browser = app
    return app.widget
