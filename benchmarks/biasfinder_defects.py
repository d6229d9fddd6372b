"""Mechanical defects of BiasFinder mutants, counted (issue 16, "Measure, then report"): run it before and after a
generator fix and watch that fix's count go to zero.

    python benchmarks/biasfinder_defects.py data/results/bf_full_paper/biasfinder_scored.parquet
    python benchmarks/biasfinder_defects.py --corpus ../shared/data/imdb/imdb_train.csv.gz --lists paper --limit 2000
    python benchmarks/biasfinder_defects.py cases.csv --out defects.csv --no-parse

Input: a BiasFinder case table (CSV or Parquet): the frame :func:`toolkit.studies.biasfinder.generate` returns, or the scored
table ``python -m toolkit biasfinder ... --scored`` writes (one row per model × mutant; rows are deduplicated on
``variant_id``). Every case needs its original (``is_original``) row: a mutant is compared with it. With
``--corpus`` the cases are generated from that corpus (``--lists``, ``--limit`` reviews, ``--n-process``) instead.

Output: :func:`count_defects` returns a tidy frame, one row per attribute × defect: ``attribute, defect, mutants``
(mutants with the defect at least once), ``templates`` (distinct ``case_id`` among them) and ``example`` (a snippet
of one defective mutant around the defect); totals per attribute are in ``attrs["totals"]``. :func:`main` prints it.

What is counted (per mutant, ``is_original`` False; only what the mutation made, never what the review already had):

- ``article`` (every attribute): an "a"/"an" that disagrees with the word after it, where the article or that word
  was changed by the mutation ("a Amanda film", "an small-time accountant", "a accountant-author"). Rule: "an"
  before a vowel letter, with exceptions — "an" before hour/honest/honour/heir, "a" before a "you"/"w" sound
  (one, once, uni-, use-, usu-, uti-, uto-, Euro-/eu-, U-), single letters and short all-capital acronyms by the
  letter's name ("an FBI"; an all-capital word is counted only when the letter reading and the word reading agree),
  numbers ("an 8", "an 18"); a few words take either ("an historic", "a herb"). A pair already in the original review
  (the same article before the same word) is not counted.
- ``other_gender_word`` (gender, country): a gendered word left unchanged in the mutant (not in a slot) whose gender
  contradicts the mutant's gender: a pronoun he/him/his/himself/she/her/hers/herself (found even when glued to
  punctuation: ``…",he admits``) or an honorific Mr/Mr./Mister/Sir/Mrs/Mrs./Ms/Ms./Miss/Lady/Madam/Madame (written
  with a capital and followed by a capitalised word or the name: "Mr. Mary"). Since a template holds one person, such
  a word is a leftover of the original's gender. Also split into ``other_gender_pronoun`` and
  ``other_gender_honorific`` (a mutant can be in both; ``other_gender_word`` counts it once).
- ``doubled_word`` (every attribute): the same word twice in a row ("the the", "Robert Robert") where one of the two
  was changed, and the pair is not in the original review. "her her" ("gave him his" → "gave her her"), "had had"
  and "that that" are grammatical and not counted.
- ``partial_name`` (gender, country): a capitalised word right next to a filled name (only spaces between) that was
  part of the original name: original "Shia LaBeouf" → "Shia Mary" or "Mary LaBeouf", "a Dario Argento fan" →
  "a Dario Amanda fan". A neighbour counts when it is not a function word, pronoun, honorific or title (Director,
  Uncle, …) and spaCy tags it a proper noun (or a PERSON entity) in the original review (``parse=False``: the word
  test alone).
- ``slot_in_quotes`` (every attribute): a slot changed in the mutant lies inside a quoted span of the template —
  ``"…"``, ``“…”`` or ``'…'`` on one line (a quoted title or line of dialogue now names someone else).
- ``occupation_compound`` (occupation): the occupation is a compound modifier of a noun after it ("detective story",
  "pilot episode", "butcher knife"): spaCy's parse of the original review (a window around the occupation, once per
  template) gives its last word ``dep_ == "compound"`` with its head to the right. ``parse=False``: the next word is
  a lower-case word that is not a function word (rough).

The rules here (a/an, pronouns, honorifics, quotes) are written again on purpose, apart from the generator's
(``toolkit/studies/biasfinder/generator/articles.py``, ``quotes.py``, ``gender.py``): a checker that imported the code it
checks could only ever agree with it.

How (fast enough for ~220,000 mutants of ~15,000 templates on 2 cores): each mutant is aligned with its template
(the template's literal text between the slots is found in order, so each slot's filled value is known in the
original and in the mutant); a slot whose value differs is a changed spot and only the text around it is tokenised
(a regex that splits punctuation). A mutant that does not align falls back to ``difflib`` on word tokens against the
original. Words left in the template (gendered words, quotes, neighbours of a name, the occupation's parse) are
found once per template; spaCy parses only small windows of the original reviews that need it.
"""
from __future__ import annotations

import argparse
import difflib
import re
import sys
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

DEFECTS = {
    "gender": ("article", "other_gender_word", "other_gender_pronoun", "other_gender_honorific", "doubled_word",
               "partial_name", "slot_in_quotes"),
    "country": ("article", "other_gender_word", "other_gender_pronoun", "other_gender_honorific", "doubled_word",
                "partial_name", "slot_in_quotes"),
    "occupation": ("article", "doubled_word", "slot_in_quotes", "occupation_compound"),
}
OUTPUT_COLUMNS = ("attribute", "defect", "mutants", "templates", "example")
NEEDED = ("case_id", "variant_id", "text", "attribute", "group", "template", "is_original", "gender")

SLOT = re.compile(r"<(?:name(?::(?:female|male))?|subj|obj|pos|poss|refl|noun:[^<>\s]+|a|occupation)>",
                  re.IGNORECASE)
TOKEN = re.compile(r"\w+(?:['’\-]\w+)*|[^\w\s]")
_WORD = re.compile(r"\w")
PRONOUNS = {"he": "male", "him": "male", "his": "male", "himself": "male",
            "she": "female", "her": "female", "hers": "female", "herself": "female"}
HONORIFICS = {"Mr": "male", "Mister": "male", "Sir": "male",
              "Mrs": "female", "Ms": "female", "Miss": "female", "Lady": "female", "Madam": "female",
              "Madame": "female"}
_PRONOUN = re.compile(r"\b(he|him|his|himself|she|her|hers|herself)\b", re.IGNORECASE)
_HONORIFIC = re.compile(r"\b(" + "|".join(HONORIFICS) + r")\b\.?[ \t]+(?=[A-Z<])")
_QUOTED = re.compile(r'"[^"\n]{1,300}"|“[^”\n]{1,300}”|(?<!\w)\'(?![\s\'])[^\'\n]{1,120}(?<!\s)\'(?!\w)')
_LEFT_WORD = re.compile(r"(?<![\w'’\-])([A-Z][\w'’\-]*)[ \t]+$")
_RIGHT_WORD = re.compile(r"^[ \t]+([A-Z][\w'’\-]*)")
_NEXT_WORD = re.compile(r"^[ \t]+([a-z][a-z\-]*)\b")
GRAMMATICAL_DOUBLES = {"her", "had", "that"}

# a/an
_AN_FIRST = re.compile(r"^(?:hour|honest|honor|honour|heir|x-|x$)")
_EITHER = re.compile(r"^(?:histori|herb|hotel)")
_A_FIRST = re.compile(r"^(?:one(?:$|[-'’]|s$)|once|eu|ewe|uni(?![mnd])|unanim|us[aeu]|usur|uti|uto|ur[aei]|ubiq|uk|"
                      r"ufo|ugand|u$|u-)")
_LETTER_AN = set("aefhilmnorsx")

FUNCTION_WORDS = set("""
a an the and or but nor so yet for if when while as because since though although unless until after before once
then than that this these those there here where why how what who whom whose which whoever whatever yes no not oh
ah well even only just also now still again ever never always often sometimes perhaps maybe both either neither all
every each any some many much more most few less least other another such like unlike with without within about
above below from into onto upon over under between among through during against toward towards of in on at by to
up down out off near via per i me my mine we us our ours you your yours it its they them their theirs he him his
himself she her hers herself is are was were be been being am do does did have has had will would shall should can
could may might must let see watch watching seeing starring featuring meet meeting thank thanks dear poor young
old little big good great bad best worst new first last next same sure very too really quite
""".split())
TITLES = set("""
mr mrs ms miss mister sir lady madam madame dame lord dr doctor prof professor director actor actress star co-star
costar producer writer screenwriter author composer singer rapper comedian host narrator reporter agent detective
inspector officer captain capt general colonel sergeant sgt lieutenant lt commander admiral judge president senator
governor mayor king queen prince princess duke duchess count countess emperor empress pope father mother brother
sister uncle aunt grandpa grandma son daughter saint st rev reverend pastor coach chef nurse hero heroine villain
""".split())


def article_for(word: str) -> str | None:
    """The article ``word`` takes, "a" or "an"; None when either is fine or the rule cannot tell."""
    if not word or not word[0].isalnum():
        return None
    lower = unicodedata.normalize("NFKD", word.lower())  # "Émile" → "emile"
    if word[0].isdigit():
        digits = re.match(r"[\d,]+", word).group(0)
        eleven = digits[:2] in ("11", "18") and (len(digits) == 2 or (len(digits) > 2 and digits[2] == ","))
        return "an" if digits[0] == "8" or eleven else "a"
    if len(word) == 1:
        return "an" if lower in _LETTER_AN else "a"
    by_word = ("an" if _AN_FIRST.match(lower) else None if _EITHER.match(lower)
               else "a" if _A_FIRST.match(lower) else "an" if lower[0] in "aeiou" else "a")
    if word.isupper() and word.isalpha() and len(word) <= 5:  # an acronym or a shouted word: both readings agree?
        by_letter = "an" if lower[0] in _LETTER_AN else "a"
        return by_letter if by_letter == by_word else None
    return by_word


def _snippet(text: str, start: int, end: int, width: int = 40) -> str:
    left, right = max(0, start - width), min(len(text), end + width)
    body = re.sub(r"\s+", " ", text[left:right]).strip()
    return ("…" if left > 0 else "") + body + ("…" if right < len(text) else "")


@dataclass
class _Template:
    """What one case's template and original give, computed once."""

    literals: list[str]
    slots: list[str]  # lower-case slot names, e.g. "name", "name:female", "occupation"
    slot_at: list[int]  # each slot's offset in the template
    original: list[str] | None  # each slot's value in the original (None: the original does not align)
    original_spans: list[tuple[int, int]] | None
    bigrams: set[tuple[str, str]]
    gendered: list[tuple[str, str, int]] = field(default_factory=list)  # (gender, "pronoun"|"honorific", offset)
    quoted: set[int] = field(default_factory=set)  # slots inside quotes
    partial: list[tuple[int, int]] = field(default_factory=list)  # (name slot, neighbour offset in the template)
    compound: list[int] = field(default_factory=list)  # occupation slots that modify a noun


def _split(template: str) -> tuple[list[str], list[str], list[int]]:
    literals, slots, at, last = [], [], [], 0
    for match in SLOT.finditer(template):
        literals.append(template[last:match.start()])
        slots.append(match.group(0)[1:-1].lower())
        at.append(match.start())
        last = match.end()
    literals.append(template[last:])
    return literals, slots, at


def align(text: str, literals: Sequence[str]) -> list[tuple[int, int]] | None:
    """The (start, end) of each slot's value in ``text`` when ``text`` is the template of ``literals`` filled (each
    literal found in order, the first one leftmost); None when it is not."""
    if not text.startswith(literals[0]) or not text.endswith(literals[-1]):
        return None
    spans, pos, last = [], len(literals[0]), len(text) - len(literals[-1])
    for literal in literals[1:-1]:
        found = text.find(literal, pos)
        if found < 0 or found > last:
            return None
        spans.append((pos, found))
        pos = found + len(literal)
    if len(literals) > 1:
        if pos > last:
            return None
        spans.append((pos, last))
    return spans


def _bigrams(text: str) -> set[tuple[str, str]]:
    words = [w.lower() for w in TOKEN.findall(text)]
    return set(zip(words, words[1:]))


def _to_text_offset(info: _Template, values: Sequence[str], offset: int) -> int:
    """A template offset as an offset in the text whose slot values are ``values``."""
    shift = 0
    for i, at in enumerate(info.slot_at):
        if at >= offset:
            break
        shift += len(values[i]) - (len(info.slots[i]) + 2)
    return offset + shift


def _prepare_template(template: str, original: str, attribute: str) -> _Template:
    literals, slots, at = _split(template)
    spans = align(original, literals) if slots else None
    values = [original[s:e] for s, e in spans] if spans is not None else None
    info = _Template(literals=literals, slots=slots, slot_at=at, original=values, original_spans=spans,
                     bigrams=_bigrams(original))
    blank = SLOT.sub(lambda m: "\0" * len(m.group(0)), template)  # slots out of the word searches
    if attribute in ("gender", "country"):
        for m in _PRONOUN.finditer(blank):
            info.gendered.append((PRONOUNS[m.group(1).lower()], "pronoun", m.start()))
        for m in _HONORIFIC.finditer(template):
            info.gendered.append((HONORIFICS[m.group(1)], "honorific", m.start()))
        for i, slot in enumerate(slots):
            if not slot.startswith("name"):
                continue
            before = _LEFT_WORD.search(literals[i])
            after = _RIGHT_WORD.search(literals[i + 1])
            for found, offset in ((before, at[i] - len(literals[i]) + before.start(1) if before else 0),
                                  (after, at[i] + len(slot) + 2 + after.start(1) if after else 0)):
                if found is None:
                    continue
                word = re.sub(r"['’]s$", "", found.group(1)).lower()
                if word in FUNCTION_WORDS or word in TITLES or word in PRONOUNS or found.group(1) == "I":
                    continue
                info.partial.append((i, offset))
    for m in _QUOTED.finditer(template):
        info.quoted.update(i for i, a in enumerate(at) if m.start() < a < m.end())
    if attribute == "occupation":
        info.compound = [i for i, slot in enumerate(slots)
                         if slot == "occupation" and _NEXT_WORD.search(literals[i + 1])
                         and _NEXT_WORD.search(literals[i + 1]).group(1) not in FUNCTION_WORDS]
    return info


def _confirm_with_parse(infos: dict[str, _Template], originals: dict[str, str], n_process: int = 1) -> None:
    """Keep the partial-name neighbours spaCy tags a proper noun, and the occupations it parses as a compound
    modifier of a later noun, each from a window of the original review."""
    jobs = []  # (case, kind, index, window start, start, end)
    for case, info in infos.items():
        if info.original is None:
            info.partial, info.compound = [], []
            continue
        for k, (i, offset) in enumerate(info.partial):
            start = _to_text_offset(info, info.original, offset)
            word = TOKEN.match(originals[case], start)
            end = word.end() if word else start + 1
            jobs.append((case, "partial", k, start, end))
        for k, i in enumerate(info.compound):
            start, end = info.original_spans[i]
            jobs.append((case, "compound", k, start, end))
    if not jobs:
        return
    from toolkit.nlp import load_pipeline

    nlp = load_pipeline()
    windows = []
    for case, _, _, start, end in jobs:
        text = originals[case]
        left = max(0, start - 200)
        left = max(left, text.rfind("\n", left, start) + 1)
        right = min(len(text), end + 200)
        newline = text.find("\n", end, right)
        windows.append((left, text[left:newline if newline >= 0 else right]))
    keep: dict[tuple[str, str], set[int]] = {}
    processes = n_process if len(jobs) >= 5000 else 1  # a second process costs a model load: only for many windows
    docs = nlp.pipe((w for _, w in windows), batch_size=256, n_process=processes)
    for (case, kind, k, start, end), (left, _), doc in zip(jobs, windows, docs):
        span = doc.char_span(start - left, end - left, alignment_mode="expand")
        if span is None or not len(span):
            continue
        if kind == "partial":
            token = span[0]
            ok = token.pos_ == "PROPN" or token.tag_ in ("NNP", "NNPS") or token.ent_type_ == "PERSON"
        else:
            token = span[-1]
            ok = token.dep_ == "compound" and token.head.i > token.i
        if ok:
            keep.setdefault((case, kind), set()).add(k)
    for case, info in infos.items():
        info.partial = [p for k, p in enumerate(info.partial) if k in keep.get((case, "partial"), ())]
        info.compound = [c for k, c in enumerate(info.compound) if k in keep.get((case, "compound"), ())]


def _local_checks(tokens: list[tuple[str, int, int]], changed: list[bool], junction: list[bool],
                  bigrams: set[tuple[str, str]]) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(article defect, doubled-word defect) character spans in the tokens' text, or None each."""
    article = doubled = None
    for k in range(len(tokens) - 1):
        word, start, _ = tokens[k]
        following, _, end = tokens[k + 1]
        near = changed[k] or changed[k + 1] or junction[k + 1]
        if not near:
            continue
        lower, lower_next = word.lower(), following.lower()
        if article is None and lower in ("a", "an") and _WORD.match(following):
            wanted = article_for(following)
            if wanted is not None and wanted != lower and (lower, lower_next) not in bigrams:
                article = (start, end)
        if (doubled is None and lower == lower_next and _WORD.match(word) and lower not in GRAMMATICAL_DOUBLES
                and (lower, lower_next) not in bigrams):
            doubled = (start, end)
    return article, doubled


def _window_checks(text: str, regions: list[tuple[int, int]], bigrams: set[tuple[str, str]]):
    """Article and doubled-word checks around each changed region (start, end) of ``text``."""
    found_article = found_doubled = None
    for start, end in regions:
        left, right = max(0, start - 40), min(len(text), end + 40)
        tokens = [(m.group(0), m.start(), m.end()) for m in TOKEN.finditer(text, left, right)]
        changed = [s < end and e > start for _, s, e in tokens]
        junction = [start == end and s >= end and (k == 0 or tokens[k - 1][2] <= start)
                    for k, (_, s, _) in enumerate(tokens)]
        article, doubled = _local_checks(tokens, changed, junction, bigrams)
        found_article = found_article or article
        found_doubled = found_doubled or doubled
        if found_article and found_doubled:
            break
    return found_article, found_doubled


def _diff_checks(text: str, original: str, bigrams: set[tuple[str, str]]):
    """The fallback: article and doubled-word checks at the tokens ``difflib`` finds changed."""
    tokens = [(m.group(0), m.start(), m.end()) for m in TOKEN.finditer(text)]
    before = TOKEN.findall(original)
    changed, junction = [False] * len(tokens), [False] * (len(tokens) + 1)
    matcher = difflib.SequenceMatcher(None, before, [w for w, _, _ in tokens], autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for j in range(j1, j2):
            changed[j] = True
        if j1 == j2:
            junction[j1] = True
    return _local_checks(tokens, changed, junction[:len(tokens)], bigrams)


def _read(path: str | Path) -> pd.DataFrame:
    path = Path(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        names = set(pq.read_schema(path).names)
        return pd.read_parquet(path, columns=[c for c in NEEDED if c in names])
    from toolkit.results import read_table  # takes off the CSV formula guard the toolkit writes

    return read_table(path, dtype=str, usecols=lambda c: c in NEEDED)


def _normalise(cases: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in ("case_id", "variant_id", "text", "attribute", "template", "is_original")
               if c not in cases.columns]
    if missing:
        raise ValueError(f"not a BiasFinder case table: no {', '.join(missing)} column(s).")
    frame = cases.loc[:, [c for c in NEEDED if c in cases.columns]].drop_duplicates("variant_id")
    for column in NEEDED:
        if column == "is_original":
            continue
        frame[column] = frame[column].astype(str).replace({"nan": "", "None": "", "<NA>": ""}) \
            if column in frame.columns else ""
    flag = frame["is_original"]
    if flag.dtype != bool:
        flag = flag.astype(str).str.strip().str.lower().isin(("true", "1", "yes"))
    frame["is_original"] = flag
    return frame.reset_index(drop=True)


class _Tally:
    def __init__(self) -> None:
        self.mutants: dict[tuple[str, str], int] = {}
        self.templates: dict[tuple[str, str], set[str]] = {}
        self.example: dict[tuple[str, str], str] = {}

    def add(self, attribute: str, defect: str, case: str, text: str, span: tuple[int, int]) -> None:
        key = (attribute, defect)
        self.mutants[key] = self.mutants.get(key, 0) + 1
        self.templates.setdefault(key, set()).add(case)
        if key not in self.example:
            self.example[key] = _snippet(text, *span)


def count_defects(cases: pd.DataFrame, *, parse: bool = True, n_process: int = 1) -> pd.DataFrame:
    """Mechanical defects of the mutants of a BiasFinder case table (see the module docstring): one row per
    attribute × defect, columns :data:`OUTPUT_COLUMNS`. ``parse=False`` skips spaCy (partial names and occupation
    compounds by word tests alone). ``attrs["totals"]``: mutants and templates per attribute, and mutants skipped
    for having no original row."""
    frame = _normalise(cases)
    originals = frame[frame["is_original"]].drop_duplicates("case_id")
    original_text = dict(zip(originals["case_id"], originals["text"]))
    mutants = frame[~frame["is_original"]]
    infos: dict[str, _Template] = {}
    first = mutants.drop_duplicates("case_id")
    for case, template, attribute in zip(first["case_id"], first["template"], first["attribute"]):
        if case in original_text:
            infos[case] = _prepare_template(template, original_text[case], attribute)
    if parse:
        _confirm_with_parse(infos, original_text, n_process=n_process)
    else:
        for info in infos.values():
            if info.original is None:
                info.partial, info.compound = [], []

    tally, skipped = _Tally(), 0
    for case, text, attribute, group, gender in zip(mutants["case_id"], mutants["text"], mutants["attribute"],
                                                    mutants["group"], mutants["gender"]):
        info = infos.get(case)
        if info is None:
            skipped += 1
            continue
        spans = align(text, info.literals) if info.original is not None else None
        if spans is not None:
            values = [text[s:e] for s, e in spans]
            changed = {i for i, v in enumerate(values) if v != info.original[i]}
            regions = [spans[i] for i in sorted(changed)]
            article, doubled = _window_checks(text, regions, info.bigrams)
        else:  # fall back on a word diff against the original
            values, changed = None, set(range(len(info.slots)))
            article, doubled = _diff_checks(text, original_text[case], info.bigrams)
        if article:
            tally.add(attribute, "article", case, text, article)
        if doubled:
            tally.add(attribute, "doubled_word", case, text, doubled)
        if not changed:
            continue

        def place(offset: int, length: int = 1) -> tuple[int, int]:
            at = _to_text_offset(info, values, offset) if values is not None else 0
            return at, at + length

        mine = group if attribute == "gender" else gender  # the gender instance's group, the country template's
        if info.gendered and mine in ("female", "male"):
            wrong = [(kind, offset) for g, kind, offset in info.gendered if g != mine]
            if wrong:
                tally.add(attribute, "other_gender_word", case, text, place(wrong[0][1], 3))
                for kind in ("pronoun", "honorific"):
                    offset = next((o for k, o in wrong if k == kind), None)
                    if offset is not None:
                        tally.add(attribute, f"other_gender_{kind}", case, text, place(offset, 3))
        hit = next(((i, o) for i, o in info.partial if i in changed), None)
        if hit is not None:
            tally.add(attribute, "partial_name", case, text, place(hit[1], 3))
        quoted = next((i for i in sorted(info.quoted) if i in changed), None)
        if quoted is not None:
            tally.add(attribute, "slot_in_quotes", case, text, place(info.slot_at[quoted], 3))
        compound = next((i for i in info.compound
                         if values is None or values[i].lower() != info.original[i].lower()), None)
        if compound is not None:
            tally.add(attribute, "occupation_compound", case, text, place(info.slot_at[compound], 3))

    rows = []
    totals = {}
    for attribute in [a for a in DEFECTS if a in set(frame["attribute"])] + sorted(
            set(frame["attribute"]) - set(DEFECTS)):
        of = mutants[mutants["attribute"] == attribute]
        totals[attribute] = {"mutants": int(len(of)), "templates": int(of["case_id"].nunique())}
        for defect in DEFECTS.get(attribute, DEFECTS["gender"]):
            key = (attribute, defect)
            rows.append({"attribute": attribute, "defect": defect, "mutants": tally.mutants.get(key, 0),
                         "templates": len(tally.templates.get(key, ())), "example": tally.example.get(key, "")})
    out = pd.DataFrame(rows, columns=list(OUTPUT_COLUMNS))
    out.attrs["totals"] = totals
    out.attrs["skipped_no_original"] = skipped
    return out


def render(defects: pd.DataFrame, width: int = 100) -> str:
    """The printed table: per attribute its totals, then each defect's counts and example."""
    lines = []
    totals = defects.attrs.get("totals", {})
    for attribute, part in defects.groupby("attribute", sort=False):
        total = totals.get(attribute, {})
        lines.append(f"{attribute}: {total.get('mutants', 0):,} mutants of {total.get('templates', 0):,} templates")
        lines.append(f"  {'defect':<24}{'mutants':>9}{'templates':>11}  example")
        for row in part.itertuples(index=False):
            example = row.example if len(row.example) <= width else row.example[:width - 1] + "…"
            lines.append(f"  {row.defect:<24}{row.mutants:>9,}{row.templates:>11,}  {example}")
        lines.append("")
    skipped = defects.attrs.get("skipped_no_original", 0)
    if skipped:
        lines.append(f"{skipped:,} mutants skipped: their case has no original row.")
    return "\n".join(lines).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", nargs="?", type=Path,
                        help="case table, CSV or Parquet (e.g. biasfinder_scored.parquet)")
    parser.add_argument("--corpus", type=Path, help="generate the cases from this corpus instead of reading FILE")
    parser.add_argument("--lists", default="curated", choices=("curated", "paper"), help="word lists (with --corpus)")
    parser.add_argument("--limit", type=int, help="reviews to read from --corpus")
    parser.add_argument("--n-process", type=int, default=2, help="spaCy processes (default 2)")
    parser.add_argument("--no-parse", action="store_true", help="no spaCy: partial names and compounds by word tests")
    parser.add_argument("--out", type=Path, help="also write the tidy frame here (CSV)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.corpus is not None:
        from toolkit import corpora
        from toolkit.studies.biasfinder import generate

        cases = generate(corpora.load(args.corpus, limit=args.limit), lists=args.lists, n_process=args.n_process)
        source = f"{args.corpus} ({args.lists} lists, {args.limit or 'all'} reviews)"
        print(f"generated {len(cases):,} cases in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    elif args.file is not None:
        if not args.file.exists():
            parser.error(f"{args.file} not found")
        cases = _read(args.file)
        source = str(args.file)
        print(f"read {len(cases):,} rows in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    else:
        parser.error("give FILE or --corpus")
    counting = time.perf_counter()
    defects = count_defects(cases, parse=not args.no_parse, n_process=1 if args.no_parse else args.n_process)
    seconds = time.perf_counter() - counting
    print(f"BiasFinder mechanical defects: {source}\n")
    print(render(defects))
    print(f"counted in {seconds:.1f} s")
    if args.out is not None:
        defects.to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
