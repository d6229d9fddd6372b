"""Audit your own model across every study in one call, with one kind of result.

>>> import toolkit                       # toolkit.audit is toolkit.auditing.audit
>>> def my_model(texts):                 # any function list[str] -> scores in [0, 1]; or a transformers pipeline,
...     return [0.5 for _ in texts]      # a (model, tokenizer) pair, an object with predict_proba, a spec string
>>> audit = toolkit.audit(models=[my_model, "vader"])             # every registered study, size="quick"
>>> audit.summary                        # one row per conclusion: study, model, attribute, estimate, interval, verdict
>>> audit.report("audit.html")           # one HTML page: verdicts, every study's tables and figures, provenance
>>> audit.failing(["a higher", "b higher"])   # the conclusions a CI gate fails on

From the command line: ``python -m toolkit audit vader minilm-imdb --fail-on higher --out results/audit`` (exit 1
when a verdict containing "higher" appears). A study that cannot run at the size asked (e.g. BTC-SAM's released sets
absent for ``size="paper"``) is skipped and said in :attr:`AuditResult.skipped`, never dropped silently.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from toolkit import checks
from toolkit import studies as registry
from toolkit.errors import InputError, ToolkitError, unknown
from toolkit.models import load_all
from toolkit.outputs import report, runs
from toolkit.studies import stats_frame
from toolkit.studies.base import SIZES
from toolkit.studies.result import StudyResult

SUMMARY_COLUMNS = ("study", "model", "attribute", "scope", "estimate", "ci_low", "ci_high", "effect_size",
                   "p_adjusted", "verdict", "conclusion", "unit", "reason")
"""The columns of :attr:`AuditResult.summary` (a selection of :data:`toolkit.studies.stats_frame.COLUMNS`)."""


@dataclasses.dataclass(frozen=True)
class AuditResult:
    """Every study's :class:`~toolkit.studies.result.StudyResult` (``results``, by study name), the studies skipped
    and why (``skipped``), the size run and the models' labels."""

    results: Mapping[str, StudyResult]
    skipped: Mapping[str, str]
    size: str
    models: list[str]

    @property
    def stats(self) -> pd.DataFrame:
        """Every study's statistics frame, stacked (:data:`toolkit.studies.stats_frame.COLUMNS`)."""
        frames = [result.stats for result in self.results.values()]
        return pd.concat(frames, ignore_index=True) if frames else stats_frame.empty()

    @property
    def summary(self) -> pd.DataFrame:
        """One row per conclusion (:data:`SUMMARY_COLUMNS`)."""
        return self.stats.loc[:, list(SUMMARY_COLUMNS)]

    def failing(self, verdicts: Iterable[str]) -> pd.DataFrame:
        """The conclusions whose verdict contains any of ``verdicts`` (case-insensitive words, e.g. "higher")."""
        words = [str(v).strip().lower() for v in verdicts if str(v).strip()]
        if not words:
            raise InputError("no verdict to fail on.", fix="name one, e.g. 'higher' (a higher or b higher).")
        verdict = self.summary["verdict"].str.lower()
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
        self.summary.to_csv(summary, index=False)
        return written + [summary]

    def report(self, path: str | Path) -> Path:
        """One self-contained HTML page: the summary, then every study's statistics frame, tables and figures, and
        the provenance of each run; returns its path."""
        tables: dict[str, pd.DataFrame] = {"audit_summary": self.summary}
        if self.skipped:
            tables["audit_skipped"] = pd.DataFrame({"study": list(self.skipped), "reason": list(self.skipped.values())})
        figures: dict[str, Any] = {}
        for name, result in self.results.items():
            tables[f"{name}_stats"] = result.stats
            tables.update(result.tables())
            figures.update(result.figures())
        fingerprints = {k: v for r in self.results.values() for k, v in r.provenance.fingerprints.items()}
        settings = {"audit": {"size": self.size, "studies": sorted(self.results), "skipped": dict(self.skipped)},
                    **{name: dict(r.provenance.settings) for name, r in self.results.items()}}
        captions = {stem: report.figure_caption(stem, registry.paper_figures()) for stem in figures}
        return runs.write_report(title=f"Audit of {', '.join(self.models)} ({self.size})", tables=tables,
                                 figures=figures, models=self.models, settings=settings, path=path,
                                 fingerprints=fingerprints, captions=captions)


def audit(*, models: Sequence[Any], studies: Sequence[str] | None = None, size: str = "quick",
          cache: bool | str | Path | None = True, progress: bool | None = None,
          settings: Mapping[str, Mapping[str, Any]] | None = None) -> AuditResult:
    """Run every registered study that scores models (or those in ``studies``) on each of ``models`` — spec strings
    and in-memory models (a function ``list[str] -> scores in [0, 1]``, a transformers pipeline or (model,
    tokenizer), an object with ``predict_proba``: :func:`toolkit.models.load`) — at ``size`` (``quick``: minutes
    on the bundled data; ``paper``: the papers' settings). ``settings``: per study, settings on top of the size's
    (e.g. ``{"psa": {"corpus": "reviews.csv"}}``). Agreement across methods is added when three or more models
    were run. A study that fails with a coded error is skipped with the reason (:attr:`AuditResult.skipped`)."""
    chosen = studies
    if size not in SIZES:
        raise unknown("audit size", size, SIZES)
    models = checks.model_list(models)
    if not models:
        raise InputError("no model to audit.", fix="pass models=[...]: spec strings or your own model objects.")
    available = [s.name for s in registry.all_studies(with_models=True)]
    names = available if chosen is None else [chosen] if isinstance(chosen, str) else list(chosen)
    for name in names:
        if name not in available and name != "agreement":
            raise unknown("study", name, available + ["agreement"])
    settings = dict(settings or {})
    for name in settings:
        if name not in available:
            raise unknown("study", name, available)
    loaded = load_all(models)
    results: dict[str, StudyResult] = {}
    skipped: dict[str, str] = {}
    for name in [n for n in names if n != "agreement"]:
        study = registry.get(name)
        try:
            results[name] = study.run(models=loaded, size=size, cache=cache, progress=progress,
                                      **dict(settings.get(name, {})))
        except ToolkitError as exc:
            skipped[name] = str(exc)
    labels = [m.spec for m in loaded]
    if ("agreement" in names or chosen is None) and len(labels) >= 3 and len(results) >= 2:
        try:
            results["agreement"] = registry.get("agreement").module.from_results(results)
        except ToolkitError as exc:
            skipped["agreement"] = str(exc)
    elif "agreement" in names:
        skipped["agreement"] = "agreement needs three models and two studies that ran"
    return AuditResult(results=results, skipped=skipped, size=size, models=labels)
