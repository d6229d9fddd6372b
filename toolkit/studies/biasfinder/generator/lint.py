"""Fills that carry a sentiment (or the other gender) themselves: a BTC they cause measures the lexicon, not a bias.

Every lexicon BTC on 25,000 IMDB reviews came from such a fill: the Kenyan name "Mercy" (VADER and AFINN score the
word) and "hero" vs "heroine". :func:`fill_flags` lints fill values against the three offline lexicons — scored
alone, a value any of them gives a valence other than neutral is flagged with its name — and against a list of
common word-names (Mercy, Joy, Hope, Faith, Grace, Destiny, …; ``toolkit/resources/fill_lint.json``).
:func:`gender_clash` tells names a list gives the other gender from the one they usually carry (Faker's en_KE lists
"Wanjiru" as male): the curated lists leave them out too (recorded as excluded), they are not flagged.

The curated lists leave flagged values out (:mod:`.lists`); the paper's lists keep them. Every mutant's flags are in
the case table's ``fill_flag`` column ('' when clean), and the BiasFinder study counts BTCs with and without them
(``btcs_unflagged`` in Table 4).
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from toolkit.models import load
from toolkit.resources import load_json

LEXICONS = ("vader", "textblob", "afinn")


@cache
def _lint() -> dict:
    return load_json("fill_lint")


@cache
def _lexicons() -> tuple:
    return tuple(load(spec) for spec in LEXICONS)


def fill_flags(values: Iterable[str]) -> dict[str, str]:
    """Each distinct value → '' or its comma-joined reasons: the lexicons that give it a non-neutral valence alone
    ('vader', 'textblob', 'afinn') and 'word-name'."""
    distinct = sorted({v for v in values if v})
    if not distinct:
        return {}
    reasons: dict[str, list[str]] = {value: [] for value in distinct}
    for spec, model in zip(LEXICONS, _lexicons()):
        for value, score in zip(distinct, model.predict(distinct).score):
            if abs(float(score) - 0.5) > 1e-9:
                reasons[value].append(spec)
    word_names = {name.lower() for name in _lint()["word_names"]}
    for value in distinct:
        if value.lower() in word_names:
            reasons[value].append("word-name")
    return {value: ",".join(found) for value, found in reasons.items()}


def joined_flags(flags: dict[str, str], values: Iterable[str]) -> str:
    """The union of ``values``' reasons in ``flags`` (a :func:`fill_flags` map), comma-joined in a fixed order."""
    found = {reason for value in values for reason in flags.get(value, "").split(",") if reason}
    return ",".join(reason for reason in (*LEXICONS, "word-name") if reason in found)


def gender_clash(name: str, gender: str) -> bool:
    """Whether ``name`` usually carries the other gender than ``gender`` (a hand-checked list)."""
    usual = _lint()["usual_gender"].get(name)
    return usual is not None and usual != gender
