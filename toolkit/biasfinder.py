"""BiasFinder, end to end (Asyrofi et al., IEEE TSE 2021): templates mined from reviews for gender, occupation and
country of origin → mutants → scores → bias-uncovering test cases (BTCs), Table 4, a stratified sample for human
annotation, TPR and Cohen's κ — and, beside the paper's counts, each BTC rate with a template-clustered
interval, its within-class placebo null and the excess over it with a verdict (:func:`rates`, Table 4's extra
columns, the ``biasfinder_rates`` figure); the statistics settings go into the provenance.

>>> from toolkit import biasfinder
>>> result = biasfinder.run(corpus="sample", models=["vader", "minilm-imdb"])
>>> result.table4                      # the paper's columns, then btc_rate … excess_high, btcs_net, verdict
>>> result.rates                       # between / within-class rates, excess, p_adjusted, verdict
>>> subset = biasfinder.run(corpus="reviews.csv", models=["minilm-imdb"], max_templates=150, seed=0)
>>> sample = biasfinder.sample_btcs(result.scored, n=biasfinder.sample_size(int(result.table4["btcs"].sum())))
>>> biasfinder.tpr(biasfinder.read_annotations("data/annotations/biasfinder.csv"))

Generators: :mod:`toolkit.generators.biasfinder`; measurements: :mod:`toolkit.studies.biasfinder`; the annotation
app: :func:`toolkit.annotation.annotation_app`.
"""
from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes

from toolkit import checks, corpora, plots, results, stats
from toolkit.generators.biasfinder import MAX_DOC_CHARS, SPACY_MAX_CHARS
from toolkit.generators.biasfinder.people import people_mode
from toolkit.generators.biasfinder.rules import RULES, active as active_rules  # noqa: F401
from toolkit.generators.biasfinder import (INSTANCES, PRESETS, country_names, country_templates,  # noqa: F401
                                           fill_names, fill_occupation, gender_templates, generate,
                                           generate_country, generate_gender, generate_occupation,
                                           occupation_templates, occupations, word_lists)
from toolkit.models import OFFLINE_DEFAULTS, SentimentModel
from toolkit.scoring import score
from toolkit.errors import unknown
from toolkit.outputs.annotations import annotations_path, read_annotation_csv, read_annotations  # noqa: F401
from toolkit.studies.biasfinder import (ANNOTATION_COLUMNS, RATE_FAMILY, RATE_INTERVALS, btcs,  # noqa: F401
                                        kappa, kappa_table, pair_counts, rates, sample_btcs, sample_size,
                                        sample_strata, sample_templates, table4, table4_rates, tpr, tpr_table)


@dataclass(frozen=True)
class BiasFinderResult:
    """Every stage's table of one BiasFinder run."""

    scored: pd.DataFrame
    btcs: pd.DataFrame
    table4: pd.DataFrame
    models: list[str]
    settings: dict
    rates: pd.DataFrame | None = None  # studies.biasfinder.rates; None in results built without the rates


def run(*, corpus: str | Path | pd.DataFrame = "sample", cases: pd.DataFrame | None = None,
        models: Iterable[str | SentimentModel] = OFFLINE_DEFAULTS, instances: Sequence[str] = INSTANCES,
        n_names: int = 30, n_country_names: int = 1, max_templates: int | None = None, seed: int = 0,
        n_process: int = 1, cache: bool | str | Path | None = True, progress: bool | None = None,
        encoding: str = "utf-8", max_chars: int = MAX_DOC_CHARS, n_jobs: int | None = None,
        executor: str = "local", lists: str = "curated", alpha: float = stats.ALPHA, margin: float = stats.MARGIN,
        correction: str = "holm", n_boot: int = stats.N_BOOT, interval: str = "cluster",
        duplicates: str = "keep", coherence: str | Iterable[str] = "default",
        people: str = "mutate", occupation_fit: str | None = None, backend: str = "rules",
        acceptance: str | None = None, parser: str | None = None, person_names: str | None = None,
        titles: str | None = None, occupation_templates: str | None = None
        ) -> BiasFinderResult:
    """Generate BiasFinder cases from ``corpus`` (a :func:`toolkit.corpora.load` source or frame; ``n_process``
    parsing processes; a file is read with ``encoding``) — or take ``cases`` already generated — keep a seeded sample
    of at most ``max_templates`` templates per characteristic (:func:`sample_templates`; None keeps all), then score
    them and count BTCs. Reviews over ``max_chars`` characters or not in English are skipped and counted; what the
    loader and the filters dropped is in ``settings["corpus_report"]`` and ``settings["generation_report"]``; the time
    each stage took in ``settings["seconds"]``; ``n_jobs``: worker processes for the lexicons (None: every core);
    ``executor="ray"`` templates on Ray workers; ``lists``: the word lists, ``"curated"`` (this project's) or
    ``"paper"`` (the ones BiasFinder released; :mod:`toolkit.generators.biasfinder.lists`), recorded in
    ``settings["word_lists"]``. Statistics (:func:`rates`): ``interval`` ("cluster": a bootstrap over templates with
    ``n_boot`` replicates seeded by ``seed``; "pairs": Wilson/Newcombe), ``correction`` over the model ×
    characteristic family, ``alpha`` and the equivalence ``margin`` on the BTC-rate scale, recorded in
    ``settings``. ``coherence`` ("default", "paper" or rule names; :mod:`toolkit.generators.biasfinder.rules`) and
    ``people`` ("mutate", "skip-named", "skip-real", "skip-known"; :mod:`toolkit.generators.biasfinder.people`) choose
    the generator's rules; the active ones are recorded in ``settings["coherence"]`` (for given ``cases``, what their
    generation recorded, or None). ``occupation_fit`` (None: every occupation, as BiasFinder; ``"family"``,
    ``"embedding"`` or an ``llm:`` spec: :mod:`toolkit.generators.biasfinder.fit`) fills each occupation template only
    with occupations that fit its story; what it kept is in ``settings["generation_report"]["occupation_fit"]``.
    ``backend``: the coreference backend (``rules``, the default; ``neuralcoref``, BiasFinder's model); ``acceptance``:
    which reviews give gender/country templates (None: ``biasfinder`` under ``coherence="paper"``, else
    ``toolkit``; :mod:`toolkit.generators.biasfinder.paper`). The paper preset is ``coherence="paper",
    backend="neuralcoref", lists="paper"``; under it ``parser``, ``person_names``, ``titles`` and
    ``occupation_templates`` choose the parser, which mentions are names, the occupation method's TITLE vocabulary
    and its templates per review (:func:`generate`; recorded in ``settings["coherence"]["paper"]``)."""
    word_lists(lists)  # an unknown preset fails here; with ``cases`` given, the cases' own preset is recorded
    active_rules(coherence), people_mode(people)  # unknown rule names or people options fail before the parse
    models = checks.model_list(models)  # every argument checked before the slow generation
    max_templates = checks.count(max_templates, name="max_templates", allow_none=True)
    seed, n_process = checks.seed(seed), checks.count(n_process, name="n_process", maximum=checks.MAX_PROCESSES)
    n_names = checks.count(n_names, name="n_names")
    n_country_names = checks.count(n_country_names, name="n_country_names")
    max_chars = checks.count(max_chars, name="max_chars", maximum=SPACY_MAX_CHARS)
    alpha, margin, n_boot = checks.statistics(correction=correction, margin=margin, alpha=alpha, n_boot=n_boot,
                                              min_boot=100)
    if interval not in RATE_INTERVALS:
        raise unknown("rate interval", interval, RATE_INTERVALS)
    n_jobs = checks.count(n_jobs, name="n_jobs", maximum=checks.MAX_PROCESSES, allow_none=True)
    corpus_report, generation_report = {}, {}
    started = time.perf_counter()
    if cases is None:
        frame = (corpora.from_frame(corpus) if isinstance(corpus, pd.DataFrame)
                 else corpora.load(corpus, encoding=encoding))
        corpus_report = dict(frame.attrs.get("corpus_report", {}))
        cases = generate(frame, instances=instances, n_names=n_names, n_country_names=n_country_names,
                         n_process=n_process, max_chars=max_chars, progress=progress, executor=executor,
                         lists=lists, duplicates=duplicates, coherence=coherence, people=people,
                         occupation_fit=occupation_fit, backend=backend, acceptance=acceptance, parser=parser,
                         person_names=person_names, titles=titles, occupation_templates=occupation_templates)
        generation_report = dict(cases.attrs.get("generation_report", {}))
    mined = cases.groupby("attribute")["case_id"].nunique().to_dict()
    recorded_lists = cases.attrs.get("word_lists")  # None for given cases that do not say
    recorded_rules = cases.attrs.get("coherence")
    if max_templates is not None:
        cases = sample_templates(cases, max_templates=max_templates, seed=seed)
    templating_s = time.perf_counter() - started
    seconds = {"templating": round(templating_s, 1)}
    frames = []
    for model in models:  # one at a time, to time each
        started = time.perf_counter()
        frames.append(score(cases, models=model, cache=cache, progress=progress, n_jobs=n_jobs))
        seconds[f"scoring {frames[-1]['model'].iloc[0]}"] = round(time.perf_counter() - started, 1)
    scored = pd.concat(frames, ignore_index=True)
    for key in ("fingerprints", "no_score", "inputs"):
        scored.attrs[key] = {k: v for frame in frames for k, v in frame.attrs.get(key, {}).items()}
    counts = btcs(scored)
    settings = {"study": "biasfinder", "corpus": sorted(set(cases["corpus"])), "instances": list(instances),
                "n_names": n_names, "n_country_names": n_country_names, "max_templates": max_templates,
                "seed": seed, "templates_mined": mined,
                "templates": cases.groupby("attribute")["case_id"].nunique().to_dict(),
                "corpus_report": corpus_report, "generation_report": generation_report, "seconds": seconds,
                "word_lists": recorded_lists, "coherence": recorded_rules,
                **_statistics_settings(alpha=alpha, margin=margin, correction=correction, n_boot=n_boot,
                                       interval=interval)}
    rate_table = rates(scored, alpha=alpha, margin=margin, correction=correction, n_boot=n_boot, seed=seed,
                       interval=interval)
    settings["family_size"] = int(rate_table["p_value"].notna().sum())
    return BiasFinderResult(scored=scored, btcs=counts, table4=table4_rates(table4(counts), rate_table),
                            models=list(dict.fromkeys(scored["model"])), settings=settings, rates=rate_table)


def _statistics_settings(*, alpha: float, margin: float, correction: str, n_boot: int, interval: str) -> dict:
    """What :func:`rates` was run with, for the provenance (``seed`` is recorded with the sampling seed)."""
    described = {"cluster": "two-way bootstrap over templates and names; p: names permuted between classes "
                            "(toolkit.studies.biasfinder.rates)",
                 "templates": "percentile bootstrap over templates only, names fixed (comparison; too narrow when "
                              "the same names fill every template)",
                 "pairs": "Wilson / Newcombe over pairs (toolkit.stats.wilson, toolkit.stats.rate_difference)"}
    return {"alpha": alpha, "margin": margin, "correction": correction, "n_boot": n_boot, "interval": interval,
            "interval_method": described[interval], "family": RATE_FAMILY,
            "null_baseline": "BTC rate between mutants of the same class (placebo swaps; none for occupation)"}


def _rate_table(result: BiasFinderResult) -> pd.DataFrame:
    """The result's :func:`rates`, computed with the recorded settings for a result built without them."""
    if result.rates is not None:
        return result.rates
    keys = ("alpha", "margin", "correction", "n_boot", "seed", "interval")
    return rates(result.scored, **{k: result.settings[k] for k in keys if k in result.settings})


def figures(result: BiasFinderResult) -> dict[str, Axes]:
    """BTCs per characteristic and model, and the BTC rates with their null and intervals, keyed by file stem."""
    return {"biasfinder_btcs": plots.biasfinder_btcs(result.table4),
            "biasfinder_rates": plots.biasfinder_rates(_rate_table(result))}


def write(result: BiasFinderResult, out_dir: str | Path | None = None, *, figures_dir: str | Path | None = None,
          formats: tuple[str, ...] = ("csv",), with_scored: bool = False, latex: bool = False,
          report: bool = False) -> list[Path]:
    """Write ``biasfinder_btcs``, ``biasfinder_table4`` (with the rate columns), ``biasfinder_rates`` (and with
    ``with_scored`` the scored mutants, ``biasfinder_scored``) in each of ``formats`` (csv, parquet) and
    ``provenance.json`` (settings with the statistics') to ``out_dir`` (default ``data/results/biasfinder``), figures
    ``biasfinder_btcs`` and ``biasfinder_rates`` to ``figures_dir`` (default ``figures/``)."""
    tables = {"biasfinder_btcs": result.btcs, "biasfinder_table4": result.table4,
              "biasfinder_rates": _rate_table(result)}
    return results.write(study="biasfinder", tables=tables, axes=figures(result), scored=result.scored,
                         models=result.models, settings=result.settings, out_dir=out_dir, figures_dir=figures_dir,
                         formats=formats, with_scored=with_scored, latex=latex, report=report)
