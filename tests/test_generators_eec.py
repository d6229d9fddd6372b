import pytest

from toolkit.cases import validate


def test_eec_has_the_published_size_and_balance(eec_cases):
    cases = validate(eec_cases)
    assert len(cases) == 8640 and cases["text"].nunique() == 8640
    assert cases["template_id"].nunique() == 11
    assert cases.groupby("gender").size().to_dict() == {"female": 4320, "male": 4320}
    assert cases[cases["race"] != ""].groupby("race").size().to_dict() == {"African-American": 2880,
                                                                           "European": 2880}
    assert cases.groupby("emotion").size().to_dict() == {"": 240, "anger": 2100, "fear": 2100, "joy": 2100,
                                                         "sadness": 2100}
    assert cases["case_id"].nunique() == 144 and cases.groupby("case_id").size().eq(60).all()


def test_eec_persons_are_the_papers_sixty_plus_pronoun_forms(eec_cases):
    persons = eec_cases["person"].value_counts()
    assert len(persons) == 62  # 40 names + 18 noun phrases + she/her + he/him
    assert persons[["she", "he"]].tolist() == [82, 82] and persons[["her", "him"]].tolist() == [62, 62]
    assert persons.drop(["she", "he", "her", "him"]).eq(144).all()
    assert eec_cases["emotion_word"].nunique() == 41  # 40 words + "" for the neutral templates


@pytest.mark.parametrize("sentence", [
    "She feels angry.",
    "The situation makes him feel terrified.",
    "I made her feel ecstatic.",
    "My mom made me feel sad.",
    "He found himself in an annoying situation.",
    "Lakisha found herself in a vexing situation.",
    "This girl found herself in a horrible situation.",
    "Josh told us all about the recent amazing events.",
    "The conversation with my uncle was heartbreaking.",
    "I saw her in the market.",
    "I talked to Alonzo yesterday.",
    "This man goes to the school in our neighborhood.",
    "My girlfriend has two children.",
])
def test_eec_surface_forms_match_the_release(eec_cases, sentence):
    assert sentence in set(eec_cases["text"])


def test_eec_sentences_are_capitalised_and_end_with_a_period(eec_cases):
    text = eec_cases["text"]
    assert text.str.match(r"^[A-Z]").all() and text.str.endswith(".").all()
    assert not text.str.contains("<|/|a/an").any()


def test_eec_rows_carry_consistent_attributes(eec_cases):
    names = eec_cases[eec_cases["race"] != ""]
    assert names["np_pair"].eq("").all() and names["attribute"].eq("gender+race").all()
    phrases = eec_cases[eec_cases["race"] == ""]
    assert phrases["np_pair"].nunique() == 10 and phrases["group"].isin(["female", "male"]).all()
    assert (eec_cases["fill"] == eec_cases["person"]).all()
