"""Names a reader cannot tell apart: one key per name, so a user-supplied list of names, identity terms or words
holds each once.

:func:`name_key` folds what does not change the name a reader sees: Unicode compatibility forms (NFKC: "ﬁ" → "fi",
full-width letters), invisible format characters (zero-width space U+200B, joiners, soft hyphen, bidi marks),
runs of whitespace and the edges, case, and the Cyrillic and Greek letters drawn like Latin ones (:data:`LOOKALIKES`:
"Аlice" with a Cyrillic А is "alice"). :func:`check_distinct` refuses (TK101) a list in which two entries share a key,
naming them, and an entry that holds an invisible character; a model would score "Alice" and "Al\u200bice" as two
names, and a study would count them as two.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from toolkit.errors import SchemaError

LOOKALIKES = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
    # Greek (lower case; upper case is folded to it first)
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "γ": "y", "ζ": "z",
})
"""Letters of other scripts drawn like a Latin letter (after case folding), mapped to it."""


def invisible(text: str) -> list[str]:
    """The invisible format characters (Unicode category Cf: zero-width space, joiners, bidi marks, soft hyphen) in
    ``text``, as ``U+XXXX`` names."""
    return [f"U+{ord(c):04X}" for c in dict.fromkeys(text) if unicodedata.category(c) == "Cf"]


def name_key(name: str) -> str:
    """The form of ``name`` two names a reader cannot tell apart share (see the module docstring)."""
    text = unicodedata.normalize("NFKC", str(name))
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(text.split()).casefold().translate(LOOKALIKES)


def check_distinct(names: Iterable[str], *, what: str, fix: str = "") -> None:
    """Refuse (TK101) ``names`` in which two entries share a :func:`name_key`, or one holds an invisible character,
    naming them; ``what`` says which list it is ("PSA names", "identity terms of religion")."""
    names = [str(n) for n in names]
    blank = [i for i, n in enumerate(names) if not name_key(n)]
    if blank:
        raise SchemaError(f"{what}: entry {blank[0]} is empty or blank ({names[blank[0]]!r})"
                          + (f"; {len(blank)} entries are" if len(blank) > 1 else "") + ".",
                          fix="drop the empty entries or fill them in.")
    hidden = [(n, invisible(n)) for n in names if invisible(n)]
    if hidden:
        name, codes = hidden[0]
        raise SchemaError(f"{what}: {name!r} holds the invisible character(s) {', '.join(codes)}"
                          + (f" ({len(hidden)} entries do)" if len(hidden) > 1 else "") + ".",
                          fix="type the entry again without the invisible character (copied text often holds one).")
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(name_key(name), []).append(name)
    clashes = [group for group in groups.values() if len(group) > 1]
    if clashes:
        shown = "; ".join(" = ".join(repr(n) for n in group) for group in clashes[:5])
        raise SchemaError(f"{what}: {len(clashes)} name(s) are listed more than once in forms that differ only by "
                          f"whitespace, case, a look-alike letter of another script or an invisible character: "
                          f"{shown}.", fix=fix or "list each name once, in one spelling.")
