"""The BTC-SAM study (Kardkovács et al. 2025, doi:10.18653/v1/2025.emnlp-main.763), one place: the LLM generator
(:mod:`.generator`), the metrics (:mod:`.analysis`), figures, LaTeX tables, captions, drill-down and app; registered
as ``btcsam``. End to end: ``generate`` (an LLM) or ``load_sets`` (the releases) → ``run`` (score + detection
probability, failure percentage, diversity) → ``write`` / ``figures``.

>>> from toolkit.studies import btcsam, eec
>>> sets = {**btcsam.load_sets(["baseline", "lexical"]),   # found in $TOOLKIT_BTCSAM_DIR, data/btcsam/, …
...         "eec": btcsam.as_test_set(eec.generate(), name="eec")}
>>> result = btcsam.run(sets=sets, models=["vader", "afinn"])
>>> result.detection      # Table 2; result.failure_pct: Table 5; result.diversity: Table 3
>>> result.failure_pct[["model", "test_set", "failure_pct", "ci_low", "ci_high", "null_pct", "excess_pct"]]

Generation (:mod:`toolkit.studies.btcsam.generator`): ``llm = btcsam.LLM(btcsam.backend("openai", base_url=..., model=...))``
then ``btcsam.generate(llm, identity_terms=btcsam.IDENTITY_TERMS)`` and ``btcsam.filter_counterfactuals(cases)``.
Metrics: :mod:`toolkit.studies.btcsam.analysis`; loaders: :mod:`toolkit.corpora.external`. The released files are not shipped:
:func:`load_sets` looks for them in :func:`toolkit.paths.btcsam_dirs` (``$TOOLKIT_BTCSAM_DIR``, ``data/btcsam/``,
``../shared/data/btcsam``) and, when none holds them, says which files to put where (:func:`missing_sets_message`).
"""
from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from toolkit import checks, paths
from toolkit import stats as st
from toolkit.corpora.external import BTCSAM_SETS, btcsam_path, load_btcsam, load_crows_pairs, load_eec_csv
from toolkit.errors import InputError, unknown, warn
from toolkit.llm import BACKENDS, LLM, PromptStore, backend
from toolkit.models import OFFLINE_DEFAULTS, SentimentModel
from toolkit.scoring import ScoreRecord, score
from toolkit.studies import get, register, stats_frame
from toolkit.studies.base import Settings, Study
from toolkit.studies.btcsam import analysis as _analysis
from toolkit.studies.btcsam import drilldown
from toolkit.studies.btcsam import figures as btcsam_figures
from toolkit.studies.btcsam.analysis import (
    RULES,
    THETAS,
    as_test_set,
    detection_intervals,
    detection_probability,
    diversity,
    failure_by_bias_type,
    failure_percentage,
    failures,
    pair_null,
    pooled_failure_percentage,
    stage_diversity,
    text_classes,
)
from toolkit.studies.btcsam.generator import filter_counterfactuals, generate
from toolkit.studies.btcsam.latex import LATEX_LAYOUTS
from toolkit.studies.result import Provenance, StudyResult

IDENTITY_TERMS: dict[str, list[str]] = {  # a small default; the paper's lists are longer
    "religion": ["Christian", "Jewish", "Muslim", "Hindu", "Buddhist"],
    "gender": ["woman", "man"],
    "race": ["Black", "White", "Asian", "Hispanic"],
    "nationality": ["American", "Mexican", "Chinese", "Indian", "German"],
    "sexual orientation": ["gay", "straight", "bisexual"],
    "age": ["young", "old"],
    "disability": ["blind", "deaf", "disabled", "able-bodied"],
}


RELEASE = ("the test sets released with BTC-SAM (Kardkovács et al. 2025): the files linked from the paper's "
           "data/code release")
"""Where the released files come from (they are not shipped with the toolkit and nothing downloads them)."""


def sets_files(names: Sequence[str] = BTCSAM_SETS) -> list[str]:
    """The file names of the released sets ``names`` (``<set>_output.csv``); an unknown set is a coded error."""
    return [btcsam_path(n, root=".").name for n in names]


def find_sets(names: Sequence[str] = BTCSAM_SETS, *, search: Sequence[str | Path] | None = None) -> Path | None:
    """The first folder of ``search`` (default :func:`toolkit.paths.btcsam_dirs`: ``$TOOLKIT_BTCSAM_DIR``,
    ``data/btcsam/``, ``../shared/data/btcsam``) that holds every file of ``names``; None when none does."""
    files = sets_files(names)
    for folder in map(Path, paths.btcsam_dirs() if search is None else search):
        if all((folder / f).is_file() for f in files):
            return folder
    return None


def missing_sets_message(names: Sequence[str] = BTCSAM_SETS, *, search: Sequence[str | Path] | None = None) -> str:
    """What is missing and how to fix it: the files ``names`` need, each searched folder with the files it lacks,
    where the files come from and where to put them."""
    files = sets_files(names)
    folders = [Path(f) for f in (paths.btcsam_dirs() if search is None else search)]

    def state(folder: Path) -> str:
        missing = [f for f in files if not (folder / f).is_file()]
        return "absent" if not folder.is_dir() else f"lacks {', '.join(missing)}" if missing else "holds them all"

    lacks = "; ".join(f"{folder} ({state(folder)})" for folder in folders) or "none"
    return (f"the released BTC-SAM sets {', '.join(names)} need the files {', '.join(files)}, and no searched folder "
            f"holds them all (searched, in order: {lacks}). They are {RELEASE}; nothing is downloaded here. Put them "
            f"in {paths.data_dir() / 'btcsam'} (or any folder, named by $TOOLKIT_BTCSAM_DIR or passed as root=/"
            f"BTCSAM_DIR); see the README, section 'BTC-SAM data'.")


def load_sets(names: Sequence[str] = BTCSAM_SETS, *, root: str | Path | None = None, valid_only: bool = True
              ) -> dict[str, pd.DataFrame]:
    """The released BTC-SAM sets ``names`` from folder ``root`` (None: the first folder of
    :func:`toolkit.paths.btcsam_dirs` that holds them all, see :func:`find_sets`), keyed by name. A set whose file
    is not there is a coded error (TK102) naming the files needed and where to put them. Rewrites of a loaded baseline
    (``baseline`` for the GPT files, ``llama3_baseline`` for the llama3 ones) get ``source_text``: the baseline
    sentence of the same bias type, source group and identity term (for Table 4's edit distance)."""
    names = [names] if isinstance(names, str) else list(names)
    search = None if root is None else [Path(root).expanduser()]
    folder = find_sets(names, search=search)
    if folder is None:
        message = missing_sets_message(names, search=search)
        raise InputError(message[0].upper() + message[1:], fix=f"put {', '.join(sets_files(names))} in "
                         f"{paths.data_dir() / 'btcsam'} or set TOOLKIT_BTCSAM_DIR to the folder that holds them.")
    sets = {n: load_btcsam(btcsam_path(n, root=folder), name=n, valid_only=valid_only) for n in names}
    for name, frame in sets.items():
        base = sets.get("llama3_baseline" if name.startswith("llama3_") else "baseline")
        if base is None or frame is base:
            continue
        sources = base.drop(columns="source_id").drop_duplicates(["bias_type", "release_id", "fill"]).rename(
            columns={"release_id": "source_id", "text": "source_text"})[["bias_type", "source_id", "fill",
                                                                          "source_text"]]
        linked = frame.merge(sources, on=["bias_type", "source_id", "fill"], how="left")
        sets[name] = linked.assign(source_text=linked["source_text"].fillna(""))
    return sets


def generate_with(settings: Mapping[str, str] | None, *, identity_terms: Mapping[str, Sequence[str]] | None = None,
                  n_triplets: int = 2) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """Generate and filter a set with the backend described by ``settings`` (``{"kind": "openai"|"hf", …}``, the
    keyword arguments of :func:`backend`); ``None`` skips generation with a warning. Returns the filtered
    cases (with an ``llm`` column: the backend identity that generated them, for provenance) and the filter's counts
    per reason, or (None, None)."""
    if settings is None:
        warn("No LLM backend configured: generation skipped (set one to generate).")
        return None, None
    options = dict(settings)
    llm = LLM(backend(options.pop("kind"), **options))
    terms = identity_terms or {"religion": IDENTITY_TERMS["religion"]}
    cases, counts = filter_counterfactuals(generate(llm, identity_terms=terms, n_triplets=n_triplets))
    return cases.assign(llm=llm.backend.identity), counts


def toolkit_sets(*, corpus: str | Path = "sample", psa_n: int = 300, btcsam_dir: str | Path | None = "auto",
                 released: Sequence[str] = BTCSAM_SETS) -> dict[str, pd.DataFrame]:
    """Every test set the toolkit can make offline — EEC, PSA and BiasFinder (gender) from ``corpus``, each made by
    its study's generator (:meth:`toolkit.studies.base.Study.cases`) — plus the
    released BTC-SAM sets ``released`` from ``btcsam_dir``: ``"auto"`` (the first folder of
    :func:`toolkit.paths.btcsam_dirs` holding them), a folder, or None (none). Released sets that cannot be found are
    skipped with a warning that says which files are needed and where to put them (:func:`load_sets` raises)."""
    released = [released] if isinstance(released, str) else list(released)
    sets_files(released)  # an unknown set name is an error even when no folder is found
    sets = {name: as_test_set(get(name).cases(corpus=corpus, n=psa_n), name=name)  # each study's own generator
            for name in ("eec", "psa", "biasfinder")}
    if btcsam_dir is None:
        warn("btcsam_dir=None: released BTC-SAM sets skipped.")
        return sets
    if not released:
        return sets
    search = None if str(btcsam_dir) == "auto" else [Path(btcsam_dir).expanduser()]
    folder = find_sets(released, search=search)
    if folder is None:
        warn(f"Released BTC-SAM sets skipped: {missing_sets_message(released, search=search)}")
    else:
        sets.update(load_sets(released, root=folder))
    return sets

@dataclass(frozen=True)
class BTCSAMSettings(Settings):
    """BTC-SAM's settings: the test ``sets`` (name → case table; None: the ``released`` sets where a folder holds
    them, else the toolkit's EEC set, :func:`default_sets`), detection probability at ``thetas``, failure percentage
    at ``theta``, the failure ``rule`` (``published``: top labels and top scores as in the released code;
    ``valence``: see :mod:`toolkit.studies.btcsam.analysis`); Wilson intervals at level 1 − ``alpha``; the
    same-group null's excess corrected over model × test set × bias type."""

    sets: Mapping[str, pd.DataFrame] | None = None
    released: tuple[str, ...] = ()
    thetas: tuple[float, ...] = THETAS
    theta: float = 0.2
    rule: str = "published"

    def check(self) -> None:
        if self.rule not in RULES:
            raise unknown("failure rule", self.rule, RULES)
        if self.sets is not None and not self.sets:
            raise InputError("no test sets given.", fix="pass sets={'name': cases, …}, e.g. from "
                             "btcsam.load_sets().")
        released = (self.released,) if isinstance(self.released, str) else tuple(self.released)
        sets_files(list(released))  # an unknown released set is a coded error now
        self._set(thetas=tuple(self.thetas), released=released)

    def record(self) -> dict[str, Any]:
        out = super().record()
        out["sets"] = sorted(self.sets) if self.sets is not None else None
        return out


def default_sets(*, released: Sequence[str] = ("baseline",)) -> dict[str, pd.DataFrame]:
    """The sets a run takes when none are given: the released ``released`` sets where a folder holds them all
    (:func:`find_sets`), else the toolkit's EEC set (a warning says which files were missing and where to put them)."""
    released = list(released)
    if released and find_sets(released) is not None:
        return load_sets(released)
    if released:
        warn(f"Released BTC-SAM sets not found; the EEC test set is used instead: {missing_sets_message(released)}")
    return {"eec": as_test_set(get("eec").cases(), name="eec")}


def _sets_source(settings: "BTCSAMSettings") -> str | dict[str, str]:
    """Where a run's sets come from, for its provenance: each released set's file, or why none was read."""
    if settings.sets is not None:
        return "given by the caller (sets=)"
    if not settings.released:
        return "the toolkit's EEC test set (no released set was asked for)"
    folder = find_sets(settings.released)  # the folder default_sets read them from
    if folder is None:
        return "the toolkit's EEC test set (the released sets were not found)"
    files = sets_files(settings.released)
    return {name: str((folder / file).resolve()) for name, file in zip(settings.released, files)}


def run(*, sets: Mapping[str, pd.DataFrame], models: Iterable[str | SentimentModel] = OFFLINE_DEFAULTS,
        thetas: Sequence[float] = THETAS, theta: float = 0.2, rule: str = "published", alpha: float = st.ALPHA,
        margin: float = st.MARGIN, correction: str = "bonferroni", cache: bool | str | Path | None = True,
        progress: bool | None = None) -> StudyResult:
    """Score every test set in ``sets`` (name → case table) with ``models``; detection probability at ``thetas``,
    failure percentage at ``theta``, diversity per set (:class:`BTCSAMSettings`). Returns the study's
    :class:`~toolkit.studies.result.StudyResult` (tables ``detection``, ``failure_pct``, ``diversity`` and, when
    the sets record their generation stages, ``stage_diversity``)."""
    return STUDY.run(models=models, cache=cache, progress=progress, sets=sets, thetas=tuple(thetas), theta=theta,
                     rule=rule, alpha=alpha, margin=margin, correction=correction)


def figures_of(result: StudyResult, *, theta: float | None = None) -> dict[str, Axes]:
    """Detection probability at ``theta`` (default: the run's) and failure percentage heatmaps, and a forest plot
    of the failure % per model × test set with Wilson intervals, keyed by stem."""
    theta = result.settings.theta if theta is None else theta
    detection = result.detection[result.detection["theta"] == theta]
    percent = detection.assign(detection_pct=100 * detection["detection_probability"],  # in %, as failure
                               ci_low=100 * detection["ci_low"], ci_high=100 * detection["ci_high"])
    return {"btcsam_detection": btcsam_figures.btcsam_heatmap(
                percent, value="detection_pct",
                title=f"Detection probability per test set (θ = {theta:g}; as BTC-SAM's Table 2)"),
            "btcsam_failure_pct": btcsam_figures.btcsam_heatmap(
                failure_by_bias_type(result.failure_pct, alpha=result.settings.alpha), value="failure_pct",
                index="model", title=f"Failure % per model, test sets pooled (θ = {result.settings.theta:g}; "
                                     "as BTC-SAM's Table 5)"),
            "btcsam_failure_forest": btcsam_figures.btcsam_forest(
                pooled_failure_percentage(result.failure_pct, alpha=result.settings.alpha),
                test_sets=list(dict.fromkeys(detection["test_set"])))}  # the detection heatmap's rows


def _stages(cases: pd.DataFrame) -> pd.DataFrame | None:
    """Table 4 (:func:`stage_diversity`) of the sets whose cases record a generation ``stage``; None when none do."""
    if "stage" not in cases.columns:
        return None
    staged = cases[cases["stage"].fillna("").astype(str) != ""]
    return stage_diversity(staged) if len(staged) else None


def write(result: StudyResult, out_dir: str | Path | None = None, **options: Any) -> list[Path]:
    """``result.write(out_dir, **options)``: ``btcsam_detection``, ``btcsam_failure_pct``, ``btcsam_diversity``,
    ``btcsam_stage_diversity`` (Table 4; only when the sets record their stages), the figures and
    ``provenance.json``."""
    return result.write(out_dir, **options)


@register
class BTCSAM(Study):
    """LLM-generated counterfactual test cases: detection probability, failure percentage with a same-group null,
    diversity."""

    name = "btcsam"
    reads_tasks = ("valence",)
    title = "BTC-SAM (Kardkovács et al. 2025)"
    paper = "Kardkovács et al. 2025, doi:10.18653/v1/2025.emnlp-main.763"
    Settings = BTCSAMSettings
    headline = "BTC-SAM failure rate"
    sizes = {"quick": {"released": ("baseline",)}, "paper": {"released": tuple(BTCSAM_SETS)}}
    app = "toolkit.studies.btcsam.app:btcsam_app"
    latex_layouts = LATEX_LAYOUTS
    verdict_groups = _analysis.VERDICT_GROUPS
    paper_figures = {
        "btcsam_detection": ("btcsam_heatmap", "BTC-SAM Table 2", "the table as a heatmap; hatched cells: no case"),
        "btcsam_failure_pct": ("btcsam_heatmap", "BTC-SAM Table 5", "the table as a heatmap"),
        "btcsam_failure_forest": ("btcsam_forest", "none", "failure % with Wilson intervals"),
    }

    def execute(self, *, models, settings: BTCSAMSettings, cache, progress) -> StudyResult:
        models = checks.model_list(models if models is not None else OFFLINE_DEFAULTS)
        sets = dict(settings.sets) if settings.sets is not None else default_sets(released=settings.released)
        source = _sets_source(settings)
        cases = pd.concat([as_test_set(frame, name=name) if "test_set" not in frame.columns or "bias_type" not in
                           frame.columns else frame.assign(test_set=name) for name, frame in sets.items()],
                          ignore_index=True)
        cases["variant_id"] = cases["test_set"] + "/" + cases["variant_id"]
        cases["case_id"] = cases["test_set"] + "/" + cases["case_id"]
        report = ScoreRecord()
        scored = score(cases, models=models, cache=cache, progress=progress, record=report)
        record = {"study": "btcsam", "sets": {n: len(f) for n, f in sets.items()}, "source": source,
                  "generated_by": {n: sorted(set(f["llm"].astype(str))) for n, f in sets.items()
                                   if "llm" in f.columns},
                  "thetas": list(settings.thetas), "theta": settings.theta, "rule": settings.rule,
                  "alpha": settings.alpha, "margin": settings.margin,
                  "intervals": ("Wilson, the case as the unit; where identity terms recur across cases (a PSA-derived "
                                "set), on the effective number of cases the terms' variance leaves"),
                  "correction": settings.correction, "family": "null excess: model × test set × bias type",
                  "null": "same-group pairs within a case (PSA-derived: the names' gender)",
                  "rows_without_score": dict(report.no_score)}
        frames = {"detection": detection_intervals(scored, thetas=settings.thetas, rule=settings.rule,
                                                   alpha=settings.alpha),
                  "failure_pct": failure_percentage(scored, theta=settings.theta, rule=settings.rule,
                                                    alpha=settings.alpha, margin=settings.margin,
                                                    correction=settings.correction),
                  "diversity": diversity(cases), "stage_diversity": _stages(cases)}
        return StudyResult(study=self.name, models=list(dict.fromkeys(scored["model"])), scored=scored,
                           frames=frames, settings=settings,
                           provenance=Provenance.of(study=self.name, settings=record, record=report))

    def figures(self, result: StudyResult, **options: Any) -> dict[str, Axes]:
        return figures_of(result, **options)

    def paper_tables(self, result: StudyResult) -> dict[str, pd.DataFrame]:
        out = {"Table 2": result.detection, "Table 3": result.diversity, "Table 5": result.failure_pct}
        if result.stage_diversity is not None:
            out["Table 4"] = result.stage_diversity
        return out

    def conclusions(self, result: StudyResult) -> pd.DataFrame:
        table = result.failure_pct
        record = result.provenance.settings
        return stats_frame.frame(pd.DataFrame({
            "model": table["model"], "attribute": table["bias_type"],
            "scope": "test set " + table["test_set"].astype(str) + ", θ = " + table["theta"].astype(str),
            # on the 0-1 scale of the verdict's margin (Table 5 prints the same numbers × 100, percentage points)
            "estimate": table["excess_pct"] / 100, "ci_low": table["excess_low"] / 100,
            "ci_high": table["excess_high"] / 100,
            "effect_size": table["effect_size"], "p_value": table["p_value"], "p_adjusted": table["p_adjusted"],
            "verdict": table["verdict"],
            "unit": ("failure-rate excess: the share of failing cross-group pairs − that of same-group pairs, per "
                     "case, averaged (0–1; Table 5: × 100)"),
            "family": record.get("family", ""), "correction": record.get("correction", ""),
            "null": "same-group pairs within a case", "reason": table["no_test_reason"]}), study=self.name)

    def pairs(self, result: StudyResult, *, test_set: str, model: str, bias_type: str | None = None
              ) -> pd.DataFrame:
        return drilldown.btcsam_pairs(result, test_set=test_set, model=model, bias_type=bias_type)

    def units(self, scored: pd.DataFrame, *, theta: float = 0.2, rule: str = "published") -> pd.DataFrame:
        """Per model × case: whether the case fails (:func:`toolkit.studies.btcsam.analysis.failures`)."""
        table = failures(scored, theta=theta, rule=rule)
        return pd.DataFrame({"model": table["model"], "unit": (table["test_set"].astype(str) + "/" +
                                                              table["case_id"].astype(str)),
                             "part": "all", "num": table["failed"].astype(float), "den": 1.0})

    def describe(self, result: StudyResult) -> str:
        return result.failure_pct.to_string(index=False)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--set", action="append", choices=BTCSAM_SETS,
                            help="a released set to score (repeatable; default baseline); their files are looked "
                                 "for in --btcsam-dir, $TOOLKIT_BTCSAM_DIR, data/btcsam/, ../shared/data/btcsam")
        parser.add_argument("--btcsam-dir", type=Path, help="the folder holding the released *_output.csv files")
        parser.add_argument("--toolkit-sets", action="store_true",
                            help="also score the toolkit's own sets: EEC, PSA and BiasFinder (gender) from the "
                                 "sample corpus")
        parser.add_argument("--theta", type=float, default=0.2, help="the failure threshold θ (default 0.2)")
        parser.add_argument("--rule", choices=RULES, default="published", help="the failure rule")

    def arguments(self, args: argparse.Namespace) -> dict[str, Any]:
        names = tuple(args.set or ("baseline",))
        sets = (toolkit_sets(btcsam_dir=args.btcsam_dir or "auto", released=names) if args.toolkit_sets
                else load_sets(list(names), root=args.btcsam_dir))
        return {"sets": sets, "theta": args.theta, "rule": args.rule}


STUDY: BTCSAM = get("btcsam")  # type: ignore[assignment]
