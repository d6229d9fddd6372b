"""BiasFinder's word-list presets: the curated default and the lists the paper released (``lists="paper"``)."""
import hashlib
import json
from importlib import resources

import pytest
from conftest import SHARED_DATA, corpus_of

from toolkit.errors import InputError, UnknownNameError
from toolkit.studies import biasfinder
from toolkit.studies.biasfinder.generator import (
    country_names,
    fill_names,
    gender_templates,
    generate,
    generate_gender,
    occupation_templates,
    occupations,
)
from toolkit.studies.biasfinder.generator.lists import PRESETS, word_lists
from toolkit.studies.biasfinder.generator.occupation import fill_occupation

PAPER_FILES = ("gender_nouns.csv", "male_names.csv", "female_names.csv", "country_male_names.csv",
               "country_female_names.csv", "occupations.csv")
RELEASED_SHA256 = {
    "gender_nouns.csv": "2fa962205730aaa14768a8f5d15c8c9a9de26ca02b4b940e63540b1392b7b4be",
    "male_names.csv": "6fc12e2221aa32be25ea14a223c264a80de4eecf8bcbabc9af5f379a53baed2b",
    "female_names.csv": "3e89f74cb21b645161b23edfb3263f2589a4755518d539ed2140634fe2c6a8c8",
    "country_male_names.csv": "9f4794d128df1409fbd4d857895663e80659700d726c538b148f338d9ded2837",
    "country_female_names.csv": "ba4aac390af701aab29455cd1be274ba9f0997e57872e1aa01add4b5cf305caa",
    "occupations.csv": "07e081bcc15c3ed9b4bc860bb2e547ac8667aa7bf0a88118b6f6d6ea37db1b4d",
}


def test_paper_preset_loads_the_released_lists():
    lists = word_lists("paper")
    assert len(lists.noun_pairs) == 11 and ("daddy", "mummy") in lists.noun_pairs
    assert ("gentleman", "lady") in lists.noun_pairs and ("actor", "actress") not in lists.noun_pairs
    names = fill_names(30, lists="paper")
    assert names["female"][:3] == ["Barbara", "Elizabeth", "Jennifer"] and names["female"][-1] == "Emily"
    assert names["male"][:3] == ["Jonathan", "Harry", "Todd"] and names["male"][-1] == "Terrance"
    countries = country_names(1, lists="paper")
    assert len(countries) == 25
    assert countries["Finland"] == {"female": ["Josefiina"], "male": ["Kauko"]}
    assert countries["The Netherlands"] == {"female": ["Waltruda"], "male": ["Harrit"]}
    words = occupations(lists="paper")
    assert len(words) == 79 and words[:4] == ("attendant", "cashier", "teacher", "nurse")
    assert {"construction worker", "physician's assistant", "air traffic controller", "CEO", "judge",
            "cook"} <= set(words)


def test_curated_preset_is_the_default_and_keeps_its_lists():
    lists = word_lists()
    assert lists.preset == "curated" and len(lists.noun_pairs) == 31 and len(lists.country_names) == 38
    assert ("hero", "heroine") not in lists.noun_pairs  # a sentiment of its own: left out (lint)
    assert occupations() == occupations(lists="curated") and len(occupations()) == 79
    assert "cook" not in occupations() and "chef" in occupations()
    assert fill_names(2) == {"female": ["Jennifer", "Jessica"], "male": ["Michael", "David"]}


def test_paper_lists_are_shipped_byte_for_byte_with_their_licence():
    folder = resources.files("toolkit.resources").joinpath("biasfinder_paper")
    assert "Apache License" in folder.joinpath("LICENSE").read_text(encoding="utf-8")
    assert "Asyrofi" in folder.joinpath("NOTICE").read_text(encoding="utf-8")
    recorded = word_lists("paper").record()["sources"]
    for name, digest in RELEASED_SHA256.items():  # the released files' digests, taken with sha256sum
        assert hashlib.sha256(folder.joinpath(name).read_bytes()).hexdigest() == digest == recorded[name], name


@pytest.mark.parametrize("preset", PRESETS)
def test_the_coherence_rules_and_their_word_files_are_recorded(preset):
    recorded = word_lists(preset).record()["coherence_rules"]
    folder = resources.files("toolkit.resources")
    assert recorded["applied"] is True and "docs/biasfinder_rules.md" in recorded["about"]
    assert set(recorded["sources"]) == {"occupation_senses.json", "gender_nouns.json", "fill_lint.json"}
    for name, digest in recorded["sources"].items():
        assert hashlib.sha256(folder.joinpath(name).read_bytes()).hexdigest() == digest, name


@pytest.mark.shared_data
def test_paper_lists_equal_the_shared_release():
    if not (SHARED_DATA / "biasfinder").is_dir():
        pytest.skip("../shared/data/biasfinder is absent")
    folder = resources.files("toolkit.resources").joinpath("biasfinder_paper")
    for name in PAPER_FILES:
        assert folder.joinpath(name).read_bytes() == (SHARED_DATA / "biasfinder" / name).read_bytes(), name


@pytest.mark.parametrize("call", [
    lambda: word_lists("papers"),
    lambda: generate(corpus_of(["She smiled."]), lists="BiasFinder"),
    lambda: biasfinder.run(corpus=corpus_of(["She smiled."]), models=["vader"], lists="original", cache=False),
])
def test_unknown_preset_names_the_valid_ones(call):
    with pytest.raises(UnknownNameError, match="available: curated, paper"):
        call()
    assert PRESETS == ("curated", "paper")


@pytest.mark.parametrize("options, message", [
    ({"n_names": 31}, "only 30 female names in the 'paper' lists"),
    ({"n_country_names": 2}, "between 1 and 1 names per country"),
])
def test_paper_preset_limits_are_checked_before_parsing(options, message):
    with pytest.raises(InputError, match=message):
        generate(corpus_of(["She smiled at him."]), lists="paper", **options)


def test_paper_occupations_fill_multi_word_titles_and_acronyms_as_one_slot():
    text = "He was a hard-working construction worker. The construction worker never complained."
    template = occupation_templates(corpus_of([text]), lists="paper")["template"].tolist()
    assert template == ["He was <a> <occupation>. The <occupation> never complained."]
    assert fill_occupation(template[0], occupation="air traffic controller") == (
        "He was an air traffic controller. The air traffic controller never complained.")
    assert fill_occupation(template[0], occupation="CEO") == "He was a CEO. The CEO never complained."
    friend = occupation_templates(corpus_of(["My friend, a physician's assistant, loved it."]), lists="paper")
    assert friend["template"].tolist() == ["My friend, <a> <occupation>, loved it."]
    # the curated list has no "construction worker": the review yields no curated template
    assert occupation_templates(corpus_of([text])).empty


def test_gender_nouns_follow_the_preset():
    daddy = corpus_of(["The daddy in this film is awful; he never listens."])
    texts = {lists: generate_gender(daddy, lists=lists)["text"].tolist() for lists in PRESETS}
    assert "The mummy in this film is awful; she never listens." in texts["paper"]
    assert "The mommy in this film is awful; she never listens." in texts["curated"]
    # "actress" has no pair in the paper's list: a male mutant would keep it, so the review yields no template
    actress = corpus_of(["The actress is wonderful and she carries the film."])
    assert gender_templates(actress, lists="paper").empty
    assert gender_templates(actress)["template"].tolist() == ["The <noun:actor> is wonderful and <subj> carries "
                                                              "the film."]


def test_preset_is_recorded_in_the_cases_and_the_provenance(tmp_path):
    text = "Tom Hanks is great. He carries the film and his smile is warm."
    result = biasfinder.run(corpus=corpus_of([text]), models=["vader"], instances=["gender", "country"],
                            lists="paper", cache=False)
    assert result.provenance.settings["word_lists"]["preset"] == "paper"
    assert result.provenance.settings["word_lists"]["countries"] == 25
    mutants = result.scored[(result.scored["group"] != "") & (result.scored["attribute"] == "country")]
    assert len(mutants) == 25 and {"Kauko", "Jelander", "Christop"} <= set(mutants["fill"])  # male names
    assert "Kauko is great. He carries the film and his smile is warm." in set(mutants["text"])
    biasfinder.write(result, tmp_path / "out", figures_dir=tmp_path / "fig")
    settings = json.loads((tmp_path / "out" / "provenance.json").read_text())["settings"]
    assert settings["word_lists"]["preset"] == "paper" and settings["word_lists"]["sources"]["occupations.csv"]
