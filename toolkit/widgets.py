"""ipywidgets apps: pickers wired to the package's functions, nothing more.

Every app draws on figures pyplot does not manage (:mod:`toolkit.plots`) and appends them to its own ``Output``
explicitly, so JupyterLab's widget-message threads and pyplot's redraw hooks never touch them. While Run works the
button is disabled and a status line says what is running; a coded error (``[TK…] … Fix: …``) and any warnings are
shown in the app as short lines, not as a traceback.
"""
from __future__ import annotations

import html
import time
import warnings
from collections.abc import Callable, Sequence

import ipywidgets as w

from toolkit import eec, plots
from toolkit.errors import ToolkitError
from toolkit.models import OFFLINE_DEFAULTS, ait, available


class _App:
    """Run-button plumbing shared by the apps: ``button``, ``status`` line, ``output`` area."""

    def _controls(self) -> None:
        self.button = w.Button(description="Run", button_style="primary", icon="play")
        self.status = w.HTML(value="")
        self.output = w.Output()
        self.error: str | None = None
        self.button.on_click(lambda _: self.run())

    def _say(self, text: str, *, colour: str = "#555") -> None:
        self.status.value = f'<span style="color:{colour}">{html.escape(text)}</span>'

    def _work(self, label: str, task: Callable[[], None]) -> bool:
        """Run ``task`` with the button disabled and a status line; show a coded error or warnings as lines.
        Returns whether it succeeded."""
        self.button.disabled, self.button.description, self.button.icon = True, "Running…", "spinner"
        self.output.outputs = ()
        self.error = None
        self._say(f"⏳ {label} …")
        started = time.perf_counter()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                task()
        except ToolkitError as exc:
            self.error = str(exc)
            self._say(f"✖ {exc}", colour="#b00020")
            return False
        except Exception as exc:  # unexpected: say so in the app, then let the kernel report it
            self._say(f"✖ unexpected {type(exc).__name__}: {exc}", colour="#b00020")
            raise
        finally:
            self.button.disabled, self.button.description, self.button.icon = False, "Run", "play"
        notes = list(dict.fromkeys(str(c.message) for c in caught if not issubclass(c.category, DeprecationWarning)))
        self._say(f"✔ done in {time.perf_counter() - started:.1f} s" + "".join(f" · note: {n}" for n in notes),
                  colour="#1b5e20")
        return True

    def _show(self, item) -> None:
        """Append a table (or any displayable) to the output area."""
        self.output.append_display_data(item)


def _named_models(models: Sequence[str]) -> w.SelectMultiple:
    named = [m for m in available() if ":" not in m]
    return w.SelectMultiple(options=named, value=[m for m in models if m in named], description="models")


class EECApp(_App):
    """Pick a task, models (and extra ``hf:``/``py:``/``ait:`` specs), a subset; Run re-scores and redraws.

    The task picker (valence, anger, fear, joy, sadness, or ``all`` five) offers that task's systems: the offline
    valence models, or the trained SemEval-2018 zoo (``ait:``). ``widget`` is the box to display; ``result`` holds
    the last :class:`toolkit.eec.EECResult`.
    """

    def __init__(self, *, models: Sequence[str] | None = None, task: str = "valence", cache: bool = True) -> None:
        self.task = w.Dropdown(options=eec.TASK_CHOICES, value=task, description="task")
        self.models = w.SelectMultiple(description="models", rows=8)
        self.extra = w.Text(placeholder="hf:/path/to/model, py:module:function", description="more specs")
        self._offer_models(models)
        self.task.observe(lambda _: self._offer_models(None), names="value")
        self.subset = w.Dropdown(options=eec.SUBSETS, value="all", description="subset")
        self._controls()
        self.cache = cache
        self.result: eec.EECResult | None = None
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.task, self.extra, self.subset, self.button])]),
                              self.status, self.output])

    def _offer_models(self, models: Sequence[str] | None) -> None:
        """The task's systems as options (valence: the named models and the valence zoo); ``models`` (default: the
        task's defaults) selected among them, any other spec put in the "more specs" field (never dropped)."""
        task = self.task.value
        named = [m for m in available() if ":" not in m] if task == "valence" else []
        options = named + ait.specs(task)
        chosen = eec.default_models(task) if models is None else list(models)
        self.models.options = options
        self.models.value = [m for m in chosen if m in options]
        if models is not None:
            self.extra.value = ", ".join(m for m in chosen if m not in options)

    def specs(self) -> list[str]:
        extra = [s.strip() for s in self.extra.value.split(",") if s.strip()]
        return list(self.models.value) + extra

    def run(self) -> None:
        specs, subset, task_name = self.specs(), self.subset.value, self.task.value

        def task() -> None:
            self.result = None
            self.result = eec.run(models=specs, task=task_name, subsets=[subset], cache=self.cache, progress=False)
            for attribute in eec.ATTRIBUTES:
                self._show(eec.paper_table(self.result.tests, attribute=attribute))
            # one figure per attribute, a panel per task
            plots.show([panels[0] for panels in eec.figures(self.result, subset=subset).values()], output=self.output)

        self._work(f"scoring 8,640 EEC sentences ({task_name}) with {len(specs)} model(s): {', '.join(specs)}", task)


def eec_app(*, models: Sequence[str] | None = None, task: str = "valence", cache: bool = True) -> EECApp:
    """Build the EEC app for ``task`` (default models: the task's systems); display ``app.widget`` in a notebook."""
    return EECApp(models=models, task=task, cache=cache)


class PSAApp(_App):
    """Pick a corpus, models, a name set and a sample size; Run scores; the threshold slider redraws the label-flip
    view from the last result without re-scoring. ``widget`` is the box to display; ``result`` the last run."""

    def __init__(self, *, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n: int = 50,
                 cache: bool = True) -> None:
        from toolkit import psa

        self._psa = psa
        self.corpus = w.Text(value=str(corpus), description="corpus", placeholder="'sample' or a CSV/JSONL path")
        self.models = _named_models(models)
        self.names = w.Text(value="", description="names CSV", placeholder="blank: 48 public figures")
        self.n = w.BoundedIntText(value=n, min=2, max=100_000, description="sentences")
        self.threshold = w.FloatSlider(value=0.5, min=0.05, max=0.95, step=0.05, description="threshold",
                                       continuous_update=False)
        self._controls()
        self.flips = w.Output()
        self.cache = cache
        self.result = None
        self.threshold.observe(lambda _: self.redraw_flips(), names="value")
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.corpus, self.names, self.n, self.button])]),
                              self.status, self.output, self.threshold, self.flips])

    def run(self) -> None:
        models, corpus = list(self.models.value), self.corpus.value.strip()

        def task() -> None:
            self.result = None
            self.result = self._psa.run(corpus=corpus, models=models, names=self.names.value.strip() or None,
                                        n=self.n.value, cache=self.cache, progress=False)
            self._show(self._psa.table2(self.result.summary))
            plots.show(self._psa.figures(self.result), output=self.output)

        if self._work(f"PSA on {corpus!r}: {self.n.value} sentences × names, {len(models)} model(s)", task):
            self.redraw_flips()

    def redraw_flips(self) -> None:
        self.flips.outputs = ()
        if self.result is None:
            return
        ax = plots.psa_label_flips(self._psa.label_flips(self.result.scored, threshold=self.threshold.value))
        plots.show(ax, output=self.flips)


def psa_app(*, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n: int = 50,
            cache: bool = True) -> PSAApp:
    """Build the PSA app; display ``app.widget`` in a notebook."""
    return PSAApp(corpus=corpus, models=models, n=n, cache=cache)


class BTCSAMApp(_App):
    """Pick models (and extra ``hf:``/``llm:`` specs), θ and the failure rule; Run scores the given test sets (cached)
    and shows the detection-probability heatmap and table. ``widget`` is the box to display; ``result`` the last
    run."""

    def __init__(self, *, sets: dict, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> None:
        from toolkit import btcsam

        self._btcsam, self.sets, self.cache = btcsam, sets, cache
        self.models = _named_models(models)
        self.extra = w.Text(value=", ".join(m for m in models if m not in self.models.options),
                            placeholder="hf:…, llm:hf:…, llm:openai:<model>@<url>", description="more specs")
        self.theta = w.SelectionSlider(options=list(btcsam.THETAS), value=0.2, description="θ")
        self.rule = w.Dropdown(options=btcsam.RULES, value="published", description="rule")
        self._controls()
        self.result = None
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.extra, self.theta, self.rule, self.button])]),
                              self.status, self.output])

    def specs(self) -> list[str]:
        return list(self.models.value) + [s.strip() for s in self.extra.value.split(",") if s.strip()]

    def run(self) -> None:
        specs, theta, rule = self.specs(), self.theta.value, self.rule.value

        def task() -> None:
            self.result = None
            self.result = self._btcsam.run(sets=self.sets, models=specs, theta=theta, rule=rule, cache=self.cache,
                                           progress=False)
            plots.show(self._btcsam.figures(self.result), output=self.output)
            detection = self.result.detection
            self._show(detection[detection["theta"] == theta].reset_index(drop=True))

        texts = sum(len(frame) for frame in self.sets.values())
        self._work(f"scoring {texts:,} texts of {len(self.sets)} test set(s) with {len(specs)} model(s)", task)


def btcsam_app(*, sets: dict, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> BTCSAMApp:
    """Build the BTC-SAM app over ``sets`` (name → case table); display ``app.widget`` in a notebook."""
    return BTCSAMApp(sets=sets, models=models, cache=cache)


import csv  # noqa: E402  (the annotation app below was added after the apps above)
import difflib  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from toolkit.errors import InputError  # noqa: E402
from toolkit.results import guard_text, lock  # noqa: E402
from toolkit.studies.biasfinder import ANNOTATION_COLUMNS, read_annotation_csv  # noqa: E402

ANNOTATION_LOCK_TIMEOUT_S = 30.0  # how long a click waits for another process saving into the same file


def _read_rows(path: Path) -> dict[tuple[str, str, str], dict[str, str]]:
    """The annotation file as {(btc_id, variant, annotator): row}, the last row winning (older files appended), the
    cells as the app was given them (:func:`toolkit.studies.biasfinder.read_annotation_csv`: formula guard taken
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
    formula get a leading ``'`` in the file; the toolkit's readers take it off."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with lock(_lock_path(path), timeout=ANNOTATION_LOCK_TIMEOUT_S, what=f"the annotation file {str(path)!r}"):
        rows = _read_rows(path)
        rows[(row["btc_id"], row["variant"], row["annotator"])] = {c: row.get(c) or "" for c in ANNOTATION_COLUMNS}
        _replace_rows(path, rows.values())


class AnnotationApp:
    """BiasFinder's annotation study: the two mutants of each sampled BTC side by side, the differing words
    highlighted (difflib on word lists), and per text buttons for coherent (yes/no/unsure) and sentiment
    (positive/negative/neutral/unsure). Every click is saved at once as the one current row
    ``btc_id, variant, annotator, coherent, sentiment`` of that text (:func:`upsert_annotation`); a BTC is done when
    both texts have both fields, and the app moves on. Back and Skip move between BTCs without recording.
    Started again, it resumes at the first BTC this annotator has not finished (skipped ones included).
    ``btcs`` from :func:`toolkit.biasfinder.sample_btcs`."""

    CHOICES = {"coherent": ("yes", "no", "unsure"), "sentiment": ("positive", "negative", "neutral", "unsure")}

    def __init__(self, btcs, *, path, annotator: str) -> None:
        if not annotator.strip():
            raise InputError("an annotator name is needed.", fix="annotation_app(..., annotator='ann1').")
        self.btcs, self.path, self.annotator = btcs.reset_index(drop=True), Path(path), annotator.strip()
        self.values: dict[tuple[str, str], dict[str, str]] = {
            (btc_id, variant): {f: row[f] for f in self.CHOICES}
            for (btc_id, variant, who), row in _read_rows(self.path).items() if who == self.annotator}
        self.position = next((i for i in range(len(self.btcs)) if not self.done(i)), len(self.btcs))
        self.header, self.texts = w.HTML(), {v: w.HTML() for v in "ab"}
        self.buttons = {(v, f, c): w.Button(description=c, layout=w.Layout(width="auto"))
                        for v in "ab" for f, choices in self.CHOICES.items() for c in choices}
        for (variant, field_, choice), button in self.buttons.items():
            button.on_click(lambda _, v=variant, f=field_, c=choice: self.record(variant=v, **{f: c}))
        self.back = w.Button(description="Back", icon="arrow-left", layout=w.Layout(width="auto"))
        self.skip = w.Button(description="Skip", icon="arrow-right", layout=w.Layout(width="auto"))
        self.back.on_click(lambda _: self.go(-1))
        self.skip.on_click(lambda _: self.go(+1))
        columns = [w.VBox([self.texts[v]] + [w.HBox([w.Label(f)] + [self.buttons[(v, f, c)] for c in choices])
                                              for f, choices in self.CHOICES.items()]) for v in "ab"]
        self.widget = w.VBox([self.header, w.HBox(columns), w.HBox([self.back, self.skip])])
        self.show()

    def done(self, index: int) -> bool:
        btc_id = self.btcs.at[index, "btc_id"]
        return all(self.values.get((btc_id, v), {}).get(f) for v in "ab" for f in self.CHOICES)

    def go(self, step: int) -> None:
        """Move ``step`` BTCs back (negative) or forward without recording anything."""
        self.position = min(max(self.position + step, 0), len(self.btcs))
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
        btc_id = self.btcs.at[self.position, "btc_id"]
        was_done = self.done(self.position)
        current = self.values.setdefault((btc_id, variant), {f: "" for f in self.CHOICES})
        current.update({f: v for f, v in (("coherent", coherent), ("sentiment", sentiment)) if v is not None})
        upsert_annotation(self.path, {"btc_id": btc_id, "variant": variant, "annotator": self.annotator, **current})
        if self.done(self.position) and not was_done:  # a correction of a finished BTC stays on it
            self.position += 1
        self.show()

    def show(self) -> None:
        self.back.disabled = self.position == 0
        self.skip.disabled = self.position >= len(self.btcs)
        if self.position >= len(self.btcs):
            left = sum(not self.done(i) for i in range(len(self.btcs)))
            self.header.value = ("<b>No BTCs to annotate: the sample is empty.</b>" if not len(self.btcs) else
                                 f"<b>All {len(self.btcs)} BTCs annotated by {html.escape(self.annotator)}.</b>"
                                 if not left else f"<b>End of the sample: {left} BTC(s) skipped or unfinished "
                                 "(Back to return; re-run the cell to resume at the first).</b>")
            for text in self.texts.values():
                text.value = ""
            return
        btc = self.btcs.iloc[self.position]
        words = {v: str(btc[f"text_{v}"]).split() for v in "ab"}
        marked = {v: [html.escape(word) for word in words[v]] for v in "ab"}
        for tag, a0, a1, b0, b1 in difflib.SequenceMatcher(a=words["a"], b=words["b"], autojunk=False).get_opcodes():
            if tag != "equal":
                for v, (lo, hi) in (("a", (a0, a1)), ("b", (b0, b1))):
                    marked[v][lo:hi] = [f"<mark>{word}</mark>" for word in marked[v][lo:hi]]
        status = " · ✔ done" if self.done(self.position) else ""
        self.header.value = (f"<b>BTC {self.position + 1} of {len(self.btcs)}</b> · {html.escape(self.annotator)} · "
                             f"{html.escape(str(btc['attribute']))}{status}")
        for v in "ab":
            self.texts[v].value = f"<p><b>{v}</b>: {' '.join(marked[v])}</p>"
            chosen = self.values.get((btc["btc_id"], v), {})
            for f, choices in self.CHOICES.items():
                for c in choices:
                    self.buttons[(v, f, c)].button_style = "info" if chosen.get(f) == c else ""


def annotation_app(btcs, *, annotator: str, path=None) -> AnnotationApp:
    """Build the BTC annotation app (``path`` default: data/annotations/biasfinder.csv); display ``app.widget``."""
    from toolkit.biasfinder import annotations_path

    return AnnotationApp(btcs, path=path if path is not None else annotations_path(), annotator=annotator)
