"""The adapter interface every model family implements, and the per-batch prediction it returns."""
from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Predictions:
    """One batch's output: valence in [0, 1] (NaN where the model has no valence for a text, e.g. an emotion head or
    an unparseable LLM answer), a label, whether the text was truncated to fit the model, and the model's native
    view: ``top_label``, ``top_score`` and ``class_probs`` (see :data:`toolkit.cases.NATIVE_COLUMNS`; None lets the
    engine fill them in: ``top_label`` = ``label``, ``top_score`` NaN, ``class_probs`` "")."""

    score: np.ndarray
    label: list[str]
    truncated: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    top_label: list[str] | None = None
    top_score: np.ndarray | None = None
    class_probs: list[str] | None = None

    def filled(self) -> "Predictions":
        """This batch with the native view filled in where the model gave none (top_label = label, top_score NaN,
        class_probs "")."""
        n = len(self.label)
        return Predictions(self.score, list(self.label), self.truncated,
                           list(self.label) if self.top_label is None else list(self.top_label),
                           np.full(n, np.nan) if self.top_score is None else np.asarray(self.top_score, dtype=float),
                           [""] * n if self.class_probs is None else list(self.class_probs))


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
    fork_safe: bool = False  # CPU-bound and safe to run in forked worker processes (toolkit.executors.for_model)
    max_text_chars: int = 100_000
    """The longest text (in characters) the engine gives this model; longer ones are skipped and counted (score NaN,
    ``top_label`` ``"too_long"``), never cached. 100,000 for every family but VADER, whose cost grows with the square
    of a text's length (20,000 characters: ~1.6 s a text, 100,000: ~28 s; the longest IMDB review has 13,704): 20,000.
    TextBlob and AFINN take ~0.3 s at 100,000; a transformer reads only its first ``max_length`` tokens; an LLM
    endpoint is billed per token. ``score(..., max_text_chars=)`` overrides it for every model of a call."""

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
