"""People the review identifies (issue 25): ``people="skip-named"`` and ``"skip-real"`` keep a person the review
pins down (a full name; an actor beside a role, a director credited) from being renamed or re-gendered."""
import pytest

from conftest import corpus_of
from toolkit.errors import UnknownNameError
from toolkit.generators.biasfinder import gender_templates, generate

REAL = [  # (review, the signal skip-real reads)
    ("Charlie Chaplin as the barber is wonderful, and he makes every scene count.", "actor-as-role"),
    ("The barber (Charlie Chaplin) is wonderful, and he makes every scene count.", "role-parenthesis"),
    ("The film was directed by Charlie Chaplin, and he makes every scene count.", "credit"),
    ("Chaplin's film is wonderful, and he makes every scene count.", "work"),
    ("Charlie Chaplin plays a barber, and he makes every scene count.", "subject-of-credit"),
]
CHARACTERS = [  # a character of the story, no signal of a real person
    "Mary is a barber in a small town, and she makes every customer laugh.",
    "Mary plays the piano every night, and she makes every guest cry.",
]


@pytest.mark.parametrize("text, signal", REAL)
def test_skip_real_rejects_a_person_the_text_marks_as_real_and_mutate_keeps_them(text, signal):
    assert len(gender_templates(corpus_of([text]))) == 1  # the default mutates them, as BiasFinder does
    skipped = gender_templates(corpus_of([text]), people="skip-real")
    assert skipped.empty and skipped.attrs["rejected"] == {f"people:{signal}": 1}


@pytest.mark.parametrize("text", CHARACTERS)
def test_skip_real_and_skip_named_keep_a_character_named_by_a_first_name(text):
    for people in ("skip-real", "skip-named"):
        assert len(gender_templates(corpus_of([text]), people=people)) == 1, people


def test_skip_named_rejects_a_full_name_and_keeps_a_surname_alone():
    full = "Gene Hackman is superb here, and he holds the film together."
    assert gender_templates(corpus_of([full]), people="skip-named").attrs["rejected"] == {"people:full-name": 1}
    assert len(gender_templates(corpus_of([full.replace("Gene Hackman", "Hackman")]), people="skip-named")) == 1
    # a full name with no signal of a real person stays under skip-real
    assert len(gender_templates(corpus_of([full]), people="skip-real")) == 1


def test_the_people_option_is_counted_recorded_and_checked():
    texts = [text for text, _ in REAL] + CHARACTERS
    cases = generate(corpus_of(texts), instances=["gender", "country"], n_names=2, people="skip-real")
    assert set(cases.loc[cases["attribute"] == "gender", "doc_id"]) == {"d5", "d6"}
    report = cases.attrs["generation_report"]
    assert report["people"] == "skip-real" and cases.attrs["coherence"]["people"] == "skip-real"
    assert sum(n for rule, n in report["rejected_by_rule"]["gender"].items() if rule.startswith("people:")) == 5
    with pytest.raises(UnknownNameError) as info:
        generate(corpus_of(texts), people="skip-famous")
    assert "skip-named" in str(info.value) and "skip-real" in str(info.value)
