"""The Equity Evaluation Corpus (Kiritchenko & Mohammad 2018, *SEM; seeds 002/004).

``generate()`` rebuilds the 8,640 published sentences: 11 templates (Table 2; 7 with an emotion word, 4 neutral) ×
60 persons (20 African-American and 20 European-American first names, Table 3; 10 female/male noun-phrase pairs) ×
the 40 emotion words of Table 4 (five per emotion for emotional states, templates 1–4, and five per emotion for
emotional situations, templates 5–7). Surface forms follow the release: she/he as subject, her/him as object,
himself/herself agreeing with the person, a/an before the next word, a capital at sentence start, a final period.

One case (``case_id``) is one template–emotion-word instantiation: its 60 sentences differ only in the person.
Extra columns: ``template_id`` (1–11), ``person`` (the surface form, as the release's Person column), ``gender``
(female|male), ``race`` (African-American|European|"" for noun phrases), ``emotion`` (anger|fear|joy|sadness|""),
``emotion_word``, ``np_pair`` (the female/male noun-phrase pair, e.g. "my sister/my brother"; "" for names).

Spelling (``spelling``, one of :data:`SPELLINGS`): ``"published"`` (default) writes the sentences as the released
CSV does, with its misspelt sadness emotional-state word "dissapointed" (sic; the paper's Table 4 has
"disappointed"). ``"corrected"`` applies the ``corrections`` of ``resources/eec.json`` ("dissapointed" →
"disappointed"): that changes the ``text`` and ``emotion_word`` of 240 of the 8,640 sentences — 4 cases (templates
1–4, the emotional-state templates, with that word) × 60 persons — and nothing else (``case_id`` and ``variant_id``
keep the published word, so the two corpora join row for row). Scores differ for models that know the word: VADER,
TextBlob and AFINN do not know the misspelling and give it no sentiment (the correct word is negative to all three).
"""
from __future__ import annotations

import re

import pandas as pd

from toolkit import cases
from toolkit.errors import unknown
from toolkit.resources import load_json

SPELLINGS: tuple[str, ...] = ("published", "corrected")
"""``generate(spelling=...)``: the released text as it is, or with its misspelling corrected."""

EXTRA_COLUMNS: tuple[str, ...] = ("template_id", "person", "gender", "race", "emotion", "emotion_word", "np_pair",
                                 "wording")
"""EEC's own columns, after :data:`toolkit.cases.CASE_COLUMNS`."""


def wordings() -> tuple[str, ...]:
    """The template wording sets ``generate(wording=...)`` takes: ``"published"`` (Table 2) and ``"w1"`` … ``"wK"``,
    the project's meaning-preserving rewordings (``resources/eec_wordings.json``; docs/names_and_templates.md)."""
    return ("published", *(f"w{k}" for k in range(1, load_json("eec_wordings")["sets"] + 1)))

_SLOT_WORD = re.compile(r"<emotion word>|<emotional situation word>")
_ARTICLE = re.compile(r"\ba/an (\w)")


def _render(template: str, *, subject: str, obj: str, gender: str, word: str, reflexive: dict[str, str]) -> str:
    text = template.replace("<person subject>", subject).replace("<person object>", obj)
    text = text.replace("himself/herself", reflexive[gender])
    text = _SLOT_WORD.sub(word, text)
    text = _ARTICLE.sub(lambda m: ("an " if m.group(1).lower() in "aeiou" else "a ") + m.group(1), text)
    return text[0].upper() + text[1:]


def _persons(spec: dict) -> list[dict]:
    persons = []
    for race, by_gender in spec["names"].items():
        for gender, names in by_gender.items():
            persons += [{"subject": n, "object": n, "gender": gender, "race": race, "np_pair": ""} for n in names]
    for pair in spec["noun_phrases"]:
        forms = {g: f if isinstance(f, dict) else {"subject": f, "object": f} for g, f in pair.items()}
        key = f"{forms['female']['subject']}/{forms['male']['subject']}"
        for gender in ("female", "male"):
            persons.append({**forms[gender], "gender": gender, "race": "", "np_pair": key})
    return persons


def generate(*, spelling: str = "published", wording: str = "published") -> pd.DataFrame:
    """The 8,640-sentence EEC as a case table (columns: the case schema + the EEC columns above); ``spelling``:
    ``"published"`` (the release's text) or ``"corrected"`` (see the module docstring). ``wording``: one of
    :func:`wordings`; a rewording set replaces each template's text by its rewording (``template`` holds the
    reworded template, ``wording`` names the set, and ``variant_id`` ends in ``-<set>`` so that sets can be scored
    together; ``case_id`` stays the published one, so the sets join case by case)."""
    if spelling not in SPELLINGS:
        raise unknown("EEC spelling", spelling, SPELLINGS)
    valid = wordings()
    if wording not in valid:
        raise unknown("EEC template wording", wording, valid)
    spec = load_json("eec")  # cached and shared: read, never modify
    templates = spec["templates"]
    if wording != "published":
        reworded = load_json("eec_wordings")["templates"]
        k = int(wording[1:]) - 1
        templates = [{**t, "template": reworded[str(t["id"])][k]} for t in templates]
    suffix = "" if wording == "published" else f"-{wording}"
    corrections = spec["corrections"] if spelling == "corrected" else {}
    persons = _persons(spec)
    rows = []
    for template in templates:
        words = ([("", "")] if template["words"] == "none" else
                 [(emotion, w) for emotion, ws in spec["emotion_words"][template["words"]].items() for w in ws])
        for emotion, published in words:
            case_id = f"eec-t{template['id']:02d}-{published or 'neutral'}"
            word = corrections.get(published, published)
            for person in persons:
                uses_object = "<person object>" in template["template"]
                surface = person["object"] if uses_object else person["subject"]
                gender, race = person["gender"], person["race"]
                rows.append({
                    "case_id": case_id,
                    "variant_id": f"eec-{len(rows) + 1:05d}{suffix}",
                    "text": _render(template["template"], subject=person["subject"], obj=person["object"],
                                    gender=gender, word=word, reflexive=spec["reflexive"]),
                    "attribute": "gender+race" if race else "gender",
                    "group": f"{race} {gender}" if race else gender,
                    "fill": surface,
                    "generator": "eec",
                    "template": template["template"],
                    "is_original": False,
                    "template_id": template["id"],
                    "person": surface,
                    "gender": gender,
                    "race": race,
                    "emotion": emotion,
                    "emotion_word": word,
                    "np_pair": person["np_pair"],
                    "wording": wording,
                })
    return cases.frame(rows, extra=EXTRA_COLUMNS)
