"""Audit your own model across every study in one call, with one kind of result.

>>> import toolkit                       # toolkit.audit is toolkit.auditing.audit
>>> def my_model(texts):                 # any function list[str] -> scores in [0, 1]; or a transformers pipeline,
...     return [0.5 for _ in texts]      # a (model, tokenizer) pair, an object with predict_proba, a spec string
>>> audit = toolkit.audit(models=[my_model, "vader"])             # every registered study, size="quick"
>>> audit.summary                        # one row per conclusion: study, model, attribute, estimate, interval, verdict
>>> audit.report("data/results/audit.html")  # one HTML page: verdicts, every study's tables and figures, provenance
>>> audit.failing(["a higher", "b higher"])   # the conclusions a CI gate fails on

From the command line: ``python -m toolkit audit vader minilm-imdb --fail-on higher --out results/audit`` (exit 1
when a verdict containing "higher" appears, or when anything was skipped: a gate does not pass an incomplete audit).
A study that cannot run at the size asked (e.g. BTC-SAM's released sets absent for ``size="paper"``, or PSA and
BiasFinder given no corpus for it: the bundled sample is not the papers') is skipped and said in
:attr:`AuditResult.skipped`, never dropped silently; a model whose output is refused (TK203: NaN, wrong
length, out of [0, 1]) is skipped in that study alone, and the study runs on the other models; a model a study does
not read is set aside (:attr:`AuditResult.set_aside`). Settings are checked before anything runs.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from toolkit import checks, corpora
from toolkit import studies as registry
from toolkit import verdicts as verdict_words
from toolkit.errors import InputError, ModelOutputError, ToolkitError, unknown, warn
from toolkit.models import load_all
from toolkit.outputs import files, report, runs
from toolkit.scoring import refuse_repeats
from toolkit.studies import stats_frame
from toolkit.studies.base import SIZES
from toolkit.studies.result import StudyResult

SUMMARY_COLUMNS = ("study", "model", "attribute", "scope", "estimate", "ci_low", "ci_high", "effect_size",
                   "p_adjusted", "verdict", "conclusion", "unit", "family", "correction", "null", "reason")
"""The columns of :attr:`AuditResult.summary` (a selection of :data:`toolkit.studies.stats_frame.COLUMNS`)."""


@dataclasses.dataclass(frozen=True)
class AuditResult:
    """Every study's :class:`~toolkit.studies.result.StudyResult` (``results``, by study name), what was skipped
    and why (``skipped``: a study that could not run, or ``"<study>: <model>"`` whose output was refused), the size
    run, the models' labels, and the models a study does not read (``set_aside``, ``"<study>: <model>"``: an
    emotion model in a valence study, an English model in a run of Spanish sentences; by design, not a failure)."""

    results: Mapping[str, StudyResult]
    skipped: Mapping[str, str]
    size: str
    models: list[str]
    set_aside: Mapping[str, str] = dataclasses.field(default_factory=dict)
    fingerprints: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Each model's fingerprint by its label, those refused in every study too (the report's provenance names them)."""

    def __repr__(self) -> str:
        """A short account of the audit (the dataclass default printed every study's tables in full)."""
        return (f"AuditResult(size={self.size!r}, models={list(self.models)!r}, studies={list(self.results)!r}, "
                f"conclusions={sum(len(r.stats) for r in self.results.values())}, skipped={list(self.skipped)!r}, "
                f"set_aside={list(self.set_aside)!r})")

    @property
    def stats(self) -> pd.DataFrame:
        """Every study's statistics frame, stacked (:data:`toolkit.studies.stats_frame.COLUMNS`)."""
        frames = [result.stats for result in self.results.values()]
        return pd.concat(frames, ignore_index=True) if frames else stats_frame.empty()

    @property
    def summary(self) -> pd.DataFrame:
        """One row per conclusion (:data:`SUMMARY_COLUMNS`)."""
        return self.stats.loc[:, list(SUMMARY_COLUMNS)]

    def shown(self) -> tuple[pd.DataFrame, str]:
        """:attr:`summary` as a reader sees it: each row's verdict in its study's words (``F higher``, not the stored
        ``a higher`` a gate matches; :meth:`StudyResult.display`), and the legends of the words used, one line per
        study."""
        summary = self.summary
        if summary.empty:
            return summary, ""
        parts, legends = [], []
        for study, rows in summary.groupby("study", sort=False):
            result = self.results.get(str(study))
            shown, legend = result.display(rows) if result is not None else (rows, "")
            parts.append(shown)
            if legend:
                legends.append(f"{study}: {legend}")
        return pd.concat(parts).loc[summary.index], "\n".join(legends)

    def failing(self, verdicts: Iterable[str]) -> pd.DataFrame:
        """The conclusions whose verdict contains any of ``verdicts`` (case-insensitive words, e.g. "higher";
        :func:`fail_words`)."""
        words = fail_words(verdicts)
        verdict = self.summary["verdict"].fillna("").str.lower()
        return self.summary[verdict.map(lambda v: any(w in v for w in words))]

    def write(self, out_dir: str | Path, **options: Any) -> list[Path]:
        """Write each study's run into ``out_dir/<study>`` (:meth:`StudyResult.write`, figures beside them) and
        ``audit_summary.csv`` with ``report.html`` into ``out_dir``; return the paths."""
        out = Path(out_dir).expanduser()
        written = []
        for name, result in self.results.items():
            folder = out / name
            written += result.write(folder, figures_dir=folder, **options)
        written.append(self.report(out / "report.html"))
        summary = out / "audit_summary.csv"
        files.write_table(self.summary, summary)  # atomic, with the formula guard of every table written
        return written + [summary]

    def report(self, path: str | Path) -> Path:
        """One self-contained HTML page: the summary, then every study's statistics frame, tables and figures, and
        the provenance of each run; returns its path."""
        summary, legend = self.shown()
        tables: dict[str, pd.DataFrame] = {"audit_summary": summary}
        legends = {"audit_summary": legend} if legend else {}
        if self.skipped:
            tables["audit_skipped"] = pd.DataFrame({"study": list(self.skipped), "reason": list(self.skipped.values())})
        if self.set_aside:
            tables["audit_set_aside"] = pd.DataFrame({"study": list(self.set_aside),
                                                      "reason": list(self.set_aside.values())})
        figures: dict[str, Any] = {}
        for name, result in self.results.items():
            for stem, frame in {f"{name}_stats": result.stats, **result.tables()}.items():
                tables[stem], legends[stem] = result.display(frame)  # verdicts in words naming the groups
            figures.update(result.figures())
        fingerprints = {**self.fingerprints,
                        **{k: v for r in self.results.values() for k, v in r.provenance.fingerprints.items()}}
        settings = {"audit": {"size": self.size, "studies": sorted(self.results), "skipped": dict(self.skipped),
                              "set_aside": dict(self.set_aside)},
                    **{name: dict(r.provenance.settings) for name, r in self.results.items()}}
        captions = {stem: report.figure_caption(stem, registry.paper_figures()) for stem in figures}
        return runs.write_report(title=f"Audit of {', '.join(self.models)} ({self.size})", tables=tables,
                                 figures=figures, models=self.models, settings=settings, path=path,
                                 fingerprints=fingerprints, captions=captions,
                                 legends={k: v for k, v in legends.items() if v})


def fail_words(verdicts: Iterable[str]) -> list[str]:
    """``verdicts`` as lower-case words a gate fails on, each checked against the verdict vocabulary
    (:data:`toolkit.verdicts.STORED` and the agreement verdicts): a word no verdict can contain ("hihger") is a
    coded error, not a gate that never fires."""
    if isinstance(verdicts, str):
        verdicts = [verdicts]
    if not isinstance(verdicts, Iterable) or any(not isinstance(v, str) for v in verdicts):
        raise InputError(f"the verdicts to fail on must be words (strings); got {verdicts!r}.",
                         fix="pass e.g. ['higher'] (or --fail-on higher).")
    words = [str(v).strip().lower() for v in verdicts if str(v).strip()]
    if not words:
        raise InputError("no verdict to fail on.", fix="name one, e.g. 'higher' (a higher or b higher).")
    vocabulary = [v.lower() for v in (*verdict_words.STORED, *verdict_words.AGREEMENT)]
    for word in words:
        core = re.sub(r"\s*±.*$", "", word)  # "equivalent within ±0.01": the stored verdict, margin and all
        if not core or not any(core in v for v in vocabulary):
            raise InputError(f"no verdict contains {word!r}; the verdicts are: {', '.join(vocabulary)}.",
                             fix="fail on a word of one of them, e.g. 'higher' or 'inconclusive'.")
    return words


def _culprit(exc: ToolkitError, models: Sequence[Any]) -> Any | None:
    """The model a refused-output error (TK203) names (its ``model``, else the spec its message starts with), or
    None."""
    if not isinstance(exc, ModelOutputError):
        return None
    if exc.model is not None:
        return next((m for m in models if m.spec == exc.model), None)
    named = [m for m in models if exc.message.startswith(m.spec)]
    return max(named, key=lambda m: len(m.spec)) if named else None


def _models_in(plan: Any) -> list[Any]:
    """The models of a study's ``models`` argument: a list, or a mapping (language → list) taken once each."""
    listed = [m for ms in plan.values() for m in ms] if isinstance(plan, Mapping) else list(plan)
    return list({id(m): m for m in listed}.values())


def _run_study(study, *, models: list[Any], settings, cache, progress, skipped: dict[str, str],
               set_aside: dict[str, str]) -> StudyResult | None:
    """``study`` on what its :meth:`~toolkit.studies.base.Study.audit_plan` keeps of ``models`` (the rest in
    ``set_aside``); a model whose output is refused is skipped (``skipped["<study>: <model>"]``) and the study is
    planned and run again without it; any other coded error skips the study (``skipped["<study>"]``). A study left
    with no model is ``set_aside["<study>"]`` (it reads none of them) or ``skipped["<study>"]`` (all refused)."""
    remaining, refused = list(models), False
    while True:
        plan, planned, aside = study.audit_plan(remaining, settings)
        set_aside.update(aside)
        listed = _models_in(plan)
        if not listed:
            if refused:
                skipped[study.name] = "every model it reads had its output refused (see the entries above)"
            else:
                set_aside[study.name] = "it reads none of the models (see the entries above)"
            return None
        try:
            return study.run(models=plan, settings=planned, cache=cache, progress=progress)
        except ToolkitError as exc:
            culprit = _culprit(exc, listed)
            if culprit is None:
                skipped[study.name] = str(exc)
                for key in [k for k in set_aside if k.startswith(f"{study.name}: ")]:  # moot: the study did not run
                    del set_aside[key]
                return None
            skipped[f"{study.name}: {culprit.spec}"] = str(exc)
            warn(f"{study.name}: {culprit.spec} is skipped in this study, its output refused ({exc.code}; the "
                 "reason is in the audit's skipped)")
            remaining = [m for m in remaining if m is not culprit]
            refused = True


def audit(*, models: Sequence[Any], studies: Sequence[str] | None = None, size: str = "quick",
          cache: bool | str | Path | None = True, progress: bool | None = None,
          settings: Mapping[str, Mapping[str, Any]] | None = None) -> AuditResult:
    """Run every registered study that scores models (or those in ``studies``) on each of ``models`` — spec strings
    and in-memory models (a function ``list[str] -> scores in [0, 1]``, a transformers pipeline or (model,
    tokenizer), an object with ``predict_proba``: :func:`toolkit.models.load`) — at ``size`` (``quick``: minutes
    on the bundled data; ``paper``: the papers' settings). ``settings``: per study, settings on top of the size's
    (e.g. ``{"psa": {"corpus": "reviews.csv"}}``). Agreement across methods is added when three or more models
    were run. Settings (names and values) are checked before anything runs. A study that fails with a coded error
    is skipped with the reason (:attr:`AuditResult.skipped`, keyed by study); a model whose output a study refuses
    (TK203) is skipped in that study alone (keyed ``"<study>: <model>"``) and the study runs on the others; what a
    study does not read is set aside (:meth:`~toolkit.studies.base.Study.audit_plan`, :attr:`AuditResult.set_aside`)."""
    chosen = studies
    if size not in SIZES:
        raise unknown("audit size", size, SIZES)
    models = checks.model_list(models)
    if not models:
        raise InputError("no model to audit.", fix="pass models=[...]: spec strings or your own model objects.")
    available = [s.name for s in registry.all_studies(with_models=True)]
    names = available if chosen is None else [chosen] if isinstance(chosen, str) else list(chosen)
    if not names:
        raise InputError("no study to run: studies=[] is empty.",
                         fix=f"leave studies out for every study, or name some of {', '.join(available)}.")
    for name in names:
        if name not in available and name != "agreement":
            raise unknown("study", name, available + ["agreement"])
    if settings is not None and (not isinstance(settings, Mapping)
                                 or any(not isinstance(v, Mapping) for v in settings.values())):
        raise InputError(f"settings must map a study to its settings; got {settings!r}.",
                         fix='pass e.g. settings={"psa": {"corpus": "reviews.csv"}}.')
    settings = dict(settings or {})
    for name in settings:
        if name not in available:
            raise unknown("study", name, available)
    unused = [name for name in settings if name not in names]
    if unused:
        raise InputError(f"settings given for studies that are not run: {', '.join(unused)}.",
                         fix="add them to studies=[...] or drop their settings.")
    running = [registry.get(n) for n in names if n != "agreement"]
    checked = {study.name: study.settings(size=size, **dict(settings.get(study.name, {}))) for study in running}
    for study_settings in checked.values():  # a corpus path that does not exist fails now, not hours into the run
        corpus = getattr(study_settings, "corpus", None)
        if isinstance(corpus, (str, Path)) and getattr(study_settings, "cases", None) is None:  # cases: not read
            corpora.source_path(corpus)
    loaded = load_all(models)
    refuse_repeats(given=list(models), loaded=loaded)  # before anything runs, not once per study
    results: dict[str, StudyResult] = {}
    skipped: dict[str, str] = {}
    set_aside: dict[str, str] = {}
    for study in running:
        if missing := study.unmet(size=size, given=settings.get(study.name, {})):
            skipped[study.name] = f"{missing[0]}: {missing[1]}"
            continue
        result = _run_study(study, models=loaded, settings=checked[study.name], cache=cache, progress=progress,
                            skipped=skipped, set_aside=set_aside)
        if result is not None:
            results[study.name] = result
    labels = [m.spec for m in loaded]
    asked = "agreement" in names
    if asked or chosen is None:
        measured = [r for name, r in results.items() if name in registry.get("agreement").module.measures()]
        shared = set.intersection(*(set(r.models) for r in measured)) if measured else set()
        if len(measured) >= 2 and len(shared) >= 3:
            try:
                results["agreement"] = registry.get("agreement").module.from_results(results)
            except ToolkitError as exc:
                skipped["agreement"] = str(exc)
        else:
            why = (f"agreement needs two studies that rank models and three models that each of them ran; "
                   f"{len(measured)} such stud{'y' if len(measured) == 1 else 'ies'} ran, sharing {len(shared)} "
                   f"model{'' if len(shared) == 1 else 's'}")
            (skipped if asked else set_aside)["agreement"] = why
    return AuditResult(results=results, skipped=skipped, size=size, models=labels, set_aside=set_aside,
                       fingerprints={m.spec: m.fingerprint for m in loaded})
