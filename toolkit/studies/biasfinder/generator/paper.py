"""BiasFinder's own acceptance for the gender and country instances (``acceptance="biasfinder"``, the default of
``coherence="paper"``), read from its released code (soarsmu/BiasFinder, ``codes/gender`` and ``codes/country``;
Apache-2.0) and rewritten here.

1. Preprocessing (:func:`preprocess`, BiasFinder's ``preprocessText``, as in ``codes/module``): HTML tags removed,
   one trailing backslash dropped, backslash escapes decoded and non-ASCII characters dropped, backslashes removed,
   the spaCy tokens re-joined with one space (none before punctuation and clitics) and " - " deleted. The templated
   review is this text.
2. Coreference on the preprocessed text: the backend's clusters in its own order (``neuralcoref``: the original's
   order, mentions in merge order; ``rules``: its clusters with singletons set aside, as neuralcoref never gives
   one-mention clusters).
3. A cluster is a *person* cluster when one of its mentions is a gendered pronoun (BiasFinder's case-sensitive
   list: he him his himself He Him His Himself HE, she her herself She Her Herself SHE), the text of a PERSON
   entity of the review (``names="name-parts"``: also :func:`name_parts`; ``"cluster"``: also :func:`cluster_names`;
   ``"larger-ner"``: also :func:`larger_persons`),
   or a phrase whose own parse (the mention parsed alone) has a NOUN root that is a gender noun
   (:func:`gender_nouns`: the ``isInFeminineGenderAssosiatedWord`` of the ``utils.py`` its gender and country
   generators import looks the word up in the *masculine* column, so only the masculine nouns of the word-list
   preset count; ``nouns="both"`` counts the feminine ones too). A review is kept only with exactly one person
   cluster.
4. Gender: every mention is a pronoun, a PERSON entity's text (``<name>``) or a phrase rooted in a gender noun
   (the noun becomes ``<noun:…>``), with at least one pronoun and one gender throughout. Country: at least one
   pronoun (one gender) and one PERSON text (``<name:gender>``); other mentions stay as written.
   ``country_clusters="first-valid"`` (the version of ``codes/country-of-origin`` committed with BiasFinder's country
   user-study file): no exactly-one rule for country; the first cluster in order that meets the country condition
   gives the template.
5. The template is BiasFinder's: the text between mentions taken in cluster order (``original[previous end :
   next start]``, empty when the mentions run backwards), joined with the slots by single spaces, runs of spaces
   collapsed.

6. Pronoun slots follow the word (:func:`pronoun_slot`, ``pronoun_slots="word"``): BiasFinder's dictionaries give
   each pronoun one other-gender form, so "her" becomes "his" and "his" becomes "her" wherever they stand;
   ``"parse"`` types them by the parse instead (object "her" → "him"). The mutants' gender nouns are filled by
   :func:`~toolkit.studies.biasfinder.generator.gender.generate_gender` (``noun_fills``).

What differs (``docs/biasfinder_rules.md``): the parse is spaCy 2.3.9 ``en_core_web_sm`` 2.2.5 by default
(``parser="spacy2:en_core_web_sm"``, :mod:`toolkit.nlp.spacy2`; the neuralcoref fixtures' parse), and with it the
preprocessing's tokenizer (:func:`preprocess_all`); BiasFinder's last code loads spaCy 2 ``en_core_web_lg``, which no
package index carries.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from contextlib import nullcontext
from functools import cache

import pandas as pd

from toolkit import executors
from toolkit.errors import InputError, unknown
from toolkit.nlp import coref
from toolkit.nlp import pipeline as nlp_layer
from toolkit.nlp.spacy2 import PREFIX as SPACY2_PREFIX
from toolkit.nlp.spacy2 import SPACY2_PIPELINE
from toolkit.studies.biasfinder.generator.lists import word_lists

MALE_PRONOUNS = ("he", "him", "his", "himself", "He", "Him", "His", "Himself", "HE")
FEMALE_PRONOUNS = ("she", "her", "herself", "She", "Her", "Herself", "SHE")
PRONOUN_GENDER = {**dict.fromkeys(MALE_PRONOUNS, "male"), **dict.fromkeys(FEMALE_PRONOUNS, "female")}
# BiasFinder's restructureText: tokens glued to the previous one
_GLUED = frozenset(["!", "#", "$", "%", "*", ",", "/", ":", ";", "@", "^", "_", "`", "|", "~", ".", "?", ")", ">",
                    "'m", "'s", "'d", "'ll", "'ve", "n't", "'re"])
_PARTICLES = ((" 'm", "'m"), (" 's", "'s"), (" 'd", "'d"), (" 've", "'ve"), (" n't", "n't"), (" 're", "'re"),
              (" - ", ""))
_PREFILTER = re.compile(r"\b(?:he|him|his|himself|HE|she|her|herself|SHE)\b", re.IGNORECASE)
NAMES = ("entities", "name-parts", "cluster", "larger-ner")  # which texts count as person names (:func:`person_texts`)
LARGER_NER = nlp_layer.MEDIUM_PIPELINE  # the entity recogniser of ``names="larger-ner"`` (:func:`larger_persons`)
NOUNS = ("masculine", "both")  # which gender nouns mark a mention (:func:`gender_nouns`)
REASONS = ("no_person_cluster", "several_person_clusters", "mention_not_replaceable", "no_pronoun", "two_genders",
           "no_name", "no_valid_cluster")
COUNTRY_CLUSTERS = ("one", "first-valid")  # which cluster gives the country template (:func:`templates_of`)
PRONOUN_SLOTS = ("word", "parse")  # how a gender template's pronoun slot is typed (:func:`pronoun_slot`)
# BiasFinder's pronoun dictionaries (utils.py: masculine and feminine lists zipped): a pronoun's other-gender form
# depends on the word alone, so "her" becomes "his" as object too, and "his" becomes "her" as a predicate
_WORD_SLOT = {"he": "subj", "she": "subj", "him": "obj", "his": "pos", "her": "pos", "himself": "refl",
              "herself": "refl"}


@cache
def _tokenizer():
    import spacy  # deferred: heavy

    return spacy.blank("en").tokenizer


def _clean(text: str) -> str:
    """``preprocessText`` before its tokenizer: HTML tags, backslash escapes, non-ASCII and backslashes removed."""
    text = re.sub(r"<.*?>", "", text)
    if text.endswith("\\"):  # removeHex in codes/module (and codes/gender's last utils.py): it would not decode
        text = text[:-1]
    try:
        text = text.encode().decode("unicode_escape")
    except UnicodeDecodeError:
        pass
    return re.sub(r"[^\x00-\x7f]", "", text).replace("\\", "")


def _rejoin(tokens: list[str]) -> str:
    """``restructureText`` after its tokenizer: tokens re-joined, particles and " - " closed up."""
    out = ""
    for token in tokens:
        out += token if token in _GLUED else " " + token
    out = out.strip()
    for old, new in _PARTICLES:
        out = out.replace(old, new)
    return out


def preprocess(text: str) -> str:
    """BiasFinder's ``preprocessText`` (see the module docstring), spaCy 3's English tokenizer. A text whose
    backslash escapes do not decode keeps them (BiasFinder's script stopped there)."""
    return _rejoin([token.text for token in _tokenizer()(_clean(text))])


def preprocess_all(texts: pd.Series | list[str], *, parser: str = SPACY2_PIPELINE) -> pd.Series:
    """:func:`preprocess` of each text (same index), tokenized by ``parser``'s own tokenizer when it is spaCy 2
    (BiasFinder's: its tokens differ from spaCy 3's in about 3 % of IMDB reviews, e.g. "14-year" stays one token, so
    "14-year" survives where spaCy 3's "14 - year" is closed up to "14year"), else by spaCy 3's."""
    texts = texts if isinstance(texts, pd.Series) else pd.Series(list(texts), dtype=object)  # a list or a tuple too
    cleaned = [_clean(str(text)) for text in texts]
    if parser.startswith(SPACY2_PREFIX):
        tokens = nlp_layer.load_pipeline(parser, disable=("lemmatizer",)).tokenize(cleaned)
    else:
        tokens = [[token.text for token in _tokenizer()(text)] for text in cleaned]
    return pd.Series([_rejoin(t) for t in tokens], index=texts.index, dtype=object)


class _Phrases:
    """Whether a mention's own parse has a gender-noun NOUN root (BiasFinder's ``isContainGenderAssociatedWord``),
    parsed once per distinct phrase."""

    def __init__(self, nlp, nouns: dict[str, str]) -> None:
        self.nlp, self.nouns, self.known = nlp, nouns, {}

    def prepare(self, phrases) -> None:
        todo = sorted({p for p in phrases if p not in self.known})
        for phrase, doc in zip(todo, self.nlp.pipe(todo, batch_size=256)):
            self.known[phrase] = next((t.text for t in doc if t.pos_ == "NOUN" and t.dep_ == "ROOT"
                                       and t.text in self.nouns), "")

    def noun(self, phrase: str) -> str:
        if phrase not in self.known:
            self.prepare([phrase])
        return self.known[phrase]


def gender_nouns(pairs: tuple[tuple[str, str], ...], which: str = "masculine") -> dict[str, str]:
    """The words whose NOUN root makes a mention a gender noun, each with its gender, from the (male, female)
    ``pairs`` of a word-list preset. ``which="masculine"`` (BiasFinder's code: its ``isInMasculineGenderAssosiatedWord``
    and ``isInFeminineGenderAssosiatedWord`` both read the masculine column, so "the woman" is neither a person
    mention nor replaceable) or ``"both"`` (the feminine nouns too)."""
    if which not in NOUNS:
        raise unknown("gender_nouns option", which, NOUNS)
    found = {m: "male" for m, _ in pairs}
    if which == "both":
        found.update({f: "female" for _, f in pairs})
    return found


def _chunks(text: str, spans: list[tuple[int, int]]) -> list[str]:
    chunks = [text[:spans[0][0]]]
    chunks += [text[spans[i - 1][1]:spans[i][0]] for i in range(1, len(spans))]
    return chunks + [text[spans[-1][1]:]]


def _join(chunks: list[str], slots: list[str]) -> str:
    parts = [chunks[0]]
    for slot, chunk in zip(slots, chunks[1:]):
        parts += [slot, chunk]
    return re.sub(" +", " ", " ".join(parts).strip())


def cluster_names(doc, clusters: list[list[tuple[int, int]]]) -> set[str]:
    """Mentions the ``names="cluster"`` option counts as person names: in a cluster holding a gendered pronoun, a
    mention of proper nouns only (each word capitalised, tagged NNP/NNPS; a title-cased first word alone is not
    enough), as a larger parser's NER tags the surnames and full names the small one misses ("Connery")."""
    found = set()
    for cluster in clusters:
        if not any(doc.text[s:e] in PRONOUN_GENDER for s, e in cluster):
            continue
        for s, e in cluster:
            span = doc.char_span(s, e, alignment_mode="expand")
            words = [t for t in span if not t.is_punct] if span is not None else []
            if words and all(t.tag_ in ("NNP", "NNPS") and t.text[:1].isupper() for t in words):
                found.add(doc.text[s:e])
    return found


def name_parts(doc, clusters: list[list[tuple[int, int]]]) -> set[str]:
    """Mentions the ``names="name-parts"`` option counts as person names: a mention whose words are the first or the
    last words of a PERSON entity of two or more words in the same review, each capitalised ("Connery" beside "Sean
    Connery", "Cassavetes" beside "John Cassavetes"), as a larger parser's NER tags the lone surnames the small one
    misses (the small spaCy 2 model types most of them ORG, GPE or nothing). Unlike :func:`cluster_names` it adds no
    person the parser did not tag somewhere in the review; a gendered pronoun stays a pronoun. An entity's words are
    its tokens less punctuation and a possessive ending the entity swallowed ("Lauren Bacall 's" → Lauren, Bacall);
    a part is the review's own text from its first word to its last ("Jean-Claude" of "Jean-Claude Van Damme")."""
    parts = set()
    for ent in doc.ents:
        words = [t for t in ent if not t.is_punct and t.tag_ != "POS"]
        if ent.label_ != "PERSON" or len(words) < 2:
            continue
        for k in range(1, len(words)):
            for first, last in ((words[0], words[k - 1]), (words[k], words[-1])):
                parts.add(doc.text[first.idx:last.idx + len(last.text)])
    found = set()
    for cluster in clusters:
        for s, e in cluster:
            mention = doc.text[s:e]
            if mention in parts and mention not in PRONOUN_GENDER and all(w[:1].isupper() for w in mention.split()):
                found.add(mention)
    return found


def larger_persons(texts: list[str], *, ner: str = LARGER_NER, batch_size: int = 64) -> list[set[str]]:
    """For ``names="larger-ner"``: per text, the texts that a larger entity recogniser types PERSON — by default
    spaCy 3.8's ``en_core_web_md`` (``make parser-md``), its NER alone, on the preprocessed review. It stands in for
    the NER of BiasFinder's ``en_core_web_lg`` 2.x (on no package index), which tagged persons the small model misses
    ("Connery", "Cimino"), while the parse and the clusters stay the small model's. A spaCy 3 pipeline runs its NER
    alone (it has its own tok2vec), on the instance the generator's check and provenance load."""
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Iterable):
        raise InputError(f"larger_persons takes a list of texts; got {type(texts).__name__}.",
                         fix="wrap one text in a list: [text].")
    texts = list(texts)
    if not all(isinstance(text, str) for text in texts):
        raise InputError("larger_persons takes texts (str) only.", fix="pass the reviews' text column as strings.")
    nlp = nlp_layer.load_pipeline(ner, disable=("lemmatizer",))
    only_ner = nlp.select_pipes(enable="ner") if hasattr(nlp, "select_pipes") else nullcontext()
    with only_ner:
        return [{ent.text for ent in doc.ents if ent.label_ == "PERSON"}
                for doc in nlp.pipe(texts, batch_size=batch_size)]


def person_texts(doc, clusters: list[list[tuple[int, int]]], names: str = "entities", *,
                 larger: set[str] | None = None) -> set[str]:
    """The texts that count as person names in one parsed review (:data:`NAMES`): its PERSON entities
    (``"entities"``, BiasFinder's), and also :func:`name_parts` (``"name-parts"``), :func:`cluster_names`
    (``"cluster"``) of its ``clusters``, or ``larger``, the review's PERSON texts by a larger entity recogniser
    (``"larger-ner"``, :func:`larger_persons`; required there)."""
    if names not in NAMES:
        raise unknown("names option", names, NAMES)
    persons = {ent.text for ent in doc.ents if ent.label_ == "PERSON"}
    if names == "cluster":
        persons |= cluster_names(doc, clusters)
    elif names == "name-parts":
        persons |= name_parts(doc, clusters)
    elif names == "larger-ner":
        if larger is None:
            raise InputError("names='larger-ner' needs the larger recogniser's PERSON texts of the review.",
                             fix="pass larger=larger_persons([doc.text])[0].")
        persons |= larger
    return persons


def pronoun_slot(doc, start: int, end: int, how: str = "word") -> str:
    """The gender template's slot for the pronoun at ``doc.text[start:end]`` (one of :data:`PRONOUN_GENDER`).
    ``how="word"`` (BiasFinder's dictionaries: the other gender's form of a word is one word, so "her" → "his" and
    "his" → "her" wherever they stand): the slot follows the word; ``"parse"``: the grammatical slot from the parse
    (:func:`toolkit.nlp.coref.pronoun_slot`: object "her" → "him", predicate "his" → "hers"). Written ``<subj>``,
    ``<Subj>`` for a capitalised pronoun and, under ``"word"``, ``<SUBJ>`` for one in capitals ("HE" → "SHE")."""
    if how not in PRONOUN_SLOTS:
        raise unknown("pronoun_slots option", how, PRONOUN_SLOTS)
    phrase = doc.text[start:end]
    if phrase not in PRONOUN_GENDER:
        raise unknown("gendered pronoun", phrase, tuple(PRONOUN_GENDER))
    if how == "word":
        kind = _WORD_SLOT[phrase.lower()]
        if phrase.isupper() and len(phrase) > 1:
            return f"<{kind.upper()}>"
    else:
        span = doc.char_span(start, end, alignment_mode="expand")
        kind = coref.pronoun_slot(span[0]) if span is not None and len(span) == 1 else "subj"
    return f"<{kind[0].upper() + kind[1:]}>" if phrase[0].isupper() else f"<{kind}>"


def _pronoun_gender(text: str, cluster: list[tuple[int, int]]) -> str:
    """The genders of a cluster's pronouns: their one gender, or the reason there is none."""
    genders = {PRONOUN_GENDER[text[s:e]] for s, e in cluster if text[s:e] in PRONOUN_GENDER}
    if not genders:
        return "no_pronoun"
    return genders.pop() if len(genders) == 1 else "two_genders"


def _country_template(text: str, cluster: list[tuple[int, int]], gender: str,
                      persons: set[str]) -> tuple[str, str] | str:
    """BiasFinder's country template of one cluster whose pronouns are all ``gender``: its PERSON texts become
    ``<name:gender>``, other mentions stay as written; "no_name" without a PERSON text."""
    names = [text[s:e] in persons and text[s:e] not in PRONOUN_GENDER for s, e in cluster]
    if not any(names):
        return "no_name"
    slots = [f"<name:{gender}>" if is_name else text[s:e] for (s, e), is_name in zip(cluster, names)]
    return _join(_chunks(text, cluster), slots), gender


def _first_valid(text: str, clusters: list[list[tuple[int, int]]], persons: set[str]) -> tuple[str, str] | str:
    """``country_clusters="first-valid"``: the country template of the first cluster, in order, that has one
    gender's pronouns and a PERSON text."""
    for cluster in clusters:
        gender = _pronoun_gender(text, cluster)
        if gender in ("male", "female"):
            made = _country_template(text, cluster, gender, persons)
            if not isinstance(made, str):
                return made
    return "no_valid_cluster"


def templates_of(doc, clusters: list[list[tuple[int, int]]], *, persons: set[str], phrases: _Phrases,
                 pairs: tuple[tuple[str, str], ...], country_clusters: str = "one", pronoun_slots: str = "word"
                 ) -> tuple[tuple[str, str] | str, tuple[str, str] | str]:
    """(gender, country) for one parsed review and its clusters (character spans in cluster order): each a
    (template, gender) or the reason BiasFinder rejects it (:data:`REASONS`). ``persons``: the texts that count as
    person names (BiasFinder: the PERSON entities' texts); ``country_clusters``: ``"one"`` (the country template
    comes from the review's one person cluster, as the gender one) or ``"first-valid"`` (:func:`_first_valid`);
    ``pronoun_slots``: how the gender template's pronoun slots are typed (:func:`pronoun_slot`)."""
    if country_clusters not in COUNTRY_CLUSTERS:
        raise unknown("country_clusters option", country_clusters, COUNTRY_CLUSTERS)
    if pronoun_slots not in PRONOUN_SLOTS:
        raise unknown("pronoun_slots option", pronoun_slots, PRONOUN_SLOTS)
    text = doc.text
    gender, country = _one_cluster(doc, clusters, persons=persons, phrases=phrases, pairs=pairs,
                                   pronoun_slots=pronoun_slots)
    if country_clusters == "first-valid":
        country = _first_valid(text, [c for c in clusters if len(c) > 1], persons)
    return gender, country


def _one_cluster(doc, clusters: list[list[tuple[int, int]]], *, persons: set[str], phrases: _Phrases,
                 pairs: tuple[tuple[str, str], ...], pronoun_slots: str = "word"
                 ) -> tuple[tuple[str, str] | str, tuple[str, str] | str]:
    """BiasFinder's exactly-one rule: (gender, country) from the review's one person cluster."""
    text = doc.text

    def person(cluster) -> bool:
        return any(text[s:e] in PRONOUN_GENDER or text[s:e] in persons or phrases.noun(text[s:e])
                   for s, e in cluster)

    found = [c for c in clusters if len(c) > 1 and person(c)]
    if len(found) != 1:
        reason = "no_person_cluster" if not found else "several_person_clusters"
        return reason, reason
    cluster = found[0]
    gender = _pronoun_gender(text, cluster)
    if gender not in ("male", "female"):
        return gender, gender
    chunks = _chunks(text, cluster)
    male_of = {w: m for m, f in pairs for w in (m, f)}
    slots, ok = [], True
    for s, e in cluster:
        phrase = text[s:e]
        if phrase in PRONOUN_GENDER:
            slots.append(pronoun_slot(doc, s, e, pronoun_slots))
        elif phrase in persons:
            slots.append("<name>")
        elif (noun := phrases.noun(phrase)) and noun.lower() in male_of:
            slots.append(phrase.replace(noun, f"<noun:{male_of[noun.lower()]}>"))
        else:
            ok = False
            break
    made_gender = (_join(chunks, slots), gender) if ok else "mention_not_replaceable"
    return made_gender, _country_template(text, cluster, gender, persons)


def _clusters(resolver, backend: str, doc) -> list[list[tuple[int, int]]]:
    if backend == "neuralcoref":
        return [[(doc[s].idx, doc[e - 1].idx + len(doc[e - 1].text)) for s, e in c["mentions"]]
                for c in resolver.clusters(doc)]
    return [c for c in resolver.resolve_docs([doc])[0] if len(c) > 1]


def paper_templates(corpus: pd.DataFrame, *, backend: str = "neuralcoref", n_process: int = 1,
                    lists: str = "paper", parser: str = SPACY2_PIPELINE,
                    names: str = "entities", nouns: str = "masculine", country_clusters: str = "one",
                    pronoun_slots: str = "word", rejected: dict | None = None, ner: str = LARGER_NER
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(gender templates, country templates) of ``corpus`` under BiasFinder's acceptance (module docstring), each
    with columns ``doc_id, corpus, text, template, gender`` (``text``: the preprocessed review); ``rejected`` (a
    dict, filled): per stage (``gender``, ``country``) the reviews per reason, ``biasfinder:<reason>``. Country
    templates hold ``<name:gender>``
    slots (:mod:`.country`'s format). ``parser``: the spaCy pipeline that parses the reviews and the mentions
    (:func:`toolkit.nlp.load_pipeline`); ``names``: which texts are person names, ``"entities"`` (BiasFinder's: the
    PERSON entities), ``"name-parts"`` (also :func:`name_parts`), ``"cluster"`` (also :func:`cluster_names`) or
    ``"larger-ner"`` (also the PERSON texts of the pipeline ``ner``, :func:`larger_persons`);
    ``nouns``: which gender nouns count (:func:`gender_nouns`); ``country_clusters``: which cluster gives the country template (:func:`templates_of`);
    ``pronoun_slots``: how pronoun slots are typed (:func:`pronoun_slot`)."""
    if names not in NAMES:
        raise unknown("names option", names, NAMES)
    if country_clusters not in COUNTRY_CLUSTERS:
        raise unknown("country_clusters option", country_clusters, COUNTRY_CLUSTERS)
    if pronoun_slots not in PRONOUN_SLOTS:
        raise unknown("pronoun_slots option", pronoun_slots, PRONOUN_SLOTS)
    pairs = word_lists(lists).noun_pairs
    phrases_nouns = gender_nouns(pairs, nouns)  # an unknown option fails here, before the parse
    columns = ["doc_id", "corpus", "text", "template", "gender"]
    texts = preprocess_all(corpus["text"].astype(str), parser=parser)
    keep = texts.map(lambda t: _PREFILTER.search(t) is not None).astype(bool)
    rows = corpus.loc[keep].assign(text=texts[keep])
    resolver = coref.backend(backend)
    nlp = nlp_layer.load_pipeline(parser, disable=("lemmatizer",))
    phrases = _Phrases(nlp, phrases_nouns)
    gender_rows, country_rows = [], []
    reasons = {"gender": Counter(), "country": Counter()}
    docs = executors.parse(nlp, rows["text"].tolist(), batch_size=64, n_process=n_process)
    larger = (larger_persons(rows["text"].tolist(), ner=ner) if names == "larger-ner" else [None] * len(rows))
    for row, doc, more in zip(rows.itertuples(index=False), docs, larger):
        clusters = _clusters(resolver, backend, doc)
        phrases.prepare(doc.text[s:e] for c in clusters for s, e in c)
        persons = person_texts(doc, clusters, names, larger=more)
        made = templates_of(doc, clusters, persons=persons, phrases=phrases, pairs=pairs,
                            country_clusters=country_clusters, pronoun_slots=pronoun_slots)
        for stage, result, out in (("gender", made[0], gender_rows), ("country", made[1], country_rows)):
            if isinstance(result, str):
                reasons[stage][f"biasfinder:{result}"] += 1
            else:
                out.append({"doc_id": row.doc_id, "corpus": row.corpus, "text": doc.text, "template": result[0],
                            "gender": result[1]})
    if rejected is not None:
        rejected.update({stage: dict(counts) for stage, counts in reasons.items()})
    return pd.DataFrame(gender_rows, columns=columns), pd.DataFrame(country_rows, columns=columns)
