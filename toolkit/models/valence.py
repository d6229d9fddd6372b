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
================  =====================================  ==============================================  ==============

A valence of 0.5 is neutral, so the papers' [-1, 1] sentiment scales map linearly: s = 2 * valence - 1.
Classifier heads are recognised from ``id2label`` (``negative``/``neg``, ``neutral``/``neu``, ``positive``/``pos``,
``1 star`` ... ``5 stars``, case-insensitive); generic names such as ``LABEL_0`` need an explicit ``labels=`` option.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from toolkit.errors import LabelMappingError

MAPPING_VERSION = 1  # bump when a mapping changes: it is part of every model fingerprint
AFINN_ALPHA = 15.0
VADER_THRESHOLD = 0.05
_ROLE_NAMES = {
    "negative": "negative", "neg": "negative",
    "neutral": "neutral", "neu": "neutral",
    "positive": "positive", "pos": "positive",
}
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
    roles: list[str | int] = []
    for name in names:
        key = str(name).strip().lower()
        star = _STARS.match(key)
        if star:
            roles.append(int(star.group(1)))
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
                "'?labels=negative,neutral,positive' or '?labels=1 star,2 stars,3 stars,4 stars,5 stars'.")
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
