"""The multilingual EEC's statistics: per language, the EEC study's crossed templates × persons estimate of each
attribute's gap, and the race × gender intersections.

Per language × model × task × attribute × subset (``all`` or ``emotion:<e>``), a templates × units array of the gap
Δ = score(a) − score(b), averaged within a template over its cases (emotion words):

- Câmara et al. (as the English EEC study, :mod:`toolkit.studies.eec`): gender units are the 10 noun-phrase pairs
  (``she/he`` …) and one pair of the female-names mean against the male-names mean; race units pair the i-th
  minoritized name with the i-th Anglo name of the same gender in the release's order (the mean is linear, so the
  pairing does not change the estimate); a = female / Latino or Arab, b = male / Anglo.
- Goldfarb-Tarrant et al.: the units are the co-indexed minimal pairs (positions of a block), the rows the frames
  (template × emotion word: the release does not mark the emotion word); a = female / minoritized, b = male /
  privileged (Japanese rank: a = junior).

Each array goes through the EEC study's estimator (two-way random effects, Satterthwaite df: templates and persons
both samples; :func:`toolkit.stats.crossed_estimate`) and its family decision (:func:`toolkit.stats.decide_family`:
the correction over every assessment of the subset in the run — languages × models × tasks × attributes, those with
a p —, the simultaneous interval, the equivalence test at ``margin``, the verdict; ``family`` names its size).
:func:`statistics` returns :data:`COLUMNS`; ``reason`` says why a row has no number.

:func:`intersections` runs :func:`toolkit.intersections.cells` per language on the four race × gender cells
(Câmara: names; Goldfarb-Tarrant: the race lists where the gender of each pair is known) and returns the same
columns (``attribute`` = ``race × gender: <contrast>``).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from toolkit import checks
from toolkit import intersections as intersections_study
from toolkit import stats as tkstats
from toolkit.cases import with_scores
from toolkit.errors import SchemaError, warn

COLUMNS = ("language", "source", "model", "task", "attribute", "subset", "group_a", "group_b", "estimate", "ci_low",
           "ci_high", "effect_size", "p_value", "p_adjusted", "verdict", "reason", "n_templates", "n_units",
           "family")
EMOTIONS = ("anger", "fear", "joy", "sadness")
SUBSETS = ("all",) + tuple(f"emotion:{e}" for e in EMOTIONS)
GROUPS = {"gender": ("female", "male"), "race": ("minoritized", "privileged"), "rank": ("minoritized", "privileged")}
NAMES_PAIR = "names (mean)"
"""The gender unit of the names' means, named as the EEC study names it."""
_NEED = ("model", "task", "score", "case_id", "template_id", "source", "language", "attribute", "gender", "race",
         "emotion", "pair", "side", "person", "person_en")


def _check(scored: pd.DataFrame) -> None:
    if missing := [c for c in _NEED if c not in scored.columns]:
        raise SchemaError(f"not a scored multilingual table: missing {missing}.",
                          fix="score toolkit.studies.multilingual.corpora.load() with toolkit.scoring.score().")


def deltas(scored: pd.DataFrame) -> pd.DataFrame:
    """The gap of every unit in every case, tidy: ``language, source, model, task, attribute, case_id,
    template_id, emotion, unit, delta``."""
    _check(scored)
    data = with_scores(scored, study="multilingual")
    frames = []
    for (source, language), block in data.groupby(["source", "language"], sort=False):
        frames += (_camara(block) if source == "camara2022" else _goldfarb_tarrant(block))
    columns = ["language", "source", "model", "task", "attribute", "case_id", "template_id", "emotion", "unit",
               "delta"]
    return pd.concat(frames, ignore_index=True).loc[:, columns] if frames else pd.DataFrame(columns=columns)


_KEYS = ["language", "source", "model", "task", "case_id", "template_id", "emotion"]


def _camara(block: pd.DataFrame) -> list[pd.DataFrame]:
    out = []
    phrases = block[block["np_pair"] != ""]
    both = ["female", "male"]  # a part of the corpus may lack one gender: no pair there, not a KeyError
    wide = phrases.pivot_table(index=_KEYS + ["np_pair"], columns="gender", values="score", aggfunc="mean")
    wide = wide.reindex(columns=both).dropna().reset_index()
    out.append(wide.assign(attribute="gender", unit=wide["np_pair"], delta=wide["female"] - wide["male"]))
    names = block[block["race"] != ""]
    means = (names.pivot_table(index=_KEYS, columns="gender", values="score", aggfunc="mean").reindex(columns=both)
             .dropna().reset_index())
    out.append(means.assign(attribute="gender", unit=NAMES_PAIR, delta=means["female"] - means["male"]))
    persons = names.pivot_table(index=_KEYS, columns="person_en", values="score", aggfunc="mean").reset_index()
    order = names.drop_duplicates("person_en")
    minor = order[order["race"].isin({"Latino", "Arab", "African-American"})]
    major = order[~order["race"].isin({"Latino", "Arab", "African-American"})]
    for gender in ("female", "male"):
        for x, y in zip(minor.loc[minor["gender"] == gender, "person_en"], major.loc[major["gender"] == gender,
                                                                                      "person_en"]):
            out.append(persons[_KEYS].assign(attribute="race", unit=f"{x}−{y}", delta=persons[x] - persons[y]))
    return [f.dropna(subset=["delta"]) for f in out]


def _goldfarb_tarrant(block: pd.DataFrame) -> list[pd.DataFrame]:
    wide = block.pivot_table(index=_KEYS + ["attribute", "pair"], columns="side", values="score", aggfunc="mean")
    wide = wide.dropna().reset_index()
    return [wide.assign(unit=wide["pair"], delta=wide["a"] - wide["b"])]


def statistics(scored: pd.DataFrame, *, subsets: Sequence[str] = SUBSETS, alpha: float = tkstats.ALPHA,
               correction: str = "holm", margin: float = tkstats.MARGIN, n_boot: int = tkstats.N_BOOT,
               seed: int = 0) -> pd.DataFrame:
    """Per language × model × task × attribute × subset, the crossed templates × units estimate of the gap with
    its family-corrected p, simultaneous interval and verdict (columns :data:`COLUMNS`; see the module
    docstring). ``correction`` (bonferroni, holm, fdr_bh) runs over every assessment of a subset in the run."""
    alpha, margin, n_boot = checks.statistics(correction=correction, margin=margin, alpha=alpha, n_boot=n_boot,
                                              min_boot=100)
    long = deltas(scored)
    systems = ["language", "source", "model", "task"]
    unpaired = scored[systems].drop_duplicates().merge(long[systems].drop_duplicates(), how="left", indicator=True)
    unpaired = unpaired[unpaired["_merge"] == "left_only"]
    if len(unpaired):  # a recorded skip, never a silent drop
        named = ", ".join(f"{r.model} ({r.task}) in {r.language} ({r.source})" for r in unpaired.itertuples())
        warn(f"multilingual statistics: no gap for {named}: none of its scored sentences has its pair (the same "
             "sentence with a person of the other group) scored too. Score every sentence of the corpus.")
    rows = []
    for subset in subsets:
        part = long if subset == "all" else long[long["emotion"] == subset.split(":", 1)[1]]
        block = []
        keys = ["language", "source", "model", "task", "attribute"]
        for key, group in part.groupby(keys, sort=False):
            matrix = group.pivot_table(index="template_id", columns="unit", values="delta", aggfunc="mean")
            weights = group.groupby("template_id")["case_id"].nunique().reindex(matrix.index).to_numpy(dtype=float)
            estimate = tkstats.crossed_estimate(matrix, weights, alpha=alpha, n_boot=int(n_boot), seed=seed,
                                                method="satterthwaite", margin=margin)
            block.append({**dict(zip(keys, key)), "subset": subset, **estimate})
        if block:
            tkstats.decide_family(block, family=f"multilingual:{subset}", label=f"multilingual {subset}", alpha=alpha,
                                  correction=correction, margin=margin, n_boot=int(n_boot), method="satterthwaite",
                                  seed=seed, family_size=None)
            # the family as tested: rows without a p (too few data) are not in it, and it spans every task
            n_languages, n_tasks = len({r["language"] for r in block}), len({r["task"] for r in block})
            tasks = f"{n_tasks} tasks × " if n_tasks > 1 else ""
            family = (f"multilingual:{subset}: {block[0]['n_family']} tests ({n_languages} "
                      f"language{'s' if n_languages > 1 else ''} × models × {tasks}attributes), {correction}")
            for row in block:
                row["family"] = family
        for row in block:
            a, b = GROUPS.get(row["attribute"], ("a", "b"))
            rows.append({**row, "group_a": a, "group_b": b, "p_value": row["p_two_way"],
                         "reason": _reason(row)})
    return pd.DataFrame(rows, columns=list(COLUMNS)) if rows else pd.DataFrame(columns=list(COLUMNS))


def _reason(row: dict) -> str:
    if not np.isfinite(row.get("estimate", np.nan)):
        return (f"not enough data: {row.get('n_templates', 0)} templates × {row.get('n_units', 0)} units with every "
                "cell scored (the crossed estimate needs 2 × 2)")
    if str(row.get("verdict", "")).startswith("identical"):
        return "every paired score is equal: nothing to test"
    return ""


def race_gender_cells(source: str, language: str) -> tuple[tuple[str, str], ...]:
    """The four race × gender cells of a corpus and language, in :func:`toolkit.intersections.cells`'
    order (minoritized female, minoritized male, majority female, majority male)."""
    if source == "camara2022":
        minor = {"es": "Latino", "ar": "Arab", "en_es": "Latino", "en_ar": "Arab"}[language]
        return ((minor, "female"), (minor, "male"), ("Anglo", "female"), ("Anglo", "male"))
    return (("minoritized", "female"), ("minoritized", "male"), ("privileged", "female"), ("privileged", "male"))


def intersections(scored: pd.DataFrame, *, alpha: float = tkstats.ALPHA, correction: str = "holm",
                  margin: float = tkstats.MARGIN, n_boot: int = tkstats.N_BOOT, seed: int = 0) -> pd.DataFrame:
    """The race × gender contrasts and interaction per language (see the module docstring), columns
    :data:`COLUMNS` (``attribute`` = ``race × gender: <contrast>``; ``reason`` says why a language has none)."""
    _check(scored)
    rows = []
    for (source, language), block in with_scores(scored, study="multilingual").groupby(["source", "language"],
                                                                                       sort=False):
        names = block[(block["race"] != "") & block["gender"].isin(["female", "male"])]
        if source == "goldfarb_tarrant2023":
            names = names[names["attribute"] == "race"]
        if names.empty:
            continue
        person = names["person_en"] if source == "camara2022" else names["person"]
        frame = names.assign(person=person)
        out = intersections_study.cells(frame, alpha=alpha, correction=correction, margin=margin, n_boot=n_boot,
                                        seed=seed, min_names=2, groups=race_gender_cells(source, language))
        for r in out.itertuples():
            rows.append({"language": language, "source": source, "model": r.model, "task": r.task,
                         "attribute": f"race × gender: {r.contrast}", "subset": "all", "group_a": r.cell_a,
                         "group_b": r.cell_b, "estimate": r.estimate, "ci_low": r.ci_low, "ci_high": r.ci_high,
                         "effect_size": np.nan, "p_value": r.p_two_way, "p_adjusted": r.p_adjusted,
                         "verdict": r.verdict, "reason": (r.reason or "") if r.state == "ok" else r.state,
                         "n_templates": r.n_templates, "n_units": min(r.n_names_a, r.n_names_b),
                         "family": f"{r.family} (per language)" if r.family else ""})  # untested: no family
    return pd.DataFrame(rows, columns=list(COLUMNS))


def shown_subset(gaps: pd.DataFrame) -> str:
    """The subset the figures, the app and the LaTeX gaps table show: ``all`` when the run has it, else its
    first."""
    subsets = list(dict.fromkeys(gaps["subset"].astype(str)))
    return "all" if "all" in subsets or not subsets else subsets[0]
