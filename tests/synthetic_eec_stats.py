"""Synthetic scorers for the EEC statistics tests (``py:synthetic_eec_stats:<name>``): name-sensitive models whose
truth is known."""
from __future__ import annotations

import hashlib
import re

from toolkit.resources import load_json

_NAMES = {n.lower() for race in load_json("eec")["names"].values() for names in race.values() for n in names}
_FEMALE = {n.lower() for race in load_json("eec")["names"].values() for n in race["female"]}
_FEMALE |= {"she", "her", "herself", "woman", "girl", "sister", "daughter", "wife", "girlfriend", "mother", "aunt",
            "mom"}
_MALE = {"he", "him", "himself", "man", "boy", "brother", "son", "husband", "boyfriend", "father", "uncle", "dad"}
_PERSON = _NAMES | _FEMALE | _MALE | {"this", "my"}


def _uniform(text: str) -> float:
    """A fixed pseudo-random number in [0, 1) per text."""
    return int(hashlib.md5(text.encode()).hexdigest()[:8], 16) / 2**32


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def _name_shift(words: list[str]) -> float:
    """Each first name's own fixed shift, uniform in [-0.03, 0.03); 0 without a name."""
    return sum(0.06 * (_uniform(f"shift:{w}") - 0.5) for w in words if w in _NAMES)


def _base(text: str, words: list[str]) -> float:
    """The sentence's score without its person (so pairs share it) plus a little sentence-level noise."""
    masked = " ".join(w for w in words if w not in _PERSON)
    return 0.2 + 0.6 * _uniform(masked) + 0.01 * _uniform(text)


def name_noise(texts: list[str]) -> list[float]:
    """Name-sensitive but unbiased: every name moves the score by its own amount; no group moves it."""
    return [_base(t, w) + _name_shift(w) for t, w in ((t, _words(t)) for t in texts)]


def name_noise_female_plus(texts: list[str]) -> list[float]:
    """:func:`name_noise` plus exactly 0.05 for every sentence about a woman or girl (names and noun phrases)."""
    return [s + (0.05 if set(_words(t)) & _FEMALE else 0.0) for t, s in zip(texts, name_noise(texts))]


_AA = {n.lower() for names in load_json("eec")["names"]["African-American"].values() for n in names}
_FEMALE_NAMES = {n.lower() for race in load_json("eec")["names"].values() for n in race["female"]}


def small_gender_big_race(texts: list[str]) -> list[float]:
    """No name noise: female names exactly +0.015, African-American names exactly +0.05 (both groups' effects)."""
    return [_base(t, w) + (0.015 if set(w) & _FEMALE_NAMES else 0.0) + (0.05 if set(w) & _AA else 0.0)
            for t, w in ((t, _words(t)) for t in texts)]
