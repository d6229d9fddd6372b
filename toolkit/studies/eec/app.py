"""The EEC app: a task, models (and extra specs), a subset; Run scores the 8,640 sentences and shows the paper's
tables, one figure per attribute and a drill-down from a system to its sentence pairs."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as w

from toolkit import models as model_registry
from toolkit.apps.fields import ModelField, split_specs
from toolkit.apps.runner import Runner
from toolkit.apps.tables import table
from toolkit.errors import ToolkitError
from toolkit.models import ait
from toolkit.studies import eec
from toolkit.studies.eec import captions
from toolkit.studies.eec import drilldown as eec_drilldown


class EECApp(Runner):
    """Pick a task, models (and extra ``hf:``/``py:``/``ait:`` specs), a subset; Run re-scores and redraws.

    The task picker (valence, anger, fear, joy, sadness, or ``all`` five) offers that task's systems: the offline
    valence models, or the trained SemEval-2018 zoo (``ait:``); typed specs stay when they predict the new task and
    are cleared with a note otherwise. ``widget`` is the box to display; ``result`` holds the last
    EEC result (:class:`toolkit.studies.result.StudyResult`); ``study`` the study function (default :func:`toolkit.studies.eec.run`).
    """

    def __init__(self, *, models: Sequence[str] | None = None, task: str = "valence", cache: bool | str | Path = True,
                 study: Callable[..., Any] | None = None) -> None:
        self.task = w.Dropdown(options=eec.TASK_CHOICES, value=task, description="task")
        chosen = eec.default_models(task) if models is None else list(models)
        self.field = ModelField(options=self._options(task), chosen=chosen)
        self.models, self.extra = self.field.models, self.field.extra
        self.task.observe(lambda change: self._switch_task(change["new"]), names="value")
        self.subset = w.Dropdown(options=eec.SUBSETS, value="all", description="subset")
        self._controls()
        self.cache, self.study = cache, study
        self.result = None
        self._subset = "all"
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.task, self.extra, self.subset, self._buttons()])]),
                              self.status, self._progress_row(), self.output, self.drill])

    @staticmethod
    def _options(task: str) -> list[str]:
        named = [m for m in model_registry.available() if ":" not in m] if task == "valence" else []
        return named + ait.specs(task)

    def _switch_task(self, task: str) -> None:
        """Offer ``task``'s systems, ticking its defaults; keep typed specs that predict ``task``, clear the
        others with a note in the status line."""
        keep, dropped = [], []
        for spec in split_specs(self.extra.value)[0]:
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

    def writer(self) -> Callable[..., Any]:
        return eec.write

    def default_study(self) -> Callable[..., Any]:
        return eec.run

    def run(self, *, block: bool = True) -> bool:
        """Score and redraw with the app's fields (``block``: wait for it; the button runs without waiting)."""
        specs, self._subset, task_name = self.specs(), self.subset.value, self.task.value
        return self.launch(f"EEC ({task_name}, 8,640 sentences) with {len(specs)} model(s)",
                           {"models": specs, "task": task_name, "subsets": [self._subset], "cache": self.cache,
                            "progress": False}, block=block)

    def present(self, result) -> None:
        subset = self._subset
        family = captions.eec_family(result.tests[result.tests["subset"] == subset])
        for attribute in eec.ATTRIBUTES:
            n = int((result.tests["attribute"] == attribute).sum())
            self._show(table(eec.paper_table(result.tests, attribute=attribute),
                             caption=captions.eec_table(attribute=attribute, subset=subset, n=n, family=family)))
        # one figure per attribute, a panel per task
        self._draw(list(result.figures(subset=subset).values()))
        self._offer_drill(what="an EEC system's Δ", pickers={"system": list(result.models),
                                                              "attribute": list(eec.ATTRIBUTES)},
                          build=lambda system, attribute: eec_drilldown.eec_pairs(result, model=system,
                                                                              attribute=attribute))


def eec_app(*, models: Sequence[str] | None = None, task: str = "valence", cache: bool | str | Path = True,
            study: Callable[..., Any] | None = None) -> EECApp:
    """Build the EEC app for ``task`` (default models: the task's systems; ``study``: the study function, default
    :func:`toolkit.studies.eec.run`); display ``app.widget`` in a notebook."""
    return EECApp(models=models, task=task, cache=cache, study=study)
