"""Lexicon models: VADER (Hutto & Gilbert 2014), TextBlob's PatternAnalyzer and AFINN (Nielsen 2011).

Each maps its raw output to valence with :mod:`toolkit.models.valence`.
"""
from __future__ import annotations

from importlib import metadata

import numpy as np

from toolkit.errors import MissingDependencyError
from toolkit.models import valence
from toolkit.models.base import Predictions, SentimentModel, digest
from toolkit.models.registry import named


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError as exc:
        raise MissingDependencyError(f"the package {package!r} is not installed.",
                                     fix=f"pip install {package}") from exc


@named("vader", requires="vaderSentiment")
class VaderModel(SentimentModel):
    fork_safe = True  # pure-Python, CPU-bound: scored over every core
    spec = "vader"
    max_text_chars = 20_000  # quadratic in length: 20,000 characters ~1.6 s, 100,000 ~28 s on one core here

    def __init__(self) -> None:
        version = _version("vaderSentiment")
        from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

        self._analyzer = SentimentIntensityAnalyzer()
        self._fingerprint = digest("vader", version, valence.MAPPING_VERSION)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        score, label = valence.from_vader_compound([self._analyzer.polarity_scores(t)["compound"] for t in texts])
        return Predictions(score, label, np.zeros(len(texts), dtype=bool))


@named("textblob", requires="textblob")
class TextBlobModel(SentimentModel):
    fork_safe = True  # pure-Python, CPU-bound: scored over every core
    spec = "textblob"

    def __init__(self) -> None:
        version = _version("textblob")
        from textblob.en.sentiments import PatternAnalyzer

        self._analyzer = PatternAnalyzer()
        self._fingerprint = digest("textblob-pattern", version, valence.MAPPING_VERSION)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        score, label = valence.from_polarity([self._analyzer.analyze(t).polarity for t in texts])
        return Predictions(score, label, np.zeros(len(texts), dtype=bool))


@named("afinn", requires="afinn")
class AfinnModel(SentimentModel):
    fork_safe = True  # pure-Python, CPU-bound: scored over every core
    spec = "afinn"

    def __init__(self) -> None:
        version = _version("afinn")
        from afinn import Afinn

        self._afinn = Afinn(language="en")
        self._fingerprint = digest("afinn-en", version, valence.MAPPING_VERSION, valence.AFINN_ALPHA)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        score, label = valence.from_afinn_sum([self._afinn.score(t) for t in texts])
        return Predictions(score, label, np.zeros(len(texts), dtype=bool))
