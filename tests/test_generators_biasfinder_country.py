import json
from importlib import resources

import pandas as pd
import pytest
from conftest import corpus_of

from toolkit.cases import validate
from toolkit.studies.biasfinder.generator import country_templates, gender_templates, generate, generate_country


@pytest.mark.parametrize("text, template", [
    ("Tom Hanks is superb, and Tom Hanks knows it; he shows it.",
     "<name:male> is superb, and <name:male> knows it; he shows it."),
    ("Meryl Streep surprised herself. Her voice carries the film.",
     "<name:female> surprised herself. Her voice carries the film."),
    ("I adored Julia Roberts, although her accent slips.",
     "I adored <name:female>, although her accent slips."),
])
def test_name_slots_keep_the_clusters_gender(text, template):
    assert country_templates(gender_templates(corpus_of([text])))["template"].tolist() == [template]


@pytest.mark.parametrize("text", [
    "John met Mary. He liked her, and she liked him.",   # two people
    "That guy is back, and he is great.",                 # no name
    "The plot is thin and the music is loud.",            # nobody
])
def test_texts_without_one_named_person_are_rejected(text):
    assert generate_country(corpus_of([text])).empty


def test_a_surviving_word_of_a_replaced_name_rejects_the_template():
    text = "Tom Hanks is superb. Hanks knows it, and he shows it."
    missed = pd.DataFrame([{"doc_id": "d0", "corpus": "test", "text": text, "gender": "male",
                            "template": "<name> is superb. Hanks knows it, and <subj> shows it."}])
    assert country_templates(missed).empty
    found = missed.assign(template="<name> is superb. <name> knows it, and <subj> shows it.")
    assert country_templates(found)["template"].tolist() == [
        "<name:male> is superb. <name:male> knows it, and he shows it."]


def test_filled_names_are_the_countrys_and_the_genders():
    cases = validate(generate_country(corpus_of(["Tom Hanks is superb, and Tom Hanks knows it; he shows it."])))
    mutants = cases[~cases["is_original"]].set_index("group")
    assert mutants.loc["Poland", "text"] == "Mateusz is superb, and Mateusz knows it; he shows it."
    assert mutants.loc["Finland", "fill"] == "Petteri"
    assert len(mutants) >= 25 and (cases["gender"] == "male").all()
    female = generate_country(corpus_of(["Meryl Streep surprised herself."]))
    assert female.set_index("group").loc["Poland", "text"] == "Kalina surprised herself."


def test_country_names_are_unique_to_their_country_and_gender():
    data = json.loads(resources.files("toolkit.resources").joinpath("country_names.json").read_text("utf-8"))
    owners = {}
    for country, entry in data["countries"].items():
        for gender in ("female", "male"):
            for name in entry[gender]:
                owners.setdefault(name.lower(), []).append((country, gender))
    assert len(data["countries"]) >= 25
    assert all(len(owner) == 1 for owner in owners.values())


def test_generate_with_country_only_matches_generate_country():
    texts = ["Tom Hanks is superb, and Tom Hanks knows it; he shows it.", "John met Mary. He liked her."]
    alone = generate(corpus_of(texts), instances=("country",))
    assert alone["text"].tolist() == generate_country(corpus_of(texts))["text"].tolist()
