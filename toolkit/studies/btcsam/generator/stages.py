"""The BTC-SAM pipeline (Kardkovács et al. 2025, Figure 1): BTS → ETSG → CSPG, then LDA, SYDA and SEDA.

``generate(llm, identity_terms={bias_type: [terms]})`` asks ``llm`` (an :class:`~.llm.LLM`, so every reply is stored
and a rerun asks only what is missing) and returns the raw case table, before
:func:`~.filter.filter_counterfactuals`. One case is one counterfactual group: the source sentence
(``is_original``) and one counterfactual per other identity term of its bias type (text "" when CSPG gave none).

Columns: the case schema (``attribute`` = ``bias_type``, ``group`` = ``fill`` = identity term, ``generator`` =
"btcsam") plus :data:`EXTRA_COLUMNS`: ``bias_type``; ``stage`` (etsg|lda|syda|seda); ``topic`` and
``concept_term`` (from BTS; "" for SEDA); ``source_text`` (the ETSG sentence with the same identity term the row was
derived from; the row's own text for ETSG, "" for SEDA); ``test_set`` ("btcsam").
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import count

import pandas as pd

from toolkit import cases
from toolkit.errors import InputError, unknown
from toolkit.llm import LLM
from toolkit.lookalike import check_distinct
from toolkit.studies.btcsam.generator import parse, prompts

AUGMENTATIONS = ("lda", "syda", "seda")
EXTRA_COLUMNS = ("bias_type", "stage", "topic", "concept_term", "source_text", "test_set")


def bts(llm: LLM, *, bias_type: str, identity_terms: Sequence[str], n: int, rounds: int = 1) -> list[dict[str, str]]:
    """Triplets over ``rounds`` repeated asks, deduplicated (case-insensitive), identity terms spelled as given;
    triplets whose identity term is not among ``identity_terms`` are dropped."""
    spelling = {t.lower(): t for t in identity_terms}
    seen, found = set(), []
    for round_ in range(rounds):
        reply = llm.ask("bts", prompts.bts_messages(bias_type=bias_type, identity_terms=list(identity_terms), n=n),
                        repeat=round_)
        for triplet in parse.triplets(reply):
            term = spelling.get(triplet["identity_term"].lower())
            key = (triplet["topic"].lower(), str(term).lower(), triplet["concept_term"].lower())
            if term and key not in seen:
                seen.add(key)
                found.append({**triplet, "identity_term": term})
    return found


def etsg(llm: LLM, *, identity_term: str, concept_term: str, topic: str, n: int) -> list[str]:
    return parse.numbered(llm.ask("etsg", prompts.etsg_messages(identity_term=identity_term,
                                                                concept_term=concept_term, topic=topic, n=n)))[:n]


def cspg(llm: LLM, *, sentence: str, identity_term: str, other_terms: Sequence[str]) -> dict[str, str]:
    """Counterfactuals keyed by the other identity terms (matched case-insensitively; "" where none came back)."""
    reply = parse.mapping(llm.ask("cspg", prompts.cspg_messages(sentence=sentence, identity_term=identity_term,
                                                                 other_terms=list(other_terms))))
    by_lower = {k.lower(): v for k, v in reply.items()}
    return {t: by_lower.get(t.lower(), "") for t in other_terms}


def lda(llm: LLM, *, sentence: str, identity_term: str) -> list[str]:
    """Two synonym rewrites then two sentiment-reversed rewrites (fewer if the reply has fewer)."""
    return parse.numbered(llm.ask("lda", prompts.lda_messages(sentence=sentence, identity_term=identity_term)))[:4]


def syda(llm: LLM, *, sentence: str, identity_term: str, n: int = 1) -> list[str]:
    return parse.numbered(llm.ask("syda", prompts.syda_messages(sentence=sentence, identity_term=identity_term,
                                                                n=n)))[:n]


def seda(llm: LLM, *, bias_type: str, identity_term: str, seen_topics: Sequence[str], n: int) -> list[str]:
    return parse.numbered(llm.ask("seda", prompts.seda_messages(bias_type=bias_type, identity_term=identity_term,
                                                                seen_topics=list(seen_topics), n=n)))[:n]


def generate(llm: LLM, *, identity_terms: Mapping[str, Sequence[str]], n_triplets: int = 3, bts_rounds: int = 1,
             n_sentences: int = 2, augmentations: Sequence[str] = AUGMENTATIONS, n_seda: int = 1) -> pd.DataFrame:
    """Run the pipeline for every bias type in ``identity_terms`` (at least two terms each); see the module
    docstring for the output."""
    bad = [a for a in augmentations if a not in AUGMENTATIONS]
    if bad:
        raise unknown("augmentation stage", bad[0], AUGMENTATIONS)
    for bias_type, terms in identity_terms.items():  # "Muslim" and "muslim " are one group, not two
        check_distinct([terms] if isinstance(terms, str) else terms, what=f"identity terms of {bias_type!r}")
    short = [b for b, terms in identity_terms.items() if isinstance(terms, str) or len(terms) < 2]
    if short:
        raise InputError(f"bias type {short[0]!r} needs at least two identity terms for counterfactuals.",
                         fix="list two or more identity terms per bias type.")
    rows: list[dict] = []
    numbers = count(1)

    def add_group(sentence: str, *, term: str, terms: Sequence[str], stage: str, triplet: Mapping[str, str],
                  bias_type: str, sources: Mapping[str, str]) -> dict[str, str]:
        others = [t for t in terms if t != term]
        texts = {term: sentence, **cspg(llm, sentence=sentence, identity_term=term, other_terms=others)}
        case_id = f"btcsam:{stage}:{next(numbers):05d}"
        for i, t in enumerate([term] + others):
            rows.append({"case_id": case_id, "variant_id": f"{case_id}:{i}", "text": texts[t],
                         "attribute": bias_type, "group": t, "fill": t, "generator": "btcsam", "template": "",
                         "is_original": t == term, "bias_type": bias_type, "stage": stage,
                         "topic": triplet.get("topic", ""), "concept_term": triplet.get("concept_term", ""),
                         "source_text": texts[t] if stage == "etsg" else sources.get(t, ""), "test_set": "btcsam"})
        return texts

    for bias_type, terms in identity_terms.items():
        terms = list(terms)
        for triplet in bts(llm, bias_type=bias_type, identity_terms=terms, n=n_triplets, rounds=bts_rounds):
            term = triplet["identity_term"]
            common = {"term": term, "terms": terms, "triplet": triplet, "bias_type": bias_type}
            for sentence in etsg(llm, identity_term=term, concept_term=triplet["concept_term"],
                                 topic=triplet["topic"], n=n_sentences):
                sources = add_group(sentence, stage="etsg", sources={}, **common)
                if "lda" in augmentations:
                    for rewrite in lda(llm, sentence=sentence, identity_term=term):
                        add_group(rewrite, stage="lda", sources=sources, **common)
                if "syda" in augmentations:
                    for rewrite in syda(llm, sentence=sentence, identity_term=term):
                        add_group(rewrite, stage="syda", sources=sources, **common)
        if "seda" in augmentations:
            topics = sorted({r["topic"] for r in rows if r["bias_type"] == bias_type and r["topic"]})
            for term in terms:
                for sentence in seda(llm, bias_type=bias_type, identity_term=term, seen_topics=topics, n=n_seda):
                    add_group(sentence, term=term, terms=terms, stage="seda", triplet={}, bias_type=bias_type,
                              sources={})
    return cases.frame(rows, extra=EXTRA_COLUMNS)
