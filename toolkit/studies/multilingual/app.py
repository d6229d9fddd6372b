"""The multilingual app: languages, tasks, each language's systems (and extra ``xx=`` specs), a quick-run box; Run
scores the corpora and shows each system's validity, the gaps per language, the race × gender interaction and one
figure per task."""
from __future__ import annotations

import dataclasses
import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as w

from toolkit.apps.fields import ModelField
from toolkit.apps.runner import Runner
from toolkit.apps.tables import table
from toolkit.errors import InputError, ToolkitError, unknown
from toolkit.studies import multilingual
from toolkit.studies.base import settings_of
from toolkit.studies.multilingual import corpora, figures
from toolkit.studies.multilingual.analysis import GROUPS

RESERVED = frozenset({"languages", "tasks", "models", "max_templates", "cache", "progress"})
"""Arguments the app's fields give every run: not accepted as ``options``."""
QUICK_TEMPLATES = 3
"""The quick box keeps each corpus's first templates (the notebook's ``SMOKE``)."""
VALIDITY_COLUMNS = ("language", "source", "model", "task", "auc", "ci_low", "ci_high", "p_adjusted", "verdict",
                    "reason")
GAP_COLUMNS = ("language", "source", "model", "task", "attribute", "estimate", "ci_low", "ci_high", "p_adjusted",
               "verdict", "reason")


def prefixed(models: Sequence[str] | Mapping[str, Sequence[str]] | None, *, languages: Sequence[str],
             tasks: Sequence[str]) -> list[str]:
    """The specs a run with ``models`` gives each of ``languages``, as the app's ``xx=<spec>`` strings, as
    :func:`~toolkit.studies.multilingual.per_language` reads them: None gives each language its
    :func:`~toolkit.studies.multilingual.default_models` for ``tasks``; a mapping or prefixed specs give the
    languages they name their specs and every other language its defaults (or the unprefixed specs, when there are
    some); a list of unprefixed specs is kept as given (each scores every language)."""
    mapped = multilingual.per_language(models, languages=languages)
    if mapped is not None and not isinstance(mapped, Mapping):
        return list(mapped)
    mapped = mapped or {}
    return [f"{lang}={spec}" for lang in languages
            for spec in (mapped[lang] if lang in mapped else multilingual.default_models(lang, tasks=tasks))]


class MultilingualApp(Runner):
    """Pick languages, tasks, systems (each language's offline systems, prefixed ``xx=``; more specs
    such as ``de=hf:<folder>`` typed) and whether to keep only each corpus's first templates; Run scores and
    redraws. Changing the languages or the tasks offers their systems, ticked, and keeps what was typed. The tables
    and figures show the subset ``all`` (else the run's first); the drill-down picks a system on one corpus of one
    language (Spanish is in both corpora, each with its own gap).
    ``widget`` is the box to display; ``result`` the last run; ``study`` the study function (default
    :func:`toolkit.studies.multilingual.run`); ``options`` go to every run (``sources``, ``root``, ``subsets``,
    ``n_boot``, ``correction``, ``cluster``)."""

    def __init__(self, *, languages: Sequence[str] | None = None, tasks: Sequence[str] = ("valence",),
                 models: Sequence[str] | Mapping[str, Sequence[str]] | None = None, quick: bool = False,
                 cache: bool | str | Path = True, study: Callable[..., Any] | None = None, **options: Any) -> None:
        if taken := sorted(set(options) & RESERVED):
            raise InputError(f"{', '.join(taken)} {'is' if len(taken) == 1 else 'are'} set by the app's fields, "
                             "not by options.", fix="set the field (tasks, languages, the quick box), or pass "
                                                    "languages=, tasks=, models=, quick=, cache= themselves.")
        function = study or multilingual.run
        accepted = inspect.signature(function).parameters
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values()):
            for key in options:
                if key not in accepted:
                    raise unknown("option", key, sorted(set(accepted) - RESERVED - {"models", "cache", "progress"}))
        # the study's own checks, before any picker is built (a string is not its letters; unknown names listed)
        fields = {f.name for f in dataclasses.fields(multilingual.MultilingualSettings)}
        settings = settings_of(multilingual.MultilingualSettings, {
            **{key: value for key, value in options.items() if key in fields},
            "languages": languages, "tasks": tasks})
        sources = settings.sources
        held = [lang for source in sources for lang in corpora.SOURCES[source]]
        languages = settings.languages
        if languages is None:  # the corpora's own languages, as run() loads them
            languages = list(dict.fromkeys(lang for source in sources for lang in corpora.DEFAULT_LANGUAGES[source]))
        outside = [lang for lang in languages if lang not in held]
        languages = tuple(lang for lang in languages if lang in held)
        self.languages = w.SelectMultiple(options=languages, value=languages, description="languages",
                                          rows=min(len(languages), 7))
        self.tasks = w.SelectMultiple(options=multilingual.TASKS, value=settings.tasks, description="tasks",
                                      rows=len(multilingual.TASKS))
        chosen = prefixed(models, languages=languages, tasks=self.tasks.value)
        self.field = ModelField(options=self._options(), chosen=chosen)
        self.models, self.extra = self.field.models, self.field.extra
        self.quick = w.Checkbox(value=quick, description=f"quick: first {QUICK_TEMPLATES} templates",
                                indent=False)
        self.languages.observe(lambda _: self._reoffer(), names="value")
        self.tasks.observe(lambda _: self._reoffer(), names="value")
        self._controls()
        if outside:  # as run() does: a language no chosen corpus holds is not loaded
            self._say(f"note: {', '.join(outside)} {'is' if len(outside) == 1 else 'are'} in none of the corpora "
                      f"{', '.join(sources)}: not offered.")
        self.cache, self.study, self.options = cache, study, options
        self.result = None
        self.widget = w.VBox([w.HBox([w.VBox([self.languages, self.models]),
                                      w.VBox([self.tasks, self.extra, self.quick, self._buttons()])]),
                              self.status, self._progress_row(), self.output, self.drill])

    def _options(self) -> list[str]:
        return prefixed(None, languages=list(self.languages.value), tasks=self.tasks.value)

    def _reoffer(self) -> None:
        """Offer the chosen languages' systems for the chosen task, all ticked; typed specs stay."""
        typed = self.extra.value
        options = self._options()
        self.field.offer(options=options, chosen=options)
        self.extra.value = typed

    def specs(self) -> list[str]:
        return self.field.specs()

    def writer(self) -> Callable[..., Any]:
        return multilingual.write

    def default_study(self) -> Callable[..., Any]:
        return multilingual.run

    def _scored_languages(self, specs: Sequence[str]) -> list[str]:
        """The chosen languages a run scores: a language whose systems the app offers but none is ticked or typed
        (and no unprefixed spec) is left out with a note, never scored with its defaults behind the user's back;
        specs the study refuses are left for its coded error."""
        chosen = list(self.languages.value)
        try:
            mapped = multilingual.per_language(specs, languages=chosen)
        except ToolkitError:
            return chosen
        if not isinstance(mapped, Mapping):
            return chosen
        offered = {spec.partition("=")[0] for spec in self.models.options}
        unticked = [lang for lang in chosen if lang not in mapped and lang in offered]
        for lang in unticked:
            self.field.notes.append(f"no system ticked for {lang}: not scored")
        return [lang for lang in chosen if lang not in unticked]

    def run(self, *, block: bool = True) -> bool:
        """Score and redraw with the app's fields (``block``: wait for it; the button runs without waiting)."""
        specs = self.specs()
        if not specs:
            self.error = ("no system is ticked or typed. Fix: tick a system, or type a spec in 'more specs' "
                          "(de=hf:<folder>).")
            self._say(f"✖ {self.error}", colour="#b00020")
            return False
        languages = self._scored_languages(specs)
        tasks = tuple(self.tasks.value)
        arguments = {**self.options, "models": specs, "languages": languages, "tasks": tasks,
                     "max_templates": QUICK_TEMPLATES if self.quick.value else None, "cache": self.cache,
                     "progress": False}
        size = f"first {QUICK_TEMPLATES} templates" if self.quick.value else "every template"
        return self.launch(f"multilingual EEC ({', '.join(languages)}; {', '.join(tasks)}; {size}) with "
                           f"{len(specs)} system(s)", arguments, block=block)

    def present(self, result) -> None:
        for language, why in result.extras.get("skipped", {}).items():
            warnings.warn(f"skipped {language}: {why}", stacklevel=2)  # a note in the status line, as the CLI prints
        validity = result.frames["validity"]
        self._captioned(result, validity, VALIDITY_COLUMNS, (
            "Validity: each system's AUC for its task's emotion against the others on the corpus, templates and "
            f"emotion words as crossed samples ({len(validity)} rows: language × corpus × system)."))
        subset = multilingual.shown_subset(result.gaps)
        self._captioned(result, result.gaps[result.gaps["subset"] == subset], GAP_COLUMNS, (
            f"Gaps per language{'' if subset == 'all' else f' ({subset})'} (Δ = first group − second, score scale) "
            f"with simultaneous {100 * (1 - result.settings.alpha):g} % intervals."))
        crossed = result.intersections
        crossed = crossed[crossed["attribute"].astype(str).str.endswith("interaction")]
        if len(crossed):
            self._captioned(result, crossed, GAP_COLUMNS, "Race × gender interaction per language.")
        self._draw(result.figures())
        scored = result.scored
        systems = {f"{language} ({figures.SOURCE_SHORT.get(source, source)}): {model}": (language, source, model)
                   for language, source, model in dict.fromkeys(zip(scored["language"], scored["source"],
                                                                    scored["model"]))}
        attributes = [a for a in GROUPS if a in set(result.gaps["attribute"])]
        self._offer_drill(what="a language's gap", pickers={"system": list(systems), "attribute": attributes},
                          build=lambda system, attribute: result.pairs(
                              language=systems[system][0], source=systems[system][1], model=systems[system][2],
                              attribute=attribute))

    def _captioned(self, result, frame, columns: Sequence[str], caption: str) -> None:
        """``frame``'s ``columns`` with their verdicts in words; the caption names the family the p-values are
        corrected in and ends with the verdicts' legend."""
        shown, legend = result.display(frame.loc[:, [c for c in columns if c in frame.columns]])
        families = "; ".join(dict.fromkeys(frame["family"].dropna().astype(str))) if "family" in frame else ""
        family = f" Family: {families}." if families else ""
        self._show(table(shown.reset_index(drop=True), caption=f"{caption}{family} {legend}".strip()))


def multilingual_app(*, languages: Sequence[str] | None = None, tasks: Sequence[str] = ("valence",),
                     models: Sequence[str] | Mapping[str, Sequence[str]] | None = None, quick: bool = False,
                     cache: bool | str | Path = True, study: Callable[..., Any] | None = None,
                     **options: Any) -> MultilingualApp:
    """Build the multilingual app over ``languages`` (default: the chosen corpora's own, as
    :func:`~toolkit.studies.multilingual.run` loads them; a language no chosen corpus holds is not offered, with a
    note); ``models``: None for each language's offline systems, a list of specs or a mapping language → specs, read
    as :func:`~toolkit.studies.multilingual.per_language` reads them; ``options``: ``sources``, ``root``,
    ``subsets``, ``n_boot``, … for every run; ``study``: the study function, default
    :func:`toolkit.studies.multilingual.run`. Display ``app.widget`` in a notebook."""
    return MultilingualApp(languages=languages, tasks=tasks, models=models, quick=quick, cache=cache, study=study,
                           **options)
