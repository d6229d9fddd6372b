"""People the review identifies: the ``people`` option of BiasFinder's gender and country instances.

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
  with a role ("Hanks plays a lawyer", not "plays the piano"), the object of "stars"/"features", the subject of
  "is a filmmaker/director …"; or a review that says its story is a real one ("a true story", "real-life",
  "based on the life of", "biopic", "documentary": signal ``true-story``, whatever the person's mentions).
- ``"skip-known"``: ``skip-real``'s signals, and a person many reviews of the corpus name (:func:`known_names`): a
  name mention whose full name or surname at least ``min_reviews`` reviews use in a full name ("George Romero",
  "Romero"; a first name that, in full names, nearly always leads one known name: "Dolph"), or, for a person the
  review refers to by pronouns or nouns only, such a name elsewhere in the review ("Before seeing this, I never much
  minded Rivers … her on television"). Fame is read from the corpus itself: a name reviewers keep writing in full is
  mostly an actor's, a director's or a public figure's (or a famous character's: skipping those costs yield, not
  coherence), so the option needs no list and no network; pass the reviews to count over (``known_from``) when
  generating from a small sample.

A fixed list of famous names is deliberately not the mechanism: it would not generalise beyond its list. The cost of
each option in templates on the IMDB train split is in ``docs/biasfinder_rules.md``. The generation report counts each
signal's rejections as ``people:<signal>``.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from toolkit.errors import InputError, unknown
from toolkit.nlp import coref

MODES = ("mutate", "skip-named", "skip-real", "skip-known")
MIN_REVIEWS = 3  # a full name or surname in at least this many reviews is a well-known person's (see known_names)
_PARTICLES = ("de", "van", "von", "del", "da", "di", "la", "le", "du", "dos", "der", "den")  # "Brian De Palma"
_UPPER = "[" + re.escape("".join(c for c in map(chr, range(0x250)) if c.isupper())) + "]"  # A–Z, É, Ö, Ł …
_SEQUENCE = re.compile(rf"\b{_UPPER}[\w'’.-]*(?:[ ](?:{_UPPER}[\w'’-]+|{'|'.join(_PARTICLES)}))*")
_WORD = re.compile(r"\b[\w'’-]+\b")
_POSSESSIVE = re.compile(r"['’]s?$")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"(]\s*|<br\s*/?>\s*|\n\s*)$")
_TRUE_STORY = re.compile(r"\b(?:true[- ]stor(?:y|ies)|true[- ]life|real-life|based on (?:the )?(?:life|true|real)|"
                         r"biopics?|biograph(?:y|ies|ical)|autobiograph\w*|"
                         r"documentar(?:y|ies)(?![- ]?(?:style|like|feel)))\b", re.IGNORECASE)
_NAME_WORD = re.compile(rf"{_UPPER}[\w'’-]+")
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
_COPULAS = frozenset({"is", "was", "'s", "’s", "be", "been"})
_FILM_MAKERS = frozenset({"filmmaker", "filmaker", "director", "co-director", "screenwriter", "cinematographer",
                          "helmer", "auteur"})  # "X is a director": a credit; "X is a writer/singer": maybe the plot
_WORKS = frozenset({"film", "films", "movie", "movies", "picture", "pictures", "novel", "novels", "book", "books",
                    "classic", "classics", "masterpiece", "direction", "screenplay", "script", "debut", "filmography",
                    "oeuvre", "career", "vehicle", "flick", "flicks", "comedy", "comedies", "thriller", "western",
                    "production", "documentary", "epic", "work", "works", "play", "story", "adaptation", "remake",
                    "sequel", "fans", "fan", "role", "roles", "character", "portrayal", "films'"})
_NOT_ROLES = frozenset({"piano", "guitar", "violin", "drums", "game", "games", "football", "soccer", "basketball",
                        "baseball", "golf", "tennis", "chess", "cards", "music", "song", "songs", "trick", "tricks",
                        "video", "poker", "sax", "saxophone", "trumpet", "flute", "hockey", "cello", "organ"})


@dataclass(frozen=True)
class KnownNames:
    """The names many reviews of a corpus use for a person (:func:`known_names`): lower-cased full names and
    surnames, each used in a full name by at least ``min_reviews`` of the corpus's ``reviews``."""

    full: frozenset[str]
    surnames: frozenset[str]
    min_reviews: int
    reviews: int
    given: frozenset[str] = frozenset()  # first names that name one known person ("dolph": Dolph Lundgren)

    def record(self) -> dict:
        """What provenance keeps: the counts, not the names."""
        return {"reviews": self.reviews, "min_reviews": self.min_reviews, "full_names": len(self.full),
                "surnames": len(self.surnames), "given_names": len(self.given)}


def people_mode(mode: str | KnownNames) -> str:
    """``mode``'s name if it is one of :data:`MODES` (or a :class:`KnownNames`, ``"skip-known"``), else TK103
    listing them."""
    if isinstance(mode, KnownNames):
        return "skip-known"
    if mode not in MODES:
        raise unknown("people option", mode, MODES)
    return mode


def _name_like(word: str, *, capitalised: Counter, lower: Counter) -> bool:
    """A word the corpus writes capitalised at least ten times as often as in lower case ("Welles", "Chavez"; not
    "Star", "New"), or a first name."""
    key = word.lower()
    return key in coref.first_name_genders() or lower[key] * 10 <= capitalised[word]


def known_names(texts: Iterable[str], *, min_reviews: int = MIN_REVIEWS) -> KnownNames:
    """The full names (two to four capitalised words, particles allowed: "Brian De Palma", "Jean-Luc Godard") whose
    first and last words are name-like in ``texts`` (written capitalised ten times as often as in lower case, or a first
    name; after a first name any capitalised word: "Joan Rivers") and that at least ``min_reviews`` texts use, and the
    last words of such names (or of an honorific and one name: "Dr. Seuss") used by that many texts and by more texts as
    a surname than as a first name ("Romero", not "Charlie"). Two passes of regular expressions (25,000 IMDB reviews:
    about 15 s here)."""
    if isinstance(min_reviews, bool) or not isinstance(min_reviews, int) or min_reviews < 1:
        raise InputError(f"min_reviews must be a whole number of at least 1; got {min_reviews!r}.",
                         fix=f"e.g. min_reviews={MIN_REVIEWS}.")
    texts = list(dict.fromkeys(t for t in texts if isinstance(t, str)))  # a copy of a review is not a second one
    capitalised, lower = Counter(), Counter()
    for text in texts:
        for word in _WORD.findall(text):
            (capitalised if word[:1].isupper() else lower)[word if word[:1].isupper() else word.lower()] += 1
    full, surnames, firsts = Counter(), Counter(), Counter()
    for text in texts:
        found_full, found_surnames, found_firsts = set(), set(), set()
        for match in _SEQUENCE.finditer(text):
            words = match.group().split(" ")
            start = next((i for i, w in enumerate(words)
                          if w not in _HONORIFICS and _name_like(w, capitalised=capitalised, lower=lower)), None)
            if start is None:
                continue
            name = [_bare(w) for w in words[start:start + 4]]
            led = name[0].lower() in coref.first_name_genders()  # "Joan Rivers": a first name vouches for the rest
            while name and (name[-1].lower() in _PARTICLES
                            or not (led or _name_like(name[-1], capitalised=capitalised, lower=lower))):
                name.pop()
            if len(name) == 1 and start > 0 and words[start - 1].replace(".", "") in _HONORIFICS:
                found_surnames.add(name[0].lower())  # "Dr. Seuss", "Mr. Bean": a surname alone
                continue
            if len(name) < 2:
                continue
            found_full.add(" ".join(name).lower())
            if _name_like(name[-1], capitalised=capitalised, lower=lower):  # "Hanks", not "Black" or "Stone"
                found_surnames.add(name[-1].lower())
            found_firsts.add(name[0].lower())
        full.update(found_full)
        surnames.update(found_surnames)
        firsts.update(found_firsts)
    return KnownNames(full=frozenset(n for n, k in full.items() if k >= min_reviews),
                      surnames=frozenset(n for n, k in surnames.items() if k >= min_reviews and k > firsts[n]),
                      given=_given(full, min_reviews=min_reviews),
                      min_reviews=min_reviews, reviews=len(texts))


def _given(full: Counter, *, min_reviews: int) -> frozenset[str]:
    """First words that are not common first names and lead, in at least 80 % of the reviews that use them in a full
    name, one known full name ("Dolph" → Dolph Lundgren; not "Tom")."""
    by_first: dict[str, Counter] = {}
    for name, k in full.items():
        by_first.setdefault(name.split(" ")[0], Counter())[name] = k
    common = coref.first_name_genders()
    return frozenset(first for first, names in by_first.items() if first not in common
                     and (top := max(names.values())) >= min_reviews and top >= 0.8 * sum(names.values()))


def identified(doc, names: list[tuple[int, int]], *, mode: str | KnownNames = "mutate", outside: str = "") -> str:
    """The signal (a short name) by which the review identifies the person whose name mentions are ``names``
    (character spans in the parsed ``doc``) under ``mode`` (a :data:`MODES` name, or the :class:`KnownNames` of
    ``"skip-known"``), or '' to mutate them (see the module docstring). ``outside``: the review's text outside the
    person's slots, read by ``"skip-known"`` when the person has no name mention."""
    if people_mode(mode) == "mutate":
        return ""
    if mode == "skip-known":
        raise InputError("people='skip-known' needs the names the corpus knows, not the option's name.",
                         fix="pass mode=known_names(reviews), or use generate(..., people='skip-known').")
    known = mode if isinstance(mode, KnownNames) else None
    if mode == "skip-named":
        spans = [span for start, end in names
                 if (span := doc.char_span(start, end, alignment_mode="expand")) is not None]
        return "full-name" if any(_full_name(doc, span) for span in spans) else ""
    if _TRUE_STORY.search(doc.text):
        return "true-story"  # "a true story", "the real life pilot was …": the person may be a real one
    if known is not None and not names:
        return "known-name-nearby" if _mentions_known(outside, known) else ""
    if not names:
        return ""
    spans = [span for start, end in names if (span := doc.char_span(start, end, alignment_mode="expand")) is not None]
    for span in spans:
        signal = _real(doc, span)
        if signal:
            return signal
    if known is not None and any(_is_known(doc.text[start:end], known) for start, end in names):
        return "known-name"
    return ""


def _bare(word: str) -> str:
    """A name word without a possessive or a sentence's full stop, with straight apostrophes ("Romero's", "Romero."
    → "Romero"; "O’Toole" → "O'Toole"; "J." stays)."""
    word = _POSSESSIVE.sub("", word).replace("’", "'")
    return word[:-1] if word.endswith(".") and len(word) > 2 else word


def _surname_key(word: str, known: KnownNames) -> str:
    """``word`` in lower case, less a possessive s written without an apostrophe when only that form is a known
    surname ("Trumps own ego fest" → "trump")."""
    key = word.lower()
    return key[:-1] if key.endswith("s") and key not in known.surnames and key[:-1] in known.surnames else key


def _is_known(mention: str, known: KnownNames) -> bool:
    """Whether a name mention is a known full name or ends in a known surname that is not a first name ("Romero",
    "George Romero"; not "George" alone)."""
    words = [_bare(w) for w in _NAME_WORD.findall(mention) if w not in _HONORIFICS]
    if not words:
        return False
    last = _surname_key(words[-1], known)
    return (" ".join([*words[:-1], last]).lower() in known.full
            or (last in known.surnames and (len(words) > 1 or last not in coref.first_name_genders()))
            or (len(words) == 1 and last in known.given))


def _mentions_known(text: str, known: KnownNames) -> bool:
    """Whether ``text`` names a known person: a known full name in any case ("whoopi goldberg"), or a known surname
    written capitalised that is not a first name ("Rivers", not "rivers")."""
    for sequence in _SEQUENCE.finditer(text):
        if _SENTENCE_START.search(text[max(0, sequence.start() - 8):sequence.start()]):
            continue  # "Stone cold …", "Black and white …": any word is capitalised there
        for word in sequence.group().split(" "):
            key = _surname_key(_bare(word), known)
            if key in known.surnames and key not in coref.first_name_genders():
                return True
    words = [w.lower() for w in _WORD.findall(text)]
    return any(" ".join(words[i:i + n]) in known.full for n in (2, 3, 4) for i in range(len(words) - n + 1))


def _full_name(doc, span) -> bool:
    """Two or more capitalised name words, typed PERSON by NER or led by a known first name."""
    words = [w for w in _NAME_WORD.findall(span.text) if w not in _HONORIFICS]
    if len(words) < 2:
        return False
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
    if after is not None and after.text == "(" and after2 is not None and after2.lower_ in _CREDIT_NOUNS:
        return "credit"  # "Devin Hamilton (Writer and Director)"
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
    if root.dep_ == "nsubj" and verb.lower_ in _COPULAS and any(
            c.dep_ == "attr" and c.lower_ in _FILM_MAKERS for c in verb.children):
        return "credit"  # "Monahan is a filmmaker who …", "Chaplin was the director"
    return ""
