"""BiasFinder coherence rules: every filter or repair this project added to BiasFinder's generator, named, in one
registry (issue 25; their history and readings: ``docs/biasfinder_imdb_train.md``; the table:
``docs/biasfinder_rules.md``).

``generate(..., coherence=...)`` picks the active set (:func:`active`): ``"default"`` (every rule: the generator as
it was before the rules had names, byte for byte), ``"paper"`` (none: BiasFinder's generator as this toolkit runs
it) or an iterable of rule names. An unknown name is TK103 listing the valid ones.

What is *not* a rule (BiasFinder's generator itself, always on): coreference with exactly one person cluster per
review (under ``coherence="paper"`` BiasFinder's own test, :mod:`.paper`, with ``backend="neuralcoref"`` the model
it ran; otherwise this project's acceptance on the ``rules`` backend, where reviews holding both genders' pronouns
never give one),
the slots of names, pronouns (typed by the parse) and the preset's gender nouns (a noun the preset cannot swap
rejects the review), the country template reproducing the review around the names with no word of a replaced name
left, and the occupation instance's one listed occupation per review, as a singular common noun outside a named
entity, with its adjectival and compound modifiers removed.

Each :class:`Rule` has a name, the instances (stages) it acts in, what it rejects (or, for a ``repair``, what it
changes), the example that motivated it and the test that holds it. A ``reject`` rule removes a review's template;
the generation report counts, per stage and rule, the reviews each rejected (the first active rule that rejects,
in the order below). A ``repair`` rule rewrites the template instead and is not counted.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from toolkit.errors import unknown

PRESETS = ("default", "paper")


@dataclass(frozen=True)
class Rule:
    """One coherence rule: ``kind`` is 'reject' (the review yields no template in ``instances``) or 'repair' (the
    template is rewritten); ``where`` names the function that implements it."""

    name: str
    instances: tuple[str, ...]
    kind: str
    rejects: str
    example: str
    test: str
    where: str


_G, _GC, _O, _ALL = ("gender", "country"), ("gender", "country"), ("occupation",), ("gender", "country", "occupation")
_COH = ""  # each test is set from _TESTS below

RULES: dict[str, Rule] = {rule.name: rule for rule in (
    Rule("title_quote", _GC, "reject", "a person mention inside a short quoted string that reads as a title",
         "This one and \"Her Pilgrim Soul\" are two of my favorite episodes.", _COH, "gender._template"),
    Rule("title_name", _GC, "reject",
         "a name that reads as a title, work, organisation or time: a short quote, after watched/film/movie or a "
         "director's \"'s\", a WORK_OF_ART/PRODUCT/EVENT entity, an adjective, \"The Diary of Anne …\", \"Saving "
         "Private Ryan\", \"during Mardi Gras\"",
         "I saw Saving Private Ryan again; he is great in it.", _COH, "gender._title_like, gender._after_title_word"),
    Rule("deity", _GC, "reject", "a deity or prophet taken for the person (God, Jesus, Allah …)",
         "Jesus walks on water, and he smiles at us.", _COH, "gender._NOT_A_PERSON"),
    Rule("whole_name", _GC, "repair",
         "widens a name mention over the capitalised proper nouns and honorifics beside it (off: the coreference "
         "span only)", "Shia LaBeouf is great in this. LaBeouf gives his best performance.", _COH,
         "gender._whole_name"),
    Rule("other_person", _GC, "reject",
         "a person the cluster lacks: a PERSON entity outside it, a first name in lower case, an untyped run of "
         "proper nouns with a first name or hyphen (the pronouns may be theirs)",
         "If anyone has the contact info for Hyung-rae Shim (the director), please forward it, and I'll contact "
         "him.", _COH, "gender._other_person"),
    Rule("title_cased_pronoun", _GC, "reject", "a pronoun capitalised inside a sentence: a title's or a deity's",
         "Over His Dead Body was a nice little movie.", _COH, "gender._title_cased_pronoun"),
    Rule("stray_pronoun", _GC, "reject", "a gendered pronoun left outside the slots (another person's)",
         "Adam Jones is great, and he knows it. (a cluster without \"he\", as a neural backend may give)", _COH,
         "gender._PRONOUN"),
    Rule("honorific", _GC, "reject", "an honorific before a name outside the slots (its gender stays)",
         "… the novel of Flaubert \"Madame Bovary\" yet I did not see it.", _COH, "gender._HONORIFIC_BEFORE_NAME"),
    Rule("sex_specific", _GC, "reject",
         "a word of the body, orientation or a one-sex noun without a pair anywhere in the review",
         "She is pregnant in this film, and she plays it beautifully.", _COH, "gender._sex_specific"),
    Rule("own_noun_plural", _GC, "reject", "the person counted among the plural of their own gender noun",
         "The guy is brave, and he is one of the few good guys here.", _COH, "gender._own_noun_plural"),
    Rule("repeated_slot", _GC, "reject", "a pronoun slot repeated (\"he he\" is laughter)",
         "Tom Cruise is the worst in this. I AM A TRUE MOVIE CRITIC...he he.", _COH, "gender._REPEATED_SLOT"),
    Rule("merged_names", _GC, "reject", "two names of the cluster sharing no word (two people merged)",
         "Brittany directed it. Later Amanda won, and she thanked everyone.", _COH, "gender._template"),
    Rule("name_left", _GC, "reject", "a word of a replaced name surviving outside the slots",
         "Tom Hanks is great. Hanks knows it, and he shows it. (a cluster missing the second \"Hanks\")", _COH,
         "gender._template"),
    Rule("misspelled_name", _GC, "reject", "a misspelling of a replaced name outside the slots",
         "I have seen most of Ryuhei Kitamura's output. … Only for Kitumura fans.", _COH,
         "gender._misspelled_mention"),
    Rule("nationality", ("country",), "reject",
         "a nationality, religion or people named (a capitalised NORP entity not part of the name)",
         "Ahmet Yilmaz is no artist. Turkish cinema deserves better.", _COH, "country._nationality"),
    Rule("article_agreement", _ALL, "repair",
         "an a/an before a slot becomes <a> and agrees with the fill (off: the review's article stays)",
         "He hired an experienced lawyer. (→ \"a plumber\", not \"an plumber\")", _COH, "articles.mark"),
    Rule("occupation_other_name", _O, "reject", "the job also called by another name in the review",
         "The detective is tired. The cop in him never sleeps, and the detective wins.", _COH,
         "occupation._named_otherwise"),
    Rule("occupation_not_person", _O, "reject",
         "the occupation word as a noun's compound modifier or glued to a hyphen (no person)",
         "It is a detective story about a murder, and the story is dull.", _COH, "occupation._a_person"),
    Rule("occupation_sense", _O, "reject", "a non-person sense cued in the sentence or the ones either side",
         "I watched the pilot last night. The series looks promising.", _COH, "occupation._other_sense"),
    Rule("occupation_in_quotes", _O, "reject", "the occupation inside a quote of at most three words",
         "He had been an \"attendant\" for years.", _COH, "occupation._edits"),
    Rule("modifier_phrase", _O, "reject", "a modifier phrase to remove of more than four tokens or not words",
         "Boxing Refree + Parapsychology ka professor is the hero.", _COH, "occupation._edits"),
    Rule("keep_determiner", _O, "repair",
         "determiners, possessives and numbers the parse hangs under a removed modifier stay",
         "One of them, maybe the only one worth redemption enlists the aid of the company pilot to help her … "
         "(off: \"the aid of pilot\")", _COH, "occupation._edits"),
)}
# each rule's test in tests/test_biasfinder_rules.py (the readings' cases: test_generators_biasfinder_coherence.py)
_GENDER_TEST = "test_a_gender_rule_rejects_its_example_and_lets_it_through_when_off[{}]"
_OCCUPATION_TEST = "test_an_occupation_rule_rejects_its_example_and_lets_it_through_when_off[{}]"
_CLUSTER_TEST = "test_a_rule_for_a_cluster_a_neural_backend_may_give[{}]"
_TESTS = {
    **{name: _GENDER_TEST for name in ("title_quote", "title_name", "deity", "other_person", "title_cased_pronoun",
                                       "honorific", "sex_specific", "own_noun_plural", "repeated_slot",
                                       "misspelled_name")},
    **{name: _CLUSTER_TEST for name in ("stray_pronoun", "merged_names", "name_left")},
    **{name: _OCCUPATION_TEST for name in ("occupation_other_name", "occupation_not_person", "occupation_sense",
                                           "occupation_in_quotes", "modifier_phrase")},
    "whole_name": "test_whole_name_widens_the_name_and_off_keeps_the_coreference_span",
    "nationality": "test_the_nationality_rule_rejects_a_country_template_only_when_on",
    "article_agreement": "test_article_agreement_off_keeps_the_reviews_article",
    "keep_determiner": "test_keep_determiner_keeps_an_article_the_parse_hangs_under_a_removed_modifier",
}
RULES = {name: replace(rule, test=f"tests/test_biasfinder_rules.py::{_TESTS[name].format(name)}")
         for name, rule in RULES.items()}
DEFAULT = frozenset(RULES)


def active(coherence: str | Iterable[str] = "default") -> frozenset[str]:
    """The active rule names: ``"default"`` (all of :data:`RULES`), ``"paper"`` (none) or an iterable of names
    (TK103 for an unknown one, listing the valid names and presets)."""
    if isinstance(coherence, str):
        if coherence == "default":
            return DEFAULT
        if coherence == "paper":
            return frozenset()
        if coherence in RULES:
            return frozenset({coherence})
        raise unknown("coherence rule or preset", coherence, (*PRESETS, *RULES))
    names = frozenset(coherence)
    for name in sorted(names):
        if not isinstance(name, str) or name not in RULES:
            raise unknown("coherence rule", str(name), RULES)
    return names


def label(rules: frozenset[str]) -> str:
    """'default', 'paper' or 'custom' for an active set."""
    return "default" if rules == DEFAULT else "paper" if not rules else "custom"


def record(rules: frozenset[str]) -> dict:
    """What provenance stores: the preset label and the active rules in registry order."""
    return {"preset": label(rules), "rules": [name for name in RULES if name in rules],
            "off": [name for name in RULES if name not in rules]}


def table() -> list[dict]:
    """The registry as rows (name, instances, kind, rejects, example, test, where), for docs and notebooks."""
    return [{"name": r.name, "instances": ", ".join(r.instances), "kind": r.kind, "rejects": r.rejects,
             "example": r.example, "test": r.test, "where": r.where} for r in RULES.values()]
