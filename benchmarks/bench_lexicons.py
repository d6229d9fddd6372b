"""Lexicon models in process vs in worker processes on every core (``score(..., n_jobs=…)``), on IMDB reviews.

    python benchmarks/bench_lexicons.py [--imdb ../shared/data/imdb/imdb_train.csv.gz] [--n 3000] [--cases F.pkl]

Scores ``n`` seeded IMDB reviews (or ``n`` seeded rows of a saved case table, ``--cases``) with vader, textblob
and afinn, cache off, first with ``n_jobs=1`` (in process, as before) then with one worker per core, checks the two
tables are identical and prints texts/s per lexicon and the ratio; the load average is printed first (the machine
may be shared). Last line: ``<spec>=<ratio>`` per lexicon.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd

from toolkit.scoring import score

DEFAULT_IMDB = Path(__file__).resolve().parents[2] / "shared" / "data" / "imdb" / "imdb_train.csv.gz"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imdb", type=Path, default=DEFAULT_IMDB)
    parser.add_argument("--n", type=int, default=3000, help="texts (with --cases: a seeded sample of its rows)")
    parser.add_argument("--cases", type=Path, help="a saved case table (.pkl or .parquet) instead of IMDB reviews")
    parser.add_argument("--models", nargs="+", default=["vader", "textblob", "afinn"])
    args = parser.parse_args()
    if args.cases:
        cases = pd.read_parquet(args.cases) if args.cases.suffix == ".parquet" else pd.read_pickle(args.cases)
        cases = cases.sample(n=min(args.n, len(cases)), random_state=0)
    elif args.imdb.exists():
        texts = pd.read_csv(args.imdb, usecols=["review"]).sample(n=args.n, random_state=0)["review"].tolist()
        cases = pd.DataFrame({"case_id": [f"r{i}" for i in range(len(texts))],
                              "variant_id": [f"r{i}" for i in range(len(texts))], "text": texts,
                              "attribute": "none", "group": "", "fill": "", "generator": "bench", "template": "",
                              "is_original": True})
    else:
        print(f"IMDB file {args.imdb} not found; pass --imdb PATH or --cases FILE.", file=sys.stderr)
        return 2
    cores = os.cpu_count() or 1
    print(f"{len(cases)} texts ({cases['text'].str.len().mean():.0f} characters on average); {cores} cores; "
          f"load average before {os.getloadavg()[0]:.2f}")
    ratios = []
    for spec in args.models:
        score(cases.head(50), models=spec, cache=False, n_jobs=1)  # load the lexicon outside the timings
        started = time.perf_counter()
        one = score(cases, models=spec, cache=False, n_jobs=1, progress=False)
        one_s = time.perf_counter() - started
        started = time.perf_counter()
        many = score(cases, models=spec, cache=False, n_jobs=cores, progress=False)
        many_s = time.perf_counter() - started
        pd.testing.assert_frame_equal(one, many)
        print(f"{spec}: in process {len(cases) / one_s:.0f} texts/s, {cores} workers {len(cases) / many_s:.0f} "
              f"texts/s ({one_s / many_s:.2f}x, identical results); load average now {os.getloadavg()[0]:.2f}")
        ratios.append(f"{spec}={one_s / many_s:.2f}")
    print(" ".join(ratios))
    return 0


if __name__ == "__main__":
    sys.exit(main())
