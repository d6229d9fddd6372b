"""The multilingual EEC study: the EEC in Spanish and Arabic (Câmara et al. 2022) and in German, Spanish, Japanese
and Chinese (Goldfarb-Tarrant et al. 2023), with race × gender intersections and the Câmara regression.

>>> from toolkit.studies import multilingual
>>> result = multilingual.run(languages=["es", "ar"], sources=["camara2022"])   # the ait:…@es / @ar systems
>>> multilingual.write(result, "data/results/multilingual")

:func:`run` loads the corpora (:mod:`.corpora`; never shipped: the user's copy), scores them with each language's
systems (:func:`default_models`; any spec or model object runs, per language or for all), and returns a
:class:`MultilingualResult`: the EEC statistics per language (:mod:`.analysis`), the intersections, both regressions
(:mod:`.regression`: the paper's as run, and the sound one), the defect report (:mod:`.defects`) and the settings.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from toolkit import checks
from toolkit import stats as tkstats
from toolkit.errors import InputError, unknown
from toolkit.models import ait
from toolkit.models.base import SentimentModel
from toolkit.outputs import runs
from toolkit.outputs.latex import to_latex
from toolkit.scoring import score
from toolkit.studies import register, stats_frame
from toolkit.studies.base import Settings, Study
from toolkit.studies.multilingual import analysis, corpora, defects, regression
from toolkit.studies.result import Provenance, StudyResult

STUDY = "multilingual"
AIT_LANGUAGES = ("es", "ar")
"""Languages with trained ``ait:`` systems (SemEval-2018 Task 1 has Spanish and Arabic data; German, Japanese and
Chinese have none: give ``hf:``/``py:`` models for them)."""
TASKS = ("valence", "anger", "fear", "joy", "sadness")
ModelsArg = Iterable[str | SentimentModel] | Mapping[str, Iterable[str | SentimentModel]] | None


@dataclass(frozen=True)
class MultilingualResult:
    """One run: ``scored`` (the long scored table), ``stats`` (:func:`analysis.statistics`), ``intersections``,
    ``regression`` (both methods, column ``method``: ``paper``/``sound``), ``defects`` (:func:`defects.report`),
    ``cells`` (:func:`defects.cells`), ``design`` (:func:`corpora.design`), ``skipped`` (language → why it was not
    scored) and ``settings``."""

    scored: pd.DataFrame
    stats: pd.DataFrame
    intersections: pd.DataFrame
    regression: pd.DataFrame
    defects: pd.DataFrame
    cells: pd.DataFrame
    design: pd.DataFrame
    skipped: dict[str, str] = field(default_factory=dict)
    settings: dict = field(default_factory=dict)

    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(self.scored["model"].astype(str))) if len(self.scored) else []

    def tables(self) -> dict[str, pd.DataFrame]:
        """The result's tables by file name."""
        return {"multilingual_stats": self.stats, "multilingual_intersections": self.intersections,
                "multilingual_regression": self.regression, "multilingual_defects": self.defects,
                "multilingual_cells": self.cells, "multilingual_design": self.design}


def default_models(language: str, *, tasks: Sequence[str] = TASKS) -> list[str]:
    """The offline systems of a language: the ``ait:`` zoo trained on its SemEval-2018 data (Spanish, Arabic), every
    system of each task in ``tasks``; none elsewhere (German, Japanese, Chinese have no such data)."""
    if language not in AIT_LANGUAGES:
        return []
    return [spec for task in tasks for spec in ait.specs(task, language=language)]


def _models_for(models: ModelsArg, language: str, tasks: Sequence[str]) -> list:
    if models is None:
        return default_models(language, tasks=tasks)
    if isinstance(models, Mapping):
        return list(models.get(language, default_models(language, tasks=tasks)))
    return list(models)


def run(*, models: ModelsArg = None, languages: Sequence[str] | None = None,
        sources: Sequence[str] = tuple(corpora.SOURCES), root: str | Path | None = None,
        tasks: Sequence[str] = TASKS, subsets: Sequence[str] = analysis.SUBSETS, alpha: float = tkstats.ALPHA,
        correction: str = "holm", margin: float = tkstats.MARGIN, n_boot: int = tkstats.N_BOOT, seed: int = 0,
        cluster: str = "name", max_templates: int | None = None, cache: bool | str | Path | None = True,
        progress: bool | None = None) -> MultilingualResult:
    """Load, score and analyse (see the module docstring). ``models``: spec strings or model objects for every
    language, or a mapping language → models (a language not in it gets :func:`default_models`); ``tasks`` picks
    the default ``ait:`` systems. ``correction``/``margin``/``n_boot``/``seed``: the statistics'
    (:func:`analysis.statistics`); ``cluster``: the sound regression's (:data:`regression.CLUSTERS`);
    ``max_templates``: keep the first templates of each corpus and language (a quick run). A language without
    systems is skipped with its reason (``result.skipped``), never silently."""
    alpha, margin, n_boot = checks.statistics(correction=correction, margin=margin, alpha=alpha, n_boot=n_boot,
                                              min_boot=100)
    seed = checks.seed(seed)
    if cluster not in regression.CLUSTERS:
        raise unknown("cluster", cluster, regression.CLUSTERS)
    for subset in subsets:
        if subset not in analysis.SUBSETS:
            raise unknown("subset", subset, analysis.SUBSETS)
    table = corpora.load(sources=sources, languages=languages, root=root)
    if max_templates is not None:
        keep = table.groupby(["source", "language"])["template_id"].transform(
            lambda s: s.isin(sorted(s.unique())[:max_templates]))
        table = table[keep].reset_index(drop=True)
    frames, skipped = [], {}
    for language, block in table.groupby("language", sort=False):
        chosen = _models_for(models, language, tasks)
        if not chosen:
            skipped[language] = (f"no system for {language!r}: SemEval-2018 Task 1 has no {language!r} data, so the "
                                 "ait: zoo has none; pass models={'" + language + "': ['hf:<multilingual model>']} "
                                 "or a py: function")
            continue
        frames.append(score(block, models=chosen, cache=cache, progress=progress))
    if not frames:
        raise InputError(f"no language could be scored ({'; '.join(skipped.values())}).",
                         fix="give models for the languages, e.g. models={'de': ['hf:<path>']}.")
    scored = pd.concat(frames, ignore_index=True)
    stats = analysis.statistics(scored, subsets=subsets, alpha=alpha, correction=correction, margin=margin,
                                n_boot=n_boot, seed=seed)
    crossed = analysis.intersections(scored, alpha=alpha, correction=correction, margin=margin, n_boot=n_boot,
                                     seed=seed)
    fitted = regression.fit(scored, alpha=alpha, correction=correction, cluster=cluster)
    settings = {"study": STUDY, "sources": list(sources), "languages": sorted(set(table["language"])),
                "tasks": list(tasks), "subsets": list(subsets), "alpha": alpha, "correction": correction,
                "margin": margin, "n_boot": n_boot, "seed": seed, "cluster": cluster,
                "max_templates": max_templates, "skipped": skipped,
                "corpora": {s: str(corpora.find(source=s, root=root, languages=[
                    lang for lang in sorted(set(table.loc[table["source"] == s, "language"]))]))
                    for s in sorted(set(table["source"]))},
                "pearson_test": _pearson(scored)}
    return MultilingualResult(scored=scored, stats=stats, intersections=crossed, regression=fitted,
                              defects=defects.report(table), cells=defects.cells(table),
                              design=corpora.design(table), skipped=skipped, settings=settings)


def _pearson(scored: pd.DataFrame) -> dict[str, float]:
    """Each ``ait:`` system's Pearson r on its language's SemEval-2018 test-gold tweets."""
    out = {}
    for spec in dict.fromkeys(scored["model"].astype(str)):
        if spec.startswith("ait:"):
            system, task, language = ait.parse_language(spec)
            out[spec] = float(ait.artefact(task, language)["systems"][system]["pearson_test"])
    return out


def latex_tables(result: MultilingualResult) -> dict[str, str]:
    """The study's LaTeX tables: the gaps per language (subset ``all``), the intersections' interaction, both
    regressions' race, gender and interaction terms, and the defect counts."""
    stats = result.stats[result.stats["subset"] == "all"]
    inter = result.intersections[result.intersections["attribute"].str.endswith("interaction")]
    reg = result.regression[result.regression["term"] != "intercept"]
    counts = defects.summary(result.defects)
    columns = ["language", "source", "model", "attribute", "estimate", "ci_low", "ci_high", "p_adjusted", "verdict"]
    return {
        "multilingual_gaps": to_latex(table=stats, columns=columns, caption="Gaps per language (Δ = a − b, score "
                                      "scale) with simultaneous intervals and verdicts.", label="tab:ml-gaps"),
        "multilingual_interaction": to_latex(table=inter, columns=columns, caption="Race × gender interaction per "
                                             "language.", label="tab:ml-interaction"),
        "multilingual_regression": to_latex(table=reg, columns=["language", "model", "method", "term", "estimate",
                                                                 "se", "p_value"],
                                            caption="The Câmara et al. regression as run (paper) and the sound "
                                                    "version (logit scale).", label="tab:ml-regression"),
        "multilingual_defects": to_latex(table=counts, caption="Defects per corpus and language.",
                                         label="tab:ml-defects")}


def write(result: MultilingualResult, out_dir: str | Path | None = None, *,
          figures_dir: str | Path | None = None) -> list[Path]:
    """Write the tables (CSV), the LaTeX tables (``<name>.tex``), the cross-language figure
    (``multilingual_gaps.png``/``.pdf``) and ``provenance.json`` (settings, models, skipped languages) to
    ``out_dir`` (default ``data/results/multilingual``) and ``figures_dir``; return the paths written."""
    from toolkit.studies.multilingual import figures  # defers matplotlib (drawn only when written)

    axes = {}
    if result.stats["estimate"].notna().any():
        axes["multilingual_gaps"] = figures.cross_language(result.stats)[0]
    written = runs.write(study=STUDY, tables=result.tables(), axes=axes, scored=result.scored,
                         models=result.models, settings=result.settings, out_dir=out_dir, figures_dir=figures_dir)
    folder = written[-1].parent
    for name, text in latex_tables(result).items():
        path = folder / f"{name}.tex"
        path.write_text(text, encoding="utf-8")
        written.insert(-1, path)
    return written


missing = corpora.missing


@dataclass(frozen=True)
class MultilingualSettings(Settings):
    """The multilingual study's settings (:func:`run`'s keywords): ``languages``/``sources``/``root`` pick the
    corpora, ``tasks`` the default ``ait:`` systems, ``subsets`` the analyses, ``cluster`` the sound regression's,
    ``max_templates`` a quick run. Correction: Holm."""

    correction: str = "holm"
    languages: tuple[str, ...] | None = None
    sources: tuple[str, ...] = tuple(corpora.SOURCES)
    root: str | None = None
    tasks: tuple[str, ...] = TASKS
    subsets: tuple[str, ...] = analysis.SUBSETS
    cluster: str = "name"
    max_templates: int | None = None

    def check(self) -> None:
        if self.cluster not in regression.CLUSTERS:
            raise unknown("cluster", self.cluster, regression.CLUSTERS)
        for subset in self.subsets:
            if subset not in analysis.SUBSETS:
                raise unknown("subset", subset, analysis.SUBSETS)
        self._set(languages=None if self.languages is None else tuple(self.languages), sources=tuple(self.sources),
                  tasks=tuple(self.tasks), subsets=tuple(self.subsets))


@register
class Multilingual(Study):
    """The EEC in Spanish, Arabic (Câmara et al. 2022), German, Spanish, Japanese and Chinese (Goldfarb-Tarrant et
    al. 2023): per-language gaps, race × gender, the Câmara regression as run and a sound one, defects. Needs the
    corpora (not shipped): a run without them is TK102 saying where to get them."""

    name = STUDY
    title = "Multilingual EEC (Câmara et al. 2022; Goldfarb-Tarrant et al. 2023)"
    paper = ("Câmara et al. 2022, LT-EDI; Goldfarb-Tarrant, Ross & Lopez 2023, EMNLP")
    Settings = MultilingualSettings
    headline = "multilingual |mean Δ| (gender, race)"
    headline_absolute = True
    sizes = {"quick": {"languages": ("es",), "sources": ("camara2022",), "tasks": ("valence",), "subsets": ("all",),
                       "max_templates": 3}, "paper": {}}

    def execute(self, *, models, settings: MultilingualSettings, cache, progress) -> StudyResult:
        result = run(models=models, languages=settings.languages, sources=settings.sources, root=settings.root,
                     tasks=settings.tasks, subsets=settings.subsets, alpha=settings.alpha,
                     correction=settings.correction, margin=settings.margin, n_boot=settings.n_boot,
                     seed=settings.seed, cluster=settings.cluster, max_templates=settings.max_templates, cache=cache,
                     progress=progress)
        frames = {name.removeprefix(f"{STUDY}_"): table for name, table in result.tables().items()}
        frames["gaps"] = frames.pop("stats")  # result.stats is the statistics frame every study shares
        return StudyResult(study=self.name, models=result.models, scored=result.scored, frames=frames,
                           settings=settings, extras={"skipped": result.skipped, "pearson": result.settings[
                               "pearson_test"]},
                           provenance=Provenance(study=self.name, settings={**settings.record(), **{
                               k: v for k, v in result.settings.items() if k not in ("study",)}}))

    def figures(self, result: StudyResult, **options) -> dict:
        from toolkit.studies.multilingual import figures  # defers matplotlib (drawn on demand)

        gaps = result.frames["gaps"]
        return {"multilingual_gaps": figures.cross_language(gaps)[0]} if gaps["estimate"].notna().any() else {}

    def conclusions(self, result: StudyResult) -> pd.DataFrame:
        rows = pd.concat([result.frames["gaps"], result.frames["intersections"]], ignore_index=True)
        return stats_frame.frame(pd.DataFrame({
            "model": rows["model"], "attribute": rows["attribute"],
            "scope": rows["language"] + " (" + rows["source"] + "), task " + rows["task"].astype(str) + ", subset "
                     + rows["subset"].astype(str),
            "estimate": rows["estimate"], "ci_low": rows["ci_low"], "ci_high": rows["ci_high"],
            "effect_size": rows["effect_size"], "p_value": rows["p_value"], "p_adjusted": rows["p_adjusted"],
            "verdict": rows["verdict"],
            "unit": "score difference " + rows["group_a"].astype(str) + " − " + rows["group_b"].astype(str),
            "family": rows["family"], "correction": result.settings.correction, "null": "0",
            "reason": rows["reason"]}), study=self.name)


__all__ = ["AIT_LANGUAGES", "Multilingual", "MultilingualResult", "MultilingualSettings", "default_models",
           "latex_tables", "missing", "run", "write"]
