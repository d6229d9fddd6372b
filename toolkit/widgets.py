"""ipywidgets apps: pickers wired to the package's functions, nothing more.

Every app runs its task in a background thread, so the kernel stays free: **Run** is disabled while it works and
**Cancel** stops it after the batch being scored (what was scored stays in the score cache; the status line says how
much, and Run again resumes there). One app runs at a time per kernel; a run waiting for another app's run is
cancelled at once and never starts. A progress bar with rate and ETA and a status line naming the stage (loading a
model, scoring with X, computing statistics, drawing) follow the run through :mod:`toolkit.monitor`. ``run()`` from
Python blocks until done (``run(block=False)`` and ``wait()`` for the button's way), so tests and papermill see the
result. A coded error (``[TK…] … Fix: …``, the fix worded for the app's fields) and every warning (truncated rows,
skipped texts, …) are shown as short lines, never a traceback, and a failed or cancelled run clears the previous
output. Every app that runs models takes the same model field: a list of named models plus a "more specs" text
(``hf:``, ``py:``, ``llm:``, ``ait:``; commas inside ``?labels=a,b`` stay in their spec). Tables carry a caption
(what, n, the correction family and its size) and one number format.

Figures are drawn on figures pyplot does not manage (:mod:`toolkit.plots`) and appended to the app's own ``Output``
explicitly, so JupyterLab's widget-message threads and pyplot's redraw hooks never touch them.
"""
from __future__ import annotations

import html
import re
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Sequence

import ipywidgets as w
import pandas as pd

from toolkit import drilldown, eec, models as model_registry, monitor, plots
from toolkit.errors import ToolkitError
from toolkit.models import OFFLINE_DEFAULTS, ait, available

_DRILL_OPTIONS = 1_000  # at most this many templates offered in a drill-down picker
_PROGRESS_EVERY_S = 0.2  # the bar and its label are redrawn at most this often (and at the end of a stage)
_PYTHON_FIX = re.compile(r"\w\(|\b\w+=|\bpass\b|\bimport\b")
_FIELD_FIX = {  # an error's fix worded for the apps' fields, where the error's own speaks the Python API
    "TK101": "check the file named in the app's fields: it lacks a column the study needs.",
    "TK102": "change the app's fields (see the message) and press Run again.",
    "TK103": "tick a model in the list or type a spec such as hf:<folder-or-owner/name> in 'more specs'.",
    "TK104": "type 'sample' or the path of a CSV/JSONL file with a text column in the corpus field.",
    "TK201": "correct the spec in 'more specs' (hf:<folder-or-id>?max_length=…, py:module:function, llm:…).",
    "TK202": "add ?labels=negative,positive (the head's labels in order) to the hf: spec in 'more specs'.",
    "TK204": "install the package the message names in the notebook's environment, then press Run again.",
}


def widget_message(exc: ToolkitError) -> str:
    """``exc`` as one line for an app: its code and message, and its fix — replaced by a hint about the app's
    fields when the fix speaks the Python API (``pass models=[…]``)."""
    fix = exc.fix
    if fix and _PYTHON_FIX.search(fix):
        fix = _FIELD_FIX.get(exc.code, "change the app's fields and press Run again.")
    return f"[{exc.code}] {exc.message}" + (f" Fix: {fix}" if fix else "")


def _split_specs(text: str, *, selected: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """The ``selected`` specs then those typed in a "more specs" field, each once
    (:func:`toolkit.models.split_specs`: commas inside ``?labels=a,b`` stay in their spec), and the notes it gave
    (a spec given twice), for the status line rather than the kernel's log."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        specs = model_registry.split_specs(text, selected=selected)
    return specs, [str(c.message) for c in caught]


def _number_format(frame: pd.DataFrame) -> dict[str, str]:
    """One number format for every table: floats with three decimals, p-values below 0.001 as "<0.001", counts
    with thousands separators."""
    formats: dict[str, str | Callable] = {}
    for column in frame.columns:
        dtype = frame[column].dtype
        name = column if isinstance(column, str) else " ".join(map(str, column))
        if pd.api.types.is_bool_dtype(dtype):
            continue
        if pd.api.types.is_float_dtype(dtype) and name.lower().startswith("p"):
            formats[column] = lambda v: "" if pd.isna(v) else "<0.001" if v < 0.001 else f"{v:.3f}"
        elif pd.api.types.is_float_dtype(dtype):
            formats[column] = lambda v: "" if pd.isna(v) else f"{v:.3f}"
        elif pd.api.types.is_integer_dtype(dtype):
            formats[column] = lambda v: "" if pd.isna(v) else f"{int(v):,}"
    return formats


def table(frame: pd.DataFrame, *, caption: str):
    """``frame`` as a captioned table in the apps' one number format (a pandas Styler; the frame is unchanged)."""
    return frame.style.format(_number_format(frame), na_rep="", escape="html").set_caption(html.escape(caption)).set_table_styles(
        [{"selector": "caption", "props": "caption-side: top; text-align: left; font-weight: bold; color: #333;"}])


class ModelField:
    """The one model field of every app: ``models`` (a list of named models, and a task's systems) and ``extra``
    ("more specs": any ``hf:``/``py:``/``llm:``/``ait:`` spec, comma-separated; commas inside ``?labels=`` stay).
    :meth:`specs` is the ticked models then the typed ones, each once."""

    def __init__(self, *, options: Sequence[str], chosen: Sequence[str]) -> None:
        self.models = w.SelectMultiple(description="models", rows=8)
        self.notes: list[str] = []  # what splitting the field said (a spec given twice)
        self.extra = w.Text(placeholder="hf:<folder or owner/name>?labels=neg,pos, py:module:function",
                            description="more specs")
        self.offer(options=options, chosen=chosen)

    def offer(self, *, options: Sequence[str], chosen: Sequence[str]) -> None:
        """Show ``options``; tick those of ``chosen`` among them and type the rest in "more specs"."""
        self.models.options = list(options)
        self.models.value = [m for m in chosen if m in options]
        self.extra.value = ", ".join(m for m in chosen if m not in options)

    def specs(self) -> list[str]:
        specs, self.notes = _split_specs(self.extra.value, selected=self.models.value)
        return specs


_RUN_LOCK = threading.Lock()  # one app run at a time per kernel (see _App._body)
_QUEUE_POLL_S = 0.05  # how often a run waiting for another app's run looks at its Cancel button


class _App:
    """Run/Cancel plumbing shared by the apps: ``button``, ``cancel_button``, ``bar`` and ``rate`` (progress),
    ``status`` line, ``output`` area; the task runs in a thread under :func:`toolkit.monitor.watching`."""

    result = None

    def _controls(self) -> None:
        self.button = w.Button(description="Run", button_style="primary", icon="play")
        self.cancel_button = w.Button(description="Cancel", icon="stop", disabled=True)
        self.export_button = w.Button(description="Export report", icon="file", disabled=True,
                                      tooltip="one self-contained HTML file: this run's tables, figures, provenance")
        self.report_path = None  # the last exported report
        self._report_tables: dict[str, pd.DataFrame] = {}
        self._report_figures: dict = {}
        self.bar = w.IntProgress(value=0, min=0, max=1, layout=w.Layout(width="320px", visibility="hidden"))
        self.rate = w.Label(value="")
        self.status = w.HTML(value="")
        self.output = w.Output()
        self.drill = w.VBox([])  # the drill-down section, filled after a successful run
        self.error: str | None = None
        self.notes: list[str] = []
        self.cancelled: str | None = None  # what a cancelled run kept, in words
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        self._finishing = False  # the task has ended: a Cancel click now changes nothing
        self._failure: BaseException | None = None
        self._label = ""
        self._field_notes: list[str] = []
        self._drawn = 0.0
        self.button.on_click(lambda _: self.run(block=False))
        self.cancel_button.on_click(lambda _: self.cancel())
        self.export_button.on_click(lambda _: self._export_clicked())

    def _buttons(self) -> w.HBox:
        return w.HBox([self.button, self.cancel_button, self.export_button])

    def _progress_row(self) -> w.HBox:
        return w.HBox([self.bar, self.rate])

    def _say(self, text: str, *, colour: str = "#555") -> None:
        self.status.value = f'<span style="color:{colour}">{html.escape(text)}</span>'

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def cancel(self) -> None:
        """Ask the running task to stop after the batch it is scoring (what was scored stays cached); a run still
        waiting for another app's run ends at once and never starts."""
        if self.running and not self._finishing:
            self.cancel_button.disabled = True
            self._say(f"⏳ {self._label}: cancelling after the current batch (a model still loading finishes "
                      "loading first) …")
            self._cancel.set()  # after the line above: a queued run then says it never started

    def wait(self, timeout: float | None = None) -> None:
        """Block until the running task ends; an unexpected (non-coded) error of the task is raised here."""
        if self._thread is not None:
            self._thread.join(timeout)
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure

    def _on_stage(self, text: str) -> None:
        self._say(f"⏳ {self._label}: {text} …")
        self.bar.value, self.rate.value = 0, ""
        self.bar.layout.visibility = "hidden"

    def _on_progress(self, report: monitor.Progress) -> None:
        now = time.perf_counter()
        if now - self._drawn < _PROGRESS_EVERY_S and report.done < report.total and report.done:
            return
        self._drawn = now
        self.bar.max = max(report.total, 1)
        self.bar.value = min(report.done, self.bar.max)
        self.bar.layout.visibility = "visible"
        self.rate.value = report.describe()

    def _work(self, label: str, task: Callable[[], None], *, block: bool) -> bool:
        """Run ``task`` in a thread with Run disabled, Cancel enabled, the stage and progress shown; a coded error,
        a cancel or warnings end as status lines. With ``block`` wait for it (returns whether it succeeded)."""
        if self.running:
            return False
        self.button.disabled, self.button.description, self.button.icon = True, "Running…", "spinner"
        self.cancel_button.disabled, self.cancel_button.button_style = False, "warning"
        self.output.outputs = ()
        self.drill.children = ()
        self.export_button.disabled = True
        self._finishing = False
        self._report_tables, self._report_figures = {}, {}
        self.error, self.cancelled, self.notes, self._failure = None, None, [], None
        self._cancel = threading.Event()
        self._label = label
        self._field_notes = list(getattr(getattr(self, "field", None), "notes", []))
        self._say(f"⏳ {label} …")
        self._thread = threading.Thread(target=self._body, args=(task,), name="toolkit-app", daemon=True)
        self._thread.start()
        if block:
            self.wait()
            return self.error is None and self.cancelled is None
        return True

    def _body(self, task: Callable[[], None]) -> None:
        """Run ``task`` in this thread; one app's task at a time in a kernel (recording warnings for the status
        line swaps process-wide state, so two runs at once would lose each other's warnings): a second app waits."""
        queued = not _RUN_LOCK.acquire(blocking=False)
        if queued:
            self._say(f"⏳ {self._label}: waiting for another app's run in this kernel to finish (Cancel stops it "
                      "from starting) …")
            while not _RUN_LOCK.acquire(timeout=_QUEUE_POLL_S):
                if self._cancel.is_set():  # Cancel while queued: the run never starts
                    self._never_started()
                    return
        try:
            if queued and self._cancel.is_set():  # cancelled just as the other run ended
                self._never_started()
                return
            self._body_locked(task)
        finally:
            _RUN_LOCK.release()

    def _never_started(self) -> None:
        """End a run cancelled while it waited for another app's run: nothing was loaded, scored or changed."""
        self._finishing = True
        self.result = None
        self.cancelled = "nothing: cancelled while it waited for another app's run, it never started"
        self._say(f"■ {self._label}: cancelled while waiting for another app's run; it never started.",
                  colour="#8a5300")
        self.button.disabled, self.button.description, self.button.icon = False, "Run", "play"
        self.cancel_button.disabled, self.cancel_button.button_style = True, ""

    def _body_locked(self, task: Callable[[], None]) -> None:
        started = time.perf_counter()
        caught: list = []
        try:
            # warnings: recorded for the status line (catch_warnings is process-wide; the apps run one task at a time)
            with warnings.catch_warnings(record=True) as caught, \
                    monitor.watching(on_stage=self._on_stage, on_progress=self._on_progress, cancel=self._cancel):
                warnings.simplefilter("always")
                task()
        except monitor.Cancelled as exc:
            self._finishing = True
            self.result = None
            self.output.outputs = ()
            self.drill.children = ()
            stage = str(exc).removeprefix("cancelled during ")
            kept = monitor.kept(exc)
            after_scoring = stage in ("computing statistics", "drawing tables and figures")
            self.cancelled = kept or ("every text scored; the results were not finished" if after_scoring
                                      else "nothing scored yet")
            self._say(f"■ cancelled during {stage}: "
                      + (f"{kept}." if "templated" in kept else
                         f"{kept}; Run again resumes there (cached texts are not scored twice)."
                         if kept and (getattr(exc, "toolkit_interrupt", None) or {}).get("cache") else
                         f"{kept}." if kept else
                         "every text was scored (and cached, unless the cache is off); the results were not "
                         "finished." if after_scoring else "stopped before any text was scored."),
                      colour="#8a5300")
        except ToolkitError as exc:
            self._finishing = True
            self.result = None
            self.output.outputs = ()
            self.drill.children = ()
            self.error = widget_message(exc)
            self._say(f"✖ {self.error}", colour="#b00020")
        except Exception as exc:  # unexpected: say so, show the traceback in the app, re-raise in wait()
            self._finishing = True
            self.result = None
            self.output.outputs = ()
            self.drill.children = ()
            self.error = f"unexpected {type(exc).__name__}: {exc}"
            self._failure = exc
            self._say(f"✖ {self.error}", colour="#b00020")
            self.output.append_stderr("".join(traceback.format_exception(exc)))
        except (KeyboardInterrupt, SystemExit) as exc:  # raised by the task itself (a Cancel is monitor.Cancelled):
            self._finishing = True                      # a kernel interrupt reaches the main thread, never this one
            self.result = None
            self.output.outputs = ()
            self.drill.children = ()
            what = f"sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else "KeyboardInterrupt"
            self.error = (f"stopped: the task ended with {what} raised inside it (a model or callable it runs), "
                          "before any result; nothing was shown")
            self._say(f"✖ {self.error}", colour="#b00020")
            self.output.append_stderr("".join(traceback.format_exception(exc)))
        else:
            self._finishing = True
            self.notes = list(dict.fromkeys([*self._field_notes, *(str(c.message) for c in caught
                                                                  if not issubclass(c.category, DeprecationWarning))]))
            self._say(f"✔ done in {time.perf_counter() - started:.1f} s"
                      + "".join(f" · note: {n}" for n in self.notes), colour="#1b5e20")
            self.export_button.disabled = self.result is None
        finally:
            self.bar.layout.visibility = "hidden"
            self.rate.value = ""
            self.button.disabled, self.button.description, self.button.icon = False, "Run", "play"
            self.cancel_button.disabled, self.cancel_button.button_style = True, ""

    def _show(self, item) -> None:
        """Append a table (or any displayable) to the output area; a captioned table is kept for the report."""
        if isinstance(item, pd.io.formats.style.Styler):
            name = html.unescape(str(item.caption or f"table {len(self._report_tables) + 1}"))
            self._report_tables[name] = item.data
        self.output.append_display_data(item)

    def _draw(self, items) -> None:
        """Show figures (an Axes, a Figure, a list or a name → figure mapping) and keep them for the report."""
        named = items.items() if isinstance(items, dict) else (
            [(None, items)] if not isinstance(items, (list, tuple)) else [(None, i) for i in items])
        for name, item in named:
            self._report_figures[name or f"figure {len(self._report_figures) + 1}"] = item
        plots.show(items, output=self.output)

    def export_report(self, path=None):
        """Write the last successful run (its tables, figures, settings and notes) as one self-contained HTML file
        (:func:`toolkit.report.write_html`) to ``path`` (default ``data/reports/<app>-<time>.html``); return it."""
        from toolkit import paths, report
        from toolkit.errors import InputError

        if self.result is None or self.running:
            raise InputError("there is no finished run to export.", fix="press Run and wait until it is done.")
        name = type(self).__name__.removesuffix("App").lower()
        if path is None:
            path = paths.data_dir() / "reports" / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}.html"
            path.parent.mkdir(parents=True, exist_ok=True)
        settings = getattr(self.result, "settings", None) or {}
        provenance = {"app": name, "run": self._label, "models": list(getattr(self.result, "models", []) or []),
                      "notes": list(self.notes), "settings": settings,
                      "written": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
        self.report_path = report.write_html(title=f"{name} · {self._label}", tables=self._report_tables,
                                             figures=self._report_figures, provenance=provenance, path=path)
        return self.report_path

    def _export_clicked(self) -> None:
        try:
            written = self.export_report()
        except ToolkitError as exc:
            self._say(f"✖ {widget_message(exc)}", colour="#b00020")
            return
        self._say(f"✔ report written to {written} (open it in a browser; it needs no network)", colour="#1b5e20")

    def _offer_drill(self, *, what: str, pickers: dict[str, list[str]],
                     build: Callable[..., pd.DataFrame]) -> None:
        """Fill the drill-down section: a dropdown per entry of ``pickers`` (name → options) and, below, the
        :func:`toolkit.drilldown.browser` of ``build(**picked)`` — the cases behind the number, redrawn at each pick.
        A coded error of ``build`` shows as a line there."""
        dropdowns = {name: w.Dropdown(options=options, value=options[0] if options else None, description=name)
                     for name, options in pickers.items()}
        holder = w.VBox([])

        def redraw(_=None) -> None:
            picked = {name: d.value for name, d in dropdowns.items()}
            if any(v is None for v in picked.values()):
                holder.children = (w.HTML("<i>Nothing to show.</i>"),)
                return
            try:
                pairs = build(**picked)
            except ToolkitError as exc:
                holder.children = (w.HTML(f'<span style="color:#b00020">✖ {html.escape(widget_message(exc))}'
                                          "</span>"),)
                return
            title = f"{what}: " + ", ".join(f"{k} {v}" for k, v in picked.items()) + f" ({len(pairs):,} pairs)"
            holder.children = (drilldown.browser(pairs=pairs, title=title),)

        for d in dropdowns.values():
            d.observe(redraw, names="value")
        redraw()
        self.drill.children = (w.HTML(f"<b>Drill down</b>: the cases behind {html.escape(what)}"),
                               w.HBox(list(dropdowns.values())), holder)


def _biasfinder_family(settings: dict) -> str:
    """The BiasFinder caption's correction clause; no test when no characteristic has 2 templates with a null."""
    if not settings.get("family_size"):
        return ("no test of the BTC rate: it needs 2 templates of one characteristic with a within-class null; "
                "gender needs n_names ≥ 2 and a name slot, country n_country_names ≥ 2, occupation has no null")
    return (f"{str(settings['correction']).capitalize()} over {settings['family_size']} tests ({settings['family']}); "
            "a model's verdict changes with the models selected")


def _caption_family(tests: pd.DataFrame) -> str:
    """"Bonferroni over 4 tests (eec:all: 2 attributes × 2 systems)": the correction and its family's size."""
    if tests.empty or "n_tests" not in tests.columns:
        return ""
    first = tests.iloc[0]
    family = str(first.get("family", "")).split(" = ")[0]
    return (f"{str(first.get('correction', 'bonferroni')).capitalize()} over {int(first['n_tests'])} tests"
            + (f" ({family})" if family else "") + "; a system's significance changes with the systems selected")


class EECApp(_App):
    """Pick a task, models (and extra ``hf:``/``py:``/``ait:`` specs), a subset; Run re-scores and redraws.

    The task picker (valence, anger, fear, joy, sadness, or ``all`` five) offers that task's systems: the offline
    valence models, or the trained SemEval-2018 zoo (``ait:``); typed specs stay when they predict the new task and
    are cleared with a note otherwise. ``widget`` is the box to display; ``result`` holds the last
    :class:`toolkit.eec.EECResult`.
    """

    def __init__(self, *, models: Sequence[str] | None = None, task: str = "valence", cache: bool = True) -> None:
        self.task = w.Dropdown(options=eec.TASK_CHOICES, value=task, description="task")
        chosen = eec.default_models(task) if models is None else list(models)
        self.field = ModelField(options=self._options(task), chosen=chosen)
        self.models, self.extra = self.field.models, self.field.extra
        self.task.observe(lambda change: self._switch_task(change["new"]), names="value")
        self.subset = w.Dropdown(options=eec.SUBSETS, value="all", description="subset")
        self._controls()
        self.cache = cache
        self.result: eec.EECResult | None = None
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.task, self.extra, self.subset, self._buttons()])]),
                              self.status, self._progress_row(), self.output, self.drill])

    @staticmethod
    def _options(task: str) -> list[str]:
        named = [m for m in available() if ":" not in m] if task == "valence" else []
        return named + ait.specs(task)

    def _switch_task(self, task: str) -> None:
        """Offer ``task``'s systems, ticking its defaults; keep typed specs that predict ``task``, clear the
        others with a note in the status line."""
        keep, dropped = [], []
        for spec in _split_specs(self.extra.value)[0]:
            try:
                fits = task == "all" or model_registry.task_of(spec) == task
            except ToolkitError:
                fits = False
            (keep if fits else dropped).append(spec)
        self.field.offer(options=self._options(task), chosen=eec.default_models(task))
        self.extra.value = ", ".join(keep)
        if dropped:
            self._say(f"note: cleared {', '.join(dropped)} from 'more specs': not a {task} system.")

    def specs(self) -> list[str]:
        return self.field.specs()

    def run(self, *, block: bool = True) -> bool:
        """Score and redraw with the app's fields (``block``: wait for it; the button runs without waiting)."""
        specs, subset, task_name = self.specs(), self.subset.value, self.task.value

        def task() -> None:
            self.result = None
            result = eec.run(models=specs, task=task_name, subsets=[subset], cache=self.cache, progress=False)
            monitor.stage("drawing tables and figures")
            family = _caption_family(result.tests[result.tests["subset"] == subset])
            for attribute in eec.ATTRIBUTES:
                n = int((result.tests["attribute"] == attribute).sum())
                self._show(table(eec.paper_table(result.tests, attribute=attribute),
                                 caption=f"EEC {attribute}, subset {subset}: systems per significance group "
                                         f"(n = {n} systems; {family})."))
            # one figure per attribute, a panel per task
            self._draw([panels[0] for panels in eec.figures(result, subset=subset).values()])
            self._offer_drill(what="an EEC system's Δ", pickers={"system": list(result.models),
                                                                  "attribute": list(eec.ATTRIBUTES)},
                              build=lambda system, attribute: drilldown.eec_pairs(result, model=system,
                                                                                  attribute=attribute))
            self.result = result

        return self._work(f"EEC ({task_name}, 8,640 sentences) with {len(specs)} model(s)", task, block=block)


def eec_app(*, models: Sequence[str] | None = None, task: str = "valence", cache: bool = True) -> EECApp:
    """Build the EEC app for ``task`` (default models: the task's systems); display ``app.widget`` in a notebook."""
    return EECApp(models=models, task=task, cache=cache)


def _named() -> list[str]:
    return [m for m in available() if ":" not in m]


class PSAApp(_App):
    """Pick a corpus, models (and extra specs), a name set and a sample size; Run scores; the threshold slider
    redraws the label-flip view from the last result without re-scoring. ``widget`` is the box to display;
    ``result`` the last run."""

    def __init__(self, *, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n: int = 50,
                 cache: bool = True) -> None:
        from toolkit import psa

        self._psa = psa
        self.corpus = w.Text(value=str(corpus), description="corpus", placeholder="'sample' or a CSV/JSONL path")
        self.field = ModelField(options=_named(), chosen=list(models))
        self.models, self.extra = self.field.models, self.field.extra
        self.names = w.Text(value="", description="names CSV", placeholder="blank: 48 public figures")
        self.n = w.BoundedIntText(value=n, min=2, max=100_000, description="sentences")
        self.threshold = w.FloatSlider(value=0.5, min=0.05, max=0.95, step=0.05, description="threshold",
                                       continuous_update=False)
        self._controls()
        self.flips = w.Output()
        self.cache = cache
        self.result = None
        self.threshold.observe(lambda _: self.redraw_flips(), names="value")
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.extra, self.corpus, self.names, self.n,
                                                            self._buttons()])]),
                              self.status, self._progress_row(), self.output, self.threshold, self.flips])

    def specs(self) -> list[str]:
        return self.field.specs()

    def run(self, *, block: bool = True) -> bool:
        """Score and redraw with the app's fields (``block``: wait for it; the button runs without waiting)."""
        models, corpus, n = self.specs(), self.corpus.value.strip(), self.n.value
        self.flips.outputs = ()

        def task() -> None:
            self.result = None
            result = self._psa.run(corpus=corpus, models=models, names=self.names.value.strip() or None, n=n,
                                   cache=self.cache, progress=False)
            monitor.stage("drawing tables and figures")
            sentences = int(result.settings["n_sentences"])
            self._show(table(self._psa.table2(result.summary),
                             caption=f"PSA Table 2: ScoreDev and ScoreRange per model (n = {sentences:,} "
                                     f"sentences × names; no correction: descriptive)."))
            gender = result.gender
            self._show(table(gender, caption=f"Gender gap per model and corpus (n = {len(gender)} tests; "
                                             f"{result.settings['correction'].capitalize()} over {len(gender)} "
                                             f"tests ({result.settings['family']}); a model's significance "
                                             "changes with the models selected)."))
            self._draw(self._psa.figures(result))
            self.result = result
            self.redraw_flips()

        return self._work(f"PSA on {corpus!r} ({n} sentences × names) with {len(models)} model(s)", task,
                          block=block)

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


class BiasFinderApp(_App):
    """Pick a corpus, models (and extra specs), names per gender and templates per characteristic; Run templates
    the reviews, scores the mutants and shows Table 4 and the BTC figures. ``widget`` is the box to display;
    ``result`` the last :class:`toolkit.biasfinder.BiasFinderResult`."""

    def __init__(self, *, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n_names: int = 30,
                 max_templates: int | None = None, cache: bool = True, **options) -> None:
        from toolkit import biasfinder

        self._biasfinder, self.options, self.cache = biasfinder, options, cache
        self.corpus = w.Text(value=str(corpus), description="corpus", placeholder="'sample' or a CSV/JSONL path")
        self.field = ModelField(options=_named(), chosen=list(models))
        self.models, self.extra = self.field.models, self.field.extra
        self.n_names = w.BoundedIntText(value=n_names, min=1, max=1_000, description="names")
        self.max_templates = w.BoundedIntText(value=max_templates or 0, min=0, max=1_000_000,
                                              description="templates", tooltip="per characteristic; 0: all")
        self._controls()
        self.result = None
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.extra, self.corpus, self.n_names,
                                                            self.max_templates, self._buttons()])]),
                              self.status, self._progress_row(), self.output, self.drill])

    def specs(self) -> list[str]:
        return self.field.specs()

    def run(self, *, block: bool = True) -> bool:
        """Template, score and redraw with the app's fields (``block``: wait for it)."""
        specs, corpus = self.specs(), self.corpus.value.strip()
        n_names, max_templates = self.n_names.value, self.max_templates.value or None

        def task() -> None:
            self.result = None
            monitor.stage("templating the reviews (parsing, coreference, mutants)")
            result = self._biasfinder.run(corpus=corpus, models=specs, n_names=n_names, max_templates=max_templates,
                                          cache=self.cache, progress=False, **self.options)
            monitor.stage("drawing tables and figures")
            table4 = result.table4
            self._show(table(table4, caption=f"BiasFinder Table 4: BTCs per model and characteristic "
                                             f"(n = {int(table4['mutants'].sum()):,} mutants of "
                                             f"{int(table4['templates'].sum()):,} templates; "
                                             f"{_biasfinder_family(result.settings)})."))
            self._draw(self._biasfinder.figures(result))
            per_template = result.btcs.groupby("case_id", sort=False)["n_btcs"].sum().sort_values(
                ascending=False, kind="stable")  # templates with the most BTCs first
            templates = list(per_template.index[:_DRILL_OPTIONS])
            self._offer_drill(what="a BiasFinder template's BTCs", pickers={"template": templates},
                              build=lambda template: drilldown.biasfinder_pairs(result, template=template))
            self.result = result

        return self._work(f"BiasFinder on {corpus!r} with {len(specs)} model(s)", task, block=block)


def biasfinder_app(*, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n_names: int = 30,
                   max_templates: int | None = None, cache: bool = True, **options) -> BiasFinderApp:
    """Build the BiasFinder app (``options``: further :func:`toolkit.biasfinder.run` arguments, e.g. ``lists``);
    display ``app.widget`` in a notebook."""
    return BiasFinderApp(corpus=corpus, models=models, n_names=n_names, max_templates=max_templates, cache=cache,
                         **options)


class BTCSAMApp(_App):
    """Pick models (and extra ``hf:``/``llm:`` specs), θ and the failure rule; Run scores the given test sets (cached)
    and shows the detection-probability heatmap and table. ``widget`` is the box to display; ``result`` the last
    run."""

    def __init__(self, *, sets: dict, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> None:
        from toolkit import btcsam

        self._btcsam, self.sets, self.cache = btcsam, sets, cache
        self.field = ModelField(options=_named(), chosen=list(models))
        self.models, self.extra = self.field.models, self.field.extra
        self.theta = w.SelectionSlider(options=list(btcsam.THETAS), value=0.2, description="θ")
        self.rule = w.Dropdown(options=btcsam.RULES, value="published", description="rule")
        self._controls()
        self.result = None
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.extra, self.theta, self.rule, self._buttons()])]),
                              self.status, self._progress_row(), self.output, self.drill])

    def specs(self) -> list[str]:
        return self.field.specs()

    def run(self, *, block: bool = True) -> bool:
        """Score and redraw with the app's fields (``block``: wait for it; the button runs without waiting)."""
        specs, theta, rule = self.specs(), self.theta.value, self.rule.value

        def task() -> None:
            self.result = None
            result = self._btcsam.run(sets=self.sets, models=specs, theta=theta, rule=rule, cache=self.cache,
                                      progress=False)
            monitor.stage("drawing tables and figures")
            self._draw(self._btcsam.figures(result))
            detection = result.detection
            shown = detection[detection["theta"] == theta].reset_index(drop=True)
            cases = int(result.scored["case_id"].nunique())
            self._show(table(shown, caption=f"BTC-SAM detection probability at θ = {theta} ({rule} rule; "
                                            f"n = {cases:,} cases of {len(self.sets)} test set(s); Wilson "
                                            "intervals, no correction)."))
            self._offer_drill(what="a BTC-SAM cell", pickers={"test set": sorted(set(result.scored["test_set"])),
                                                              "model": list(result.models)},
                              build=lambda **picked: drilldown.btcsam_pairs(result, test_set=picked["test set"],
                                                                            model=picked["model"]))
            self.result = result

        texts = sum(len(frame) for frame in self.sets.values())
        return self._work(f"BTC-SAM: {texts:,} texts of {len(self.sets)} test set(s) with {len(specs)} model(s)",
                          task, block=block)


def btcsam_app(*, sets: dict, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> BTCSAMApp:
    """Build the BTC-SAM app over ``sets`` (name → case table); display ``app.widget`` in a notebook."""
    return BTCSAMApp(sets=sets, models=models, cache=cache)


# The annotation app lives in toolkit.annotation (keyboard shortcuts, progress count, TPR/κ with intervals); these
# names stay importable from here for notebooks and scripts written before it moved.
from toolkit.annotation import (ANNOTATION_LOCK_TIMEOUT_S, AnnotationApp, _lock_path, _read_rows,  # noqa: E402,F401
                                _replace_rows, annotation_app, upsert_annotation)
