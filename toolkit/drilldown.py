"""Drill-down: the cases behind a number — the two texts of each counterfactual pair, the words that
differ highlighted, their scores and Δ.

What: from a study's result, one tidy frame of text pairs (:data:`PAIR_COLUMNS`, fixed), and a widget to step
through them, largest |Δ| first.

- :func:`eec_pairs` — an EEC system (``model``) and ``attribute``: per template instantiation (``case_id``), for
  gender each of the 10 noun-phrase pairs ("my sister" / "my brother") and the 20 name pairs (the i-th female name
  against the i-th male name of the same race, list order); for race the 20 name pairs (the i-th African-American
  name against the i-th European name of the same gender: :mod:`toolkit.studies.eec`'s race units). The mean Δ of a
  case's name pairs is the paper's names-mean Δ of that case (the mean is linear). ``key``:
  ``<case_id>|<pair>``, the pair being the two names ("Ebony/Alonzo") or the study's noun-phrase pair
  ("she/he", "my sister/my brother": :func:`toolkit.studies.eec.pairs`' ``pair``).
- :func:`btcsam_pairs` — a BTC-SAM cell (``test_set`` × ``model``, optionally one ``bias_type``): per test case,
  the text with the highest valence against the one with the lowest (the pair that spans the case's score range).
  ``key``: the ``case_id``.
- :func:`biasfinder_pairs` — a BiasFinder ``template`` (its ``case_id``), every model: the pairs of mutants of
  different classes (``btcs_only=True``: only those the model labels differently, the BTCs). ``key``: the BTC id
  of :func:`toolkit.studies.biasfinder.sample_btcs`, ``model|variant_a|variant_b``.

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
from toolkit.studies.eec import ATTRIBUTES, name_groups

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


def _scored(result, *, study: str, columns: tuple[str, ...]) -> pd.DataFrame:
    scored = getattr(result, "scored", None)
    if not isinstance(scored, pd.DataFrame):
        raise InputError(f"not a {study} result: it has no scored table.",
                         fix=f"pass the result of toolkit.{study}.run(...).")
    missing = [c for c in columns if c not in scored.columns]
    if missing:
        raise SchemaError(f"the {study} result's scored table lacks {', '.join(map(repr, missing))}.",
                          fix=f"pass the result of toolkit.{study}.run(...).")
    return scored


def _pick(scored: pd.DataFrame, column: str, value: str, *, kind: str) -> pd.DataFrame:
    valid = list(dict.fromkeys(scored[column].astype(str)))
    if value not in valid:
        raise unknown(kind, value, valid)
    return scored[scored[column].astype(str) == value]


def eec_pairs(result, *, model: str, attribute: str) -> pd.DataFrame:
    """The EEC sentence pairs of ``model`` for ``attribute`` (gender|race) from an :class:`toolkit.eec.EECResult`
    (see the module docstring), columns :data:`PAIR_COLUMNS`, ordered by case (name pairs in list order, then the
    noun-phrase pairs in the table's order). Vectorised: two merges on (case, person), no loop over cases."""
    if attribute not in ATTRIBUTES:
        raise unknown("attribute", attribute, ATTRIBUTES)
    scored = _scored(result, study="eec", columns=("model", "case_id", "text", "person", "gender", "race", "np_pair",
                                                   "score"))
    data = _pick(scored, "model", model, kind="model")
    data = data.loc[:, ["case_id", "person", "text", "gender", "np_pair", "score"]].reset_index(drop=True)
    data["_pos"] = range(len(data))  # the table's order: the noun-phrase pairs of a case come in it
    group_a, group_b = ATTRIBUTES[attribute][:2]
    sentences = data.drop_duplicates(["case_id", "person"])  # a case's sentence of a person
    firsts_a, firsts_b = name_groups(attribute=attribute)
    matches = pd.DataFrame({"label": [f"{a}/{b}" for a, b in zip(firsts_a, firsts_b)], "person_a": firsts_a,
                            "person_b": firsts_b, "_rank": range(len(firsts_a))})
    cases = pd.DataFrame({"case_id": sentences["case_id"].drop_duplicates()})
    frames = [cases.merge(matches, how="cross")]  # every case × the name pairs of the study's units
    if attribute == "gender":  # the noun-phrase pairs: a case's first female and first male sentence of each pair
        phrases = data[data["np_pair"] != ""]
        first = phrases.drop_duplicates(["case_id", "np_pair"])[["case_id", "np_pair", "_pos"]]
        sides = [phrases[phrases["gender"] == g].drop_duplicates(["case_id", "np_pair"])
                 [["case_id", "np_pair", "person"]].rename(columns={"person": f"person_{v}"})
                 for g, v in (("female", "a"), ("male", "b"))]
        np_matches = first.merge(sides[0], on=["case_id", "np_pair"]).merge(sides[1], on=["case_id", "np_pair"])
        frames.append(np_matches.rename(columns={"np_pair": "label"}).assign(
            _rank=len(matches) + np_matches["_pos"]).drop(columns="_pos"))
    found = pd.concat(frames, ignore_index=True)
    side = sentences[["case_id", "person", "text", "score"]]
    for v in ("a", "b"):  # inner merges: a pair whose sentence is missing is left out
        found = found.merge(side.rename(columns={"person": f"person_{v}", "text": f"text_{v}",
                                                 "score": f"score_{v}"}), on=["case_id", f"person_{v}"])
    found = found.sort_values(["case_id", "_rank"], kind="stable")
    return pairs_frame(pd.DataFrame({
        "key": found["case_id"].astype(str) + "|" + found["label"].astype(str), "model": model,
        "text_a": found["text_a"], "text_b": found["text_b"], "group_a": group_a, "group_b": group_b,
        "score_a": found["score_a"], "score_b": found["score_b"]}))


def btcsam_pairs(result, *, test_set: str, model: str, bias_type: str | None = None) -> pd.DataFrame:
    """Per test case of ``test_set`` (and ``bias_type``, if given) scored by ``model`` in a
    :class:`toolkit.btcsam.BTCSAMResult`: its highest-valence text (a) against its lowest (b), columns
    :data:`PAIR_COLUMNS`, ``key`` the case id; cases with fewer than two scored texts are left out. Ties: the
    last of the highest and the first of the lowest in the table's order."""
    scored = _scored(result, study="btcsam", columns=("model", "test_set", "bias_type", "case_id", "text", "score"))
    data = _pick(_pick(scored, "test_set", test_set, kind="test set"), "model", model, kind="model")
    if bias_type is not None:
        data = _pick(data, "bias_type", bias_type, kind="bias type")
    data = data[data["score"].notna()]
    group = (data["group"] if "group" in data.columns else pd.Series("", index=data.index)).fillna("").astype(str)
    if "fill" in data.columns:
        group = group.where(group != "", data["fill"].fillna("").astype(str))
    data = data.assign(_group=group).sort_values(["case_id", "score"], kind="stable")
    sizes = data.groupby("case_id", sort=True)["score"].transform("size")
    data = data[sizes >= 2]
    by_case = data.groupby("case_id", sort=True)
    a, b = by_case.nth(-1).set_index("case_id"), by_case.nth(0).set_index("case_id")
    return pairs_frame(pd.DataFrame({"key": a.index, "model": model, "text_a": a["text"].to_numpy(),
                                     "text_b": b["text"].to_numpy(), "group_a": a["_group"].to_numpy(),
                                     "group_b": b["_group"].to_numpy(), "score_a": a["score"].to_numpy(),
                                     "score_b": b["score"].to_numpy()}))


def biasfinder_pairs(result, *, template: str, btcs_only: bool = False) -> pd.DataFrame:
    """The mutant pairs of BiasFinder template ``template`` (a ``case_id`` of the result's scored table) for every
    model of a :class:`toolkit.biasfinder.BiasFinderResult`: each pair of mutants of different classes, ordered by
    variant id (``btcs_only``: only the BTCs, pairs the model labels differently), columns :data:`PAIR_COLUMNS`."""
    scored = _scored(result, study="biasfinder", columns=("model", "case_id", "variant_id", "text", "group", "label",
                                                          "score"))
    data = _pick(scored, "case_id", template, kind="template")
    data = data[data["group"].fillna("").astype(str) != ""]
    if "is_original" in data.columns:
        data = data[~data["is_original"].fillna(False).astype(bool)]
    data = data.loc[:, ["model", "variant_id", "text", "group", "label", "score"]]
    data["_model"] = pd.factorize(data["model"])[0]  # the models in the table's order
    data = data.sort_values(["_model", "variant_id"], kind="stable")
    data["_rank"] = range(len(data))
    both = data.merge(data.drop(columns="model"), on="_model", suffixes=("_a", "_b"))  # each model's mutants²
    keep = (both["_rank_a"] < both["_rank_b"]) & (both["group_a"] != both["group_b"])
    if btcs_only:
        keep &= both["label_a"] != both["label_b"]
    both = both[keep].sort_values(["_rank_a", "_rank_b"])
    return pairs_frame(pd.DataFrame({
        "key": both["model"].astype(str) + "|" + both["variant_id_a"].astype(str) + "|"
        + both["variant_id_b"].astype(str), "model": both["model"], "text_a": both["text_a"],
        "text_b": both["text_b"], "group_a": both["group_a"], "group_b": both["group_b"],
        "score_a": both["score_a"], "score_b": both["score_b"]}))


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
                              fix="build it with toolkit.drilldown.eec_pairs / btcsam_pairs / biasfinder_pairs.")
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
