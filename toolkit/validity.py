"""Whether each system reads the affect of a template corpus's own sentences (the multilingual EECs; the English
EEC): its AUC for telling the sentences of its task's emotion from the others (a valence system: joy against anger,
fear and sadness), with templates as clusters; and the caveat a gap row carries where it does not (:func:`caveats`).

This is the validity check for languages with no labelled test set (German, Japanese and Chinese have no SemEval-2018
data, so no Pearson r): a system whose scores do not separate "she feels happy" from "she feels sad" measures
nothing a gap in it could be a bias of.

The AUC is the Mann–Whitney probability P(score(positive) > score(negative)) + ½ P(tie). Templates and emotion words
are both samples, crossed (each template holds every emotion's words, each word appears in every template), so its
variance is two-way clustered (Cameron, Gelbach & Miller 2011): Obuchowski's (1997) clustered-AUC variance by
template, plus by word, minus by template × word, and never below either one-way variance. Where the release does
not mark the words (Goldfarb-Tarrant's Japanese frames), the frames are the clusters (column ``clustering``). The
interval uses t with (the fewer of templates and words − 1) df, Bonferroni-corrected over every language × system
of the run. Null: AUC = 0.5 (the scores do not rank the task's emotion above the others); verdicts ``separates`` /
``reversed`` (below 0.5, significantly) / ``does not separate``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from toolkit import stats as tkstats
from toolkit.cases import with_scores
from toolkit.errors import InputError, SchemaError

COLUMNS = ("language", "source", "model", "task", "positive", "negative", "auc", "ci_low", "ci_high", "p_value",
           "p_adjusted", "verdict", "n_positive", "n_negative", "n_templates", "n_words", "clustering", "family",
           "reason")
EMOTIONS = ("anger", "fear", "joy", "sadness")
FAMILY = "validity: every language × system of the run (Bonferroni)"


def clustered_auc(*, positive: np.ndarray, negative: np.ndarray, positive_cluster: np.ndarray,
                  negative_cluster: np.ndarray) -> tuple[float, float, int]:
    """The AUC of ``positive`` against ``negative`` scores and its standard error with the given clusters
    (Obuchowski 1997: per-cluster sums of the placement values; the positives' term scaled by the clusters holding
    positives, the negatives' by those holding negatives, the covariance by all); with one observation per cluster
    it is DeLong et al.'s (1988). Returns (auc, se, clusters); se is NaN with fewer than 2 clusters."""
    arrays = []
    for name, value in (("positive", positive), ("negative", negative), ("positive_cluster", positive_cluster),
                        ("negative_cluster", negative_cluster)):
        try:
            array = np.asarray(list(value) if not hasattr(value, "__len__") else value,
                               dtype=float if not name.endswith("cluster") else object)
        except (TypeError, ValueError):
            array = None
        if array is None or array.ndim != 1:
            raise InputError(f"{name} must be a one-dimensional sequence of "
                             f"{'labels' if name.endswith('cluster') else 'numbers'}; got {type(value).__name__}.",
                             fix=f"pass {name} as a list or 1-D array.")
        if name.endswith("cluster") and pd.isna(array).any():
            raise InputError(f"{name} has a missing cluster label (None or NaN).", fix="label every score's cluster.")
        arrays.append(array)
    x, y, labels_x, labels_y = arrays
    labels_x, labels_y = labels_x.astype(str), labels_y.astype(str)
    if not len(x) or not len(y):
        raise InputError(f"an AUC needs positive and negative scores (got {len(x)} and {len(y)}).",
                         fix="give both groups' scores.")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise InputError("an AUC needs finite scores (NaN or infinity found).",
                         fix="drop the texts without a score first (toolkit.cases.with_scores).")
    if len(labels_x) != len(x) or len(labels_y) != len(y):
        raise InputError(f"one cluster label per score: {len(labels_x)} labels for {len(x)} positive scores, "
                         f"{len(labels_y)} for {len(y)} negative ones.", fix="give a label for every score.")
    ys, xs = np.sort(y), np.sort(x)
    # placement values: the share of negatives below each positive (ties ½), of positives above each negative
    v10 = (np.searchsorted(ys, x, "left") + np.searchsorted(ys, x, "right")) / (2.0 * len(y))
    v01 = (2.0 * len(x) - np.searchsorted(xs, y, "left") - np.searchsorted(xs, y, "right")) / (2.0 * len(x))
    auc = float(v10.mean())
    clusters = np.union1d(labels_x, labels_y)
    k = len(clusters)
    s10 = pd.Series(v10).groupby(labels_x).agg(["sum", "size"]).reindex(clusters, fill_value=0)
    s01 = pd.Series(v01).groupby(labels_y).agg(["sum", "size"]).reindex(clusters, fill_value=0)
    d10 = s10["sum"].to_numpy() - s10["size"].to_numpy() * auc
    d01 = s01["sum"].to_numpy() - s01["size"].to_numpy() * auc
    k10, k01 = int((s10["size"] > 0).sum()), int((s01["size"] > 0).sum())
    if min(k, k10, k01) < 2:
        return auc, float("nan"), k
    m, n = len(x), len(y)
    variance = (k10 / (k10 - 1) * (d10 @ d10) / m ** 2 + k01 / (k01 - 1) * (d01 @ d01) / n ** 2
                + k / (k - 1) * 2 * (d10 @ d01) / (m * n))
    return auc, float(np.sqrt(max(variance, 0.0))), k


def _two_way(pos: pd.DataFrame, neg: pd.DataFrame) -> dict:
    """The AUC, its two-way (template, word) clustered standard error and df; by frame where no word is marked."""
    def one(labels_pos, labels_neg):
        return clustered_auc(positive=pos["score"].to_numpy(), negative=neg["score"].to_numpy(),
                             positive_cluster=labels_pos, negative_cluster=labels_neg)

    def words(frame: pd.DataFrame) -> np.ndarray:
        frames = "frame:" + frame["template_id"].astype(str)
        return np.where(frame["emotion_word"].ne(""), _word_clusters(frame), frames)

    pos_t, neg_t = pos["template_id"].astype(str).to_numpy(), neg["template_id"].astype(str).to_numpy()
    auc, se_t, k_t = one(pos_t, neg_t)
    if not (pos["emotion_word"].ne("").any() or neg["emotion_word"].ne("").any()):
        return {"auc": auc, "se": se_t, "df": k_t - 1, "clustering": "frames (no emotion words marked)"}
    pos_w, neg_w = words(pos), words(neg)
    _, se_w, k_w = one(pos_w, neg_w)
    _, se_tw, _ = one(np.char.add(np.char.add(pos_t, "|"), pos_w.astype(str)),
                      np.char.add(np.char.add(neg_t, "|"), neg_w.astype(str)))
    variance = max(se_t ** 2 + se_w ** 2 - se_tw ** 2, se_t ** 2, se_w ** 2)
    return {"auc": auc, "se": float(np.sqrt(variance)), "df": min(k_t, k_w) - 1, "clustering": "templates × words"}


def _perfect_p(pos: pd.DataFrame, neg: pd.DataFrame) -> tuple[float, str]:
    """The two-sided p of a perfect separation, with no variance to test it by: the largest of the exact bounds of
    each clustering (templates; emotion words, or frames where none is marked). Clusters that each hold one class
    (words nested in their emotion): the labels permuted over the K clusters, 2 / C(K, k) with k holding the positive
    class. Clusters that hold both (templates crossed with the emotions): within each, every placement of the classes
    is equally likely, so all G such clusters separate with probability at most 2^(−G); two-sided 2^(1 − G).
    Returns the p and how it was read."""
    from math import comb

    def bound(labels_pos: np.ndarray, labels_neg: np.ndarray, kind: str) -> tuple[float, str]:
        with_pos, with_neg = set(labels_pos), set(labels_neg)
        both = with_pos & with_neg
        if not both:
            k, total = len(with_pos), len(with_pos | with_neg)
            return 2.0 / comb(total, k), f"{kind}: {k} of {total} clusters hold the class, 2/C({total}, {k})"
        return 2.0 ** (1 - len(both)), f"{kind}: {len(both)} clusters hold both classes, 2^(1 − {len(both)})"

    pos_t, neg_t = pos["template_id"].astype(str).to_numpy(), neg["template_id"].astype(str).to_numpy()
    found = [bound(pos_t, neg_t, "templates")]
    if pos["emotion_word"].ne("").any() or neg["emotion_word"].ne("").any():
        found.append(bound(_word_clusters(pos).to_numpy(), _word_clusters(neg).to_numpy(), "words"))
    p, how = max(found)
    return min(1.0, p), how


def _classes(task: str) -> tuple[str, tuple[str, ...]]:
    if task == "valence":
        return "joy", ("anger", "fear", "sadness")
    return task, tuple(e for e in EMOTIONS if e != task)


_NEED = ("language", "source", "model", "task", "template_id", "emotion", "emotion_word", "text", "score")


def _word_clusters(frame: pd.DataFrame) -> pd.Series:
    return frame["emotion"] + ":" + frame["emotion_word"]


def validity(scored: pd.DataFrame, *, alpha: float = tkstats.ALPHA) -> pd.DataFrame:
    """Per language × source × model × task of ``scored`` (the study's scored table): the clustered AUC, its
    Bonferroni interval over the rows, p, verdict (:data:`COLUMNS`). Each distinct text counts once. A system that
    separates perfectly (every placement 0 or 1: no variance) gets its point as the interval and the exact p bound of
    :func:`_perfect_p`, said in ``reason``."""
    if missing := [c for c in _NEED if c not in scored.columns]:
        raise SchemaError(f"not a scored multilingual table: missing {missing}.",
                          fix="score toolkit.studies.multilingual.corpora.load() with toolkit.scoring.score().")
    data = with_scores(scored, study="multilingual").assign(emotion_word=lambda d: d["emotion_word"].fillna(""))
    rows = []
    for (language, source, model, task), block in data.groupby(["language", "source", "model", "task"], sort=False):
        positive, negative = _classes(task)
        texts = block[block["emotion"].isin(EMOTIONS)].drop_duplicates(["text", "template_id"])
        pos, neg = texts[texts["emotion"] == positive], texts[texts["emotion"].isin(negative)]
        marked = texts[texts["emotion_word"].ne("")]
        row = {"language": language, "source": source, "model": model, "task": task, "positive": positive,
               "negative": ", ".join(negative), "n_positive": len(pos), "n_negative": len(neg),
               "n_templates": int(texts["template_id"].nunique()), "n_words": int(_word_clusters(marked).nunique()),
               "clustering": "", "family": FAMILY, "reason": "", "perfect": False}
        if task not in ("valence",) + EMOTIONS:
            row["reason"] = f"task {task!r} has no emotion of the corpus to separate"
        elif pos.empty or neg.empty:
            row["reason"] = f"no {positive if pos.empty else 'other-emotion'} sentences in {language}/{source}"
        else:
            row.update(_two_way(pos, neg))
            if not np.isfinite(row["se"]):
                row["reason"] = (f"no clustered variance: {row['n_templates']} template(s), "
                                 f"{pos['template_id'].nunique()} with {positive} sentences; "
                                 f"{row['n_words']} emotion word(s)")
            elif row["se"] <= 0 and row["auc"] in (0.0, 1.0):
                row["perfect"] = True
                row["p_perfect"], how = _perfect_p(pos, neg)
                row["reason"] = (f"perfect separation: every placement is 0 or 1, so no variance (the interval the "
                                 f"point; p the exact bound of the most conservative clustering, {how})")
            elif row["se"] <= 0:
                row["reason"] = "every placement is equal (identical scores in every template)"
        rows.append(row)
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=COLUMNS)
    for column in ("auc", "se", "df"):
        if column not in out:
            out[column] = np.nan
    perfect = out["perfect"].astype(bool)
    tested = out["reason"].eq("") & out["se"].gt(0)
    z = (out["auc"] - 0.5) / out["se"]
    p = np.where(tested, 2 * sps.t.sf(np.abs(z.where(tested, 0.0)), out["df"].where(tested, 1.0)), np.nan)
    # perfect separation: the exact bound of _perfect_p (4 texts in 2 templates: 0.5, not 0)
    out["p_value"] = np.where(perfect, out["p_perfect"] if "p_perfect" in out else np.nan, p)
    out["p_adjusted"] = tkstats.adjust(out["p_value"].to_numpy(), method="bonferroni")
    level = 1 - alpha / max(int((tested | perfect).sum()), 1) / 2
    half = sps.t.ppf(level, out["df"].where(tested, 1.0)) * out["se"]
    out["ci_low"] = np.where(tested, np.clip(out["auc"] - half, 0, 1), np.where(perfect, out["auc"], np.nan))
    out["ci_high"] = np.where(tested, np.clip(out["auc"] + half, 0, 1), np.where(perfect, out["auc"], np.nan))
    significant = out["p_adjusted"] < alpha
    out["verdict"] = np.select([~(tested | perfect), significant & (out["auc"] > 0.5),
                                significant & (out["auc"] < 0.5)], ["no test", "separates", "reversed"],
                               "does not separate")
    return out.loc[:, list(COLUMNS)]


WEAK = ("does not separate", "reversed")
"""The :func:`validity` verdicts after which a row's ``reason`` says the system may not read the sentences' affect."""
KEYS = ("language", "source", "model", "task")


def caveats(rows: pd.DataFrame, checks: pd.DataFrame | None) -> pd.Series:
    """Each of ``rows``' ``reason`` (by :data:`KEYS`, row order kept), with a caveat where its system does not read
    the affect of those sentences (:data:`WEAK`): a gap, or no gap, in such a system may measure nothing. "no test"
    (nothing to separate, no variance) says nothing of the system, nor does a perfect separation (AUC 1) too small
    a design cannot prove."""
    import math

    keys = list(KEYS)
    needed = ("reason",) if checks is None or checks.empty else ("reason", *keys)
    if missing := [c for c in needed if c not in rows.columns]:
        raise SchemaError(f"cannot add validity caveats: the rows lack {', '.join(missing)}.",
                          fix=f"pass a statistics frame with {', '.join(needed)} (an EEC run: language 'en', "
                              "source 'eec').")
    reason = rows["reason"].fillna("").astype(str)
    if checks is None or checks.empty:
        return reason
    unique = checks.assign(**{k: checks[k].astype(str) for k in keys}).drop_duplicates(keys)
    found = rows[keys].astype(str).merge(unique, on=keys, how="left")  # row order kept

    def number(value: object) -> str:
        return f"{value:.2f}" if isinstance(value, (int, float)) and math.isfinite(value) else "n/a"

    out = []
    for said, v, auc, low, high in zip(reason, found["verdict"], found["auc"], found["ci_low"], found["ci_high"]):
        # a perfect separation (AUC 1) whose exact p cannot pass the family (the EEC's 7 templates: at best 2^-6,
        # times 10 systems) reads "does not separate" in the table; it reads the affect of every sentence
        if v in WEAK and not (isinstance(auc, (int, float)) and auc >= 1.0):
            caveat = (f"validity: {v} (AUC {number(auc)} [{number(low)}, {number(high)}]): the system may not read "
                      "these sentences' affect, so this row may measure nothing")
            said = f"{said}; {caveat}" if said else caveat
        out.append(said)
    return pd.Series(out, index=rows.index, dtype=object)
