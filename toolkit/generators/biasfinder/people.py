"""People the review identifies (issue 25): the ``people`` option of BiasFinder's gender and country instances.

Renaming or re-gendering a person the review pins down (Charlie Chaplin in "The Great Dictator", the author of
"The Notebook") gives a mutant that contradicts known facts, though the text reads well; blind readers counted
about 40 % of gender and country pairs so. World knowledge is not available offline, so the option reads the text:

- ``"mutate"`` (default; BiasFinder's generator): every person is mutated.
- ``"skip-named"``: a review whose person is named with a full name — a name mention of two or more capitalised
  words (honorifics aside) that spaCy's NER types PERSON or that starts with a known first name — yields no gender or
  country template ("Tom Hanks … he"; "Hanks … he" and "Mary … she" stay).
- ``"skip-real"``: a review that marks its person as a real one — an actor, director or author rather than a
  character — yields none. Signals, on any of the person's name mentions (spaCy's parse and NER): an actor beside a
  role ("Charlie Chaplin as the barber"; "the barber (Charlie Chaplin)", "Charlie Chaplin (the barber)"), a credit
  ("directed by …", "starring …", "played by …", "director/actor/author …"), a work named after them ("Chaplin's
  film", "a Tom Hanks movie"), or the name as the subject of star/direct/write/portray/produce/narrate, of "plays"
  with a role ("Hanks plays a lawyer", not "plays the piano"), or the object of "stars"/"features".

A list of famous names is deliberately not the mechanism: it would not generalise beyond its list. The cost of each
option in templates on the IMDB train split is in ``docs/biasfinder_rules.md``. The generation report counts each
signal's rejections as ``people:<signal>``.
"""
from __future__ import annotations

import re

from toolkit.errors import unknown

MODES = ("mutate", "skip-named", "skip-real")
_NAME_WORD = re.compile(r"[A-Z][\w'’-]+")
_HONORIFICS = frozenset({"Mr", "Mrs", "Ms", "Miss", "Mister", "Madam", "Madame", "Sir", "Dame", "Lady", "Lord",
                         "Dr", "Mr.", "Mrs.", "Ms.", "Dr."})
_CREDIT_VERBS = frozenset({"direct", "write", "play", "portray", "produce", "star", "voice", "narrate", "co-star",
                           "costar", "perform", "feature", "helm", "pen", "act", "cast"})
_CREDIT_WORDS = frozenset({"starring", "featuring", "co-starring", "costarring", "directed", "written", "played",
                           "portrayed", "produced", "voiced", "narrated", "helmed", "penned", "performed"})
_CREDIT_NOUNS = frozenset({"director", "actor", "actress", "writer", "author", "novelist", "filmmaker",
                           "screenwriter", "co-star", "costar", "comedian", "singer", "star", "producer",
                           "playwright", "auteur", "cinematographer", "composer", "legend", "icon", "superstar",
                           "rapper", "musician", "filmaker", "helmer", "thespian"})
_SUBJECT_VERBS = frozenset({"star", "direct", "write", "portray", "produce", "narrate", "co-star", "costar",
                            "helm", "pen", "voice"})
_OBJECT_VERBS = frozenset({"star", "feature", "cast"})
_WORKS = frozenset({"film", "films", "movie", "movies", "picture", "pictures", "novel", "novels", "book", "books",
                    "classic", "classics", "masterpiece", "direction", "screenplay", "script", "debut", "filmography",
                    "oeuvre", "career", "vehicle", "flick", "flicks", "comedy", "comedies", "thriller", "western",
                    "production", "documentary", "epic", "work", "works", "play", "story", "adaptation", "remake",
                    "sequel", "fans", "fan", "role", "roles", "character", "portrayal", "films'"})
_NOT_ROLES = frozenset({"piano", "guitar", "violin", "drums", "game", "games", "football", "soccer", "basketball",
                        "baseball", "golf", "tennis", "chess", "cards", "music", "song", "songs", "trick", "tricks",
                        "video", "poker", "sax", "saxophone", "trumpet", "flute", "hockey", "cello", "organ"})


def people_mode(mode: str) -> str:
    """``mode`` if it is one of :data:`MODES`, else TK103 listing them."""
    if mode not in MODES:
        raise unknown("people option", mode, MODES)
    return mode


def identified(doc, names: list[tuple[int, int]], *, mode: str = "mutate") -> str:
    """The signal (a short name) by which the review identifies the person whose name mentions are ``names``
    (character spans in the parsed ``doc``) under ``mode``, or '' to mutate them (see the module docstring)."""
    if mode == "mutate" or not names:
        return ""
    spans = [span for start, end in names if (span := doc.char_span(start, end, alignment_mode="expand")) is not None]
    if mode == "skip-named":
        return "full-name" if any(_full_name(doc, span) for span in spans) else ""
    for span in spans:
        signal = _real(doc, span)
        if signal:
            return signal
    return ""


def _full_name(doc, span) -> bool:
    """Two or more capitalised name words, typed PERSON by NER or led by a known first name."""
    words = [w for w in _NAME_WORD.findall(span.text) if w not in _HONORIFICS]
    if len(words) < 2:
        return False
    from toolkit.nlp import coref

    person = any(t.ent_type_ == "PERSON" for t in span)
    return person or words[0].lower() in coref.first_name_genders()


def _lemma(token) -> str:
    """The verb's lemma: spaCy's where the pipeline has a lemmatizer (the rules backend's has none), else the form
    less a regular ending ("stars", "starred", "starring" → "star"; "wrote", "written" → "write")."""
    if token.lemma_ and token.lemma_ != token.text:
        return token.lemma_.lower()
    word = token.lower_
    irregular = {"wrote": "write", "written": "write", "writes": "write", "writing": "write", "penned": "pen",
                 "cast": "cast", "casts": "cast"}
    if word in irregular:
        return irregular[word]
    for ending in ("ing", "ed", "es", "s"):
        stem = word[:-len(ending)] if word.endswith(ending) else ""
        for candidate in (stem, stem[:-1] if len(stem) > 2 and stem[-1:] == stem[-2:-1] else "", stem + "e"):
            if candidate and candidate in _SUBJECT_VERBS | _OBJECT_VERBS | {"play"}:
                return candidate
    return word


def _real(doc, span) -> str:
    """The first signal that ``span`` (one name mention) names a real person, or ''."""
    before = doc[span.start - 1] if span.start > 0 else None
    before2 = doc[span.start - 2] if span.start > 1 else None
    after = doc[span.end] if span.end < len(doc) else None
    after2 = doc[span.end + 1] if span.end + 1 < len(doc) else None
    if after is not None and after.lower_ == "as" and after2 is not None and after2.pos_ in ("DET", "PROPN",
                                                                                               "NOUN", "ADJ"):
        return "actor-as-role"  # "Charlie Chaplin as the barber", "Hanks as Forrest"
    if (before is not None and before.text == "(" and before2 is not None and before2.pos_ in ("NOUN", "PROPN")
            and after is not None and after.text == ")"):
        return "role-parenthesis"  # "the barber (Charlie Chaplin)"
    if (after is not None and after.text == "(" and after2 is not None
            and (after2.lower_ in ("as", "the", "a") or after2.pos_ == "NOUN")):
        return "role-parenthesis"  # "Charlie Chaplin (the barber)", "Chaplin (as the barber)"
    if before is not None and (before.lower_ in _CREDIT_WORDS or (
            before.lower_ == "by" and before2 is not None and before2.lower_ in _CREDIT_WORDS)):
        return "credit"  # "directed by Charlie Chaplin", "starring Charlie Chaplin"
    if (before is not None and before.lower_ in _CREDIT_NOUNS and before.pos_ in ("NOUN", "PROPN")) or (
            len(span) > 1 and span[0].lower_ in _CREDIT_NOUNS):
        return "credit"  # "director Charlie Chaplin", "Director Steven Spielberg" (widened into the name)
    if any(t.dep_ == "appos" and t.lower_ in _CREDIT_NOUNS for t in span.root.children) or (
            span.root.dep_ == "appos" and span.root.head.lower_ in _CREDIT_NOUNS):
        return "credit"  # "Charlie Chaplin, the director, …", "the director, Charlie Chaplin"
    if after is not None and after.tag_ == "POS" and after2 is not None and after2.lower_ in _WORKS:
        return "work"  # "Chaplin's film", "Spielberg's direction"
    if after is not None and after.lower_ in _WORKS and after.pos_ == "NOUN" and span.root.dep_ == "compound":
        return "work"  # "a Tom Hanks movie"
    root = span.root
    verb = root.head
    if root.dep_ in ("nsubj", "nsubjpass") and verb.pos_ in ("VERB", "AUX"):
        lemma = _lemma(verb)
        if lemma in _SUBJECT_VERBS and root.dep_ == "nsubj":
            return "subject-of-credit"  # "Chaplin directed it", "Hanks stars"
        if lemma == "play":
            objects = [c for c in verb.children if c.dep_ in ("dobj", "attr")]
            if objects and all(o.lower_ not in _NOT_ROLES for o in objects):
                return "subject-of-credit"  # "Hanks plays a lawyer", not "he plays the piano"
    if root.dep_ == "dobj" and _lemma(verb) in _OBJECT_VERBS:
        return "credit"  # "the film stars Charlie Chaplin"
    return ""
