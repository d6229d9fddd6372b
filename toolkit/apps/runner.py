"""The one app runner: Run/Cancel plumbing shared by every app, the study function injected.

A :class:`Runner` runs ``study(**arguments)`` in a background thread, so the kernel stays free: **Run** is disabled
while it works and **Cancel** stops it after the batch being scored (what was scored stays in the score cache; the
status line says how much, and Run again resumes there). One run at a time per kernel; a run waiting for another
app's run is cancelled at once and never starts. A progress bar with rate and ETA and a status line naming the stage
follow the run through :mod:`toolkit.monitor`. ``run()`` blocks until done (``run(block=False)`` and ``wait()`` for
the button's way). A coded error (``[TK…] … Fix: …``, the fix worded for the app's fields) and every warning are
shown as short lines, never a traceback, and a failed or cancelled run clears the previous output.

An app is a Runner with fields: it says which arguments its fields give (:meth:`Runner.launch`), and what to show
of a result (``present``); the study function is ``study=`` (a fake in tests, the study's ``run`` by default).
"""
from __future__ import annotations

import html
import threading
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as w
import pandas as pd

from toolkit import drilldown, monitor, paths, plots
from toolkit.apps.messages import widget_message
from toolkit.errors import InputError, OutputDirError, ToolkitError, redact
from toolkit.outputs import report, runs

_PROGRESS_EVERY_S = 0.2  # the bar and its label are redrawn at most this often (and at the end of a stage)
_RUN_LOCK = threading.Lock()  # one app run at a time per kernel (see Runner._body)
_QUEUE_POLL_S = 0.05  # how often a run waiting for another app's run looks at its Cancel button


class Runner:
    """Run/Cancel plumbing shared by the apps: ``button``, ``cancel_button``, ``bar`` and ``rate`` (progress),
    ``status`` line, ``output`` area, ``drill`` section; the task runs in a thread under
    :func:`toolkit.monitor.watching`. ``study`` is the injected study function (None: the app's default, looked up
    when a run starts); :meth:`launch` runs it with the fields' arguments and hands the result to ``present``."""

    result = None
    study: Callable[..., Any] | None = None

    def default_study(self) -> Callable[..., Any]:
        """The study function a run calls when none was injected (the app's study ``run``)."""
        raise NotImplementedError

    def writer(self) -> Callable[..., Any] | None:
        """The study front's ``write(result, out_dir, *, figures_dir, latex)`` that :meth:`export_latex` calls;
        None: the app has no paper tables."""
        return None

    def present(self, result: Any) -> None:
        """Show ``result``: tables (:meth:`_show`), figures (:meth:`_draw`), a drill-down (:meth:`_offer_drill`)."""

    def launch(self, label: str, arguments: dict[str, Any], *, block: bool) -> bool:
        """Run the study with ``arguments`` in the app's thread (the status line names ``label``), then present
        the result; with ``block`` wait for it and return whether it succeeded."""
        study = self.study if self.study is not None else self.default_study()
        self._arguments = dict(arguments)

        def task() -> None:
            self.result = None
            result = study(**arguments)
            monitor.stage("drawing tables and figures")
            self.present(result)
            self.result = result

        return self._work(label, task, block=block)

    def _controls(self) -> None:
        self.button = w.Button(description="Run", button_style="primary", icon="play")
        self.cancel_button = w.Button(description="Cancel", icon="stop", disabled=True)
        self.export_button = w.Button(description="Export report", icon="file", disabled=True,
                                      tooltip="one self-contained HTML file: this run's tables, figures, provenance")
        self.latex_button = w.Button(description="Export LaTeX", icon="table", disabled=True,
                                     tooltip="this run's paper tables as .tex (booktabs, fitted to the figure preset's "
                                             "width), with its result folder")
        self.report_path = None  # the last exported report
        self.latex_paths: list = []  # the .tex files of the last LaTeX export
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
        self.latex_button.on_click(lambda _: self._latex_clicked())

    def _buttons(self) -> w.HBox:
        return w.HBox([self.button, self.cancel_button, self.export_button]
                      + ([self.latex_button] if self.writer() is not None else []))

    def _progress_row(self) -> w.HBox:
        return w.HBox([self.bar, self.rate])

    def _say(self, text: str, *, colour: str = "#555") -> None:
        self.status.value = f'<span style="color:{colour}">{html.escape(redact(text))}</span>'

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
        self.latex_button.disabled = True
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
        except Exception as exc:
            self._finishing = True
            self.result = None
            self.output.outputs = ()
            self.drill.children = ()
            self.error = f"unexpected {type(exc).__name__}: {exc}"
            self._failure = exc
            self._say(f"✖ {self.error}", colour="#b00020")
            self.output.append_stderr(redact("".join(traceback.format_exception(exc))))
        except (KeyboardInterrupt, SystemExit) as exc:  # raised by the task itself (a Cancel is monitor.Cancelled):
            self._finishing = True                      # a kernel interrupt reaches the main thread, never this one
            self.result = None
            self.output.outputs = ()
            self.drill.children = ()
            what = f"sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else "KeyboardInterrupt"
            self.error = (f"stopped: the task ended with {what} raised inside it (a model or callable it runs), "
                          "before any result; nothing was shown")
            self._say(f"✖ {self.error}", colour="#b00020")
            self.output.append_stderr(redact("".join(traceback.format_exception(exc))))
        else:
            self._finishing = True
            self.notes = list(dict.fromkeys(redact(n) for n in [  # a secret in a warning is never kept, even here
                *self._field_notes, *(str(c.message) for c in caught if not issubclass(c.category, DeprecationWarning))]))
            self._say(f"✔ done in {time.perf_counter() - started:.1f} s"
                      + "".join(f" · note: {n}" for n in self.notes), colour="#1b5e20")
            self.export_button.disabled = self.result is None
            self.latex_button.disabled = self.result is None
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
        """Write the last successful run as one self-contained HTML file (:func:`toolkit.outputs.runs.write_report`):
        the tables the app showed, with their captions, then every other table of the run and its statistics frame
        (verdicts in the words of :mod:`toolkit.verdicts`, each table with the legend of the words it uses), every
        figure with its caption (full size on a click), the statistics settings (α, correction, margin, bootstrap
        replicates, seed) and the full provenance: package versions, git commit, model fingerprints, the study's
        settings or, where a result carries none, the arguments the app passed. ``path`` defaults to
        ``data/reports/<app>-<time>.html`` (``-2``, … where that name is taken); returns it."""
        if self.result is None or self.running:
            raise InputError("there is no finished run to export.", fix="press Run and wait until it is done.")
        name = type(self).__name__.removesuffix("App").lower()
        if path is None:
            path = _unused(paths.data_dir() / "reports" / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}", ".html")
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise OutputDirError(f"cannot create the reports folder {str(path.parent)!r}: "
                                     f"{exc.strerror or exc}.",
                                     fix="make the data folder writable, or set the environment variable "
                                         "TOOLKIT_DATA to a folder you can write to and restart the kernel.") from None
        result = self.result
        models = list(getattr(result, "models", []) or [])
        provenance = getattr(result, "provenance", None)
        settings = (dict(provenance.settings) if provenance is not None else None) or _recordable(
            getattr(self, "_arguments", {}))
        tables, legends = dict(self._report_tables), {}
        display = getattr(result, "display", None)
        notes = getattr(getattr(result, "definition", None), "paper_figures", None)  # the study's figure captions
        for key, frame in _every_table(result).items():  # shown as a reader reads them, each with its legend
            if key not in tables:
                tables[key], legends[key] = display(frame) if callable(display) else (frame, "")
        self.report_path = runs.write_report(
            title=f"{name} · {self._label}", tables=tables, figures=self._report_figures, models=models,
            settings=settings, fingerprints=getattr(provenance, "fingerprints", None),
            inputs=getattr(provenance, "inputs", None), notes=list(self.notes), legends=legends,
            captions={stem: report.figure_caption(stem, notes) for stem in self._report_figures},
            extra={"app": name, "run": self._label, "written": time.strftime("%Y-%m-%d %H:%M:%S %Z")}, path=path)
        return self.report_path

    def export_latex(self, folder=None) -> list:
        """Write the last successful run as the CLI does with ``--latex``: its result folder (tables, figures,
        ``provenance.json``) and each paper table as a ``.tex`` file fitted to the active figure preset, in
        ``folder`` (default ``data/reports/<app>-<time>/``, ``-2``, … where that name is taken); return the ``.tex``
        paths."""
        write = self.writer()
        if write is None:
            raise InputError("this app has no paper tables to export as LaTeX.", fix="use Export report (HTML).")
        if self.result is None or self.running:
            raise InputError("there is no finished run to export.", fix="press Run and wait until it is done.")
        name = type(self).__name__.removesuffix("App").lower()
        if folder is None:
            folder = _unused(paths.data_dir() / "reports" / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}", "")
        folder = Path(folder)
        written = write(self.result, out_dir=folder, figures_dir=folder / "figures", latex=True)
        self.latex_paths = [p for p in written if Path(p).suffix == ".tex"]
        return self.latex_paths

    def _latex_clicked(self) -> None:
        self._export_and_say(self.export_latex, lambda written: f"{len(written)} LaTeX table(s) written to "
                             f"{Path(written[0]).parent if written else 'the result folder'}")

    def _export_clicked(self) -> None:
        self._export_and_say(self.export_report, lambda written: f"report written to {written} (open it in a "
                             "browser; it needs no network)")

    def _export_and_say(self, export: Callable[[], Any], said: Callable[[Any], str]) -> None:
        """Run an export button's ``export`` and put what it wrote (or its coded error) on the status line."""
        try:
            written = export()
        except ToolkitError as exc:
            self._say(f"✖ {widget_message(exc)}", colour="#b00020")
            return
        except Exception as exc:  # noqa: BLE001  (unexpected: said on the status line, never the old message kept)
            self._say(f"✖ unexpected {type(exc).__name__}: {exc}", colour="#b00020")
            self.output.append_stderr(redact("".join(traceback.format_exception(exc))))
            return
        self._say(f"✔ {said(written)}", colour="#1b5e20")

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


def _unused(base: Path, suffix: str) -> Path:
    """``base`` + ``suffix``, or ``base-2`` + ``suffix``, … : the first name nothing holds yet (two exports in one
    second, from two apps, never share a default name)."""
    candidate, n = base.with_name(base.name + suffix), 1
    while candidate.exists() or candidate.is_symlink():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}{suffix}")
    return candidate


def _every_table(result: Any) -> dict[str, pd.DataFrame]:
    """Every table of a study result (:meth:`toolkit.studies.result.StudyResult.tables`) and its statistics frame,
    keyed by file stem; {} for a result that has none."""
    tables = getattr(result, "tables", None)
    if not callable(tables):
        return {}
    out = dict(tables())
    try:
        out = {f"{result.study}_stats": result.stats, **out}
    except (AttributeError, NotImplementedError, ToolkitError):  # a study without a statistics frame
        pass
    return {key: frame for key, frame in out.items() if isinstance(frame, pd.DataFrame)}


def _recordable(arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments an app passed to its study, as provenance records them (paths and other objects as text)."""
    plain = (str, int, float, bool, type(None))
    return {key: (value if isinstance(value, plain) else [v if isinstance(v, plain) else str(v) for v in value]
                  if isinstance(value, (list, tuple)) else str(value))
            for key, value in arguments.items() if key != "progress"}
