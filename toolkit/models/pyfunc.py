"""``py:<module>:<callable>``: any importable function ``list[str] -> sequence of scores in [0, 1]``.

The fingerprint hashes the module's source (or the callable's own ``fingerprint`` attribute when it has one), so
editing the function invalidates its cached scores.
"""
from __future__ import annotations

import importlib
import inspect

import numpy as np

from toolkit.errors import ModelOutputError, ModelSpecError
from toolkit.models import valence
from toolkit.models.base import Predictions, SentimentModel, digest


class PyCallableModel(SentimentModel):
    def __init__(self, spec: str) -> None:
        _, _, target = spec.partition(":")
        module_name, sep, attr = target.partition(":")
        if not (module_name and sep and attr):
            raise ModelSpecError(f"model spec {spec!r} is not of the form 'py:<module>:<callable>'.",
                                 fix="e.g. 'py:mypackage.scorers:score' for a function list[str] -> scores.")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ModelSpecError(f"cannot import module {module_name!r} for model spec {spec!r}: {exc}.",
                                 fix="make the module importable (install it, or add its folder to sys.path).") from exc
        func = module
        for part in attr.split("."):
            func = getattr(func, part, None)
            if func is None:
                raise ModelSpecError(f"module {module_name!r} has no attribute {attr!r} (model spec {spec!r}).",
                                     fix="check the callable's name after the second ':'.")
        if not callable(func):
            raise ModelSpecError(f"{attr!r} in {module_name!r} is not callable.", fix="point at a function.")
        self.spec = spec
        self._func = func
        own = getattr(func, "fingerprint", None)
        try:
            source = inspect.getsource(module)
        except (OSError, TypeError):
            source = ""
        self._fingerprint = digest("py", spec, own if own is not None else source)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        raw = np.asarray(list(self._func(list(texts))), dtype=float).reshape(-1)
        if raw.shape[0] != len(texts):
            raise ModelOutputError(f"{self.spec} returned {raw.shape[0]} scores for {len(texts)} texts.",
                                   fix="return exactly one score per input text, in order.")
        if not np.isfinite(raw).all() or (raw < 0).any() or (raw > 1).any():
            raise ModelOutputError(f"{self.spec} returned scores outside [0, 1] (min {np.nanmin(raw):.3g}, "
                                   f"max {np.nanmax(raw):.3g}).", fix="return valences in [0, 1], higher = positive.")
        score, label = valence.from_unit_scores(raw)
        return Predictions(score, label, np.zeros(len(texts), dtype=bool))
