"""Memory of the long scored table: peak RSS and the table's own size when BiasFinder-like mutants of long IMDB
reviews are scored by several models (a cheap in-process model per spec, so the table dominates, not the models).

    python benchmarks/bench_memory.py [--imdb ../shared/data/imdb/imdb_train.csv.gz] [--reviews 2000] [--models 4]

Each review gives 10 mutants (a first name put in front of it), like the names workload of bench_scoring.py. Run
it once with this checkout on PYTHONPATH and once with an older one to compare. Last line:
``rows=<…> table_mb=<deep memory of the scored table> peak_rss_mb=<…>``.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit.models import SentimentModel
from toolkit.models.base import Predictions
from toolkit.scoring import score

DEFAULT_IMDB = Path(__file__).resolve().parents[2] / "shared" / "data" / "imdb" / "imdb_train.csv.gz"
NAMES = ["Mary", "James", "Keiko", "Ahmed", "Olga", "Diego", "Aisha", "Liam", "Priya", "Chen"]


class Cheap(SentimentModel):
    """A stand-in model: the score is the text length modulo 100, in [0, 1)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec

    @property
    def fingerprint(self) -> str:
        return f"cheap-{self.spec}"

    def predict(self, texts: list[str]) -> Predictions:
        score = np.array([len(t) % 100 / 100 for t in texts])
        return Predictions(score, ["positive" if s >= 0.5 else "negative" for s in score],
                           np.zeros(len(texts), dtype=bool))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imdb", type=Path, default=DEFAULT_IMDB)
    parser.add_argument("--reviews", type=int, default=2000)
    parser.add_argument("--models", type=int, default=4)
    parser.add_argument("--files", action="store_true", help="also write the scored table as CSV and Parquet "
                        "(sizes and times; after the RSS reading)")
    args = parser.parse_args()
    if not args.imdb.exists():
        print(f"IMDB file {args.imdb} not found; pass --imdb PATH.", file=sys.stderr)
        return 2
    reviews = pd.read_csv(args.imdb, usecols=["review"]).sample(n=args.reviews, random_state=0)["review"].tolist()
    rows = [{"case_id": f"t{i}", "variant_id": f"t{i}-{name}", "text": f"{name} wrote: {review}",
             "attribute": "name", "group": name, "fill": name, "generator": "bench",
             "template": f"[NAME] wrote: {review}", "is_original": False} for i, review in enumerate(reviews) for name in NAMES]
    cases = pd.DataFrame(rows)
    del rows, reviews
    started = time.perf_counter()
    scored = score(cases, models=[Cheap(f"cheap{i}") for i in range(args.models)], cache=False, progress=False)
    seconds = time.perf_counter() - started
    table_mb = scored.memory_usage(deep=True).sum() / 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before any file is written
    print(f"cases {len(cases)} rows ({cases.memory_usage(deep=True).sum() / 2**20:.0f} MB); scored by "
          f"{args.models} models in {seconds:.1f} s")
    if args.files:
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            sizes = {}
            for suffix in ("csv", "parquet"):
                path = Path(folder) / f"scored.{suffix}"
                started = time.perf_counter()
                scored.to_csv(path, index=False) if suffix == "csv" else scored.to_parquet(path, index=False)
                sizes[suffix] = (path.stat().st_size / 2**20, time.perf_counter() - started)
            print(", ".join(f"{k}: {mb:.0f} MB written in {s:.1f} s" for k, (mb, s) in sizes.items()))
    print(f"rows={len(scored)} table_mb={table_mb:.0f} peak_rss_mb={peak:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
