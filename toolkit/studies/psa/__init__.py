"""The PSA study (Prabhakaran, Hutchinson & Mitchell 2019, doi:10.18653/v1/D19-1578), one place: the generator
(:mod:`.generate`), the metrics (:mod:`.analysis`, :mod:`.planning`), the figures (:mod:`.figures`), the paper tables
as LaTeX (:mod:`.tables`) and captions (:mod:`.captions`) and the app (:mod:`.app`); registered as ``psa``.
End to end: ``corpora.load`` → ``generate`` → ``score`` → ScoreSens, ScoreDev/ScoreRange, LabelDist, r.

>>> from toolkit.studies import psa
>>> result = psa.run(corpus="sample", models=["vader", "minilm-imdb"], n=100)
>>> psa.table2(result.summary)
>>> result.gender      # Δ = female − male with interval, effect size, p_adjusted, verdict and the placebo range

The generator is :mod:`toolkit.studies.psa.generator`, the metrics :mod:`toolkit.studies.psa.analysis` (whose docstring relates
the valence scale to the paper's [−1, 1]).
"""
from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from toolkit import checks, corpora
from toolkit import stats as st
from toolkit.errors import unknown
from toolkit.models import OFFLINE_DEFAULTS, SentimentModel
from toolkit.scoring import ScoreRecord, score
from toolkit.studies import get, register, stats_frame
from toolkit.studies.base import Settings, Study
from toolkit.studies.psa import analysis as _analysis
from toolkit.studies.psa import figures as psa_figures
from toolkit.studies.psa.analysis import (
    N_NULL,
    SCORE_SENS_INTERVAL_NAMES,
    SCORE_SENS_INTERVALS,
    THRESHOLDS,
    check_thresholds,
    gender_gap,
    label_dist,
    label_flips,
    name_pairs,
    score_sens,
    sensitivity_correlation,
    summary,
    table2,
    variance_table,
)
from toolkit.studies.psa.generator import GENERATED_WITH, generate, load_names
from toolkit.studies.psa.latex import LATEX_LAYOUTS
from toolkit.studies.result import Provenance, StudyResult


@dataclass(frozen=True)
class PSASettings(Settings):
    """PSA's settings: the ``corpus`` (a :func:`toolkit.corpora.load` source read with ``encoding``, or a frame) or
    ``cases`` already generated; the ``names`` table (None: the 48 public figures); ``n`` sentences (the paper:
    1,000 per corpus), ``max_words``; LabelDist ``thresholds``; ``score_sens_interval``: ScoreSens's interval
    (``hall``, Hall's skewness-corrected t, default; ``t``; :func:`~toolkit.studies.psa.analysis.score_sens`)."""

    corpus: str | Path | pd.DataFrame = "sample"
    cases: pd.DataFrame | None = None
    names: str | Path | pd.DataFrame | None = None
    n: int = 1000
    max_words: int = 50
    thresholds: tuple[float, ...] = THRESHOLDS
    encoding: str = "utf-8"
    score_sens_interval: str = "hall"

    def check(self) -> None:
        check_thresholds(self.thresholds)
        if self.score_sens_interval not in SCORE_SENS_INTERVALS:
            raise unknown("ScoreSens interval", self.score_sens_interval, SCORE_SENS_INTERVALS)
        self._set(thresholds=tuple(self.thresholds), n=checks.count(self.n, name="n", minimum=2),
                  max_words=checks.count(self.max_words, name="max_words"))


def run(*, corpus: str | Path | pd.DataFrame = "sample", cases: pd.DataFrame | None = None,
        models: Iterable[str | SentimentModel] = OFFLINE_DEFAULTS, names: str | Path | pd.DataFrame | None = None,
        n: int = 1000, seed: int = 0, max_words: int = 50,
        thresholds: Sequence[float] = THRESHOLDS, n_boot: int = st.N_BOOT, alpha: float = st.ALPHA,
        margin: float = st.MARGIN, correction: str = "bonferroni", cache: bool | str | Path | None = True,
        progress: bool | None = None, encoding: str = "utf-8", score_sens_interval: str = "hall") -> StudyResult:
    """Generate PSA cases from ``corpus`` (a :func:`toolkit.corpora.load` source, read with ``encoding``, or a
    frame) — or take ``cases`` already generated — then score and measure. Texts that do not look English are
    skipped; the count and what the loader dropped are in the provenance's ``corpus_report``. ``n_boot`` bootstrap
    replicates (seeded by ``seed``) give every interval; the gender gap's ``p_adjusted`` is corrected over the
    family model × corpus by ``correction`` and its verdict uses ``margin`` and ``alpha``; ``score_sens_interval``
    picks ScoreSens's interval (``hall`` or ``t``; recorded in the provenance). Returns the study's
    :class:`~toolkit.studies.result.StudyResult` (tables ``names``, ``summary``, ``label_dist``, ``correlation``,
    ``gender``, ``variance``)."""
    return STUDY.run(models=models, cache=cache, progress=progress, corpus=corpus, cases=cases, names=names, n=n,
                     seed=seed, max_words=max_words, thresholds=tuple(thresholds), n_boot=n_boot, alpha=alpha,
                     margin=margin, correction=correction, encoding=encoding,
                     score_sens_interval=score_sens_interval)


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text).strip("-")


def figures_of(result: StudyResult) -> dict[str, Axes]:
    """ScoreSens per name for each model (Figure 1) and the LabelDist curves with their bootstrap bands (Figure 2),
    keyed by file stem; a model whose ScoreSens figure would show one bar or none has none (the provenance's
    ``figures_not_drawn`` says why: :func:`figures_not_drawn`)."""
    interval = getattr(result.settings, "score_sens_interval", None)
    axes = {f"psa_score_sens_{_slug(m)}": psa_figures.psa_score_sens(result.names, model=m, interval=interval)
            for m in result.models
            if not psa_figures.score_sens_note(result.names, model=m)}
    axes["psa_label_dist"] = psa_figures.psa_label_dist(result.label_dist)
    return axes


def figures_not_drawn(names: pd.DataFrame, models: Iterable[str]) -> dict[str, str]:
    """File stem → why the figure is said in words instead (:func:`toolkit.studies.psa.figures.score_sens_note`):
    the ScoreSens figures that would show one bar or none."""
    notes = {f"psa_score_sens_{_slug(m)}": psa_figures.score_sens_note(names, model=m) for m in models}
    return {stem: note for stem, note in notes.items() if note}


def write(result: StudyResult, out_dir: str | Path | None = None, **options: Any) -> list[Path]:
    """``result.write(out_dir, **options)``: ``psa_names``, ``psa_summary``, ``psa_label_dist``,
    ``psa_correlation``, ``psa_gender``, ``psa_variance``, the figures and ``provenance.json``."""
    return result.write(out_dir, **options)


@register
class PSA(Study):
    """Perturbation sensitivity analysis: names substituted for a pronoun anchor; ScoreSens, ScoreDev, ScoreRange,
    LabelDist, and the gender gap with its interval and verdict."""

    name = "psa"
    reads_tasks = ("valence",)
    title = "PSA (Prabhakaran, Hutchinson & Mitchell 2019)"
    paper = "Prabhakaran, Hutchinson & Mitchell 2019, doi:10.18653/v1/D19-1578"
    Settings = PSASettings
    headline = "PSA ScoreDev"
    sizes = {"quick": {"corpus": "sample", "n": 56}, "paper": {"n": 1000}}
    needs = {"paper": {("corpus", "cases"): "a corpus of real sentences (the paper's are not public; IMDB reviews: "
                                           f"{corpora.ACLIMDB_SOURCE})"}}
    app = "toolkit.studies.psa.app:psa_app"
    latex_layouts = LATEX_LAYOUTS
    verdict_groups = _analysis.VERDICT_GROUPS
    paper_figures = {
        "psa_score_sens_<model>": ("psa_score_sens", "PSA Figure 1", ("ScoreSens per name on the valence scale (half "
                                   "the paper's [−1, 1] values); one figure per model")),
        "psa_label_dist": ("psa_label_dist", "PSA Figure 2", "LabelDist against c (valence scale), bootstrap bands "
                           "added"),
        "psa_label_flips": ("psa_label_flips", "none", "per name, the sentences whose label flips at one threshold "
                            "(notebook 02)"),
    }

    def execute(self, *, models, settings: PSASettings, cache, progress) -> StudyResult:
        models = checks.model_list(models if models is not None else OFFLINE_DEFAULTS)
        corpus_report: dict = {}
        cases = settings.cases
        if cases is None:
            corpus = settings.corpus
            frame = (corpora.from_frame(corpus) if isinstance(corpus, pd.DataFrame)
                     else corpora.load(corpus, encoding=settings.encoding, report=corpus_report))
            english = corpora.english(frame["text"])  # remembered from loading: nothing checked twice
            corpus_report["non_english_skipped"] = int((~english).sum())
            cases = generate(frame.loc[english], names=settings.names, n=settings.n, seed=settings.seed,
                             max_words=settings.max_words)
        report = ScoreRecord()
        if settings.cases is None:
            names = settings.names
            made = {"n": settings.n, "seed": settings.seed, "max_words": settings.max_words,
                    "names": "default" if names is None else str(names) if not isinstance(names, pd.DataFrame) else
                    "frame", "cases": "generated by this run"}
        else:  # the cases' own options (generate() stamps them), never this run's unused defaults
            given = cases.attrs.get(GENERATED_WITH)
            made = ({**{k: given[k] for k in ("n", "seed", "max_words", "names")}, "cases": "given (made by generate)"}
                    if given else {"n": None, "seed": None, "max_words": None, "names": None,
                                   "cases": "given (not made by generate: its options are unknown)"})
        scored = score(cases, models=models, cache=cache, progress=progress, record=report)
        record = {"study": "psa", "corpus": sorted(set(cases["corpus"])), **made,
                  "n_sentences": int(cases["case_id"].nunique()), "n_boot": settings.n_boot, "corpus_report": corpus_report, "alpha": settings.alpha,
                  "margin": settings.margin, "correction": settings.correction, "family": "gender gap: model × corpus",
                  "n_null": N_NULL,
                  "gender_design": "sentences × (female, male) name pairs within category; two-way Satterthwaite t",
                  "null": "placebo: random halves of each gender's names",
                  "score_sens_interval": settings.score_sens_interval,
                  "score_sens_interval_method": SCORE_SENS_INTERVAL_NAMES[settings.score_sens_interval]}
        n_boot, seed = settings.n_boot, settings.seed
        frames = {"names": score_sens(scored, interval=settings.score_sens_interval),
                  "summary": summary(scored, n_boot=n_boot, seed=seed),
                  "label_dist": label_dist(scored, thresholds=settings.thresholds, n_boot=n_boot, seed=seed),
                  "correlation": sensitivity_correlation(scored),
                  "gender": gender_gap(scored, n_boot=n_boot, seed=seed, alpha=settings.alpha,
                                       margin=settings.margin, correction=settings.correction),
                  "variance": variance_table(scored)}
        record["figures_not_drawn"] = figures_not_drawn(frames["names"], models=list(dict.fromkeys(scored["model"])))
        return StudyResult(study=self.name, models=list(dict.fromkeys(scored["model"])), scored=scored,
                           frames=frames, settings=settings,
                           provenance=Provenance.of(study=self.name, settings=record, record=report))

    def figures(self, result: StudyResult, **options: Any) -> dict[str, Axes]:
        return figures_of(result)

    def paper_tables(self, result: StudyResult) -> dict[str, pd.DataFrame]:
        return {"Table 2": table2(result.summary)}

    def conclusions(self, result: StudyResult) -> pd.DataFrame:
        gender = result.gender
        record = result.provenance.settings
        return stats_frame.frame(pd.DataFrame({
            "model": gender["model"], "attribute": "gender", "scope": "corpus " + gender["corpus"].astype(str),
            "estimate": gender["estimate"], "ci_low": gender["ci_low"], "ci_high": gender["ci_high"],
            "effect_size": gender["effect_size"], "p_value": gender["p_value"], "p_adjusted": gender["p_adjusted"],
            "verdict": gender["verdict"],
            "unit": "valence difference " + gender["a"].astype(str) + " − " + gender["b"].astype(str),
            "family": record.get("family", ""), "correction": record.get("correction", ""),
            "null": "0; placebo: random halves of each gender's names",
            "reason": [f"sparse sensitivity: {int(r['n_pairs_unmoved'])} of {int(r['n_pairs'])} name pairs never move "
                       "the score, so no equivalence is claimed (a few names may carry a large shift)"
                       if _analysis.sparse_sensitivity({**r, "identical": str(r["verdict"]).startswith("identical")})
                       else "" for r in gender.to_dict("records")]}), study=self.name)

    def units(self, scored: pd.DataFrame) -> pd.DataFrame:
        """Per model × sentence: the standard deviation of the scores across names (one ScoreDev term)."""
        perturbed = scored[~scored["is_original"].astype(bool)]
        sd = perturbed.groupby(["model", "case_id"], observed=True)["score"].std(ddof=1).reset_index()
        return pd.DataFrame({"model": sd["model"], "unit": sd["case_id"].astype(str), "part": "all",
                             "num": sd["score"], "den": 1.0})

    def cases(self, *, corpus: str | Path = "sample", n: int = 300, **_: Any) -> pd.DataFrame:
        return generate(corpora.load(corpus), n=n)

    def describe(self, result: StudyResult) -> str:
        return result.summary.to_string(index=False)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--corpus", default="sample", help="'sample' or a CSV/TSV/JSONL file with a text column")
        parser.add_argument("--names", type=Path, help="CSV with name,gender,category (default: 48 public figures)")
        parser.add_argument("--n", type=int, default=1000, help="sentences to sample (half female-, half "
                            "male-anchored)")
        parser.add_argument("--max-words", type=int, default=50)
        parser.add_argument("--encoding", default="utf-8", help="the corpus file's text encoding (e.g. cp1252, "
                            "latin-1)")
        parser.add_argument("--score-sens-interval", choices=SCORE_SENS_INTERVALS, default="hall",
                            help="ScoreSens's interval over sentences: hall (skewness-corrected t, default) or t")

    def arguments(self, args: argparse.Namespace) -> dict[str, Any]:
        return {"corpus": args.corpus, "names": args.names, "n": args.n, "max_words": args.max_words,
                "encoding": args.encoding, "score_sens_interval": args.score_sens_interval}


STUDY: PSA = get("psa")  # type: ignore[assignment]
