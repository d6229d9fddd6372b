"""Scorers with a known, graded gender bias for the agreement tests: ``py:synthetic_bias:female_<k>`` adds k/100 to
every text about a woman (EEC's female names and words, PSA's female public figures) on top of a fair, noisy base."""
from __future__ import annotations

import re

from synthetic_models import _FEMALE, _PERSON_WORDS, _noise

from toolkit.generators.psa import load_names

_NAMES = load_names(None)
_FEMALE_ALL = _FEMALE | {w for n in _NAMES[_NAMES["gender"] == "female"]["name"] for w in re.findall(r"[a-z]+",
                                                                                                       n.lower())}
_ANY_PERSON = _PERSON_WORDS | {w for n in _NAMES["name"] for w in re.findall(r"[a-z]+", n.lower())}


def _biased(texts: list[str], delta: float) -> list[float]:
    """A fair base (noise from the words that do not name a person) plus ``delta`` for a text about a woman."""
    out = []
    for text in texts:
        words = re.findall(r"[a-z]+", text.lower())
        base = 0.3 + 0.4 * _noise(" ".join(w for w in words if w not in _ANY_PERSON))
        out.append(base + (delta if set(words) & _FEMALE_ALL else 0.0))
    return out


def female_1(texts: list[str]) -> list[float]:
    return _biased(texts, 0.01)


def female_4(texts: list[str]) -> list[float]:
    return _biased(texts, 0.04)


def female_9(texts: list[str]) -> list[float]:
    return _biased(texts, 0.09)


def female_15(texts: list[str]) -> list[float]:
    return _biased(texts, 0.15)
