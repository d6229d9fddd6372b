"""Quoted strings in a review: a slot inside a short one is a title, a nickname or scare quotes, not a person.

"'Rachel' is an art movie", "'His Pilgrim Soul'", he'd been an "attendant": a mutant there names a different work
or says something else, so BiasFinder's instances reject such mentions (:func:`inside_short_quote`).
"""
from __future__ import annotations

import re

_QUOTED = re.compile(r"(?<![\w])\"[^\"\n]{1,80}\"|“[^”\n]{1,80}”|(?<![\w])'[^'\n]{1,80}'(?![\w])")


def short_quotes(text: str, *, max_words: int = 6) -> list[tuple[int, int, str]]:
    """(start, end, inner text) of every quoted string of at most ``max_words`` words ("…", “…”, '…')."""
    return [(m.start(), m.end(), m.group(0)[1:-1]) for m in _QUOTED.finditer(text)
            if len(m.group(0).split()) <= max_words]


def inside_short_quote(text: str, start: int, end: int, *, max_words: int = 6, title_case: bool = False) -> bool:
    """Whether ``text[start:end]`` lies inside a quoted string of at most ``max_words`` words; with ``title_case``,
    only one that reads as a title (two or more words, every word of four or more letters capitalised)."""
    for q_start, q_end, inner in short_quotes(text, max_words=max_words):
        if q_start <= start and end <= q_end:
            words = re.findall(r"[A-Za-z]+", inner)
            if not title_case or (len(words) >= 2 and all(w[0].isupper() for w in words if len(w) >= 4)):
                return True
    return False
