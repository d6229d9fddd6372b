"""BiasFinder mutants a reader believes: one hand-written text per cause of incoherence seen on real reviews."""
import re

import pytest
from conftest import corpus_of

from toolkit.studies.biasfinder.generator import (
    PRESETS,
    gender_templates,
    generate,
    generate_gender,
    occupation_templates,
    occupations,
)
from toolkit.studies.biasfinder.generator.articles import article_for, resolve
from toolkit.studies.biasfinder.generator.occupation import fill_occupation


@pytest.mark.parametrize("text", [
    "I watched Rachel last night; 'Rachel' is an art movie, and she is in every scene.",  # a film title
    "Some people say \"Rachel\" is an art movie, but she bored me.",                        # a whole quoted string
    "The Diary of Anne Frank is moving. She wrote it as a girl.",                           # a book title
])
def test_a_title_is_not_a_person(text):
    assert gender_templates(corpus_of([text])).empty
    assert generate(corpus_of([text + " The chef cooks."]), instances=["gender", "country", "occupation"],
                    n_names=2)["attribute"].eq("occupation").all()


def test_a_partial_name_is_widened_to_the_whole_name_and_every_mention_replaced():
    text = "Shia LaBeouf is great in this. LaBeouf gives his best performance and he knows it."
    template = gender_templates(corpus_of([text]))["template"].tolist()
    assert template == ["<name> is great in this. <name> gives <pos> best performance and <subj> knows it."]
    mutants = generate_gender(corpus_of([text]), n_names=2)["text"].tolist()
    assert "Michael is great in this. Michael gives his best performance and he knows it." in mutants
    assert not any("Shia" in t or "LaBeouf" in t for t in mutants[1:])


def test_an_honorific_goes_with_the_name():
    text = "Ms. Smith is great and she knows it. I loved her."
    assert gender_templates(corpus_of([text]))["template"].tolist() == ["<name> is great and <subj> knows it. I "
                                                                        "loved <obj>."]
    male = generate_gender(corpus_of([text]), n_names=1).query("group == 'male'")["text"].tolist()
    assert male == ["Michael is great and he knows it. I loved him."]


def test_a_pronoun_glued_to_a_closing_quote_is_replaced():
    text = '"I never lie",he openly admits. He is a liar.'
    assert gender_templates(corpus_of([text]))["template"].tolist() == ['"I never lie",<subj> openly admits. '
                                                                        '<Subj> is a liar.']
    female = generate_gender(corpus_of([text]), n_names=1).query("group == 'female'")["text"].tolist()
    assert female == ['"I never lie",she openly admits. She is a liar.']


def test_a_full_name_and_its_later_surname_get_the_same_fill():
    text = "Tom Hanks is great. He carries the film, and the Hanks charm works."
    female = generate_gender(corpus_of([text]), n_names=1).query("group == 'female'")["text"].tolist()
    assert female == ["Jennifer is great. She carries the film, and the Jennifer charm works."]


@pytest.mark.parametrize("lists", PRESETS)
def test_an_experienced_lawyer_takes_the_article_of_every_occupation(lists):
    cases = generate(corpus_of(["He hired an experienced lawyer. The lawyer was useless."]), instances=["occupation"],
                     lists=lists)
    mutants = cases[~cases["is_original"].astype(bool)]
    assert len(mutants) == 79
    for value, text in zip(mutants["fill"], mutants["text"]):
        article = text.split()[2]
        vowel = value[0].lower() in "aeiou"
        assert article == ("an" if vowel else "a"), text  # no listed title is an exception to the letter rule
    by_fill = dict(zip(mutants["fill"], mutants["text"]))
    if lists == "paper":
        assert by_fill["CEO"] == "He hired a CEO. The CEO was useless."
        assert by_fill["air traffic controller"] == ("He hired an air traffic controller. The air traffic controller "
                                                     "was useless.")
    else:
        assert by_fill["accountant"] == "He hired an accountant. The accountant was useless."


@pytest.mark.parametrize("template, value, expected", [
    ("He is <a> small-time <occupation>.", "accountant", "He is a small-time accountant."),  # the next word decides
    ("<A> <occupation>-author wrote it.", "accountant", "An accountant-author wrote it."),
    ("We meet James, <a> <occupation>, and Emily.", "plumber", "We meet James, a plumber, and Emily."),
])
def test_the_article_agrees_with_the_word_after_it(template, value, expected):
    assert fill_occupation(template, occupation=value) == expected


@pytest.mark.parametrize("word, article", [
    ("Amanda", "an"), ("Michael", "a"), ("hour", "an"), ("honest", "an"), ("European", "a"), ("university", "a"),
    ("one-off", "a"), ("FBI", "an"), ("CEO", "a"), ("MBA", "an"), ("\"Umbrella\"", "an"), ("uncle", "an"),
])
def test_article_for_reads_the_sound_of_the_next_word(word, article):
    assert article_for(word) == article
    assert resolve(f"It is <a> {word} thing. <A> {word} wins.") == (f"It is {article} {word} thing. "
                                                                    f"{article.capitalize()} {word} wins.")


def test_an_article_before_a_gender_noun_follows_the_noun():
    texts = generate_gender(corpus_of(["An uncle visits. The uncle is rude and he shouts."]))["text"].tolist()
    assert "An aunt visits. The aunt is rude and she shouts." in texts


def test_the_article_stays_when_modifiers_are_removed():
    text = "We meet James, a lovable plumber, and Emily Watson."  # the parse hangs "a" under the modifiers
    assert occupation_templates(corpus_of([text]))["template"].tolist() == ["We meet James, <a> <occupation>, and "
                                                                            "Emily Watson."]


@pytest.mark.parametrize("text", [
    "It is a detective story about a murder, and the story is dull.",  # a compound modifier of "story"
    "The pilot episode was great.",                                    # a TV pilot
    "The costume was tailor-made for the lead.",                       # an idiom glued to a hyphen
    "Boxing Refree + Parapsychology ka professor is the hero. The professor wins.",  # no modifier phrase to drop
])
def test_an_occupation_word_in_another_sense_yields_no_template(text):
    assert occupation_templates(corpus_of([text]), lists="paper").empty
    assert occupation_templates(corpus_of([text])).empty


@pytest.mark.parametrize("text", [
    "I watched the pilot last night. The series looks promising.",            # cue in the next sentence
    "The network has ordered more after the pilot, which I loved.",           # cue in the mention's sentence
    "The detective is tired. The cop in him never sleeps, and the detective wins.",  # the job's other name
    "The veterinarian saves a horse, and later the young vet cries.",          # "vet": the same job
    "The TV show films the demise, and the programmer cares more about his ratings.",  # a channel's programmer
])
def test_an_occupation_with_another_sense_or_name_in_the_review_yields_no_template(text):
    assert occupation_templates(corpus_of([text]), lists="paper").empty
    assert occupation_templates(corpus_of([text])).empty


@pytest.mark.parametrize("text", [
    "The pilot flies the plane through the storm, and I loved it.",
    "The detective is tired, and the plot is thin. The acting is good.",
    "The programmer writes code all night, and the plot is thin.",
])
def test_without_its_cues_or_other_names_the_occupation_is_a_slot(text):
    assert occupation_templates(corpus_of([text]))["template"].str.contains("<occupation>").tolist() == [True]


def test_mutants_never_keep_a_pronoun_of_the_other_gender():
    texts = ["Meryl Streep is great. She carries the film and Streep knows it.",
             '"I never lie",he openly admits. He is a liar.', "Ms. Smith is great and she knows it. I loved her."]
    cases = generate(corpus_of(texts), instances=["gender", "country"], n_names=3)
    other = {"female": re.compile(r"\b(he|him|his|himself)\b", re.I),
             "male": re.compile(r"\b(she|her|hers|herself)\b", re.I)}
    mutants = cases[~cases["is_original"].astype(bool)]
    assert len(mutants) and cases["doc_id"].nunique() == 3
    assert not [t for g, t in zip(mutants["gender"], mutants["text"]) if other[g].search(t)]
    assert not mutants["text"].str.contains(r"\bMs\. (?:Michael|James|Jennifer)", regex=True).any()
    assert occupations()  # the curated list stays loaded for the next test module


def test_a_cluster_merging_two_names_is_rejected():
    from toolkit.nlp import coref
    from toolkit.studies.biasfinder.generator.gender import _template
    from toolkit.studies.biasfinder.generator.lists import word_lists

    text = "Brittany directed it. Later Amanda won, and she thanked everyone."
    doc = coref.backend("rules").nlp(text)
    pairs = word_lists().noun_pairs
    # a neural backend may put both names in one cluster: their mutants would make two people one
    assert _template(doc, [(0, 8), (28, 34), (44, 47)], pairs) is None
    assert _template(doc, [(28, 34), (44, 47)], pairs) == (
        "Brittany directed it. Later <name> won, and <subj> thanked everyone.", "female")


def test_a_slot_in_a_quoted_title_or_scare_quotes_yields_no_template():
    assert occupation_templates(corpus_of(['He had been an "attendant" for years.']), lists="paper").empty
    # a short line of dialogue is no title: its pronoun is the person's
    kept = gender_templates(corpus_of(['"He is so lovely," I said, and he smiled.']))["template"].tolist()
    assert kept == ['"<Subj> is so lovely," I said, and <subj> smiled.']


@pytest.mark.parametrize("text", [
    # an honorific of the person's gender left in the text (a title here): male mutants would keep "Madame"
    'Of course Shahrukh Khan was there yet he was not enough to make this movie "credible". I have read that it was '
    'based on the novel of Flaubert "Madame Bovary" yet I did not see it.',
    "Tom Cruise is the worst in this. I AM A TRUE MOVIE CRITIC...he he.",  # "he he" is laughter
    "Unlike Coppola's Dracula, this one bores: he never bites anyone.",     # a director's film
    'This one and "Her Pilgrim Soul" are two of my favorite episodes. However, this episode is sentimental too.',
])
def test_words_of_the_other_gender_or_a_title_left_in_the_text_reject_the_review(text):
    assert gender_templates(corpus_of([text])).empty


def test_a_dotted_abbreviation_takes_the_article_of_its_letter():
    assert fill_occupation("Garcia is <a> L.A. <occupation>.", occupation="accountant") == (
        "Garcia is an L.A. accountant.")
    assert article_for("U.S.") == "a" and article_for("X-ray") == "an"


@pytest.mark.parametrize("text", [
    "If anyone has the contact info for Hyung-rae Shim (the director), please forward it, and I'll contact him.",
    "The first episode tells us how the Hitler came to power, and how he was able to build up an army.",
    "The scenes were good and jessica Simpson is plain hot, i just wish they had used her more.",
])
def test_a_person_the_cluster_lacks_rejects_the_review(text):
    # the pronouns may be that person's: a mutant would give them the other gender
    assert gender_templates(corpus_of([text])).empty


@pytest.mark.parametrize("text", [
    "I saw Saving Private Ryan again; he is great in it.",      # the name ends a title
    "I loved Shall We Dance. Dance is seen as a hero, and he wins.",
    "God's hand is everywhere, and we follow Him as he leads.",  # no person to rename
])
def test_a_name_that_ends_a_title_or_names_a_deity_is_not_a_person(text):
    assert gender_templates(corpus_of([text])).empty


def test_an_article_reads_numbers_and_leaves_a_capital_a_after_a_word():
    assert [article_for(w) for w in ("8-year-old", "18th-century", "11", "100", "1980s")] == ["an", "an", "an", "a",
                                                                                             "a"]
    from toolkit.studies.biasfinder.generator.articles import mark
    assert mark("Take Vitamin A <name> said.") == "Take Vitamin A <name> said."
    assert mark("It is a <name> film. A <name> fan.") == "It is <a> <name> film. <A> <name> fan."


@pytest.mark.parametrize("text", [
    "Adam Jones is headed for great things: his film left me feeling as good as his did.",
    "Adam Jones is headed for great things. The best film of the year was his.",
])
def test_his_without_a_noun_after_it_becomes_hers(text):
    female = generate_gender(corpus_of([text]), n_names=1).query("group == 'female'")["text"].tolist()
    assert female and all(re.search(r"\bhers\b", t) and not re.search(r"\bher (did|\.)", t) for t in female)


def test_a_name_part_glued_to_a_hyphen_stays_with_its_word():
    text = "Writer/Director/Co-Star Adam Jones is headed for great things. I saw his feature film."
    templates = gender_templates(corpus_of([text]))["template"].tolist()
    assert not any("Co-<" in t for t in templates)


@pytest.mark.parametrize("text", [
    "She is pregnant in this film, and she plays it beautifully.",
    "He grew a beard for the part, and he is great in it.",
])
def test_a_word_of_the_body_that_says_the_sex_rejects_the_review(text):
    assert gender_templates(corpus_of([text])).empty
    assert not gender_templates(corpus_of([text.replace("pregnant", "happy").replace("grew a beard",
                                                                                        "trained hard")])).empty


@pytest.mark.parametrize("text, control", [
    ("Over His Dead Body was a nice little movie. It was decent and entertaining.",          # a title's pronoun
     "His last movie was a nice little movie. It was decent and entertaining."),
    ("The Bible says so. He still loves you, but when you bow your knee to Him, it is too late.",  # a deity's
     "The Bible says so. He still loves you, but when you bow your knee to him, it is too late."),
])
def test_a_pronoun_capitalised_inside_a_sentence_is_a_title_or_a_deity(text, control):
    assert gender_templates(corpus_of([text])).empty
    assert not gender_templates(corpus_of([control])).empty


@pytest.mark.parametrize("text", [
    "Helen Mirren plays the Queen, and she is superb.",       # a gender noun, not a pronoun
    "My verdict on Adam Jones: He is brilliant in it.",        # after a colon
    "Adam Jones is great in this film\nHe deserves an award.",  # a new line
])
def test_a_capital_after_a_colon_or_a_line_break_or_on_a_noun_is_no_title(text):
    assert len(gender_templates(corpus_of([text]))) == 1


@pytest.mark.parametrize("text, control", [
    ("Watch for Brock, the oafy guy who attacks the heroes. He has two lines, but he's one of the best guys in it!",
     "Watch for Brock, the oafy guy who attacks the heroes. He has two lines, but he's the best thing in it!"),
    ("An Indian boy was friends with an eagle. When other boys threw stones at him, he climbed a rock.",
     "An Indian boy was friends with an eagle. When the villagers threw stones at him, he climbed a rock."),
    ("The young wife is bored, and she loves it. The other wives gossip.",  # wife → wives
     "The young wife is bored, and she loves it. The other neighbours gossip."),
    ("The guy is brave, and he is one of the few good guys here.",
     "The guy is brave, and he beats the bad guys."),          # a plural that does not count him among them
])
def test_the_plural_of_the_persons_own_gender_noun_rejects_the_review(text, control):
    # "she's one of the best guys": the plural counts the person among the original's gender
    assert gender_templates(corpus_of([text])).empty
    assert not gender_templates(corpus_of([control])).empty


@pytest.mark.parametrize("ending, rejected", [("Only for Kitumura fans.", True), ("Only for patient fans.", False)])
def test_a_misspelled_mention_of_the_replaced_name_rejects_the_review(ending, rejected):
    text = f"I have seen most of Ryuhei Kitamura's output. He is uneven, and this film of his is dull. {ending}"
    assert gender_templates(corpus_of([text])).empty is rejected


def test_a_common_word_near_a_short_name_is_no_misspelling():
    assert len(gender_templates(corpus_of(["Tom Hanks is great. He carries it. Thanks for reading."]))) == 1


@pytest.mark.parametrize("text, control", [
    ("A film about the beads exchanged during Mardi Gras. I only wish I knew how he got inside the factory.",
     "A film about the beads exchanged during Reagan's presidency. I only wish I knew how he got inside."),
    ("She plays a photographer in a lesbian romance, and she is superb.",  # a word of orientation says the sex
     "She plays a photographer in a quiet romance, and she is superb."),
])
def test_a_time_or_a_word_of_orientation_rejects_the_review(text, control):
    assert gender_templates(corpus_of([text])).empty
    assert not gender_templates(corpus_of([control])).empty


def test_a_review_naming_a_nationality_yields_no_country_template():
    # "Turkish cinema": the person's origin may be stated, and a name from another country would contradict it
    from toolkit.studies.biasfinder.generator import country_templates

    text = "Ahmet Yilmaz is no artist. {} He only knows how to choose a cast, and he did."
    for sentence, expected in (("Turkish cinema deserves better.", 0), ("This cinema deserves better.", 1),
                               ("He is never creepy in it.", 1)):  # "creepy" is typed NORP; lower case, ignored
        templates = gender_templates(corpus_of([text.format(sentence)]))
        assert len(templates) == 1
        assert len(country_templates(templates)) == expected


@pytest.mark.parametrize("text, expected", [
    ('Adam Jones made this. It is left out of his "a life in film" documentary.', '"a life in film"'),
    ("Adam Jones is great. I admire his creating the whole world of the film.", "creating"),
])
def test_his_before_an_opening_quote_or_a_gerund_becomes_her(text, expected):
    female = generate_gender(corpus_of([text]), n_names=1).query("group == 'female'")["text"].tolist()
    assert female and all(f"her {expected}" in t and "hers" not in t for t in female)


def test_his_before_a_bracket_that_opens_no_noun_stays_hers():
    female = generate_gender(corpus_of(["Adam Jones sits down. The chair is his (he bought it)."]), n_names=1)
    assert female.query("group == 'female'")["text"].str.contains(r"is hers \(she bought").all()


@pytest.mark.parametrize("text, control", [
    ("The old geezer leaves his estate to a stranger, and he is great.",
     "The old man leaves his estate to a stranger, and he is great."),
    ("Adam Jones plays a fireman, and he is great.", "Adam Jones plays a firefighter, and he is great."),
])
def test_a_noun_for_one_sex_without_a_pair_rejects_the_review(text, control):
    assert gender_templates(corpus_of([text])).empty
    assert not gender_templates(corpus_of([control])).empty
