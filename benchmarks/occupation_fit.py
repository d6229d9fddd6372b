"""Occupation fills that fit (issue 25): what the ``embedding`` fit filter does to BiasFinder's occupation test.

    python benchmarks/occupation_fit.py --corpus ../shared/data/imdb/imdb_train.csv.gz [--limit 25000]
        [--threshold 0.5] [--window 1] [--seed 7] [--show 20] [--templates templates.pkl]

Templates the corpus (curated lists), trains the fit model on the same corpus (cross-fitted, see
:mod:`toolkit.studies.biasfinder.generator.fit`), and prints in Markdown: templates, mutants per template with and without
the filter, distinct occupations and job families kept per template, the occupation pairs that remain (how many,
the most frequent, how many lie inside one family), how often the review's own family ranks first, the time to
train and to rank per template, and ``--show`` random templates with their kept and dropped fills.
"""
from __future__ import annotations

import argparse
import itertools
import random
import time
from collections import Counter

import numpy as np
import pandas as pd


def main(argv: list[str] | None = None) -> None:
    from toolkit import corpora
    from toolkit.studies.biasfinder.generator import fit
    from toolkit.models import ait
    from toolkit.studies.biasfinder.generator.lists import word_lists
    from toolkit.studies.biasfinder.generator.occupation import occupation_templates

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--limit", type=int, default=None, help="first N reviews")
    parser.add_argument("--threshold", type=float, default=fit.THRESHOLD)
    parser.add_argument("--window", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=20)
    parser.add_argument("--templates", help="a pickled occupation_templates frame to reuse (written if missing)")
    parser.add_argument("--embeddings", help="a pickled {text: embedding} dict to start from (speeds up re-runs)")
    args = parser.parse_args(argv)

    corpus = corpora.load(args.corpus)
    if args.limit:
        corpus = corpus.iloc[:args.limit]
    candidates = list(word_lists("curated").occupations)
    start = time.perf_counter()
    try:
        templates = pd.read_pickle(args.templates) if args.templates else None
    except FileNotFoundError:
        templates = None
    if templates is None:
        templates = occupation_templates(corpus)
        if args.templates:
            templates.to_pickle(args.templates)
    templating = time.perf_counter() - start

    if args.embeddings:
        ait._EMBEDDINGS.update(pd.read_pickle(args.embeddings))
    start = time.perf_counter()
    model = fit.train(texts=corpus["text"].astype(str).tolist(), candidates=candidates, window=args.window)
    training = time.perf_counter() - start
    ait._EMBEDDINGS.clear()  # rank with cold embeddings: what a user pays per template
    start = time.perf_counter()
    fills = fit.template_fills(templates, model=model, threshold=args.threshold, window=args.window, record=(fills_record := {}))
    ranking = time.perf_counter() - start

    family = {o: fit.category_of(o) for o in candidates}
    n = len(templates)
    n_fills = fills["n_fills"].to_numpy()
    families = [len({family[o] for o in f}) for f in fills["fills"]]
    table = fills_record["fit"]
    best = table.loc[table.groupby("context_id")["fit"].idxmax(), "category"].to_numpy()
    own_first = np.mean([b == family[o] for b, o in zip(best, fills["occupation"])])
    pairs_all = len(candidates) * (len(candidates) - 1) // 2
    pair_counts: Counter = Counter()
    for f in fills["fills"]:
        pair_counts.update(itertools.combinations(sorted(f), 2))
    inside = sum(c for (a, b), c in pair_counts.items() if family[a] == family[b])
    kept_anywhere = Counter(o for f in fills["fills"] for o in f)

    print(f"## Occupation fit on {len(corpus):,} reviews (`--threshold {args.threshold} --window {args.window}`)\n")
    print(f"- templates: {n:,} (templating {templating:.0f} s)")
    print(f"- training: {sum(model.counts.values()):,} corpus mentions + {sum(model.seeds.values())} seeds, {model.folds} folds, {training:.0f} s; mentions per "
          f"family: {', '.join(f'{k} {v}' for k, v in sorted(model.counts.items(), key=lambda kv: -kv[1]))}")
    print(f"- ranking: {ranking:.1f} s for {n:,} templates = {1000 * ranking / max(n, 1):.1f} ms per template "
          f"(MiniLM embedding of the slot context + {model.folds} logistic regressions; CPU)")
    print(f"- mutants: {n * len(candidates):,} without the filter ({len(candidates)} per template), "
          f"{int(n_fills.sum()):,} with it (mean {n_fills.mean():.1f}, median {np.median(n_fills):.0f}, "
          f"min {n_fills.min()}, max {n_fills.max()} per template)")
    print(f"- distinct occupations per template: "
          + ", ".join(f"{lo}-{hi}: {int(((n_fills >= lo) & (n_fills <= hi)).sum())}"
                      for lo, hi in ((1, 1), (2, 5), (6, 10), (11, 20), (21, 40), (41, 79))))
    print(f"- job families per template: " + ", ".join(f"{k}: {v}" for k, v in sorted(Counter(families).items())))
    print(f"- the review's own family ranks first in {own_first:.0%} of templates")
    print(f"- occupation pairs compared (within a template): {sum(pair_counts.values()):,} with the filter vs "
          f"{n * pairs_all:,} without; {inside / max(sum(pair_counts.values()), 1):.0%} of them inside one family; "
          f"{len(pair_counts):,} distinct pairs of the {pairs_all:,} possible")
    print(f"- occupations kept in at least one template: {len(kept_anywhere)} of {len(candidates)}; never: "
          f"{', '.join(o for o in candidates if o not in kept_anywhere) or 'none'}")
    print("\nMost frequent pairs (templates): "
          + "; ".join(f"{a}–{b} {c}" for (a, b), c in pair_counts.most_common(25)))
    by_family = Counter(family[o] for f in fills["fills"] for o in f)
    print("\nFills per family (mutants): " + ", ".join(f"{k} {v}" for k, v in by_family.most_common()))

    rng = random.Random(args.seed)
    print(f"\n## {args.show} random templates (seed {args.seed}): the slot's context, kept and dropped fills\n")
    for i in sorted(rng.sample(range(n), min(args.show, n))):
        row = templates.iloc[i]
        kept = fills["fills"].iloc[i]
        scores = table[table["context_id"] == i].set_index("occupation")["fit"]
        fams = sorted({family[o] for o in kept})
        dropped = [o for o in candidates if o not in kept]
        print(f"{i}. **{row['occupation']}** ({row['doc_id']}) — {fit.slot_context(row['template'], window=0)}\n"
              f"   - kept {len(kept)} ({', '.join(fams)}): {', '.join(kept)}\n"
              f"   - dropped {len(dropped)}, e.g. {', '.join(sorted(dropped, key=lambda o: -scores[o])[:6])}")


if __name__ == "__main__":
    main()
