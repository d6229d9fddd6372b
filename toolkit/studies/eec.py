"""EEC study (Kiritchenko & Mohammad 2018, Section 5; Tables 5–7, Figures 1–2).

What: for every system, does it score sentences about women (African-Americans) higher or lower than the same
sentences about men (European-Americans)?

Inputs: the scored EEC table (:func:`toolkit.generators.eec.generate` → :func:`toolkit.scoring.score`).

Pairs, as the paper: per template–emotion-word instantiation (144 of them), for gender each of the 10 noun-phrase
pairs plus one pair of averages over the 20 female vs the 20 male first names (11 × 144 = 1,584 pairs); for race
the average over the 20 African-American vs the 20 European-American names (144 pairs). Δ = score(F) − score(M)
(or AA − EA), valence in [0, 1]; |Δ| < 1e-12 counts as 0 (float noise from averaging).

Tests: per system, a paired two-sample t-test (``scipy.stats.ttest_rel``) of the two score columns; Bonferroni
correction (``statsmodels``) over all assessments in the run for that subset — attributes × systems, as the paper's
438 = 2 × 219 — at ``alpha`` = 0.05. Zero-variance differences are decided without the t-test: all Δ = 0 gives
p = 1; a constant non-zero Δ (spread ≤ 1e-12) gives p = 0.

Subsets: ``all``; ``neutral`` (templates 8–11, no emotion word; the paper's Table 6); ``emotion:<e>`` (only the
sentences whose emotion word expresses e: the paper's emotion-matched analysis for the anger, fear, joy and sadness
tasks, here applied to one valence model).

Tasks: every row carries the scored table's ``task`` (what the model's score measures: valence or an emotion
intensity, SemEval-2018 Task 1), as the paper analysed each task's systems separately. Bonferroni still covers every
assessment of the run, all tasks together (the paper's 438 = 2 attributes × 219 systems over five tasks).

Tables 5–7 (:func:`summary`, :func:`paper_table`, :func:`tables`): per task, rows = the three bias groups + "All",
``#systems`` per group, and the average Δ over the a↑–b↓ pairs (Δ > 0) and over the a↓–b↑ pairs (Δ < 0, as a
magnitude, as the paper prints it), each averaged over the group's systems. Table 5: gender, all sentences;
Table 6: gender, sentences without an emotion word (subset ``neutral``); Table 7: race, all sentences.

Outputs (fixed columns): :data:`PAIR_COLUMNS`, :data:`TEST_COLUMNS`, :data:`SUMMARY_COLUMNS`.
Limitations: scores are in [0, 1] (valence, or intensity), so average differences are on that scale (half of the
paper's [-1, 1] sentiment scale for valence; the paper's intensity scores were in [0, 1] too).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from toolkit.cases import with_scores
from toolkit.errors import InputError, SchemaError, unknown

ATTRIBUTES: dict[str, tuple[str, str, str, str]] = {
    # attribute: (group a, group b, short a, short b)
    "gender": ("female", "male", "F", "M"),
    "race": ("African-American", "European", "AA", "EA"),
}
EMOTIONS = ("anger", "fear", "joy", "sadness")
SUBSETS: tuple[str, ...] = ("all", "neutral") + tuple(f"emotion:{e}" for e in EMOTIONS)
NAMES_PAIR = "names (mean)"
PAIR_COLUMNS = ("model", "task", "attribute", "subset", "case_id", "template_id", "emotion", "emotion_word", "pair",
                "score_a", "score_b", "delta")
TEST_COLUMNS = ("model", "task", "attribute", "subset", "group_a", "group_b", "n_pairs", "mean_diff", "t_stat",
                "p_value", "p_bonferroni", "n_tests", "significant", "direction", "n_higher", "n_lower",
                "mean_diff_higher", "mean_diff_lower", "delta_spread", "note")
SUMMARY_COLUMNS = ("table", "task", "attribute", "subset", "direction", "n_systems", "avg_diff_a_higher",
                   "avg_diff_a_lower")
PAPER_TABLES: dict[str, tuple[str, str]] = {"Table 5": ("gender", "all"), "Table 6": ("gender", "neutral"),
                                            "Table 7": ("race", "all")}
ALL_GROUPS = "All"
TASK_ORDER = ("anger", "fear", "joy", "sadness", "valence")  # the paper's order of the task blocks
_TASK_RANK = {t: i for i, t in enumerate(TASK_ORDER)}
_EEC_COLUMNS = ("model", "task", "score", "case_id", "template_id", "gender", "race", "emotion", "emotion_word",
                "np_pair")


def directions(attribute: str) -> tuple[str, str, str]:
    """The paper's three groups for an attribute: not significant, a↑–b↓ significant, a↓–b↑ significant."""
    _, _, a, b = ATTRIBUTES[attribute]
    return f"{a}={b} not significant", f"{a}↑–{b}↓ significant", f"{a}↓–{b}↑ significant"


def _check(scored: pd.DataFrame, attribute: str, subset: str) -> None:
    missing = [c for c in _EEC_COLUMNS if c not in scored.columns]
    if missing:
        raise SchemaError(f"not a scored EEC table: column {missing[0]!r} is missing.",
                          fix="score toolkit.eec.generate() with toolkit.scoring.score().")
    if "variant_id" in scored.columns and scored.duplicated(["model", "variant_id"]).any():
        raise SchemaError("the scored EEC table holds a sentence twice for one model.",
                          fix="score each model once; drop duplicated rows.")
    if attribute not in ATTRIBUTES:
        raise unknown("attribute", attribute, ATTRIBUTES)
    if subset not in SUBSETS:
        raise unknown("subset", subset, SUBSETS)


def _subset(scored: pd.DataFrame, subset: str) -> pd.DataFrame:
    if subset == "all":
        return scored
    if subset == "neutral":
        return scored[scored["emotion"] == ""]
    return scored[scored["emotion"] == subset.split(":", 1)[1]]


def pairs(scored: pd.DataFrame, *, attribute: str, subset: str = "all") -> pd.DataFrame:
    """The paper's sentence pairs with their score difference (columns :data:`PAIR_COLUMNS`)."""
    _check(scored, attribute, subset)
    data = _subset(with_scores(scored, study="eec"), subset)
    keys = ["model", "task", "case_id", "template_id", "emotion", "emotion_word"]
    a, b = ATTRIBUTES[attribute][:2]
    names = data[data["race"] != ""]
    column = "gender" if attribute == "gender" else "race"
    means = names.pivot_table(index=keys, columns=column, values="score", aggfunc="mean").reset_index()
    frames = [means.assign(pair=NAMES_PAIR).rename(columns={a: "score_a", b: "score_b"})]
    if attribute == "gender":
        phrases = data[data["np_pair"] != ""]
        wide = phrases.pivot_table(index=keys + ["np_pair"], columns="gender", values="score").reset_index()
        frames.append(wide.rename(columns={"np_pair": "pair", "female": "score_a", "male": "score_b"}))
    out = pd.concat(frames, ignore_index=True)
    incomplete = out[out[["score_a", "score_b"]].isna().any(axis=1)]
    if len(incomplete):
        first = incomplete.iloc[0]
        raise SchemaError(f"pair {first['pair']!r} of case {first['case_id']!r} lacks a {a} or {b} sentence for "
                          f"model {first['model']!r}.", fix="score the complete EEC (toolkit.eec.generate()).")
    delta = (out["score_a"] - out["score_b"]).to_numpy()
    out["delta"] = np.where(np.abs(delta) < 1e-12, 0.0, delta)
    out["attribute"], out["subset"] = attribute, subset
    return out.loc[:, list(PAIR_COLUMNS)].sort_values(["model", "case_id", "pair"], ignore_index=True)


def _paired_test(delta: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    if np.all(delta == 0):
        return 0.0, 1.0
    if np.ptp(delta) <= 1e-12:  # constant up to float noise: the t statistic is undefined
        return float(np.sign(delta[0]) * np.inf), 0.0
    result = stats.ttest_rel(a, b)
    return float(result.statistic), float(result.pvalue)


def _note(delta: np.ndarray) -> str:
    """Why t/p take a limit value, in words (empty when the test is ordinary)."""
    if np.all(delta == 0):
        return "every Δ is 0: no difference (t = 0, p = 1)"
    if np.ptp(delta) <= 1e-12:
        return "Δ is the same for every pair: t undefined, shown as ±inf with p = 0"
    return ""


def ttests(scored: pd.DataFrame, *, subsets: Sequence[str] = SUBSETS,
           attributes: Sequence[str] = tuple(ATTRIBUTES), alpha: float = 0.05) -> pd.DataFrame:
    """Per system × attribute × subset: the paired t-test, Bonferroni, the paper's group, Δ summaries.

    Columns :data:`TEST_COLUMNS`; ``n_higher``/``n_lower`` count pairs where group a scored higher/lower and
    ``mean_diff_higher``/``mean_diff_lower`` average Δ over them (NaN when there are none); ``delta_spread`` is
    max Δ − min Δ; ``note`` says in words when t and p are limit values (all Δ equal).
    """
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha!r}.", fix="use e.g. alpha=0.05.")
    rows = []
    for subset in subsets:
        block = []
        for attribute in attributes:
            table = pairs(scored, attribute=attribute, subset=subset)
            group_a, group_b = ATTRIBUTES[attribute][:2]
            for (model, task), group in table.groupby(["model", "task"], sort=False):
                delta = group["delta"].to_numpy()
                t_stat, p_value = _paired_test(delta, group["score_a"].to_numpy(), group["score_b"].to_numpy())
                higher, lower = delta[delta > 0], delta[delta < 0]
                block.append({
                    "model": model, "task": task, "attribute": attribute, "subset": subset, "group_a": group_a,
                    "group_b": group_b, "n_pairs": int(len(delta)), "mean_diff": float(delta.mean()),
                    "t_stat": t_stat, "p_value": p_value, "n_higher": int(len(higher)), "n_lower": int(len(lower)),
                    "mean_diff_higher": float(higher.mean()) if len(higher) else np.nan,
                    "mean_diff_lower": float(lower.mean()) if len(lower) else np.nan,
                    "delta_spread": float(delta.max() - delta.min()),
                    "note": _note(delta),
                })
        if not block:
            continue
        reject, corrected, _, _ = multipletests([r["p_value"] for r in block], alpha=alpha, method="bonferroni")
        for row, rej, p_corr in zip(block, reject, corrected):
            same, a_up, a_down = directions(row["attribute"])
            row.update(p_bonferroni=float(p_corr), n_tests=len(block), significant=bool(rej),
                       direction=(a_up if row["mean_diff"] > 0 else a_down) if rej else same)
        rows += block
    return pd.DataFrame(rows, columns=list(TEST_COLUMNS))


def _table_name(attribute: str, subset: str) -> str:
    return next((name for name, key in PAPER_TABLES.items() if key == (attribute, subset)), "")


def _block_rank(task: str, attribute: str, subset: str) -> tuple:
    """Task blocks in the paper's order; within one, Tables 5, 6, 7, then the other subsets."""
    tables = list(PAPER_TABLES.values())
    paper = tables.index((attribute, subset)) if (attribute, subset) in tables else len(tables)
    return (_TASK_RANK.get(task, len(TASK_ORDER)), paper, list(ATTRIBUTES).index(attribute),
            SUBSETS.index(subset) if subset in SUBSETS else len(SUBSETS))


def summary(results: pd.DataFrame) -> pd.DataFrame:
    """Tables 5–7 in tidy form (columns :data:`SUMMARY_COLUMNS`): per task × attribute × subset, a row per bias group
    and one for "All" systems: ``n_systems``, and the average over the group's systems of each system's mean Δ over
    its a↑ pairs (``avg_diff_a_higher``) and of its mean |Δ| over its a↓ pairs (``avg_diff_a_lower``), NaN when no
    system has such pairs. ``table`` names the paper's table for (gender, all), (gender, neutral), (race, all).

    Every one of the three groups is listed, with 0 systems where none falls in it.
    """
    rows = []
    blocks = results.groupby(["task", "attribute", "subset"], sort=False)
    for (task, attribute, subset), block in sorted(blocks, key=lambda kv: _block_rank(*kv[0])):
        for direction in directions(attribute) + (ALL_GROUPS,):
            members = block if direction == ALL_GROUPS else block[block["direction"] == direction]
            higher, lower = members["mean_diff_higher"].dropna(), members["mean_diff_lower"].dropna().abs()
            rows.append({"table": _table_name(attribute, subset), "task": task, "attribute": attribute,
                         "subset": subset, "direction": direction, "n_systems": int(len(members)),
                         "avg_diff_a_higher": float(higher.mean()) if len(higher) else np.nan,
                         "avg_diff_a_lower": float(lower.mean()) if len(lower) else np.nan})
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))


def paper_table(results: pd.DataFrame, *, attribute: str, subset: str | None = None) -> pd.DataFrame:
    """One of the paper's tables: a block per task (rows: task × bias group + "All"), columns ``#systems`` and the
    two average score differences. ``subset`` defaults to ``all`` (or the first subset tested): gender/all is
    Table 5, gender/neutral Table 6, race/all Table 7."""
    if attribute not in ATTRIBUTES:
        raise unknown("attribute", attribute, ATTRIBUTES)
    tested = [s for s in SUBSETS if s in set(results["subset"])]
    subset = subset or ("all" if "all" in tested else (tested or ["all"])[0])
    if subset not in SUBSETS:
        raise unknown("subset", subset, SUBSETS)
    _, _, a, b = ATTRIBUTES[attribute]
    table = summary(results[(results["attribute"] == attribute) & (results["subset"] == subset)])
    table = table.rename(columns={"direction": "bias group", "n_systems": "#systems",
                                  "avg_diff_a_higher": f"avg Δ {a}↑–{b}↓", "avg_diff_a_lower": f"avg Δ {a}↓–{b}↑"})
    table["#systems"] = table["#systems"].astype("Int64")  # counts print as 2, not 2.0
    return table.set_index(["task", "bias group"]).loc[:, ["#systems", f"avg Δ {a}↑–{b}↓", f"avg Δ {a}↓–{b}↑"]]


def tables(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The paper's Tables 5, 6 and 7 (see :func:`paper_table`) — those whose attribute and subset were tested."""
    present = set(zip(results["attribute"], results["subset"]))
    return {name: paper_table(results, attribute=a, subset=s) for name, (a, s) in PAPER_TABLES.items()
            if (a, s) in present}
