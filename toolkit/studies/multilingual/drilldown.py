"""The multilingual study's drill-down pairs (:mod:`toolkit.drilldown`: the fixed pair columns and the viewer).

:func:`multilingual_pairs` — a system (``model``) on one corpus (``source``) of one ``language`` and an
``attribute``: the sentence pairs behind that row of the gaps table, per case (template × emotion word):

- Goldfarb-Tarrant et al.: each co-indexed minimal pair of the attribute (side a against side b) — the analysis's
  units, pair for pair;
- Câmara et al., gender: each noun-phrase pair ("she/he" …) — a unit each — then the pairs behind the one unit of
  the names' means (``names (mean): <female>/<male>``): the i-th female name against the i-th male name of the same
  race, whose mean per case is that unit's Δ where the case holds every name (the analysis weighs the names' unit as
  one of the case's units, so these pairs together count as one noun-phrase pair does; a name missing from a case
  leaves its partner without a pair there, while the unit averages the names present);
- Câmara et al., race: the i-th minoritized name against the i-th Anglo name of the same gender — the analysis's
  units, pair for pair.

``key``: ``<case_id>|<pair>``; ``group_a``/``group_b``: the analysis's groups (female/male, minoritized/privileged;
Japanese rank: junior/senior as a/b).
"""
from __future__ import annotations

import pandas as pd

from toolkit.drilldown import pairs_frame, pick, scored_table
from toolkit.errors import InputError, unknown
from toolkit.studies.multilingual.analysis import GROUPS, NAMES_PAIR

_MINORITIZED = {"Latino", "Arab", "African-American"}
_COLUMNS = ("model", "language", "source", "attribute", "case_id", "text", "score", "gender", "race", "np_pair",
            "pair", "side", "person_en")


def multilingual_pairs(result, *, model: str, language: str, attribute: str, source: str | None = None
                       ) -> pd.DataFrame:
    """The pairs behind ``model``'s ``attribute`` gap in ``language`` on corpus ``source`` (see the module
    docstring), columns :data:`toolkit.drilldown.PAIR_COLUMNS`, in case order. ``source`` may be left out where one
    corpus of the run holds the language (Spanish is in both: each corpus has its own gap). An unknown model,
    language, source or attribute is a coded error listing the valid ones; so is an attribute the language's corpus
    has no pairs of (Chinese has no race pairs)."""
    if not isinstance(attribute, str) or attribute not in GROUPS:
        raise unknown("attribute", attribute, list(GROUPS))
    scored = scored_table(result, study="multilingual", columns=_COLUMNS)
    data = pick(scored, "language", language, kind="language")
    sources = list(dict.fromkeys(data["source"].astype(str)))
    if source is None and len(sources) > 1:
        raise InputError(f"{language!r} is in {len(sources)} corpora of this run ({', '.join(sources)}), each with "
                         "its own gap.", fix=f"pass source= one of {', '.join(map(repr, sources))}.")
    source = sources[0] if source is None else source  # "" is no corpus's name: an error listing them
    data = pick(pick(data, "source", source, kind="source"), "model", model, kind="model")
    finder = _camara if source == "camara2022" else _goldfarb_tarrant
    found = finder(data, attribute)
    if found.empty:
        held = [a for a in GROUPS if a != attribute and not finder(data, a).empty]
        raise InputError(f"{language!r} ({source}) has no {attribute} pairs: its corpus holds "
                         f"{', '.join(held) or 'none scored by this model'}.",
                         fix=f"pick attribute {' or '.join(map(repr, held))}." if held else
                         "pick another language or system.")
    group_a, group_b = GROUPS[attribute]
    return pairs_frame(pd.DataFrame({
        "key": found["case_id"].astype(str) + "|" + found["label"].astype(str), "model": model,
        "text_a": found["text_a"], "text_b": found["text_b"], "group_a": group_a, "group_b": group_b,
        "score_a": found["score_a"], "score_b": found["score_b"]}))


def _sides(a: pd.DataFrame, b: pd.DataFrame, *, on: list[str]) -> pd.DataFrame:
    """Side a's and side b's sentences merged on ``on`` (a pair missing a side is left out)."""
    keep = [*on, "text", "score"]
    return (a.loc[:, keep].merge(b.loc[:, keep], on=on, suffixes=("_a", "_b"))
            .drop_duplicates([*on]).reset_index(drop=True))


def _goldfarb_tarrant(block: pd.DataFrame, attribute: str) -> pd.DataFrame:
    rows = block[block["attribute"] == attribute]
    found = _sides(rows[rows["side"] == "a"], rows[rows["side"] == "b"], on=["case_id", "pair"])
    return found.rename(columns={"pair": "label"})


def _camara(block: pd.DataFrame, attribute: str) -> pd.DataFrame:
    names = block[block["race"] != ""]
    order = names.drop_duplicates("person_en")
    frames = []
    if attribute == "gender":
        phrases = block[block["np_pair"] != ""]
        found = _sides(phrases[phrases["gender"] == "female"], phrases[phrases["gender"] == "male"],
                       on=["case_id", "np_pair"])
        frames.append(found.rename(columns={"np_pair": "label"}))
        matches = [(x, y) for race in dict.fromkeys(order["race"])
                   for x, y in zip(order.loc[(order["race"] == race) & (order["gender"] == "female"), "person_en"],
                                   order.loc[(order["race"] == race) & (order["gender"] == "male"), "person_en"])]
    elif attribute == "race":
        minor, major = order[order["race"].isin(_MINORITIZED)], order[~order["race"].isin(_MINORITIZED)]
        matches = [(x, y) for gender in ("female", "male")
                   for x, y in zip(minor.loc[minor["gender"] == gender, "person_en"],
                                   major.loc[major["gender"] == gender, "person_en"])]
    else:
        matches = []
    for x, y in matches:
        found = _sides(names[names["person_en"] == x], names[names["person_en"] == y], on=["case_id"])
        frames.append(found.assign(label=f"{NAMES_PAIR}: {x}/{y}" if attribute == "gender" else f"{x}/{y}"))
    if not frames:
        return pd.DataFrame(columns=["case_id", "label", "text_a", "text_b", "score_a", "score_b"])
    out = pd.concat(frames, ignore_index=True)
    position = {case: i for i, case in enumerate(dict.fromkeys(block["case_id"]))}
    return out.sort_values("case_id", key=lambda s: s.map(position), kind="stable").reset_index(drop=True)
