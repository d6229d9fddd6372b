"""BiasFinder test cases (Asyrofi et al., IEEE TSE 2021): templates mined from real reviews, filled per class.

Instances: :mod:`.gender` (Algorithm 1), :mod:`.occupation`, :mod:`.country` (country of origin, from the gender
templates). :func:`generate` runs several on one corpus and concatenates their case tables.

Speed: a review is parsed at most twice (gender/country share one parse; occupation parses only reviews naming one
occupation). Before the gender parse, :func:`generate` drops reviews with both male and female pronouns: the rules
backend always puts them in two clusters (a pronoun never joins a cluster another pronoun gendered otherwise), so
neither instance could use them — exact for ``backend="rules"``, not applied for other backends.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from toolkit.errors import InputError, unknown
from toolkit.generators.biasfinder.country import country_names, country_templates, generate_country  # noqa: F401
from toolkit.generators.biasfinder.gender import fill_names, gender_templates, generate_gender  # noqa: F401
from toolkit.generators.biasfinder.occupation import (fill_occupation, generate_occupation,  # noqa: F401
                                                      occupation_templates, occupations)

INSTANCES = ("gender", "occupation", "country")
COLUMNS = ("case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template", "is_original",
           "gender", "occupation", "doc_id", "corpus")
_MALE = re.compile(r"\b(he|him|his|himself)\b", re.IGNORECASE)
_FEMALE = re.compile(r"\b(she|her|hers|herself)\b", re.IGNORECASE)


def _one_gender(corpus: pd.DataFrame) -> pd.DataFrame:
    mixed = corpus["text"].map(lambda t: _MALE.search(t) is not None and _FEMALE.search(t) is not None)
    return corpus[~mixed]


def generate(corpus: pd.DataFrame, *, instances: Sequence[str] = INSTANCES, n_names: int = 30,
             n_country_names: int = 1, backend: str = "rules", n_process: int = 1) -> pd.DataFrame:
    """The case tables of ``instances`` for ``corpus``, concatenated (columns :data:`COLUMNS`; '' where an instance
    lacks one). ``n_names`` per gender for the gender instance, ``n_country_names`` per country and gender;
    ``n_process`` parsing processes (2 on a 2-core machine parses about 1.6× faster)."""
    if not instances:
        raise InputError("no instance chosen.", fix=f"pass instances from {', '.join(INSTANCES)}.")
    for name in instances:
        if name not in INSTANCES:
            raise unknown("instance", name, INSTANCES)
    frames, gendered = [], None
    mined = _one_gender(corpus) if backend == "rules" else corpus
    if "gender" in instances:
        frames.append(generate_gender(mined, n_names=n_names, backend=backend, n_process=n_process))
        originals = frames[-1][frames[-1]["is_original"]]
        gendered = originals.loc[:, ["doc_id", "corpus", "text", "template", "gender"]]
    elif "country" in instances:
        gendered = gender_templates(mined, backend=backend, n_process=n_process)
    if "occupation" in instances:
        frames.append(generate_occupation(corpus, n_process=n_process))
    if "country" in instances:
        frames.append(generate_country(corpus, n_names=n_country_names, templates=gendered))
    return pd.concat([f.reindex(columns=list(COLUMNS), fill_value="") for f in frames], ignore_index=True)
