"""EEC, end to end: ``generate`` → ``score`` → ``ttests``/``summary``/``paper_table`` → ``plots.eec_deltas`` and
``plots.eec_intervals``.

>>> from toolkit import eec
>>> result = eec.run(models=["vader", "textblob", "afinn"])
>>> result.tests            # one row per model × task × attribute × subset
>>> eec.tables(result.tests)  # the paper's Tables 5, 6, 7: a block per task
>>> eec.write(result, "results/eec")
>>> eec.run(task="anger")   # the anger systems of the trained SemEval-2018 zoo (toolkit.models.ait); "all": 5 tasks
>>> eec.run(spelling="corrected")  # "disappointed" for the release's "dissapointed" (sic) in 240 sentences
>>> eec.run(correction="holm", margin=0.02)  # the two-way p corrected by Holm, TOST at ±0.02
>>> eec.clustered_vs_paper(result.tests)  # the conclusions that change with names and templates as samples

Every test row also carries an interval with names and templates as samples, ``p_adjusted`` over the paper's
family, an equivalence ``verdict``, a placebo null baseline and variance shares (see :mod:`toolkit.studies.eec`);
``correction``, ``margin``, ``n_boot``, ``seed`` and each subset's family go into the provenance's settings.

The generator is :mod:`toolkit.generators.eec`, the statistics :mod:`toolkit.studies.eec`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes

from toolkit import checks, plots, results, stats
from toolkit.cases import TASKS
from toolkit.errors import InputError, unknown
from toolkit.generators.eec import SPELLINGS, generate  # noqa: F401
from toolkit.models import OFFLINE_DEFAULTS, SentimentModel, ait, load_all
from toolkit.scoring import score
from toolkit.studies import eec as eec_study
from toolkit.studies.eec import (ATTRIBUTES, PAPER_TABLES, SUBSETS, clustered_vs_paper, directions,  # noqa: F401
                                 paper_table, pairs, summary, tables, ttests)

TASK_CHOICES: tuple[str, ...] = TASKS + ("all",)
"""The task picker's values: one SemEval-2018 Task 1 task, or ``all`` five."""


def default_models(task: str = "valence") -> list[str]:
    """The systems a task runs by default: ``valence`` → the offline valence models (:data:`OFFLINE_DEFAULTS`); an
    emotion → the trained zoo's systems for it; ``all`` → the whole zoo, five tasks
    (:func:`toolkit.models.ait.specs`)."""
    if task not in TASK_CHOICES:
        raise unknown("task", task, TASK_CHOICES)
    return list(OFFLINE_DEFAULTS) if task == "valence" else ait.specs(task)


@dataclass(frozen=True)
class EECResult:
    """Every stage's table of one EEC run."""

    scored: pd.DataFrame
    pairs: pd.DataFrame
    tests: pd.DataFrame
    summary: pd.DataFrame
    models: list[str]
    alpha: float = 0.05
    pearson: dict[str, float] = field(default_factory=dict)  # spec -> Pearson r on its task's test set, where known
    clipping: dict[str, dict[str, int]] = field(default_factory=dict)  # ait: spec -> rows clipped to 0 / to 1
    spelling: str = "published"  # the corpus's spelling (toolkit.generators.eec.SPELLINGS)
    correction: str = "bonferroni"  # the two-way p's correction over each subset's family (stats.METHODS)
    margin: float = stats.MARGIN  # the equivalence (TOST) margin on the [0, 1] score scale
    n_boot: int = stats.N_BOOT
    seed: int = 0
    method: str = "satterthwaite"  # the two-way reference distribution (stats.BOOTSTRAP_METHODS)
    weighting: str = "sentences"  # how templates weigh in the two-way estimate (studies.eec.WEIGHTINGS)
    family_size: int | None = None  # the family the run is part of, when larger than its own tests


def run(*, models: Iterable[str | SentimentModel] | None = None, task: str | None = None,
        subsets: Sequence[str] = SUBSETS, alpha: float = 0.05, cache: bool | str | Path | None = True,
        progress: bool | None = None, spelling: str = "published", correction: str = "bonferroni",
        margin: float = stats.MARGIN, n_boot: int = stats.N_BOOT, seed: int = 0, method: str = "satterthwaite",
        weighting: str = "sentences", family_size: int | None = None) -> EECResult:
    """Generate the EEC (``spelling``: ``"published"``, the release's text, or ``"corrected"``; see
    :mod:`toolkit.generators.eec`), score it with ``models`` and run the paper's tests on ``subsets``, with the
    two-way intervals, placebo nulls and verdicts beside them (:func:`toolkit.studies.eec.intervals`:
    ``correction`` bonferroni/holm/fdr_bh over each subset's family or over ``family_size`` tests, equivalence
    ``margin``, the two-way ``method`` and template ``weighting``, ``n_boot`` replicates and ``seed`` where the
    method resamples).

    ``task`` (one of :data:`TASK_CHOICES`) picks the default systems (:func:`default_models`) and, with ``models``
    given, checks that each of them predicts that task (TK102 otherwise); neither given: the offline valence models.
    """
    if task is not None and task not in TASK_CHOICES:
        raise unknown("task", task, TASK_CHOICES)
    if spelling not in SPELLINGS:  # before loading models
        raise unknown("EEC spelling", spelling, SPELLINGS)
    alpha, margin, n_boot = checks.statistics(correction=correction, margin=margin, alpha=alpha, n_boot=n_boot,
                                              min_boot=100)  # before scoring, as the subsets
    seed = checks.seed(seed)
    if method not in stats.BOOTSTRAP_METHODS:  # before scoring, as the subsets
        raise unknown("two-way method", method, stats.BOOTSTRAP_METHODS)
    if weighting not in eec_study.WEIGHTINGS:
        raise unknown("weighting", weighting, eec_study.WEIGHTINGS)
    for subset in subsets:  # before scoring 8,640 sentences
        if subset not in SUBSETS:
            raise unknown("subset", subset, SUBSETS)
    loaded = load_all(checks.model_list(models) if models is not None else default_models(task or "valence"))
    wrong = [m for m in loaded if task not in (None, "all") and m.task != task]
    if wrong:
        raise InputError(f"model {wrong[0].spec!r} predicts {wrong[0].task!r}, not the task {task!r}.",
                         fix=f"pick models of that task, e.g. {', '.join(ait.specs(task)[:2])}, or drop the task.")
    scored = score(generate(spelling=spelling), models=loaded, cache=cache, progress=progress)
    with eec_study.reusing():  # the pairs and name scores computed once for the tests and the result
        all_pairs = pd.concat([pairs(scored, attribute=a, subset=s) for s in subsets for a in ATTRIBUTES],
                              ignore_index=True)
        tests = ttests(scored, subsets=subsets, alpha=alpha, correction=correction, margin=margin, n_boot=n_boot,
                       seed=seed, method=method, weighting=weighting, family_size=family_size)
    specs = list(dict.fromkeys(scored["model"]))
    pearson = {m.spec: float(m.pearson) for m in loaded if getattr(m, "pearson", None) is not None}
    return EECResult(scored=scored, pairs=all_pairs, tests=tests, summary=summary(tests), models=specs, alpha=alpha,
                     pearson=pearson, clipping=ait.clip_counts(scored), spelling=spelling, correction=correction,
                     margin=float(margin), n_boot=n_boot, seed=seed, method=method, weighting=weighting,
                     family_size=family_size)


def figures(result: EECResult, *, subset: str = "all", order: Sequence[str] | None = None) -> dict[str, list[Axes]]:
    """The gender and race box plots (Figures 1 and 2) of one subset, keyed by attribute, and the mean Δ with its
    two-way interval, keyed ``<attribute>_intervals``: one figure each, a panel per task, systems ordered by
    ``order`` (one task only) or by Pearson r on the task's test set, best first (the same order in both)."""
    out: dict[str, list[Axes]] = {}
    for a in ATTRIBUTES:
        if order is not None:
            out[a] = [plots.eec_deltas(result.pairs, result.tests, attribute=a, subset=subset, order=order)]
            out[f"{a}_intervals"] = [plots.eec_intervals(result.tests, attribute=a, subset=subset, order=order)]
        else:
            out[a] = plots.eec_task_deltas(result.pairs, result.tests, attribute=a, subset=subset,
                                           pearson=result.pearson)
            out[f"{a}_intervals"] = plots.eec_task_intervals(result.tests, attribute=a, subset=subset,
                                                             pearson=result.pearson)
    return out


def _figure_subset(result: EECResult) -> str:
    """The subset the written figures show: ``all`` when tested, else the first tested one."""
    tested = set(result.tests["subset"])
    return "all" if "all" in tested else next((s for s in SUBSETS if s in tested), "all")


def write(result: EECResult, out_dir: str | Path | None = None, *, order: Sequence[str] | None = None,
          figures_dir: str | Path | None = None, latex: bool = False, report: bool = False) -> list[Path]:
    """Write ``eec_tests.csv`` (a row per model × task × attribute × subset), ``eec_summary.csv`` (the Tables 5–7
    blocks, :func:`summary`), ``eec_pairs.csv``, ``provenance.json`` (with the corpus's spelling, each system's
    test-set Pearson r and the ``ait:`` systems' clipped rows) to ``out_dir`` (default ``data/results/eec``) and the
    box plots ``eec_<attribute>_box.png`` and the interval plots ``eec_<attribute>_intervals.png`` (a panel per
    task; of subset ``all``, or the first subset tested) to ``figures_dir`` (default ``figures/``); return the
    paths. The settings record ``correction``,
    ``margin``, ``n_boot``, ``seed`` and each subset's correction family."""
    tables = {"eec_tests": result.tests, "eec_summary": result.summary, "eec_pairs": result.pairs}
    axes = {f"eec_{key}" if key.endswith("_intervals") else f"eec_{key}_box": panels[0]
            for key, panels in figures(result, subset=_figure_subset(result), order=order).items()}
    settings = {"study": "eec", "spelling": result.spelling, "subsets": sorted(set(result.tests["subset"])),
                "alpha": result.alpha, "tasks": sorted(set(result.tests["task"])),
                "model_tasks": dict(zip(result.scored["model"], result.scored["task"])),
                "n_sentences": int(result.scored["variant_id"].nunique()),
                "pearson_test": result.pearson, "clipped_rows": result.clipping,
                "correction": result.correction, "margin": result.margin, "n_boot": result.n_boot,
                "seed": result.seed, "families": sorted(set(result.tests["family"].dropna())),
                "interval": f"two-way (templates × name units), method {result.method}, templates weighted by "
                            f"{result.weighting}; ci_low/ci_high simultaneous over each family (Bonferroni level), "
                            "toolkit.stats.two_way_bootstrap",
                "method": result.method, "weighting": result.weighting, "family_size": result.family_size,
                "null_baseline": f"{eec_study.N_NULL} seeded half-splits of each group's names, pooled"}
    return results.write(study="eec", tables=tables, axes=axes, scored=result.scored, models=result.models,
                         settings=settings, out_dir=out_dir, figures_dir=figures_dir, latex=latex, report=report)
