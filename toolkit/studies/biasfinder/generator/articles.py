"""The indefinite article of a BiasFinder mutant: "a"/"an" agreeing with whatever word follows it once filled.

A template writes an article whose next word can change as ``<a>`` (``<A>`` at a capital): the occupation
instance's determiner of the title (whatever modifiers stay between them) and, in every instance, an article right
before a name, gender-noun or occupation slot ("A Tom Hanks film" → "<A> <name> film"). :func:`resolve` fills
them after the other slots, by the sound of the next word (:func:`article_for`): "an" before a vowel letter, with
the usual exceptions ("a European", "a one-off", "a university", "an hour", "an honest") and acronyms read letter
by letter ("an FBI agent", "a CEO").
"""
from __future__ import annotations

import re

from toolkit.studies.biasfinder.generator.rules import ALL, rule

_SLOT_AFTER = r"<(?:name|noun:|occupation|Name|Noun:|Occupation)"
_ARTICLE_BEFORE_SLOT = re.compile(rf"\b(a|an|A|An|AN)(\s+)(?={_SLOT_AFTER})")
_FILLED = re.compile(r"<([aA])>(\s+)([\"'“‘(\[]*)(\w[\w'’.-]*)?")
_A_BEFORE_VOWEL = ("uni", "use", "usa", "usu", "ure", "uti", "eu", "one", "once", "ewe", "ubiq", "ufo", "uku")
_AN_BEFORE_H = ("hour", "honest", "honor", "honour", "heir")
_AN_LETTERS = frozenset("AEFHILMNORSX")  # letters whose name starts with a vowel sound: "an FBI agent"


def article_for(word: str) -> str:
    """'a' or 'an' before ``word`` (see the module docstring)."""
    letters = word.strip("\"'“‘([")
    if not letters:
        return "a"
    digits = re.match(r"\d+", letters)
    if digits:  # "an 8-year-old", "an 11th-hour", "an 18th-century", "a 100"
        d = digits.group(0)
        return "an" if d.startswith("8") or (d[:2] in ("11", "18") and len(d) % 3 == 2) else "a"
    head = re.split(r"[-.]", letters)[0]
    if re.fullmatch(r"[A-Z]\.?", head) and (len(letters) == 1 or letters[1] in ".-"):
        return "an" if head[0] in _AN_LETTERS else "a"  # "an L.A. lawyer", "an X-ray"
    if len(head) > 1 and head.isupper() and head.isalpha() and not head.lower().startswith(_A_BEFORE_VOWEL):
        return "an" if head[0] in _AN_LETTERS else "a"  # an acronym, read letter by letter
    lower = letters.lower()
    if lower.startswith(_AN_BEFORE_H):
        return "an"
    if lower.startswith(_A_BEFORE_VOWEL):
        return "a"
    return "an" if lower[0] in "aeiou" else "a"


def mark(template: str) -> str:
    """``template`` with every literal a/an right before a name, noun or occupation slot written as ``<a>``/``<A>``
    (not a capital "A" after a capitalised word: "Vitamin A", "Plan A")."""

    def value(match: re.Match) -> str:
        before = template[:match.start()].rstrip().split(" ")[-1]
        if match.group(1) == "A" and before[:1].isupper() and before[-1:].isalnum():
            return match.group(0)
        return ("<A>" if match.group(1)[0].isupper() else "<a>") + match.group(2)

    return _ARTICLE_BEFORE_SLOT.sub(value, template)


@rule("article_agreement", instances=ALL, kind="repair",
      test="tests/test_biasfinder_rules.py::test_article_agreement_off_keeps_the_reviews_article",
      rejects="an a/an before a slot becomes <a> and agrees with the fill (off: the review's article stays)",
      example="He hired an experienced lawyer. (→ \"a plumber\", not \"an plumber\")",
      unchanged=lambda template: template)
def agree(template: str) -> str:
    """The coherence rule ``article_agreement``: :func:`mark` (call with ``rules=``; off, the template stays)."""
    return mark(template)


def resolve(text: str) -> str:
    """``text`` (all other slots filled) with each ``<a>``/``<A>`` set to the article its next word takes."""

    def value(match: re.Match) -> str:
        article = article_for(match.group(4) or "")
        article = article.capitalize() if match.group(1) == "A" else article
        return article + match.group(2) + match.group(3) + (match.group(4) or "")

    return _FILLED.sub(value, text)
