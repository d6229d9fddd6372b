"""BiasFinder's gender instance (Asyrofi et al. 2021, Algorithm 1).

Keep a review when coreference finds exactly one person cluster in it; in that cluster replace the names with
``<name>``, each gendered pronoun with a typed slot — subject ``<subj>``, object ``<obj>``, possessive determiner
``<pos>`` ("her book"), possessive pronoun ``<poss>`` ("the win was hers"), reflexive ``<refl>``; object and
possessive "her" are told apart by spaCy's parse — and each gender noun with ``<noun:MALE-FORM>``. A slot written
with a capital (``<Subj>``) is filled capitalised. Fill every template with ``n`` female and ``n`` male first names
and the agreeing forms; a template without ``<name>`` gets one mutant per gender.

Word lists (``lists=``, :mod:`.lists`): ``curated`` (default; 32 noun pairs, first names used for one gender only)
or ``paper`` (BiasFinder's released 11 noun pairs and 30 + 30 names). Coreference knows the curated nouns; a
cluster holding a gender noun the chosen preset has no pair for (e.g. "actress" under ``paper``) is rejected, since
its mutants would keep that word in the other gender.

Output: the case table (one case per template; ``group`` = female|male; ``fill`` = the name, or the forms used;
the review itself as ``is_original``) with ``gender``, ``doc_id``, ``corpus`` columns.
"""
from __future__ import annotations

import re

import pandas as pd

from toolkit import nlp as nlp_layer
from toolkit.errors import InputError
from toolkit.generators.biasfinder.lists import word_lists
from toolkit.nlp import coref

FORMS = {
    "female": {"subj": "she", "obj": "her", "pos": "her", "poss": "hers", "refl": "herself"},
    "male": {"subj": "he", "obj": "him", "pos": "his", "poss": "his", "refl": "himself"},
}
_PREFILTER = re.compile(r"\b(he|she|him|her|his|hers|himself|herself)\b", re.IGNORECASE)
_SLOT = re.compile(r"<(name|subj|obj|pos|poss|refl|noun:[^>]+)>", re.IGNORECASE)


def fill_names(n: int = 30, *, lists: str = "curated") -> dict[str, list[str]]:
    """The first ``n`` names of each gender in the ``lists`` preset (curated: the most frequent first names of each
    gender in Faker's en_US lists that the other gender lacks; paper: BiasFinder's 30 + 30)."""
    names = word_lists(lists).names
    out = {}
    for gender in ("female", "male"):
        if len(names[gender]) < n:
            raise InputError(f"only {len(names[gender])} {gender} names in the {lists!r} lists, asked for {n}.",
                             fix=f"use n_names of at most {len(names[gender])}.")
        out[gender] = list(names[gender][:n])
    return out


def _slot(doc, start: int, end: int, pairs: tuple[tuple[str, str], ...]) -> str | None:
    """The slot for one cluster mention; None for a gender noun the preset's ``pairs`` cannot swap."""
    span = doc.char_span(start, end, alignment_mode="expand")
    text = doc.text[start:end]
    if span is not None and len(span) == 1 and span[0].lower_ in coref.PRONOUN_GENDER:
        kind = coref.pronoun_slot(span[0])
    elif text.lower() in coref.gender_nouns():
        male = next((m for m, f in pairs if text.lower() in (m, f)), None)
        if male is None:
            return None
        kind = f"noun:{male}"
    else:
        return "<name>"
    return f"<{kind[0].upper() + kind[1:]}>" if text[0].isupper() else f"<{kind}>"


def gender_templates(corpus: pd.DataFrame, *, backend: str = "rules", n_process: int = 1, lists: str = "curated"
                     ) -> pd.DataFrame:
    """Templates from the reviews of ``corpus`` (a :func:`toolkit.corpora.load` frame) with exactly one person
    cluster whose gender nouns the ``lists`` preset can swap. Columns: ``doc_id, corpus, text, template, gender``
    (the original's, from its pronouns or nouns).
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
    pairs = word_lists(lists).noun_pairs
    rows = []
    for row, (doc, found) in zip(candidates.itertuples(index=False), parsed):
        if len(found) != 1:
            continue
        slots = [_slot(doc, start, end, pairs) for start, end in found[0]]
        if None in slots:
            continue
        template, original_gender, last = [], "", 0
        for (start, end), slot in zip(found[0], slots):
            if slot != "<name>":
                word = doc.text[start:end].lower()
                original_gender = original_gender or coref.PRONOUN_GENDER.get(word) or coref.gender_nouns()[word]
            template += [doc.text[last:start], slot]
            last = end
        template.append(doc.text[last:])
        rows.append({"doc_id": row.doc_id, "corpus": row.corpus, "text": row.text, "template": "".join(template),
                     "gender": original_gender})
    return pd.DataFrame(rows, columns=["doc_id", "corpus", "text", "template", "gender"])


def _fill(template: str, *, gender: str, name: str, lists: str = "curated") -> str:
    female = gender == "female"
    pairs = word_lists(lists).noun_pairs

    def value(match: re.Match) -> str:
        slot = match.group(1)
        lower = slot.lower()
        if lower == "name":
            return name
        if lower.startswith("noun:"):
            male_form = lower[5:]
            word = next(f if female else m for m, f in pairs if m == male_form)
        else:
            word = FORMS[gender][lower]
        return word[0].upper() + word[1:] if slot[0].isupper() else word

    return _SLOT.sub(value, template)


def generate_gender(corpus: pd.DataFrame, *, n_names: int = 30, backend: str = "rules", n_process: int = 1,
                    lists: str = "curated") -> pd.DataFrame:
    """Gender mutants of every template (see the module docstring), filled from the ``lists`` preset."""
    names = fill_names(n_names, lists=lists)
    templates = gender_templates(corpus, backend=backend, n_process=n_process, lists=lists)
    rows = []
    for t in templates.itertuples(index=False):
        case_id = f"biasfinder:gender:{t.doc_id}"
        common = {"case_id": case_id, "attribute": "gender", "generator": "biasfinder", "template": t.template,
                  "doc_id": t.doc_id, "corpus": t.corpus}
        rows.append({**common, "variant_id": f"{case_id}:original", "text": t.text, "group": "", "fill": "",
                     "is_original": True, "gender": t.gender})
        for gender in ("female", "male"):
            fills = names[gender] if "<name>" in t.template else [""]
            for name in fills:
                forms = name or ", ".join(dict.fromkeys(_fill(f"<{slot}>", gender=gender, name="", lists=lists)
                                                        for slot in _SLOT.findall(t.template)))
                rows.append({**common, "variant_id": f"{case_id}:{gender}:{name or 'forms'}",
                             "text": _fill(t.template, gender=gender, name=name, lists=lists), "group": gender,
                             "fill": forms, "is_original": False, "gender": gender})
    columns = ["case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template", "is_original",
               "gender", "doc_id", "corpus"]
    return pd.DataFrame(rows, columns=columns)
