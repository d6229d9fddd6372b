"""EEC, end to end: ``generate`` → ``score`` → ``ttests``/``summary``/``paper_table`` → ``plots.eec_deltas``.

>>> from toolkit import eec
>>> result = eec.run(models=["vader", "textblob", "afinn"])
>>> result.tests            # one row per model × attribute × subset
>>> eec.write(result, "results/eec")

The generator is :mod:`toolkit.generators.eec`, the statistics :mod:`toolkit.studies.eec`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes

from toolkit import plots, results
from toolkit.generators.eec import generate
from toolkit.models import OFFLINE_DEFAULTS, SentimentModel
from toolkit.scoring import score
from toolkit.studies.eec import (ATTRIBUTES, SUBSETS, directions, paper_table, pairs, summary,  # noqa: F401
                                 ttests)


@dataclass(frozen=True)
class EECResult:
    """Every stage's table of one EEC run."""

    scored: pd.DataFrame
    pairs: pd.DataFrame
    tests: pd.DataFrame
    summary: pd.DataFrame
    models: list[str]
    alpha: float = 0.05


def run(*, models: Iterable[str | SentimentModel] = OFFLINE_DEFAULTS, subsets: Sequence[str] = SUBSETS,
        alpha: float = 0.05, cache: bool | str | Path | None = True, progress: bool | None = None) -> EECResult:
    """Generate the EEC, score it with ``models`` and run the paper's tests on ``subsets``."""
    models = list(models)
    scored = score(generate(), models=models, cache=cache, progress=progress)
    all_pairs = pd.concat([pairs(scored, attribute=a, subset=s) for s in subsets for a in ATTRIBUTES],
                          ignore_index=True)
    tests = ttests(scored, subsets=subsets, alpha=alpha)
    specs = list(dict.fromkeys(scored["model"]))
    return EECResult(scored=scored, pairs=all_pairs, tests=tests, summary=summary(tests), models=specs, alpha=alpha)


def figures(result: EECResult, *, subset: str = "all", order: Sequence[str] | None = None) -> dict[str, Axes]:
    """The gender and race box plots (Figures 1 and 2) of one subset, keyed by attribute."""
    return {a: plots.eec_deltas(result.pairs, result.tests, attribute=a, subset=subset, order=order)
            for a in ATTRIBUTES}


def write(result: EECResult, out_dir: str | Path | None = None, *, order: Sequence[str] | None = None,
          figures_dir: str | Path | None = None) -> list[Path]:
    """Write ``eec_tests.csv``, ``eec_summary.csv``, ``eec_pairs.csv``, ``provenance.json`` to ``out_dir`` (default
    ``data/results/eec``) and the box plots ``eec_<attribute>_box.png`` to ``figures_dir`` (default ``figures/``);
    return the paths."""
    tables = {"eec_tests": result.tests, "eec_summary": result.summary, "eec_pairs": result.pairs}
    axes = {f"eec_{attribute}_box": ax for attribute, ax in figures(result, order=order).items()}
    settings = {"study": "eec", "subsets": sorted(set(result.tests["subset"])), "alpha": result.alpha,
                "n_sentences": int(result.scored["variant_id"].nunique())}
    return results.write(study="eec", tables=tables, axes=axes, scored=result.scored, models=result.models,
                         settings=settings, out_dir=out_dir, figures_dir=figures_dir)
