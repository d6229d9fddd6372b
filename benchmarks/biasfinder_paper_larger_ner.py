"""What ``person_names="larger-ner"`` adds to the paper preset, review by review: the texts en_core_web_md's NER types
PERSON that are coreference mentions and not PERSON entities of the preset's parse, and for each review that gains or
loses a gender or country template against ``"entities"`` (the preset), those texts.

    python benchmarks/biasfinder_paper_larger_ner.py --corpus ../shared/data/imdb/imdb_train.csv.gz --n 1000 --seed 0

Needs ``make parser-md``. The loop is :func:`toolkit.studies.biasfinder.generator.paper.paper_templates`'s, written
out so that one parse serves both options (as ``biasfinder_paper_levers.py``).
"""
from __future__ import annotations

import argparse
from collections import Counter


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--parser", default="spacy2:en_core_web_sm")
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
    nlp = load_pipeline(args.parser, disable=("lemmatizer",))
    texts = [t for t in preprocess_all(sample["text"].astype(str), parser=args.parser) if _PREFILTER.search(t)]
    pairs = word_lists("paper").noun_pairs
    phrases = _Phrases(nlp, gender_nouns(pairs, "masculine"))
    resolver = coref.backend("neuralcoref")
    added, changes = Counter(), Counter()
    for doc, more in zip(nlp.pipe(texts, batch_size=64), larger_persons(texts)):
        spans = _clusters(resolver, "neuralcoref", doc)
        phrases.prepare(doc.text[s:e] for c in spans for s, e in c)
        own = person_texts(doc, spans)
        before = templates_of(doc, spans, persons=own, phrases=phrases, pairs=pairs)
        after = templates_of(doc, spans, persons=person_texts(doc, spans, "larger-ner", larger=more),
                             phrases=phrases, pairs=pairs)
        extra = sorted((more - own) & {doc.text[s:e] for c in spans for s, e in c})
        added.update(extra)
        for k, instance in enumerate(("gender", "country")):
            if isinstance(before[k], str) != isinstance(after[k], str):
                change = "gained" if isinstance(before[k], str) else f"lost ({after[k]})"
                changes[f"{instance} {change}"] += 1
                print(f"{instance} {change}: {extra}")
    print(f"{len(texts)} reviews with a gendered pronoun of {len(sample)}; {dict(sorted(changes.items()))}")
    print(f"{sum(added.values())} added mention texts ({len(added)} distinct), most frequent first:")
    print(added.most_common())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
