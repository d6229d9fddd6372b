"""The BTC-SAM app: models (and extra ``hf:``/``llm:`` specs), θ and the failure rule; Run scores the given test
sets and shows the detection-probability heatmap and table and a drill-down per cell."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as w

from toolkit.apps.fields import ModelField, named_models
from toolkit.apps.runner import Runner
from toolkit.apps.tables import table
from toolkit.models import OFFLINE_DEFAULTS
from toolkit.studies import btcsam
from toolkit.studies.btcsam import captions
from toolkit.studies.btcsam import drilldown as btcsam_drilldown


class BTCSAMApp(Runner):
    """Pick models (and extra ``hf:``/``llm:`` specs), θ and the failure rule; Run scores the given test sets (cached)
    and shows the detection-probability heatmap and table. ``widget`` is the box to display; ``result`` the last
    run; ``study`` the study function (default :func:`toolkit.studies.btcsam.run`)."""

    def __init__(self, *, sets: dict, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool | str | Path = True,
                 study: Callable[..., Any] | None = None) -> None:
        self._btcsam, self.sets, self.cache, self.study = btcsam, sets, cache, study
        self.field = ModelField(options=named_models(), chosen=list(models))
        self.models, self.extra = self.field.models, self.field.extra
        self.theta = w.SelectionSlider(options=list(btcsam.THETAS), value=0.2, description="θ")
        self.rule = w.Dropdown(options=btcsam.RULES, value="published", description="rule")
        self._controls()
        self.result = None
        self._shown = (0.2, "published")
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.extra, self.theta, self.rule, self._buttons()])]),
                              self.status, self._progress_row(), self.output, self.drill])

    def specs(self) -> list[str]:
        return self.field.specs()

    def writer(self) -> Callable[..., Any]:
        return btcsam.write

    def default_study(self) -> Callable[..., Any]:
        return btcsam.run

    def run(self, *, block: bool = True) -> bool:
        """Score and redraw with the app's fields (``block``: wait for it; the button runs without waiting)."""
        specs, theta, rule = self.specs(), self.theta.value, self.rule.value
        self._shown = (theta, rule)
        texts = sum(len(frame) for frame in self.sets.values())
        return self.launch(f"BTC-SAM: {texts:,} texts of {len(self.sets)} test set(s) with {len(specs)} model(s)",
                           {"sets": self.sets, "models": specs, "theta": theta, "rule": rule, "cache": self.cache,
                            "progress": False}, block=block)

    def present(self, result) -> None:
        theta, rule = self._shown
        self._draw(result.figures())
        detection = result.detection
        shown = detection[detection["theta"] == theta].reset_index(drop=True)
        cases = int(result.scored["case_id"].nunique())
        self._show(table(shown, caption=captions.btcsam_detection(theta=theta, rule=rule, cases=cases,
                                                                  sets=len(self.sets))))
        self._offer_drill(what="a BTC-SAM cell", pickers={"test set": sorted(set(result.scored["test_set"])),
                                                          "model": list(result.models)},
                          build=lambda **picked: btcsam_drilldown.btcsam_pairs(result, test_set=picked["test set"],
                                                                        model=picked["model"]))


def btcsam_app(*, sets: dict, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool | str | Path = True,
               study: Callable[..., Any] | None = None) -> BTCSAMApp:
    """Build the BTC-SAM app over ``sets`` (name → case table; ``study``: the study function); display
    ``app.widget`` in a notebook."""
    return BTCSAMApp(sets=sets, models=models, cache=cache, study=study)
