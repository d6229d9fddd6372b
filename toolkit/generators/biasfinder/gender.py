"""BiasFinder's gender instance (Asyrofi et al. 2021, Algorithm 1).

Keep a review when coreference finds exactly one person cluster in it; in that cluster replace the names with
``<name>``, each gendered pronoun with a typed slot — subject ``<subj>``, object ``<obj>``, possessive determiner
``<pos>`` ("her book"), possessive pronoun ``<poss>`` ("the win was hers"), reflexive ``<refl>``; object and
possessive "her" are told apart by spaCy's parse — and each gender noun with ``<noun:MALE-FORM>`` (at least the
paper's 22 words; ``toolkit/resources/gender_nouns.json``). A slot written with a capital (``<Subj>``) is filled
capitalised. Fill every template with ``n`` female and ``n`` male first names used for one gender only and the
agreeing forms; a template without ``<name>`` gets one mutant per gender.

Output: the case table (one case per template; ``group`` = female|male; ``fill`` = the name, or the forms used;
the review itself as ``is_original``) with ``gender``, ``doc_id``, ``corpus`` columns.
"""
from __future__ import annotations

import re
from functools import cache

import pandas as pd

from toolkit import nlp as nlp_layer
from toolkit.errors import InputError
from toolkit.nlp import coref

FORMS = {
    "female": {"subj": "she", "obj": "her", "pos": "her", "poss": "hers", "refl": "herself"},
    "male": {"subj": "he", "obj": "him", "pos": "his", "poss": "his", "refl": "himself"},
}
_PREFILTER = re.compile(r"\b(he|she|him|her|his|hers|himself|herself)\b", re.IGNORECASE)
_SLOT = re.compile(r"<(name|subj|obj|pos|poss|refl|noun:[^>]+)>", re.IGNORECASE)


@cache
def fill_names(n: int = 30) -> dict[str, list[str]]:
    """The ``n`` most frequent first names of each gender in Faker's en_US lists that the other gender lacks."""
    from faker.providers.person.en_US import Provider

    female, male = dict(Provider.first_names_female), dict(Provider.first_names_male)
    out = {}
    for gender, mine, other in (("female", female, male), ("male", male, female)):
        ranked = sorted((name for name in mine if name not in other), key=lambda name: (-mine[name], name))
        if len(ranked) < n:
            raise InputError(f"only {len(ranked)} {gender} names available, asked for {n}.", fix="use a smaller n.")
        out[gender] = ranked[:n]
    return out


def _slot(doc, start: int, end: int) -> str:
    span = doc.char_span(start, end, alignment_mode="expand")
    text = doc.text[start:end]
    if span is not None and len(span) == 1 and span[0].lower_ in coref.PRONOUN_GENDER:
        kind = coref.pronoun_slot(span[0])
    elif text.lower() in coref.gender_nouns():
        male = next(m for m, f in _pairs() if text.lower() in (m, f))
        kind = f"noun:{male}"
    else:
        return "<name>"
    return f"<{kind[0].upper() + kind[1:]}>" if text[0].isupper() else f"<{kind}>"


@cache
def _pairs() -> tuple[tuple[str, str], ...]:
    from toolkit.resources import load_json

    return tuple(tuple(p) for p in load_json("gender_nouns")["pairs"])


def gender_templates(corpus: pd.DataFrame, *, backend: str = "rules", n_process: int = 1) -> pd.DataFrame:
    """Templates from the reviews of ``corpus`` (a :func:`toolkit.corpora.load` frame) with exactly one person
    cluster. Columns: ``doc_id, corpus, text, template, gender`` (the original's, from its pronouns or nouns).
    Parses stream (memory stays flat); ``n_process`` > 1 parses in that many processes (spaCy multiprocessing)."""
    candidates = corpus[corpus["text"].map(lambda t: _PREFILTER.search(t) is not None)]
    texts = candidates["text"].tolist()
    resolver = coref.backend(backend)
    if backend == "rules":  # one parse serves coreference and the slots
        parsed = ((doc, resolver.resolve_docs([doc])[0])
                  for doc in resolver.nlp.pipe(texts, batch_size=64, n_process=n_process))
    else:
        parsed = zip(nlp_layer.load_pipeline().pipe(texts, batch_size=64, n_process=n_process),
                     resolver.resolve(texts))
    rows = []
    for row, (doc, found) in zip(candidates.itertuples(index=False), parsed):
        if len(found) != 1:
            continue
        template, original_gender, last = [], "", 0
        for start, end in found[0]:
            slot = _slot(doc, start, end)
            if slot != "<name>":
                word = doc.text[start:end].lower()
                original_gender = original_gender or coref.PRONOUN_GENDER.get(word) or coref.gender_nouns()[word]
            template += [doc.text[last:start], slot]
            last = end
        template.append(doc.text[last:])
        rows.append({"doc_id": row.doc_id, "corpus": row.corpus, "text": row.text, "template": "".join(template),
                     "gender": original_gender})
    return pd.DataFrame(rows, columns=["doc_id", "corpus", "text", "template", "gender"])


def _fill(template: str, *, gender: str, name: str) -> str:
    female = gender == "female"

    def value(match: re.Match) -> str:
        slot = match.group(1)
        lower = slot.lower()
        if lower == "name":
            return name
        if lower.startswith("noun:"):
            male_form = lower[5:]
            word = next(f if female else m for m, f in _pairs() if m == male_form)
        else:
            word = FORMS[gender][lower]
        return word[0].upper() + word[1:] if slot[0].isupper() else word

    return _SLOT.sub(value, template)


def generate_gender(corpus: pd.DataFrame, *, n_names: int = 30, backend: str = "rules", n_process: int = 1
                    ) -> pd.DataFrame:
    """Gender mutants of every template (see the module docstring)."""
    names = fill_names(n_names)
    rows = []
    for index, t in enumerate(gender_templates(corpus, backend=backend, n_process=n_process).itertuples(index=False)):
        case_id = f"biasfinder:gender:{t.doc_id}"
        common = {"case_id": case_id, "attribute": "gender", "generator": "biasfinder", "template": t.template,
                  "doc_id": t.doc_id, "corpus": t.corpus}
        rows.append({**common, "variant_id": f"{case_id}:original", "text": t.text, "group": "", "fill": "",
                     "is_original": True, "gender": t.gender})
        for gender in ("female", "male"):
            fills = names[gender] if "<name>" in t.template else [""]
            for name in fills:
                forms = name or ", ".join(dict.fromkeys(_fill(f"<{slot}>", gender=gender, name="")
                                                        for slot in _SLOT.findall(t.template)))
                rows.append({**common, "variant_id": f"{case_id}:{gender}:{name or 'forms'}",
                             "text": _fill(t.template, gender=gender, name=name), "group": gender,
                             "fill": forms, "is_original": False, "gender": gender})
    columns = ["case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template", "is_original",
               "gender", "doc_id", "corpus"]
    return pd.DataFrame(rows, columns=columns)
