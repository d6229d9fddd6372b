"""The rule-based coreference backend on hand-written sentences, one rule each (GAP-style cases). Each sentence
was checked to resolve differently without its rule."""
import re

from toolkit.nlp import resolve


def cluster_of(text: str, word: str) -> list[str]:
    """The mentions (as strings) of the cluster holding the first ``word`` (a whole word); [] when none does."""
    start = re.search(rf"\b{word}\b", text).start()
    for cluster in resolve([text])[0]:
        if any(a <= start < b for a, b in cluster):
            return [text[a:b] for a, b in cluster]
    return []


def test_a_pronoun_in_a_fronted_phrase_refers_forward_to_the_subject():
    text = ("Ayaan Hirsi Ali published a collection of essays. In his 2006 review of the collection, the journalist "
            "Christopher Hitchens praised the book.")
    assert "Christopher Hitchens" in cluster_of(text, "his")


def test_an_object_pronoun_is_not_the_noun_its_relative_clause_hangs_on():
    text = "Alan Wiggins impressed the scouts. The manager, Jack McKeon, who drafted him in 1980, praised his speed."
    assert cluster_of(text, "him") == ["Alan Wiggins", "him", "his"]


def test_an_object_pronoun_is_not_the_controller_of_its_infinitive():
    text = "Eleanor ran the abbey. She kept its books. Later Mary begged Eleanor to forgive her."
    assert cluster_of(text, "her") == ["Mary", "her"]


def test_a_possessive_coordinated_with_a_name_refers_to_it():
    text = "Davies was generous and she was rich. She supported Patricia and her husband Arthur."
    assert cluster_of(text, "her") == ["Patricia", "her"]


def test_a_surname_ner_missed_becomes_a_person_once_a_pronoun_joins_it():
    text = "Aguilar joined the band in 1999. He wrote most of its songs."
    assert cluster_of(text, "He") == ["Aguilar", "He"]


def test_an_unlinked_proper_noun_is_no_person():
    text = "Aguilar joined the band in 1999 and toured Peru."
    assert resolve([text])[0] == []


def test_a_name_after_an_article_or_in_lower_case_is_no_person():
    text = "He loves gore and horror movies and hopes to win an Oscar for this role."
    assert cluster_of(text, "He") == ["He"]
    assert [[text[a:b] for a, b in c] for c in resolve([text])[0]] == [["He"]]
