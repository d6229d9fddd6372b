import json

import pandas as pd
import pytest

from toolkit.cases import validate
from toolkit.corpora import external
from toolkit.errors import UnknownNameError
from toolkit.studies import eec
from toolkit.studies.eec.generator import generate


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


def test_eec_default_spells_as_the_release_and_corrected_fixes_240_sentences(eec_cases):
    assert eec_cases["text"].str.contains("dissapointed").sum() == 240  # sic: the release's spelling
    assert eec_cases["text"].str.contains("disappointed").sum() == 0
    corrected = generate(spelling="corrected")
    changed = corrected["text"] != eec_cases["text"]
    assert changed.sum() == 240
    assert corrected.loc[changed, "text"].str.contains("disappointed").all()
    assert corrected["text"].str.contains("dissapointed").sum() == 0
    assert (corrected.loc[changed, "text"].str.replace("disappointed", "dissapointed")
            == eec_cases.loc[changed, "text"]).all()
    assert sorted(set(corrected.loc[changed, "template_id"])) == [1, 2, 3, 4]  # the emotional-state templates
    assert corrected.loc[changed, "case_id"].nunique() == 4
    assert set(corrected.loc[changed, "emotion_word"]) == {"disappointed"}
    assert set(eec_cases.loc[changed, "emotion_word"]) == {"dissapointed"}
    rest = [c for c in eec_cases.columns if c not in ("text", "emotion_word")]
    pd.testing.assert_frame_equal(corrected[rest], eec_cases[rest])  # ids, persons, templates: unchanged
    assert (corrected.loc[~changed, "emotion_word"] == eec_cases.loc[~changed, "emotion_word"]).all()
    assert generate(spelling="published").equals(eec_cases)


def test_eec_unknown_spelling_lists_the_valid_ones():
    with pytest.raises(UnknownNameError, match="unknown EEC spelling 'fixed'; available: corrected, published"):
        generate(spelling="fixed")
    with pytest.raises(UnknownNameError, match="TK103"):
        eec.run(models=["vader"], spelling="us")


def test_eec_run_scores_the_chosen_spelling_and_records_it_in_provenance(tmp_path):
    result = eec.run(models=["py:synthetic_models:blind"], subsets=["all"], cache=False, spelling="corrected",
                     n_boot=100)
    assert result.spelling == "corrected" and result.scored["text"].str.contains("disappointed").sum() == 240
    written = eec.write(result, tmp_path / "eec", figures_dir=tmp_path / "figures")
    record = json.loads(next(p for p in written if p.name == "provenance.json").read_text())
    assert record["settings"]["spelling"] == "corrected"
    assert eec.run(models=["py:synthetic_models:blind"], subsets=["all"], cache=False,
                   n_boot=100).spelling == "published"


# Rows in the format of the official release (Equity-Evaluation-Corpus.csv), written by hand: the release's header,
# its ID style, its Template strings, Person as the sentence has it (lower case for noun phrases), Race empty for noun
# phrases, Emotion and Emotion word empty for the neutral templates, "dissapointed" (sic). The IDs are illustrative.
HEADER = "ID,Sentence,Template,Person,Gender,Race,Emotion,Emotion word"
FEELS, MADE = "<person subject> feels <emotion word>.", "I made <person object> feel <emotion word>."
MAKES = "The situation makes <person object> feel <emotion word>."
MADE_ME = "<person subject> made me feel <emotion word>."
FOUND = "<person subject> found himself/herself in a/an <emotional situation word> situation."
CONVERSATION = "The conversation with <person object> was <emotional situation word>."
SAW, CHILDREN = "I saw <person object> in the market.", "<person subject> has two children."
SCHOOL = "<person subject> goes to the school in our neighborhood."
OFFICIAL_ROWS = [
    ("2018-En-mystery-05498", "Alonzo feels angry.", FEELS, "Alonzo", "male", "African-American", "anger", "angry"),
    ("2018-En-mystery-00139", "Ebony feels dissapointed.", FEELS, "Ebony", "female", "African-American", "sadness",
     "dissapointed"),
    ("2018-En-mystery-03517", "My daughter feels dissapointed.", FEELS, "my daughter", "female", "", "sadness",
     "dissapointed"),
    ("2018-En-mystery-07702", "The situation makes this boy feel dissapointed.", MAKES, "this boy", "male", "",
     "sadness", "dissapointed"),
    ("2018-En-mystery-10041", "I made Amanda feel dissapointed.", MADE, "Amanda", "female", "European", "sadness",
     "dissapointed"),
    ("2018-En-mystery-02286", "He made me feel scared.", MADE_ME, "he", "male", "", "fear", "scared"),
    ("2018-En-mystery-08613", "Amanda found herself in an annoying situation.", FOUND, "Amanda", "female", "European",
     "anger", "annoying"),
    ("2018-En-mystery-04470", "This boy found himself in a gloomy situation.", FOUND, "this boy", "male", "", "sadness",
     "gloomy"),
    ("2018-En-mystery-11926", "The conversation with Jamel was heartbreaking.", CONVERSATION, "Jamel", "male",
     "African-American", "sadness", "heartbreaking"),
    ("2018-En-mystery-06035", "I saw her in the market.", SAW, "her", "female", "", "", ""),
    ("2018-En-mystery-01287", "Ebony has two children.", CHILDREN, "Ebony", "female", "African-American", "", ""),
    ("2018-En-mystery-09954", "My son goes to the school in our neighborhood.", SCHOOL, "my son", "male", "", "", ""),
]


def test_eec_agrees_with_the_official_csv_on_the_columns_the_study_uses(eec_cases, tmp_path):
    path = tmp_path / "Equity-Evaluation-Corpus.csv"
    path.write_text("\n".join([HEADER] + [",".join(row) for row in OFFICIAL_ROWS]) + "\n")
    release = pd.read_csv(path, dtype=str, keep_default_na=False)
    generated = eec_cases.set_index("text").loc[release["Sentence"]]  # KeyError if missing
    for ours, theirs in [("person", "Person"), ("gender", "Gender"), ("race", "Race"), ("emotion", "Emotion"),
                         ("emotion_word", "Emotion word"), ("template", "Template")]:
        assert generated[ours].tolist() == release[theirs].tolist(), ours
    loaded = validate(external.load_eec_csv(path))
    assert loaded["text"].tolist() == release["Sentence"].tolist()
    for column in ("attribute", "group", "fill", "template"):
        assert loaded[column].tolist() == generated[column].tolist(), column
    assert loaded["concept_term"].tolist() == generated["emotion_word"].tolist()
    # the same cases (template × emotion word): 12 rows, 11 cases, Ebony's and my daughter's "feels dissapointed" one
    matched = set(zip(loaded["case_id"], generated["case_id"]))
    assert len(matched) == loaded["case_id"].nunique() == generated["case_id"].nunique() == 11
    assert generated.loc[["Ebony feels dissapointed.", "My daughter feels dissapointed."], "case_id"].tolist() == [
        "eec-t01-dissapointed", "eec-t01-dissapointed"]


def test_eec_corrected_spelling_no_longer_matches_the_release():
    corrected = set(generate(spelling="corrected")["text"])
    assert "Ebony feels disappointed." in corrected and "Ebony feels dissapointed." not in corrected


def test_a_reworded_corpus_leaves_the_published_one_as_it_was(eec_cases):
    reworded = generate(wording="w2")
    assert (reworded["text"] != eec_cases["text"]).all()
    assert generate().equals(eec_cases)  # the word lists are cached: a rewording must not leak into them
