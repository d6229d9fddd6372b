import pytest
from conftest import corpus_of

from toolkit.cases import validate
from toolkit.nlp.coref import resolve
from toolkit.studies.biasfinder.generator import fill_names, gender_templates, generate_gender


def _clusters(text):
    return [[text[a:b] for a, b in cluster] for cluster in resolve([text])[0]]


def test_rules_backend_links_a_pronoun_to_a_name_the_lexicon_misgenders():
    assert _clusters("Drew Barrymore is wonderful here; she plays her part with warmth.") == [
        ["Drew Barrymore", "she", "her"]]


def test_rules_backend_links_a_gender_noun_and_ignores_a_title():
    assert _clusters("That guy from Blade Runner is back, and he is still great.") == [["guy", "he"]]


def test_rules_backend_separates_two_people_by_gender():
    assert _clusters("John met Mary. He liked her, and she liked him.") == [["John", "He", "him"],
                                                                           ["Mary", "her", "she"]]


def test_unknown_backend_lists_the_valid_ones():
    from toolkit.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="available: fastcoref, neuralcoref, rules"):
        resolve(["x"], backend="no-such-backend")


def test_fastcoref_backend_says_how_to_install_it():
    pytest.importorskip("toolkit")  # fastcoref is not installed offline; the error must name the fix
    try:
        import fastcoref
    except ImportError:
        from toolkit.errors import MissingDependencyError

        with pytest.raises(MissingDependencyError, match="pip install fastcoref"):
            resolve(["x"], backend="fastcoref")
    else:
        pytest.skip("fastcoref is installed here")


@pytest.mark.parametrize("text, template", [
    ("Drew Barrymore is wonderful; she plays her part with warmth.",
     "<name> is wonderful; <subj> plays <pos> part with warmth."),
    ("That guy from Blade Runner is back, and he is great. I loved him.",
     "That <noun:guy> from Blade Runner is back, and <subj> is great. I loved <obj>."),
    ("Tom Hanks is superb. The final scene is his, and he knows it.",
     "<name> is superb. The final scene is <poss>, and <subj> knows it."),
    ("Meryl Streep surprised herself. Her voice carries the film.",
     "<name> surprised <refl>. <Pos> voice carries the film."),
    ("I told Emma Stone that the actress in her was wasted.",
     "I told <name> that the <noun:actor> in <obj> was wasted."),
])
def test_each_placeholder_type(text, template):
    assert gender_templates(corpus_of([text]))["template"].tolist() == [template]


def test_multi_person_and_person_free_texts_are_rejected():
    texts = ["John met Mary. He liked her.", "The movie is boring and long.", "Anna and Bob argue and she wins."]
    assert gender_templates(corpus_of(texts)).empty


def test_filled_forms_agree_with_the_gender():
    cases = validate(generate_gender(corpus_of(["Meryl Streep surprised herself. Her voice carries the film, and "
                                              "the award is hers."]), n_names=3))
    female = cases[cases["group"] == "female"]["text"].tolist()
    male = cases[cases["group"] == "male"]["text"].tolist()
    names = fill_names(3)
    assert female[0] == f"{names['female'][0]} surprised herself. Her voice carries the film, and the award is hers."
    assert male[0] == f"{names['male'][0]} surprised himself. His voice carries the film, and the award is his."
    assert len(female) == len(male) == 3 and cases["is_original"].sum() == 1


def test_template_without_a_name_gets_one_mutant_per_gender():
    cases = generate_gender(corpus_of(["That guy is back, and he is great."]), n_names=5)
    mutants = cases[~cases["is_original"]].set_index("group")
    assert mutants.loc["female", "text"] == "That gal is back, and she is great."
    assert mutants.loc["female", "fill"] == "gal, she"


def test_fill_names_are_distinct_per_gender():
    names = fill_names(30)
    assert len(names["female"]) == len(names["male"]) == 30
    assert not set(names["female"]) & set(names["male"])
