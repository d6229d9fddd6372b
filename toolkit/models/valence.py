"""How every model family's raw output becomes a valence in [0, 1] (higher = more positive) and a label.

This module is the single place where the mappings live; each is tested in ``tests/test_models_valence.py``.

================  =====================================  ==============================================  ==============
family            raw output                             valence                                         label
================  =====================================  ==============================================  ==============
VADER             compound c in [-1, 1]                  (c + 1) / 2                                     c >= .05 pos,
                                                                                                         c <= -.05 neg,
                                                                                                         else neutral
TextBlob          PatternAnalyzer polarity p in [-1, 1]  (p + 1) / 2                                     sign of p
AFINN             unbounded sum s of word scores         (1 + s / sqrt(s^2 + 15)) / 2  (VADER's own      sign of s
                                                         normalisation of an unbounded sum, alpha = 15)
binary head       P(negative), P(positive)               P(positive)                                     argmax
3-class head      P(neg), P(neutral), P(pos)             P(pos) + P(neutral) / 2                         argmax
                                                         (= (P(pos) - P(neg) + 1) / 2)
5-star head       P(1 star) ... P(5 stars)               (E[stars] - 1) / 4                              <= 2 neg,
                                                                                                         3 neutral,
                                                                                                         >= 4 pos
                                                                                                         (argmax star)
py:<callable>     a score in [0, 1] per text             the score itself                                >= .5 pos
finance head      P(BEARISH), P(NEUTRAL), P(BULLISH)     as 3-class: bearish = negative, bullish =       argmax
                                                         positive (a choice; ``valence=none`` opts out)
5-level head      P(very negative) ... P(very positive)  as 5 stars (very negative = 1 ... very pos. = 5)  as 5 stars
emotion head      P(anger), P(joy), ... (Ekman 7 or      none by default: ``score`` NaN, ``label`` ""     ""
                  the 28 GoEmotions labels)              (recorded); ``valence=emotion``: as 3-class with  argmax group
                                                         :data:`EMOTION_POLARITY` (Demszky et al. 2020's
                                                         sentiment grouping; ambiguous = neutral)
multi-label head  independent sigmoids (problem_type     the sigmoids renormalised to sum 1, then as      argmax
                  multi_label_classification)            above (a choice, documented here)
LLM (llm:)        P(label word) for negative/neutral/    as 3-class; a parsed answer without             the answer
                  positive, or a parsed answer           probabilities: 0 / 0.5 / 1                      (or
                                                                                                         unparseable)
================  =====================================  ==============================================  ==============

A valence of 0.5 is neutral, so the papers' [-1, 1] sentiment scales map linearly: s = 2 * valence - 1.
Classifier heads are recognised from ``id2label`` (``negative``/``neg``, ``neutral``/``neu``, ``positive``/``pos``,
``1 star`` ... ``5 stars``, ``very negative`` ... ``very positive``, ``bullish``/``bearish``, case-insensitive);
generic names such as ``LABEL_0`` need an explicit ``labels=`` option (or ``valence=none``: native columns only).

Every classifier head also reports its native view (the ``text-classification`` pipeline's): ``top_label`` (the
config's own label name of the top class), ``top_score`` (its probability: softmax, or sigmoid for a multi-label
head) and ``class_probs`` (see :func:`native`). The mapping choice (``valence=auto|emotion|none`` in an ``hf:``
spec) is part of every fingerprint, with :data:`MAPPING_VERSION`.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from toolkit.errors import LabelMappingError

MAPPING_VERSION = 2  # bump when a mapping changes: it is part of every model fingerprint
AFINN_ALPHA = 15.0
VADER_THRESHOLD = 0.05
_ROLE_NAMES = {
    "negative": "negative", "neg": "negative",
    "neutral": "neutral", "neu": "neutral",
    "positive": "positive", "pos": "positive",
    "bullish": "positive", "bearish": "negative",  # FinTwitBERT-sentiment: a choice (valence=none opts out)
}
_LEVELS = {"very negative": 1, "negative": 2, "neutral": 3, "positive": 4, "very positive": 5}  # read as 5 stars
MAPPINGS: tuple[str, ...] = ("auto", "emotion", "none")
"""``auto``: polar, 5-star, 5-level and finance heads get a valence, emotion heads none (NaN, recorded);
``emotion``: emotion heads too, through :data:`EMOTION_POLARITY`; ``none``: no valence for any head."""
EMOTION_POLARITY: dict[str, str] = {
    **{e: "positive" for e in ("admiration", "amusement", "approval", "caring", "desire", "excitement", "gratitude",
                               "joy", "love", "optimism", "pride", "relief")},
    **{e: "negative" for e in ("anger", "annoyance", "disappointment", "disapproval", "disgust", "embarrassment",
                               "fear", "grief", "nervousness", "remorse", "sadness")},
    **{e: "neutral" for e in ("confusion", "curiosity", "realization", "surprise", "neutral")},
}
"""GoEmotions' sentiment grouping of its 28 labels (Demszky et al. 2020, Section 3; ambiguous → neutral), which also
covers the Ekman 7 of j-hartmann/emotion-english-distilroberta-base (anger, disgust, fear, joy, neutral, sadness,
surprise). Used only with ``valence=emotion``."""
_STARS = re.compile(r"^([1-5])\s*stars?$")


def _sign_labels(values: np.ndarray, threshold: float = 0.0) -> list[str]:
    return ["positive" if v > threshold else "negative" if v < -threshold else "neutral" for v in values]


def from_vader_compound(compound: Sequence[float]) -> tuple[np.ndarray, list[str]]:
    """VADER compound in [-1, 1] → valence; labels by VADER's documented ±0.05 thresholds."""
    c = np.asarray(compound, dtype=float)
    labels = ["positive" if v >= VADER_THRESHOLD else "negative" if v <= -VADER_THRESHOLD else "neutral" for v in c]
    return (c + 1.0) / 2.0, labels


def from_polarity(polarity: Sequence[float]) -> tuple[np.ndarray, list[str]]:
    """A polarity in [-1, 1] (TextBlob) → valence; label by sign."""
    p = np.asarray(polarity, dtype=float)
    return (p + 1.0) / 2.0, _sign_labels(p)


def from_afinn_sum(total: Sequence[float], *, alpha: float = AFINN_ALPHA) -> tuple[np.ndarray, list[str]]:
    """AFINN's unbounded sum → valence with VADER's normalisation s / sqrt(s² + alpha); label by sign."""
    s = np.asarray(total, dtype=float)
    return (1.0 + s / np.sqrt(s * s + alpha)) / 2.0, _sign_labels(s)


UNIT_TOLERANCE = 1e-10
"""How far outside [0, 1] a model's valence may stray from float64 rounding (e.g. ``1 + 1e-12`` from a sum of
probabilities; each float64 operation errs by ~1e-16) and still be taken: such a score is clipped to [0, 1]; one
further out (``1 + 1e-9``, or a float32 result off by its ~1e-7 rounding: clip it in the model) is refused (TK203)."""


def clip_unit(scores: np.ndarray) -> np.ndarray:
    """``scores`` with values within :data:`UNIT_TOLERANCE` of [0, 1] clipped into it (NaN and values further out are
    left as they are, for the caller to refuse)."""
    s = np.asarray(scores, dtype=float)
    near = np.isfinite(s) & (s >= -UNIT_TOLERANCE) & (s <= 1.0 + UNIT_TOLERANCE)
    return np.where(near, np.clip(s, 0.0, 1.0), s)


def describe_range(scores: np.ndarray) -> str:
    """``min …, max …`` of the finite ``scores`` with enough digits to show how far outside [0, 1] they lie."""
    s = np.asarray(scores, dtype=float)
    finite = s[np.isfinite(s)]
    extra = "" if len(finite) == len(s) else f", {len(s) - len(finite)} not finite"
    if not len(finite):
        return f"no finite value{extra}"
    return f"min {float(finite.min())!r}, max {float(finite.max())!r}{extra}"


def from_unit_scores(scores: Sequence[float]) -> tuple[np.ndarray, list[str]]:
    """Scores already in [0, 1] (``py:`` callables) → themselves; positive when ≥ 0.5."""
    s = np.asarray(scores, dtype=float)
    return s, ["positive" if v >= 0.5 else "negative" for v in s]


def head_roles(id2label: Mapping[int, str], *, labels: Sequence[str] | None = None) -> list[str | int]:
    """Roles of a classifier's outputs in index order: 'negative'/'neutral'/'positive' or star counts 1–5.

    ``labels`` overrides the model's own names (one per output, same vocabulary). Raises LabelMappingError (TK202)
    for a head that is neither polar (2 or 3 classes) nor 5-star.
    """
    names = list(labels) if labels is not None else [id2label[i] for i in sorted(id2label)]
    if labels is not None and len(names) != len(id2label):
        raise LabelMappingError(f"labels= gives {len(names)} names but the head has {len(id2label)} outputs.",
                                fix="give one name per output, in index order.")
    keys = [str(name).strip().lower() for name in names]
    five_level = any(k.startswith("very ") for k in keys)
    roles: list[str | int] = []
    for key in keys:
        star = _STARS.match(key)
        if star:
            roles.append(int(star.group(1)))
        elif five_level and key in _LEVELS:
            roles.append(_LEVELS[key])
        elif key in _ROLE_NAMES:
            roles.append(_ROLE_NAMES[key])
        else:
            roles = []
            break
    stars = sorted(r for r in roles if isinstance(r, int))
    polar = [r for r in roles if isinstance(r, str)]
    ok_stars = stars == [1, 2, 3, 4, 5] and not polar
    ok_polar = not stars and sorted(polar) in (["negative", "positive"], ["negative", "neutral", "positive"])
    if not (ok_stars or ok_polar):
        raise LabelMappingError(
            f"cannot map the classifier head with labels {names} to valence.",
            fix="pass the label names in index order, e.g. 'hf:<model>?labels=negative,positive' or "
                "'?labels=negative,neutral,positive' or '?labels=1 star,2 stars,3 stars,4 stars,5 stars', "
                "or score without a valence (native labels only) with '?valence=none'.")
    return roles


def from_probabilities(probs: np.ndarray, roles: Sequence[str | int]) -> tuple[np.ndarray, list[str]]:
    """Class probabilities (rows sum to 1) of a head with ``roles`` → valence and argmax label."""
    p = np.asarray(probs, dtype=float)
    if isinstance(roles[0], int):
        stars = np.asarray(roles, dtype=float)
        valence = np.clip((p @ stars - 1.0) / 4.0, 0.0, 1.0)  # float32 softmax can overshoot by an ulp
        top = stars[p.argmax(axis=1)]
        labels = ["negative" if s <= 2 else "neutral" if s == 3 else "positive" for s in top]
        return valence, labels
    weight = np.array([{"negative": 0.0, "neutral": 0.5, "positive": 1.0}[r] for r in roles])
    return np.clip(p @ weight, 0.0, 1.0), [str(roles[i]) for i in p.argmax(axis=1)]


def is_emotion_head(names: Sequence[str]) -> bool:
    """True when every label is an emotion of :data:`EMOTION_POLARITY` and at least one is not 'neutral'."""
    keys = [str(n).strip().lower() for n in names]
    return all(k in EMOTION_POLARITY for k in keys) and any(k != "neutral" for k in keys)


@dataclass(frozen=True)
class Head:
    """A classifier head: native label ``names`` (index order), valence ``roles`` (None: no valence), whether its
    outputs are independent sigmoids (``multi_label``), and which ``mapping`` was applied (recorded)."""

    names: list[str]
    roles: list[str | int] | None
    multi_label: bool
    mapping: str


def read_head(id2label: Mapping[int, str], *, labels: Sequence[str] | None = None, mapping: str = "auto",
              multi_label: bool = False) -> Head:
    """The head behind ``id2label`` under ``mapping`` (one of :data:`MAPPINGS`).

    ``auto`` maps polar, star, 5-level and finance heads (:func:`head_roles`) and leaves emotion heads without a
    valence; ``emotion`` maps emotion heads with :data:`EMOTION_POLARITY`; ``none`` maps nothing. A head that is
    neither mappable nor an emotion head raises LabelMappingError (TK202) under ``auto``/``emotion``.
    """
    if mapping not in MAPPINGS:
        raise LabelMappingError(f"unknown valence mapping {mapping!r}; available: {', '.join(MAPPINGS)}.",
                                fix="use valence=auto (default), valence=emotion or valence=none.")
    names = [str(id2label[i]) for i in sorted(id2label)]
    if mapping == "none":
        return Head(names, None, multi_label, "none")
    override = list(labels) if labels is not None else None
    effective = override if override is not None else names
    if is_emotion_head(effective) and (override is None or len(override) == len(names)):
        if mapping == "auto":
            return Head(names, None, multi_label, "none (emotion head)")
        return Head(names, [EMOTION_POLARITY[str(n).strip().lower()] for n in effective], multi_label, "emotion")
    roles = head_roles(id2label, labels=override)
    kind = "stars" if isinstance(roles[0], int) else (
        "finance" if any(str(n).strip().lower() in ("bullish", "bearish") for n in effective) else "polar")
    return Head(names, roles, multi_label, kind)


def from_head(probs: np.ndarray, head: Head) -> tuple[np.ndarray, list[str]]:
    """Valence and label of a head's outputs (softmax, or sigmoids for a multi-label head); NaN and "" when the head
    has no valence mapping. Polar roles may repeat (emotion groups): their probabilities add up."""
    p = np.asarray(probs, dtype=float)
    if head.roles is None:
        return np.full(len(p), np.nan), [""] * len(p)
    if head.multi_label:
        p = p / np.clip(p.sum(axis=1, keepdims=True), 1e-12, None)
    if isinstance(head.roles[0], int) or len(set(head.roles)) == len(head.roles):
        return from_probabilities(p, head.roles)
    groups = [r for r in ("negative", "neutral", "positive") if r in head.roles]
    pooled = np.stack([p[:, [i for i, r in enumerate(head.roles) if r == g]].sum(axis=1) for g in groups], axis=1)
    return from_probabilities(pooled, groups)


def native(probs: np.ndarray, names: Sequence[str]) -> tuple[list[str], np.ndarray, list[str]]:
    """The pipeline's view of a head: ``top_label`` (native name of the argmax), ``top_score`` (its probability) and
    ``class_probs``: one JSON object per row, ``{"<native label>": probability}`` in index order, probabilities
    rounded to 6 decimals (widen with :func:`toolkit.cases.widen_class_probs`)."""
    p = np.asarray(probs, dtype=float)
    top = p.argmax(axis=1)
    encoded = [json.dumps({str(n): round(float(v), 6) for n, v in zip(names, row)}) for row in p]
    return [str(names[i]) for i in top], p[np.arange(len(p)), top], encoded
