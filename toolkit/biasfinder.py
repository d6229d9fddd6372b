"""BiasFinder, end to end (Asyrofi et al., IEEE TSE 2021): templates mined from reviews for gender, occupation and
country of origin → mutants → scores → bias-uncovering test cases (BTCs), Table 4, a stratified sample for human
annotation, TPR and Cohen's κ.

>>> from toolkit import biasfinder
>>> result = biasfinder.run(corpus="sample", models=["vader", "minilm-imdb"])
>>> result.table4
>>> subset = biasfinder.run(corpus="reviews.csv", models=["minilm-imdb"], max_templates=150, seed=0)
>>> sample = biasfinder.sample_btcs(result.scored, n=biasfinder.sample_size(int(result.table4["btcs"].sum())))
>>> biasfinder.tpr(biasfinder.read_annotations("data/annotations/biasfinder.csv"))

Generators: :mod:`toolkit.generators.biasfinder`; measurements: :mod:`toolkit.studies.biasfinder`; the annotation
app: :func:`toolkit.widgets.annotation_app`.
"""
from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes

from toolkit import checks, corpora, paths, plots, results
from toolkit.generators.biasfinder import MAX_DOC_CHARS
from toolkit.generators.biasfinder import (INSTANCES, PRESETS, country_names, country_templates,  # noqa: F401
                                           fill_names, fill_occupation, gender_templates, generate,
                                           generate_country, generate_gender, generate_occupation,
                                           occupation_templates, occupations, word_lists)
from toolkit.models import OFFLINE_DEFAULTS, SentimentModel
from toolkit.scoring import score
from toolkit.studies.biasfinder import (ANNOTATION_COLUMNS, btcs, kappa, sample_btcs, sample_size,  # noqa: F401
                                        sample_strata, sample_templates, table4, tpr)


@dataclass(frozen=True)
class BiasFinderResult:
    """Every stage's table of one BiasFinder run."""

    scored: pd.DataFrame
    btcs: pd.DataFrame
    table4: pd.DataFrame
    models: list[str]
    settings: dict


def run(*, corpus: str | Path | pd.DataFrame = "sample", cases: pd.DataFrame | None = None,
        models: Iterable[str | SentimentModel] = OFFLINE_DEFAULTS, instances: Sequence[str] = INSTANCES,
        n_names: int = 30, n_country_names: int = 1, max_templates: int | None = None, seed: int = 0,
        n_process: int = 1, cache: bool | str | Path | None = True, progress: bool | None = None,
        encoding: str = "utf-8", max_chars: int = MAX_DOC_CHARS, n_jobs: int | None = None,
        executor: str = "local", lists: str = "curated") -> BiasFinderResult:
    """Generate BiasFinder cases from ``corpus`` (a :func:`toolkit.corpora.load` source or frame; ``n_process``
    parsing processes; a file is read with ``encoding``) — or take ``cases`` already generated — keep a seeded sample
    of at most ``max_templates`` templates per characteristic (:func:`sample_templates`; None keeps all), then score
    them and count BTCs. Reviews over ``max_chars`` characters or not in English are skipped and counted; what the
    loader and the filters dropped is in ``settings["corpus_report"]`` and ``settings["generation_report"]``; the time
    each stage took in ``settings["seconds"]``; ``n_jobs``: worker processes for the lexicons (None: every core);
    ``executor="ray"`` templates on Ray workers; ``lists``: the word lists, ``"curated"`` (this project's) or
    ``"paper"`` (the ones BiasFinder released; :mod:`toolkit.generators.biasfinder.lists`), recorded in
    ``settings["word_lists"]``."""
    word_lists(lists)  # an unknown preset fails here; with ``cases`` given, the cases' own preset is recorded
    models = checks.model_list(models)  # every argument checked before the slow generation
    max_templates = checks.count(max_templates, name="max_templates", allow_none=True)
    seed, n_process = checks.seed(seed), checks.count(n_process, name="n_process", maximum=checks.MAX_PROCESSES)
    n_names = checks.count(n_names, name="n_names")
    n_country_names = checks.count(n_country_names, name="n_country_names")
    max_chars = checks.count(max_chars, name="max_chars")
    n_jobs = checks.count(n_jobs, name="n_jobs", maximum=checks.MAX_PROCESSES, allow_none=True)
    corpus_report, generation_report = {}, {}
    started = time.perf_counter()
    if cases is None:
        frame = corpus if isinstance(corpus, pd.DataFrame) else corpora.load(corpus, encoding=encoding)
        corpus_report = dict(frame.attrs.get("corpus_report", {}))
        cases = generate(frame, instances=instances, n_names=n_names, n_country_names=n_country_names,
                         n_process=n_process, max_chars=max_chars, progress=progress, executor=executor,
                         lists=lists)
        generation_report = dict(cases.attrs.get("generation_report", {}))
    mined = cases.groupby("attribute")["case_id"].nunique().to_dict()
    recorded_lists = cases.attrs.get("word_lists")  # None for given cases that do not say
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
                "word_lists": recorded_lists}
    return BiasFinderResult(scored=scored, btcs=counts, table4=table4(counts),
                            models=list(dict.fromkeys(scored["model"])), settings=settings)


def figures(result: BiasFinderResult) -> dict[str, Axes]:
    """BTCs per characteristic and model, keyed by file stem."""
    return {"biasfinder_btcs": plots.biasfinder_btcs(result.table4)}


def write(result: BiasFinderResult, out_dir: str | Path | None = None, *, figures_dir: str | Path | None = None,
          formats: tuple[str, ...] = ("csv",), with_scored: bool = False) -> list[Path]:
    """Write ``biasfinder_btcs``, ``biasfinder_table4`` (and with ``with_scored`` the scored mutants,
    ``biasfinder_scored``) in each of ``formats`` (csv, parquet) and ``provenance.json`` to ``out_dir`` (default
    ``data/results/biasfinder``), figures to ``figures_dir`` (default ``figures/``)."""
    tables = {"biasfinder_btcs": result.btcs, "biasfinder_table4": result.table4}
    return results.write(study="biasfinder", tables=tables, axes=figures(result), scored=result.scored,
                         models=result.models, settings=result.settings, out_dir=out_dir, figures_dir=figures_dir,
                         formats=formats, with_scored=with_scored)


def annotations_path() -> Path:
    """The default annotation CSV, ``data/annotations/biasfinder.csv``."""
    return paths.data_dir() / "annotations" / "biasfinder.csv"


def read_annotations(path: str | Path | None = None) -> pd.DataFrame:
    """The annotation CSV (columns :data:`ANNOTATION_COLUMNS`) as :func:`tpr` and :func:`kappa` take it: the last
    row per annotator × BTC × variant, only complete ones (both fields set), only BTCs with both variants done."""
    path = Path(path) if path is not None else annotations_path()
    if not path.exists():
        return pd.DataFrame(columns=list(ANNOTATION_COLUMNS))
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    last = frame.drop_duplicates(["annotator", "btc_id", "variant"], keep="last")
    done = last[(last["coherent"] != "") & (last["sentiment"] != "")]
    both = done.groupby(["annotator", "btc_id"])["variant"].transform("nunique") == 2
    return done[both].loc[:, list(ANNOTATION_COLUMNS)].reset_index(drop=True)
