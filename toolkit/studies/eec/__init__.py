"""The EEC study (Kiritchenko & Mohammad 2018, doi:10.18653/v1/S18-2005), one place: the generator
(:mod:`.generate`), the statistics (:mod:`.analysis`, :mod:`.planning`), the figures (:mod:`.figures`), the paper
tables as LaTeX (:mod:`.tables`) and their captions (:mod:`.captions`), the drill-down pairs (:mod:`.drilldown`) and
the app (:mod:`.app`); registered as ``eec`` (:class:`EEC`).

>>> from toolkit.studies import eec
>>> result = eec.run(models=["vader", "textblob", "afinn"])   # a toolkit.studies.result.StudyResult
>>> result.tests            # one row per model × task × attribute × subset
>>> result.stats            # one row per conclusion, the statistics frame every study shares
>>> eec.tables(result.tests)  # the paper's Tables 5, 6, 7: a block per task
>>> result.write("results/eec", latex=True, report=True)
>>> eec.run(task="anger")   # the anger systems of the trained SemEval-2018 zoo (toolkit.models.ait); "all": 5 tasks
>>> eec.run(spelling="corrected")  # "disappointed" for the release's "dissapointed" (sic) in 240 sentences
>>> eec.run(correction="holm", margin=0.02)  # the two-way p corrected by Holm, TOST at ±0.02
>>> eec.clustered_vs_paper(result.tests)  # the conclusions that change with names and templates as samples

Every test row also carries an interval with names and templates as samples, ``p_adjusted`` over the paper's
family, an equivalence ``verdict``, a placebo null baseline and variance shares (see :mod:`toolkit.studies.eec.analysis`);
``correction``, ``margin``, ``n_boot``, ``seed`` and each subset's family go into the provenance's settings.

The generator is :mod:`toolkit.studies.eec.generator`, the statistics :mod:`toolkit.studies.eec.analysis`.
"""
from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd
from matplotlib.axes import Axes

from toolkit import checks, stats, validity
from toolkit.cases import TASKS
from toolkit.errors import InputError, unknown
from toolkit.models import OFFLINE_DEFAULTS, SentimentModel, ait, load_all
from toolkit.scoring import ScoreRecord, score
from toolkit.studies import get, register, stats_frame
from toolkit.studies.base import Settings, Study
from toolkit.studies.eec import analysis as eec_study
from toolkit.studies.eec import drilldown, figures
from toolkit.studies.eec.analysis import (
    ATTRIBUTES,
    PAPER_TABLES,
    SUBSETS,
    cells,
    clustered_vs_paper,
    directions,
    pairs,
    paper_table,
    summary,
    tables,
    ttests,
)
from toolkit.studies.eec.generator import SPELLINGS, generate
from toolkit.studies.eec.latex import LATEX_LAYOUTS
from toolkit.studies.result import Provenance, StudyResult

TASK_CHOICES: tuple[str, ...] = TASKS + ("all",)
"""The task picker's values: one SemEval-2018 Task 1 task, or ``all`` five."""


@dataclass(frozen=True)
class EECSettings(Settings):
    """The EEC's settings (defaults: the paper's): ``task`` picks the default systems (None: the offline valence
    models; ``all``: the trained zoo of five tasks) and, with models given, checks each predicts it; ``subsets``
    tested; the corpus's ``spelling``; the two-way ``method`` and template ``weighting``; ``family_size``: the family
    the run is part of when larger than its own tests (the paper's 438)."""

    task: str | None = None
    subsets: tuple[str, ...] = SUBSETS
    spelling: str = "published"
    method: str = "satterthwaite"
    weighting: str = "sentences"
    family_size: int | None = None
    MIN_BOOT: ClassVar[int] = 100  # the bootstrap-t and percentile methods

    def check(self) -> None:
        if self.task is not None and self.task not in TASK_CHOICES:
            raise unknown("task", self.task, TASK_CHOICES)
        if self.spelling not in SPELLINGS:
            raise unknown("EEC spelling", self.spelling, SPELLINGS)
        if self.method not in stats.BOOTSTRAP_METHODS:
            raise unknown("two-way method", self.method, stats.BOOTSTRAP_METHODS)
        if self.weighting not in eec_study.WEIGHTINGS:
            raise unknown("weighting", self.weighting, eec_study.WEIGHTINGS)
        subsets = (self.subsets,) if isinstance(self.subsets, str) else tuple(self.subsets)
        for subset in subsets:
            if subset not in SUBSETS:
                raise unknown("subset", subset, SUBSETS)
        if self.family_size is not None:
            self._set(family_size=checks.count(self.family_size, name="family_size"))
        self._set(subsets=subsets)


def default_models(task: str = "valence") -> list[str]:
    """The systems a task runs by default: ``valence`` → the offline valence models (:data:`OFFLINE_DEFAULTS`) and
    the trained zoo's valence systems (the paper scored SemEval-2018 systems; the zoo is their offline stand-in, and
    the other studies' figures rank both); an emotion → the zoo's systems for it; ``all`` → the whole zoo, five
    tasks (:func:`toolkit.models.ait.specs`)."""
    if task not in TASK_CHOICES:
        raise unknown("task", task, TASK_CHOICES)
    return [*OFFLINE_DEFAULTS, *ait.specs("valence")] if task == "valence" else ait.specs(task)


def run(*, models: Iterable[str | SentimentModel] | None = None, task: str | None = None,
        subsets: Sequence[str] = SUBSETS, alpha: float = stats.ALPHA, cache: bool | str | Path | None = True,
        progress: bool | None = None, spelling: str = "published", correction: str = "bonferroni",
        margin: float = stats.MARGIN, n_boot: int = stats.N_BOOT, seed: int = 0, method: str = "satterthwaite",
        weighting: str = "sentences", family_size: int | None = None) -> StudyResult:
    """Generate the EEC (``spelling``: ``"published"``, the release's text, or ``"corrected"``; see
    :mod:`toolkit.studies.eec.generator`), score it with ``models`` and run the paper's tests on ``subsets``, with
    the two-way intervals, placebo nulls and verdicts beside them (:func:`toolkit.studies.eec.analysis.intervals`:
    ``correction`` bonferroni/holm/fdr_bh over each subset's family or over ``family_size`` tests, equivalence
    ``margin``, the two-way ``method`` and template ``weighting``, ``n_boot`` replicates and ``seed`` where the
    method resamples). ``task`` (one of :data:`TASK_CHOICES`) picks the default systems (:func:`default_models`)
    and, with ``models`` given, checks that each of them predicts that task (TK102 otherwise); neither given: the
    offline valence models. Returns the study's :class:`~toolkit.studies.result.StudyResult` (tables ``tests``,
    ``summary``, ``pairs``; extras ``pearson``, ``clipping``)."""
    return STUDY.run(models=models, cache=cache, progress=progress, task=task, subsets=tuple(subsets), alpha=alpha,
                     spelling=spelling, correction=correction, margin=margin, n_boot=n_boot, seed=seed,
                     method=method, weighting=weighting, family_size=family_size)


def figures_of(result: StudyResult, *, subset: str | None = None, order: Sequence[str] | None = None,
               colour_by: str = "paper") -> dict[str, Axes]:
    """The gender and race box plots (Figures 1 and 2) of one ``subset`` (default: ``all`` when tested, else the
    first tested) and the mean Δ with its two-way interval, keyed by file stem (``eec_gender_box``,
    ``eec_gender_intervals``, …): one figure each, a panel per task, systems ordered by ``order`` (one task only)
    or by Pearson r on the task's test set, best first (the same order in both); the boxes coloured by the paper's
    test (``colour_by="paper"``) or by the names × templates test (``"two-way"``; :data:`figures.COLOUR_BY`)."""
    subset = _figure_subset(result) if subset is None else subset
    out: dict[str, Axes] = {}
    for a in ATTRIBUTES:
        if order is not None:
            out[f"eec_{a}_box"] = figures.eec_deltas(result.frames["pairs"], result.tests, attribute=a, subset=subset,
                                                     order=order, colour_by=colour_by)
            out[f"eec_{a}_intervals"] = figures.eec_intervals(result.tests, attribute=a, subset=subset, order=order)
        else:
            out[f"eec_{a}_box"] = figures.eec_task_deltas(result.frames["pairs"], result.tests, attribute=a,
                                                          subset=subset, pearson=result.pearson,
                                                          colour_by=colour_by)[0]
            out[f"eec_{a}_intervals"] = figures.eec_task_intervals(result.tests, attribute=a, subset=subset,
                                                                   pearson=result.pearson)[0]
    return out


def _figure_subset(result: StudyResult) -> str:
    """The subset the written figures show: ``all`` when tested, else the first tested one."""
    tested = set(result.tests["subset"])
    return "all" if "all" in tested else next((s for s in SUBSETS if s in tested), "all")


def write(result: StudyResult, out_dir: str | Path | None = None, **options: Any) -> list[Path]:
    """``result.write(out_dir, **options)``: ``eec_tests``, ``eec_summary`` (Tables 5–7), ``eec_pairs``, the box
    and interval figures (``order=`` their systems' order) and ``provenance.json``."""
    return result.write(out_dir, **options)


def _record(settings: EECSettings, scored: pd.DataFrame, tests: pd.DataFrame, pearson: dict, clipping: dict
            ) -> dict[str, Any]:
    """What provenance.json's ``settings`` holds for an EEC run."""
    return {"study": "eec", "spelling": settings.spelling, "subsets": sorted(set(tests["subset"])),
            "alpha": settings.alpha, "tasks": sorted(set(tests["task"])),
            "model_tasks": dict(zip(scored["model"], scored["task"])),
            "n_sentences": int(scored["variant_id"].nunique()),
            "pearson_test": pearson, "clipped_rows": clipping,
            "correction": settings.correction, "margin": settings.margin, "n_boot": settings.n_boot,
            "seed": settings.seed, "families": sorted(set(tests["family"].dropna())),
            "interval": f"two-way (templates × name units), method {settings.method}, templates weighted by "
                        f"{settings.weighting}; ci_low/ci_high simultaneous over each family (Bonferroni level), "
                        "toolkit.stats.two_way_bootstrap",
            "method": settings.method, "weighting": settings.weighting, "family_size": settings.family_size,
            "null_baseline": f"{eec_study.N_NULL} seeded half-splits of each group's names, pooled"}


def affect_validity(scored: pd.DataFrame, *, alpha: float = stats.ALPHA) -> pd.DataFrame:
    """Whether each system reads the EEC sentences' affect (:func:`toolkit.validity.validity`: its clustered AUC for
    its task's emotion against the others, templates and emotion words as clusters, Bonferroni over the systems):
    a system that does not separate "she feels happy" from "she feels sad" has no gap that measures anything, and its
    conclusions say so in ``reason``. Language ``en``, source ``eec``."""
    return validity.validity(scored.assign(language="en", source="eec"), alpha=alpha)


def _reasons(tests: pd.DataFrame) -> list[str]:
    """Each conclusion's reason: the paper's t note, and the sparse-sensitivity rule where it held equivalence back
    (some names never move the score while others do: no equivalence is claimed, whatever the interval)."""
    out = []
    for row in tests.to_dict("records"):
        said = [str(row.get("note") or "")]
        if eec_study.sparse_sensitivity(row):
            unmoved, units = row["n_units_unmoved"], row["n_units"]
            said.append(f"sparse sensitivity: {int(unmoved)} of {int(units)} names never move the score, so no "
                        "equivalence is claimed (a few names may carry a large shift)")
        out.append("; ".join(filter(None, said)))
    return out


@register
class EEC(Study):
    """The Equity Evaluation Corpus: 8,640 sentences, paired t-tests with Bonferroni, Tables 5–7, Figures 1–2."""

    name = "eec"
    title = "EEC (Kiritchenko & Mohammad 2018)"
    paper = "Kiritchenko & Mohammad 2018, doi:10.18653/v1/S18-2005"
    Settings = EECSettings
    headline = "EEC |mean Δ| (gender, race avg.)"
    headline_absolute = True
    sizes = {"quick": {"subsets": ("all",)}, "paper": {}}
    app = "toolkit.studies.eec.app:eec_app"
    latex_layouts = LATEX_LAYOUTS
    verdict_groups = eec_study.VERDICT_GROUPS
    verdict_by = "attribute"
    paper_figures = {
        "eec_gender_box": ("eec_task_deltas", "EEC Figure 1", ("as the paper: a box of Δ per system coloured by "
                           "significance group; a panel per task; systems by Pearson r where known, then by name")),
        "eec_race_box": ("eec_task_deltas", "EEC Figure 2", "as Figure 1, Δ = AA − EA"),
        "eec_gender_intervals": ("eec_task_intervals", "none", "mean Δ with its two-way interval"),
        "eec_race_intervals": ("eec_task_intervals", "none", "mean Δ with its two-way interval"),
    }

    def set_aside(self, model, settings: EECSettings) -> str:
        """An audit leaves out a model of another task than the run's ``task`` (when one is set)."""
        if settings.task not in (None, "all") and getattr(model, "task", "valence") != settings.task:
            return f"{model.spec} scores {model.task}; this EEC run reads the task {settings.task!r}"
        return ""

    def execute(self, *, models, settings: EECSettings, cache, progress) -> StudyResult:
        task = settings.task
        loaded = load_all(checks.model_list(models) if models is not None else default_models(task or "valence"))
        wrong = [m for m in loaded if task not in (None, "all") and m.task != task]
        if wrong:
            raise InputError(f"model {wrong[0].spec!r} predicts {wrong[0].task!r}, not the task {task!r}.",
                             fix=f"pick models of that task, e.g. {', '.join(ait.specs(task)[:2])}, or drop the task.")
        report = ScoreRecord()
        scored = score(generate(spelling=settings.spelling), models=loaded, cache=cache, progress=progress,
                       record=report)
        with eec_study.reusing():  # the pairs and name scores computed once for the tests and the result
            all_pairs = pd.concat([pairs(scored, attribute=a, subset=s) for s in settings.subsets
                                   for a in ATTRIBUTES], ignore_index=True)
            tests = ttests(scored, subsets=settings.subsets, alpha=settings.alpha, correction=settings.correction,
                           margin=settings.margin, n_boot=settings.n_boot, seed=settings.seed,
                           method=settings.method, weighting=settings.weighting, family_size=settings.family_size)
        specs = list(dict.fromkeys(scored["model"]))
        pearson = {m.spec: float(m.pearson) for m in loaded if getattr(m, "pearson", None) is not None}
        clipping = ait.clip_counts(scored)
        return StudyResult(study=self.name, models=specs, scored=scored,
                           frames={"tests": tests, "summary": summary(tests), "pairs": all_pairs},
                           settings=settings, extras={"pearson": pearson, "clipping": clipping,
                                                      "validity": affect_validity(scored, alpha=settings.alpha)},
                           provenance=Provenance.of(study=self.name, record=report,
                                                    settings=_record(settings, scored, tests, pearson, clipping)))

    def figures(self, result: StudyResult, **options: Any) -> dict[str, Axes]:
        return figures_of(result, **options)

    def paper_tables(self, result: StudyResult) -> dict[str, pd.DataFrame]:
        return tables(result.tests)

    def conclusions(self, result: StudyResult) -> pd.DataFrame:
        tests = result.tests
        return stats_frame.frame(pd.DataFrame({
            "model": tests["model"], "attribute": tests["attribute"],
            "scope": "task " + tests["task"].astype(str) + ", subset " + tests["subset"].astype(str),
            "estimate": tests["estimate"], "ci_low": tests["ci_low"], "ci_high": tests["ci_high"],
            "effect_size": tests["effect_size"], "p_value": tests["p_two_way"], "p_adjusted": tests["p_adjusted"],
            "verdict": tests["verdict"],
            "unit": tests["task"].astype(str).map(lambda t: "valence" if t == "valence" else f"{t} intensity")
            + " difference " + tests["group_a"].astype(str) + " − " + tests["group_b"].astype(str),
            "family": tests["family"], "correction": tests["correction"],
            "null": "0; placebo: random halves of each group's names",
            "reason": validity.caveats(tests.assign(reason=_reasons(tests), language="en", source="eec"),
                                       result.extras.get("validity"))}), study=self.name)

    def pairs(self, result: StudyResult, *, model: str, attribute: str) -> pd.DataFrame:
        return drilldown.eec_pairs(result, model=model, attribute=attribute)

    def units(self, scored: pd.DataFrame) -> pd.DataFrame:
        """Per model × template × name unit × attribute: the paper's Δ summed (``num``) and counted (``den``), the
        template the ``unit`` and the name unit of :func:`cells` (gender: the 10 noun-phrase pairs and the
        names-mean pair; race: the 20 AA−EA name pairs) the crossed ``unit2`` (agreement across methods resamples
        both, as the two-way estimate treats both as samples). A template's count of paper pairs is spread over its
        cells by their pairs (race: the 20 name pairs share each case's one names-mean pair, which is their mean),
        so the sums over a template's cells are the paper's and the headline is its |mean Δ|."""
        frames = []
        for attribute in ATTRIBUTES:
            paper = pairs(scored, attribute=attribute).groupby(["model", "template_id"], observed=True)["delta"].size()
            grid = cells(scored, attribute=attribute)
            spread = grid.groupby(["model", "template_id"], observed=True)["n_pairs"].transform("sum")
            share = pd.Series(list(zip(grid["model"], grid["template_id"]))).map(paper).to_numpy() / spread
            frames.append(pd.DataFrame({"model": grid["model"], "unit": grid["template_id"].astype(str),
                                        "unit2": grid["unit"].astype(str), "part": attribute,
                                        "num": grid["delta"] * grid["n_pairs"] * share,
                                        "den": grid["n_pairs"] * share}))
        return pd.concat(frames, ignore_index=True)

    def cases(self, *, spelling: str = "published", **_: Any) -> pd.DataFrame:
        return generate(spelling=spelling)

    def describe(self, result: StudyResult) -> str:
        return result.tests[result.tests["subset"] == "all"].to_string(index=False)

    def default_models(self, settings: EECSettings) -> list[str]:
        return default_models(settings.task or "valence")

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--task", help="valence, anger, fear, joy, sadness or all: the trained SemEval-2018 "
                            "systems of that task (all: the five tasks' zoo) when no --model is given; with --model, "
                            "checks each model predicts it")
        parser.add_argument("--subset", action="append", help="subset(s) to test (default: all of them)")
        parser.add_argument("--order", nargs="+", help="left-to-right order of the models in the box plots")
        parser.add_argument("--box-colour", choices=figures.COLOUR_BY, default="paper",
                            help="what colours the box plots: paper (the paper's paired t-test, as Figures 1-2) or "
                                 "two-way (the names × templates test the intervals figure shows); recorded in "
                                 "provenance.json")
        parser.add_argument("--spelling", choices=SPELLINGS, default="published",
                            help="published: the released sentences as they are, 'dissapointed' (sic) included; "
                                 "corrected: 'disappointed' in those 240 sentences (recorded in provenance.json)")
        parser.add_argument("--two-way", choices=stats.BOOTSTRAP_METHODS, default="satterthwaite",
                            help="reference distribution of the two-way interval, p and equivalence test "
                                 "(default satterthwaite: a t with Satterthwaite's df, p not floored)")
        parser.add_argument("--weighting", choices=eec_study.WEIGHTINGS, default="sentences",
                            help="how templates weigh in the two-way estimate (default sentences: the paper's mean Δ)")
        parser.add_argument("--family-size", type=int,
                            help="correct over this many tests when the run is part of a larger family (the paper's "
                                 "438)")

    def arguments(self, args: argparse.Namespace) -> dict[str, Any]:
        if not args.model and not args.task:
            raise InputError("give --model and/or --task.", fix="e.g. --model vader, or --task anger, or --task all.")
        if args.order is not None:  # before scoring 8,640 sentences per model
            _check_order(args.order, args.model or default_models(args.task))
        return {"task": args.task, "subsets": tuple(args.subset or SUBSETS), "spelling": args.spelling,
                "method": args.two_way, "weighting": args.weighting, "family_size": args.family_size}

    def write_options(self, args: argparse.Namespace) -> dict[str, Any]:
        return {"order": args.order, "colour_by": args.box_colour}


def _check_order(order: list[str], models: list[str]) -> None:
    """TK102 unless ``--order`` lists each model of the run once (the box plots' left-to-right order)."""
    unknown_models = [m for m in order if m not in models]
    if unknown_models or len(set(order)) != len(order) or set(models) - set(order):
        what = (f"{', '.join(map(repr, unknown_models))} {'is' if len(unknown_models) == 1 else 'are'} not among the "
                f"run's models" if unknown_models else "it must name each of the run's models once")
        raise InputError(f"--order {' '.join(order)}: {what} ({', '.join(models)}).",
                         fix=f"pass --order as a permutation of the models: {' '.join(models)}.")


STUDY: EEC = get("eec")  # type: ignore[assignment]
