"""ipywidgets apps: pickers wired to the package's functions, nothing more."""
from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as w
import matplotlib.pyplot as plt
from IPython.display import display

from toolkit import eec
from toolkit.errors import ToolkitError
from toolkit.models import OFFLINE_DEFAULTS, available


class EECApp:
    """Pick models (and extra ``hf:``/``py:`` specs), a subset and a box-plot order; Run re-scores and redraws.

    ``widget`` is the box to display; ``result`` holds the last :class:`toolkit.eec.EECResult`.
    """

    def __init__(self, *, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> None:
        named = [m for m in available() if ":" not in m]
        self.models = w.SelectMultiple(options=named, value=[m for m in models if m in named], description="models")
        self.extra = w.Text(placeholder="hf:/path/to/model, py:module:function", description="more specs")
        self.subset = w.Dropdown(options=eec.SUBSETS, value="all", description="subset")
        self.button = w.Button(description="Run", button_style="primary")
        self.output = w.Output()
        self.cache = cache
        self.result: eec.EECResult | None = None
        self.button.on_click(lambda _: self.run())
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.extra, self.subset, self.button])]), self.output])

    def specs(self) -> list[str]:
        extra = [s.strip() for s in self.extra.value.split(",") if s.strip()]
        return list(self.models.value) + extra

    def run(self) -> None:
        self.output.clear_output()
        with self.output:
            try:
                self.result = eec.run(models=self.specs(), subsets=[self.subset.value], cache=self.cache)
            except ToolkitError as exc:
                print(exc)
                return
            for attribute in eec.ATTRIBUTES:
                display(eec.paper_table(self.result.tests, attribute=attribute))
            eec.figures(self.result, subset=self.subset.value)
            plt.show()


def eec_app(*, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> EECApp:
    """Build the EEC app; display ``app.widget`` in a notebook."""
    return EECApp(models=models, cache=cache)


class PSAApp:
    """Pick a corpus, models, a name set and a sample size; Run scores; the threshold slider redraws the label-flip
    view from the last result without re-scoring. ``widget`` is the box to display; ``result`` the last run."""

    def __init__(self, *, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n: int = 200,
                 cache: bool = True) -> None:
        from toolkit import psa

        self._psa = psa
        named = [m for m in available() if ":" not in m]
        self.corpus = w.Text(value=str(corpus), description="corpus", placeholder="'sample' or a CSV/JSONL path")
        self.models = w.SelectMultiple(options=named, value=[m for m in models if m in named], description="models")
        self.names = w.Text(value="", description="names CSV", placeholder="blank: 48 public figures")
        self.n = w.BoundedIntText(value=n, min=2, max=100_000, description="sentences")
        self.threshold = w.FloatSlider(value=0.5, min=0.05, max=0.95, step=0.05, description="threshold",
                                       continuous_update=False)
        self.button = w.Button(description="Run", button_style="primary")
        self.output, self.flips = w.Output(), w.Output()
        self.cache = cache
        self.result = None
        self.button.on_click(lambda _: self.run())
        self.threshold.observe(lambda _: self.redraw_flips(), names="value")
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.corpus, self.names, self.n, self.button])]),
                              self.output, self.threshold, self.flips])

    def run(self) -> None:
        self.output.clear_output()
        with self.output:
            try:
                self.result = self._psa.run(corpus=self.corpus.value.strip(), models=list(self.models.value),
                                            names=self.names.value.strip() or None, n=self.n.value, cache=self.cache)
            except ToolkitError as exc:
                print(exc)
                return
            display(self._psa.table2(self.result.summary))
            self._psa.figures(self.result)
            plt.show()
        self.redraw_flips()

    def redraw_flips(self) -> None:
        self.flips.clear_output()
        if self.result is None:
            return
        with self.flips:
            from toolkit import plots

            plots.psa_label_flips(self._psa.label_flips(self.result.scored, threshold=self.threshold.value))
            plt.show()


def psa_app(*, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n: int = 200,
            cache: bool = True) -> PSAApp:
    """Build the PSA app; display ``app.widget`` in a notebook."""
    return PSAApp(corpus=corpus, models=models, n=n, cache=cache)


class BTCSAMApp:
    """Pick models and θ; Run scores the given test sets (cached) and shows the detection-probability heatmap and
    table. ``widget`` is the box to display; ``result`` the last run."""

    def __init__(self, *, sets: dict, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> None:
        from toolkit import btcsam

        self._btcsam, self.sets, self.cache = btcsam, sets, cache
        named = [m for m in available() if ":" not in m]
        self.models = w.SelectMultiple(options=named, value=[m for m in models if m in named], description="models")
        self.theta = w.SelectionSlider(options=list(btcsam.THETAS), value=0.2, description="θ")
        self.button = w.Button(description="Run", button_style="primary")
        self.output = w.Output()
        self.result = None
        self.button.on_click(lambda _: self.run())
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.theta, self.button])]), self.output])

    def run(self) -> None:
        self.output.clear_output()
        with self.output:
            try:
                self.result = self._btcsam.run(sets=self.sets, models=list(self.models.value), theta=self.theta.value,
                                               cache=self.cache)
            except ToolkitError as exc:
                print(exc)
                return
            self._btcsam.figures(self.result)
            plt.show()
            display(self.result.detection[self.result.detection["theta"] == self.theta.value])


def btcsam_app(*, sets: dict, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> BTCSAMApp:
    """Build the BTC-SAM app over ``sets`` (name → case table); display ``app.widget`` in a notebook."""
    return BTCSAMApp(sets=sets, models=models, cache=cache)
