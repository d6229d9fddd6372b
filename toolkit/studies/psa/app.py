"""The PSA app: a corpus, models (and extra specs), a name set and a sample size; Run scores and shows Table 2, the
gender gap and the figures; the threshold slider redraws the label-flip view from the last result."""
from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as w
import pandas as pd
from IPython.display import HTML

from toolkit import formatting, plots
from toolkit.apps.fields import ModelField, named_models
from toolkit.apps.runner import Runner
from toolkit.apps.tables import table
from toolkit.models import OFFLINE_DEFAULTS
from toolkit.paths import path_hint, path_tooltip
from toolkit.studies import psa
from toolkit.studies.psa import captions, figures


def table2(summary: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2 as the app shows it: per model and corpus, ScoreDev and ScoreRange, each followed by
    its 95% bootstrap interval (``[low, high]``)."""
    out = summary.loc[:, ["model", "corpus"]].copy()
    for column, name in (("score_dev", "ScoreDev"), ("score_range", "ScoreRange")):
        out[name] = summary[column]
        if {f"{column}_low", f"{column}_high"} <= set(summary.columns):
            out[f"{name} 95% CI"] = [formatting.format_interval(low, high) for low, high in
                                     zip(summary[f"{column}_low"], summary[f"{column}_high"])]
    return out.reset_index(drop=True)


class PSAApp(Runner):
    """Pick a corpus, models (and extra specs), a name set and a sample size; Run scores; the threshold slider
    redraws the label-flip view from the last result without re-scoring. ``widget`` is the box to display;
    ``result`` the last run; ``study`` the study function (default :func:`toolkit.studies.psa.run`)."""

    def __init__(self, *, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n: int = 50,
                 cache: bool | str | Path = True, study: Callable[..., Any] | None = None) -> None:
        self._psa = psa
        self.corpus = w.Text(value=str(corpus), description="corpus", placeholder=path_hint("'sample' or a CSV/JSONL path"),
                             tooltip=path_tooltip("'sample', or a corpus file or folder (docs/data.md)"))
        self.field = ModelField(options=named_models(), chosen=list(models))
        self.models, self.extra = self.field.models, self.field.extra
        self.names = w.Text(value="", description="names CSV", placeholder=path_hint("blank: 48 public figures"),
                            tooltip=path_tooltip("blank: the 48 public figures; or a CSV with name,gender,category"))
        self.n = w.BoundedIntText(value=n, min=2, max=100_000, description="sentences")
        self.threshold = w.FloatSlider(value=0.5, min=0.05, max=0.95, step=0.05, description="threshold",
                                       continuous_update=False)
        self._controls()
        self.flips = w.Output()
        self.cache, self.study = cache, study
        self.result = None
        self.threshold.observe(lambda _: self.redraw_flips(), names="value")
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.extra, self.corpus, self.names, self.n,
                                                            self._buttons()])]),
                              self.status, self._progress_row(), self.output, self.threshold, self.flips])

    def specs(self) -> list[str]:
        return self.field.specs()

    def writer(self) -> Callable[..., Any]:
        return psa.write

    def default_study(self) -> Callable[..., Any]:
        return psa.run

    def run(self, *, block: bool = True) -> bool:
        """Score and redraw with the app's fields (``block``: wait for it; the button runs without waiting)."""
        models, corpus, n = self.specs(), self.corpus.value.strip(), self.n.value
        self.flips.outputs = ()
        return self.launch(f"PSA on {corpus!r} ({n} sentences × names) with {len(models)} model(s)",
                           {"corpus": corpus, "models": models, "names": self.names.value.strip() or None, "n": n,
                            "cache": self.cache, "progress": False}, block=block)

    def present(self, result) -> None:
        sentences = int(result.provenance.settings["n_sentences"])
        self._show(table(table2(result.summary), caption=captions.psa_table2(sentences=sentences)))
        gender, legend = result.display(result.gender)
        self._show(table(gender, caption=captions.psa_gender(n=len(gender), correction=result.settings.correction,
                                                             family=result.provenance.settings["family"],
                                                             legend=legend)))
        self._draw(result.figures())
        for model in result.models:  # a figure of one bar or none is said in words (figures_of leaves it out)
            note = figures.score_sens_note(result.names, model=model)
            if note:
                self._show(HTML(f"<p class='psa-not-drawn'>{html.escape(note)}</p>"))
        self.result = result
        self.redraw_flips()

    def redraw_flips(self) -> None:
        self.flips.outputs = ()
        if self.result is None:
            return
        ax = figures.psa_label_flips(psa.label_flips(self.result.scored, threshold=self.threshold.value))
        plots.show(ax, output=self.flips)


def psa_app(*, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n: int = 50,
            cache: bool | str | Path = True, study: Callable[..., Any] | None = None) -> PSAApp:
    """Build the PSA app (``study``: the study function, default :func:`toolkit.studies.psa.run`); display ``app.widget``
    in a notebook."""
    return PSAApp(corpus=corpus, models=models, n=n, cache=cache, study=study)
