"""BiasFinder's gender instance (Asyrofi et al. 2021, Algorithm 1).

Keep a review when coreference finds exactly one person cluster in it; in that cluster replace the names with
``<name>``, each gendered pronoun with a typed slot — subject ``<subj>``, object ``<obj>``, possessive determiner
``<pos>`` ("her book"), possessive pronoun ``<poss>`` ("the win was hers"), reflexive ``<refl>``; object and
possessive "her" are told apart by spaCy's parse — and each gender noun with ``<noun:MALE-FORM>``. A slot written
with a capital (``<Subj>``) is filled capitalised, one in capitals (``<SUBJ>``) in capitals. Fill every template with
``n`` female and ``n`` male first names and the agreeing forms; a template without ``<name>`` gets one mutant per
gender. Under ``noun_fills="all"`` (BiasFinder's) a template with a gender noun gets one per noun of the mutant's
gender, times the names.

Word lists (``lists=``, :mod:`.lists`): ``curated`` (default; 31 noun pairs, first names used for one gender only)
or ``paper`` (BiasFinder's released 11 noun pairs and 30 + 30 names). Coreference knows the curated nouns; a
cluster holding a gender noun the chosen preset has no pair for (e.g. "actress" under ``paper``) is rejected, since
its mutants would keep that word in the other gender.

Coherence (each rule fixes a defect seen when reading mutants of real reviews; each is a named switch in
:mod:`.rules`, ``rules=`` the active set, all by default, none for ``coherence="paper"``): a name mention is widened
over the capitalised proper nouns and honorifics next to it ("Shia LaBeouf" when NER found "LaBeouf"; "Ms. Smith", so no
"Ms. Michael"); an article before a slot becomes ``<a>`` and agrees with the fill (:mod:`.articles`). A review is
rejected when a "name" reads as a title or people (:func:`_title_like`: a short quoted string, right after
watched/film/movie, a WORK_OF_ART, an adjective, "The Diary of Anne …", "Saving Private Ryan", God), when two names
of the cluster share no word (two people merged), when the review names a person the cluster lacks (a PERSON
entity outside it, a first name in lower case: the pronouns may be theirs), when a gendered pronoun or a word of
a replaced name, or a misspelling of one ("Kitamura … Kitumura fans"), would survive outside the slots, when a
pronoun is capitalised inside a sentence (a title's or a deity's: "Over His Dead Body", "bow your knee to Him"),
when the plural of the person's own gender noun counts them among that gender ("the oafy guy … one of the best
guys"), when a word of the body or of orientation, or a noun for one sex without a pair ("dude", "fireman"),
says the original's sex ("pregnant", "beard", "lesbian"; ``sex_specific`` in
``toolkit/resources/gender_nouns.json``; anywhere in the review, so also about someone else). A name right after
"during" is a time ("during Mardi Gras"), unless a possessive follows ("during Reagan's presidency").

Output: the case table (one case per template; ``group`` = female|male; ``fill`` = the name, or the forms used, or
for a name crossed with another noun than the own pair "name, noun" ("Harry, boy"); the review itself as
``is_original``) with ``gender``, ``doc_id``, ``corpus``, ``fill_flag`` and ``noun_fill`` columns.
"""
from __future__ import annotations

import re
from collections import Counter
from functools import cache

import pandas as pd

import toolkit.studies.biasfinder.generator.rules as registry
from toolkit import executors
from toolkit.errors import InputError, unknown
from toolkit.nlp import coref
from toolkit.nlp import pipeline as nlp_layer
from toolkit.resources import load_json
from toolkit.studies.biasfinder.generator import articles
from toolkit.studies.biasfinder.generator.lint import fill_flags, joined_flags
from toolkit.studies.biasfinder.generator.lists import word_lists, word_pattern
from toolkit.studies.biasfinder.generator.people import KnownNames, identified, known_names, people_mode
from toolkit.studies.biasfinder.generator.quotes import inside_short_quote
from toolkit.studies.biasfinder.generator.rules import CLUSTER_TEST, GC, GENDER_TEST, rule

FORMS = {
    "female": {"subj": "she", "obj": "her", "pos": "her", "poss": "hers", "refl": "herself"},
    "male": {"subj": "he", "obj": "him", "pos": "his", "poss": "his", "refl": "himself"},
}
_PREFILTER = re.compile(r"\b(he|she|him|her|his|hers|himself|herself)\b", re.IGNORECASE)
_SLOT = re.compile(r"<(name|subj|obj|pos|poss|refl|noun:[^>]+)>", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(he|she|him|her|his|hers|himself|herself)\b", re.IGNORECASE)
_NAME_WORD = re.compile(r"[A-Z][\w'’-]+")
_HONORIFIC_BEFORE_NAME = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Mister|Madam|Madame|Sir|Dame|Lady|Lord)\.?\s+[A-Z]")
_REPEATED_SLOT = re.compile(r"<(subj|obj|pos|poss|refl)>[\s.,!]{1,3}<\1>", re.IGNORECASE)
_HONORIFICS = frozenset({"mr", "mrs", "ms", "miss", "sir", "dame", "lady", "lord", "dr", "Mr", "Mrs", "Ms", "Miss",
                         "Sir", "Dame", "Lady", "Lord", "Dr"})
_TITLE_CUES = frozenset({"watched", "watch", "watching", "saw", "see", "seen", "film", "movie", "show", "series",
                         "sequel", "remake", "titled", "episode"})
_NOT_PEOPLE = frozenset({"WORK_OF_ART", "LANGUAGE", "PRODUCT", "EVENT", "LAW"})
_NOT_A_PERSON = frozenset({"god", "jesus", "christ", "jesus christ", "allah", "buddha", "satan", "lucifer", "moses",
                           "krishna", "muhammad", "mohammed"})  # a swapped name reads as a blasphemy or a joke


def fill_names(n: int = 30, *, lists: str = "curated") -> dict[str, list[str]]:
    """The first ``n`` names of each gender in the ``lists`` preset (curated: the most frequent first names of each
    gender in Faker's en_US lists that the other gender lacks; paper: BiasFinder's 30 + 30)."""
    names = word_lists(lists).names
    out = {}
    for gender in ("female", "male"):
        if len(names[gender]) < n:
            raise InputError(f"only {len(names[gender])} {gender} names in the {lists!r} lists, asked for {n}.",
                             fix=f"use n_names of at most {len(names[gender])}.")
        out[gender] = list(names[gender][:n])
    return out


def _slot(doc, start: int, end: int, pairs: tuple[tuple[str, str], ...]) -> str | None:
    """The slot for one cluster mention; None for a gender noun the preset's ``pairs`` cannot swap."""
    span = doc.char_span(start, end, alignment_mode="expand")
    text = doc.text[start:end]
    if span is not None and len(span) == 1 and span[0].lower_ in coref.PRONOUN_GENDER:
        kind = coref.pronoun_slot(span[0])
    elif text.lower() in coref.gender_nouns():
        male = next((m for m, f in pairs if text.lower() in (m, f)), None)
        if male is None:
            return None
        kind = f"noun:{male}"
    else:
        return "<name>"
    return f"<{kind[0].upper() + kind[1:]}>" if text[0].isupper() else f"<{kind}>"


def gender_templates(corpus: pd.DataFrame, *, backend: str = "rules", n_process: int = 1, lists: str = "curated",
                     rules: frozenset[str] | None = None, people: str | KnownNames = "mutate",
                     rejected: dict | None = None) -> pd.DataFrame:
    """Templates from the reviews of ``corpus`` (a :func:`toolkit.corpora.load` frame) with exactly one person
    cluster whose gender nouns the ``lists`` preset can swap, under the active coherence ``rules``
    (:mod:`.rules`; None: all) and the ``people`` option (:mod:`.people`; ``"skip-known"`` counts fame over ``corpus`` unless
    given a :class:`~.people.KnownNames`). Columns: ``doc_id, corpus, text, template, gender``
    (the original's, from its pronouns or nouns); ``rejected`` (a dict, filled): reviews rejected per rule.
    Parses stream (memory stays flat); ``n_process`` > 1 parses in that many processes
    (:func:`toolkit.executors.parse`: workers that stop on Ctrl-C or SIGTERM)."""
    if people_mode(people) == "skip-known" and not isinstance(people, KnownNames):
        people = known_names(corpus["text"])  # fame counted over these reviews (generate() counts over the corpus)
    rules = _all_rules() if rules is None else rules
    candidates = corpus[corpus["text"].map(lambda t: _PREFILTER.search(t) is not None)]
    texts = candidates["text"].tolist()
    resolver = coref.backend(backend)
    if backend == "rules":  # one parse serves coreference and the slots
        parsed = ((doc, resolver.resolve_docs([doc])[0])
                  for doc in executors.parse(resolver.nlp, texts, batch_size=64, n_process=n_process))
    else:
        parsed = zip(executors.parse(nlp_layer.load_pipeline(), texts, batch_size=64, n_process=n_process),
                     resolver.resolve(texts))
    pairs = word_lists(lists).noun_pairs
    rows, reasons = [], Counter()
    for row, (doc, found) in zip(candidates.itertuples(index=False), parsed):
        made = _template_or_reason(doc, found[0], pairs, rules, people) if len(found) == 1 else ""
        if isinstance(made, str):
            if made:
                reasons[made] += 1
            continue
        rows.append({"doc_id": row.doc_id, "corpus": row.corpus, "text": row.text, "template": made[0],
                     "gender": made[1]})
    if rejected is not None:
        rejected.update(reasons)
    return pd.DataFrame(rows, columns=["doc_id", "corpus", "text", "template", "gender"])


def _template(doc, cluster: list[tuple[int, int]], pairs: tuple[tuple[str, str], ...], *,
              rules: frozenset[str] | None = None, people: str = "mutate") -> tuple[str, str] | None:
    """(template, the original's gender) for a review's one person cluster, or None to reject the review (see the
    module docstring and :mod:`.rules`; ``rules`` None: all)."""
    made = _template_or_reason(doc, cluster, pairs, _all_rules() if rules is None else rules, people)
    return None if isinstance(made, str) else made


def _template_or_reason(doc, cluster: list[tuple[int, int]], pairs: tuple[tuple[str, str], ...],
                        rules: frozenset[str], people: str) -> tuple[str, str] | str:
    """(template, gender), or the name of the active rule that rejects the review ('' for BiasFinder's own
    rejection: a gender noun the preset cannot swap; 'people:<signal>' for the ``people`` option)."""
    slots = [_slot(doc, start, end, pairs) for start, end in cluster]
    if None in slots:
        return ""
    spans = []
    for (start, end), slot in zip(cluster, slots):
        if _title_quote(doc, start, end, rules=rules):
            return "title_quote"  # "'His Pilgrim Soul'": a title, whatever the slot
        if slot == "<name>":
            if _reads_as_title(doc, start, end, rules=rules):
                return "title_name"
            start, end = _widened_name(doc, start, end, rules=rules)
            if _ends_a_title(doc, start, end, rules=rules):
                return "title_name"  # "Saving Private Ryan", "Shall We Dance"
            if _deity(doc, start, end, rules=rules):
                return "deity"  # "God's hand"
        if spans and start < spans[-1][1]:  # a widened name reaching into the previous mention
            if slot != "<name>" or spans[-1][2] != "<name>":
                return "whole_name"
            start = spans.pop()[0]
        spans.append((start, end, slot))
    if _person_outside(doc, spans, rules=rules):
        return "other_person"
    if _any_title_cased_pronoun(doc, spans, rules=rules):
        return "title_cased_pronoun"  # "Over His Dead Body", "bow your knee to Him": a title or God, not the person
    template, original_gender, last = [], "", 0
    for start, end, slot in spans:
        if slot != "<name>":
            word = doc.text[start:end].lower()
            original_gender = original_gender or coref.PRONOUN_GENDER.get(word) or coref.gender_nouns()[word]
        template += [doc.text[last:start], slot]
        last = end
    template.append(doc.text[last:])
    literal = "".join(template[0::2])
    if _stray_pronoun(literal, rules=rules):
        return "stray_pronoun"  # a pronoun outside the slots: a person the cluster lacks
    if _honorific(literal, rules=rules):
        return "honorific"  # an honorific before a name of either gender ("Mr. Smith", "Madame Bovary")
    if _says_sex(literal, rules=rules):
        return "sex_specific"  # "pregnant", "her cleavage": every mutant would keep the original's sex
    if _counted_in_own_plural(doc, spans, literal, rules=rules):
        return "own_noun_plural"  # "one of the best guys", "other boys threw stones at him"
    if _repeated_slot("".join(template), rules=rules):
        return "repeated_slot"  # "he he" is laughter, not two mentions
    names = [words for start, end, slot in spans if slot == "<name>"
             if (words := set(_NAME_WORD.findall(doc.text[start:end])) - _HONORIFICS)]
    if _merged_names(names, rules=rules):
        return "merged_names"  # "Brittany … Jatin" in one cluster: two people merged, whose mutants would become one
    replaced = {w for start, end, slot in spans if slot == "<name>" for w in _NAME_WORD.findall(doc.text[start:end])}
    if _name_left(replaced - _HONORIFICS, literal, rules=rules):
        return "name_left"  # "Hanks knows it" after "Tom Hanks": a mention the cluster missed would survive
    if _misspelled(replaced - _HONORIFICS, literal, rules=rules):
        return "misspelled_name"  # "Kitamura … Kitumura fans": the same person, misspelled
    signal = identified(doc, [(start, end) for start, end, slot in spans if slot == "<name>"], mode=people,
                        outside=literal)
    if signal:
        return f"people:{signal}"  # a person the review identifies (a full name; an actor beside a role …)
    made = "".join(template)
    return articles.agree(made, rules=rules), original_gender


def _all_rules() -> frozenset[str]:
    return registry.DEFAULT  # read off the registry when called, once every rule module has registered


@rule("title_quote", instances=GC, test=GENDER_TEST,
      rejects="a person mention inside a short quoted string that reads as a title",
      example="This one and \"Her Pilgrim Soul\" are two of my favorite episodes.")
def _title_quote(doc, start: int, end: int) -> bool:
    return inside_short_quote(doc.text, start, end, title_case=True)  # "'His Pilgrim Soul'": a title


@rule("title_name", instances=GC, test=GENDER_TEST,
      rejects="a name that reads as a title, work, organisation or time: a short quote, after watched/film/movie or "
              "a director's \"'s\", a WORK_OF_ART/PRODUCT/EVENT entity, an adjective, \"The Diary of Anne …\", "
              "\"Saving Private Ryan\", \"during Mardi Gras\"",
      example="I saw Saving Private Ryan again; he is great in it.")
def _reads_as_title(doc, start: int, end: int) -> bool:
    return _title_like(doc, start, end)


@rule("title_name")
def _ends_a_title(doc, start: int, end: int) -> bool:
    return _after_title_word(doc, start) or _title_like(doc, start, end)  # "Saving Private Ryan", "Shall We Dance"


@rule("deity", instances=GC, test=GENDER_TEST, rejects="a deity or prophet taken for the person (God, Jesus, Allah …)",
      example="Jesus walks on water, and he smiles at us.")
def _deity(doc, start: int, end: int) -> bool:
    return doc.text[start:end].lower() in _NOT_A_PERSON  # "God's hand"


@rule("whole_name", instances=GC, kind="repair",
      test="tests/test_biasfinder_rules.py::test_whole_name_widens_the_name_and_off_keeps_the_coreference_span",
      rejects="widens a name mention over the capitalised proper nouns and honorifics beside it (off: the "
              "coreference span only)",
      example="Shia LaBeouf is great in this. LaBeouf gives his best performance.",
      unchanged=lambda doc, start, end: (start, end))
def _widened_name(doc, start: int, end: int) -> tuple[int, int]:
    return _whole_name(doc, start, end)


@rule("other_person", instances=GC, test=GENDER_TEST,
      rejects="a person the cluster lacks: a PERSON entity outside it, a first name in lower case, an untyped run of "
              "proper nouns with a first name or hyphen (the pronouns may be theirs)",
      example="If anyone has the contact info for Hyung-rae Shim (the director), please forward it, and I'll "
              "contact him.")
def _person_outside(doc, spans: list[tuple[int, int, str]]) -> bool:
    return _other_person(doc, spans)


@rule("title_cased_pronoun", instances=GC, test=GENDER_TEST,
      rejects="a pronoun capitalised inside a sentence: a title's or a deity's",
      example="Over His Dead Body was a nice little movie.")
def _any_title_cased_pronoun(doc, spans: list[tuple[int, int, str]]) -> bool:
    # "Over His Dead Body", "bow your knee to Him": a title or God, not the person
    return any(_title_cased_pronoun(doc, start, end, slot) for start, end, slot in spans)


@rule("stray_pronoun", instances=GC, test=CLUSTER_TEST,
      rejects="a gendered pronoun left outside the slots (another person's)",
      example="Adam Jones is great, and he knows it. (a cluster without \"he\", as a neural backend may give)")
def _stray_pronoun(literal: str) -> bool:
    return _PRONOUN.search(literal) is not None  # a pronoun outside the slots: a person the cluster lacks


@rule("honorific", instances=GC, test=GENDER_TEST,
      rejects="an honorific before a name outside the slots (its gender stays)",
      example="… the novel of Flaubert \"Madame Bovary\" yet I did not see it.")
def _honorific(literal: str) -> bool:
    return _HONORIFIC_BEFORE_NAME.search(literal) is not None  # "Mr. Smith", "Madame Bovary"


@rule("sex_specific", instances=GC, test=GENDER_TEST,
      rejects="a word of the body, orientation or a one-sex noun without a pair anywhere in the review",
      example="She is pregnant in this film, and she plays it beautifully.")
def _says_sex(literal: str) -> bool:
    return _sex_specific().search(literal) is not None  # "pregnant", "her cleavage": every mutant keeps the sex


@rule("own_noun_plural", instances=GC, test=GENDER_TEST,
      rejects="the person counted among the plural of their own gender noun",
      example="The guy is brave, and he is one of the few good guys here.")
def _counted_in_own_plural(doc, spans: list[tuple[int, int, str]], literal: str) -> bool:
    return _own_noun_plural(doc, spans, literal)  # "one of the best guys", "other boys threw stones at him"


@rule("repeated_slot", instances=GC, test=GENDER_TEST, rejects="a pronoun slot repeated (\"he he\" is laughter)",
      example="Tom Cruise is the worst in this. I AM A TRUE MOVIE CRITIC...he he.")
def _repeated_slot(template: str) -> bool:
    return _REPEATED_SLOT.search(template) is not None  # "he he" is laughter, not two mentions


@rule("merged_names", instances=GC, test=CLUSTER_TEST,
      rejects="two names of the cluster sharing no word (two people merged)",
      example="Brittany directed it. Later Amanda won, and she thanked everyone.")
def _merged_names(names: list[set[str]]) -> bool:
    return any(not a & b for a in names for b in names)  # two people merged, whose mutants would become one


@rule("name_left", instances=GC, test=CLUSTER_TEST, rejects="a word of a replaced name surviving outside the slots",
      example="Tom Hanks is great. Hanks knows it, and he shows it. (a cluster missing the second \"Hanks\")")
def _name_left(replaced: set[str], literal: str) -> bool:
    # "Hanks knows it" after "Tom Hanks": a mention the cluster missed would survive
    return any(re.search(rf"\b{re.escape(w)}\b", literal) for w in replaced)


@rule("misspelled_name", instances=GC, test=GENDER_TEST,
      rejects="a misspelling of a replaced name outside the slots",
      example="I have seen most of Ryuhei Kitamura's output. … Only for Kitumura fans.")
def _misspelled(replaced: set[str], literal: str) -> bool:
    return _misspelled_mention(replaced, literal)  # "Kitamura … Kitumura fans": the same person, misspelled


def _whole_name(doc, start: int, end: int) -> tuple[int, int]:
    """The character span of a name mention widened over the capitalised proper nouns and honorifics around it:
    "Shia LaBeouf" when NER found only "LaBeouf", "Ms. Smith" (the honorific goes with the name: no "Ms. James")."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return start, end
    first, last = span.start, span.end - 1
    while first > 0 and _name_part(doc[first - 1]) and doc[first - 1].whitespace_ and not _hyphenated(doc, first - 1):
        first -= 1
    while first < last and _hyphenated(doc, first):  # "Co-Star Adam Jones": "Star" belongs to "Co-"
        first += 1
    while last + 1 < len(doc) and _name_part(doc[last + 1]) and doc[last].whitespace_:
        last += 1
    return doc[first].idx, doc[last].idx + len(doc[last].text)


@cache
def _sex_specific() -> re.Pattern:
    return word_pattern(load_json("gender_nouns")["sex_specific"])


def _title_cased_pronoun(doc, start: int, end: int, slot: str) -> bool:
    """Whether a pronoun mention is capitalised inside a sentence ("Over His Dead Body", "bow your knee to Him"): a
    title's word or a deity's pronoun, whose gender no mutant may change. Words in capitals (shouting), gender nouns
    ("the Queen", "Mom") and words after an end of sentence or line, a colon, quote, bracket or dash are not counted."""
    text = doc.text[start:end]
    if not slot.lower().startswith(("<subj", "<obj", "<pos", "<refl")) or not text[:1].isupper() or text.isupper():
        return False
    span = doc.char_span(start, end, alignment_mode="expand")
    gap = doc.text[:start]
    before = gap.rstrip()[-1:]
    return not ((span is not None and span[0].is_sent_start) or before == "" or "\n" in gap[len(gap.rstrip()):]
                or before in ".!?:\"'“”‘’([{…*-–—~>")


def _plural(word: str) -> str:
    """The English plural of a gender noun ("guy" → "guys", "woman" → "women", "wife" → "wives", "hero" →
    "heroes")."""
    if word.endswith("man"):
        return word[:-3] + "men"
    if word.endswith("fe"):
        return word[:-2] + "ves"
    if word.endswith(("s", "x", "ch", "sh", "o")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _own_noun_plural(doc, spans: list[tuple[int, int, str]], literal: str) -> bool:
    """Whether the review, outside the slots, counts the person among the plural of the gender noun it calls them
    ("the oafy guy … one of the best guys"; "an Indian boy … other boys"): "other/fellow <plural>" or "one of the
    … <plural>". Other plurals ("the bad guys", "around girls") say nothing of the person."""
    words = {_plural(doc.text[start:end].lower()) for start, end, slot in spans if slot.lower().startswith("<noun:")}
    if not words:
        return False
    plural = "|".join(re.escape(w) for w in sorted(words))
    return re.search(rf"\b(?:other|fellow|one of (?:the|those|these|his|her|their|my|our)(?:\s+[\w-]+){{0,2}})\s+"
                     rf"(?:{plural})\b", literal, flags=re.IGNORECASE) is not None


def _misspelled_mention(replaced: set[str], literal: str) -> bool:
    """Whether a capitalised word outside the slots is a replaced name word of six letters or more written in other
    capitals or with one letter changed ("Kitamura" … "Kitumura fans"), possessive "'s" aside: a mention of the
    same person that would keep the original's name. ("Thanks" after "Hanks", "More" after "Moore" differ by more.)"""
    long = {w.lower().removesuffix("'s").removesuffix("’s") for w in replaced if len(w) >= 6}
    words = {w.lower().removesuffix("'s").removesuffix("’s") for w in _NAME_WORD.findall(literal)}
    return any(len(a) == len(b) and sum(x != y for x, y in zip(a, b)) <= 1 for a in words for b in long)


def _hyphenated(doc, i: int) -> bool:
    """Whether token ``i`` is glued to a hyphen before it ("Co-Star")."""
    return i > 1 and doc[i - 1].text == "-" and not doc[i - 1].whitespace_ and not doc[i - 2].whitespace_


def _name_part(token) -> bool:
    if token.lower_.rstrip(".") in _HONORIFICS:
        return True
    return (token.pos_ == "PROPN" and token.text[:1].isupper() and token.is_alpha
            and token.lower_ not in coref.PRONOUN_GENDER and token.lower_ not in coref.gender_nouns())


def _after_title_word(doc, start: int) -> bool:
    """Whether the (widened) name follows a capitalised word that is no proper noun, mid-sentence: the name ends a
    title ("Saving Private Ryan", "Shall We Dance")."""
    span = doc.char_span(start, start + 1, alignment_mode="expand")
    if span is None or span.start == 0:
        return False
    before = doc[span.start - 1]
    return (before.text[:1].isupper() and before.is_alpha and not before.is_sent_start and before.pos_ != "PROPN"
            and before.text != "I")


def _other_person(doc, spans: list[tuple[int, int, str]]) -> bool:
    """Whether the review names a person the cluster does not hold: a PERSON entity outside the mentions ("the
    Hitler came to power"), a first name written in lower case ("jessica Simpson") or two or more capitalised proper
    nouns NER left untyped that hold a first name or a hyphen ("Hyung-rae Shim (the director) … contact him"; not
    "Blade Runner"), so that the cluster's pronouns may be that person's and the mutants would give them the other
    gender."""
    covered = [(start, end) for start, end, _ in spans]

    def outside(first: int, last: int) -> bool:
        return not any(start < last and first < end for start, end in covered)

    nouns = coref.gender_nouns()
    if any(ent.label_ == "PERSON" and outside(ent.start_char, ent.end_char) and not coref._is_title(ent, nouns)
           for ent in doc.ents):  # "that guy from Blade Runner": a title, as coreference reads it
        return True
    lexicon = coref.first_name_genders()
    if any(t.is_lower and t.lower_ in lexicon and t.pos_ == "PROPN" and outside(t.idx, t.idx + len(t.text))
           for t in doc):
        return True
    run: list = []  # untyped capitalised proper nouns with a first name or a hyphen: "Hyung-rae Shim"
    for token in list(doc) + [None]:
        glued = bool(run) and token is not None and not run[-1].whitespace_ and not token.is_space
        if token is not None and not token.ent_type_ and (glued or (token.pos_ == "PROPN" and token.text[:1].isupper())):
            run.append(token)
            continue
        after_title_cue = bool(run) and run[0].i > 0 and doc[run[0].i - 1].lower_ in ("from", "in", "of", "the", "a")
        named = (any(t.lower_ in lexicon for t in run) and not after_title_cue) or any(t.text == "-" for t in run)
        if named and len([t for t in run if t.is_alpha]) >= 2 and outside(run[0].idx, run[-1].idx + len(run[-1].text)):
            return True
        run = []
    return False


def _title_like(doc, start: int, end: int) -> bool:
    """A name that reads as a film, show, company or people: inside a quoted string of at most six words ("'Rachel'
    is an art movie"; short dialogue, "'Thanks, Mary,' she said", goes with it), right after watched/saw/film/movie… or a proper noun's "'s" ("Coppola's Dracula"), inside a
    WORK_OF_ART, LANGUAGE, PRODUCT, EVENT or LAW entity or an ORG entity longer than the name ("Sarah Films"), an
    adjective or a word in capitals ("IT"), a modifier of a noun that NER did not call a person ("the Latin
    Godfather"), glued to a hyphen ("Latin-American") or after "<Capitalised> of" ("The Diary of Anne")."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return False
    if any(t.ent_type_ in _NOT_PEOPLE or t.pos_ == "ADJ" or (len(t) > 1 and t.is_upper) for t in span):
        return True  # … or written in capitals: "IT", "SNL"
    if any(ent.label_ == "ORG" and len(ent) > len(span) and ent.start <= span.start < ent.end for ent in doc.ents):
        return True
    root = span.root
    if (root.dep_ in ("amod", "compound") and root.head.i > root.i and root.head.pos_ in ("NOUN", "PROPN")
            and root.ent_type_ != "PERSON"):
        return True
    before = doc[span.start - 1] if span.start else None
    after = doc[span.end] if span.end < len(doc) else None
    if before is not None and before.lower_ in _TITLE_CUES:
        return True
    if before is not None and before.lower_ == "during" and not (after is not None and after.tag_ == "POS"):
        return True  # "during Mardi Gras" is a time; "during Reagan's presidency" names a person
    if after is not None and after.text == "-" and not span[-1].whitespace_:
        return True
    if before is not None and before.lower_ == "of" and span.start >= 2 and doc[span.start - 2].text[:1].isupper() \
            and not doc[span.start - 2].is_sent_start:
        return True
    if before is not None and before.tag_ == "POS" and span.start >= 2 and doc[span.start - 2].pos_ == "PROPN":
        return True  # "Coppola's Dracula", "Herzog's Nosferatu": a director's film
    return inside_short_quote(doc.text, start, end)


def _fill(template: str, *, gender: str, name: str, lists: str = "curated", resolve_articles: bool = True,
          noun: str | None = None) -> str:
    """``template`` filled for ``gender`` with ``name``; each gender noun with its pair's ``gender`` form, or with
    ``noun`` when given (BiasFinder's fills: one word in every noun slot); ``<a>`` slots then agree with their next
    word (or stay, with ``resolve_articles=False``). A slot in capitals (``<SUBJ>``) is filled in capitals."""
    female = gender == "female"
    pairs = word_lists(lists).noun_pairs

    def value(match: re.Match) -> str:
        slot = match.group(1)
        lower = slot.lower()
        if lower == "name":
            return name
        if lower.startswith("noun:"):
            male_form = lower[5:]
            word = noun if noun is not None else next(f if female else m for m, f in pairs if m == male_form)
        else:
            word = FORMS[gender][lower]
            if slot.isupper() and len(slot) > 1:
                return word.upper()
        return word[0].upper() + word[1:] if slot[0].isupper() else word

    filled = _SLOT.sub(value, template)
    return articles.resolve(filled) if resolve_articles else filled


NOUN_FILLS = ("pair", "all")  # a gender noun's fills: its pair's form, or every noun of the gender (BiasFinder's)


def generate_gender(corpus: pd.DataFrame, *, n_names: int = 30, backend: str = "rules", n_process: int = 1,
                    lists: str = "curated", rules: frozenset[str] | None = None,
                    people: str = "mutate", templates: pd.DataFrame | None = None, noun_fills: str = "pair",
                    rejected: dict | None = None) -> pd.DataFrame:
    """Gender mutants of every template (see the module docstring), filled from the ``lists`` preset, under the
    active coherence ``rules`` and the ``people`` option; ``templates`` (a :func:`gender_templates`-shaped frame,
    e.g. BiasFinder's acceptance, :mod:`.paper`) skips the parse. ``noun_fills``: ``"pair"`` (a gender noun becomes
    its pair's form: "man" → "woman") or ``"all"`` (BiasFinder's ``replaceGenderAssociatedWordPlaceholder``: one
    mutant per noun of the mutant's gender in the preset, the same noun in every noun slot, times each name).
    Column ``noun_fill``: "" without a noun slot or under ``"pair"``; under ``"all"``, ``"own"`` when the noun is the
    first noun slot's own pair (with one noun slot, the mutants ``"pair"`` makes; ``fill`` is then the name alone),
    else ``"other"`` in a template without a name (its nouns are its only fills) and ``"crossed"`` in one with a name
    (``fill`` "name, noun"), which the BTC-rate statistics set aside
    (:func:`~toolkit.studies.biasfinder.counting.rate_rows`). ``rejected`` (a dict, filled when this call parses):
    reviews rejected per rule."""
    if noun_fills not in NOUN_FILLS:
        raise unknown("noun_fills option", noun_fills, NOUN_FILLS)
    names = fill_names(n_names, lists=lists)
    pairs = word_lists(lists).noun_pairs
    every_noun = {"male": list(dict.fromkeys(m for m, _ in pairs)),  # a word in two pairs fills once
                  "female": list(dict.fromkeys(f for _, f in pairs))}
    if templates is None:
        templates = gender_templates(corpus, backend=backend, n_process=n_process, lists=lists, rules=rules,
                                     people=people, rejected=rejected)
    flags = fill_flags([*names["female"], *names["male"], *(w for pair in word_lists(lists).noun_pairs for w in pair)])
    rows = []
    for t in templates.itertuples(index=False):
        case_id = f"biasfinder:gender:{t.doc_id}"
        common = {"case_id": case_id, "attribute": "gender", "generator": "biasfinder", "template": t.template,
                  "doc_id": t.doc_id, "corpus": t.corpus}
        rows.append({**common, "variant_id": f"{case_id}:original", "text": t.text, "group": "", "fill": "",
                     "is_original": True, "gender": t.gender, "fill_flag": "", "noun_fill": ""})
        nouns = [slot for slot in _SLOT.findall(t.template) if slot.lower().startswith("noun:")]
        for gender in ("female", "male"):
            fills = names[gender] if "<name>" in t.template else [""]
            own = _fill(f"<{nouns[0].lower()}>", gender=gender, name="", lists=lists) if nouns else None
            for noun in every_noun[gender] if nouns and noun_fills == "all" else [None]:
                noun_words = [_fill(f"<{slot.lower()}>", gender=gender, name="", lists=lists, noun=noun)
                              for slot in nouns]
                kind = "" if noun is None else "own" if noun == own else "crossed" if fills != [""] else "other"
                for name in fills:
                    forms = name or ", ".join(dict.fromkeys(
                        _fill(f"<{slot}>", gender=gender, name="", lists=lists, noun=noun)
                        for slot in _SLOT.findall(t.template)))
                    if kind == "crossed":  # the own pair's mutants keep the name alone, as every other template's
                        forms = f"{name}, {noun}"
                    label = (name or "forms") if noun is None else f"{name or 'forms'}:{noun}"
                    rows.append({**common, "variant_id": f"{case_id}:{gender}:{label}",
                                 "text": _fill(t.template, gender=gender, name=name, lists=lists, noun=noun),
                                 "group": gender, "fill": forms, "is_original": False, "gender": gender,
                                 "fill_flag": joined_flags(flags, [name, *noun_words]),
                                 "noun_fill": kind})
    columns = ["case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template", "is_original",
               "gender", "doc_id", "corpus", "fill_flag", "noun_fill"]
    return pd.DataFrame(rows, columns=columns)
