"""The adapter interface every model family implements, and the per-batch prediction it returns."""
from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Predictions:
    """One batch's output: valence in [0, 1], a label, and whether the text was truncated to fit the model."""

    score: np.ndarray
    label: list[str]
    truncated: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


class SentimentModel(ABC):
    """A model behind a spec string.

    ``fingerprint`` identifies everything that can change a score (weights, mapping, limits); the score cache keys on
    it. ``lengths`` returns token counts when the model is length-sensitive (the engine then sorts and packs batches
    under a token budget); lexicon models return None and get fixed-size batches of ``batch_size`` texts.
    ``task`` says what the score measures (valence unless the model predicts an emotion intensity).
    """

    spec: str
    batch_size: int = 512
    task: str = "valence"  # what ``score`` measures: one of toolkit.cases.TASKS

    @property
    @abstractmethod
    def fingerprint(self) -> str: ...

    @abstractmethod
    def predict(self, texts: list[str]) -> Predictions: ...

    def lengths(self, texts: list[str]) -> list[int] | None:
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"


def digest(*parts: object) -> str:
    """A short, stable hex digest of the parts' string forms."""
    h = hashlib.sha256()
    for part in parts:
        h.update(repr(part).encode())
        h.update(b"\x00")
    return h.hexdigest()[:32]
