"""What the name-parts rule (``person_names="name-parts"``) adds, and whether a larger entity recogniser would type
it PERSON: on IMDB train reviews, preprocessed and parsed as the paper preset does (BiasFinder's spaCy 2 small
model), the cluster mentions :func:`~toolkit.studies.biasfinder.generator.paper.name_parts` adds beyond the PERSON
entities, with the label the small model gave each text and the label spaCy 3.8 ``en_core_web_md`` (``make
parser-md``) gives the same character span; for calibration, the same for the cluster mentions the small model
did type PERSON.

    python benchmarks/biasfinder_paper_name_parts_md.py --corpus ../shared/data/imdb/imdb_train.csv.gz --n 1000
"""
from __future__ import annotations

import argparse
from collections import Counter


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--larger", default="en_core_web_md", help="the larger pipeline that reads the same text")
    args = parser.parse_args(argv)

    from toolkit import corpora
    from toolkit.nlp import coref, load_pipeline
    from toolkit.nlp.spacy2 import SPACY2_PIPELINE
    from toolkit.studies.biasfinder.generator.paper import _PREFILTER, _clusters, name_parts, preprocess_all

    sample = corpora.load(args.corpus).sample(n=args.n, random_state=args.seed).reset_index(drop=True)
    nlp = load_pipeline(SPACY2_PIPELINE, disable=("lemmatizer",))
    larger = load_pipeline(args.larger, disable=("lemmatizer",))
    texts = [t for t in preprocess_all(sample["text"].astype(str), parser=SPACY2_PIPELINE) if _PREFILTER.search(t)]
    resolver = coref.backend("neuralcoref")
    small_labels, added, typed = Counter(), Counter(), Counter()
    texts_added, reviews = set(), 0
    for doc in nlp.pipe(texts, batch_size=64):
        clusters = _clusters(resolver, "neuralcoref", doc)
        persons = {e.text for e in doc.ents if e.label_ == "PERSON"}
        parts = name_parts(doc, clusters) - persons
        spans = {"added": [(s, e) for c in clusters for s, e in c if doc.text[s:e] in parts],
                 "typed": [(s, e) for c in clusters for s, e in c if doc.text[s:e] in persons]}
        if parts:
            reviews += 1
            own = {e.text: e.label_ for e in doc.ents}
            for text in parts:
                small_labels[own.get(text, "no entity")] += 1
                texts_added.add((doc.text[:40], text))
        if not any(spans.values()):
            continue
        read = larger(doc.text)
        labels = {(e.start_char, e.end_char): e.label_ for e in read.ents}
        for kind, counter in (("added", added), ("typed", typed)):
            for s, e in spans[kind]:
                label = labels.get((s, e))
                if label is None:
                    inside = [x.label_ for x in read.ents if x.start_char <= s and e <= x.end_char]
                    label = f"inside {inside[0]}" if inside else "no entity"
                counter[label] += 1
    print(f"{args.n} reviews (seed {args.seed}); {len(texts)} with a gendered pronoun")
    print(f"name-parts adds {sum(small_labels.values())} mention texts in {reviews} reviews; the small model's "
          f"label of each text: {dict(small_labels.most_common())}")
    for kind, counter in (("added by name-parts", added), ("typed PERSON by the small model", typed)):
        total = sum(counter.values())
        person = counter["PERSON"]
        print(f"cluster mentions {kind}: {total}; {args.larger} at the same span: {dict(counter.most_common())}; "
              f"PERSON {person} ({100 * person / max(total, 1):.0f} %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
