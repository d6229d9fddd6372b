"""The BiasFinder app: a corpus, models (and extra specs), names per gender and templates per characteristic; Run
templates the reviews, scores the mutants, shows Table 4 and the BTC figures and a drill-down per template."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as w

from toolkit import monitor
from toolkit.apps.fields import ModelField, named_models
from toolkit.apps.runner import Runner
from toolkit.apps.tables import table
from toolkit.models import OFFLINE_DEFAULTS
from toolkit.studies import biasfinder
from toolkit.studies.biasfinder import captions
from toolkit.studies.biasfinder import drilldown as biasfinder_drilldown

DRILL_OPTIONS = 1_000  # at most this many templates offered in a drill-down picker


def _templated_run(**arguments):
    """:func:`toolkit.studies.biasfinder.run`, its first stage named for the status line."""
    monitor.stage("templating the reviews (parsing, coreference, mutants)")
    return biasfinder.run(**arguments)


class BiasFinderApp(Runner):
    """Pick a corpus, models (and extra specs), names per gender and templates per characteristic; Run templates
    the reviews, scores the mutants and shows Table 4 and the BTC figures. ``widget`` is the box to display;
    ``result`` the last BiasFinder result (:class:`toolkit.studies.result.StudyResult`); ``study`` the study function (default
    :func:`toolkit.studies.biasfinder.run`)."""

    def __init__(self, *, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n_names: int = 30,
                 max_templates: int | None = None, cache: bool | str | Path = True,
                 study: Callable[..., Any] | None = None, **options) -> None:
        self._biasfinder, self.options, self.cache, self.study = biasfinder, options, cache, study
        self.corpus = w.Text(value=str(corpus), description="corpus", placeholder="'sample' or a CSV/JSONL path")
        self.field = ModelField(options=named_models(), chosen=list(models))
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

    def writer(self) -> Callable[..., Any]:
        return biasfinder.write

    def default_study(self) -> Callable[..., Any]:
        return _templated_run

    def run(self, *, block: bool = True) -> bool:
        """Template, score and redraw with the app's fields (``block``: wait for it)."""
        specs, corpus = self.specs(), self.corpus.value.strip()
        return self.launch(f"BiasFinder on {corpus!r} with {len(specs)} model(s)",
                           {"corpus": corpus, "models": specs, "n_names": self.n_names.value,
                            "max_templates": self.max_templates.value or None, "cache": self.cache,
                            "progress": False, **self.options}, block=block)

    def present(self, result) -> None:
        table4 = result.table4
        self._show(table(table4, caption=captions.biasfinder_table4(
            mutants=int(table4["mutants"].sum()), templates=int(table4["templates"].sum()),
            settings=result.provenance.settings)))
        self._draw(result.figures())
        per_template = result.btcs.groupby("case_id", sort=False)["n_btcs"].sum().sort_values(
            ascending=False, kind="stable")  # templates with the most BTCs first
        templates = list(per_template.index[:DRILL_OPTIONS])
        self._offer_drill(what="a BiasFinder template's BTCs", pickers={"template": templates},
                          build=lambda template: biasfinder_drilldown.biasfinder_pairs(result, template=template))


def biasfinder_app(*, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n_names: int = 30,
                   max_templates: int | None = None, cache: bool | str | Path = True,
                   study: Callable[..., Any] | None = None, **options) -> BiasFinderApp:
    """Build the BiasFinder app (``options``: further :func:`toolkit.studies.biasfinder.run` arguments, e.g. ``lists``;
    ``study``: the study function); display ``app.widget`` in a notebook."""
    return BiasFinderApp(corpus=corpus, models=models, n_names=n_names, max_templates=max_templates, cache=cache,
                         study=study, **options)
