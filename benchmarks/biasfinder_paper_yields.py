"""BiasFinder template yields per 1,000 reviews next to the paper's Table 4 (issue 34), and BTC counts.

    python benchmarks/biasfinder_paper_yields.py --corpus ../shared/data/imdb/imdb_train.csv.gz --n 1000 \
        --models afinn vader textblob minilm-imdb --occupation-btcs --out yields.csv --markdown table.md

Draws ``--n`` reviews (seeded) from the corpus and generates, on the same reviews: the paper preset
(``coherence="paper", backend="neuralcoref", lists="paper"``: BiasFinder's acceptance on neuralcoref clusters and
its occupation method), paper mode with the rules backend (gender and country only: BiasFinder's occupation method
reads no coreference, so its templates are the preset's), and the generator's default. Prints, per configuration and
instance, templates, templates per 1,000 reviews with a 95 % interval and the paper's value (Table 4: 3,057 / 8,867 /
2,344 templates of 25,000 IMDB reviews = 122.3 / 354.7 / 93.8), the generation time, and, for ``--models``, Table
4's BTC columns with each BTC rate's interval, its within-class null and verdict (:func:`studies.biasfinder.rates`,
``--n-boot`` two-way replicates; occupation scored with ``--occupation-btcs``). Intervals: Wilson where a review gives
at most one template (gender, country, and occupation under the default); a percentile bootstrap over reviews for
BiasFinder's occupation method, which templates a review once per distinct occupation. ``--markdown`` writes both
tables as Markdown.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
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
    parser.add_argument("--markdown", default=None, help="write the yield and BTC tables here (Markdown)")
    parser.add_argument("--n-boot", type=int, default=200, help="replicates of the BTC-rate intervals")
    parser.add_argument("--n-process", type=int, default=1)
    args = parser.parse_args(argv)

    from toolkit import corpora
    from toolkit.studies.biasfinder.generator import generate
    from toolkit.scoring import score
    from toolkit.studies.biasfinder.analysis import btcs, rates, table4, table4_rates

    corpus = corpora.load(args.corpus)
    sample = corpus.sample(n=min(args.n, len(corpus)), random_state=args.seed).reset_index(drop=True)
    n = len(sample)
    rows, tables = [], []
    for name in args.configs:
        started = time.perf_counter()
        cases = generate(sample, progress=False, n_process=args.n_process, **CONFIGS[name], record=(cases_record := {}))
        seconds = time.perf_counter() - started
        report = cases_record["generation_report"]
        for instance in ("gender", "occupation", "country"):
            if f"{instance}_templates" not in report:
                continue
            k = report[f"{instance}_templates"]
            originals = cases[(cases["attribute"] == instance) & cases["is_original"].astype(bool)]
            per_review = originals.groupby("doc_id").size()
            if len(per_review) and per_review.max() > 1:  # several templates per review: bootstrap over reviews
                counts = np.zeros(n)
                counts[:len(per_review)] = per_review.to_numpy()
                rng = np.random.default_rng(args.seed)
                means = [counts[rng.integers(0, n, n)].mean() for _ in range(2000)]
                low, high = np.percentile(means, [2.5, 97.5])
                method = "bootstrap over reviews"
            else:
                low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
                method = "Wilson"
            rows.append({"config": name, "instance": instance, "reviews": n, "templates": k,
                         "per_1000": 1000 * k / n, "ci_low": 1000 * low, "ci_high": 1000 * high,
                         "interval": method, "paper_per_1000": PAPER[instance],
                         "ratio_to_paper": 1000 * k / n / PAPER[instance],
                         "seconds": round(seconds, 1)})
        print(name, f"{seconds:.0f} s", {k: v for k, v in report["rejected_by_rule"].items()}, flush=True)
        if args.models:
            scored_part = cases if args.occupation_btcs else cases[cases["attribute"] != "occupation"]
            started = time.perf_counter()
            scored = score(scored_part, models=args.models, progress=False, n_jobs=1)
            rated = table4_rates(table4(btcs(scored)), rates(scored, n_boot=args.n_boot, seed=args.seed))
            tables.append(rated.assign(config=name))
            print(name, f"scored in {time.perf_counter() - started:.0f} s", flush=True)
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    print(table.round(1).to_string(index=False))
    if tables:
        print(pd.concat(tables, ignore_index=True).to_string(index=False))
    if args.out:
        table.to_csv(args.out, index=False)
    if args.markdown:
        _markdown(table, pd.concat(tables, ignore_index=True) if tables else None, args.markdown)
    return 0


def _markdown(table: pd.DataFrame, btc: pd.DataFrame | None, path: str) -> None:
    """The yield table and the BTC table as Markdown (the format of docs/biasfinder_imdb_train.md)."""
    lines = ["| configuration | characteristic | templates | per 1,000 [95 % CI] | interval | Table 4 |",
             "|---|---|---|---|---|---|"]
    for r in table.itertuples(index=False):
        lines.append(f"| {r.config} | {r.instance} | {r.templates:,} | {r.per_1000:.1f} [{r.ci_low:.1f}, "
                     f"{r.ci_high:.1f}] | {r.interval} | {r.paper_per_1000:.1f} |")
    if btc is not None:
        header = ("| configuration | model | characteristic | templates | mutants | templates with a BTC | BTCs | "
                  "BTC rate [95 % CI] | within-class null | verdict |")
        lines += ["", header, "|---|---|---|---|---|---|---|---|---|---|"]
        for r in btc.itertuples(index=False):
            rate = (f"{r.btc_rate:.4f} [{r.btc_rate_low:.4f}, {r.btc_rate_high:.4f}]"
                    if pd.notna(r.btc_rate) and pd.notna(r.btc_rate_low) else
                    (f"{r.btc_rate:.4f}" if pd.notna(r.btc_rate) else ""))
            null = f"{r.null_rate:.4f}" if pd.notna(r.null_rate) else "none"
            lines.append(f"| {r.config} | {r.model} | {r.attribute} | {r.templates:,} | {r.mutants:,} | "
                         f"{r.templates_with_btc:,} | {r.btcs:,} | {rate} | {null} | {r.verdict} |")
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
