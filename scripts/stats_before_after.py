"""The BiasFinder rates table and the agreement table for the offline models (vader, textblob, afinn, minilm-imdb)
on the bundled sample corpus, computed by whichever ``toolkit`` is on PYTHONPATH — run once with the old tree and
once with the new one to compare verdicts (issue 32). The scored tables are pickled to ``--scored`` on the first
run and read back afterwards, so both runs read the same scores.

    PYTHONPATH=/path/to/tree python scripts/stats_before_after.py --scored /tmp/scored.pkl --out /tmp/before
"""
from __future__ import annotations

import argparse
import pickle
from pathlib import Path

import pandas as pd

MODELS = ["vader", "textblob", "afinn", "minilm-imdb"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scored", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--n-boot", type=int, default=2000)
    args = parser.parse_args()
    from toolkit.studies import agreement
    from toolkit.studies.biasfinder import analysis as biasfinder

    if args.scored.exists():
        scored = pickle.loads(args.scored.read_bytes())
    else:
        _, scored = agreement.run(models=MODELS, cache=True, progress=False)
        args.scored.write_bytes(pickle.dumps(scored))
    args.out.mkdir(parents=True, exist_ok=True)
    rates = biasfinder.rates(scored["biasfinder"], n_boot=args.n_boot)
    result = agreement.agreement(scored=scored, n_boot=args.n_boot)
    rates.to_csv(args.out / "biasfinder_rates.csv", index=False)
    result.tau.to_csv(args.out / "agreement_tau.csv", index=False)
    result.headlines.to_csv(args.out / "agreement_headlines.csv", index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 40, "display.precision", 4):
        print(rates.drop(columns=[c for c in ("rate_wilson_low", "rate_wilson_high", "newcombe_low",
                                              "newcombe_high", "pairs_matched", "btcs_matched") if c in rates]))
        print(result.tau)


if __name__ == "__main__":
    main()
