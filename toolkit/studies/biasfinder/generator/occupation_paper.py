"""BiasFinder's own occupation method (``acceptance="biasfinder"``, the default of ``coherence="paper"``), read from
its released code (soarsmu/BiasFinder, ``codes/occupation/main.py``; Apache-2.0) and rewritten with spaCy in place
of Stanford CoreNLP. No coreference model is involved.

1. A sentence is a *candidate* when it holds a person mention and an occupation. BiasFinder takes CoreNLP's entity
   mentions: a person is a PERSON mention whose lower-cased text is not in its exclusion list (he, him, her, they,
   we, i, you, and "hisshe": a missing comma in its code, so "his" and "she" stay in) — CoreNLP's entity mentions
   include the pronouns he/him/his/she/her/hers as PERSON (its KBP pronominal mentions), so "his", "she" and "hers"
   count as persons. Ours: spaCy's PERSON entities plus those pronoun tokens, the same exclusion list.
2. An occupation is a one-word CoreNLP TITLE entity whose part of speech is NN or NNS (the POS of the *first* token
   of the sentence with the same text). Ours: a token whose lower-cased text is a one-word title of the vocabulary
   or its plural ("chef", "chefs"), outside any spaCy entity (a CoreNLP token has one NER label), with the same POS
   test on spaCy's tags. CoreNLP's TITLE vocabulary is its own KBP gazetteer (GPL, neither shipped nor consulted),
   far larger than the 79 occupations ("actor", "director", "villain" …); ``titles="extended"`` (the paper preset's
   default) adds a permissively licensed stand-in (:func:`title_vocabulary`), ``titles="paper"`` takes the
   ``lists`` preset's occupations alone (``docs/biasfinder_rules.md``).
3. One template per distinct occupation text of the review (``per_review="each"``, ``main.py``; case-sensitive, as
   BiasFinder keys them), or only the review's first (``"first"``, the paper preset's default: ``utils.py``'s
   ``generateMultipleMutantOcc`` stops at the first template, and its count per review is Table 4's). For each of
   its occurrences, the sentence is re-parsed alone; the first match of the word (lower-case) whose token index was
   not taken before in this review is the occupation (BiasFinder keeps one list of taken indices across sentences
   and words: a quirk kept, as it can skip a sentence); everything from the left edge of its subtree to the word is
   replaced by its left determiners ("a"/"an" → ``<a>``, others kept; a determiner as spaCy 2 tagged it, so "his"
   and "their" too) and the slot, the rest of the sentence kept
   (spaCy's token spacing: "<occupation> ," as BiasFinder's). Every other whole-word match of the occupation in that
   sentence becomes a slot too. The template is the review's sentences joined by single spaces, each mutated
   sentence in its place (the first mutation per sentence).
4. Fills: every occupation of the ``lists`` preset, lower case even at a sentence start (BiasFinder's); ``<a>``
   agrees with the fill (BiasFinder: inflect's ``a()``; ours :func:`.articles.resolve`).

Preprocessing (``cleanup``): BiasFinder's ``preprocessText`` (:func:`.paper.preprocess`, default: its templates
read "1020" and "scifi" for "10-20" and "sci-fi", as its gender and country ones), or ``"tags"``: HTML tags become a
space (the raw review, as ``main.py`` annotated it). ``parser``: the spaCy pipeline standing in for CoreNLP's
sentences, tags and entities; each candidate sentence is re-parsed by the small English pipeline, as BiasFinder's
spaCy step. ``text`` of the original row is the review as the template reproduces it (its sentences joined by single
spaces).

Output: the case table of :func:`.occupation.generate_occupation` (one case per template: ``case_id``
``biasfinder:occupation:<doc_id>``, then ``:<k>`` for a review's k-th further template).
"""
from __future__ import annotations

import hashlib
import re
from collections import Counter
from functools import cache
from importlib import resources

import pandas as pd

from toolkit import executors
from toolkit.errors import unknown
from toolkit.nlp import pipeline as nlp_layer
from toolkit.nlp.spacy2 import PREFIX as SPACY2_PREFIX
from toolkit.nlp.spacy2 import SPACY2_PIPELINE
from toolkit.resources import load_json
from toolkit.studies.biasfinder.generator.lint import fill_flags
from toolkit.studies.biasfinder.generator.lists import word_lists, word_pattern
from toolkit.studies.biasfinder.generator.occupation import fill_occupation
from toolkit.studies.biasfinder.generator.paper import preprocess, preprocess_all

TEMPLATE_COLUMNS = ("doc_id", "corpus", "text", "template", "occupation", "k")
KBP_PRONOUNS = frozenset({"he", "him", "his", "she", "her", "hers"})  # CoreNLP's pronominal PERSON mentions
NOT_NAMES = frozenset({"he", "him", "hisshe", "her", "they", "we", "i", "you"})  # BiasFinder's list, as it runs
REASONS = ("no_title", "no_person_in_sentence", "not_a_noun", "no_span")
# the tags spaCy 2 (BiasFinder's parse) gave the part of speech DET: possessive and wh- determiners too ("his",
# "their", "whose"), which spaCy 3 calls PRON
SPACY2_DET_TAGS = frozenset({"DT", "PDT", "WDT", "PRP$", "WP$"})
TITLES = ("paper", "extended")  # the TITLE vocabulary (:func:`title_vocabulary`)
PER_REVIEW = ("each", "first")  # templates per review: one per distinct occupation (main.py) or the first (utils.py)
CLEANUP = ("biasfinder", "tags")  # how the review is cleaned before annotation (:func:`_clean`)
_TAG = re.compile(r"<.*?>")


def title_forms(words) -> dict[str, str]:
    """Lower-cased forms ("chef", "chefs", "secretaries") → the one-word occupation of ``words`` they name."""
    forms = {}
    for word in words:
        if len(word.split()) != 1:
            continue  # a TITLE of two words is not taken (BiasFinder: len(split()) == 1)
        low = word.lower()
        plurals = [low + "s", low + "es"] + ([low[:-1] + "ies"] if low.endswith("y") else [])
        forms.update({form: word for form in [low, *plurals]})
    return forms


def _persons(sent) -> bool:
    """Whether the sentence holds a person mention BiasFinder counts (module docstring, step 1)."""
    mentions = [e.text for e in sent.ents if e.label_ == "PERSON"] + [t.text for t in sent if t.lower_ in KBP_PRONOUNS]
    return any(m.lower() not in NOT_NAMES for m in mentions)


def titles(sent, forms: dict[str, str]) -> list[str] | str:
    """The occupation texts of one sentence in order (step 2), or the reason it has none (:data:`REASONS`)."""
    found = [t for t in sent if t.lower_ in forms and not t.ent_type_]
    if not found:
        return "no_title"
    if not _persons(sent):
        return "no_person_in_sentence"
    out = []
    for token in found:
        first = next(t for t in sent if t.text == token.text)
        if first.tag_ in ("NN", "NNS"):
            out.append(token.text)
    return out or "not_a_noun"


def mutate_sentence(doc, word: str, taken: list[int]) -> str:
    """One sentence (``doc``, parsed alone) with the first untaken mention of ``word`` and its left modifiers made a
    slot (step 3), or '' when every mention's index is taken. ``taken`` grows by the index used."""
    token = next((t for t in doc if t.lower_ == word.lower() and t.i not in taken), None)
    if token is None:
        return ""
    taken.append(token.i)
    start = min([token.i] + [t.i for t in token.subtree])
    dets = ["<DET>" if c.lower_ in ("a", "an") else c.text for c in token.children
            if (c.pos_ == "DET" or c.tag_ in SPACY2_DET_TAGS) and c.i < token.i]
    made = f"{doc[:start].text} {' '.join([*dets, '<OCC>'])} {doc[token.i + 1:].text}".strip()
    return re.sub(rf"\b{re.escape(word)}\b", "<OCC>", made).strip()


def _slots(template: str) -> str:
    """BiasFinder's ``<DET> <OCC>`` / ``<OCC>`` as this toolkit's ``<a> <occupation>`` / ``<occupation>``."""
    return template.replace("<DET> <OCC>", "<a> <occupation>").replace("<OCC>", "<occupation>").replace("<DET>", "<a>")


def templates_of(doc, sentence_nlp, forms: dict[str, str]) -> tuple[list[tuple[str, str]], Counter]:
    """(template, occupation) pairs for one parsed review, in BiasFinder's order, and why sentences gave none."""
    sents = list(doc.sents)
    reasons: Counter = Counter()
    keys: dict[str, list[int]] = {}
    for i, sent in enumerate(sents):
        found = titles(sent, forms)
        if isinstance(found, str):
            if found != "no_title":
                reasons[found] += 1
            continue
        for word in found:
            keys.setdefault(word, []).append(i)
    taken: list[int] = []
    out = []
    for word, where in keys.items():
        mutated: dict[int, str] = {}
        for i in where:
            made = mutate_sentence(sentence_nlp(sents[i].text), word, taken)
            if made:
                mutated.setdefault(i, made)
            else:
                reasons["no_span"] += 1
        if mutated:
            template = " ".join(mutated.get(i, s.text) for i, s in enumerate(sents))
            out.append((_slots(template), forms.get(word.lower(), word)))
    return out, reasons


@cache
def title_vocabulary(titles: str = "paper", lists: str = "paper") -> tuple[str, ...]:
    """The TITLE vocabulary: ``"paper"``, the ``lists`` preset's occupations; ``"extended"``, those and
    ``toolkit/resources/biasfinder_titles.json`` (head nouns of Faker's job titles and a film-and-story list, both
    permissively licensed; ``scripts/build_biasfinder_titles.py``), a stand-in for CoreNLP's TITLE gazetteer."""
    if titles not in TITLES:
        raise unknown("titles option", titles, TITLES)
    words = word_lists(lists).occupations
    if titles == "extended":
        extra = load_json("biasfinder_titles")
        words = tuple(dict.fromkeys([*words, *extra["from_faker"], *extra["film_and_story"]]))
    return words


def title_record(titles: str = "paper", lists: str = "paper") -> dict:
    """Provenance of a TITLE vocabulary: its name, size and, for ``"extended"``, the resource's SHA-256 and
    sources."""
    out = {"titles": titles, "words": len(title_vocabulary(titles, lists))}
    if titles == "extended":
        text = resources.files("toolkit.resources").joinpath("biasfinder_titles.json").read_bytes()
        out.update(sha256=hashlib.sha256(text).hexdigest(), sources=load_json("biasfinder_titles")["sources"])
    return out


@cache
def _prefilter(words: tuple[str, ...]) -> re.Pattern:
    return word_pattern([w for w in words if len(w.split()) == 1], plural=True)


def _clean(text: str, *, cleanup: str) -> str:
    """The review as the method reads it: BiasFinder's ``preprocessText`` (``"biasfinder"``) or HTML tags as a
    space and runs of spaces as one (``"tags"``)."""
    if cleanup == "biasfinder":
        return preprocess(text)
    return re.sub(r" +", " ", _TAG.sub(" ", text)).strip()


def occupation_templates_paper(corpus: pd.DataFrame, *, n_process: int = 1, lists: str = "paper",
                               words: tuple[str, ...] | None = None, titles: str = "paper",
                               parser: str = SPACY2_PIPELINE, cleanup: str = "biasfinder",
                               per_review: str = "each", rejected: dict | None = None) -> pd.DataFrame:
    """BiasFinder's occupation templates of ``corpus`` (module docstring). ``titles``: the TITLE vocabulary
    (:func:`title_vocabulary`); ``words`` overrides it (a benchmark may pass any). ``parser``: the spaCy pipeline
    standing in for CoreNLP's sentences, tags and entities (each sentence is re-parsed by the small English
    pipeline, as BiasFinder's spaCy step did; by spaCy 2 itself when ``parser`` is ``"spacy2:…"``). ``cleanup``:
    ``"biasfinder"`` (its ``preprocessText``, as the gender and country instances) or ``"tags"``. ``per_review``:
    ``"each"`` distinct occupation its template (``main.py``)
    or only the ``"first"`` one in the text (``utils.py``'s ``generateMultipleMutantOcc``, which stops at the first
    template). Columns :data:`TEMPLATE_COLUMNS` (``k``: the template's rank within its review); ``rejected`` (a dict,
    filled): sentences per reason, ``biasfinder:<reason>``."""
    if cleanup not in CLEANUP:
        raise unknown("cleanup option", cleanup, CLEANUP)
    if per_review not in PER_REVIEW:
        raise unknown("per_review option", per_review, PER_REVIEW)
    vocabulary = title_vocabulary(titles, lists) if words is None else tuple(words)
    forms = title_forms(vocabulary)
    pattern = _prefilter(vocabulary)
    texts = (preprocess_all(corpus["text"].astype(str), parser=parser) if cleanup == "biasfinder"
             else corpus["text"].astype(str).map(lambda t: _clean(t, cleanup=cleanup)))
    keep = texts.map(lambda t: pattern.search(t) is not None).astype(bool)
    rows = corpus.loc[keep].assign(text=texts[keep])
    nlp = nlp_layer.load_pipeline(parser, disable=("lemmatizer",))
    # BiasFinder re-parsed each sentence with spaCy 2's en_core_web_sm: that very parser when it is the one given
    sentence_nlp = nlp_layer.load_pipeline(parser if parser.startswith(SPACY2_PREFIX) else nlp_layer.DEFAULT_PIPELINE,
                                           disable=("lemmatizer",))
    out, reasons = [], Counter()
    docs = executors.parse(nlp, rows["text"].tolist(), batch_size=64, n_process=n_process)
    for row, doc in zip(rows.itertuples(index=False), docs):
        made, found_reasons = templates_of(doc, sentence_nlp, forms)
        if per_review == "first":
            made = made[:1]
        reasons.update(found_reasons)
        original = " ".join(s.text for s in doc.sents)
        for k, (template, word) in enumerate(made):
            out.append({"doc_id": row.doc_id, "corpus": row.corpus, "text": original, "template": template,
                        "occupation": word, "k": k})
    if rejected is not None:
        rejected.update({f"biasfinder:{reason}": n for reason, n in reasons.items() if n})
    return pd.DataFrame(out, columns=list(TEMPLATE_COLUMNS))


def generate_occupation_paper(corpus: pd.DataFrame, *, templates: pd.DataFrame | None = None, n_process: int = 1,
                              lists: str = "paper", titles: str = "paper", parser: str = SPACY2_PIPELINE,
                              cleanup: str = "biasfinder", per_review: str = "each",
                              rejected: dict | None = None) -> pd.DataFrame:
    """Occupation mutants of BiasFinder's templates (module docstring), filled with every occupation of the
    ``lists`` preset (whatever TITLE vocabulary found the slot); the columns of
    :func:`.occupation.generate_occupation`. ``titles``, ``parser``, ``cleanup``, ``per_review``:
    :func:`occupation_templates_paper`.
    ``rejected`` (a dict, filled when this call mines): sentences per reason."""
    if templates is None:
        templates = occupation_templates_paper(corpus, n_process=n_process, lists=lists, titles=titles,
                                               parser=parser, cleanup=cleanup, per_review=per_review,
                                               rejected=rejected)
    values = word_lists(lists).occupations
    flags = fill_flags(values)
    rows = []
    for t in templates.itertuples(index=False):
        case_id = f"biasfinder:occupation:{t.doc_id}" + (f":{t.k}" if t.k else "")
        common = {"case_id": case_id, "attribute": "occupation", "generator": "biasfinder", "template": t.template,
                  "doc_id": t.doc_id, "corpus": t.corpus}
        rows.append({**common, "variant_id": f"{case_id}:original", "text": t.text, "group": "", "fill": "",
                     "is_original": True, "occupation": t.occupation, "fill_flag": ""})
        for value in values:
            rows.append({**common, "variant_id": f"{case_id}:{value}",
                         "text": fill_occupation(t.template, occupation=value), "group": value, "fill": value,
                         "is_original": False, "occupation": value, "fill_flag": flags.get(value, "")})
    columns = ["case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template", "is_original",
               "occupation", "doc_id", "corpus", "fill_flag"]
    return pd.DataFrame(rows, columns=columns)
