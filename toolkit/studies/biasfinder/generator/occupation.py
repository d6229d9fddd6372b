"""BiasFinder's occupation instance (Asyrofi et al. 2021, §III-C): one occupation noun phrase, filled with every
occupation of the ``lists`` preset (:mod:`.lists`): ``curated`` (default; ``toolkit/resources/occupations.json``, 79
single-word, gender-neutral titles compiled for this project) or ``paper`` (BiasFinder's released 79, some
multi-word: "construction worker", "physician's assistant"; one acronym, "CEO").

Rules (spaCy's parse, no coreference model; those this project added are named switches in :mod:`.rules` —
``occupation_other_name``, ``occupation_not_person``, ``occupation_sense``, ``occupation_in_quotes``,
``modifier_phrase``, ``keep_determiner``, ``article_agreement`` — all off under ``coherence="paper"``):

- Pre-filter without parsing: the review mentions exactly one form of one listed occupation ("chef" and "chefs", or
  "chef" and "baker", reject it) and no other name of it (below). Only those reviews are parsed.
- Every mention of that occupation must be a singular common noun (its last word tagged ``NN``; ``NNP`` for an
  acronym such as "CEO") outside any named entity, naming a person: a verb ("they butcher the plot"), a name
  ("Inspector Gadget", tagged ``NNP``), a compound modifier of another noun ("a detective story", "the pilot
  episode") or a word glued to a hyphen ("tailor-made") rejects the review. A multi-word title is one slot; its own
  words are not modifiers. Repeated mentions are taken as coreferent and all become ``<occupation>``; pronouns that
  refer to the person stay (the gender is the review's).
- The occupation must be the person's only job title and a person at all (``toolkit/resources/occupation_senses.json``,
  both presets): another word for the same job anywhere in the review ("the detective … the cop", "the young vet")
  would keep the original beside the fill, and a word with a common non-person sense is rejected where that sense's
  cue words stand in the mention's sentence or the sentences either side ("the pilot … the series": a TV episode).
- Adjectival and compound modifiers left of the noun are removed with their own modifiers ("a very talented pastry
  chef" → "a <occupation>"): rules cannot tell a modifier that clashes with another title ("a Michelin-starred
  chef" → "a Michelin-starred plumber") from a harmless one ("a friendly chef"), so all go. Determiners,
  possessives and numbers stay (also when the parse hangs them under a modifier), and so does everything left of
  them. A removal of more than four tokens, or of anything but words, commas and hyphens ("Boxing Refree +
  Parapsychology ka professor") rejects the review: that is no modifier phrase.
- An "a"/"an" determiner of the title, and any article right before the slot, becomes ``<a>``, filled to agree
  with the word that follows it (:mod:`.articles`): "an experienced lawyer" → "a plumber"; "a small-time lawyer"
  → "a small-time accountant". A capitalised slot (``<A>``, ``<Occupation>``) is filled capitalised.

Not handled: plural mentions (rejected), modifiers right of the noun ("a chef from Lyon" stays), and whether a
swapped occupation fits the story (the annotation study measures that).

Output: the case table (one case per template; ``group`` = ``fill`` = the occupation; the review itself as
``is_original``) with ``occupation`` (the review's for the original, the value for a mutant), ``doc_id``, ``corpus``.
"""
from __future__ import annotations

import re
from collections import Counter
from functools import cache

import pandas as pd

import toolkit.studies.biasfinder.generator.rules as registry
from toolkit import executors
from toolkit.nlp import coref
from toolkit.resources import load_json
from toolkit.studies.biasfinder.generator import articles
from toolkit.studies.biasfinder.generator.lint import fill_flags
from toolkit.studies.biasfinder.generator.lists import word_lists, word_pattern
from toolkit.studies.biasfinder.generator.quotes import inside_short_quote
from toolkit.studies.biasfinder.generator.rules import OCC, OCCUPATION_TEST, rule

TEMPLATE_COLUMNS = ("doc_id", "corpus", "text", "template", "occupation")
_REMOVABLE = ("amod", "compound")
_KEPT = ("det", "poss", "predet", "nummod")
_DETERMINERS = ("DT", "PDT", "PRP$", "WP$", "CD", "POS")  # never removed with the modifiers
_MAX_REMOVED = 4
_OCCUPATION_SLOT = re.compile(r"<(occupation|Occupation)>")


def occupations(*, lists: str = "curated") -> tuple[str, ...]:
    """The 79 occupations of the ``lists`` preset as the list writes them (curated: lower case, sorted; paper: its
    file's order, "CEO" in capitals)."""
    return word_lists(lists).occupations


@cache
def _mention_pattern(lists: str) -> re.Pattern:
    return word_pattern(occupations(lists=lists), plural=True)


def _only_occupation(text: str, lists: str) -> str:
    """The one listed occupation ``text`` mentions (as the list writes it), singular only, else ''."""
    forms = {m.group(0).lower() for m in _mention_pattern(lists).finditer(text)}
    listed = {word.lower(): word for word in occupations(lists=lists)}
    return listed.get(forms.pop(), "") if len(forms) == 1 else ""


def _capitalised(slot: str, upper: bool) -> str:
    return f"<{slot[0].upper()}{slot[1:]}>" if upper else f"<{slot}>"


@cache
def _senses() -> tuple[dict[str, re.Pattern], dict[str, re.Pattern]]:
    """Per occupation (lower case): a pattern for its other names, and one for the cues of its non-person sense."""
    data = load_json("occupation_senses")
    return ({w: word_pattern(v, plural=True) for w, v in data["other_names"].items()},
            {w: word_pattern(v, plural=True) for w, v in data["other_senses"].items()})


def _named_otherwise(text: str, word: str) -> bool:
    """Whether ``text`` also calls the job by another name ("the detective … the cop")."""
    other = _senses()[0].get(word.lower())
    return other is not None and other.search(text) is not None


def _other_sense(doc, span, word: str) -> bool:
    """Whether the mention's sentence or the sentences either side hold a cue of ``word``'s non-person sense."""
    cues = _senses()[1].get(word.lower())
    if cues is None:
        return False
    sents = list(doc.sents)
    at = next(i for i, sent in enumerate(sents) if sent.start <= span.start < sent.end)
    window = doc[sents[max(at - 1, 0)].start:sents[min(at + 1, len(sents) - 1)].end].text
    return cues.search(window) is not None


def _a_person(doc, span) -> bool:
    """Whether the title names a person: not a noun's compound modifier ("detective story", "pilot episode") and
    not glued to a hyphen ("tailor-made", "a lawyer-author")."""
    head = span[-1]
    if head.dep_ == "compound" and head.head.i > head.i:
        return False
    before = doc[span.start - 1] if span.start else None
    after = doc[span.end] if span.end < len(doc) else None
    glued_before = before is not None and before.text == "-" and not before.whitespace_
    glued_after = after is not None and after.text == "-" and not head.whitespace_
    return not (glued_before or glued_after)


def _all_rules() -> frozenset[str]:
    return registry.DEFAULT  # read off the registry when called, once every rule module has registered


@rule("occupation_other_name", instances=OCC, test=OCCUPATION_TEST,
      rejects="the job also called by another name in the review",
      example="The detective is tired. The cop in him never sleeps, and the detective wins.")
def _also_named_otherwise(text: str, word: str) -> bool:
    return bool(word and _named_otherwise(text, word))


@rule("occupation_not_person", instances=OCC, test=OCCUPATION_TEST,
      rejects="the occupation word as a noun's compound modifier or glued to a hyphen (no person)",
      example="It is a detective story about a murder, and the story is dull.")
def _not_a_person(doc, span) -> bool:
    return not _a_person(doc, span)


@rule("occupation_sense", instances=OCC, test=OCCUPATION_TEST,
      rejects="a non-person sense cued in the sentence or the ones either side",
      example="I watched the pilot last night. The series looks promising.")
def _sense_cued(doc, span, word: str) -> bool:
    return _other_sense(doc, span, word)


@rule("occupation_in_quotes", instances=OCC, test=OCCUPATION_TEST,
      rejects="the occupation inside a quote of at most three words", example="He had been an \"attendant\" for years.")
def _in_quotes(doc, span) -> bool:
    return inside_short_quote(doc.text, span.start_char, span.end_char, max_words=3)  # scare quotes or a title


@rule("modifier_phrase", instances=OCC, test=OCCUPATION_TEST,
      rejects="a modifier phrase to remove of more than four tokens or not words",
      example="Boxing Refree + Parapsychology ka professor is the hero.")
def _no_modifier_phrase(region) -> bool:
    # "Boxing Refree + Parapsychology ka professor": not a modifier phrase to drop
    return len(region) > _MAX_REMOVED or any(not (t.is_alpha or t.text in ",-") or t.pos_ in ("SYM", "X", "NUM")
                                             for t in region)


@rule("keep_determiner", instances=OCC, kind="repair",
      test="tests/test_biasfinder_rules.py::test_keep_determiner_keeps_an_article_the_parse_hangs_under_a_removed_"
           "modifier",
      rejects="determiners, possessives and numbers the parse hangs under a removed modifier stay",
      example="One of them, maybe the only one worth redemption enlists the aid of the company pilot to help her … "
              "(off: \"the aid of pilot\")",
      unchanged=lambda doc, start, span: start)
def _after_kept_determiners(doc, start: int, span) -> int:
    return max([start] + [t.i + 1 for t in doc[start:span.start] if t.dep_ in _KEPT or t.tag_ in _DETERMINERS])


@rule("article_agreement", unchanged=lambda determiner: [])
def _determiner_slot(determiner) -> list[tuple[int, int, str]]:
    """The title's own "a"/"an" as ``<a>`` (``<A>``): one edit."""
    return [(determiner.idx, determiner.idx + len(determiner.text), _capitalised("a", determiner.text[0].isupper()))]


def _edits(doc, word: str, rules: frozenset[str] | None = None) -> list[tuple[int, int, str]] | str:
    """(start, end, replacement) character edits turning ``doc`` into a template, or the name of the active rule
    that rejects it ('' for BiasFinder's own rejection: a mention that is no singular common noun outside a named
    entity). ``rules`` None: all."""
    rules = _all_rules() if rules is None else rules
    edits = []
    for match in re.finditer(rf"\b{re.escape(word)}\b", doc.text, flags=re.IGNORECASE):
        span = doc.char_span(match.start(), match.end())
        if span is None:
            return ""
        head = span[-1]
        noun = head.tag_ == "NN" or (word.isupper() and head.tag_ == "NNP")  # "the CEO" is tagged NNP
        if not noun or any(t.ent_type_ for t in span):
            return ""
        if _not_a_person(doc, span, rules=rules):
            return "occupation_not_person"
        if _sense_cued(doc, span, word, rules=rules):
            return "occupation_sense"
        if _in_quotes(doc, span, rules=rules):
            return "occupation_in_quotes"  # he'd been an "attendant": scare quotes or a title
        lefts = [c for token in span for c in token.lefts if c.i < span.start]  # "a physician's assistant"
        kept = [c.right_edge.i for c in lefts if c.dep_ in _KEPT]
        removed = [c.left_edge.i for c in lefts if c.dep_ in _REMOVABLE]
        start = max([min(removed, default=span.start)] + [i + 1 for i in kept]) if removed else span.start
        start = _after_kept_determiners(doc, start, span, rules=rules)
        region = doc[start:span.start]
        if _no_modifier_phrase(region, rules=rules):
            return "modifier_phrase"  # "Boxing Refree + Parapsychology ka professor": not a modifier phrase to drop
        determiner = next((c for c in lefts if c.dep_ == "det" and c.lower_ in ("a", "an")), None)
        if determiner is not None:
            edits += _determiner_slot(determiner, rules=rules)
        first = doc[start]
        upper = first.text[0].isupper() and (first.is_sent_start or (start == span.start and not word[0].isupper()))
        if start < span.start:
            edits.append((first.idx, span.start_char, ""))
        edits.append((span.start_char, span.end_char, _capitalised("occupation", upper)))
    return edits or ""


def occupation_templates(corpus: pd.DataFrame, *, batch_size: int = 64, n_process: int = 1,
                         lists: str = "curated", rules: frozenset[str] | None = None) -> pd.DataFrame:
    """Templates from the reviews of ``corpus`` (a :func:`toolkit.corpora.load` frame) that mention one occupation
    of the ``lists`` preset (see the module docstring) under the active coherence ``rules`` (:mod:`.rules`).
    Columns :data:`TEMPLATE_COLUMNS`; ``attrs["rejected"]``: reviews rejected per rule."""
    rules = _all_rules() if rules is None else rules
    words = corpus["text"].map(lambda text: _only_occupation(text, lists))
    rejected: Counter = Counter()
    other = [_also_named_otherwise(t, w, rules=rules) for t, w in zip(corpus["text"], words)]
    rejected["occupation_other_name"] = sum(other)
    words = words.where([not o for o in other], "")
    candidates = corpus[words != ""]
    nlp = coref.backend("rules").nlp
    rows = []
    docs = executors.parse(nlp, candidates["text"].tolist(), batch_size=batch_size, n_process=n_process)
    for row, word, doc in zip(candidates.itertuples(index=False), words[words != ""], docs):
        edits = _edits(doc, word, rules)
        if isinstance(edits, str):
            if edits:
                rejected[edits] += 1
            continue
        parts, last = [], 0
        for start, end, replacement in sorted(edits):
            parts += [row.text[last:start], replacement]
            last = end
        parts.append(row.text[last:])
        made = "".join(parts)
        rows.append({"doc_id": row.doc_id, "corpus": row.corpus, "text": row.text,
                     "template": articles.agree(made, rules=rules), "occupation": word})
    frame = pd.DataFrame(rows, columns=list(TEMPLATE_COLUMNS))
    frame.attrs["rejected"] = {rule: n for rule, n in rejected.items() if n}
    return frame


def fill_occupation(template: str, *, occupation: str) -> str:
    """``template`` with ``<occupation>`` set to ``occupation`` and each ``<a>`` to the article its next word takes
    (:func:`.articles.resolve`)."""
    filled = _OCCUPATION_SLOT.sub(lambda m: occupation[0].upper() + occupation[1:] if m.group(1)[0] == "O"
                                  else occupation, template)
    return articles.resolve(filled)


def generate_occupation(corpus: pd.DataFrame, *, templates: pd.DataFrame | None = None, n_process: int = 1,
                        lists: str = "curated", rules: frozenset[str] | None = None) -> pd.DataFrame:
    """Occupation mutants of every template (see the module docstring), filled with every occupation of the
    ``lists`` preset, under the active coherence ``rules``; ``templates`` skips the mining. ``attrs["rejected"]``:
    reviews rejected per rule."""
    if templates is None:
        templates = occupation_templates(corpus, n_process=n_process, lists=lists, rules=rules)
    values = occupations(lists=lists)
    flags = fill_flags(values)
    rows = []
    for t in templates.itertuples(index=False):
        case_id = f"biasfinder:occupation:{t.doc_id}"
        common = {"case_id": case_id, "attribute": "occupation", "generator": "biasfinder", "template": t.template,
                  "doc_id": t.doc_id, "corpus": t.corpus}
        rows.append({**common, "variant_id": f"{case_id}:original", "text": t.text, "group": "", "fill": "",
                     "is_original": True, "occupation": t.occupation, "fill_flag": ""})
        for value in values:
            rows.append({**common, "variant_id": f"{case_id}:{value}", "text": fill_occupation(t.template,
                         occupation=value), "group": value, "fill": value, "is_original": False,
                         "occupation": value, "fill_flag": flags.get(value, "")})
    columns = ["case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template", "is_original",
               "occupation", "doc_id", "corpus", "fill_flag"]
    frame = pd.DataFrame(rows, columns=columns)
    frame.attrs["rejected"] = dict(templates.attrs.get("rejected", {}))
    return frame
