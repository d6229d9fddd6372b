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
