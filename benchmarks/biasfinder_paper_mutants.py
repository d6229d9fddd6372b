"""The paper preset's gender mutants as BiasFinder's code makes them and as this project made them before: pronoun
slots by the word (BiasFinder's dictionaries: "her" → "his", "his" → "her" wherever they stand) or by the parse, and
gender nouns filled with every noun of the mutant's gender (BiasFinder's) or with their own pair.

    python benchmarks/biasfinder_paper_mutants.py --corpus ../shared/data/imdb/imdb_train.csv.gz --n 1000 \
        [--models minilm-imdb] [--n-boot 200]

One parse and one neuralcoref pass (``lists="paper"``, the preset's parser and nouns) give the gender templates of
both pronoun typings (:func:`toolkit.studies.biasfinder.generator.paper.templates_of`, the loop written out as in
``biasfinder_paper_levers.py``); :func:`~toolkit.studies.biasfinder.generator.gender.generate_gender` fills them
under each ``noun_fills``. Prints the templates, those whose two typings differ (per pronoun and parse slot), those
with a noun slot, the mutants of each configuration and how many of its mutant texts the preset's (BiasFinder's
scheme; tests/test_generators_biasfinder_paper.py re-derives it independently) does not make, and the reverse, and,
for
``--models``, Table 4's gender columns with the BTC rate, its interval, within-class null and verdict
(:func:`toolkit.studies.biasfinder.analysis.rates`).
"""
from __future__ import annotations

import argparse
import re
import time
from collections import Counter

import pandas as pd

CONFIGS = {"preset: BiasFinder's (word, all)": ("word", "all"), "before (parse, pair)": ("parse", "pair"),
           "word, pair": ("word", "pair"), "parse, all": ("parse", "all")}
_PRONOUN_SLOT = re.compile(r"<(subj|obj|pos|poss|refl)>", re.IGNORECASE)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", nargs="*", default=[])
    parser.add_argument("--n-boot", type=int, default=200, help="replicates of the BTC-rate intervals")
    args = parser.parse_args(argv)

    from toolkit import corpora
    from toolkit.nlp import coref, load_pipeline
    from toolkit.scoring import score
    from toolkit.studies.biasfinder.analysis import btcs, rates, table4, table4_rates
    from toolkit.studies.biasfinder.generator.gender import generate_gender
    from toolkit.studies.biasfinder.generator.lists import word_lists
    from toolkit.studies.biasfinder.generator.paper import (
        _PREFILTER,
        _clusters,
        _Phrases,
        gender_nouns,
        preprocess,
        templates_of,
    )

    corpus = corpora.load(args.corpus)
    sample = corpus.sample(n=min(args.n, len(corpus)), random_state=args.seed).reset_index(drop=True)
    texts = sample["text"].astype(str).map(preprocess)
    keep = texts.map(lambda t: _PREFILTER.search(t) is not None).astype(bool)
    rows = sample.loc[keep].assign(text=texts[keep])
    pairs = word_lists("paper").noun_pairs
    nlp = load_pipeline(disable=("lemmatizer",))
    phrases = _Phrases(nlp, gender_nouns(pairs, "masculine"))
    resolver = coref.backend("neuralcoref")
    started = time.perf_counter()
    found = {"word": [], "parse": []}
    for row, doc in zip(rows.itertuples(index=False), nlp.pipe(rows["text"].tolist(), batch_size=64)):
        spans = _clusters(resolver, "neuralcoref", doc)
        phrases.prepare(doc.text[s:e] for c in spans for s, e in c)
        persons = {e.text for e in doc.ents if e.label_ == "PERSON"}
        for how in found:
            made = templates_of(doc, spans, persons=persons, phrases=phrases, pairs=pairs, pronoun_slots=how)[0]
            if not isinstance(made, str):
                found[how].append({"doc_id": row.doc_id, "corpus": row.corpus, "text": doc.text,
                                   "template": made[0], "gender": made[1]})
    print(f"{len(sample)} reviews parsed and resolved in {time.perf_counter() - started:.0f} s", flush=True)
    templates = {how: pd.DataFrame(found[how]) for how in found}
    word, parse = templates["word"], templates["parse"]
    differ = word["template"] != parse["template"]
    kinds = Counter()
    for a, b, gender in zip(word.loc[differ, "template"], parse.loc[differ, "template"], word.loc[differ, "gender"]):
        for x, y in zip(_PRONOUN_SLOT.findall(a), _PRONOUN_SLOT.findall(b)):
            if x.lower() != y.lower():
                kinds[f"{gender} pronoun, word slot {x.lower()}, parse slot {y.lower()}"] += 1
    nouns = word["template"].str.contains("<noun:", regex=False)
    print(f"gender templates: {len(word)}; whose pronoun slots differ between word and parse: {int(differ.sum())}; "
          f"with a gender-noun slot: {int(nouns.sum())}")
    for kind, count in kinds.most_common():
        print(f"  {kind}: {count} slots")
    cases = {name: generate_gender(pd.DataFrame(), lists="paper", templates=templates[how], noun_fills=fills)
             for name, (how, fills) in CONFIGS.items()}
    reference = next(iter(cases))
    ours = cases[reference]
    ours_texts = set(ours.loc[~ours["is_original"], "text"])
    for name, frame in cases.items():
        mutants = frame[~frame["is_original"]]
        other = int((~mutants["text"].isin(ours_texts)).sum())
        missing = len(ours_texts - set(mutants["text"]))
        print(f"{name}: {len(mutants):,} mutants ({len(mutants) / max(len(word), 1):.1f} per template); "
              f"not among the preset's mutant texts: {other:,}; the preset's mutant texts it lacks: {missing:,}")
    if args.models:
        tables = []
        for name in list(CONFIGS)[:2]:
            started = time.perf_counter()
            scored = score(cases[name], models=args.models, progress=False, n_jobs=1)
            rated = table4_rates(table4(btcs(scored)), rates(scored, n_boot=args.n_boot, seed=args.seed))
            tables.append(rated.assign(config=name))
            print(name, f"scored in {time.perf_counter() - started:.0f} s", flush=True)
        pd.set_option("display.width", 250)
        columns = ["config", "model", "templates", "mutants", "templates_with_btc", "btcs", "btc_rate", "btc_rate_low",
                   "btc_rate_high", "null_rate", "excess", "excess_low", "excess_high", "verdict"]
        print(pd.concat(tables, ignore_index=True)[columns].to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
