import warnings

import pandas as pd
import pytest
from conftest import corpus_of

from toolkit import corpora
from toolkit.cases import validate
from toolkit.errors import InputError, SchemaError
from toolkit.studies.psa.generator import generate, load_names

NAMES = pd.DataFrame({"name": ["Ada Lovelace", "Alan Turing"], "gender": ["female", "male"],
                      "category": ["scientist", "scientist"]})


PAIRS = [  # (original, with Ada Lovelace) — female and male anchors alternate so the sample stays balanced
    ("She loved the film.", "Ada Lovelace loved the film."),
    ("He loved the film.", "Ada Lovelace loved the film."),
    ("I saw her at the premiere.", "I saw Ada Lovelace at the premiere."),
    ("I gave him the ticket.", "I gave Ada Lovelace the ticket."),
    ("Her acting is superb.", "Ada Lovelace's acting is superb."),
    ("His acting is superb.", "Ada Lovelace's acting is superb."),
    ("The best scene was hers.", "The best scene was Ada Lovelace's."),
    ("HE IS GREAT IN IT.", "ADA LOVELACE IS GREAT IN IT."),
    ("She praised herself too much.", "Ada Lovelace praised herself too much."),
    ("Nobody liked him, and he knew it.", "Nobody liked Ada Lovelace, and he knew it."),
]


@pytest.fixture(scope="module")
def perturbed():
    cases = generate(corpus_of([p[0] for p in PAIRS]), names=NAMES, n=len(PAIRS), split_sentences=False)
    return validate(cases)


@pytest.mark.parametrize("original, expected", PAIRS)
def test_each_pronoun_form_is_replaced_grammatically(perturbed, original, expected):
    case = perturbed[perturbed["text"] == original]["case_id"].iloc[0]
    rows = perturbed[perturbed["case_id"] == case].set_index("fill")
    assert rows.loc["Ada Lovelace", "text"] == expected
    assert rows.loc["", "is_original"] and not rows.loc["Ada Lovelace", "is_original"]


def test_anchor_forms_come_from_the_parse(perturbed):
    forms = perturbed[perturbed["is_original"]].set_index("text")["anchor_form"]
    assert forms["I saw her at the premiere."] == "object"
    assert forms["Her acting is superb."] == "possessive"
    assert forms["She loved the film."] == "subject"
    assert perturbed[perturbed["text"] == "Her acting is superb."]["template"].iloc[0] == "<name>'s acting is superb."


def test_each_case_has_its_original_and_every_name(perturbed):
    sizes = perturbed.groupby("case_id").size()
    assert sizes.eq(1 + len(NAMES)).all() and len(sizes) == len(PAIRS)
    assert set(perturbed.loc[~perturbed["is_original"], "gender"]) == {"female", "male"}


def test_sample_is_balanced_and_seeded():
    corpus = corpora.load("sample")
    first = generate(corpus, names=NAMES, n=20, seed=1)
    again = generate(corpus, names=NAMES, n=20, seed=1)
    other = generate(corpus, names=NAMES, n=20, seed=2)
    originals = first[first["is_original"]]
    assert originals["anchor_gender"].value_counts().to_dict() == {"female": 10, "male": 10}
    pd.testing.assert_frame_equal(first, again)
    assert set(other["case_id"]) != set(first["case_id"])
    assert originals["text"].str.split().str.len().le(50).all()


def test_too_small_a_corpus_warns_and_stays_balanced():
    with pytest.warns(UserWarning, match="using 1 per gender"):
        cases = generate(corpus_of(["He ran.", "She ran.", "She sang."]), names=NAMES, n=10, split_sentences=False)
    assert cases[cases["is_original"]]["anchor_gender"].value_counts().to_dict() == {"female": 1, "male": 1}


def test_long_sentences_and_reflexive_only_sentences_are_not_candidates():
    long = "He " + "really " * 60 + "liked it."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = generate(corpus_of([long, "He ran.", "She ran.", "Only herself to blame."]), names=NAMES, n=4,
                         split_sentences=False)
    assert set(cases.loc[cases["is_original"], "text"]) == {"He ran.", "She ran."}


def test_default_names_are_balanced_public_figures():
    names = load_names()
    assert len(names) >= 40 and names["gender"].value_counts().nunique() == 1
    assert names["category"].nunique() >= 4


def test_name_set_errors(tmp_path):
    path = tmp_path / "names.csv"
    pd.DataFrame({"name": ["X"], "gender": ["f"], "category": ["c"]}).to_csv(path, index=False)
    with pytest.raises(SchemaError, match="expected female or male"):
        load_names(path)
    with pytest.raises(SchemaError, match="lacks column 'category'"):
        load_names(pd.DataFrame({"name": ["X"], "gender": ["female"]}))
    with pytest.raises(InputError, match="n must be a whole number of at least 2; got 1"):
        generate(corpus_of(["He ran."]), names=NAMES, n=1)


def test_a_pronoun_glued_to_another_token_is_skipped_with_a_warning():
    texts = ["Reese\x96she looks great.", "She looks great.", "He looks great.", "He looks fine."]
    with pytest.warns(UserWarning, match="skipped 1 sampled sentence"):  # both female sentences must be parsed
        cases = generate(corpus_of(texts), names=NAMES, n=4, split_sentences=False)
    originals = cases.loc[cases["is_original"]]
    assert "She looks great." in set(originals["text"]) and "Reese\x96she looks great." not in set(originals["text"])
    assert originals["anchor_gender"].value_counts().to_dict() == {"female": 1, "male": 1}


def test_psa_candidate_sentences_of_a_corpus_without_rows_is_an_empty_table_not_a_key_error():
    """An empty corpus (a header-only file) gives no candidate sentence; the study then says TK102, naming the fix."""
    from toolkit.studies.psa.generator import candidate_sentences

    empty = pd.DataFrame({"doc_id": pd.Series(dtype=str), "corpus": pd.Series(dtype=str),
                          "text": pd.Series(dtype=str)})
    found = candidate_sentences(empty)
    assert found.empty and list(found.columns) == ["doc_id", "sentence_id", "text", "corpus", "anchor_gender"]
