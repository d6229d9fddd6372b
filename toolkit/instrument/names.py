"""Every name the generators ship, with its metadata (:mod:`toolkit.names`).

:func:`shipped` lists the names each study fills its slots with: the EEC's 40 (Kiritchenko & Mohammad 2018, Table 3),
PSA's 48 (:mod:`toolkit.studies.psa.generator`), BiasFinder's released lists (``lists="paper"``: 30 + 30 first names, one
per country and gender) and this project's curated lists (``lists="curated"``). :func:`shipped_metadata` adds the SSA
frequency, gender share and race probabilities, one row per (name, study, list); a name that cannot be looked up
keeps its row and says why in ``missing``.
"""
from __future__ import annotations

import pandas as pd

from toolkit import names as name_meta
from toolkit.resources import load_json
from toolkit.studies.biasfinder.generator.lists import word_lists
from toolkit.studies.psa.generator import load_names

COLUMNS = ["name", "study", "list", "attribute", "group"]


def shipped() -> pd.DataFrame:
    """One row per name and the list that ships it. Columns: name, study (eec, psa, biasfinder), list (eec,
    psa, paper, curated), attribute (race, gender, country), group (e.g. "African-American female", "female",
    "Japan female")."""
    rows = []
    for race, by_gender in load_json("eec")["names"].items():
        for gender, names in by_gender.items():
            rows += [(n, "eec", "eec", "race", f"{race} {gender}") for n in names]
    for row in load_names().itertuples(index=False):
        rows.append((row.name, "psa", "psa", "gender", row.gender))
    for preset in ("paper", "curated"):
        lists = word_lists(preset)
        for gender, names in lists.names.items():
            rows += [(n, "biasfinder", preset, "gender", gender) for n in names]
        for country, by_gender in lists.country_names.items():
            for gender, names in by_gender.items():
                rows += [(n, "biasfinder", preset, "country", f"{country} {gender}") for n in names]
    return pd.DataFrame(rows, columns=COLUMNS)


def shipped_metadata(*, years: tuple[int, int] = name_meta.SSA_YEARS, race: bool = True) -> pd.DataFrame:
    """:func:`shipped` joined with :func:`toolkit.names.metadata` (columns: :data:`COLUMNS` then the metadata's,
    without its ``name``)."""
    names = shipped()
    meta = name_meta.metadata(names=names["name"], years=years, race=race)
    return names.merge(meta, on="name", how="left", validate="many_to_one")
