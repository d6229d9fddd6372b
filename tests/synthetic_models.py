"""Synthetic scorers for tests, importable as ``py:synthetic_models:<name>`` (tests/ is on sys.path)."""
from __future__ import annotations

import hashlib
import re

from toolkit.resources import load_json

_EEC = load_json("eec")
_FEMALE = {n.lower() for names in _EEC["names"].values() for n in names["female"]}
_MALE = {n.lower() for names in _EEC["names"].values() for n in names["male"]}
_AA = {n.lower() for n in _EEC["names"]["African-American"]["female"] + _EEC["names"]["African-American"]["male"]}
_FEMALE |= {"she", "her", "herself", "woman", "girl", "sister", "daughter", "wife", "girlfriend", "mother", "aunt",
            "mom"}
_MALE |= {"he", "him", "himself", "man", "boy", "brother", "son", "husband", "boyfriend", "father", "uncle", "dad"}
_PERSON_WORDS = _FEMALE | _MALE | {"this", "my"}


def _noise(text: str) -> float:
    """A fixed pseudo-random number in [0, 1) per text."""
    return int(hashlib.md5(text.encode()).hexdigest()[:8], 16) / 2**32


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def blind(texts: list[str]) -> list[float]:
    """A fair model: the score ignores who the sentence is about (persons masked out)."""
    return [0.2 + 0.6 * _noise(" ".join(w for w in _words(t) if w not in _PERSON_WORDS)) for t in texts]


def female_plus(texts: list[str]) -> list[float]:
    """Noisy per sentence, plus a constant 0.1 for every sentence about a woman or girl."""
    return [0.3 + 0.4 * _noise(t) + (0.1 if set(_words(t)) & _FEMALE else 0.0) for t in texts]


def african_american_minus(texts: list[str]) -> list[float]:
    """Blind to gender, 0.05 lower for every sentence with an African-American name."""
    return [s - (0.05 if set(_words(t)) & _AA else 0.0) for t, s in zip(texts, blind(texts))]


def out_of_range(texts: list[str]) -> list[float]:
    return [1.5 for _ in texts]


def too_few(texts: list[str]) -> list[float]:
    return [0.5 for _ in texts[1:]]


CALLS: list[int] = []


def counting(texts: list[str]) -> list[float]:
    """Records each call's batch size in CALLS (dedup and cache tests)."""
    CALLS.append(len(texts))
    return [_noise(t) for t in texts]


_PSA_NAMES = None


def _strip_names(text: str) -> str:
    """The sentence with the PSA default names (and "'s"), pronouns and extra spaces removed."""
    global _PSA_NAMES
    if _PSA_NAMES is None:
        from toolkit.studies.psa.generator import load_names

        names = sorted(load_names()["name"], key=len, reverse=True)
        _PSA_NAMES = re.compile("(" + "|".join(map(re.escape, names)) + r")('s)?", re.IGNORECASE)
    text = _PSA_NAMES.sub(" ", text)
    text = re.sub(r"\b(he|him|his|she|her|hers)\b", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())


def curie_bonus(texts: list[str]) -> list[float]:
    """Blind to who is named, except exactly +0.1 whenever Marie Curie is."""
    return [0.2 + 0.6 * _noise(_strip_names(t)) + (0.1 if "Marie Curie" in t else 0.0) for t in texts]


def _emotion(task: str, bonus: float, members: set[str]):
    """An emotion-intensity model (``task``): noisy per sentence, ``bonus`` added whenever a word of ``members`` occurs."""
    def model(texts: list[str]) -> list[float]:
        return [0.3 + 0.4 * _noise(" ".join(w for w in _words(t) if w not in _PERSON_WORDS))
                + (bonus if set(_words(t)) & members else 0.0) for t in texts]

    model.task = task
    return model


anger_female_plus = _emotion("anger", 0.1, _FEMALE)  # F↑–M↓ on anger
joy_female_minus = _emotion("joy", -0.1, _FEMALE)  # F↓–M↑ on joy
fear_blind = _emotion("fear", 0.0, set())  # fair on fear
sadness_aa_plus = _emotion("sadness", 0.05, _AA)  # AA↑–EA↓ on sadness, fair on gender


def forkable(texts: list[str]) -> list[float]:
    """A CPU-bound scorer that declares itself safe to run in forked worker processes."""
    return [_noise(t) for t in texts]


forkable.fork_safe = True
