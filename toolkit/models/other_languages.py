"""Offline systems for German, Japanese and Chinese: the multilingual EEC's languages that SemEval-2018 Task 1 has no
data for (so the ``ait:`` zoo has no system in them). Each is a package from the package index that scores offline;
none is shipped with the toolkit. They are valence systems.

- ``gersent`` (German): GerSent 0.0.6 — SentiWS word weights (Remus, Quasthoff & Heyer 2010; inflected forms, each in
  [-1, 1]) summed over the words, with GerSent's negation and intensifier rules; the sum → valence with VADER's
  normalisation s / sqrt(s² + α) (as for AFINN's sum), α = :data:`GERSENT_ALPHA`.
- ``mlask`` (Japanese): ML-Ask (Ptaszynski et al. 2009; pymlask 0.3.3) over MeCab with IPAdic (the ``ipadic``
  package): the emotion words of its ten classes, and its sentiment orientation from them, on a five-level scale
  (:data:`ORIENTATION_VALENCE`). Coarse: texts that differ only in a person share their emotion words.
- ``cnsenti`` (Chinese): cnsenti's HowNet positive and negative word lists over jieba's segmentation, with its degree
  adverbs (×0.5 to ×4) and negation (a lone space in its positive list is dropped); its positive − negative score
  → valence with VADER's normalisation (as for AFINN's sum), α = :data:`CNSENTI_ALPHA`.
- ``snownlp`` (Chinese): SnowNLP's naive Bayes sentiment, trained on product reviews; its P(positive) is the valence.
  Weak on short affect sentences (docs/multilingual.md: it ranks joy above the negative emotions only in 2 of 3
  pairs); kept as the Chinese system most often used.

Emotion systems (the EEC's other four tasks), one per emotion: ``mlask-anger`` … ``mlask-sadness`` (Japanese; ML-Ask's
classes ikari, kowa, yorokobi, aware) and ``cnsenti-anger`` … ``cnsenti-sadness`` (Chinese; cnsenti's ``Emotion``,
the DUTIR emotion lexicon's classes 怒, 惧, 乐, 哀). The score is the intensity c / sqrt(c² + α) of the count c of the
text's words in that class (:data:`EMOTION_ALPHA`), as the packages give the counts (cnsenti's first-listed class
wins a word in two).

:data:`SYSTEMS` maps a language to its valence systems, :data:`EMOTION_SYSTEMS` to its emotion systems per task
(what :func:`toolkit.studies.multilingual.default_models` uses).
"""
from __future__ import annotations

import functools
import logging

import numpy as np

from toolkit.errors import MissingDependencyError
from toolkit.models import valence
from toolkit.models.base import Predictions, SentimentModel, digest
from toolkit.models.lexicon import _version
from toolkit.models.registry import installed, named, register

GERSENT_ALPHA = 1.0
"""The toolkit's AFINN α (15, VADER's) is for integer scores up to 5; SentiWS weights are at most 1 in size, so
α = 1 maps one strong word (0.7) to 0.79 and two to 0.91, as AFINN maps one (3) to 0.81 and two to 0.92 on its
scale."""

CNSENTI_ALPHA = 4.0
"""cnsenti scores a plain emotion word 1 and a "very" word 3: α = 4 maps them to 0.72 and 0.92, as AFINN maps a
moderate word (2) to 0.73 and its strongest (5) to 0.90."""

EMOTION_ALPHA = 1.0
"""An emotion word count c → intensity c / sqrt(c² + α) in [0, 1): none 0, one word 0.71, two 0.89 (VADER's
normalisation of a sum, on the intensity scale)."""
EMOTIONS = ("anger", "fear", "joy", "sadness")
MLASK_CLASSES: dict[str, str] = {"anger": "ikari", "fear": "kowa", "joy": "yorokobi", "sadness": "aware"}
"""ML-Ask's classes (pymlask's names of Nakamura's ten) for the EEC's four emotions."""
CNSENTI_CLASSES: dict[str, str] = {"anger": "怒", "fear": "惧", "joy": "乐", "sadness": "哀"}
"""cnsenti's ``Emotion`` classes (the DUTIR lexicon's seven) for the EEC's four emotions."""

SYSTEMS: dict[str, tuple[str, ...]] = {"de": ("gersent",), "ja": ("mlask",), "zh": ("cnsenti", "snownlp")}
EMOTION_SYSTEMS: dict[str, dict[str, tuple[str, ...]]] = {
    "ja": {emotion: (f"mlask-{emotion}",) for emotion in EMOTIONS},
    "zh": {emotion: (f"cnsenti-{emotion}",) for emotion in EMOTIONS}}
REQUIRES: dict[str, tuple[str, ...]] = {"gersent": ("gersent",), "mlask": ("pymlask", "ipadic"),
                                         "cnsenti": ("cnsenti",), "snownlp": ("snownlp",)}
"""The pip packages each system (family) needs."""
_IMPORTS = {"pymlask": "mlask"}  # a package whose import name differs


def systems(language: str, *, task: str = "valence") -> tuple[str, ...]:
    """Every system of ``language`` for ``task`` (valence: :data:`SYSTEMS`; an emotion: :data:`EMOTION_SYSTEMS`)."""
    if task == "valence":
        return SYSTEMS.get(language, ())
    return EMOTION_SYSTEMS.get(language, {}).get(task, ())


def available(language: str, *, task: str = "valence") -> list[str]:
    """The systems of ``language`` for ``task`` whose packages are installed here."""
    return [name for name in systems(language, task=task) if not _absent(name)]


def missing(language: str, *, task: str = "valence") -> list[str]:
    """The pip packages ``language``'s systems for ``task`` need that are not installed here."""
    return list(dict.fromkeys(package for name in systems(language, task=task) for package in _absent(name)))


def _absent(name: str) -> list[str]:
    family = name.partition("-")[0]
    return [package for package in REQUIRES[family] if not installed(_IMPORTS.get(package, package))]


def intensity(counts: list[int] | np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Emotion word counts → (intensity c / sqrt(c² + :data:`EMOTION_ALPHA`), label ``high`` at ≥ 0.5 else ``low``,
    as the ``ait:`` emotion systems label)."""
    c = np.asarray(counts, dtype=float)
    score = c / np.sqrt(c * c + EMOTION_ALPHA)
    return score, ["high" if v >= 0.5 else "low" for v in score]


@named("gersent", requires="gersent")
class GerSentModel(SentimentModel):
    fork_safe = True  # pure-Python word lookups
    spec = "gersent"
    language = "de"

    def __init__(self) -> None:
        version = _version("gersent")
        from gersent import GerSent

        self._analyzer = GerSent()
        self._fingerprint = digest("gersent", version, valence.MAPPING_VERSION, GERSENT_ALPHA)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        total = [self._analyzer.sentiment(t)["composite"] for t in texts]
        score, label = valence.from_afinn_sum(total, alpha=GERSENT_ALPHA)
        return Predictions(score, label, np.zeros(len(texts), dtype=bool))


ORIENTATION_VALENCE: dict[str, float] = {"POSITIVE": 1.0, "mostly_POSITIVE": 0.75, "NEUTRAL": 0.5,
                                         "mostly_NEGATIVE": 0.25, "NEGATIVE": 0.0}
"""ML-Ask's five orientations (from its counts of positive and negative emotion classes) → valence; a text with no
emotion word is NEUTRAL."""


@named("mlask", requires="mlask")
class MLAskModel(SentimentModel):
    spec = "mlask"
    language = "ja"

    def __init__(self) -> None:
        version = _version("pymlask")
        try:
            import ipadic
        except ImportError as exc:
            raise MissingDependencyError("ML-Ask needs MeCab's IPAdic dictionary (the ipadic package).",
                                         fix="pip install ipadic") from exc
        from mlask import MLAsk

        self._analyzer = MLAsk(ipadic.MECAB_ARGS)
        self._fingerprint = digest("pymlask", version, _version("ipadic"), valence.MAPPING_VERSION,
                                   sorted(ORIENTATION_VALENCE.items()))

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        orientation = [self._analyzer.analyze(t).get("orientation", "NEUTRAL") for t in texts]
        score = np.array([ORIENTATION_VALENCE[o] for o in orientation])
        label = ["positive" if v > 0.5 else "negative" if v < 0.5 else "neutral" for v in score]
        return Predictions(score, label, np.zeros(len(texts), dtype=bool))


def _jieba_ready() -> None:
    """jieba's dictionary built now (before any fork), without the four INFO lines it logs on every first use."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()


class MLAskEmotionModel(SentimentModel):
    """ML-Ask's word count of one emotion class (:data:`MLASK_CLASSES`) as that emotion's intensity."""

    def __init__(self, task: str) -> None:
        self.task, self.spec, self.language = task, f"mlask-{task}", "ja"
        self._class = MLASK_CLASSES[task]
        self._analyzer = MLAskModel()._analyzer
        self._fingerprint = digest("pymlask", _version("pymlask"), _version("ipadic"), self._class, EMOTION_ALPHA)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        counts = [len((self._analyzer.analyze(t).get("emotion") or {}).get(self._class, [])) for t in texts]
        score, label = intensity(counts)
        return Predictions(score, label, np.zeros(len(texts), dtype=bool))


class CnsentiEmotionModel(SentimentModel):
    """cnsenti's ``Emotion`` count of one DUTIR class (:data:`CNSENTI_CLASSES`) as that emotion's intensity."""

    fork_safe = True  # pure Python

    def __init__(self, task: str) -> None:
        self.task, self.spec, self.language = task, f"cnsenti-{task}", "zh"
        self._class = CNSENTI_CLASSES[task]
        version = _version("cnsenti")
        from cnsenti import Emotion

        _jieba_ready()
        self._analyzer = Emotion()
        self._fingerprint = digest("cnsenti-emotion", version, _version("jieba"), self._class, EMOTION_ALPHA)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        score, label = intensity([self._analyzer.emotion_count(t)[self._class] for t in texts])
        return Predictions(score, label, np.zeros(len(texts), dtype=bool))


for _emotion in EMOTIONS:
    register(f"mlask-{_emotion}", functools.partial(MLAskEmotionModel, _emotion), requires="mlask", task=_emotion)
    register(f"cnsenti-{_emotion}", functools.partial(CnsentiEmotionModel, _emotion), requires="cnsenti",
             task=_emotion)


@named("cnsenti", requires="cnsenti")
class CnsentiModel(SentimentModel):
    fork_safe = True  # pure Python (jieba's dictionary is read once, before the fork)
    spec = "cnsenti"
    language = "zh"

    def __init__(self) -> None:
        version = _version("cnsenti")
        from cnsenti import Sentiment

        _jieba_ready()
        self._analyzer = Sentiment()
        # cnsenti 0.0.7's positive list holds a lone space, so every space jieba keeps counts as a positive word (every
        # sentence of Goldfarb-Tarrant's Chinese EEC has spaces): a space is not a word, so it is dropped. The word
        # lists become sets, for the same membership test at O(1).
        for attribute in ("Poss", "Negs", "Denys", "Extremes", "Verys", "Mores", "Ishs"):
            setattr(self._analyzer, attribute, {w for w in getattr(self._analyzer, attribute) if w.strip()})
        self._fingerprint = digest("cnsenti", version, _version("jieba"), valence.MAPPING_VERSION, CNSENTI_ALPHA,
                                   "no-whitespace-words")

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        result = [self._analyzer.sentiment_calculate(t) for t in texts]
        score, label = valence.from_afinn_sum([r["pos"] - r["neg"] for r in result], alpha=CNSENTI_ALPHA)
        return Predictions(score, label, np.zeros(len(texts), dtype=bool))


@named("snownlp", requires="snownlp")
class SnowNLPModel(SentimentModel):
    fork_safe = True  # pure Python
    spec = "snownlp"
    language = "zh"

    def __init__(self) -> None:
        version = _version("snownlp")
        from snownlp import SnowNLP

        self._snownlp = SnowNLP
        self._fingerprint = digest("snownlp", version, valence.MAPPING_VERSION)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        # SnowNLP divides by zero on an empty text: it has no valence (NaN, no label), as an unparseable LLM answer
        empty = [t == "" for t in texts]
        score, label = valence.from_unit_scores([np.nan if e else self._snownlp(t).sentiments
                                                 for t, e in zip(texts, empty)])
        return Predictions(score, ["" if e else x for x, e in zip(label, empty)], np.zeros(len(texts), dtype=bool))
