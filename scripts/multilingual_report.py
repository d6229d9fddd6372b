"""Run the multilingual EEC study at full size and print the tables of docs/multilingual.md and the simulation of
docs/statistics.md as Markdown.

    python scripts/multilingual_report.py --out data/results/multilingual            # the study (about 7 min)
    python scripts/multilingual_report.py --simulate --reps 100                     # + the regression simulation

Reads the corpora from :func:`toolkit.paths.multilingual_dirs` (or ``--root``); scores every ``ait:`` system of every
task in Spanish and Arabic and the installed systems of :mod:`toolkit.models.other_languages` in German, Japanese and
Chinese (``--languages`` picks some); prints the wall time.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from toolkit.studies import multilingual
from toolkit.studies.multilingual import corpora, defects, regression


def _md(frame: pd.DataFrame, floats: str = "{:.3f}") -> str:
    def cell(v):
        return floats.format(v) if isinstance(v, float) else str(v)
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def _interval(r) -> str:
    return f"{r.estimate:+.4f} [{r.ci_low:+.4f}, {r.ci_high:+.4f}]"


def _r(value: float) -> str:
    """A Pearson r, or a dash for a system with no test-gold in its language (German, Japanese, Chinese)."""
    return "—" if pd.isna(value) else f"{value:.3f}"


def tables(result) -> str:
    out = []
    valid = result.frames["validity"].copy()
    valid["AUC [simultaneous interval]"] = [f"{r.auc:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" if r.reason == ""
                                            else r.reason for r in valid.itertuples()]
    valid["r (test-gold)"] = valid["model"].map(result.pearson).map(_r)
    out += ["### Validity: each system's AUC for its task's emotion on the corpus's own sentences", "",
            _md(valid[["language", "source", "model", "task", "r (test-gold)", "AUC [simultaneous interval]",
                       "verdict", "n_templates"]]), ""]
    stats = result.gaps
    pearson = result.pearson
    summary = (stats.groupby(["language", "source", "attribute", "subset"], sort=False)
               .agg(systems=("model", "nunique"),
                    differences=("verdict", lambda v: int(v.isin(["a higher", "b higher"]).sum())),
                    equivalent=("verdict", lambda v: int(v.str.startswith("equivalent").sum())),
                    inconclusive=("verdict", lambda v: int((v == "inconclusive").sum())),
                    identical=("verdict", lambda v: int(v.str.startswith("identical").sum())),
                    smallest=("estimate", "min"), largest=("estimate", "max")).reset_index())
    out += ["### Verdicts per language, attribute and subset", "", _md(summary, "{:+.4f}"), ""]
    valence = stats[(stats["task"] == "valence") & (stats["subset"] == "all")].copy()
    valence["r (test-gold)"] = valence["model"].map(pearson).map(_r)
    valence["gap [simultaneous interval]"] = [_interval(r) for r in valence.itertuples()]
    out += ["### The valence systems, all sentences", "",
            _md(valence[["language", "source", "model", "r (test-gold)", "attribute", "gap [simultaneous interval]",
                         "p_adjusted", "verdict"]], "{:.3f}"), ""]
    emotion = stats[(stats["subset"] != "all") & (stats["task"] == stats["subset"].str.replace("emotion:", ""))]
    emotion = emotion.assign(gap=[_interval(r) for r in emotion.itertuples()],
                             r=emotion["model"].map(pearson).map(_r))
    out += ["### Each emotion's systems on that emotion's sentences (the EEC paper's emotion-matched analysis)", "",
            _md(emotion[["language", "source", "model", "r", "attribute", "gap", "p_adjusted", "verdict"]]), ""]
    inter = result.intersections
    inter = inter[inter["attribute"].str.endswith("interaction") & (inter["task"] == "valence")]
    inter = inter.assign(interaction=[_interval(r) for r in inter.itertuples()])
    out += ["### Race × gender interaction, valence systems", "",
            _md(inter[["language", "source", "model", "interaction", "p_adjusted", "verdict", "reason"]]), ""]
    reg = result.regression[result.regression["term"] != "intercept"]
    counts = (reg.groupby(["language", "source", "method", "term"], sort=False)
              .agg(systems=("model", "nunique"), p_below_005=("p_value", lambda p: int((p < 0.05).sum())),
                   median_estimate=("estimate", "median")).reset_index())
    out += ["### The regressions: systems with p < 0.05 per term", "", _md(counts, "{:+.3f}"), ""]
    out += ["### Defects", "", _md(defects.summary(result.defects)), "",
            _md(result.defects[result.defects["kind"] != "cells"].drop(columns=["example"])), ""]
    out += ["### Design", "", _md(result.design), ""]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--simulate", action="store_true")
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--languages", nargs="+", default=None)
    args = parser.parse_args()
    started = time.time()
    result = multilingual.run(root=args.root, languages=args.languages, progress=False, cache=False)
    result.write(args.out, latex=True)
    print(tables(result))
    print(f"study wall_seconds={time.time() - started:.0f}", flush=True)
    if args.simulate:
        table = corpora.load(sources=["camara2022"], languages=["es", "ar"], root=args.root)
        frames = []
        for language in ("es", "ar"):
            for cluster in regression.CLUSTERS:
                for base, effects in ((0.0, {}), (-0.5, {}),
                                      (-0.5, {"race": 0.3, "gender": -0.2, "interaction": 0.2})):
                    sim = regression.simulate(table[table["language"] == language], n_reps=args.reps, seed=11,
                                              base=base, effects=effects, cluster=cluster)
                    frames.append(sim.assign(language=language, cluster=cluster))
        sims = pd.concat(frames, ignore_index=True)
        print(_md(sims[["language", "cluster", "base", "method", "term", "effect", "truth", "n_reps",
                        "rejection_rate", "coverage"]]))
        print(f"total wall_seconds={time.time() - started:.0f}")


if __name__ == "__main__":
    main()
