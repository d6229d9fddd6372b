"""What ``occupation_fit`` does to BiasFinder's occupation BTCs with a neural model (issue 25).

    python benchmarks/occupation_fit_btcs.py [--corpus ../shared/data/imdb/imdb_train.csv.gz] [--reviews 3000]
        [--seed 2025] [--models minilm-imdb,vader] [--out DIR] [--check 300] [--cache PATH]

Samples ``--reviews`` reviews of the corpus (``corpora.load(path).sample(n, random_state=seed)``), generates the
occupation cases once without the option (curated lists, default coherence rules) and derives the two other arms,
``family`` and ``embedding``, by keeping only each template's fills from :func:`fit.template_fills` on the same
templates, trained on the same screened reviews — what ``generate(..., occupation_fit=...)`` does
(``_fit_occupations``), without templating again. ``--check N`` (default 300, 0 skips) first verifies that on N of
the sampled reviews: ``generate`` with the option must give exactly the derived case table, else the script stops.

Every distinct text is scored once per model (:func:`toolkit.scoring.score` on the unfiltered arm; the other arms
are subsets of its rows). Per arm × model it prints Table 4's counts (:func:`toolkit.studies.biasfinder.analysis.table4`:
templates tested, mutants, templates with ≥ 1 BTC, BTCs), BTCs per template with a 95 % percentile bootstrap over
templates (``scipy.stats.bootstrap``, seeded), the occupation pairs compared in the templates tested (not past
the model's window), BTCs per pair compared, and the share of compared pairs and of BTC pairs whose two occupations
lie in one job family (:data:`fit.CATEGORIES`); then the 15 most frequent occupation
pairs among the BTCs of each arm for the first model. ``--out DIR`` writes ``summary.csv``, ``btc_pairs.csv`` (every
BTC pair's count per arm × model) and ``templates.csv`` (per arm × model × template: mutants, BTCs). A missing
corpus is skipped with a message (exit 0).
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations, product
from pathlib import Path

import numpy as np
import pandas as pd

ARMS = ("none", "family", "embedding")
DEFAULT_CORPUS = "../shared/data/imdb/imdb_train.csv.gz"
DEFAULT_MODELS = "minilm-imdb,vader"
TOP_PAIRS = 15
SUMMARY_COLUMNS = ("arm", "model", "templates", "mutants", "templates_with_btc", "btcs", "btcs_per_template",
                   "ci_low", "ci_high", "pairs_compared", "btc_rate", "same_family_compared", "same_family_btcs",
                   "distinct_btc_pairs")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=DEFAULT_CORPUS, help="a corpus toolkit.corpora.load reads")
    parser.add_argument("--reviews", type=int, default=3000, help="reviews sampled from the corpus")
    parser.add_argument("--seed", type=int, default=2025, help="sampling and bootstrap seed")
    parser.add_argument("--models", default=DEFAULT_MODELS, help="comma-separated model specs; the first one's "
                                                                 "BTC pairs are listed")
    parser.add_argument("--out", help="folder for the CSVs (created)")
    parser.add_argument("--check", type=int, default=300,
                        help="reviews on which the derived arms are checked against generate(occupation_fit=...)")
    parser.add_argument("--cache", help="score cache file (default: none)")
    args = parser.parse_args(argv)
    if args.reviews < 1 or args.check < 0:
        parser.error("--reviews must be at least 1 and --check at least 0.")
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    if not args.models:
        parser.error("--models names no model.")
    return args


def load_reviews(*, path: str, n: int, seed: int) -> pd.DataFrame:
    """``n`` reviews of the corpus at ``path``, sampled with ``seed`` (all of them when it has fewer)."""
    from toolkit import corpora

    corpus = corpora.load(path)
    if n > len(corpus):
        print(f"note: the corpus has {len(corpus):,} reviews; using all of them, not {n:,}.")
    return corpus.sample(n=min(n, len(corpus)), random_state=seed)


def screened(corpus: pd.DataFrame) -> pd.DataFrame:
    """The reviews ``generate`` templates and trains the fit on (default settings: not too long, English; duplicates
    kept)."""
    from toolkit.corpora import looks_english
    from toolkit.studies.biasfinder.generator import MAX_DOC_CHARS

    texts = corpus["text"].astype(str)
    keep = (texts.str.len() <= MAX_DOC_CHARS) & texts.map(looks_english).astype(bool)
    return corpus.loc[keep]


def occupation_cases(corpus: pd.DataFrame, *, occupation_fit: str | None = None) -> pd.DataFrame:
    """BiasFinder's occupation cases for ``corpus`` (curated lists, default rules)."""
    from toolkit.studies.biasfinder.generator import generate

    return generate(corpus, instances=("occupation",), lists="curated", occupation_fit=occupation_fit,
                    progress=False)


def arm_fills(cases: pd.DataFrame, corpus: pd.DataFrame, *, method: str) -> dict[str, tuple[str, ...]]:
    """case_id → the occupations ``method`` keeps for that template, from the templates in ``cases`` (as
    ``generate``'s ``_fit_occupations`` builds them) and the fit trained on ``screened(corpus)``."""
    from toolkit.studies.biasfinder.generator.fit import template_fills

    originals = cases[(cases["attribute"] == "occupation") & cases["is_original"].astype(bool)]
    templates = originals[["doc_id", "corpus", "text", "template", "occupation"]].reset_index(drop=True)
    fills = template_fills(templates, lists="curated", method=method, corpus=screened(corpus))
    return dict(zip(originals["case_id"], fills["fills"]))


def keep_fills(cases: pd.DataFrame, fills: Mapping[str, tuple[str, ...]]) -> pd.Series:
    """Per row of ``cases``: True for originals and for the mutants whose fill ``fills`` keeps for their template."""
    mutant = ~cases["is_original"].astype(bool)
    fits = [fill in fills.get(case, ()) for case, fill in zip(cases["case_id"], cases["fill"])]
    return ~mutant | pd.Series(fits, index=cases.index)


def derive_arms(cases: pd.DataFrame, corpus: pd.DataFrame) -> tuple[dict[str, pd.Series], dict[str, dict]]:
    """Per arm, the row mask on ``cases`` and the fills per template (``none``: every fill)."""
    masks = {"none": pd.Series(True, index=cases.index)}
    fills: dict[str, dict] = {"none": {}}
    for arm in ARMS[1:]:
        started = time.perf_counter()
        fills[arm] = arm_fills(cases, corpus, method=arm)
        masks[arm] = keep_fills(cases, fills[arm])
        print(f"  {arm}: {int(masks[arm].sum()):,} rows kept ({time.perf_counter() - started:.0f} s)")
    return masks, fills


def check_equivalence(corpus: pd.DataFrame) -> str:
    """Derived arms vs ``generate(..., occupation_fit=arm)`` on ``corpus``: a line saying they are identical, or
    SystemExit naming the first arm that differs."""
    base = occupation_cases(corpus)
    masks, _ = derive_arms(base, corpus)
    for arm in ARMS[1:]:
        direct = occupation_cases(corpus, occupation_fit=arm).reset_index(drop=True)
        derived = base[masks[arm]].reset_index(drop=True)
        if not direct.equals(derived):
            raise SystemExit(f"equivalence check failed: on {len(corpus)} reviews, occupation_fit={arm!r} gives "
                             f"{len(direct)} rows, the derived arm {len(derived)}; derive the arms with "
                             f"generate(occupation_fit=...) instead.")
    return (f"checked on {len(corpus)} reviews ({base['case_id'].nunique()} templates): the derived family and "
            f"embedding arms equal generate(occupation_fit=...) row for row.")


def score_cases(cases: pd.DataFrame, *, models: Sequence[str], cache: str | None) -> pd.DataFrame:
    """Every row scored by every model, each distinct text once per model."""
    from toolkit.scoring import score

    frames = []
    for model in models:
        started = time.perf_counter()
        frames.append(score(cases, models=model, cache=cache or False, progress=False))
        print(f"  scored {cases['text'].nunique():,} distinct texts with {model} "
              f"({time.perf_counter() - started:.0f} s)")
    return pd.concat(frames, ignore_index=True)


def btc_pairs(scored: pd.DataFrame) -> pd.DataFrame:
    """One row per model × template × BTC pair: the two occupations (sorted) of two mutants with different predicted
    labels (an occupation template has one mutant per occupation, so every such pair is a BTC)."""
    mutants = scored[scored["group"] != ""]
    rows = []
    for (model, case_id), block in mutants.groupby(["model", "case_id"], sort=False, observed=True):
        by_label = block.groupby("label", observed=True)["group"].apply(list)
        for a_occs, b_occs in combinations(by_label.tolist(), 2):
            rows.extend((model, case_id, *sorted(pair)) for pair in product(a_occs, b_occs))
    return pd.DataFrame(rows, columns=["model", "case_id", "occupation_a", "occupation_b"])


def same_family(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Per row: whether occupations ``a`` and ``b`` lie in one job family of :data:`fit.CATEGORIES`."""
    from toolkit.studies.biasfinder.generator.fit import category_of

    family = {o: category_of(o) for o in set(a) | set(b)}
    return np.array([family[x] is not None and family[x] == family[y] for x, y in zip(a, b)], dtype=bool)


def compared_pairs(cases: pd.DataFrame) -> tuple[int, int]:
    """Occupation pairs compared (summed over templates) and how many lie in one job family."""
    from toolkit.studies.biasfinder.generator.fit import category_of

    total = inside = 0
    for _, fills in cases[cases["group"] != ""].groupby("case_id", sort=False)["group"]:
        n = len(fills)
        total += n * (n - 1) // 2
        families = Counter(category_of(o) for o in fills)
        inside += sum(k * (k - 1) // 2 for f, k in families.items() if f is not None)
    return total, inside


def per_template_interval(values: np.ndarray, *, seed: int) -> tuple[float, float]:
    """95 % percentile bootstrap interval of the mean over templates (NaN with fewer than 2)."""
    from scipy.stats import bootstrap

    if len(values) < 2 or np.all(values == values[0]):
        return (float(values[0]), float(values[0])) if len(values) else (float("nan"), float("nan"))
    result = bootstrap((values.astype(float),), np.mean, n_resamples=2000, method="percentile",
                       random_state=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def summarise(arm: str, scored: pd.DataFrame, pairs: pd.DataFrame, *, cases: pd.DataFrame, seed: int
              ) -> tuple[list[dict], pd.DataFrame]:
    """Per model: the summary row of this arm, and the per-template BTC counts."""
    from toolkit.studies.biasfinder.analysis import btcs, table4

    counts = btcs(scored)
    table = table4(counts).set_index("model")
    rows = []
    for model, t in table.iterrows():
        tested = counts[(counts["model"] == model) & ~counts["past_window"].astype(bool)]
        compared, compared_inside = compared_pairs(cases[cases["case_id"].isin(tested["case_id"])])
        own = pairs[pairs["model"] == model]
        if len(own) != int(t["btcs"]):
            raise SystemExit(f"BTC pairs enumerated ({len(own)}) differ from btcs() ({int(t['btcs'])}) for {arm}/"
                             f"{model}: the pair listing is wrong.")
        low, high = per_template_interval(tested["n_btcs"].to_numpy(), seed=seed)
        inside = same_family(own["occupation_a"], own["occupation_b"])
        rows.append({"arm": arm, "model": model, "templates": int(t["templates"]), "mutants": int(t["mutants"]),
                     "templates_with_btc": int(t["templates_with_btc"]), "btcs": int(t["btcs"]),
                     "btcs_per_template": float(tested["n_btcs"].mean()) if len(tested) else float("nan"),
                     "ci_low": low, "ci_high": high, "pairs_compared": compared,
                     "btc_rate": int(t["btcs"]) / compared if compared else float("nan"),
                     "same_family_compared": compared_inside / compared if compared else float("nan"),
                     "same_family_btcs": float(inside.mean()) if len(inside) else float("nan"),
                     "distinct_btc_pairs": int(own[["occupation_a", "occupation_b"]].drop_duplicates().shape[0])})
    return rows, counts.assign(arm=arm)[["arm", "model", "case_id", "n_mutants", "n_btcs"]]


def _share(value: float) -> str:
    return "–" if pd.isna(value) else f"{value:.0%}"


def markdown_summary(summary: pd.DataFrame) -> str:
    """The summary table in Markdown ("–": no BTC pair to take a share of)."""
    lines = ["| arm | model | templates | mutants | templates with ≥1 BTC | BTCs | BTCs per template (95 % CI) "
             "| pairs compared | BTCs / pair | same family: compared | same family: BTCs | distinct BTC pairs |",
             "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in summary.itertuples():
        lines.append(f"| {r.arm} | {r.model} | {r.templates:,} | {r.mutants:,} | {r.templates_with_btc:,} | "
                     f"{r.btcs:,} | {r.btcs_per_template:.1f} ({r.ci_low:.1f}–{r.ci_high:.1f}) | "
                     f"{r.pairs_compared:,} | {r.btc_rate:.1%} | {_share(r.same_family_compared)} | "
                     f"{_share(r.same_family_btcs)} | "
                     f"{r.distinct_btc_pairs:,} |")
    return "\n".join(lines)


def top_pairs(pairs: pd.DataFrame, *, n: int = TOP_PAIRS) -> pd.DataFrame:
    """The ``n`` most frequent BTC occupation pairs (count = templates where that pair is a BTC), with their
    families."""
    from toolkit.studies.biasfinder.generator.fit import category_of

    counted = (pairs.groupby(["occupation_a", "occupation_b"]).size().rename("btcs").reset_index()
               .sort_values(["btcs", "occupation_a", "occupation_b"], ascending=[False, True, True]).head(n))
    counted["families"] = [category_of(a) if category_of(a) == category_of(b) else f"{category_of(a)}/"
                           f"{category_of(b)}" for a, b in zip(counted["occupation_a"], counted["occupation_b"])]
    return counted.reset_index(drop=True)


def write_csvs(out: Path, *, summary: pd.DataFrame, pairs: dict[str, pd.DataFrame],
               templates: pd.DataFrame) -> None:
    """``summary.csv``, ``btc_pairs.csv`` (count per arm × model × pair) and ``templates.csv`` under ``out``."""
    from toolkit.errors import OutputDirError

    try:
        out.mkdir(parents=True, exist_ok=True)
        summary.to_csv(out / "summary.csv", index=False)
        counted = pd.concat([p.groupby(["model", "occupation_a", "occupation_b"]).size().rename("btcs")
                             .reset_index().assign(arm=arm) for arm, p in pairs.items()], ignore_index=True)
        counted[["arm", "model", "occupation_a", "occupation_b", "btcs"]].to_csv(out / "btc_pairs.csv", index=False)
        templates.to_csv(out / "templates.csv", index=False)
    except OSError as exc:
        raise OutputDirError(f"could not write the CSVs to {out}: {exc}.",
                             fix="give --out a writable folder.") from exc


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not Path(args.corpus).exists():
        print(f"skipped: no corpus at {args.corpus} (give --corpus the IMDB train split, e.g. "
              f"{DEFAULT_CORPUS}).")
        return 0
    started = time.perf_counter()
    corpus = load_reviews(path=args.corpus, n=args.reviews, seed=args.seed)
    print(f"{len(corpus):,} reviews sampled from {args.corpus} (seed {args.seed})")
    if args.check:
        print(check_equivalence(corpus.iloc[:args.check]))
    cases = occupation_cases(corpus)
    print(f"generated {cases['case_id'].nunique():,} occupation templates, {len(cases):,} rows "
          f"({time.perf_counter() - started:.0f} s so far)")
    masks, _ = derive_arms(cases, corpus)
    scored = score_cases(cases, models=args.models, cache=args.cache)
    summary_rows, pairs, templates = [], {}, []
    for arm in ARMS:
        kept = set(cases.loc[masks[arm], "variant_id"])
        arm_scored = scored[scored["variant_id"].isin(kept)]
        pairs[arm] = btc_pairs(arm_scored)
        rows, per_template = summarise(arm, arm_scored, pairs[arm], cases=cases[masks[arm]], seed=args.seed)
        summary_rows += rows
        templates.append(per_template)
    summary = pd.DataFrame(summary_rows, columns=list(SUMMARY_COLUMNS))
    print(f"\n## BTCs with and without occupation_fit ({len(corpus):,} reviews, seed {args.seed}; "
          f"{time.perf_counter() - started:.0f} s)\n")
    print(markdown_summary(summary))
    print("BTCs per template: mean with a 95 % bootstrap interval over templates. No within-class null: an occupation "
          "template has one mutant per occupation, so compare arms by BTCs per pair compared.")
    first = args.models[0]
    for arm in ARMS:
        top = top_pairs(pairs[arm][pairs[arm]["model"] == first])
        print(f"\n{arm} ({first}), the {TOP_PAIRS} most frequent BTC pairs (templates): "
              + "; ".join(f"{r.occupation_a}–{r.occupation_b} {r.btcs} ({r.families})" for r in top.itertuples()))
    if args.out:
        write_csvs(Path(args.out), summary=summary, pairs=pairs, templates=pd.concat(templates, ignore_index=True))
        print(f"\nCSVs written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
