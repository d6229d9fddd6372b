"""One result type for every study (:class:`StudyResult`) and the provenance it carries (:class:`Provenance`).

>>> result = studies.get("eec").run(models=["vader"])
>>> result.tables()          # every table, keyed by the file stem it is written as (eec_tests, eec_summary, …)
>>> result.tests             # one table by its short name (tables().keys() without the study prefix)
>>> result.stats             # the statistics frame: one row per conclusion (toolkit.studies.stats_frame)
>>> result.figures()         # file stem → Axes
>>> result.paper_tables()    # the paper's tables as frames; result.latex() as TeX
>>> result.pairs(model="vader", attribute="gender")   # the drill-down pairs behind a number
>>> result.write("results/eec", latex=True, report=True); result.report("eec.html")

The provenance (model fingerprints, the texts each model saw, rows without a score, the settings and what the run
found: corpus and generation reports, seconds per stage) rides on the result, not on the frames.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from toolkit.errors import InputError
from toolkit.outputs import latex as latex_out
from toolkit.outputs import report as report_captions
from toolkit.outputs import runs
from toolkit.studies import get, stats_frame

if TYPE_CHECKING:  # annotations only
    from matplotlib.axes import Axes

    from toolkit.scoring import ScoreRecord
    from toolkit.studies.base import Settings, Study


@dataclasses.dataclass(frozen=True)
class Provenance:
    """What produced a result: ``settings`` is the JSON-ready record written as provenance.json's ``settings``
    (the study's settings and what the run found), ``fingerprints`` spec → model fingerprint, ``inputs`` per model
    the rows / distinct texts / distinct model inputs the engine saw, ``no_score`` the rows left without a score."""

    study: str
    settings: Mapping[str, Any]
    fingerprints: Mapping[str, str] = dataclasses.field(default_factory=dict)
    inputs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    no_score: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, *, study: str, settings: Mapping[str, Any], record: "ScoreRecord") -> "Provenance":
        """The provenance of a run whose texts were scored with ``record`` (:class:`toolkit.scoring.ScoreRecord`)."""
        return cls(study=study, settings=settings, fingerprints=record.fingerprints, inputs=record.inputs,
                   no_score=record.no_score)


@dataclasses.dataclass(frozen=True, eq=False)
class StudyResult:
    """Every table of one study's run. ``frames``: short name → table (written as ``<study>_<name>``; None: not
    made in this run); ``settings``: the study's checked settings; ``extras``: study-specific values (e.g. each EEC
    system's Pearson r). A table, an extra or a setting is also an attribute: ``result.tests``, ``result.pearson``,
    ``result.alpha``."""

    study: str
    models: list[str]
    scored: pd.DataFrame
    frames: Mapping[str, pd.DataFrame | None]
    settings: "Settings"
    provenance: Provenance
    extras: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __repr__(self) -> str:
        """One line a notebook can read (the dataclass default printed every table in full)."""
        tables = ", ".join(f"{name} ({len(t):,} rows)" for name, t in self.frames.items() if t is not None)
        return (f"StudyResult(study={self.study!r}, models={list(self.models)!r}, scored={len(self.scored):,} rows, "
                f"tables: {tables}; extras: {', '.join(self.extras) or 'none'})")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        for holder in (self.__dict__.get("frames", {}), self.__dict__.get("extras", {})):
            if name in holder:
                return holder[name]
        settings = self.__dict__.get("settings")
        if settings is not None and name in {f.name for f in dataclasses.fields(settings)}:
            return getattr(settings, name)
        valid = sorted({*self.__dict__.get("frames", {}), *self.__dict__.get("extras", {})})
        raise AttributeError(f"a {self.__dict__.get('study', '')} result has no {name!r}; its tables and values: "
                             f"{', '.join(valid)} (and its settings: result.settings)")

    @property
    def definition(self) -> "Study":
        """The registered study this result belongs to."""
        return get(self.study)

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table this run made, keyed by the file stem it is written as (``<study>_<name>``)."""
        return {f"{self.study}_{name}": table for name, table in self.frames.items() if table is not None}

    @property
    def stats(self) -> pd.DataFrame:
        """The statistics frame: one row per conclusion (:data:`toolkit.studies.stats_frame.COLUMNS`), each
        verdict also as a sentence naming the study's groups (``conclusion``)."""
        return stats_frame.with_conclusions(self.definition.conclusions(self), groups=self.definition.verdict_groups,
                                            by=self.definition.verdict_by)

    def figures(self, **options: Any) -> dict[str, "Axes"]:
        """The study's figures, file stem → Axes."""
        return self.definition.figures(self, **options)

    def paper_tables(self) -> dict[str, pd.DataFrame]:
        """The paper's tables as frames."""
        return self.definition.paper_tables(self)

    def pairs(self, **pick: Any) -> pd.DataFrame:
        """The drill-down pairs behind a number (each study names what to pick: a model and attribute, a template,
        a test set)."""
        return self.definition.pairs(self, **pick)

    def latex(self, *, preset: str | None = None) -> dict[str, str]:
        """The paper's tables as LaTeX (booktabs), fitted to ``preset``'s width (default: the active figure
        preset's), keyed by file stem."""
        return latex_out.paper_tables(tables=self.tables(), preset=runs.table_preset(preset),
                                      settings=self.provenance.settings, layouts=self.definition.latex_layouts)

    def write(self, out_dir: str | Path | None = None, *, figures_dir: str | Path | None = None,
              formats: tuple[str, ...] = ("csv",), with_scored: bool = False, latex: bool = False,
              report: bool = False, preset: str | None = None, **figure_options: Any) -> list[Path]:
        """Write every table and the statistics frame (``<study>_stats``) in ``formats``, the figures (PNG + PDF, to ``figures_dir``, default ``figures/``), with
        ``latex`` the paper's tables as ``.tex``, with ``report`` a self-contained ``report.html``, and
        ``provenance.json`` last to ``out_dir`` (default ``data/results/<study>``), all or nothing; return the
        paths. ``figure_options`` go to the study's figures (e.g. EEC's ``order``) and are recorded in the
        provenance's ``figure_options`` (the ones given, None left out)."""
        tables = {**self.tables(), f"{self.study}_stats": self.stats}
        settings = dict(self.provenance.settings)
        given = {k: list(v) if isinstance(v, tuple) else v for k, v in figure_options.items() if v is not None}
        if given:
            settings["figure_options"] = given
        return runs.write(study=self.study, tables=tables, axes=self.figures(**figure_options),
                          scored=self.scored, models=self.models, settings=settings,
                          fingerprints=self.provenance.fingerprints, inputs=self.provenance.inputs,
                          out_dir=out_dir, figures_dir=figures_dir, formats=formats, with_scored=with_scored,
                          latex_tables=latex, report_html=report, preset=preset,
                          layouts=self.definition.latex_layouts, figure_notes=self.definition.paper_figures,
                          display=self.display)

    def report(self, path: str | Path, *, title: str | None = None) -> Path:
        """One self-contained HTML page: the statistics frame, every table, the captioned figures and the full
        provenance; returns its path."""
        if path is None:
            raise InputError("report() needs a path.", fix="pass a file name, e.g. result.report('report.html').")
        tables = {f"{self.study}_stats": self.stats, **self.tables()}
        figures = self.figures()
        return runs.write_report(title=title or f"{self.definition.title or self.study} run",
                                 tables=tables, figures=figures, models=self.models,
                                 captions={stem: report_captions.figure_caption(stem, self.definition.paper_figures)
                                           for stem in figures},
                                 settings=dict(self.provenance.settings), path=path,
                                 fingerprints=self.provenance.fingerprints, inputs=self.provenance.inputs,
                                 display=self.display)

    def display(self, frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
        """``frame`` as a reader sees it: its verdicts in the words of :mod:`toolkit.verdicts`, with the legend
        defining each word used, at this run's margin (:meth:`toolkit.studies.base.Study.display`)."""
        margin = self.provenance.settings.get("margin") if isinstance(self.provenance.settings, Mapping) else None
        try:
            margin = float(margin) if margin is not None else None
        except (TypeError, ValueError):
            margin = None
        return self.definition.display(frame, margin=margin)
