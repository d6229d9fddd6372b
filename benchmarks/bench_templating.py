"""BiasFinder templating throughput on IMDB reviews: gender, occupation and country of origin, as
``toolkit.studies.biasfinder.generator.generate`` runs them (gender and country share one parse).

    python benchmarks/bench_templating.py [--imdb ../shared/data/imdb/imdb_train.csv.gz] [--n 25000]

Prints how many reviews each cheap pre-filter lets through (the rest are never parsed), templates and mutants per
instance, docs/s, templates/s, the time extrapolated to 25,000 reviews, and as its last line
``docs_per_s=<…> templates=<…> seconds=<…>``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from toolkit import corpora
from toolkit.studies.biasfinder.generator import _one_gender, generate
from toolkit.studies.biasfinder.generator.gender import _PREFILTER
from toolkit.studies.biasfinder.generator.occupation import _only_occupation

DEFAULT_IMDB = Path(__file__).resolve().parents[2] / "shared" / "data" / "imdb" / "imdb_train.csv.gz"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imdb", type=Path, default=DEFAULT_IMDB)
    parser.add_argument("--n", type=int, default=25000)
    parser.add_argument("--n-process", type=int, default=2, help="spaCy parsing processes (default: 2 cores)")
    args = parser.parse_args()
    if not args.imdb.exists():
        print(f"IMDB file {args.imdb} not found; pass --imdb PATH.", file=sys.stderr)
        return 2
    corpus = corpora.load(args.imdb, limit=args.n)
    one_gender = _one_gender(corpus)
    gender_pass = int(one_gender["text"].map(lambda t: _PREFILTER.search(t) is not None).sum())
    occupation_pass = int((corpus["text"].map(_only_occupation) != "").sum())
    started = time.perf_counter()
    cases = generate(corpus, n_process=args.n_process)
    seconds = time.perf_counter() - started
    originals = cases[cases["is_original"]]
    print(f"reviews {len(corpus)}; parsed for gender/country (one gender's pronouns only) {gender_pass} "
          f"({gender_pass / len(corpus):.0%}); parsed for occupation (one occupation) {occupation_pass} "
          f"({occupation_pass / len(corpus):.0%})")
    for attribute, block in cases.groupby("attribute"):
        templates = int(block["is_original"].sum())
        print(f"{attribute}: templates {templates} ({templates / len(corpus):.1%} of reviews), "
              f"mutants {int((~block['is_original']).sum())}")
    print(f"parsing processes {args.n_process}; templates/s {len(originals) / seconds:.2f}; 25,000 reviews would take about "
          f"{25000 / (len(corpus) / seconds) / 60:.1f} min at this rate")
    print(f"docs_per_s={len(corpus) / seconds:.1f} templates={len(originals)} seconds={seconds:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
