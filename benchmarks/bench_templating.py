"""BiasFinder templating throughput on IMDB reviews (gender instance; the others are not implemented yet).

    python benchmarks/bench_templating.py [--imdb ../shared/data/imdb/imdb_train.csv.gz] [--n 25000]

Prints how many reviews pass the cheap pronoun pre-filter (the rest are never parsed), docs/s, templates/s, and as
its last line ``docs_per_s=<…> templates=<…> seconds=<…>``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from toolkit import corpora
from toolkit.generators.biasfinder.gender import _PREFILTER, gender_templates

DEFAULT_IMDB = Path(__file__).resolve().parents[2] / "shared" / "data" / "imdb" / "imdb_train.csv.gz"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imdb", type=Path, default=DEFAULT_IMDB)
    parser.add_argument("--n", type=int, default=25000)
    args = parser.parse_args()
    if not args.imdb.exists():
        print(f"IMDB file {args.imdb} not found; pass --imdb PATH.", file=sys.stderr)
        return 2
    corpus = corpora.load(args.imdb, limit=args.n)
    passing = int(corpus["text"].map(lambda t: _PREFILTER.search(t) is not None).sum())
    started = time.perf_counter()
    templates = gender_templates(corpus)
    seconds = time.perf_counter() - started
    print(f"reviews {len(corpus)}, passing the pronoun pre-filter {passing} ({passing / len(corpus):.0%})")
    print(f"gender templates {len(templates)} ({len(templates) / len(corpus):.1%} of reviews)")
    print(f"docs_per_s={len(corpus) / seconds:.1f} templates={len(templates)} seconds={seconds:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
