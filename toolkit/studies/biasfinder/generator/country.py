"""BiasFinder's country-of-origin instance (Asyrofi et al. 2021, §III-C): a person's name becomes a name from
another country, of the same gender.

Templates come from the gender instance's (:func:`~toolkit.studies.biasfinder.generator.gender.gender_templates`: exactly
one person cluster) that have a ``<name>`` slot: no second parse (named entities only, below). The cluster's
gender is the one its pronouns and gender nouns give (a cluster of names only never passes the gender instance's pronoun pre-filter).
Pronouns and nouns are written back in that gender, and the template must then reproduce the review exactly around the names — so a
cluster of mixed gender (possible with a neural backend) is rejected. Every name mention becomes
``<name:female>`` or ``<name:male>``; a full name and a later surname ("Tom Hanks … Hanks") get the same first name.
A review where a word of a replaced name survives elsewhere (a mention spaCy's NER missed: "Hanks knows it") is
rejected, since its mutants would mix two people's names. So is a review that names a nationality, religion or
people (a spaCy NORP entity: "Turkish cinema", "the Argentine narrator"): the person's origin may be stated there,
and a name from another country would contradict it (this project's rule ``nationality``, not
BiasFinder's: off under ``coherence="paper"``, :mod:`.rules`).

Names (``lists=``, :mod:`.lists`): ``curated`` (default) — ``toolkit/resources/country_names.json``, 38 countries
× 3 first names per gender from Faker's per-locale lists (MIT licence), each listed by no other chosen locale for
either gender nor by its own for the other gender; Faker's lists are not curated: a few names may be unusual or
ambiguous in their country. ``paper`` — BiasFinder's released list, one name per country and gender, 25 countries.

Output: the case table (one case per template; ``group`` = the country, ``fill`` = the name; the review itself as
``is_original``) with ``gender`` (the template's), ``doc_id``, ``corpus``.
"""
from __future__ import annotations

import re

import pandas as pd

import toolkit.studies.biasfinder.generator.rules as registry
from toolkit.errors import InputError
from toolkit.nlp import coref
from toolkit.studies.biasfinder.generator import articles
from toolkit.studies.biasfinder.generator.gender import _fill, gender_templates
from toolkit.studies.biasfinder.generator.lint import fill_flags
from toolkit.studies.biasfinder.generator.lists import word_lists
from toolkit.studies.biasfinder.generator.rules import COUNTRY, rule

TEMPLATE_COLUMNS = ("doc_id", "corpus", "text", "template", "gender")


def country_names(n: int = 1, *, lists: str = "curated") -> dict[str, dict[str, list[str]]]:
    """Country → {'female': [...], 'male': [...]}, the first ``n`` names each of the ``lists`` preset (curated: at
    most 3; paper: 1)."""
    countries = word_lists(lists).country_names
    most = min(len(names) for entry in countries.values() for names in entry.values())
    if not 1 <= n <= most:
        raise InputError(f"n must lie between 1 and {most} names per country and gender for the {lists!r} lists; "
                         f"got {n}.", fix="use n=1 (the paper).")
    return {country: {g: list(entry[g][:n]) for g in ("female", "male")} for country, entry in countries.items()}


def _restore(template: str, *, gender: str, text: str, lists: str) -> tuple[str, list[str]] | None:
    """The template with pronoun/noun slots written in ``gender`` and names as ``<name:gender>``, and the names it
    replaced; None when it does not reproduce ``text``."""
    slot = f"<name:{gender}>"
    restored = _fill(template, gender=gender, name=slot, lists=lists, resolve_articles=False)
    literal = {slot: "(.+?)", "<a>": "(?:a|an)", "<A>": "(?:A|An|AN)"}
    pattern = "".join(literal.get(part, re.escape(part)) for part in re.split(rf"({re.escape(slot)}|<a>|<A>)",
                                                                               restored))
    match = re.fullmatch(pattern, text, flags=re.DOTALL)
    return (restored, list(match.groups())) if match else None


def country_templates(templates: pd.DataFrame, *, lists: str = "curated",
                      rules: frozenset[str] | None = None) -> pd.DataFrame:
    """Country templates from gender templates (a :func:`gender_templates` frame made with the same ``lists``; see
    the module docstring) under the active coherence ``rules`` (:mod:`.rules`: ``nationality`` here). Columns
    :data:`TEMPLATE_COLUMNS`; ``attrs["rejected"]``: templates rejected per rule."""
    rows = []
    for t in templates.itertuples(index=False):
        if "<name>" not in t.template or not t.gender:
            continue
        found = _restore(t.template, gender=t.gender, text=t.text, lists=lists)
        if found is None:
            continue
        template, names = found
        leftover = {word for name in names for word in re.findall(r"\w{2,}", name)}
        if any(re.search(rf"\b{re.escape(word)}\b", template) for word in leftover):
            continue
        rows.append({"doc_id": t.doc_id, "corpus": t.corpus, "text": t.text, "template": template,
                     "gender": t.gender, "names": leftover})
    if rules is None:
        rules = registry.DEFAULT  # read off the registry when called, once every rule module has registered
    kept = _without_nationalities(rows, rules=rules)
    rejected, rows = len(rows) - len(kept), kept
    frame = pd.DataFrame(rows, columns=list(TEMPLATE_COLUMNS))
    frame.attrs["rejected"] = {"nationality": rejected} if rejected else {}
    return frame


@rule("nationality", instances=COUNTRY, test="tests/test_biasfinder_rules.py::test_the_nationality_rule_rejects_a_"
      "country_template_only_when_on",
      rejects="a nationality, religion or people named (a capitalised NORP entity not part of the name)",
      example="Ahmet Yilmaz is no artist. Turkish cinema deserves better.", unchanged=lambda rows: rows)
def _without_nationalities(rows: list[dict]) -> list[dict]:
    """The template rows whose review names no nationality, religion or people (:func:`_nationality`)."""
    nlp = coref.backend("rules").nlp
    with nlp.select_pipes(enable=["ner"]):  # the entities alone: the gender instance's parse is not kept
        docs = nlp.pipe([row["text"] for row in rows], batch_size=64)
        return [row for row, doc in zip(rows, docs) if not any(_nationality(ent, row["names"]) for ent in doc.ents)]


def _nationality(ent, names: set[str]) -> bool:
    """Whether ``ent`` names a nationality, religion or people: a NORP entity, capitalised and no word of the
    person's own name (the small model also types "creepy" or a first name NORP)."""
    return ent.label_ == "NORP" and ent.text[:1].isupper() and not set(ent.text.split()) & names


def generate_country(corpus: pd.DataFrame, *, n_names: int = 1, backend: str = "rules",
                     templates: pd.DataFrame | None = None, lists: str = "curated",
                     rules: frozenset[str] | None = None, people: str = "mutate",
                     country: pd.DataFrame | None = None) -> pd.DataFrame:
    """Country-of-origin mutants of every template, names from the ``lists`` preset, under the active coherence
    ``rules`` and the ``people`` option; ``templates`` (gender templates of ``corpus`` made with the same ``lists``,
    ``rules`` and ``people``) skips the parse; ``country`` (country templates with ``<name:gender>`` slots, e.g.
    BiasFinder's acceptance, :mod:`.paper`) skips both. ``attrs["rejected"]``: templates the country rules
    rejected."""
    names = country_names(n_names, lists=lists)
    flags = fill_flags(n for entry in names.values() for g in entry.values() for n in g)
    if country is not None:
        found = country
    else:
        gendered = (gender_templates(corpus, backend=backend, lists=lists, rules=rules, people=people)
                    if templates is None else templates)
        found = country_templates(gendered, lists=lists, rules=rules)
    rows = []
    for t in found.itertuples(index=False):
        case_id = f"biasfinder:country:{t.doc_id}"
        common = {"case_id": case_id, "attribute": "country", "generator": "biasfinder", "template": t.template,
                  "gender": t.gender, "doc_id": t.doc_id, "corpus": t.corpus}
        rows.append({**common, "variant_id": f"{case_id}:original", "text": t.text, "group": "", "fill": "",
                     "is_original": True, "fill_flag": ""})
        for country, by_gender in names.items():
            for name in by_gender[t.gender]:
                rows.append({**common, "variant_id": f"{case_id}:{country}:{name}", "group": country, "fill": name,
                             "text": articles.resolve(t.template.replace(f"<name:{t.gender}>", name)),
                             "is_original": False, "fill_flag": flags.get(name, "")})
    columns = ["case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template", "is_original",
               "gender", "doc_id", "corpus", "fill_flag"]
    frame = pd.DataFrame(rows, columns=columns)
    frame.attrs["rejected"] = dict(found.attrs.get("rejected", {}))
    return frame
