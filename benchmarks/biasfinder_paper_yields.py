"""BiasFinder template yields per 1,000 reviews next to the paper's Table 4 (issue 34), and BTC counts.

    python benchmarks/biasfinder_paper_yields.py --corpus ../shared/data/imdb/imdb_train.csv.gz --n 3000 \
        --models vader textblob --out yields.csv

Draws ``--n`` reviews (seeded) from the corpus and generates, on the same reviews: the paper preset
(``coherence="paper", backend="neuralcoref", lists="paper"``: BiasFinder's acceptance on neuralcoref clusters),
paper mode with the rules backend, and the generator's default. Prints, per configuration and instance, templates,
templates per 1,000 reviews with a 95 % Wilson interval (a review gives at most one template per instance) and the
paper's value (Table 4: 3,057 / 8,867 / 2,344 templates of 25,000 IMDB reviews = 122.3 / 354.7 / 93.8), the
generation time, and Table 4's BTC columns for ``--models`` (gender and country; occupation with ``--occupation-btcs``).
"""
from __future__ import annotations

import argparse
import time

import pandas as pd
from statsmodels.stats.proportion import proportion_confint

PAPER = {"gender": 3057 / 25, "occupation": 8867 / 25, "country": 2344 / 25}
CONFIGS = {
    "paper preset (neuralcoref)": {"coherence": "paper", "backend": "neuralcoref", "lists": "paper"},
    # occupation does not read coreference: the same templates as the paper preset's
    "paper mode (rules backend)": {"coherence": "paper", "backend": "rules", "lists": "paper",
                                   "instances": ("gender", "country")},
    "default": {},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", nargs="*", default=["vader", "textblob"])
    parser.add_argument("--occupation-btcs", action="store_true", help="also score the occupation mutants")
    parser.add_argument("--configs", nargs="*", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--out", default=None, help="write the yield table here (CSV)")
    args = parser.parse_args(argv)

    from toolkit import corpora
    from toolkit.generators.biasfinder import generate
    from toolkit.scoring import score
    from toolkit.studies.biasfinder import btcs, table4

    corpus = corpora.load(args.corpus)
    sample = corpus.sample(n=min(args.n, len(corpus)), random_state=args.seed).reset_index(drop=True)
    n = len(sample)
    rows, tables = [], []
    for name in args.configs:
        started = time.perf_counter()
        cases = generate(sample, progress=False, **CONFIGS[name])
        seconds = time.perf_counter() - started
        report = cases.attrs["generation_report"]
        for instance in ("gender", "occupation", "country"):
            if f"{instance}_templates" not in report:
                continue
            k = report[f"{instance}_templates"]
            low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
            rows.append({"config": name, "instance": instance, "reviews": n, "templates": k,
                         "per_1000": 1000 * k / n, "ci_low": 1000 * low, "ci_high": 1000 * high,
                         "paper_per_1000": PAPER[instance], "ratio_to_paper": 1000 * k / n / PAPER[instance],
                         "seconds": round(seconds, 1)})
        print(name, f"{seconds:.0f} s", {k: v for k, v in report["rejected_by_rule"].items()}, flush=True)
        if args.models:
            scored_part = cases if args.occupation_btcs else cases[cases["attribute"] != "occupation"]
            scored = score(scored_part, models=args.models, progress=False, n_jobs=1)
            tables.append(table4(btcs(scored)).assign(config=name))
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    print(table.round(1).to_string(index=False))
    if tables:
        print(pd.concat(tables, ignore_index=True).to_string(index=False))
    if args.out:
        table.to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
