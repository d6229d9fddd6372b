"""How often PSA's gender gap reads "equivalent" when a few names carry a large shift, with and without the EEC's
sparse-sensitivity rule (``psa.analysis.sparse_sensitivity``), in PSA's design: 24 female and 24 male names in 3
categories (paired within a category), 56 sentences, f(x) uniform in [0.2, 0.8]. The population: each female name
shifts the score by 0.15 with probability 0.1 (a lexicon that knows a few names; mean bias 0.015, 1.5 x the 0.01
margin) and no name moves it otherwise; small sentence noise on the names that move. Prints each rule's share of
"equivalent" verdicts and of "F higher" with 95 % Wilson intervals over runs.

    PYTHONPATH=. python benchmarks/psa_sparse_sensitivity.py --runs 300
"""
from __future__ import annotations

import argparse
import time
from unittest import mock

import numpy as np
import pandas as pd

from toolkit import stats
from toolkit.studies.psa import analysis as psa


def scored(rng: np.random.Generator, *, n_sentences: int = 56, share: float = 0.1, shift: float = 0.15) -> pd.DataFrame:
    names = [(f"{g[0].upper()}{c}{i}", g, c) for g in ("female", "male") for c in ("c1", "c2", "c3") for i in range(8)]
    moves = np.array([g == "female" and rng.random() < share for _, g, _ in names])
    base = rng.uniform(0.2, 0.8, n_sentences)
    rows = []
    for i, f in enumerate(base):
        rows.append({"case_id": f"x{i}", "fill": "", "is_original": True, "gender": "", "category": "", "score": f})
        for j, (name, gender, category) in enumerate(names):
            value = f + (shift + rng.normal(0, 0.02) if moves[j] else 0.0)
            rows.append({"case_id": f"x{i}", "fill": name, "is_original": False, "gender": gender,
                         "category": category, "score": value})
    return pd.DataFrame(rows).assign(model="m", corpus="c")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    counts = {"old": {"equivalent": 0, "a higher": 0}, "new": {"equivalent": 0, "a higher": 0}}
    none_moved = 0
    for _ in range(args.runs):
        data = scored(rng)
        row = psa.gender_gap(data, n_boot=200, n_null=200).iloc[0]
        with mock.patch.object(psa, "sparse_sensitivity", lambda row: False):  # the rule off, the same data
            old = psa.gender_gap(data, n_boot=200, n_null=200).iloc[0]["verdict"]
        none_moved += row["verdict"].startswith("identical")
        for rule, verdict in (("old", old), ("new", row["verdict"])):
            counts[rule]["equivalent"] += verdict.startswith("equivalent")
            counts[rule]["a higher"] += verdict == "a higher"
    print(f"PSA design: 24 + 24 names, 56 sentences; a female name shifts by 0.15 with p 0.1; {args.runs} runs "
          f"(seed {args.seed}); no name moved in {none_moved}")
    for rule, found in counts.items():
        for verdict, k in found.items():
            rate, low, high = stats.wilson(k, args.runs)
            print(f"{rule} rule: {verdict}: {k}/{args.runs} = {rate:.3f} [{low:.3f}, {high:.3f}]")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
