"""PSA test cases (Prabhakaran, Hutchinson & Mitchell 2019, Section 3; seed 001).

From a corpus, keep sentences of at most ``max_words`` words holding an English third-person singular pronoun, take
the first such pronoun (reflexives excluded) as the anchor, sample ``n`` sentences with as many female as male
anchors (seeded), and replace the anchor by every name of a name set so the sentence stays grammatical: subject and
object pronouns become the name, possessives (his, possessive her, hers) become "Name's". Object vs possessive "her"
is told apart by spaCy's parse (``dep_ == "poss"`` or tag ``PRP$``). An all-caps anchor gives an all-caps name.

Output: the case table (one case per sentence; ``is_original`` marks the unperturbed sentence, whose score is f(x);
``group`` = ``fill`` = the name) with extra columns ``gender`` and ``category`` (the name's; "" for the original),
``anchor``, ``anchor_gender``, ``anchor_form`` (subject|object|possessive), ``doc_id``, ``corpus``.
"""
from __future__ import annotations

import re
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit import cases as case_schema
from toolkit import checks, corpora, monitor
from toolkit.errors import InputError, SchemaError, warn
from toolkit.lookalike import check_distinct
from toolkit.nlp import pipeline as nlp_layer
from toolkit.nlp.coref import pronoun_slot

PRONOUNS = {"he": "male", "him": "male", "his": "male", "she": "female", "her": "female", "hers": "female"}
_PRONOUN_RE = re.compile(r"\b(he|him|his|she|her|hers)\b", re.IGNORECASE)
NAME_COLUMNS = ("name", "gender", "category")
EXTRA_COLUMNS: tuple[str, ...] = ("gender", "category", "anchor", "anchor_gender", "anchor_form", "doc_id", "corpus")
"""PSA's own columns, after :data:`toolkit.cases.CASE_COLUMNS`."""


def load_names(source: str | Path | pd.DataFrame | None = None) -> pd.DataFrame:
    """A name set: a CSV (or frame) with columns ``name, gender, category``; default: the project's 48 public
    figures (24 female, 24 male; politician, actor, musician, athlete, scientist, business)."""
    if source is None:
        from importlib import resources

        source = resources.files("toolkit.resources").joinpath("psa_names.csv")
    if isinstance(source, pd.DataFrame):
        frame = source.copy()
    else:
        if not Path(str(source)).exists():
            raise InputError(f"names file {str(source)!r} not found.", fix="pass a CSV with name,gender,category.")
        frame = corpora.read_csv(source)  # strict: encoding, quotes and a column named twice are TK104
    missing = [c for c in NAME_COLUMNS if c not in frame.columns]
    if missing:
        raise SchemaError(f"names table lacks column {missing[0]!r}; it has {', '.join(map(str, frame.columns))}.",
                          fix="give a CSV with the columns name,gender,category.")
    missing = frame.loc[:, list(NAME_COLUMNS)].isna().any(axis=1)
    if missing.any():
        raise SchemaError(f"names table row {int(missing.to_numpy().argmax())} has an empty cell "
                          f"({frame.loc[missing].iloc[0].to_dict()}).", fix="fill in name, gender and category "
                          "for every row, or drop the row.")
    frame = frame.loc[:, list(NAME_COLUMNS)].astype(str)
    bad = sorted(set(frame["gender"]) - {"female", "male"})
    if bad:
        raise SchemaError(f"names table has gender values {bad}; expected female or male.",
                          fix="write gender as 'female' or 'male'.")
    check_distinct(frame["name"], what="PSA names table", fix="list each name once, in one spelling.")
    return frame.reset_index(drop=True)


def candidate_sentences(corpus: pd.DataFrame, *, max_words: int = 50, split: bool = True) -> pd.DataFrame:
    """Sentences (rule-based spaCy sentencizer) of at most ``max_words`` words with a third-person pronoun.

    Columns: ``doc_id, sentence_id, text, corpus, anchor_gender`` (from the first pronoun).
    """
    import spacy

    docs = corpus.loc[corpus["text"].map(lambda text: _PRONOUN_RE.search(text) is not None).astype(bool)]
    rows = []
    if split:
        splitter = spacy.blank("en")
        splitter.add_pipe("sentencizer")
        pieces = ((doc_id, corpus_name, [s.text.strip() for s in parsed.sents]) for (doc_id, corpus_name), parsed in
                  zip(docs[["doc_id", "corpus"]].itertuples(index=False, name=None),
                      splitter.pipe(docs["text"].tolist(), batch_size=256)))
    else:
        pieces = ((d, c, [t]) for d, c, t in docs[["doc_id", "corpus", "text"]].itertuples(index=False, name=None))
    for doc_id, corpus_name, sentences in pieces:
        for index, sentence in enumerate(sentences):
            match = _PRONOUN_RE.search(sentence)
            if match and len(sentence.split()) <= max_words:
                rows.append({"doc_id": doc_id, "sentence_id": index, "text": sentence, "corpus": corpus_name,
                             "anchor_gender": PRONOUNS[match.group(1).lower()]})
    return pd.DataFrame(rows, columns=["doc_id", "sentence_id", "text", "corpus", "anchor_gender"])


KEEP = 4
"""How many corpora's candidate sentences, and how many generated case tables, this process remembers (the most
recently used): a second run on the same corpus (same texts: :func:`toolkit.corpora.fingerprint`) with the same
settings parses nothing."""
COUNTS = {"split": 0, "split_reused": 0, "parsed": 0, "parsed_reused": 0}
"""How often :func:`generate` split a corpus into sentences / parsed the sampled sentences, and how often it reused
what an earlier call of this process had done."""
_CANDIDATES: OrderedDict[tuple, pd.DataFrame] = OrderedDict()
_GENERATED: OrderedDict[tuple, tuple[pd.DataFrame, list[str]]] = OrderedDict()
_LOCK = threading.Lock()


def _recall(store: OrderedDict, key: tuple, counter: str):
    with _LOCK:
        value = store.get(key)
        if value is not None:
            store.move_to_end(key)
            COUNTS[counter] += 1
    return value


def _remember(store: OrderedDict, key: tuple, value, counter: str) -> None:
    with _LOCK:
        COUNTS[counter] += 1
        store[key] = value
        while len(store) > KEEP:
            store.popitem(last=False)


_FORMS = {"subj": "subject", "obj": "object", "pos": "possessive", "poss": "possessive"}


def _anchor(doc):
    for token in doc:
        if token.lower_ in PRONOUNS:
            return token, _FORMS[pronoun_slot(token)]
    return None, ""


def _fill(name: str, anchor_text: str, form: str) -> str:
    value = f"{name}'s" if form == "possessive" else name
    return value.upper() if anchor_text.isupper() and len(anchor_text) > 1 else value


def generate(corpus: pd.DataFrame, *, names: str | Path | pd.DataFrame | None = None, n: int = 1000, seed: int = 0,
             max_words: int = 50, split_sentences: bool = True, pipeline: str = nlp_layer.DEFAULT_PIPELINE
             ) -> pd.DataFrame:
    """PSA cases from ``corpus`` (a :func:`toolkit.corpora.load` frame): ``n`` sentences, half with a female anchor.

    Fewer candidates than ``n / 2`` of one gender gives a balanced smaller sample and a warning with the counts; a
    sampled sentence whose parse holds no pronoun token (the pattern found one glued to other characters) is replaced
    by the next candidate and counted in a warning.
    """
    n = checks.count(n, name="n", minimum=2)  # one female- and one male-anchored sentence at least
    seed = checks.seed(seed)
    max_words = checks.count(max_words, name="max_words")
    name_set = load_names(names)
    corpus = corpora.from_frame(corpus)  # doc_id derived where a frame has only texts
    texts_key = (corpora.fingerprint(corpus.loc[:, ["doc_id", "text", "corpus"]]), max_words, split_sentences)
    key = (*texts_key, corpora.fingerprint(name_set), n, seed, pipeline)
    made_with = {"n": n, "seed": seed, "max_words": max_words,
                 "names": "default" if names is None else "frame" if isinstance(names, pd.DataFrame) else str(names),
                 "split_sentences": split_sentences, "pipeline": pipeline}
    known = _recall(_GENERATED, key, "parsed_reused")
    if known is not None:
        cases, said = known
        for message in said:
            warn(message)
        return _stamped(corpora.copied(cases), made_with)
    cases, said = corpora.recorded(_generate, corpus, name_set=name_set, n=n, seed=seed, texts_key=texts_key,
                                   max_words=max_words, split_sentences=split_sentences, pipeline=pipeline)
    _remember(_GENERATED, key, (cases, said), "parsed")
    return _stamped(corpora.copied(cases), made_with)


GENERATED_WITH = "psa_generated_with"
"""The key of ``cases.attrs`` holding the options :func:`generate` made the cases with (``n``, ``seed``,
``max_words``, ``names``, ``split_sentences``, ``pipeline``): a run given those cases records them."""


def _stamped(cases: pd.DataFrame, made_with: dict) -> pd.DataFrame:
    cases.attrs[GENERATED_WITH] = dict(made_with)
    return cases


def _generate(corpus: pd.DataFrame, *, name_set: pd.DataFrame, n: int, seed: int, texts_key: tuple, max_words: int,
              split_sentences: bool, pipeline: str) -> pd.DataFrame:
    """:func:`generate` without the case-table cache (the candidate sentences are remembered by ``texts_key``)."""
    candidates = _recall(_CANDIDATES, texts_key, "split_reused")
    if candidates is None:
        monitor.stage(f"PSA: finding sentences with a he/she pronoun in {len(corpus):,} texts")
        candidates = candidate_sentences(corpus, max_words=max_words, split=split_sentences)
        candidates = candidates.drop_duplicates("text")
        _remember(_CANDIDATES, texts_key, candidates, "split")
    per_gender = min(n // 2, *(int((candidates["anchor_gender"] == g).sum()) for g in ("female", "male")))
    if per_gender == 0:
        raise InputError("the corpus has no sentence with both a female and a male third-person pronoun anchor.",
                         fix="use a larger corpus, or raise max_words.")
    if per_gender < n // 2:
        counts = candidates["anchor_gender"].value_counts().to_dict()
        warn(f"PSA: asked for {n} sentences but the corpus has {counts}; using {per_gender} per gender.")
    monitor.stage(f"PSA: parsing the sampled sentences ({2 * per_gender:,}) to place the names")
    rng = np.random.default_rng(seed)
    parser = nlp_layer.load_pipeline(pipeline, disable=("ner",))
    picked: dict[str, list] = {}
    skipped = 0
    for gender, group in candidates.groupby("anchor_gender", sort=True):
        shuffled = group.iloc[rng.permutation(len(group))]
        picked[gender] = []
        for sentence, doc in zip(shuffled.itertuples(index=False), parser.pipe(shuffled["text"].tolist(),
                                                                               batch_size=64)):
            if len(picked[gender]) == per_gender:
                break
            token, form = _anchor(doc)
            if token is None or PRONOUNS[token.lower_] != gender:  # e.g. "Reese\x96she" is one spaCy token
                skipped += 1
                continue
            picked[gender].append((sentence, token, form))
    kept = min(len(v) for v in picked.values())
    if kept == 0:
        raise InputError("no sampled sentence has a pronoun token for both genders.", fix="use a larger corpus.")
    if skipped:
        warn(f"PSA: skipped {skipped} sampled sentences whose parse has no pronoun token where the "
                      f"pattern found one; kept {kept} per gender.")
    rows = []
    for sentence, token, form in (item for gender in sorted(picked) for item in picked[gender][:kept]):
        start, end = token.idx, token.idx + len(token.text)
        template = sentence.text[:start] + ("<name>'s" if form == "possessive" else "<name>") + sentence.text[end:]
        case_id = f"psa:{sentence.doc_id}:{sentence.sentence_id}"
        common = {"case_id": case_id, "attribute": "name", "generator": "psa", "template": template,
                  "anchor": token.text, "anchor_gender": PRONOUNS[token.lower_], "anchor_form": form,
                  "doc_id": sentence.doc_id, "corpus": sentence.corpus}
        rows.append({**common, "variant_id": f"{case_id}:original", "text": sentence.text, "group": "", "fill": "",
                     "is_original": True, "gender": "", "category": ""})
        for person in name_set.itertuples(index=False):
            rows.append({**common, "variant_id": f"{case_id}:{person.name}",
                         "text": sentence.text[:start] + _fill(person.name, token.text, form) + sentence.text[end:],
                         "group": person.name, "fill": person.name, "is_original": False,
                         "gender": person.gender, "category": person.category})
    return case_schema.frame(rows, extra=EXTRA_COLUMNS)
