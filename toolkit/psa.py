"""PSA, end to end: ``corpora.load`` → ``generate`` → ``score`` → ScoreSens, ScoreDev/ScoreRange, LabelDist, r.

>>> from toolkit import psa
>>> result = psa.run(corpus="sample", models=["vader", "minilm-imdb"], n=100)
>>> psa.table2(result.summary)
>>> result.gender      # Δ = female − male with interval, effect size, p_adjusted, verdict and the placebo range

The generator is :mod:`toolkit.generators.psa`, the metrics :mod:`toolkit.studies.psa` (whose docstring relates
the valence scale to the paper's [−1, 1]).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes

from toolkit import checks, corpora, plots, results
from toolkit import stats as st
from toolkit.generators.psa import generate, load_names  # noqa: F401
from toolkit.models import OFFLINE_DEFAULTS, SentimentModel
from toolkit.scoring import score
from toolkit.studies.psa import (N_NULL, THRESHOLDS, check_thresholds,  # noqa: F401
                                 gender_gap, label_dist, label_flips, name_pairs, score_sens,
                                 sensitivity_correlation, summary, table2, variance_table)


@dataclass(frozen=True)
class PSAResult:
    """Every stage's table of one PSA run."""

    scored: pd.DataFrame
    names: pd.DataFrame
    summary: pd.DataFrame
    label_dist: pd.DataFrame
    correlation: pd.DataFrame
    models: list[str]
    settings: dict
    gender: pd.DataFrame
    variance: pd.DataFrame


def run(*, corpus: str | Path | pd.DataFrame = "sample", cases: pd.DataFrame | None = None,
        models: Iterable[str | SentimentModel] = OFFLINE_DEFAULTS, names: str | Path | pd.DataFrame | None = None,
        n: int = 1000, seed: int = 0, max_words: int = 50,
        thresholds: Sequence[float] = THRESHOLDS, n_boot: int = 1000, alpha: float = st.ALPHA,
        margin: float = st.MARGIN, correction: str = "bonferroni", cache: bool | str | Path | None = True,
        progress: bool | None = None, encoding: str = "utf-8") -> PSAResult:
    """Generate PSA cases from ``corpus`` (a :func:`toolkit.corpora.load` source, read with ``encoding``, or a
    frame) — or take ``cases`` already generated — then score and measure. Texts that do not look English are
    skipped; the count and what the loader dropped are in ``settings["corpus_report"]``. ``n_boot`` bootstrap
    replicates (seeded by ``seed``) give every interval; the gender gap's ``p_adjusted`` is corrected over the
    family model × corpus by ``correction`` and its verdict uses ``margin`` and ``alpha`` (all in ``settings``)."""
    models = checks.model_list(models)
    seed, n_boot = checks.seed(seed), checks.n_boot(n_boot)
    check_thresholds(thresholds)
    checks.statistics(correction=correction, margin=margin, alpha=alpha)
    corpus_report: dict = {}
    if cases is None:
        frame = (corpora.from_frame(corpus) if isinstance(corpus, pd.DataFrame)
                 else corpora.load(corpus, encoding=encoding))
        corpus_report = dict(frame.attrs.get("corpus_report", {}))
        english = frame["text"].map(corpora.looks_english).astype(bool)
        corpus_report["non_english_skipped"] = int((~english).sum())
        cases = generate(frame.loc[english], names=names, n=n, seed=seed, max_words=max_words)
    scored = score(cases, models=models, cache=cache, progress=progress)
    specs = list(dict.fromkeys(scored["model"]))
    settings = {"study": "psa", "corpus": sorted(set(cases["corpus"])), "n": n, "seed": seed,
                "max_words": max_words, "n_sentences": int(cases["case_id"].nunique()),
                "names": "default" if names is None else str(names) if not isinstance(names, pd.DataFrame) else
                "frame", "n_boot": n_boot, "corpus_report": corpus_report, "alpha": alpha, "margin": margin,
                "correction": correction, "family": "gender gap: model × corpus", "n_null": N_NULL,
                "gender_design": "sentences × (female, male) name pairs within category; two-way Satterthwaite t",
                "null": "placebo: random halves of each gender's names"}
    return PSAResult(scored=scored, names=score_sens(scored),
                     summary=summary(scored, n_boot=n_boot, seed=seed),
                     label_dist=label_dist(scored, thresholds=thresholds, n_boot=n_boot, seed=seed),
                     correlation=sensitivity_correlation(scored), models=specs, settings=settings,
                     gender=gender_gap(scored, n_boot=n_boot, seed=seed, alpha=alpha, margin=margin,
                                       correction=correction),
                     variance=variance_table(scored))


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text).strip("-")


def figures(result: PSAResult) -> dict[str, Axes]:
    """ScoreSens per name for each model (Figure 1) and the LabelDist curves with their bootstrap bands (Figure 2),
    keyed by file stem."""
    axes = {f"psa_score_sens_{_slug(m)}": plots.psa_score_sens(result.names, model=m) for m in result.models}
    axes["psa_label_dist"] = plots.psa_label_dist(result.label_dist)
    return axes


def write(result: PSAResult, out_dir: str | Path | None = None, *, figures_dir: str | Path | None = None,
          latex: bool = False, report: bool = False) -> list[Path]:
    """Write ``psa_names.csv``, ``psa_summary.csv``, ``psa_label_dist.csv``, ``psa_correlation.csv``,
    ``psa_gender.csv``, ``psa_variance.csv`` and ``provenance.json`` (with ``settings``: correction, family, margin)
    to ``out_dir`` (default ``data/results/psa``), figures to ``figures_dir`` (``figures/``)."""
    tables = {"psa_names": result.names, "psa_summary": result.summary, "psa_label_dist": result.label_dist,
              "psa_correlation": result.correlation, "psa_gender": result.gender, "psa_variance": result.variance}
    return results.write(study="psa", tables=tables, axes=figures(result), scored=result.scored,
                         models=result.models, settings=result.settings, out_dir=out_dir, figures_dir=figures_dir,
                         latex=latex, report=report)
