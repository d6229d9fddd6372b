"""One verdict vocabulary: the verdicts :func:`toolkit.stats.verdict` stores and the words every table, caption,
report, figure legend and app shows for them, each word defined once here.

Stored (the ``verdict`` column of the statistics frames; stable): ``a higher``, ``b higher``, ``equivalent within
±m``, ``different but within ±m``, ``inconclusive``, ``identical scores (no test needed)``. ``a`` and ``b`` are the
two groups a study compares, named by :class:`Groups` (EEC: female/male, African-American/European; PSA: female/male
names; BiasFinder: BTCs between classes/within a class; BTC-SAM: cross-group/same-group pairs).

Shown (:func:`word`): ``<a> higher`` / ``<b> higher`` with the group named (``F higher`` in a table cell, ``female
higher`` in a legend), ``equivalent``, ``small difference``, ``inconclusive``, ``identical``; a caption or legend
that uses a word defines it (:func:`legend`: ``F higher = …; inconclusive = …``). Never ``a>b``, ``?`` or an
undefined ``a``/``b``. Agreement across methods has its own two words (:data:`AGREEMENT`), defined here too.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolkit.errors import InputError

A_HIGHER = "a higher"
B_HIGHER = "b higher"
EQUIVALENT = "equivalent within"  # stored with its margin: "equivalent within ±0.01"
SMALL = "different but within"  # stored with its margin: "different but within ±0.01"
INCONCLUSIVE = "inconclusive"
IDENTICAL = "identical scores (no test needed)"
STORED = (A_HIGHER, B_HIGHER, EQUIVALENT, SMALL, INCONCLUSIVE, IDENTICAL)
"""The verdicts :func:`toolkit.stats.verdict` gives (the two with a margin end in ``±m``)."""

KINDS = ("a", "b", "equivalent", "small", "inconclusive", "identical")
"""The kinds of verdict, in the order a legend lists them."""
AGREEMENT = {"rankings agree": "Kendall's τ above 0 with its exact permutation p, corrected over the pairs of "
                               "studies (Holm by default; the family and correction columns say which), below α "
                               "(the bootstrap interval over models is descriptive)",
             "no agreement shown": "τ at or below 0, its corrected permutation p at or above α, or τ undefined (a "
                                   "study ranks every model equal)"}
"""Agreement across methods: its verdict words and what each means."""


@dataclass(frozen=True)
class Groups:
    """The two groups a verdict compares: ``a`` and ``b`` as a legend or caption names them (``female``),
    ``short_a``/``short_b`` as a table cell shows them (``F``; default: the names), and what "a higher" and "b
    higher" mean in words (``says_a``/``says_b``; default ``female higher than male``)."""

    a: str
    b: str
    short_a: str = ""
    short_b: str = ""
    says_a: str = ""
    says_b: str = ""

    def name(self, side: str, *, short: bool) -> str:
        full = self.a if side == "a" else self.b
        brief = (self.short_a if side == "a" else self.short_b) or full
        return brief if short else full


def _missing(verdict: object) -> bool:
    """None or a float NaN (a missing cell of a frame)."""
    return verdict is None or (isinstance(verdict, float) and math.isnan(verdict))


def kind(verdict: object) -> str:
    """The kind (:data:`KINDS`) of a stored verdict; "" for a missing one or another text."""
    text = "" if _missing(verdict) else str(verdict).strip()
    if text == A_HIGHER:
        return "a"
    if text == B_HIGHER:
        return "b"
    if text.startswith("equivalent"):
        return "equivalent"
    if text.startswith("different but"):
        return "small"
    if text == INCONCLUSIVE:
        return "inconclusive"
    if text.startswith("identical"):
        return "identical"
    return ""


def margin_of(verdict: object) -> str:
    """The margin a stored verdict names (``±0.01``), or ""."""
    found = re.search(r"±\s*([0-9.eE+-]+)", str(verdict))
    return f"±{found.group(1)}" if found else ""


def word(verdict: object, *, groups: Groups, short: bool = True) -> str:
    """The word shown for a stored ``verdict``: ``F higher`` (``short``, a table cell) or ``female higher``,
    ``equivalent``, ``small difference``, ``inconclusive``, ``identical``; "" for a missing verdict; any other
    text (agreement's) as it is."""
    found = kind(verdict)
    if found in ("a", "b"):
        return f"{groups.name(found, short=short)} higher"
    if found == "small":
        return "small difference"
    if found:
        return found
    return "" if _missing(verdict) else str(verdict).strip()


def definition(verdict: object, *, groups: Groups, margin: str = "") -> str:
    """What the word of ``verdict`` means, in words (``margin``: e.g. ``±0.01``; default the verdict's own)."""
    found = kind(verdict)
    m = margin or margin_of(verdict) or "±m"
    a, b = groups.name("a", short=False), groups.name("b", short=False)
    says_a = groups.says_a or f"{a} higher than {b}"
    says_b = groups.says_b or f"{b} higher than {a}"
    return {"a": f"{says_a}, significant after correction",
            "b": f"{says_b}, significant after correction",
            "equivalent": f"shown to lie within {m} (equivalence test), no difference shown",
            "small": f"a significant difference, but within {m}",
            "inconclusive": f"neither a difference nor equivalence within {m} shown",
            "identical": "every paired score equal, nothing to test"}.get(found, AGREEMENT.get(str(verdict), ""))


def words(*, groups: Groups, short: bool = True) -> list[str]:
    """Every word of the vocabulary for ``groups`` (:data:`KINDS` order), then agreement's."""
    stored = {"a": A_HIGHER, "b": B_HIGHER, "equivalent": EQUIVALENT, "small": SMALL, "inconclusive": INCONCLUSIVE,
              "identical": IDENTICAL}
    return [word(stored[k], groups=groups, short=short) for k in KINDS] + list(AGREEMENT)


def legend(verdicts: Iterable[object], *, groups: Groups, short: bool = True, margin: str = "") -> str:
    """``F higher = female higher than male, significant after correction; inconclusive = …``: each word the
    stored ``verdicts`` use, once, in :data:`KINDS` order, with its definition; "" when none is used."""
    seen: dict[str, object] = {}
    for verdict in verdicts:
        shown = word(verdict, groups=groups, short=short)
        if shown and shown not in seen and definition(verdict, groups=groups, margin=margin):
            seen[shown] = verdict
    order = {k: i for i, k in enumerate(KINDS)}
    ranked = sorted(seen.items(), key=lambda item: order.get(kind(item[1]), len(order)))
    return "; ".join(f"{shown} = {definition(v, groups=groups, margin=margin)}" for shown, v in ranked)


def legend_label(verdict: object, *, groups: Groups, margin: str = "") -> str:
    """A figure legend's entry for a stored verdict, defined in itself: ``female higher``, ``equivalent (within
    ±0.01)``, ``small difference (significant, within ±0.01)``, ``inconclusive``, ``identical scores``
    (``margin``: for a verdict that does not name its own)."""
    found = kind(verdict)
    m = margin_of(verdict) or margin or "±m"
    if found == "equivalent":
        return f"equivalent (within {m})"
    if found == "small":
        return f"small difference (significant, within {m})"
    if found == "identical":
        return "identical scores"
    return word(verdict, groups=groups, short=False)


def legend_labels(*, groups: Groups, margin: str = "") -> list[str]:
    """Every legend entry :func:`legend_label` gives for ``groups`` (the checks of figure legends use it)."""
    stored = (A_HIGHER, B_HIGHER, EQUIVALENT, SMALL, INCONCLUSIVE, IDENTICAL)
    return [legend_label(v, groups=groups, margin=margin) for v in stored]


VerdictGroups = Groups | Mapping[str, Groups]


def conclusion(verdict: object, *, groups: Groups) -> str:
    """A stored ``verdict`` as a sentence a table can hold without its legend: ``female higher than male`` (or
    the groups' ``says_a``/``says_b``), ``equivalent (within ±0.01)``, ``small difference (significant, within
    ±0.01)``, ``inconclusive``, ``identical scores``; "" for a missing verdict; any other text as it is."""
    if not isinstance(groups, Groups):
        raise InputError(f"conclusion() needs the two groups as a verdicts.Groups; got {type(groups).__name__}.",
                         fix="pass groups=verdicts.Groups('female', 'male') (a = the first group of a − b).")
    found = kind(verdict)
    if found in ("a", "b"):
        a, b = groups.name("a", short=False), groups.name("b", short=False)
        said = groups.says_a if found == "a" else groups.says_b
        return said or (f"{a} higher than {b}" if found == "a" else f"{b} higher than {a}")
    if found:
        return legend_label(verdict, groups=groups)
    return "" if _missing(verdict) else str(verdict).strip()


def groups_of(row: Mapping[str, Any], *, groups: VerdictGroups, by: str | None = None) -> Groups:
    """The groups of one row: its own ``a``/``b`` (or ``group_a``/``group_b``) columns where it has them, else ``groups`` (or ``groups[row[by]]``
    for a mapping keyed by the values of column ``by``, e.g. EEC's attribute)."""
    a, b = row.get("a", row.get("group_a")), row.get("b", row.get("group_b"))
    if isinstance(a, str) and isinstance(b, str) and a and b:
        base = groups if isinstance(groups, Groups) else next(iter(groups.values()))
        return base if (a, b) == (base.a, base.b) else Groups(a, b)
    if isinstance(groups, Groups):
        return groups
    key = str(row.get(by, "")) if by else ""
    return groups.get(key) or next(iter(groups.values()))


def display(frame: Any, *, groups: VerdictGroups, by: str | None = None, short: bool = True,
            margin: str = "") -> tuple[Any, str]:
    """A copy of ``frame`` (a pandas DataFrame) whose verdict columns (``verdict``, ``*_verdict``) show the words of
    this vocabulary, and the legend defining each word used (``verdict: F higher = …; inconclusive = ….``; "" when
    the frame has no verdict). ``groups`` and ``by`` as :func:`groups_of`; ``margin`` (``±0.01``) for the words
    whose stored verdict does not name it."""
    columns = [c for c in frame.columns if str(c) == "verdict" or str(c).endswith("_verdict")]
    if not columns or frame.empty:
        return frame, ""
    out = frame.copy()
    defined: dict[str, tuple[int, str]] = {}
    rows = frame.to_dict("records")
    for column in columns:
        shown = []
        for row in rows:
            these = groups_of(row, groups=groups, by=by)
            text = word(row[column], groups=these, short=short)
            shown.append(text)
            meaning = definition(row[column], groups=these, margin=margin)
            if text and meaning and text not in defined:
                found = kind(row[column])
                defined[text] = (KINDS.index(found) if found else len(KINDS), meaning)
        out[column] = shown
    ranked = sorted(defined.items(), key=lambda item: item[1][0])
    return out, ("verdict: " + "; ".join(f"{w} = {m}" for w, (_, m) in ranked) + ".") if ranked else ""
