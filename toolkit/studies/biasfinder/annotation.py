"""BiasFinder's annotation app (Asyrofi et al. 2021, Section 6.2): annotators judge the two mutants of each sampled
BTC — coherent? (yes/no/unsure) and which sentiment? (positive/negative/neutral/unsure) — by mouse or by keyboard,
with the true-positive rate and Cohen's κ, with their intervals, inside the app.

- :func:`annotation_app` / :class:`AnnotationApp`: the two texts side by side, the words that differ highlighted
  (:func:`toolkit.drilldown.changed_words`); buttons of fixed width above the texts, so that nothing moves when a
  text is longer; a progress count ("12 of 40 annotated"); keyboard shortcuts typed into the app's key field
  (:data:`KEYS`): the four answers of a BTC are four slots (text a coherent, a sentiment, b coherent, b sentiment),
  a key answers the current slot (marked ▶) and moves to the next — ``y n u`` on a coherent slot, ``p n 0 u`` on a
  sentiment slot — so ``ypyn`` annotates one BTC; ``j``/``k`` go to the next/previous BTC, ``l``/``h`` to the
  next/previous slot. ipywidgets has no key-event widget, so the key field is a Text whose typed characters are the
  commands (each change's new characters, after the longest common prefix with the old value, in order; deletions
  do nothing): no extra dependency, and it works the same in JupyterLab, Notebook 7 and VS Code.
- Statistics, live: this annotator's TPR on the sample's finished BTCs (:func:`toolkit.studies.biasfinder.analysis.tpr_table`,
  the paper's rule, Wilson interval) and κ with every other annotator of the file on the shared mutants
  (:func:`toolkit.studies.biasfinder.analysis.kappa`); the "κ intervals" button adds κ's bootstrap interval over BTCs
  (:func:`toolkit.studies.biasfinder.analysis.kappa_table`, :func:`toolkit.stats.kappa_interval`; ``n_boot`` replicates).
- :func:`upsert_annotation`: the file semantics — one current row per (btc_id, variant, annotator),
  rewritten atomically under an exclusive lock, so annotators in other processes lose no click; cells a spreadsheet
  would run as a formula are guarded.

Inputs: ``btcs`` from :func:`toolkit.studies.biasfinder.sample_btcs` (at least ``btc_id``, ``text_a``, ``text_b``,
``attribute``). Output: the annotation CSV (columns :data:`ANNOTATION_COLUMNS`) read by
:func:`toolkit.studies.biasfinder.annotation_files.read_annotations`.
"""
from __future__ import annotations

import csv
import html
import math
import os
import tempfile
from pathlib import Path

import ipywidgets as w
import pandas as pd

from toolkit import checks
from toolkit.drilldown import changed_words, marked_html
from toolkit.errors import InputError, ToolkitError
from toolkit.outputs.files import guard_text, lock
from toolkit.studies.biasfinder.analysis import ANNOTATION_COLUMNS, kappa, kappa_table, tpr_table
from toolkit.studies.biasfinder.annotation_files import annotations_path, read_annotation_csv, read_annotations

ANNOTATION_LOCK_TIMEOUT_S = 30.0  # how long a click waits for another process saving into the same file

CHOICES: dict[str, tuple[str, ...]] = {"coherent": ("yes", "no", "unsure"),
                                       "sentiment": ("positive", "negative", "neutral", "unsure")}
SLOTS: tuple[tuple[str, str], ...] = (("a", "coherent"), ("a", "sentiment"), ("b", "coherent"), ("b", "sentiment"))
KEYS: dict[str, dict[str, str]] = {
    # the answer keys, per field (case-insensitive)
    "coherent": {"y": "yes", "n": "no", "u": "unsure"},
    "sentiment": {"p": "positive", "n": "negative", "0": "neutral", "u": "unsure"},
}
MOVES: dict[str, str] = {"j": "next BTC", "k": "previous BTC", "l": "next slot", "h": "previous slot"}
KEY_HELP = ("keys: coherent y / n / u · sentiment p / n / 0 / u · j next, k back · l / h next / previous slot")
BUTTON_WIDTH = "84px"
LABEL_WIDTH = "96px"


def _read_rows(path: Path) -> dict[tuple[str, str, str], dict[str, str]]:
    """The annotation file as {(btc_id, variant, annotator): row}, the last row winning (older files appended), the
    cells as the app was given them (:func:`toolkit.studies.biasfinder.annotation_files.read_annotation_csv`: formula guard taken
    off; a file without the annotation columns is a SchemaError, TK101)."""
    if not path.exists():
        return {}
    frame = read_annotation_csv(path).loc[:, list(ANNOTATION_COLUMNS)]
    return {(row["btc_id"], row["variant"], row["annotator"]): row for row in frame.to_dict("records")}


def _lock_path(path: Path) -> Path:
    """The lock file beside an annotation file (``.<name>.lock``; it stays)."""
    return path.with_name(f".{path.name}.lock")


def _replace_rows(path: Path, rows) -> None:
    """Write ``rows`` to a temporary file beside ``path`` and rename it over ``path``; every cell formula-guarded
    (:func:`toolkit.results.guard_text`), fields with a line break or carriage return, quote or comma quoted."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=list(ANNOTATION_COLUMNS))  # "\r\n" rows: a lone "\r" is quoted
            writer.writeheader()
            writer.writerows({c: guard_text(str(row[c])) for c in ANNOTATION_COLUMNS} for row in rows)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def upsert_annotation(path: str | Path, row: dict[str, str]) -> None:
    """Store ``row`` (columns :data:`ANNOTATION_COLUMNS`) as the one current row of its (btc_id, variant, annotator)
    in the CSV at ``path``: the file is re-read (other annotators' rows kept), updated and replaced atomically
    (a temporary file renamed over it), so a crash never leaves a partial file and no duplicates accumulate. The
    read-update-replace holds an exclusive ``fcntl.flock`` on ``.<name>.lock`` beside the file, so annotators in
    other processes saving into the same file lose no click (a click waits up to
    :data:`ANNOTATION_LOCK_TIMEOUT_S` seconds, then OutputDirError, TK105). Cells that a spreadsheet would run as a
    formula get a leading ``'`` in the file; the toolkit's readers take it off. A ``path`` that is a symbolic link
    (a shared file linked into each annotator's folder) stays a link: the file it points to is the one replaced, and
    the lock is taken beside that file, so every link to it shares one lock."""
    path = Path(os.path.realpath(path))  # write through a link, never over it
    path.parent.mkdir(parents=True, exist_ok=True)
    with lock(_lock_path(path), timeout=ANNOTATION_LOCK_TIMEOUT_S, what=f"the annotation file {str(path)!r}"):
        rows = _read_rows(path)
        rows[(row["btc_id"], row["variant"], row["annotator"])] = {c: row.get(c) or "" for c in ANNOTATION_COLUMNS}
        _replace_rows(path, rows.values())


def _common_prefix(old: str, new: str) -> int:
    n = 0
    for x, y in zip(old, new):
        if x != y:
            break
        n += 1
    return n


def _interval(estimate: float, low: float, high: float) -> str:
    if any(isinstance(v, float) and math.isnan(v) for v in (estimate, low, high)):
        return "—"
    return f"{estimate:.2f} [{low:.2f}, {high:.2f}]"


class AnnotationApp:
    """BiasFinder's annotation study: the two mutants of each sampled BTC side by side, the differing words
    highlighted, and per text buttons for coherent (yes/no/unsure) and sentiment (positive/negative/neutral/unsure),
    or the keys of :data:`KEYS` typed into the key field (``keys``). Every answer is saved at once as the one current
    row ``btc_id, variant, annotator, coherent, sentiment`` of that text (:func:`upsert_annotation`); a BTC is done
    when both texts have both fields, and the app moves on. Back and Skip (``k``/``j``) move between BTCs without
    recording. Started again, it resumes at the first BTC this annotator has not finished (skipped ones included).
    ``progress`` counts the finished BTCs; ``stats`` shows the TPR and κ (module docstring), κ's interval with
    ``n_boot`` bootstrap replicates on request. ``btcs`` from :func:`toolkit.studies.biasfinder.sample_btcs`."""

    CHOICES = CHOICES

    def __init__(self, btcs, *, path, annotator: str, n_boot: int = 1000) -> None:
        if not annotator.strip():
            raise InputError("an annotator name is needed.", fix="annotation_app(..., annotator='ann1').")
        self.btcs, self.path, self.annotator = btcs.reset_index(drop=True), Path(path), annotator.strip()
        self.n_boot = checks.n_boot(n_boot)
        self.values: dict[tuple[str, str], dict[str, str]] = {
            (btc_id, variant): {f: row[f] for f in self.CHOICES}
            for (btc_id, variant, who), row in _read_rows(self.path).items() if who == self.annotator}
        self.position = next((i for i in range(len(self.btcs)) if not self.done(i)), len(self.btcs))
        self.slot = 0
        line = w.Layout(height="26px", overflow="hidden")
        self.header, self.progress = w.HTML(layout=line), w.HTML(layout=w.Layout(height="26px", width="260px"))
        self.texts = {v: w.HTML(layout=w.Layout(width="50%", padding="0 8px 0 0")) for v in "ab"}
        self.buttons = {(v, f, c): w.Button(description=c, layout=w.Layout(width=BUTTON_WIDTH),
                                            tooltip=f"text {v}: {f} {c} (key {self._key(f, c)})")
                        for v in "ab" for f, choices in self.CHOICES.items() for c in choices}
        for (variant, field_, choice), button in self.buttons.items():
            button.on_click(lambda _, v=variant, f=field_, c=choice: self._click(variant=v, **{f: c}))
        self.labels = {(v, f): w.HTML(layout=w.Layout(width=LABEL_WIDTH)) for v, f in SLOTS}
        self.back = w.Button(description="Back", icon="arrow-left", layout=w.Layout(width=BUTTON_WIDTH),
                             tooltip="previous BTC (key k)")
        self.skip = w.Button(description="Skip", icon="arrow-right", layout=w.Layout(width=BUTTON_WIDTH),
                             tooltip="next BTC (key j)")
        self.back.on_click(lambda _: self._after_click(self.go, -1))
        self.skip.on_click(lambda _: self._after_click(self.go, +1))
        self.keys = w.Text(value="", placeholder="click here, then type keys", continuous_update=True,
                           layout=w.Layout(width="220px"))
        self.keys.add_class("tk-annotation-keys")
        self.keys.observe(self._typed, names="value")
        self.key_note = w.HTML(value=html.escape(KEY_HELP), layout=w.Layout(height="26px", overflow="hidden"))
        self.stats = w.HTML(layout=w.Layout(min_height="48px"))
        self.kappa_button = w.Button(description="κ intervals", layout=w.Layout(width="110px"),
                                     tooltip=f"Cohen's κ with a bootstrap interval over BTCs ({n_boot} replicates)")
        self.kappa_button.on_click(lambda _: self.update_statistics(intervals=True))
        columns = [w.VBox([w.HTML(f"<b>text {v}</b>")]
                          + [w.HBox([self.labels[(v, f)]] + [self.buttons[(v, f, c)] for c in choices])
                             for f, choices in self.CHOICES.items()], layout=w.Layout(width="50%"))
                   for v in "ab"]
        self.widget = w.VBox([w.HBox([self.back, self.skip, self.progress, self.header]),
                              w.HBox([self.keys, self.key_note]), w.HBox(columns),
                              w.HBox([self.texts["a"], self.texts["b"]]),
                              w.HBox([self.stats, self.kappa_button])])
        self.widget.add_class("tk-annotation-app")
        self.show()
        self.update_statistics()

    @staticmethod
    def _key(field: str, choice: str) -> str:
        return next(k for k, v in KEYS[field].items() if v == choice)

    # --- state -------------------------------------------------------------------------------------------------

    def done(self, index: int) -> bool:
        btc_id = self.btcs.at[index, "btc_id"]
        return all(self.values.get((btc_id, v), {}).get(f) for v in "ab" for f in self.CHOICES)

    def n_done(self) -> int:
        """BTCs of the sample this annotator has finished (both texts, both fields)."""
        return sum(self.done(i) for i in range(len(self.btcs)))

    def _first_open_slot(self) -> int | None:
        if self.position >= len(self.btcs):
            return None
        btc_id = self.btcs.at[self.position, "btc_id"]
        return next((i for i, (v, f) in enumerate(SLOTS) if not self.values.get((btc_id, v), {}).get(f)), None)

    def go(self, step: int) -> None:
        """Move ``step`` BTCs back (negative) or forward without recording anything."""
        self.position = min(max(self.position + step, 0), len(self.btcs))
        self.slot = self._first_open_slot() or 0
        self.show()

    def record(self, *, variant: str, coherent: str | None = None, sentiment: str | None = None) -> None:
        """Set one or both fields of text ``variant`` (a|b) of the current BTC, save its row, move on when done."""
        for f, value in (("coherent", coherent), ("sentiment", sentiment)):
            if value is not None and value not in self.CHOICES[f]:
                raise InputError(f"unknown {f} {value!r}; available: {', '.join(self.CHOICES[f])}.",
                                 fix=f"record(variant='a', {f}='{self.CHOICES[f][0]}').")
        if variant not in ("a", "b"):
            raise InputError(f"variant must be 'a' or 'b'; got {variant!r}.", fix="record(variant='a', ...).")
        if self.position >= len(self.btcs):
            return
        index, btc_id = self.position, self.btcs.at[self.position, "btc_id"]
        was_done = self.done(index)
        current = self.values.setdefault((btc_id, variant), {f: "" for f in self.CHOICES})
        current.update({f: v for f, v in (("coherent", coherent), ("sentiment", sentiment)) if v is not None})
        upsert_annotation(self.path, {"btc_id": btc_id, "variant": variant, "annotator": self.annotator, **current})
        answered = [i for i, (v, f) in enumerate(SLOTS)
                    if v == variant and (f == "coherent" and coherent or f == "sentiment" and sentiment)]
        if self.done(self.position) and not was_done:  # a correction of a finished BTC stays on it
            self.position += 1
            self.slot = self._first_open_slot() or 0
        else:
            open_slot = self._first_open_slot()
            self.slot = open_slot if open_slot is not None else (max(answered, default=self.slot) + 1) % len(SLOTS)
        self.show()
        if self.done(index):  # a finished BTC (or a correction of one) changes the TPR and κ
            self.update_statistics()

    # --- keyboard ----------------------------------------------------------------------------------------------

    def press(self, key: str) -> None:
        """Act on one key (:data:`KEYS`, :data:`MOVES`); an unknown key is named in the key line, nothing else."""
        key = key.lower()
        if key.isspace():
            return
        variant, field_ = SLOTS[self.slot]
        if key in KEYS[field_] and self.position < len(self.btcs):
            self.record(variant=variant, **{field_: KEYS[field_][key]})
            self.key_note.value = html.escape(f"{key} → text {variant} {field_} {KEYS[field_][key]} · {KEY_HELP}")
        elif key in ("j", "k"):
            self.go(+1 if key == "j" else -1)
            self.key_note.value = html.escape(f"{key} → {MOVES[key]} · {KEY_HELP}")
        elif key in ("l", "h"):
            self.slot = (self.slot + (1 if key == "l" else -1)) % len(SLOTS)
            self.show()
        else:
            valid = ", ".join(KEYS[field_]) if self.position < len(self.btcs) else "none (the sample is done)"
            self.key_note.value = (f'<span style="color:#b00020">key “{html.escape(key)}” does nothing on a '
                                   f"{field_} slot (answers: {html.escape(valid)}; j/k move)</span>")

    def _typed(self, change) -> None:
        old, new = change["old"] or "", change["new"] or ""
        for key in new[_common_prefix(old, new):]:
            try:
                self.press(key)
            except ToolkitError as exc:  # a locked or broken file: say so in the app, keep the kernel quiet
                self.key_note.value = f'<span style="color:#b00020">✖ {html.escape(str(exc))}</span>'
                return

    def _click(self, **answer) -> None:
        self._after_click(lambda: self.record(**answer))

    def _after_click(self, action, *args) -> None:
        try:
            action(*args)
        except ToolkitError as exc:
            self.key_note.value = f'<span style="color:#b00020">✖ {html.escape(str(exc))}</span>'
        self.keys.focus()  # the next key goes to the app again, not to the clicked button

    # --- display -----------------------------------------------------------------------------------------------

    def show(self) -> None:
        n = len(self.btcs)
        finished = self.position >= n
        self.back.disabled = self.position == 0
        self.skip.disabled = finished
        self.progress.value = f"<b>{self.n_done()} of {n} annotated</b>"
        for button in self.buttons.values():
            button.disabled = finished
        for i, (v, f) in enumerate(SLOTS):
            here = not finished and i == self.slot
            self.labels[(v, f)].value = f"{'▶ ' if here else ''}{'<b>' if here else ''}{f}{'</b>' if here else ''}"
        if finished:
            left = n - self.n_done()
            self.header.value = ("<b>No BTCs to annotate: the sample is empty.</b>" if not n else
                                 f"<b>All {n} BTCs annotated by {html.escape(self.annotator)}.</b>"
                                 if not left else f"<b>End of the sample: {left} BTC(s) skipped or unfinished "
                                 "(Back to return; re-run the cell to resume at the first).</b>")
            for text in self.texts.values():
                text.value = ""
            for button in self.buttons.values():
                button.button_style = ""
            return
        btc = self.btcs.iloc[self.position]
        marked = dict(zip("ab", (marked_html(t) for t in changed_words(str(btc["text_a"]), str(btc["text_b"])))))
        status = " · ✔ done" if self.done(self.position) else ""
        self.header.value = (f"<b>BTC {self.position + 1} of {n}</b> · {html.escape(self.annotator)} · "
                             f"{html.escape(str(btc['attribute']))}{status}")
        for v in "ab":
            self.texts[v].value = f"<p><b>{v}</b>: {marked[v]}</p>"
            chosen = self.values.get((btc["btc_id"], v), {})
            for f, choices in self.CHOICES.items():
                for c in choices:
                    self.buttons[(v, f, c)].button_style = "info" if chosen.get(f) == c else ""

    # --- statistics --------------------------------------------------------------------------------------------

    def annotations(self) -> pd.DataFrame:
        """The file's finished annotations (:func:`toolkit.studies.biasfinder.annotation_files.read_annotations`) of this sample's BTCs."""
        frame = read_annotations(self.path)
        return frame[frame["btc_id"].isin(set(self.btcs["btc_id"]))].reset_index(drop=True)

    def statistics(self, *, intervals: bool = False) -> dict:
        """This annotator's TPR (paper rule) with its Wilson interval on the sample's finished BTCs, and κ on
        coherent and sentiment against each other annotator (with the bootstrap interval when ``intervals``):
        ``{"tpr": row of tpr_table or None, "kappa": [{"other", "field", "kappa", "kappa_low", "kappa_high",
        "n_mutants"} | {"other", "field", "error"}]}``."""
        frame = self.annotations()
        mine = frame[frame["annotator"] == self.annotator]
        out: dict = {"tpr": None, "kappa": []}
        if len(mine):
            out["tpr"] = tpr_table(mine).iloc[0].to_dict()
        others = sorted(set(frame["annotator"]) - {self.annotator}) if len(mine) else []
        for other in others:
            for field_ in ("coherent", "sentiment"):
                pair = (self.annotator, other)
                try:
                    if intervals:
                        row = kappa_table(frame, field=field_, annotators=pair, n_boot=self.n_boot).iloc[0]
                        out["kappa"].append({"other": other, "field": field_, **{k: row[k] for k in (
                            "kappa", "kappa_low", "kappa_high", "n_mutants")}})
                    else:
                        out["kappa"].append({"other": other, "field": field_, "kappa": kappa(
                            frame, field=field_, annotators=pair), "kappa_low": math.nan, "kappa_high": math.nan,
                            "n_mutants": None})
                except ToolkitError as exc:
                    out["kappa"].append({"other": other, "field": field_, "error": exc.message})
        return out

    def update_statistics(self, *, intervals: bool = False) -> None:
        """Redraw the statistics line (κ intervals when ``intervals``: ``n_boot`` bootstrap replicates)."""
        try:
            found = self.statistics(intervals=intervals)
        except ToolkitError as exc:
            self.stats.value = f'<span style="color:#b00020">✖ {html.escape(str(exc))}</span>'
            return
        row = found["tpr"]
        parts = [("TPR (paper rule): no finished BTC yet" if row is None else
                  f"TPR {html.escape(self.annotator)}: {int(row['true_positives'])} of {int(row['n_btcs'])} = "
                  f"{_interval(row['tpr'], row['tpr_low'], row['tpr_high'])} (Wilson 95 %)")]
        for k in found["kappa"]:
            who = f"κ {k['field']} vs {html.escape(k['other'])}"
            if "error" in k:
                parts.append(f"{who}: — ({html.escape(k['error'], quote=False)})")
            elif intervals:
                parts.append(f"{who}: {_interval(k['kappa'], k['kappa_low'], k['kappa_high'])} "
                             f"(bootstrap over BTCs, {k['n_mutants']} texts)")
            else:
                parts.append(f"{who}: {k['kappa']:.2f}")
        if not found["kappa"]:
            parts.append("κ: no other annotator of this sample yet" if row is not None else
                         "κ: once you have finished a BTC")
        self.stats.value = "<br>".join(parts)


def annotation_app(btcs, *, annotator: str, path=None, n_boot: int = 1000) -> AnnotationApp:
    """Build the BTC annotation app (``path`` default: data/annotations/biasfinder.csv); display ``app.widget``.
    ``n_boot``: bootstrap replicates of the κ intervals."""
    return AnnotationApp(btcs, path=path if path is not None else annotations_path(), annotator=annotator,
                         n_boot=n_boot)
