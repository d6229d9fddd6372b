"""Coverage of the EEC headline's interval in agreement across methods, in the EEC's real design.

The headline is |mean Δ| over the paper's sentence pairs, gender and race averaged (``agreement``'s ``eec`` row).
Its percentile interval resamples the study's units (:meth:`toolkit.studies.eec.EEC.units`): the 11 templates, and
(since the names became a crossed factor) the name units too — gender's 10 noun-phrase pairs and names-mean pair,
race's 20 AA−EA name pairs. This script measures both readings on the same simulated systems.

Each simulated system scores the generator's own 8,640 sentences: score = 0.5 + the template's effect + the emotion
word's + the person's (each of the 40 names and 20 noun phrases its own, drawn once per system: names and words are
samples) + the template's own gender and race shift (sd ``--template-sd``) + δ for a female person + δ for an
African-American name + sentence noise. The truth is the population value, (|δ_gender| + |δ_race|) / 2: with
infinitely many templates, names and words, every effect but δ averages out (at δ = 0 the truth is 0, the edge of
what |·| can take: a percentile interval of |mean Δ| excludes it whenever every replicate is above 0; the folded
interval, each signed gap's interval at 1 − 0.05/2 folded onto |·| and averaged, can hold it). Coverage is the share
of systems whose 95 % interval holds the truth, with its binomial Monte-Carlo SE.

    PYTHONPATH=. python benchmarks/eec_headline_coverage.py --systems 400
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from toolkit.studies import get
from toolkit.studies.agreement import _replicates, folded_interval
from toolkit.studies.eec.generator import generate

DESIGNS = {  # name: (δ gender, δ race, name sd, template × group sd)
    "no names' spread (sd 0)": (0.03, 0.03, 0.0, 0.01),
    "names sd .02": (0.03, 0.03, 0.02, 0.01),
    "names sd .04": (0.03, 0.03, 0.04, 0.01),
    "names sd .04, δ .06": (0.06, 0.06, 0.04, 0.01),
    "names sd .04, no bias (δ 0)": (0.0, 0.0, 0.04, 0.01),
}
NOISE_SD = 0.02
WORD_SD = 0.05


def simulate(cases: pd.DataFrame, *, systems: int, delta_gender: float, delta_race: float, name_sd: float,
             template_sd: float, rng: np.random.Generator) -> pd.DataFrame:
    """A scored EEC table of ``systems`` simulated models (columns as ``eec.run(...).scored`` needs for units)."""
    persons = sorted(set(cases["person"]))
    templates = sorted(set(cases["template_id"]))
    words = sorted(set(cases["emotion_word"]))
    t_index = cases["template_id"].map({t: i for i, t in enumerate(templates)}).to_numpy()
    p_index = cases["person"].map({p: i for i, p in enumerate(persons)}).to_numpy()
    w_index = cases["emotion_word"].map({w: i for i, w in enumerate(words)}).to_numpy()
    female = (cases["gender"] == "female").to_numpy(dtype=float)
    black = (cases["race"] == "African-American").to_numpy(dtype=float)
    frames = []
    for k in range(systems):
        score = (0.5 + rng.normal(0, 0.05, len(templates))[t_index] + rng.normal(0, WORD_SD, len(words))[w_index]
                 + rng.normal(0, name_sd, len(persons))[p_index]
                 + (delta_gender + rng.normal(0, template_sd, len(templates))[t_index]) * female
                 + (delta_race + rng.normal(0, template_sd, len(templates))[t_index]) * black
                 + rng.normal(0, NOISE_SD, len(cases)))
        frames.append(cases.assign(model=f"sim{k:04d}", task="valence", score=score))
    return pd.concat(frames, ignore_index=True)


def coverage(units: pd.DataFrame, truth: float, *, n_boot: int, seed: int, crossed: bool,
             folded: str = "") -> tuple[float, float]:
    """Share of systems whose interval holds ``truth``, and the mean interval width: the percentile interval of the
    |·| replicates, or the signed parts' intervals folded (:func:`folded_interval`): ``folded="percentile"`` or
    ``"t"`` (t on the replicates' SD, df = units − 1: the study's since round 15)."""
    models = sorted(set(units["model"]))
    table = units if crossed else units.drop(columns="unit2")
    point, boot, n_units, _, signed = _replicates(table, models, n_boot=n_boot, rng=np.random.default_rng(seed),
                                                  absolute=True, signed_parts=True)
    if folded:
        low, high = folded_interval(*signed, alpha=0.05, df=n_units - 1 if folded == "t" else None)
        low, high = np.minimum(low, point), np.maximum(high, point)
    else:
        low, high = np.nanquantile(boot, [0.025, 0.975], axis=0)
    return float(np.mean((low <= truth) & (truth <= high))), float(np.mean(high - low))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=400)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cases = generate()
    eec = get("eec")
    print(f"{args.systems} systems per design, {args.n_boot} bootstrap replicates, sentence noise sd {NOISE_SD}, "
          f"emotion words sd {WORD_SD}, 95 % intervals\n")
    print("| design | truth | resampled | coverage [± 1.96 MC SE] | mean width |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(args.seed)
    for name, (dg, dr, name_sd, template_sd) in DESIGNS.items():
        start = time.perf_counter()
        scored = simulate(cases, systems=args.systems, delta_gender=dg, delta_race=dr, name_sd=name_sd,
                          template_sd=template_sd, rng=rng)
        units = eec.units(scored)
        truth = (abs(dg) + abs(dr)) / 2
        for crossed, folded, label in ((False, "", "templates"), (True, "", "templates × names"),
                                       (True, "percentile", "templates × names, folded percentiles"),
                                       (True, "t", "templates × names, folded t (the study's)")):
            cov, width = coverage(units, truth, n_boot=args.n_boot, seed=args.seed, crossed=crossed, folded=folded)
            se = np.sqrt(cov * (1 - cov) / args.systems)
            print(f"| {name} | {truth:.3f} | {label} | {cov:.1%} [± {1.96 * se:.1%}] | {width:.4f} |", flush=True)
        print(f"<!-- {name}: {time.perf_counter() - start:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
