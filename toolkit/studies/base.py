"""What a study declares (:class:`Study`) and the settings every study shares (:class:`Settings`).

A study is one package ``toolkit/studies/<name>/`` whose face registers a :class:`Study` subclass with
:func:`toolkit.studies.register`: its settings dataclass (checked once, when it is made), its sizes (``quick`` and
``paper`` settings), how it runs, its figures, paper tables and LaTeX layouts, its statistics frame
(:mod:`toolkit.studies.stats_frame`), its drill-down pairs, its app and its command-line options.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from toolkit import checks, stats, verdicts
from toolkit.cases import TASKS
from toolkit.errors import InputError, ToolkitError, unknown
from toolkit.models import task_of
from toolkit.models.base import SentimentModel

if TYPE_CHECKING:  # annotations only: the result type imports this module
    from matplotlib.axes import Axes

    from toolkit.studies.result import StudyResult

SIZES = ("quick", "paper")
"""``quick``: minutes on 2 CPU cores on the bundled data; ``paper``: the paper's settings (:attr:`Study.sizes`)."""


@dataclasses.dataclass(frozen=True)
class Settings:
    """The statistics options every study shares, one default each (:data:`toolkit.stats.ALPHA`,
    :data:`~toolkit.stats.MARGIN`, :data:`~toolkit.stats.N_BOOT`), checked once when the settings are made. A study's
    settings subclass this and add its own fields, each checked in its ``check``."""

    alpha: float = stats.ALPHA
    margin: float = stats.MARGIN
    correction: str = "bonferroni"
    n_boot: int = stats.N_BOOT
    seed: int = 0
    MIN_BOOT: ClassVar[int] = checks.N_BOOT_MIN  # the fewest bootstrap replicates the study's estimators accept
    CORRECTIONS: ClassVar[tuple[str, ...]] = checks.CORRECTIONS  # the corrections its family accepts

    def __post_init__(self) -> None:
        alpha, margin, n_boot = checks.statistics(correction=self.correction, margin=self.margin, alpha=self.alpha,
                                                  n_boot=self.n_boot, min_boot=self.MIN_BOOT,
                                                  corrections=self.CORRECTIONS)
        self._set(alpha=alpha, margin=margin, n_boot=n_boot, seed=checks.seed(self.seed))
        self.check()

    def check(self) -> None:
        """The study's own checks (override); normalise with :meth:`_set`."""

    def _set(self, **values: Any) -> None:
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def replace(self, **changes: Any) -> "Settings":
        """A copy with ``changes`` (checked again); an unknown name is a coded error listing the valid ones."""
        valid = [f.name for f in dataclasses.fields(self)]
        for key in changes:
            if key not in valid:
                raise unknown(f"{type(self).__name__} setting", key, valid)
        return dataclasses.replace(self, **changes)

    def record(self) -> dict[str, Any]:
        """The settings as JSON-ready values (for provenance)."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self) if f.metadata.get("record", True)}


def _plain(value: Any) -> Any:
    if isinstance(value, pd.DataFrame):
        return "frame"
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _task_of(model: Any) -> str | None:
    """What ``model`` (a spec or an object) scores, where that is known without running it; None otherwise."""
    if isinstance(model, str):
        try:
            return task_of(model)
        except ToolkitError:  # a bad spec is the scoring's error to raise, with its fix
            return None
    task = getattr(model, "task", None)
    if isinstance(model, SentimentModel) or (inspect.isfunction(model) and task in TASKS):
        return task if isinstance(task, str) else None
    return None  # another object (a transformers pipeline's .task is its pipeline kind, not what it scores)


def settings_of(cls: type[Settings], given: Mapping[str, Any]) -> Settings:
    """``cls(**given)``, where an unknown name is a coded error listing the valid ones (not a TypeError)."""
    valid = [f.name for f in dataclasses.fields(cls)]
    for key in given:
        if key not in valid:
            raise unknown(f"{cls.__name__} setting", key, valid)
    return cls(**given)


class Study:
    """One registered study. Subclasses set the class attributes and implement :meth:`execute`; the rest have
    defaults a study overrides where it has something to say."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    paper: ClassVar[str] = ""  # the citation and DOI
    Settings: ClassVar[type[Settings]] = Settings
    sizes: ClassVar[Mapping[str, Mapping[str, Any]]] = {"quick": {}, "paper": {}}
    """Settings per size (:data:`SIZES`): ``quick`` runs in minutes on the bundled data, ``paper`` as published."""
    needs: ClassVar[Mapping[str, Mapping[tuple[str, ...], str]]] = {}
    """Per size, what it cannot default: settings (any one of the tuple suffices) → what to give. ``paper`` of a
    study whose paper's corpus does not ship needs it: the bundled sample would run, but would not be the paper's
    (:meth:`unmet`)."""
    takes_models: ClassVar[bool] = True
    app: ClassVar[str | None] = None  # "module:function" building the study's ipywidgets app
    paper_figures: ClassVar[Mapping[str, tuple[str, str, str]]] = {}
    """File stem → (the function drawing it, the paper figure or table it reproduces, how it compares)."""
    latex_layouts: ClassVar[Mapping[str, Any]] = {}
    """Table name (as written, ``<study>_<name>``) → its :class:`toolkit.outputs.latex.PaperTable`."""
    headline: ClassVar[str] = ""
    """The measure that ranks models in agreement across methods (:meth:`units`); "" for none."""
    headline_absolute: ClassVar[bool] = False  # the headline is |num / den| (a signed gap ranks by its size)
    verdict_groups: ClassVar["verdicts.Groups | Mapping[str, verdicts.Groups] | None"] = None
    """The two groups its verdicts compare (:class:`toolkit.verdicts.Groups`), or a mapping from the values of
    :attr:`verdict_by` (e.g. EEC's attribute) to them; None: no verdict of a and b."""
    verdict_by: ClassVar[str | None] = None
    reads_tasks: ClassVar[tuple[str, ...] | None] = None
    """The tasks whose scores the study reads (a model's ``task``); None: any (the study's settings pick it)."""

    @property
    def module(self):
        """The study's package (its public functions)."""
        return importlib.import_module(type(self).__module__)

    def set_aside(self, model: Any, settings: Settings) -> str:
        """Why :func:`toolkit.audit` leaves the loaded ``model`` out of this study ("" to run it): by default, a
        model scoring a task the study does not read (:attr:`reads_tasks`)."""
        task = getattr(model, "task", "valence")
        if self.reads_tasks is not None and task not in self.reads_tasks:
            return (f"{model.spec} scores {task}; the {self.name} study reads {' or '.join(self.reads_tasks)} "
                    "scores")
        return ""

    def audit_plan(self, models: list[Any], settings: Settings) -> tuple[Any, Settings, dict[str, str]]:
        """What :func:`toolkit.audit` runs this study on: (the ``models`` argument, the settings, what it leaves out:
        ``"<study>: <model>"`` → why). By default the loaded ``models`` :meth:`set_aside` keeps, the settings as
        given."""
        aside = {model.spec: reason for model in models if (reason := self.set_aside(model, settings))}
        kept = [model for model in models if model.spec not in aside]
        return kept, settings, {f"{self.name}: {spec}": reason for spec, reason in aside.items()}

    def default_models(self, settings: Settings) -> list[str] | None:
        """The models a run takes when none are given (None: the command line asks for --model)."""
        return None

    # --- running ------------------------------------------------------------------------------------------------

    def settings(self, *, size: str | None = None, **given: Any) -> Settings:
        """The study's settings: the ``size``'s (:attr:`sizes`), then ``given`` on top, checked once."""
        if size is not None and size not in self.sizes:
            raise unknown(f"{self.name} size", size, list(self.sizes))
        return settings_of(self.Settings, {**(self.sizes.get(size, {}) if size else {}), **given})

    def unmet(self, *, size: str | None, given: Mapping[str, Any]) -> tuple[str, str] | None:
        """What ``size`` lacks with only ``given`` set (:attr:`needs`; the bundled ``"sample"`` does not count), as
        (the problem, its fix); None when nothing is missing."""
        given = given if isinstance(given, Mapping) else {}
        for names, what in self.needs.get(size or "", {}).items():
            if not any(given.get(n) is not None and not (isinstance(given[n], str) and given[n] == "sample")
                       for n in names):
                return (f"{self.name} at size={size!r} needs {what}, which does not ship (the bundled sample is not "
                        "the paper's corpus)",
                        f"pass {names[0]}=... (toolkit.audit: settings={{{self.name!r}: {{{names[0]!r}: ...}}}}; the "
                        f"command line: --{names[0].replace('_', '-')}), or run size='quick' on the sample")
        return None

    def run(self, *, models: Iterable[Any] | None = None, size: str | None = None,
            settings: Settings | None = None, cache: bool | str | Path | None = True, progress: bool | None = None,
            **given: Any) -> "StudyResult":
        """Run the study on ``models`` with ``settings`` (or the ``size``'s settings updated by ``given``). A model
        scoring a task the study does not read (:attr:`reads_tasks`) is run with a warning naming it."""
        if self.reads_tasks is not None and isinstance(models, (list, tuple)):
            for model in models:
                task = _task_of(model)
                if task is not None and task not in self.reads_tasks:
                    label = getattr(model, "spec", None) or getattr(model, "__name__", None) or repr(model)
                    warnings.warn(f"{label} scores {task}; the {self.name} study reads "
                                  f"{' or '.join(self.reads_tasks)} scores, so its numbers for this model are not "
                                  "valences.", stacklevel=2)
        if settings is None:
            settings = self.settings(size=size, **given)
            if missing := self.unmet(size=size, given=given):
                raise InputError(missing[0] + ".", fix=missing[1] + ".")
        elif given or size is not None:
            raise InputError("pass either settings= or size=/keyword settings, not both.",
                             fix="use settings.replace(...) to change a settings object.")
        elif not isinstance(settings, self.Settings):
            raise InputError(f"settings for {self.name} must be {self.Settings.__name__}; got "
                             f"{type(settings).__name__}.", fix=f"make them with studies.get({self.name!r}).settings(...).")
        return self.execute(models=models, settings=settings, cache=cache, progress=progress)

    def execute(self, *, models: Iterable[Any] | None, settings: Settings, cache: bool | str | Path | None,
                progress: bool | None) -> "StudyResult":
        raise NotImplementedError

    # --- reading a result ---------------------------------------------------------------------------------------

    def figures(self, result: "StudyResult", **options: Any) -> dict[str, "Axes"]:
        """The study's figures, file stem → Axes (or Figure)."""
        return {}

    def paper_tables(self, result: "StudyResult") -> dict[str, pd.DataFrame]:
        """The paper's tables as frames, keyed by their name."""
        return {}

    def display(self, frame: pd.DataFrame, *, margin: float | None = None) -> tuple[pd.DataFrame, str]:
        """``frame`` as a reader sees it: its verdict columns in the words of :mod:`toolkit.verdicts` (the groups
        named) and the legend defining each word used ("" when it has no verdict); ``margin``: the run's."""
        if self.verdict_groups is None or not isinstance(frame, pd.DataFrame):
            return frame, ""
        return verdicts.display(frame, groups=self.verdict_groups, by=self.verdict_by,
                                margin=f"±{margin:g}" if margin is not None else "")

    def conclusions(self, result: "StudyResult") -> pd.DataFrame:
        """The statistics frame (:data:`toolkit.studies.stats_frame.COLUMNS`): one row per conclusion."""
        raise NotImplementedError

    def pairs(self, result: "StudyResult", **pick: Any) -> pd.DataFrame:
        """The drill-down pairs behind a number (:data:`toolkit.drilldown.PAIR_COLUMNS`)."""
        raise InputError(f"the {self.name} study has no drill-down pairs.", fix="drill into eec, biasfinder or btcsam.")

    def units(self, scored: pd.DataFrame) -> pd.DataFrame | None:
        """The study's headline as sums over its sampling units (agreement across methods): columns ``model, unit,
        part, num, den`` (the headline is the mean over parts of num / den summed), and optionally ``unit2``, a second
        sampling unit crossed with ``unit`` (the EEC's names), resampled too; None: no headline."""
        return None

    def resampled_sums(self, scored: pd.DataFrame, *, units: pd.DataFrame, models: list[str], weights: np.ndarray,
                       rng: np.random.Generator, **options: Any) -> tuple[np.ndarray, np.ndarray] | None:
        """The headline's num and den sums per replicate × model × part (``units``' parts, sorted) when the units
        are drawn ``weights`` (replicates × ``units``' units, sorted) and the study's second factor from ``rng``,
        for a headline that is not a sum over that factor (BiasFinder's pairs of names); None (the default):
        agreement resamples :meth:`units` itself, ``unit2`` crossed."""
        return None

    def cases(self, **options: Any) -> pd.DataFrame:
        """The study's test cases (a case table) for another study to score, e.g. BTC-SAM's toolkit sets."""
        raise InputError(f"the {self.name} study makes no test cases for other studies.", fix="use eec, psa or "
                         "biasfinder.")

    def describe(self, result: "StudyResult") -> str:
        """What the command line prints after a run."""
        return self.conclusions(result).to_string(index=False)

    # --- fronts -------------------------------------------------------------------------------------------------

    def make_app(self, **options: Any):
        """The study's ipywidgets app (its ``app`` entry), built with ``options``."""
        if not self.app:
            raise InputError(f"the {self.name} study has no app.", fix=f"run it from Python: studies.get({self.name!r}).run(...).")
        module, _, function = self.app.partition(":")
        return getattr(importlib.import_module(module), function)(**options)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The study's own command-line options (the common ones are added by the command line)."""

    def arguments(self, args: argparse.Namespace) -> dict[str, Any]:
        """The settings the parsed command line gives (keyword settings for :meth:`settings`)."""
        return {}

    def write_options(self, args: argparse.Namespace) -> dict[str, Any]:
        """Options of :meth:`toolkit.studies.result.StudyResult.write` the command line gives."""
        return {}
