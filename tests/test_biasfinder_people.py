"""People the review identifies (issue 25): ``people="skip-named"`` and ``"skip-real"`` keep a person the review
pins down (a full name; an actor beside a role, a director credited) from being renamed or re-gendered."""
import pytest
from conftest import corpus_of

from toolkit.errors import UnknownNameError
from toolkit.studies.biasfinder.generator import gender_templates, generate

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


# ``skip-known``: fame counted over the corpus (reviews that keep writing a full name), no list of names.
REFERENCE = [  # three reviews name George Romero in full; "Star Wars" is two common words; Kitamura only twice
    "George Romero made this on a shoestring, and the zombies still scare me.",
    "This is another George Romero classic: the star of the night is the makeup.",
    "I love how George Romero films the mall. The wars between the survivors are brutal.",
    "Ryuhei Kitamura directs with energy. Star Wars fans may like it. The star wars on.",
    "Ryuhei Kitamura again. Star Wars it is not: every star wars with every other star.",
    "Charlie Chaplin is a genius. Charlie Sheen is not. Charlie Brown is a cartoon.",
    "Charlie Chaplin and Charlie Sheen and Charlie Brown again.",
    "Charlie Chaplin, Charlie Sheen, Charlie Brown: three Charlies.",
]


def test_known_names_counts_full_names_and_surnames_over_reviews():
    from toolkit.studies.biasfinder.generator.people import known_names

    known = known_names(REFERENCE)
    assert "george romero" in known.full and "romero" in known.surnames  # three reviews
    assert "ryuhei kitamura" not in known.full and "kitamura" not in known.surnames  # two reviews only
    assert "star wars" not in known.full  # "star" and "wars" are written in lower case too: not names
    assert "charlie chaplin" in known.full and "chaplin" in known.surnames
    assert "charlie" not in known.surnames  # a first name in more reviews than a surname
    assert known_names(REFERENCE, min_reviews=2).full >= {"ryuhei kitamura", "george romero"}
    assert known.record() == {"reviews": 8, "min_reviews": 3, "full_names": len(known.full),
                              "surnames": len(known.surnames), "given_names": len(known.given)}
    from toolkit.errors import InputError

    with pytest.raises(InputError, match="min_reviews"):
        known_names(REFERENCE, min_reviews=0)


KNOWN_CASES = [  # (review, the signal skip-known reads, '' to keep it)
    ("Romero shot it in a mall, and he makes every scene count.", "known-name"),
    ("George Romero shot it in a mall, and he makes every scene count.", "known-name"),
    ("Before this I never much minded Romero. Now he annoys me whenever I see him on television.",
     "known-name-nearby"),
    ("Mary is a barber in a small town, and she makes every customer laugh.", ""),
    ("Kitamura is a barber in a small town, and he makes every customer laugh.", ""),
]


@pytest.mark.parametrize("text, signal", KNOWN_CASES)
def test_skip_known_rejects_a_person_many_reviews_name(text, signal):
    from toolkit.studies.biasfinder.generator.people import known_names

    assert len(gender_templates(corpus_of([text]))) == 1  # mutate keeps every one of them
    made = gender_templates(corpus_of([text]), people=known_names(REFERENCE))
    if signal:
        assert made.empty and made.attrs["rejected"] == {f"people:{signal}": 1}
    else:
        assert len(made) == 1


def test_skip_known_counts_over_known_from_and_records_it():
    texts = [text for text, _ in KNOWN_CASES]
    cases = generate(corpus_of(texts), instances=["gender"], n_names=2, people="skip-known",
                     known_from=corpus_of(REFERENCE))
    assert set(cases["doc_id"]) == {"d3", "d4"}
    report = cases.attrs["generation_report"]
    assert report["people"] == "skip-known" and cases.attrs["coherence"]["people"] == "skip-known"
    assert report["known_names"]["reviews"] == 8 and report["known_names"]["source"] == "known_from"
    # counted over these five reviews alone, no full name recurs in three of them: nobody is known, all kept
    # (which is why a sample should be generated with known_from=the whole corpus)
    own = generate(corpus_of(texts), instances=["gender"], n_names=2, people="skip-known")
    assert own.attrs["generation_report"]["known_names"]["source"] == "corpus"
    assert set(own["doc_id"]) == {"d0", "d1", "d2", "d3", "d4"}


def test_skip_real_reads_a_credit_noun_after_is_and_keeps_a_plain_occupation():
    credited = "Monahan is a filmmaker who is going places, and he shows it here."
    assert gender_templates(corpus_of([credited]), people="skip-real").attrs["rejected"] == {"people:credit": 1}
    plain = "Mary is a barber in a small town, and she makes every customer laugh."
    assert len(gender_templates(corpus_of([plain]), people="skip-real")) == 1


def test_known_names_counts_an_honorific_and_one_name_as_a_surname():
    from toolkit.studies.biasfinder.generator.people import known_names

    texts = ["Dr. Seuss wrote it and the film ruins it.", "What would Dr. Seuss say about this film?",
             "I grew up on Dr. Seuss books."]
    assert "seuss" in known_names(texts).surnames
    assert "seuss" not in known_names(texts[:2]).surnames  # two reviews only
    made = gender_templates(corpus_of(["Dr Seuss is rolling in his grave, and I know he would hate it."]),
                            people=known_names(texts))
    assert made.empty


def test_a_true_story_review_is_skipped_under_skip_real_and_skip_known_whatever_the_mentions():
    from toolkit.studies.biasfinder.generator.people import known_names

    text = "This is a true story, and the pilot never gave up: he flew higher than anyone before."
    assert len(gender_templates(corpus_of([text]))) == 1
    for people in ("skip-real", known_names(REFERENCE)):
        made = gender_templates(corpus_of([text]), people=people)
        assert made.empty and made.attrs["rejected"] == {"people:true-story": 1}
    assert len(gender_templates(corpus_of([text.replace("a true story", "a tall story")]), people="skip-real")) == 1


def test_a_rare_first_name_that_leads_one_known_name_identifies_the_person():
    from toolkit.studies.biasfinder.generator.people import known_names

    texts = ["Dolph Lundgren rides a bike.", "I like Dolph Lundgren a lot.", "Is Dolph Lundgren back?",
             "Tom Hanks is fine.", "Tom Cruise is fine.", "Tom Hanks again.", "Tom Cruise again.", "Tom Hanks."]
    known = known_names(texts)
    assert "dolph" in known.given and "tom" not in known.given  # Tom leads two names and is a common first name
    made = gender_templates(corpus_of(["Dolph looked superbly cool on the bike, and he looked good."]), people=known)
    assert made.empty and made.attrs["rejected"] == {"people:known-name": 1}


def test_a_credit_in_brackets_and_a_possessive_without_apostrophe_are_read():
    from toolkit.studies.biasfinder.generator.people import known_names

    bracket = "As for Devin Hamilton (Writer and Director), he should stop making films."
    assert gender_templates(corpus_of([bracket]), people="skip-real").attrs["rejected"] == {"people:credit": 1}
    possessive = "The show has become Romeros own ego trip, and he knows it."
    assert len(gender_templates(corpus_of([possessive]))) == 1
    known = known_names(REFERENCE)
    made = gender_templates(corpus_of([possessive]), people=known)  # "Romeros" is outside the "he" cluster here
    assert made.empty and made.attrs["rejected"] == {"people:known-name-nearby": 1}
    from toolkit.studies.biasfinder.generator.people import _is_known

    assert _is_known("George Romeros", known) and _is_known("Romeros", known)  # a name mention, too
    assert not _is_known("Kitamuras", known)


def test_skip_known_is_not_fooled_by_copies_common_words_or_a_characters_job():
    from toolkit.studies.biasfinder.generator.people import known_names

    copies = ["Mary Quinby is a barber here, and she cuts hair."] * 3
    assert "mary quinby" not in known_names(copies).full  # one review three times is one review
    common = ["Jack Black is loud. The black cat sat.", "Jack Black again; black coffee.",
              "Jack Black, and a black hat."]
    known = known_names(common)
    assert "jack black" in known.full and "black" not in known.surnames  # "black" is written in lower case too
    start = "Black and white photography suits it, and he shot every frame himself."
    assert len(gender_templates(corpus_of([start]), people=known)) == 1
    job = "Jack is a writer who moves to a small town, and he finds a friend."
    assert len(gender_templates(corpus_of([job]), people="skip-real")) == 1  # a character's job, not a credit
    for text in ("In real life nobody talks like this, and he knows it.",
                 "The documentary-style camera follows him, and he runs."):
        assert len(gender_templates(corpus_of([text]), people="skip-real")) == 1, text


def test_curly_apostrophes_and_accented_capitals_are_the_same_names():
    from toolkit.studies.biasfinder.generator.people import _is_known, known_names

    texts = ["Peter O'Toole shines.", "Peter O’Toole shines again.", "I love Peter O'Toole.",
             "Ferzan Özpetek directs.", "A film by Ferzan Özpetek.", "Ferzan Özpetek again."]
    known = known_names(texts)
    assert "peter o'toole" in known.full and _is_known("O’Toole", known)
    assert "ferzan özpetek" in known.full and _is_known("Özpetek", known)


def test_a_known_names_object_is_recorded_as_skip_known_and_known_from_is_checked():
    import json

    from toolkit.errors import InputError
    from toolkit.studies.biasfinder.generator.people import identified, known_names

    texts = [text for text, _ in KNOWN_CASES]
    cases = generate(corpus_of(texts), instances=["gender"], n_names=2, people=known_names(REFERENCE))
    report = cases.attrs["generation_report"]
    assert report["people"] == "skip-known" and cases.attrs["coherence"]["people"] == "skip-known"
    assert report["known_names"]["source"] == "given" and set(cases["doc_id"]) == {"d3", "d4"}
    json.dumps(report)  # provenance stays JSON
    listed = generate(corpus_of(texts), instances=["gender"], n_names=2, people="skip-known", known_from=REFERENCE)
    assert set(listed["doc_id"]) == {"d3", "d4"}  # a list of texts works as known_from
    with pytest.raises(InputError, match="known_from has no text column"):
        generate(corpus_of(texts), people="skip-known", known_from=corpus_of(REFERENCE).drop(columns="text"))
    with pytest.warns(UserWarning, match="known_from is read only by people='skip-known'"):
        generate(corpus_of(texts), instances=["gender"], n_names=2, people="skip-real", known_from=REFERENCE)
    with pytest.raises(InputError, match="needs the names the corpus knows"):
        identified(None, [], mode="skip-known")
