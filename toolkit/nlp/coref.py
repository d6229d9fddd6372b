"""Coreference: ``resolve(texts, backend=...)`` → for each text, its clusters as lists of character spans.

A span is ``(start, end)`` into the text (``text[start:end]`` is the mention); clusters hold mentions in order and
only clusters with a person mention (a PERSON entity, a gendered pronoun or a gender noun) are returned, sorted by
their first mention. Backends:

- ``rules`` (offline default): spaCy's parse and NER. Mentions are PERSON entities, gender nouns heading a noun
  phrase ("that guy"), and third-person singular pronouns. A repeated name (full or last name) joins its cluster;
  a pronoun joins the most recent cluster whose gender agrees, else the most recent one of unknown gender, else the
  most recent one gendered only by the first-name lexicon (Faker's en_US lists, MIT), since pronouns outrank the
  lexicon ("Drew Barrymore … she" links although the lexicon calls Drew male); otherwise it starts its own. A gender
  noun after the/this/that joins the most recent cluster of its gender ("Emma Stone … the actress"). A PERSON
  entity in a from/in phrase attached to a gender noun ("that guy from Blade Runner") is taken for a title.
- ``fastcoref``: the neural FCoref model (``pip install fastcoref``; downloads its weights on first use, so it needs
  the network once).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from toolkit import nlp as nlp_layer
from toolkit.errors import MissingDependencyError, unknown
from toolkit.resources import load_json

Span = tuple[int, int]
PRONOUN_GENDER = {"he": "male", "him": "male", "his": "male", "himself": "male",
                  "she": "female", "her": "female", "hers": "female", "herself": "female"}


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
    return "pos" if token.dep_ == "poss" else "poss"  # his: "his book" vs "the win is his" (tagged PRP$ too)


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



_MISLABELLED = ("ORG", "GPE", "NORP", "FAC", "PRODUCT", "WORK_OF_ART", "LOC")


def _is_title(ent, nouns: dict[str, str]) -> bool:
    """"That guy from Blade Runner": a PERSON entity in a from/in phrase attached to a gender noun is a work or
    place (spaCy's small model tags such titles PERSON)."""
    head = ent.root.head
    return ent.root.dep_ == "pobj" and head.lower_ in ("from", "in") and head.head.lower_ in nouns


def mentions(doc) -> list[tuple[Span, str, str, str]]:
    """Person mentions of a parsed doc in order: (span, kind, gender, key); kind is 'name', 'pronoun', 'noun' or
    'definite_noun' (a gender noun after the/this/that)."""
    nouns = gender_nouns()
    found = []
    taken: set[int] = set()
    lexicon = first_name_genders()
    spans = [ent for ent in doc.ents if (ent.label_ == "PERSON" and not _is_title(ent, nouns))
             or (ent.label_ in _MISLABELLED and ent[0].lower_ in lexicon)]
    in_entity = {i for ent in doc.ents for i in range(ent.start, ent.end)}
    run: list = []
    for token in list(doc) + [None]:  # capitalised PROPN runs starting with a known first name, missed by NER
        if token is not None and token.pos_ == "PROPN" and token.i not in in_entity and token.text[:1].isupper():
            run.append(token)
            continue
        if run and run[0].lower_ in lexicon:
            spans.append(doc[run[0].i:run[-1].i + 1])
        run = []
    for ent in sorted(spans, key=lambda e: e.start):
        tokens = [t for t in ent if not t.is_punct and t.tag_ != "POS"]
        if not tokens:
            continue
        found.append(((tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)), "name",
                      lexicon.get(tokens[0].text.lower(), ""), " ".join(t.text.lower() for t in tokens)))
        taken.update(range(ent.start, ent.end))
    surnames = {key.split()[-1]: gender for _, kind, gender, key in found if kind == "name"}
    for token in doc:
        if token.i in taken:
            continue
        lower = token.lower_
        if lower in surnames and token.text[:1].isupper():  # "Collins" after "Sandra Collins", missed by NER
            found.append(((token.idx, token.idx + len(token.text)), "name", surnames[lower], lower))
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


def _antecedent(clusters: list[_Cluster], pronoun, gender: str) -> _Cluster | None:
    """The best earlier cluster for a pronoun: gender agreement (pronoun and noun evidence is binding, the name
    lexicon only weighs), binding (an object pronoun is not its own verb's subject; a reflexive is), syntactic
    parallelism (subject pronoun → subject antecedent; possessive → subject), sentence distance, recency and
    salience (number of mentions)."""
    role, sentence = _role(pronoun), pronoun.sent.start
    best, best_score = None, float("-inf")
    for cluster in clusters:
        if cluster.strong and cluster.gender != gender:
            continue
        last = cluster.heads[-1]
        if role == "obj" and any(h.dep_ in _SUBJECT and h.head == pronoun.head for h in cluster.heads):
            continue  # binding principle B: "John saw him" — him is not John
        score = 1.0 if cluster.gender == gender else -3.0 if cluster.gender else 0.0
        if role == "refl" and any(h.dep_ in _SUBJECT and h.head == pronoun.head for h in cluster.heads):
            score += 5.0
        last_role = _role(last)
        if last_role == "subj" and role in ("subj", "poss"):
            score += 2.0
        sentences_back = len({t.sent.start for t in pronoun.doc[last.i:pronoun.i]}) - 1
        score -= 0.5 * max(0, sentences_back - 1) + 0.01 * (pronoun.i - last.i)
        score += 0.3 * min(len(cluster.heads), 5) + (1.0 if cluster.names else 0.0)
        if not cluster.names and any(h.pos_ == "NOUN" for h in cluster.heads):
            score -= 2.0  # "her mother": a relative named by a noun is rarely the pronoun's referent
        if last.sent.start == sentence and last_role == "subj":
            score += 0.5
        if score > best_score:
            best, best_score = cluster, score
    return best


def _rules(doc) -> list[list[Span]]:
    clusters: list[_Cluster] = []
    for span, kind, gender, key in mentions(doc):
        head = doc.char_span(span[0], span[1], alignment_mode="expand").root
        target = None
        if kind == "name":
            last = key.split()[-1]
            target = next((c for c in reversed(clusters) if key in c.names or last in c.names), None)
            if target is None and head.dep_ in _SUBJECT:  # "He grew up … MacKenzie studied": whom "he" was about
                target = next((c for c in reversed(clusters) if not c.names and c.heads[0].lower_ in PRONOUN_GENDER
                               and c.heads[0].i == c.heads[0].sent.start and (not gender or c.gender == gender)),
                              None)
        elif kind == "pronoun":
            target = _antecedent(clusters, head, gender)
        elif kind == "definite_noun":  # "the actress" refers back to the most recent agreeing person
            target = next((c for c in reversed(clusters) if c.gender == gender), None)
        if target is None:
            target = _Cluster()
            clusters.append(target)
        target.mentions.append(span)
        target.heads.append(head)
        if kind == "name":
            target.names.update({key, key.split()[-1]})
        if kind in ("pronoun", "noun", "definite_noun") and not target.strong:
            target.gender, target.strong = gender, True
        elif kind == "name" and not target.gender:
            target.gender = gender
    return [c.mentions for c in clusters]


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


BACKENDS = {"rules": RuleBackend, "fastcoref": FastCorefBackend}


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
