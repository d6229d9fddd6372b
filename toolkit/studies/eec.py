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

Outputs (fixed columns): :data:`PAIR_COLUMNS`, :data:`TEST_COLUMNS`, :data:`SUMMARY_COLUMNS`.
Limitations: the paper scored systems on intensity regression; here every model gives valence in [0, 1], so average
differences are on that scale (half of the paper's [-1, 1] sentiment scale).
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
PAIR_COLUMNS = ("model", "attribute", "subset", "case_id", "template_id", "emotion", "emotion_word", "pair",
                "score_a", "score_b", "delta")
TEST_COLUMNS = ("model", "attribute", "subset", "group_a", "group_b", "n_pairs", "mean_diff", "t_stat", "p_value",
                "p_bonferroni", "n_tests", "significant", "direction", "n_higher", "n_lower", "mean_diff_higher",
                "mean_diff_lower", "delta_spread", "note")
SUMMARY_COLUMNS = ("attribute", "subset", "direction", "n_systems", "avg_score_diff")
_EEC_COLUMNS = ("model", "score", "case_id", "template_id", "gender", "race", "emotion", "emotion_word", "np_pair")


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
    keys = ["model", "case_id", "template_id", "emotion", "emotion_word"]
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
            for model, group in table.groupby("model", sort=False):
                delta = group["delta"].to_numpy()
                t_stat, p_value = _paired_test(delta, group["score_a"].to_numpy(), group["score_b"].to_numpy())
                higher, lower = delta[delta > 0], delta[delta < 0]
                block.append({
                    "model": model, "attribute": attribute, "subset": subset, "group_a": group_a,
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


def summary(results: pd.DataFrame) -> pd.DataFrame:
    """Tables 5–7 in tidy form: per attribute × subset × group, the number of systems and their mean |mean Δ|.

    Every one of the three groups is listed, with 0 systems (and NaN difference) where none falls in it.
    """
    rows = []
    for (attribute, subset), block in results.groupby(["attribute", "subset"], sort=False):
        for direction in directions(attribute):
            members = block[block["direction"] == direction]
            rows.append({"attribute": attribute, "subset": subset, "direction": direction,
                         "n_systems": int(len(members)),
                         "avg_score_diff": float(members["mean_diff"].abs().mean()) if len(members) else np.nan})
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))


def paper_table(results: pd.DataFrame, *, attribute: str) -> pd.DataFrame:
    """One attribute's summary laid out as the paper's tables: a row per subset, (group, statistic) columns."""
    if attribute not in ATTRIBUTES:
        raise unknown("attribute", attribute, ATTRIBUTES)
    table = summary(results[results["attribute"] == attribute])
    wide = table.pivot(index="subset", columns="direction", values=["n_systems", "avg_score_diff"])
    wide = wide.swaplevel(axis=1).reindex(columns=[(d, s) for d in directions(attribute)
                                                   for s in ("n_systems", "avg_score_diff")])
    order = [s for s in SUBSETS if s in wide.index]
    wide = wide.reindex(order)
    counts = [c for c in wide.columns if c[1] == "n_systems"]
    wide[counts] = wide[counts].astype("Int64")  # counts print as 2, not 2.0
    return wide
