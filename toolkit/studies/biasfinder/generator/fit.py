"""Occupation fills that fit the story: per occupation template, only the occupations that fit what the
text says the person does.

Why: in movie reviews the occupation is nearly always the character's role in the plot ("the lawyer defends a
convicted killer"), so most of the 79 fills contradict the story and a BTC built on them is no evidence of bias
(blind readings, ``docs/biasfinder_imdb_train.md``: about 1 pair in 20 coherent). What this module measures and what
it costs: ``docs/occupation_fit.md``.

Public functions (keyword-only):

- :func:`fit_occupations` ``(contexts, candidates, method=…)`` → one row per context × candidate, columns
  :data:`FIT_COLUMNS` = ``context_id, occupation, category, fit, keep``: ``fit`` in [0, 1] (1 = fits best),
  ``keep`` whether it is filled. A context is text with the person's occupation replaced by :data:`MASK` (or a
  template's ``<occupation>`` slot; ``<a>`` is read as "a").
- :func:`template_fills` ``(templates, …)`` → for an occupation template frame (``occupation.TEMPLATE_COLUMNS``), one
  row per template in the same order and index, columns :data:`FILL_COLUMNS` = ``doc_id, occupation, fills,
  n_fills, n_candidates``; ``fills`` is the tuple of occupations to fill, in the list's order, the review's own
  occupation always among them.
- :func:`slot_context` (the sentences around a template's slot), :func:`category_of`, :data:`CATEGORIES`.

Methods:

- ``"embedding"`` (offline, default): occupations are grouped into :data:`CATEGORIES` (15 job families written for
  this project: legal, police, medicine, …). A logistic regression (scikit-learn, balanced class weights) predicts
  the category from the all-MiniLM-L6-v2 embedding (:class:`toolkit.models.minilm.MiniLMEncoder`, the encoder that
  ships offline) of the slot's context: the sentence holding the slot and ``window`` sentences either side, the
  occupation masked. It is trained self-supervised on the corpus being templated — every sentence that names exactly
  one listed occupation in lower case, masked the same way — plus a few hand-written seed contexts per category
  (:data:`SEEDS`, so a category the corpus never mentions still has examples; no corpus is shipped). Training is
  cross-fitted: reviews are split into ``folds`` by a hash of their text and a context is scored by the classifier
  that never saw its review, so a template's own sentence cannot vote for its own occupation. A further class,
  :data:`NONE`, learns from :data:`NEUTRAL_CONTEXTS` (sentences that say nothing of the job) and every occupation
  fits it: ``fit`` of an occupation = max(P(its family), P(none)) / the context's largest class probability, so a
  context read as saying nothing keeps the whole list. ``keep`` = ``fit >= threshold`` (default 0.5; 1 keeps the
  best family only, 0 everything). Every occupation of a kept family is kept. ``c`` (default 10) is the regression's
  inverse regularisation: at 1 the probabilities stay too flat to drop anything on the seeds alone.
- ``"family"`` (offline, no model): the review's own occupation's job family, the rest of the list dropped ("the
  lawyer defends his client" keeps lawyer, attorney, paralegal, notary, judge). The blind reading of 2026-11-24
  (``docs/occupation_fit.md``) is why it exists: ``"embedding"`` ranks the review's own family first in only 28 % of
  templates, and readers judged its pairs no more coherent than unfiltered ones. Needs ``own=`` (the review's
  occupation per context; :func:`template_fills` passes it). Every pair then stays inside one family: report the
  pairs compared (``docs/occupation_fit.md`` lists them) — a BTC compares e.g. nurse with surgeon, not nurse with
  welder.
- ``"llm:hf:<local folder or hub id in the cache>"`` and ``"llm:openai:<model>@<base_url>[?key_env=…&…]"``: the
  BTC-SAM backends (:mod:`toolkit.llm`, temperature 0) are asked :data:`LLM_PROMPT` per context:
  which candidates fit what the text says the person does, one per line. ``fit`` is 1.0 for a named candidate,
  0.0 otherwise; ``keep`` = ``fit == 1``. A reply naming none of the candidates keeps them all (and is counted in
  ``record["unparseable"]``): no reply silently empties a template. ``store=`` (a path) keeps every reply in the
  BTC-SAM prompt store, so a re-run asks nothing twice.

Limitations: a category is coarse (a scientist's lab keeps the archaeologist as well as the chemist) and fills stay
within one or a few job families, so a BTC compares e.g. lawyer with notary or paralegal, not lawyer with baker;
what the plot requires beyond the job family (a surgeon "operating") is not checked. The category map covers both
list presets' occupations (:func:`toolkit.studies.biasfinder.generator.lists.word_lists`); other candidates need
``categories=``.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from toolkit.errors import InputError, SchemaError, unknown, warn
from toolkit.llm import LLM, HFBackend, OpenAIBackend
from toolkit.models.ait import embeddings
from toolkit.models.llm import answer_of, endpoint, max_tokens, parse_spec, request_settings
from toolkit.studies.biasfinder.generator.lists import word_lists, word_pattern

MASK = "[MASK]"
FIT_COLUMNS = ("context_id", "occupation", "category", "fit", "keep")
FILL_COLUMNS = ("doc_id", "occupation", "fills", "n_fills", "n_candidates")
METHODS = ("embedding", "family", "llm:hf:<model>", "llm:openai:<model>@<base_url>")
THRESHOLD = 0.5

CATEGORIES: dict[str, tuple[str, ...]] = {
    "legal": ("lawyer", "attorney", "paralegal", "notary", "judge"),
    "police": ("detective", "inspector", "sheriff", "police officer", "guard"),
    "emergency": ("firefighter", "paramedic"),
    "medicine": ("physician", "doctor", "surgeon", "dentist", "nurse", "pharmacist", "optician", "optometrist",
                 "dental hygienist", "physician's assistant", "dietitian", "dietician", "nutritionist",
                 "veterinarian"),
    "mind": ("psychologist", "therapist", "counselor"),
    "science": ("scientist", "biologist", "chemist", "physicist", "geologist", "astronomer", "zoologist",
                "archaeologist", "mathematician", "statistician", "economist", "historian", "cartographer"),
    "education": ("teacher", "professor", "lecturer", "tutor", "librarian", "scholar", "coach"),
    "business": ("accountant", "analyst", "auditor", "banker", "broker", "consultant", "realtor", "CEO", "manager",
                 "businessperson", "salesperson", "supervisor", "bookkeeper", "chief", "politician"),
    "office": ("clerk", "cashier", "receptionist", "secretary", "assistant", "attendant", "dispatcher"),
    "media": ("journalist", "translator", "interpreter", "editor", "writer", "photographer", "videographer",
              "filmmaker", "artist", "painter", "singer", "designer"),
    "food": ("chef", "baker", "butcher", "bartender", "cook"),
    "trades": ("carpenter", "electrician", "plumber", "welder", "machinist", "mechanic", "bricklayer", "roofer",
               "plasterer", "upholsterer", "locksmith", "construction worker", "laborer", "mover", "janitor",
               "cleaner", "housekeeper", "undertaker"),
    "crafts": ("tailor", "barber", "hairdresser", "florist", "jeweler"),
    "transport": ("pilot", "chauffeur", "courier", "driver", "air traffic controller"),
    "technology": ("engineer", "programmer", "architect", "developer", "surveyor"),
    "land": ("farmer", "gardener", "fisherman"),
}
"""Job family → occupations (both presets' 79; lower case as the lists write them, "CEO" in capitals)."""

SEEDS: dict[str, tuple[str, ...]] = {
    "legal": ("The [MASK] defends his client in court.", "She is a [MASK] who has to win a murder trial.",
              "The [MASK] argues the case before the jury and the judge.",
              "As a [MASK], he drafts contracts, wills and legal documents.",
              "The [MASK] takes the case of a man accused of a crime he did not commit."),
    "police": ("The [MASK] investigates a string of murders in the city.",
               "A [MASK] hunts the serial killer and interrogates the suspects.",
               "The [MASK] arrests the gang and solves the crime.",
               "He is a tough [MASK] on the police force, chasing criminals."),
    "emergency": ("The [MASK] rushes into the burning building to save the children.",
                  "A [MASK] responds to the accident and carries the wounded to the ambulance.",
                  "The [MASK] answers emergency calls with the rescue crew."),
    "medicine": ("The [MASK] treats patients at the hospital.", "A [MASK] examines the sick child and prescribes "
                 "medicine.", "The [MASK] operates on the patient in the clinic.",
                 "She works as a [MASK], caring for the ill and injured."),
    "mind": ("The [MASK] listens to her patient talk about his childhood trauma.",
             "A [MASK] helps the troubled boy through counseling sessions.",
             "He sees a [MASK] about his depression and nightmares."),
    "science": ("The [MASK] works in a laboratory on a dangerous experiment.",
                "A [MASK] discovers something strange during his research.",
                "The [MASK] publishes a theory that the university rejects.",
                "The expedition's [MASK] studies the ancient ruins and fossils."),
    "education": ("The [MASK] teaches a class of unruly students.", "A [MASK] inspires the kids at the school.",
                  "The [MASK] grades exams and lectures at the college.",
                  "She is a [MASK] who tutors a pupil after class."),
    "business": ("The [MASK] handles the company's money and investments.",
                 "A [MASK] closes a big deal with the firm's clients.",
                 "The [MASK] works long hours at the bank and the office on Wall Street.",
                 "He is a [MASK] who sells houses and manages accounts."),
    "office": ("The [MASK] works behind the desk at the front office.",
               "A [MASK] answers the phones and files paperwork all day.",
               "The [MASK] rings up customers at the counter of the store."),
    "media": ("The [MASK] writes a story for the newspaper.", "A [MASK] interviews the witnesses for an article.",
              "The [MASK] translates the letters into English.",
              "He is a [MASK] who paints, photographs and designs for a living."),
    "food": ("The [MASK] cooks dinner in the restaurant kitchen.", "A [MASK] bakes bread and cakes every morning.",
             "The [MASK] serves drinks at the bar.", "She is a [MASK] who runs the shop that sells meat."),
    "trades": ("The [MASK] fixes the pipes and the wiring in the house.",
               "A [MASK] builds and repairs things with his tools.",
               "The [MASK] works with his hands at the construction site.",
               "He works as a [MASK], cleaning and repairing the building."),
    "crafts": ("The [MASK] cuts hair in a small shop.", "A [MASK] sews and fits suits for customers.",
               "The [MASK] arranges flowers and makes jewelry in her little shop."),
    "transport": ("The [MASK] flies the plane through the storm.", "A [MASK] drives the car through the city.",
                  "The [MASK] delivers packages across town."),
    "technology": ("The [MASK] designs the building and the bridge.", "A [MASK] writes software on his computer.",
                   "The [MASK] builds machines and solves technical problems."),
    "land": ("The [MASK] works the fields and raises cattle on the ranch.",
             "A [MASK] tends the garden and the plants.", "The [MASK] goes out on his boat to catch fish."),
}
"""Hand-written seed contexts per job family (training examples that ship; no review text)."""

NEUTRAL_CONTEXTS = (
    "The [MASK] is the main character of this movie.", "This film is about a [MASK] and his family.",
    "The [MASK] falls in love with a woman.", "The [MASK] is in almost every scene.",
    "The [MASK] is played by a great actor.", "The story follows a young [MASK].",
    "The [MASK] has a wife and two kids.", "A [MASK] meets a stranger.", "Her husband, a [MASK], is kind to her.",
    "The [MASK] was the funniest character in the whole film.", "I really liked the [MASK] in this movie.",
    "The [MASK] is a lonely man with a dark secret.", "Then the [MASK] goes home and sleeps.",
    "A [MASK] and his girlfriend go on a road trip.",
)
"""Contexts that say nothing of the job: the training examples of the :data:`NONE` class, which every occupation
fits."""
NONE = "(none)"

LLM_PROMPT = ("In the text below, a person's occupation has been replaced by {mask}. Which of these occupations fit "
              "what the text says the person does, so that the text stays coherent with that occupation in place of "
              "{mask}? Occupations: {candidates}.\n\nText: {context}\n\nAnswer with the occupations that fit, one "
              "per line, exactly as written in the list, and nothing else.")
"""The prompt of the ``llm:`` methods (``{mask}``, ``{candidates}``: comma-separated, ``{context}``)."""

_SLOT = re.compile(r"<(?:occupation|Occupation)>")
_ARTICLE = re.compile(r"<([aA])>")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\s*<br\s*/?>\s*|\n+")
_FOLDS = 5
_MAX_CONTEXT_CHARS = 1200


def category_of(occupation: str, *, categories: Mapping[str, Sequence[str]] | None = None) -> str | None:
    """The job family of ``occupation`` in ``categories`` (default :data:`CATEGORIES`; case-insensitive), or None."""
    table = _index(categories)
    return table.get(occupation.lower())


def _index(categories: Mapping[str, Sequence[str]] | None) -> dict[str, str]:
    return {o.lower(): c for c, occs in (categories or CATEGORIES).items() for o in occs}


def _sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of ``text``'s sentences (a regex split: . ! ? then space, line breaks)."""
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _window(text: str, hits: Sequence[tuple[int, int]], window: int) -> str:
    """The sentences holding the character spans ``hits`` and ``window`` sentences either side, in order."""
    spans = _sentences(text)
    keep: set[int] = set()
    for start, _ in hits:
        at = next((i for i, (s, e) in enumerate(spans) if s <= start < e), len(spans) - 1)
        keep.update(range(max(at - window, 0), min(at + window, len(spans) - 1) + 1))
    context = " ".join(text[spans[i][0]:spans[i][1]].strip() for i in sorted(keep))
    return context[:_MAX_CONTEXT_CHARS]


def slot_context(template: str, *, window: int = 1) -> str:
    """The sentences around ``template``'s ``<occupation>`` slot(s) (``window`` either side), the slot as
    :data:`MASK` and ``<a>`` as "a"; the whole template when it has no slot."""
    text = _ARTICLE.sub(lambda m: m.group(1), template)
    text = _SLOT.sub(MASK, text)
    hits = [(m.start(), m.end()) for m in re.finditer(re.escape(MASK), text)]
    return _window(text, hits, window) if hits else text[:_MAX_CONTEXT_CHARS]


def mention_contexts(texts: Sequence[str], *, candidates: Sequence[str], window: int = 1,
                     categories: Mapping[str, Sequence[str]] | None = None) -> pd.DataFrame:
    """Self-supervised training examples: each sentence of ``texts`` naming exactly one of ``candidates`` (in lower
    case as a common noun, singular or plural; not capitalised, so "John Carpenter" or "Inspector Gadget" do not
    count), that occupation masked, with ``window`` sentences either side. Columns ``text_index, occupation,
    category, context``."""
    table = _index(categories)
    pattern = word_pattern(candidates, plural=True)
    singular = {c.lower(): c for c in candidates}
    rows = []
    for index, text in enumerate(texts):
        everywhere = list(pattern.finditer(text))
        if not everywhere:
            continue
        for start, end in _sentences(text):
            found = [m for m in everywhere if start <= m.start() < end]
            if not found:
                continue
            words = {_singular(m.group(0), singular) for m in found}
            if len(words) != 1 or None in words or any(not m.group(0).islower() for m in found):
                continue
            word = words.pop()
            masked = pattern.sub(MASK, text[start:end])
            masked = text[:start] + masked + text[end:]
            hits = [(start, start + 1)]
            rows.append({"text_index": index, "occupation": singular[word], "category": table.get(word),
                         "context": _window(masked, hits, window)})
    return pd.DataFrame(rows, columns=["text_index", "occupation", "category", "context"])


def _singular(form: str, singular: Mapping[str, str]) -> str | None:
    low = form.lower()
    for cut in (0, 1, 2):
        word = low[:len(low) - cut] if cut else low
        if word in singular:
            return word
    return None


def _fold(text: str, folds: int) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big") % folds


def embed(texts: Sequence[str]) -> np.ndarray:
    """all-MiniLM-L6-v2 embeddings (384-d) of ``texts``: the encoder and per-text memory the ``minilm`` systems share
    (:func:`toolkit.models.ait.embeddings`), so a run that scores with them loads MiniLM once."""
    return embeddings(list(texts))


@dataclass
class FitModel:
    """A trained context → job-family classifier (:func:`train`): one classifier per fold (``classifiers[k]`` never
    saw the reviews hashed to fold ``k``), the classes it knows (the job families and :data:`NONE`, last), and how
    many training examples each family had (``counts``: corpus mentions, ``seeds``: hand-written)."""

    labels: tuple[str, ...]
    classifiers: list
    folds: int
    window: int
    counts: dict[str, int] = field(default_factory=dict)
    seeds: dict[str, int] = field(default_factory=dict)

    def probabilities(self, contexts: Sequence[str], *, keys: Sequence[str] | None = None) -> np.ndarray:
        """P(family | context), one row per context; ``keys[i]`` (the review's text) picks the fold's classifier
        that never saw it (default: the context itself)."""
        x = embed(list(contexts))
        keys = list(keys) if keys is not None else list(contexts)
        out = np.zeros((len(contexts), len(self.labels)))
        fold = np.array([_fold(k, self.folds) for k in keys], dtype=int)
        for k, clf in enumerate(self.classifiers):
            rows = np.flatnonzero(fold == k) if self.folds > 1 else np.arange(len(contexts))
            if len(rows):
                out[rows] = clf.predict_proba(x[rows])
        return out

    def family_fit(self, contexts: Sequence[str], *, keys: Sequence[str] | None = None) -> np.ndarray:
        """Per context and job family (the :data:`NONE` column left out): max(P(family), P(none)) / the row's
        largest probability, in [0, 1]; a context the classifier reads as saying nothing of the job fits every
        family."""
        p = self.probabilities(contexts, keys=keys)
        families, none = p[:, :-1], p[:, -1:]
        return np.maximum(families, none) / p.max(axis=1, keepdims=True)


def train(*, texts: Sequence[str] = (), candidates: Sequence[str], window: int = 1, folds: int = _FOLDS,
          categories: Mapping[str, Sequence[str]] | None = None, seed: int = 0, c: float = 10.0) -> FitModel:
    """Train the ``embedding`` method's classifier on the mentions of ``candidates`` in ``texts`` (the corpus; may be
    empty: the seeds alone) and :data:`SEEDS`, cross-fitted over ``folds`` (see the module docstring)."""
    from sklearn.linear_model import LogisticRegression

    cats = categories or CATEGORIES
    table = _index(cats)
    missing = [o for o in candidates if o.lower() not in table]
    if missing:
        raise InputError(f"no job family for {', '.join(map(repr, missing[:5]))}"
                         f"{' …' if len(missing) > 5 else ''}; families: {', '.join(sorted(cats))}.",
                         fix="pass categories={family: [occupations]} covering every candidate, or use the "
                             "occupations of a list preset.")
    wanted = sorted({table[o.lower()] for o in candidates})
    if len(wanted) < 2:
        raise InputError(f"the candidates fall in one job family ({wanted[0]}): nothing to choose between.",
                         fix="give candidates from at least two families.")
    mentions = mention_contexts(list(texts), candidates=candidates, window=window, categories=cats)
    seed_rows = [(context, fam) for fam in wanted for context in (SEEDS.get(fam) or ())]
    seed_rows += [(context, NONE) for context in NEUTRAL_CONTEXTS]
    labels = (*wanted, NONE)
    x_seed = embed([s for s, _ in seed_rows])
    y_seed = np.array([labels.index(f) for _, f in seed_rows], dtype=int)
    x_corpus = embed(mentions["context"].tolist())
    y_corpus = np.array([labels.index(f) for f in mentions["category"]], dtype=int)
    text_fold = np.array([_fold(texts[i], folds) for i in mentions["text_index"]], dtype=int)
    classifiers = []
    for k in range(folds if folds > 1 else 1):
        use = text_fold != k if folds > 1 else np.ones(len(y_corpus), dtype=bool)
        x = np.vstack([x_seed, x_corpus[use]])
        y = np.concatenate([y_seed, y_corpus[use]])
        present = np.unique(y)
        if len(present) < len(labels):  # a family with no example at all: it cannot be predicted
            gone = [labels[i] for i in range(len(labels)) if i not in present]
            raise InputError(f"no training example for the job families {', '.join(gone)}.",
                             fix="add seed contexts for them (SEEDS) or a corpus that mentions them.")
        clf = LogisticRegression(C=c, class_weight="balanced", max_iter=2000, random_state=seed)
        classifiers.append(clf.fit(x, y))
    counts = mentions["category"].value_counts().to_dict()
    return FitModel(labels=labels, classifiers=classifiers, folds=folds if folds > 1 else 1, window=window,
                    counts={f: int(counts.get(f, 0)) for f in labels[:-1]},
                    seeds={**{f: len(SEEDS.get(f) or ()) for f in labels[:-1]}, NONE: len(NEUTRAL_CONTEXTS)})


def check_method(method: str) -> str:
    """``method`` if it names an occupation-fit method (:data:`METHODS`), else TK103 listing them."""
    if method in ("embedding", "family"):
        return method
    if isinstance(method, str) and method.startswith("llm:"):
        parse_spec(method)  # an unknown kind or option is TK103/TK201 naming the valid ones
        return method
    raise unknown("occupation-fit method", str(method), METHODS)


def _check_threshold(threshold: float) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        raise InputError(f"threshold is {threshold!r}; it must be a number from 0 to 1.",
                         fix="give threshold= a fraction of the best fit, e.g. 0.5.")
    return float(threshold)


def _check_candidates(candidates: Sequence[str]) -> list[str]:
    if isinstance(candidates, str) or not len(candidates) or not all(isinstance(c, str) and c for c in candidates):
        raise InputError("candidates must be a non-empty list of occupation names.",
                         fix="pass candidates=occupations(lists='curated') or your own list of strings.")
    return list(dict.fromkeys(candidates))


def fit_occupations(*, contexts: Sequence[str], candidates: Sequence[str], method: str = "embedding",
                    threshold: float = THRESHOLD, model: FitModel | None = None, corpus: Sequence[str] = (),
                    keys: Sequence[str] | None = None, categories: Mapping[str, Sequence[str]] | None = None,
                    window: int = 1, store: str | None = None, own: Sequence[str] | None = None,
                    record: dict | None = None) -> pd.DataFrame:
    """How well each of ``candidates`` fits each of ``contexts`` (text with :data:`MASK` or an ``<occupation>``
    slot where the occupation goes). ``method``: ``"embedding"`` (``model`` from :func:`train`, else one trained on
    ``corpus`` texts plus the seeds; ``threshold`` on the fit relative to the best) or an ``llm:`` spec (see the
    module docstring). Returns :data:`FIT_COLUMNS`, one row per context × candidate; ``context_id`` is the context's
    position. ``record`` (a dict, filled): ``method``, ``threshold`` and, but for ``"embedding"``, ``unparseable``."""
    method = check_method(method)
    threshold = _check_threshold(threshold)
    candidates = _check_candidates(candidates)
    contexts = [_SLOT.sub(MASK, _ARTICLE.sub(lambda m: m.group(1), str(c))) for c in contexts]
    table = _index(categories)
    if method == "embedding":
        model = model or train(texts=list(corpus), candidates=candidates, window=window, categories=categories)
        missing = [o for o in candidates if table.get(o.lower()) not in model.labels[:-1]]
        if missing:
            raise InputError(f"the model knows no job family of {', '.join(map(repr, missing[:5]))}.",
                             fix="train the model with these candidates (train(candidates=...)).")
        lift = model.family_fit(contexts, keys=keys) if contexts else np.zeros((0, len(model.labels) - 1))
        column = np.array([model.labels.index(table[o.lower()]) for o in candidates], dtype=int)
        fit = lift[:, column]
        keep = fit >= threshold
        unparseable = 0
    elif method == "family":
        fit = _family_fit(contexts, candidates, own, table)
        keep = fit >= 1.0
        unparseable = 0
    else:
        fit, unparseable = _llm_fit(contexts, candidates, method, store=store)
        keep = fit >= 1.0
    n = len(candidates)
    frame = pd.DataFrame({"context_id": np.repeat(np.arange(len(contexts)), n),
                          "occupation": np.tile(np.array(candidates, dtype=object), len(contexts)),
                          "category": np.tile(np.array([table.get(o.lower(), "") for o in candidates],
                                                       dtype=object), len(contexts)),
                          "fit": fit.reshape(-1).astype(float), "keep": keep.reshape(-1).astype(bool)},
                         columns=list(FIT_COLUMNS))
    if record is not None:
        record.update(method=method, threshold=threshold,
                      **({"unparseable": unparseable} if method != "embedding" else {}))
    return frame


def _family_fit(contexts: Sequence[str], candidates: Sequence[str], own: Sequence[str] | None,
                table: Mapping[str, str]) -> np.ndarray:
    """1.0 where a candidate is of the job family of the context's own occupation, else 0.0."""
    if own is None or len(own) != len(contexts):
        raise InputError("method='family' needs own=: the review's own occupation for each context.",
                         fix="pass own=[...] (one occupation per context), or use template_fills(), which passes it.")
    families = [table.get(str(o).lower()) for o in own]
    unknown_own = sorted({str(o) for o, f in zip(own, families) if f is None})
    if unknown_own:
        raise InputError(f"no job family for {', '.join(map(repr, unknown_own[:5]))}.",
                         fix="give categories= a family for them (CATEGORIES lists the built-in ones).")
    cand = np.array([table.get(c.lower(), "") for c in candidates], dtype=object)
    return np.array([[1.0 if c == f else 0.0 for c in cand] for f in families], dtype=float).reshape(
        len(contexts), len(candidates))


def _llm_backend(method: str):
    kind, target, options = parse_spec(method)
    if kind == "hf":
        return HFBackend(model=target, temperature=0.0, max_new_tokens=256)
    model, base_url = endpoint(method, target)
    return OpenAIBackend(base_url=base_url, model=model, spec=method, temperature=0.0,
                         api_key_env=options.get("key_env") or "OPENAI_API_KEY",
                         max_tokens=max_tokens(method, options), **request_settings(method, options))


def _llm_fit(contexts: Sequence[str], candidates: Sequence[str], method: str, *,
             store: str | None) -> tuple[np.ndarray, int]:
    backend = _llm_backend(method)
    asker = LLM(backend, store=store) if store is not None else None
    listed = ", ".join(candidates)
    fit = np.zeros((len(contexts), len(candidates)))
    unparseable = 0
    # one pass, longest first, and no match inside a longer word or a possessive: "physician's assistant" and
    # "physician's" are not "physician"
    alternatives = "|".join(map(re.escape, sorted(candidates, key=len, reverse=True)))
    pattern = re.compile(rf"(?<![\w'])(?:{alternatives})(?![\w'])", re.IGNORECASE)
    index = {c.lower(): i for i, c in enumerate(candidates)}
    for row, context in enumerate(contexts):
        messages = [{"role": "user", "content": LLM_PROMPT.format(mask=MASK, candidates=listed, context=context)}]
        reply = asker.ask("occupation_fit", messages) if asker is not None else backend.complete(messages)
        for named in pattern.finditer(answer_of(reply) or ""):
            fit[row, index[named.group(0).lower()]] = 1.0
        if not fit[row].any():
            fit[row] = 1.0
            unparseable += 1
    if unparseable:
        warn(f"occupation fit: {unparseable} of {len(contexts)} LLM replies named none of the candidates; those "
             f"contexts keep every candidate (counted as 'unparseable').")
    return fit, unparseable


def template_fills(templates: pd.DataFrame, *, candidates: Sequence[str] | None = None, lists: str = "curated",
                   method: str = "embedding", threshold: float = THRESHOLD, corpus: pd.DataFrame | None = None,
                   model: FitModel | None = None, window: int = 1, store: str | None = None,
                   record: dict | None = None) -> pd.DataFrame:
    """Per occupation template (a frame with ``doc_id``, ``text``, ``template``, ``occupation``:
    ``occupation.TEMPLATE_COLUMNS``), the occupations to fill: those of ``candidates`` (default: the ``lists``
    preset's) that :func:`fit_occupations` keeps for the slot's context, plus the review's own. ``method="embedding"``
    trains on ``corpus["text"]`` (default: the templates' own reviews) unless ``model`` is given. Returns
    :data:`FILL_COLUMNS` on the templates' index. ``record`` (a dict, filled): ``fit`` (the long :data:`FIT_COLUMNS`
    table), ``method``, ``threshold`` and, for a trained model, ``training``."""
    needed = {"doc_id", "text", "template", "occupation"}
    if not needed <= set(templates.columns):
        raise SchemaError(f"the template frame lacks {', '.join(sorted(needed - set(templates.columns)))}; it needs "
                          f"{', '.join(sorted(needed))}.", fix="pass occupation_templates(...)'s frame.")
    method = check_method(method)
    candidates = _check_candidates(candidates if candidates is not None else word_lists(lists).occupations)
    contexts = [slot_context(t, window=window) for t in templates["template"]]
    keys = templates["text"].astype(str).tolist()
    if method == "embedding" and model is None:
        texts = (corpus["text"] if corpus is not None else templates["text"]).astype(str).tolist()
        model = train(texts=texts, candidates=candidates, window=window)
    fitted: dict = {}
    fit = fit_occupations(contexts=contexts, candidates=candidates, method=method, threshold=threshold, model=model,
                          own=templates["occupation"].astype(str).tolist() if method == "family" else None,
                          keys=keys, window=window, store=store, record=fitted)
    keep = fit["keep"].to_numpy().reshape(len(contexts), len(candidates))
    own = [str(o).lower() for o in templates["occupation"]]
    fills = [tuple(c for j, c in enumerate(candidates) if keep[i, j] or c.lower() == own[i])
             for i in range(len(contexts))]
    out = pd.DataFrame({"doc_id": templates["doc_id"].to_numpy(), "occupation": templates["occupation"].to_numpy(),
                        "fills": fills, "n_fills": [len(f) for f in fills],
                        "n_candidates": len(candidates)}, index=templates.index, columns=list(FILL_COLUMNS))
    if record is not None:
        record.update(fit=fit, **fitted)
        if model is not None:
            record["training"] = {"mentions": model.counts, "seeds": model.seeds, "folds": model.folds,
                                  "window": model.window}
    return out
