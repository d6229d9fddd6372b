"""Type I error of the validity check (toolkit.validity.validity) in the English EEC's own design: the generator's
8,640 sentences (7 templates with emotion words: 5 state words per emotion in templates 1-4, 5 situation words in
5-7), a system whose scores carry a template effect, a word effect and noise but no difference between the emotions.
Prints, per word-effect sd, how often the check says "separates" or "reversed" (alpha .05, one system) with a 95 %
Wilson interval over runs.

    PYTHONPATH=. python benchmarks/eec_validity_null.py --runs 300
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from toolkit import stats, validity
from toolkit.studies.eec.generator import generate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    cases = generate()
    texts = cases[cases["emotion"] != ""].drop_duplicates(["text", "template_id"]).reset_index(drop=True)
    templates = texts["template_id"].to_numpy()
    words = (texts["emotion"] + ":" + texts["emotion_word"]).to_numpy()
    t_index = pd.factorize(templates)[0]
    w_index, w_names = pd.factorize(words)
    base = texts.assign(language="en", source="eec", model="null", task="valence")
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    print(f"EEC design: {len(texts)} texts, {len(set(templates))} templates with emotion words, {len(w_names)} words;"
          f" {args.runs} runs per line, template sd .3, noise sd .1, no emotion difference")
    for word_sd in (0.0, 0.15):
        alarms = 0
        for _ in range(args.runs):
            score = (rng.normal(0, 0.3, t_index.max() + 1)[t_index] + rng.normal(0, word_sd, len(w_names))[w_index]
                     + rng.normal(0, 0.1, len(texts)))
            row = validity.validity(base.assign(score=score)).iloc[0]
            alarms += row["verdict"] in ("separates", "reversed")
        rate, low, high = stats.wilson(alarms, args.runs)
        print(f"word sd {word_sd}: type I {alarms}/{args.runs} = {rate:.3f} [{low:.3f}, {high:.3f}]")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
