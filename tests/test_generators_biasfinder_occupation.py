import pytest
from conftest import corpus_of

from toolkit.cases import validate
from toolkit.errors import InputError, UnknownNameError
from toolkit.studies.biasfinder.generator import generate
from toolkit.studies.biasfinder.generator.occupation import (
    fill_occupation,
    generate_occupation,
    occupation_templates,
    occupations,
)


@pytest.mark.parametrize("text, template", [
    ("The chef in this film is a joy, and the chef's passion is infectious.",
     "The <occupation> in this film is a joy, and the <occupation>'s passion is infectious."),
    ("A very talented pastry chef meets a ghost. I loved it.",
     "<A> <occupation> meets a ghost. I loved it."),
    ("It follows an eccentric, lonely architect who builds a house; the architect loves it.",
     "It follows <a> <occupation> who builds a house; the <occupation> loves it."),
    ("My favourite character is her lawyer, who never gives up.",
     "My favourite character is her <occupation>, who never gives up."),
])
def test_occupation_placeholders(text, template):
    assert occupation_templates(corpus_of([text]))["template"].tolist() == [template]


@pytest.mark.parametrize("text", [
    "The chef and the baker argue all night.",          # two occupations
    "The chef argues with the other chefs.",            # a plural mention
    "They butcher the plot in the last act.",           # a verb, not an occupation
    "The movie is long and the music is loud.",         # no occupation
])
def test_texts_without_exactly_one_singular_occupation_are_rejected(text):
    assert occupation_templates(corpus_of([text])).empty


@pytest.mark.parametrize("value, expected", [
    ("baker", "A baker meets a ghost. The baker wins."),
    ("engineer", "An engineer meets a ghost. The engineer wins."),
    ("upholsterer", "An upholsterer meets a ghost. The upholsterer wins."),
])
def test_article_agrees_with_the_value(value, expected):
    assert fill_occupation("<A> <occupation> meets a ghost. The <occupation> wins.", occupation=value) == expected


def test_every_occupation_fills_one_case():
    cases = validate(generate_occupation(corpus_of(["We meet a shy architect. Sadly the architect is dull."])))
    mutants = cases[~cases["is_original"]].set_index("group")
    assert len(mutants) == len(occupations()) == 79 and cases["is_original"].sum() == 1
    assert mutants.loc["chef", "text"] == "We meet a chef. Sadly the chef is dull."
    assert mutants.loc["accountant", "text"] == "We meet an accountant. Sadly the accountant is dull."
    assert mutants.loc["accountant", "fill"] == "accountant"


def test_occupation_list_is_single_word_and_gender_neutral():
    words = occupations()
    assert len(words) == 79 and all(w.isalpha() and w.islower() for w in words)
    assert not {"nurse", "actress", "waitress", "fireman", "policeman", "actor", "director"} & set(words)


def test_generate_concatenates_instances_and_names_unknown_ones():
    texts = ["Meryl Streep surprised herself. Her voice carries the film.",
             "We meet a shy architect. Sadly the architect is dull."]
    cases = validate(generate(corpus_of(texts), n_names=2))
    assert cases.groupby("attribute")["case_id"].nunique().to_dict() == {"country": 1, "gender": 1,
                                                                         "occupation": 1}
    with pytest.raises(UnknownNameError, match="unknown instance 'jobs'; available: country, gender, occupation"):
        generate(corpus_of(texts), instances=("jobs",))
    with pytest.raises(InputError):
        generate(corpus_of(texts), instances=())
