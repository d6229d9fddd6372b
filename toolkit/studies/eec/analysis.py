"""EEC study (Kiritchenko & Mohammad 2018, Section 5; Tables 5–7, Figures 1–2).

What: for every system, does it score sentences about women (African-Americans) higher or lower than the same
sentences about men (European-Americans)?

Inputs: the scored EEC table (:func:`toolkit.studies.eec.generator.generate` → :func:`toolkit.scoring.score`).

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

Beyond the paper (:mod:`toolkit.stats`), every row of :func:`ttests` also carries, beside the paper's
columns (unchanged):

- names and templates as samples (:func:`intervals`): a templates × name-units array of Δ (a cell averages the
  template's emotion words; :func:`cells`). Gender: 11 units, the 10 noun-phrase pairs and the names-mean pair (their
  mean per case is the paper's mean Δ). Race: 20 units, the i-th African-American name minus the i-th European name
  of the same gender in list order (their mean per case is the paper's AA-mean − EA-mean). Pairing by order is
  harmless: the mean is linear, so any pairing gives the same estimate, and the names are independent draws, so a
  unit's spread is the spread of two independent name effects whichever names meet. From that array
  (:func:`toolkit.stats.two_way_bootstrap`, ``method``: ``satterthwaite`` by default):

  - ``estimate``: the paper's quantity, the mean Δ over its sentence pairs (= ``mean_diff``): templates weighted
    by their sentence pairs (``weighting="sentences"``; 20 per emotion template, 1 per neutral one), names and
    templates as samples. ``weighting="templates"`` weighs the 11 templates equally (the mean over templates).
  - ``se_two_way``, ``df_two_way``: the two-way random-effects standard error and its Satterthwaite df; interval,
    p and equivalence p all come from that one t (``ci_method``; ``bootstrap-t``/``percentile`` on request, whose
    p is floored at 2/(n_boot + 1)).
  - ``p_two_way`` (two-sided, Δ = 0) and ``p_equivalence`` (TOST, |Δ| < ``margin``), each corrected
    (``correction``: bonferroni, holm, fdr_bh) over the same family — every assessment of the subset in the run
    (``family``, ``n_family``), or ``family_size`` tests when the run is part of a larger family (the paper's
    438): ``p_adjusted``, ``p_equivalence_adjusted``; ``significant_two_way`` = ``p_adjusted`` < ``alpha``.
  - ``ci_low``/``ci_high``: simultaneous over the family — the ``1 − alpha / n_family`` interval (``ci_level``),
    Bonferroni's, which excludes 0 exactly when the Bonferroni ``p_adjusted`` < ``alpha``;
    ``ci_low_unadjusted``/``ci_high_unadjusted``: the ``1 − alpha`` interval of the same t.
  - ``verdict`` (:func:`toolkit.stats.verdict`): ``a higher`` / ``b higher`` (difference only), ``different but
    within ±m`` (difference and equivalence), ``equivalent within ±m`` (equivalence only), ``inconclusive``
    (neither), ``identical scores (no test needed)`` (every Δ exactly 0). Sparse sensitivity — some name units
    never move the score at all while others do (``n_units_unmoved``, a lexicon that knows a few names) — claims no
    equivalence: the names are samples, and a population where a few names carry a large shift gives such samples.
  - ``min_equivalence_margin``: the smallest margin at which the data would read equivalent in this family (the
    largest |bound| of the ``1 − 2·alpha / n_family`` interval; NaN for identical scores and sparse rows).
  - ``effect_size``: Westfall, Kenny & Judd's (2014) d for the crossed array, ``estimate`` / √(σ²_template +
    σ²_name + σ²_residual) (NaN without variance). ``t_ci_low``/``t_ci_high``: the paper's frame, the paired t
    over its pairs (:func:`toolkit.stats.paired_t`).
  - ``share_template``/``share_name``/``share_residual``: :func:`toolkit.stats.variance_components` of the array.

  Measured in the real design (``benchmarks/eec_calibration.txt``, ``docs/statistics.md``): type I error
  4.3-6.2 % at one test, family-wise 0-6.7 % over 438; coverage 93-97 %; limits in the docs.
- a null baseline (placebo swaps, :func:`null_baseline`): ``n_null`` seeded random splits of ONE group's 20 names
  into halves of 10 (both groups, pooled), each giving the names-mean Δ between the halves as the paper's
  names-mean Δ is computed. The split is stratified by the other attribute, as the observed contrast is balanced on
  it (race: 5 female + 5 male names per half; gender: 5 African-American + 5 European per half), so an effect of the
  other attribute does not widen the null; and each half-difference is scaled by 1/√2, so it has the spread of a
  20-vs-20 difference, the observed contrast's. ``names_diff`` is the observed names-only Δ (group a's names −
  group b's, averaged over the cases); ``null_low``/``null_high`` the ``alpha``/2 and 1 − ``alpha``/2 quantiles of the
  null Δ; ``null_p`` the share of null |Δ| ≥ the observed |Δ|; ``excess`` the observed |Δ| − the null's median |Δ|.
  A model that moves each name's score by its own amount, with no group effect, reads inside the null.

:func:`clustered_vs_paper` lists the systems whose paper-style conclusion (``significant``) differs from
``significant_two_way``.

Outputs (fixed columns): :data:`PAIR_COLUMNS`, :data:`TEST_COLUMNS` (:data:`PAPER_TEST_COLUMNS` +
:data:`STAT_TEST_COLUMNS`), :data:`SUMMARY_COLUMNS`, :data:`CELL_COLUMNS`, :data:`CHANGE_COLUMNS`.
Limitations: scores are in [0, 1] (valence, or intensity), so average differences are on that scale (half of the
paper's [-1, 1] sentiment scale for valence; the paper's intensity scores were in [0, 1] too).
"""
from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from toolkit import checks, verdicts
from toolkit import stats as tkstats
from toolkit.cases import with_scores
from toolkit.errors import InputError, SchemaError, unknown
from toolkit.resources import load_json

ATTRIBUTES: dict[str, tuple[str, str, str, str]] = {
    # attribute: (group a, group b, short a, short b)
    "gender": ("female", "male", "F", "M"),
    "race": ("African-American", "European", "AA", "EA"),
}
VERDICT_GROUPS: dict[str, verdicts.Groups] = {
    attribute: verdicts.Groups(a, b, short_a, short_b, f"higher scores for {a} than for {b} sentences",
                               f"higher scores for {b} than for {a} sentences")
    for attribute, (a, b, short_a, short_b) in ATTRIBUTES.items()}
"""The verdict's two groups per attribute (a = the first, as Δ = a − b), as tables, captions and legends name them."""
EMOTIONS = ("anger", "fear", "joy", "sadness")
SUBSETS: tuple[str, ...] = ("all", "neutral") + tuple(f"emotion:{e}" for e in EMOTIONS)
NAMES_PAIR = "names (mean)"
PAIR_COLUMNS = ("model", "task", "attribute", "subset", "case_id", "template_id", "emotion", "emotion_word", "pair",
                "score_a", "score_b", "delta")
PAPER_TEST_COLUMNS = ("model", "task", "attribute", "subset", "group_a", "group_b", "n_pairs", "mean_diff",
                      "t_stat", "p_value", "p_bonferroni", "n_tests", "significant", "direction", "n_higher",
                      "n_lower", "mean_diff_higher", "mean_diff_lower", "delta_spread", "note")
STAT_TEST_COLUMNS = tkstats.STAT_COLUMNS + (
    "ci_level", "ci_low_unadjusted", "ci_high_unadjusted", "t_ci_low", "t_ci_high", "p_two_way", "se_two_way",
    "df_two_way", "ci_method", "significant_two_way", "p_equivalence", "p_equivalence_adjusted",
    "min_equivalence_margin", "weighting", "n_templates", "n_units", "n_units_unmoved", "family", "n_family",
    "correction", "margin", "names_diff", "null_low", "null_high", "null_p", "excess", "share_template", "share_name", "share_residual")
TEST_COLUMNS = PAPER_TEST_COLUMNS + STAT_TEST_COLUMNS
CELL_COLUMNS = ("model", "task", "attribute", "subset", "template_id", "unit", "delta", "n_pairs")
CHANGE_COLUMNS = ("model", "task", "attribute", "subset", "mean_diff", "p_bonferroni", "significant", "estimate",
                  "ci_low", "ci_high", "p_adjusted", "significant_two_way", "verdict", "share_template",
                  "share_name", "change")
N_NULL = 200
WEIGHTINGS = ("sentences", "templates")
"""How the two-way ``estimate`` weighs the templates: by their number of sentence pairs (the paper's mean Δ) or
equally (the mean over templates)."""
SUMMARY_COLUMNS = ("table", "task", "attribute", "subset", "direction", "n_systems", "avg_diff_a_higher",
                   "avg_diff_a_lower", "avg_diff_a_higher_low", "avg_diff_a_higher_high", "avg_diff_a_lower_low",
                   "avg_diff_a_lower_high")
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


def sparse_sensitivity(row: Mapping) -> bool:
    """Whether a tests row's equivalence is held back by the sparse-sensitivity rule: some names never move the
    score while others do (``0 < n_units_unmoved < n_units``), so no equivalence is claimed, whatever the interval."""
    unmoved, units = row.get("n_units_unmoved"), row.get("n_units")
    return (not str(row.get("verdict", "")).startswith("identical") and pd.notna(unmoved) and pd.notna(units)
            and 0 < unmoved < units)


def _check(scored: pd.DataFrame, attribute: str, subset: str) -> None:
    missing = [c for c in _EEC_COLUMNS if c not in scored.columns]
    if missing:
        raise SchemaError(f"not a scored EEC table: column {missing[0]!r} is missing.",
                          fix="score toolkit.studies.eec.generator() with toolkit.scoring.score().")
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


_REUSED: contextvars.ContextVar[dict | None] = contextvars.ContextVar("toolkit_eec_reused", default=None)


@contextlib.contextmanager
def reusing() -> Iterator[None]:
    """Within this block, :func:`pairs` and the name scores of one scored table are computed once per attribute and
    subset and shared (a study run reads them seven times: the paper's tests, the cells, the two-way intervals, the
    null and the result's pairs). The table must not change inside the block."""
    if _REUSED.get() is not None:
        yield
        return
    token = _REUSED.set({})
    try:
        yield
    finally:
        _REUSED.reset(token)


def _reused(kind: str, scored: pd.DataFrame, *key, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """``compute()``, remembered inside :func:`reusing` per ``kind``, table and ``key`` (callers do not change it)."""
    memo = _REUSED.get()
    if memo is None:
        return compute()
    slot = (kind, id(scored), *key)
    if slot not in memo:
        memo[slot] = (scored, compute())  # the table kept alive, so its id is not reused within the block
    return memo[slot][1]


def pairs(scored: pd.DataFrame, *, attribute: str, subset: str = "all") -> pd.DataFrame:
    """The paper's sentence pairs with their score difference (columns :data:`PAIR_COLUMNS`)."""
    _check(scored, attribute, subset)
    return _reused("pairs", scored, attribute, subset, compute=lambda: _pairs(scored, attribute, subset))


def _pairs(scored: pd.DataFrame, attribute: str, subset: str) -> pd.DataFrame:
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
                          f"model {first['model']!r}.", fix="score the complete EEC (toolkit.studies.eec.generator()).")
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
        return ("Δ is the same for every pair (one constant shift, no variance): the paper's t is undefined, shown "
                "as ±inf with p = 0; the two-way interval reads names and templates as samples and is a point only "
                "where ci_method says so")
    return ""


def ttests(scored: pd.DataFrame, *, subsets: Sequence[str] = SUBSETS,
           attributes: Sequence[str] = tuple(ATTRIBUTES), alpha: float = 0.05, correction: str = "bonferroni",
           margin: float = tkstats.MARGIN, n_boot: int = tkstats.N_BOOT, seed: int = 0,
           n_null: int = N_NULL, method: str = "satterthwaite", weighting: str = "sentences",
           family_size: int | None = None) -> pd.DataFrame:
    """Per system × attribute × subset: the paired t-test, Bonferroni, the paper's group, Δ summaries, and the
    intervals, corrected p, verdict, null baseline and variance shares of :func:`intervals`.

    Columns :data:`TEST_COLUMNS`; ``n_higher``/``n_lower`` count pairs where group a scored higher/lower and
    ``mean_diff_higher``/``mean_diff_lower`` average Δ over them (NaN when there are none); ``delta_spread`` is
    max Δ − min Δ; ``note`` says in words when t and p are limit values (all Δ equal). The paper's columns
    (:data:`PAPER_TEST_COLUMNS`) do not depend on ``correction``, ``margin``, ``n_boot``, ``seed``, ``n_null``,
    ``method``, ``weighting`` or ``family_size`` (see :func:`intervals`).
    """
    with reusing():
        paper = _paper_tests(scored, subsets=subsets, attributes=attributes, alpha=alpha)
        extra = intervals(scored, subsets=subsets, attributes=attributes, alpha=alpha, correction=correction,
                          margin=margin, n_boot=n_boot, seed=seed, n_null=n_null, method=method,
                          weighting=weighting, family_size=family_size)
    keys = ["model", "task", "attribute", "subset"]
    return paper.merge(extra, on=keys, how="left", validate="one_to_one").loc[:, list(TEST_COLUMNS)]


def _paper_tests(scored: pd.DataFrame, *, subsets: Sequence[str], attributes: Sequence[str],
                 alpha: float) -> pd.DataFrame:
    """The paper's columns (:data:`PAPER_TEST_COLUMNS`) of :func:`ttests`."""
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
    return pd.DataFrame(rows, columns=list(PAPER_TEST_COLUMNS))


def name_groups(*, attribute: str) -> tuple[list[str], list[str]]:
    """Group a's and group b's first names, in the release's list order (female/male; AA/EA, female then male)."""
    names = load_json("eec")["names"]
    if attribute == "gender":
        return ([n for race in names.values() for n in race["female"]],
                [n for race in names.values() for n in race["male"]])
    a, b = (names[ATTRIBUTES["race"][i]] for i in (0, 1))
    return a["female"] + a["male"], b["female"] + b["male"]


def _name_scores(scored: pd.DataFrame, subset: str) -> pd.DataFrame:
    """The name sentences' scores, wide: a row per model × task × case (with its template), a column per name."""
    return _reused("names", scored, subset, compute=lambda: _name_scores_wide(scored, subset))


def _name_scores_wide(scored: pd.DataFrame, subset: str) -> pd.DataFrame:
    data = _subset(with_scores(scored, study="eec"), subset)
    data = data[data["race"] != ""]
    return data.pivot_table(index=["model", "task", "case_id", "template_id"], columns="person", values="score",
                            aggfunc="mean").reset_index()


def _race_units(wide: pd.DataFrame) -> pd.DataFrame:
    """Race's 20 name units per case: the i-th AA name minus the i-th EA name of the same gender, in list order."""
    aa, ea = name_groups(attribute="race")
    frames = [wide[["model", "task", "case_id", "template_id"]].assign(unit=f"{a}−{e}", delta=wide[a] - wide[e])
              for a, e in zip(aa, ea)]
    return pd.concat(frames, ignore_index=True)


def cells(scored: pd.DataFrame, *, attribute: str, subset: str = "all") -> pd.DataFrame:
    """The templates × name-units array of Δ, tidy (columns :data:`CELL_COLUMNS`): a row per model × task ×
    template × unit, Δ averaged over the template's emotion words (``n_pairs`` of them). Units: gender, the 10
    noun-phrase pairs and the names-mean pair; race, 20 AA−EA name pairs matched by gender and list order (see
    the module docstring)."""
    _check(scored, attribute, subset)
    if attribute == "gender":
        long = pairs(scored, attribute=attribute, subset=subset).rename(columns={"pair": "unit"})
    else:
        long = _race_units(_name_scores(scored, subset))
    out = long.groupby(["model", "task", "template_id", "unit"], sort=False, as_index=False)["delta"].agg(
        delta="mean", n_pairs="size")
    out["attribute"], out["subset"] = attribute, subset
    return out.loc[:, list(CELL_COLUMNS)]


def null_baseline(scored: pd.DataFrame, *, attribute: str, subset: str = "all", n_null: int = N_NULL,
                  seed: int = 0, alpha: float = 0.05) -> pd.DataFrame:
    """Placebo swaps: per model × task, the names-mean Δ between two random halves of ONE group's names (``n_null``
    seeded splits of each group, pooled) against the observed names-only Δ (group a's names − group b's). Columns
    ``model, task, names_diff, null_low, null_high, null_p, excess`` (see the module docstring)."""
    n_null, seed, alpha = checks.n_boot(n_null, name="n_null"), checks.seed(seed), checks.alpha(alpha)
    _check(scored, attribute, subset)
    names_a, names_b = name_groups(attribute=attribute)
    rng = np.random.default_rng(seed)
    splits = [(group, _stratified_splits(rng, n_null=n_null, size=len(group))) for group in (names_a, names_b)]
    rows = []
    wide = _name_scores(scored, subset)
    for (model, task), block in wide.groupby(["model", "task"], sort=False):
        means = block[names_a + names_b].mean()  # per name over the cases: linear, so Δ of means = mean of Δ
        observed = float(means[names_a].mean() - means[names_b].mean())
        null = np.concatenate([_half_differences(means[group].to_numpy(), orders) for group, orders in splits])
        null = null / np.sqrt(2.0)  # 10 vs 10 → the spread of 20 vs 20
        rows.append({"model": model, "task": task, "names_diff": observed,
                     "null_low": float(np.quantile(null, alpha / 2)),
                     "null_high": float(np.quantile(null, 1 - alpha / 2)),
                     "null_p": float(np.mean(np.abs(null) >= abs(observed) - 1e-12)),
                     "excess": abs(observed) - float(np.median(np.abs(null)))})
    return pd.DataFrame(rows, columns=["model", "task", "names_diff", "null_low", "null_high", "null_p", "excess"])


def _stratified_splits(rng: np.random.Generator, *, n_null: int, size: int) -> np.ndarray:
    """``n_null`` orders of ``size`` names listed as two strata of equal size (the release lists each group's names
    by the other attribute: female then male, or African-American then European): the first half of each order
    holds half of each stratum."""
    stratum = size // 2
    orders = []
    for _ in range(n_null):
        first, second = rng.permutation(stratum), stratum + rng.permutation(size - stratum)
        cut_a, cut_b = stratum // 2, (size - stratum) // 2
        orders.append(np.concatenate([first[:cut_a], second[:cut_b], first[cut_a:], second[cut_b:]]))
    return np.array(orders)


def _half_differences(values: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """Per row of ``orders`` (permutations): the mean of the first half of ``values`` minus that of the second."""
    half = values.shape[0] // 2
    return values[orders[:, :half]].mean(axis=1) - values[orders[:, half:]].mean(axis=1)


def _two_way(matrix: pd.DataFrame, weights: np.ndarray | None, *, alpha: float, n_boot: int, seed: int,
             method: str, margin: float) -> dict:
    """The two-way estimate of one templates × units array (:func:`toolkit.stats.crossed_estimate`)."""
    return tkstats.crossed_estimate(matrix, weights, alpha=alpha, n_boot=n_boot, seed=seed, method=method,
                                    margin=margin)


def _frame_rows(scored: pd.DataFrame, *, attribute: str, subset: str, alpha: float, n_boot: int, seed: int,
                n_null: int, method: str, weighting: str, margin: float) -> list[dict]:
    """One subset × attribute: per model × task, the two-way estimate, the paper-frame t interval, the null
    baseline (uncorrected, no verdict yet)."""
    grid = cells(scored, attribute=attribute, subset=subset)
    paper_pairs = pairs(scored, attribute=attribute, subset=subset)
    null = null_baseline(scored, attribute=attribute, subset=subset, n_null=n_null, seed=seed, alpha=alpha)
    null = null.set_index(["model", "task"])
    keys = ["model", "task", "template_id"]
    wide = grid.pivot_table(index=keys, columns="unit", values="delta", aggfunc="mean", observed=True)
    counts = grid.groupby(keys, sort=False)["n_pairs"].max().to_dict()
    matrices = {key: block.droplevel([0, 1]) for key, block in wide.groupby(level=[0, 1], sort=False)}
    deltas = {key: block.to_numpy() for key, block in paper_pairs.groupby(["model", "task"], sort=False)["delta"]}
    rows = []
    for model, task in dict.fromkeys(zip(grid["model"], grid["task"])):
        matrix = matrices[(model, task)]
        weights = None
        if weighting == "sentences":  # a template weighs its sentence pairs: the estimate is the paper's mean Δ
            weights = np.array([counts[(model, task, t)] for t in matrix.index], dtype=float)
        frame = tkstats.paired_t(deltas[(model, task)], alpha=alpha)
        rows.append({"model": model, "task": task, "attribute": attribute, "subset": subset, "weighting": weighting,
                     **_two_way(matrix, weights, alpha=alpha, n_boot=n_boot, seed=seed, method=method,
                                margin=margin),
                     "t_ci_low": frame["ci_low"], "t_ci_high": frame["ci_high"],
                     **null.loc[(model, task)].to_dict()})
    return rows


def _family(subset: str, block: list[dict]) -> str:
    n_attributes = len({r["attribute"] for r in block})
    n_systems = len({(r["model"], r["task"]) for r in block})
    return (f"eec:{subset}: {n_attributes} attribute{'s' * (n_attributes != 1)} × {n_systems} "
            f"system{'s' * (n_systems != 1)} = {len(block)} test{'s' * (len(block) != 1)}")


def _decide(block: list[dict], *, subset: str, alpha: float, correction: str, margin: float, n_boot: int,
            method: str, seed: int, family_size: int | None) -> None:
    """Decide one subset's family (:func:`toolkit.stats.decide_family`), named as the EEC names it."""
    tkstats.decide_family(block, family=_family(subset, block), label=f"EEC {subset}", alpha=alpha,
                          correction=correction, margin=margin, n_boot=n_boot, method=method, seed=seed,
                          family_size=family_size)


def intervals(scored: pd.DataFrame, *, subsets: Sequence[str] = SUBSETS,
              attributes: Sequence[str] = tuple(ATTRIBUTES), alpha: float = 0.05, correction: str = "bonferroni",
              margin: float = tkstats.MARGIN, n_boot: int = tkstats.N_BOOT, seed: int = 0,
              n_null: int = N_NULL, method: str = "satterthwaite", weighting: str = "sentences",
              family_size: int | None = None) -> pd.DataFrame:
    """Per system × attribute × subset, names and templates as samples: columns ``model, task, attribute,
    subset`` + :data:`STAT_TEST_COLUMNS` (see the module docstring). ``correction`` (bonferroni, holm, fdr_bh)
    runs over the paper's family: every assessment of a subset in the run, or ``family_size`` tests when the run
    is part of a larger family (the paper's 438); ``margin`` is the equivalence margin; ``method`` the two-way
    reference (:data:`toolkit.stats.BOOTSTRAP_METHODS`; ``n_boot``/``seed`` drive the bootstrap ones);
    ``weighting`` (:data:`WEIGHTINGS`) how templates weigh in the estimate; ``n_null``/``seed`` the placebo
    splits."""
    alpha, margin, n_boot = checks.statistics(correction=correction, margin=margin, alpha=alpha, n_boot=n_boot,
                                              min_boot=100)
    n_null = checks.count(n_null, name="n_null", minimum=10)
    if method not in tkstats.BOOTSTRAP_METHODS:
        raise unknown("two-way method", method, tkstats.BOOTSTRAP_METHODS)
    if weighting not in WEIGHTINGS:
        raise unknown("weighting", weighting, WEIGHTINGS)
    if family_size is not None:
        family_size = checks.count(family_size, name="family_size", minimum=1)
    rows = []
    for subset in subsets:
        block = [r for attribute in attributes
                 for r in _frame_rows(scored, attribute=attribute, subset=subset, alpha=alpha, n_boot=int(n_boot),
                                      seed=seed, n_null=int(n_null), method=method, weighting=weighting,
                                      margin=margin)]
        if block:
            _decide(block, subset=subset, alpha=alpha, correction=correction, margin=margin, n_boot=int(n_boot),
                    method=method, seed=seed, family_size=family_size)
        rows += block
    return pd.DataFrame(rows, columns=["model", "task", "attribute", "subset", *STAT_TEST_COLUMNS])


def clustered_vs_paper(tests: pd.DataFrame) -> pd.DataFrame:
    """The systems whose conclusion changes when names and templates are samples: rows of :func:`ttests` where the
    paper's Bonferroni call (``significant``) differs from ``significant_two_way``. Columns :data:`CHANGE_COLUMNS`;
    ``change`` says which way in words."""
    changed = tests[tests["significant"].astype(bool) != tests["significant_two_way"].astype(bool)].copy()
    changed["change"] = np.where(changed["significant"].astype(bool),
                                 "significant over sentences; not with names and templates as samples",
                                 "significant only with names and templates as samples")
    return changed.loc[:, list(CHANGE_COLUMNS)].reset_index(drop=True)


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

    Every one of the three groups is listed, with 0 systems where none falls in it. ``*_low``/``*_high``: a 95 %
    t interval over the group's systems (mean ± t(n − 1)·sd/√n of the per-system averages; the systems as a sample
    of systems, each system's own sampling error included in their spread); NaN with fewer than 2 systems.
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
                         "avg_diff_a_lower": float(lower.mean()) if len(lower) else np.nan,
                         **_systems_interval(higher, "avg_diff_a_higher"),
                         **_systems_interval(lower, "avg_diff_a_lower")})
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))


def _systems_interval(values: pd.Series, name: str, *, level: float = 0.95) -> dict[str, float]:
    """``{name}_low``/``{name}_high``: the t interval of the mean of ``values`` over systems (NaN below 2), its
    lower end held at 0: the values are sizes of differences (|Δ| ≥ 0), so a negative bound is impossible."""
    n = len(values)
    if n < 2:
        return {f"{name}_low": np.nan, f"{name}_high": np.nan}
    half = float(stats.t.ppf(0.5 + level / 2, n - 1) * values.std(ddof=1) / np.sqrt(n))
    return {f"{name}_low": max(float(values.mean()) - half, 0.0), f"{name}_high": float(values.mean()) + half}


def paper_table(results: pd.DataFrame, *, attribute: str, subset: str | None = None) -> pd.DataFrame:
    """One of the paper's tables: a block per task (rows: task × bias group + "All"), columns ``#systems`` and the
    two average score differences, each followed by its interval over systems (``… low``, ``… high``). ``subset`` defaults to ``all`` (or the first subset tested): gender/all is
    Table 5, gender/neutral Table 6, race/all Table 7."""
    if attribute not in ATTRIBUTES:
        raise unknown("attribute", attribute, ATTRIBUTES)
    tested = [s for s in SUBSETS if s in set(results["subset"])]
    subset = subset or ("all" if "all" in tested else (tested or ["all"])[0])
    if subset not in SUBSETS:
        raise unknown("subset", subset, SUBSETS)
    _, _, a, b = ATTRIBUTES[attribute]
    table = summary(results[(results["attribute"] == attribute) & (results["subset"] == subset)])
    up, down = f"avg Δ {a}↑–{b}↓", f"avg Δ {a}↓–{b}↑"
    table = table.rename(columns={"direction": "bias group", "n_systems": "#systems", "avg_diff_a_higher": up,
                                  "avg_diff_a_lower": down, "avg_diff_a_higher_low": f"{up} low",
                                  "avg_diff_a_higher_high": f"{up} high", "avg_diff_a_lower_low": f"{down} low",
                                  "avg_diff_a_lower_high": f"{down} high"})
    table["#systems"] = table["#systems"].astype("Int64")  # counts print as 2, not 2.0
    return table.set_index(["task", "bias group"]).loc[:, ["#systems", up, f"{up} low", f"{up} high", down,
                                                            f"{down} low", f"{down} high"]]


def tables(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The paper's Tables 5, 6 and 7 (see :func:`paper_table`) — those whose attribute and subset were tested."""
    present = set(zip(results["attribute"], results["subset"]))
    return {name: paper_table(results, attribute=a, subset=s) for name, (a, s) in PAPER_TABLES.items()
            if (a, s) in present}
