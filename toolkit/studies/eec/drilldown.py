"""The drill-down pairs of the study (:mod:`toolkit.drilldown`: the fixed pair columns and the viewer).

- :func:`eec_pairs` — an EEC system (``model``) and ``attribute``: per template instantiation (``case_id``), for
gender each of the 10 noun-phrase pairs ("my sister" / "my brother") and the 20 name pairs (the i-th female name
against the i-th male name of the same race, list order); for race the 20 name pairs (the i-th African-American
name against the i-th European name of the same gender: :mod:`toolkit.studies.eec.analysis`'s race units). The mean Δ of a
case's name pairs is the paper's names-mean Δ of that case (the mean is linear). ``key``:
``<case_id>|<pair>``, the pair being the two names ("Ebony/Alonzo") or the study's noun-phrase pair
("she/he", "my sister/my brother": :func:`toolkit.studies.eec.analysis.pairs`' ``pair``).
"""
from __future__ import annotations

import pandas as pd

from toolkit.drilldown import PAIR_COLUMNS, pairs_frame, pick, scored_table
from toolkit.errors import unknown
from toolkit.studies.eec.analysis import ATTRIBUTES, name_groups


def eec_pairs(result, *, model: str, attribute: str) -> pd.DataFrame:
    """The EEC sentence pairs of ``model`` for ``attribute`` (gender|race) from an EEC result (:class:`toolkit.studies.result.StudyResult`)
    (see the module docstring), columns :data:`PAIR_COLUMNS`, ordered by case (name pairs in list order, then the
    noun-phrase pairs in the table's order). Vectorised: two merges on (case, person), no loop over cases."""
    if attribute not in ATTRIBUTES:
        raise unknown("attribute", attribute, ATTRIBUTES)
    scored = scored_table(result, study="eec", columns=("model", "case_id", "text", "person", "gender", "race", "np_pair",
                                                   "score"))
    data = pick(scored, "model", model, kind="model")
    data = data.loc[:, ["case_id", "person", "text", "gender", "np_pair", "score"]].reset_index(drop=True)
    data["_pos"] = range(len(data))  # the table's order: the noun-phrase pairs of a case come in it
    group_a, group_b = ATTRIBUTES[attribute][:2]
    sentences = data.drop_duplicates(["case_id", "person"])  # a case's sentence of a person
    firsts_a, firsts_b = name_groups(attribute=attribute)
    matches = pd.DataFrame({"label": [f"{a}/{b}" for a, b in zip(firsts_a, firsts_b)], "person_a": firsts_a,
                            "person_b": firsts_b, "_rank": range(len(firsts_a))})
    cases = pd.DataFrame({"case_id": sentences["case_id"].drop_duplicates()})
    frames = [cases.merge(matches, how="cross")]  # every case × the name pairs of the study's units
    if attribute == "gender":  # the noun-phrase pairs: a case's first female and first male sentence of each pair
        phrases = data[data["np_pair"] != ""]
        first = phrases.drop_duplicates(["case_id", "np_pair"])[["case_id", "np_pair", "_pos"]]
        sides = [phrases[phrases["gender"] == g].drop_duplicates(["case_id", "np_pair"])
                 [["case_id", "np_pair", "person"]].rename(columns={"person": f"person_{v}"})
                 for g, v in (("female", "a"), ("male", "b"))]
        np_matches = first.merge(sides[0], on=["case_id", "np_pair"]).merge(sides[1], on=["case_id", "np_pair"])
        frames.append(np_matches.rename(columns={"np_pair": "label"}).assign(
            _rank=len(matches) + np_matches["_pos"]).drop(columns="_pos"))
    found = pd.concat(frames, ignore_index=True)
    side = sentences[["case_id", "person", "text", "score"]]
    for v in ("a", "b"):  # inner merges: a pair whose sentence is missing is left out
        found = found.merge(side.rename(columns={"person": f"person_{v}", "text": f"text_{v}",
                                                 "score": f"score_{v}"}), on=["case_id", f"person_{v}"])
    found = found.sort_values(["case_id", "_rank"], kind="stable")
    return pairs_frame(pd.DataFrame({
        "key": found["case_id"].astype(str) + "|" + found["label"].astype(str), "model": model,
        "text_a": found["text_a"], "text_b": found["text_b"], "group_a": group_a, "group_b": group_b,
        "score_a": found["score_a"], "score_b": found["score_b"]}))
