"""The multilingual study's drill-down pairs (:mod:`toolkit.drilldown`: the fixed pair columns and the viewer).

:func:`multilingual_pairs` — a system (``model``) in one ``language`` and an ``attribute``: the sentence pairs
behind that row's gap, the units :mod:`.analysis` averages, per case (template × emotion word):

- Goldfarb-Tarrant et al.: each co-indexed minimal pair of the attribute (side a against side b);
- Câmara et al., gender: each noun-phrase pair ("she/he" …), then the i-th female name against the i-th male name
  of the same race (the analysis compares the two names' means: the mean is linear, so these pairs average to it);
- Câmara et al., race: the i-th minoritized name against the i-th Anglo name of the same gender (the analysis's
  race units).

``key``: ``<case_id>|<pair>``; ``group_a``/``group_b``: the analysis's groups (female/male, minoritized/privileged;
Japanese rank: junior/senior as a/b).
"""
from __future__ import annotations

import pandas as pd

from toolkit.drilldown import pairs_frame, pick, scored_table
from toolkit.errors import unknown
from toolkit.studies.multilingual.analysis import GROUPS

_MINORITIZED = {"Latino", "Arab", "African-American"}
_COLUMNS = ("model", "language", "source", "attribute", "case_id", "text", "score", "gender", "race", "np_pair",
            "pair", "side", "person_en")


def multilingual_pairs(result, *, model: str, language: str, attribute: str) -> pd.DataFrame:
    """The pairs behind ``model``'s ``attribute`` gap in ``language`` (see the module docstring), columns
    :data:`toolkit.drilldown.PAIR_COLUMNS`, in case order. An unknown model, language or attribute is a coded error
    listing the valid ones."""
    if attribute not in GROUPS:
        raise unknown("attribute", attribute, list(GROUPS))
    scored = scored_table(result, study="multilingual", columns=_COLUMNS)
    data = pick(pick(scored, "language", language, kind="language"), "model", model, kind="model")
    frames = [(_camara if source == "camara2022" else _goldfarb_tarrant)(block, attribute)
              for source, block in data.groupby("source", sort=False)]
    found = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["case_id", "label", "text_a", "text_b", "score_a", "score_b"])
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
        frames.append(found.assign(label=f"{x}/{y}"))
    if not frames:
        return pd.DataFrame(columns=["case_id", "label", "text_a", "text_b", "score_a", "score_b"])
    out = pd.concat(frames, ignore_index=True)
    position = {case: i for i, case in enumerate(dict.fromkeys(block["case_id"]))}
    return out.sort_values("case_id", key=lambda s: s.map(position), kind="stable").reset_index(drop=True)
