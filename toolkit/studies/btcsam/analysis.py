"""BTC-SAM study (Kardkovács et al. 2025, Section 4; Tables 2–5): detection probability and test-set diversity.

Failure rule (``rule``, :data:`RULES`): a test case (``case_id``) fails on a model when any two of its texts get

- ``published`` (default; the released BTC-SAM code): different **top labels** from the text-classification
  pipeline (``top_label``: the model's own classes — POSITIVE/NEGATIVE, the 5 stars, joy/anger/…) or **top scores**
  (``top_score``: the probability of each text's own top class) differing by more than θ;
- ``valence`` (the toolkit's earlier rule, kept as an option): different polar labels (negative/neutral/positive)
  or valences (``score`` in [0, 1]) differing by more than θ.

θ is ``theta`` (default 0.2; the paper also uses 0.05, 0.1, 0.15). How the two differ by head: on a **binary** head
they agree (same top label ⇔ same polar label, and then |Δ top score| = |Δ P(positive)|). On a **3-class** head the
valence P(pos) + P(neu)/2 moves when mass shifts between the two losing classes while the top score does not (top
"positive" at 0.5 in both texts, negative 0.5 → 0 and neutral 0 → 0.5: valence 0.5 → 0.75 fails at θ = 0.2 under
``valence``, passes under ``published``); conversely a winning class's probability can move while the valence stays.
On a **5-star** head ``published`` compares the stars, ``valence`` only their polarity. **Emotion** heads have no
valence by default: ``published`` compares their emotions (joy vs sadness fails), ``valence`` skips them with a
warning (or maps them with ``?valence=emotion``). Models without a native distribution (lexicons, ``py:``, an LLM
answer parsed without log-probabilities) have ``top_label`` = ``label`` and no ``top_score``: under ``published``
their score range is taken from the valence (recorded as ``range_from`` = ``score``), so for them both rules agree.
A case with a text that has no answer at all (an unparseable LLM reply: neither a top score nor a score) is skipped
under both rules, with a warning (:func:`toolkit.cases.with_scores`).
Cases of a single text (possible with ``load_btcsam(valid_only=False)``) are not test cases and are left out.

- :func:`failures`: one row per model × case (:data:`FAILURE_COLUMNS`; ``score_range`` and ``n_labels`` are those
  the rule compared, ``range_from`` says which column the range came from).
- :func:`detection_probability` (Table 2): the share of failing cases per test set and bias type, averaged over
  models and cases (:data:`DETECTION_COLUMNS`).
- :func:`failure_percentage` (Table 5): per model, test set and bias type, in percent (:data:`FAILURE_PCT_COLUMNS`).
- Intervals (:mod:`toolkit.stats`), the case being the unit: ``ci_low``/``ci_high`` beside the
  detection probability (:func:`detection_intervals`, :data:`DETECTION_CI_COLUMNS`; on its [0, 1] scale) and
  beside the failure percentage (in percent) are Wilson intervals.
  A failure % counts failing cases of ``n_cases`` (exact counts). The detection probability averages over models,
  so each case contributes its share of failing models, a number in [0, 1]; its interval is the Wilson interval of
  p̂·n_cases successes in n_cases trials — conservative, since a share in [0, 1] with mean p has at most the
  Bernoulli variance p(1 − p).
- Null baseline (failure % table): pairs of texts of one case whose identity terms belong to the **same group**
  (:func:`text_classes`: the ``group`` column; for PSA-derived sets, whose ``group`` is the individual name, the
  name's ``gender``; original sentences are in no group) fail under the same rule (labels differ or scores differ by
  more than θ) only through name or term noise. Per case, the share of failing same-group pairs and of failing
  cross-group pairs; over the cases holding both kinds: ``null_pct`` (with Wilson ``null_low``/``null_high``),
  ``cross_pct`` and ``excess_pct`` = cross − same, ``p_adjusted`` over the family model × test set × bias type
  (``correction``), ``verdict`` (a = cross-group pairs, b = same-group pairs; TOST at ``margin`` on the [0, 1]
  scale). Sets with no same-group pairs (the released BTC-SAM sets, one text per identity term; BiasFinder's
  one female and one male mutant) have NaN there, ``n_pair_cases`` = 0 and ``no_test_reason`` says why: no null is
  available for them. Identity terms that recur across cases (a PSA-derived set fills every case with the same
  names) are a sample, as names are in BiasFinder: the excess's interval, ``p_value`` and verdict come from one t
  whose variance adds the cases' to the terms' (the larger of a delete-one and a delete-half jackknife over each
  group's terms) on the terms' df; the failure % and ``null_pct`` intervals are Wilson's on the effective number
  of cases that variance leaves (a test holding the terms fixed gives 7.7-52.7 % false alarms; docs/statistics.md).
- :func:`pooled_failure_percentage`: the failure % per model × test set over all bias types with its Wilson interval
  (the forest plot).
- :func:`diversity` (Table 3) and :func:`stage_diversity` (Table 4, plus the mean word-level edit distance to the
  ETSG source, ``source_text``): :data:`DIVERSITY_COLUMNS`, :data:`STAGE_COLUMNS`.

Inputs carry ``test_set`` and ``bias_type`` columns (:func:`as_test_set` adds them to any case table). Tokens are
``\\w+`` runs and single punctuation marks (regex, no punkt data), Snowball-stemmed (which lowercases) for
``unique_tokens``; ``mean_word_len`` averages the ``\\w+`` tokens only. On the generated EEC this gives the paper's
EEC column exactly: 8,640 sentences, 37.4 characters and 7.15 tokens per sentence, 135 unique tokens.
Identity terms are the distinct non-empty ``fill`` values; concept terms the distinct ``concept_term`` (EEC:
``emotion_word``) values. Limitation: the paper's exact tokenizer is not named; this choice reproduces its EEC row.
"""
from __future__ import annotations

import itertools
import numbers
import re
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from nltk import edit_distance
from nltk.stem.snowball import SnowballStemmer
from scipy import stats

from toolkit import checks, verdicts
from toolkit import stats as st
from toolkit.cases import validate, with_scores
from toolkit.errors import InputError, SchemaError, unknown

THETAS: tuple[float, ...] = (0.05, 0.1, 0.15, 0.2)
RULES: tuple[str, ...] = ("published", "valence")
FAILURE_COLUMNS = ("model", "test_set", "bias_type", "case_id", "n_texts", "score_range", "n_labels", "failed",
                   "rule", "range_from")
DETECTION_COLUMNS = ("test_set", "bias_type", "theta", "n_cases", "n_models", "detection_probability")
DETECTION_CI_COLUMNS = DETECTION_COLUMNS + ("ci_low", "ci_high")
FAILURE_PCT_COLUMNS = ("model", "test_set", "bias_type", "theta", "n_cases", "n_failed", "failure_pct", "ci_low",
                       "ci_high", "null_pct", "null_low", "null_high", "cross_pct", "excess_pct", "excess_low",
                       "excess_high", "effect_size", "p_value", "p_adjusted", "verdict", "n_pair_cases",
                       "no_test_reason")
NO_PAIRS = ("no same-group pairs: no case holds two texts of one group and one of another (one text per identity "
            "term, as in the released BTC-SAM sets)")
POOLED_COLUMNS = ("model", "test_set", "theta", "n_cases", "n_failed", "failure_pct", "ci_low", "ci_high")
_KEYS = ["model", "test_set", "bias_type", "case_id"]
METRIC_COLUMNS = ("unique_cases", "sentences", "unique_tokens", "mean_chars", "mean_tokens", "mean_word_len",
                  "identity_terms", "concept_terms")
DIVERSITY_COLUMNS = ("test_set",) + METRIC_COLUMNS
STAGE_COLUMNS = ("test_set", "stage") + METRIC_COLUMNS + ("mean_edit_distance",)
_TOKEN = re.compile(r"\w+|[^\w\s]")
_STEMMER = SnowballStemmer("english")


VERDICT_GROUPS = verdicts.Groups("cross-group pairs", "same-group pairs", "cross", "same-group",
                                 "cross-group pairs fail more often than same-group pairs",
                                 "same-group pairs fail more often than cross-group pairs")
"""The excess verdict's two groups (excess = cross-group − same-group failure %), as tables, captions and legends
name them."""


def tokens(text: str) -> list[str]:
    """Words and punctuation marks as tokens (case kept)."""
    return _TOKEN.findall(text)


def as_test_set(cases: pd.DataFrame, *, name: str) -> pd.DataFrame:
    """``cases`` with ``test_set`` = ``name``; without a ``bias_type`` column, ``bias_type`` = ``attribute`` and each
    case split by attribute (so a case never mixes bias types). ``cases`` must be a case table (TK101 naming what
    it lacks) and ``name`` a non-empty string (TK102)."""
    validate(cases)
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"a test set needs a name, a non-empty string; got {name!r}.",
                         fix="pass name='…', e.g. as_test_set(cases, name='eec').")
    out = cases.assign(test_set=name)
    if "bias_type" not in out.columns:
        out = out.assign(bias_type=out["attribute"], case_id=out["case_id"] + ":" + out["attribute"])
    return out


def _check_theta(theta: float) -> None:
    if isinstance(theta, bool) or not isinstance(theta, numbers.Real) or not 0.0 <= theta < 1.0:
        raise InputError(f"theta must be a score difference in [0, 1); got {theta!r}.",
                         fix=f"use e.g. one of the paper's thresholds {', '.join(map(str, THETAS))}.")


def _check_rule(rule: str) -> None:
    if rule not in RULES:
        raise unknown("failure rule", rule, RULES)


def _answers(scored: pd.DataFrame, *, rule: str) -> pd.DataFrame:
    """``scored`` with ``_label`` and ``_value`` (what ``rule`` compares) and ``_from`` (where the value came from)."""
    native = ("top_label", "top_score") if rule == "published" else ()
    missing = [c for c in ("model", "score", "label", "case_id", "test_set", "bias_type") + native
               if c not in scored.columns]
    if missing:
        raise SchemaError(f"scored table lacks {', '.join(missing)}.",
                          fix="score cases with toolkit.scoring.score() after toolkit.studies.btcsam.as_test_set()"
                              + (", or use rule='valence'." if native else "."))
    if rule == "valence":
        frame = with_scores(scored, study="btcsam (valence rule)").assign(_label=lambda f: f["label"],
                                                                         _value=lambda f: f["score"])
        return frame.assign(_from="score")
    answered = scored.assign(_answer=scored["top_score"].where(scored["top_score"].notna(), scored["score"]))
    scored = with_scores(answered, study="btcsam (published rule)", column="_answer")  # unparseable LLM answers
    # a case whose texts all carry a native top score compares it; otherwise (no native distribution) the valence
    has_top = scored["top_score"].notna().groupby([scored[k] for k in _KEYS]).transform("all")
    return scored.assign(_label=scored["top_label"], _value=scored["top_score"].where(has_top, scored["score"]),
                         _from=np.where(has_top, "top_score", "score"))


def failures(scored: pd.DataFrame, *, theta: float = 0.2, rule: str = "published") -> pd.DataFrame:
    """One row per model × case: does the case fail under ``rule`` (labels differ or score range > ``theta``)?"""
    _check_theta(theta)
    _check_rule(rule)
    frame = _answers(scored, rule=rule)
    grouped = frame.groupby(_KEYS, sort=False)
    out = grouped.agg(n_texts=("_value", "size"), high=("_value", "max"), low=("_value", "min"),
                      n_labels=("_label", "nunique"), range_from=("_from", "first")).reset_index()
    out = out[out["n_texts"] >= 2]  # a case of one text cannot fail: it is not a test case
    out["score_range"] = (out["high"] - out["low"]).fillna(0.0)  # no score at all: only the labels can differ
    out["failed"] = (out["n_labels"] > 1) | (out["score_range"] > theta + 1e-12)
    return out.assign(rule=rule).loc[:, list(FAILURE_COLUMNS)]


def text_classes(cases: pd.DataFrame) -> pd.Series:
    """The group each text's identity term belongs to, for the same-group null: ``group``, except ``gender`` for
    PSA-derived rows (``generator`` = ``psa``: there ``group`` is the name itself); "" for originals and rows
    without a group."""
    group = cases["group"].astype(str) if "group" in cases.columns else pd.Series("", index=cases.index)
    if "generator" in cases.columns and "gender" in cases.columns:
        group = group.where(cases["generator"] != "psa", cases["gender"].astype(str))
    if "is_original" in cases.columns:
        group = group.where(~cases["is_original"].fillna(False).astype(bool), "")
    return group.fillna("").replace("nan", "")


def _case_pair_shares(label: np.ndarray, value: np.ndarray, classes: np.ndarray, theta: float
                      ) -> tuple[float, float]:
    """The shares of failing same-class and cross-class pairs among one case's classed texts (NaN: none)."""
    keep = classes != ""
    label, value, classes = label[keep], value[keep], classes[keep]
    i, j = np.triu_indices(len(classes), k=1)
    failed = (label[i] != label[j]) | (np.nan_to_num(np.abs(value[i] - value[j]), nan=0.0) > theta + 1e-12)
    same = classes[i] == classes[j]
    share = (lambda mask: float(failed[mask].mean()) if mask.any() else np.nan)
    return share(same), share(~same)


def _terms(frame: pd.DataFrame) -> pd.Series:
    """Each text's identity term: its ``fill`` where there is one, else its ``group`` ("" for originals)."""
    group = frame["group"].astype(str) if "group" in frame.columns else pd.Series("", index=frame.index)
    if "fill" in frame.columns:
        fill = frame["fill"].fillna("").astype(str)
        group = fill.where(fill != "", group)
    return group.where(frame["_class"] != "", "")


def _block_arrays(block: pd.DataFrame) -> dict:
    """One model × test set × bias type as arrays: cases × identity terms of values, label codes and presence, each
    term's group, and per case the range and labels of its texts that belong to no group (originals)."""
    codes = pd.Series(pd.factorize(block["_label"])[0], index=block.index)  # NaN label: -1
    classed = block[block["_class"] != ""]
    repeat = classed.groupby(["case_id", "_term"]).cumcount()  # one term twice in a case: its copies kept apart
    term = classed["_term"].astype(str) + np.where(repeat.to_numpy() > 0, "#" + repeat.astype(str), "")
    cases = pd.Index(pd.unique(block["case_id"]))
    terms = pd.Index(pd.unique(term))
    rows, cols = cases.get_indexer(classed["case_id"]), terms.get_indexer(term)
    value = np.full((len(cases), len(terms)), np.nan)
    label = np.full((len(cases), len(terms)), -1)
    present = np.zeros((len(cases), len(terms)), dtype=bool)
    value[rows, cols], label[rows, cols], present[rows, cols] = classed["_value"].to_numpy(float), \
        codes[classed.index].to_numpy(), True
    groups = classed.groupby(term.to_numpy())["_class"].first().reindex(terms).to_numpy(dtype=str)
    other = block[block["_class"] == ""]
    extra = other.groupby("case_id").agg(high=("_value", "max"), low=("_value", "min"), n=("_value", "size"))
    extra = extra.reindex(cases)
    n_codes = int(codes.max()) + 1 if len(codes) else 0
    extra_labels = np.zeros((len(cases), n_codes), dtype=bool)
    coded = codes[other.index].to_numpy()
    extra_labels[cases.get_indexer(other["case_id"])[coded >= 0], coded[coded >= 0]] = True
    return {"value": value, "label": label, "present": present, "groups": groups, "terms": terms,
            "extra_high": extra["high"].to_numpy(float), "extra_low": extra["low"].to_numpy(float),
            "extra_n": extra["n"].fillna(0).to_numpy(int), "extra_labels": extra_labels}


def _block_numbers(arrays: dict, theta: float, keep: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Per case (with at least 2 texts, the terms in ``keep`` and the case's ungrouped texts): failed (0/1), and the
    shares of failing same-group and cross-group pairs among its grouped texts (NaN where it has no such pair)."""
    keep = np.ones(arrays["value"].shape[1], dtype=bool) if keep is None else keep
    value, label, present = arrays["value"][:, keep], arrays["label"][:, keep], arrays["present"][:, keep]
    groups = arrays["groups"][keep]
    n_texts = present.sum(axis=1) + arrays["extra_n"]
    shown = np.where(present, value, np.nan)
    high = np.fmax(np.nanmax(shown, axis=1, initial=-np.inf), arrays["extra_high"])
    low = np.fmin(np.nanmin(shown, axis=1, initial=np.inf), arrays["extra_low"])
    spread = np.where(np.isfinite(high) & np.isfinite(low), high - low, 0.0)
    n_labels = sum(((label == code) & present).any(axis=1) | arrays["extra_labels"][:, code]
                   for code in range(arrays["extra_labels"].shape[1]))
    failed = (n_labels > 1) | (spread > theta + 1e-12)
    i, j = np.triu_indices(value.shape[1], k=1)
    both = present[:, i] & present[:, j]
    fail = (label[:, i] != label[:, j]) | (np.nan_to_num(np.abs(value[:, i] - value[:, j]), nan=0.0) > theta + 1e-12)
    same = (groups[i] == groups[j])[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        share_same = (fail & both & same).sum(axis=1) / (both & same).sum(axis=1)
        share_cross = (fail & both & ~same).sum(axis=1) / (both & ~same).sum(axis=1)
    ok = n_texts >= 2
    return {"failed": failed[ok].astype(float), "same": share_same[ok], "cross": share_cross[ok]}


def _summary(numbers: dict[str, np.ndarray]) -> np.ndarray:
    """The three quantities a block reports: failure rate, and over the cases with both kinds of pair, the same-
    group share, the cross-group share."""
    paired = np.isfinite(numbers["same"]) & np.isfinite(numbers["cross"])
    mean = (lambda v: float(v.mean()) if len(v) else np.nan)
    return np.array([mean(numbers["failed"]), mean(numbers["same"][paired]), mean(numbers["cross"][paired])])


MAX_HALF_SAMPLES = 64
"""Half-samples of the identity terms behind the delete-half jackknife (all of them when fewer)."""


def _term_variance(arrays: dict, theta: float, *, seed: int = 0) -> tuple[np.ndarray, int]:
    """The variance, over samples of identity terms, of :func:`_summary`'s three quantities and of the excess (cross
    − same), for the identity terms that recur across cases (each group's terms a sample of that group's terms):
    the larger of the delete-one jackknife (stratified by group) and the delete-half jackknife (half of every
    group's terms kept, all combinations up to :data:`MAX_HALF_SAMPLES`; Shao & Wu 1989) — the failure % is a
    range-like, non-smooth statistic of the terms, whose delete-one jackknife alone covered 85 % in simulation.
    Returns the variances and their degrees of freedom, the smallest group's terms − 1 (0: the terms do not recur,
    they are sampled with the cases)."""
    recurring = arrays["present"].sum(axis=0) >= 2
    groups = arrays["groups"]
    strata = [np.flatnonzero(recurring & (groups == g)) for g in np.unique(groups[recurring])]
    strata = [m for m in strata if len(m) >= 2]
    if not strata:
        return np.zeros(4), 0

    def numbers(drop: np.ndarray) -> np.ndarray:
        keep = np.ones(len(groups), dtype=bool)
        keep[drop] = False
        out = _summary(_block_numbers(arrays, theta, keep))
        return np.r_[out, out[2] - out[1]]

    one = np.zeros(4)
    for members in strata:
        left_out = np.array([numbers(np.array([term])) for term in members])
        k = len(members)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a quantity undefined without that term: NaN
            one += (k - 1) / k * np.nansum((left_out - np.nanmean(left_out, axis=0)) ** 2, axis=0)
    halves = [list(itertools.combinations(members, len(members) - len(members) // 2)) for members in strata]
    total = int(np.prod([len(h) for h in halves], dtype=float))
    rng = np.random.default_rng(seed)
    picks = (itertools.product(*halves) if total <= MAX_HALF_SAMPLES else
             (tuple(h[rng.integers(len(h))] for h in halves) for _ in range(MAX_HALF_SAMPLES)))
    kept_sets = [np.concatenate(p) for p in picks]
    every = np.concatenate(strata)
    half = np.array([numbers(np.setdiff1d(every, kept)) for kept in kept_sets])
    scale = np.mean([(len(m) // 2 and (len(m) - len(m) // 2) / (len(m) // 2)) for m in strata])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # undefined on every half (no same-group pair left): NaN
        delete_half = scale * np.nanvar(half, axis=0)
    return np.fmax(one, delete_half), min(len(m) for m in strata) - 1


def pair_null(scored: pd.DataFrame, *, theta: float = 0.2, rule: str = "published") -> pd.DataFrame:
    """Per model × test set × bias type: the mean share of failing same-group and cross-group pairs over the cases
    holding both (columns ``same, cross, n_pair_cases``); see the module docstring."""
    _check_theta(theta)
    _check_rule(rule)
    frame = _answers(scored, rule=rule).assign(_class=lambda f: text_classes(f))
    frame = frame.assign(_term=_terms(frame))
    rows = []
    for key, block in frame.groupby(["model", "test_set", "bias_type"], sort=False):
        numbers = _block_numbers(_block_arrays(block), theta)
        paired = np.isfinite(numbers["same"]) & np.isfinite(numbers["cross"])
        if paired.any():
            rows.append((*key, float(numbers["same"][paired].mean()), float(numbers["cross"][paired].mean()),
                         int(paired.sum())))
    return pd.DataFrame(rows, columns=["model", "test_set", "bias_type", "same", "cross", "n_pair_cases"])


def _wilson_design(rate: float, n: int, term_variance: float, term_df: int, *, alpha: float
                   ) -> tuple[float, float]:
    """A Wilson interval for a rate over ``n`` cases whose identity terms are a sample too: the score interval on
    the effective number of cases n·p(1 − p) / (p(1 − p) + n · ``term_variance``) (the design effect of the terms)
    with a t quantile on the terms' df (``term_df``; 0: none); without term variance, Wilson's interval over
    cases."""
    if not n or not np.isfinite(rate):
        return np.nan, np.nan
    binomial = rate * (1 - rate) / n
    if term_variance <= 0 or binomial <= 0 or not term_df:
        return st.wilson(rate * n, n, alpha=alpha)[1:]
    total = binomial + term_variance
    n_eff = rate * (1 - rate) / total
    q = stats.t.ppf(1 - alpha / 2, term_df)  # the terms' few df decide (4 + 4 terms: 3)
    centre = (rate + q * q / (2 * n_eff)) / (1 + q * q / n_eff)
    half = q * np.sqrt(total + q * q / (4 * n_eff ** 2)) / (1 + q * q / n_eff)
    return max(0.0, min(centre - half, rate)), min(1.0, max(centre + half, rate))


def _block_row(block: pd.DataFrame, *, theta: float, alpha: float, seed: int = 0) -> dict:
    """One model × test set × bias type: the failure % with its interval (cases, and identity terms where they
    recur across cases), and the same-group null with the excess, its t interval and p."""
    arrays = _block_arrays(block)
    numbers = _block_numbers(arrays, theta)
    failed = numbers["failed"]
    n = len(failed)
    rate = float(failed.mean()) if n else np.nan
    paired = np.isfinite(numbers["same"]) & np.isfinite(numbers["cross"])
    n_pairs = int(paired.sum())
    term_var, term_df = _term_variance(arrays, theta, seed=seed) if n_pairs else (np.zeros(4), 0)
    row = {"n_cases": n, "n_failed": int(failed.sum()), "failure_pct": 100.0 * int(failed.sum()) / n if n else np.nan,
           "n_pair_cases": n_pairs,
           "null_pct": np.nan, "null_low": np.nan, "null_high": np.nan, "cross_pct": np.nan, "excess_pct": np.nan,
           "excess_low": np.nan, "excess_high": np.nan, "effect_size": np.nan, "p_value": np.nan, "se": np.nan,
           "df": np.nan}
    low, high = _wilson_design(rate, n, term_var[0], term_df, alpha=alpha)
    row["ci_low"], row["ci_high"] = 100 * low, 100 * high
    if not n_pairs:
        return row
    same, cross = numbers["same"][paired], numbers["cross"][paired]
    s_rate, x_rate = float(same.mean()), float(cross.mean())
    null_low, null_high = _wilson_design(s_rate, n_pairs, term_var[1], term_df, alpha=alpha)
    diff = cross - same
    v_cases = float(diff.var(ddof=1)) / n_pairs if n_pairs > 1 else 0.0
    variance = v_cases + term_var[3]
    estimate = x_rate - s_rate
    row.update(null_pct=100 * s_rate, null_low=100 * null_low, null_high=100 * null_high, cross_pct=100 * x_rate,
               excess_pct=100 * estimate,
               effect_size=2 * np.arcsin(np.sqrt(x_rate)) - 2 * np.arcsin(np.sqrt(s_rate)))  # Cohen's h
    if variance <= 1e-24:
        if abs(estimate) > 1e-12:
            row.update(excess_low=100 * estimate, excess_high=100 * estimate, p_value=0.0, se=0.0)
        else:
            row.update(excess_low=0.0, excess_high=0.0, p_value=1.0, se=0.0)
        return row
    df = float(term_df) if term_df and term_var[3] > 0 else float(max(n_pairs - 1, 1))  # the terms' df decide
    se = float(np.sqrt(variance))
    q = stats.t.ppf(1 - alpha / 2, df)
    row.update(excess_low=100 * (estimate - q * se), excess_high=100 * (estimate + q * se), se=se, df=float(df),
               p_value=float(min(1.0, 2 * stats.t.sf(abs(estimate) / se, df))))
    return row


def failure_percentage(scored: pd.DataFrame, *, theta: float = 0.2, rule: str = "published", alpha: float = st.ALPHA,
                       margin: float = st.MARGIN, correction: str = "bonferroni", seed: int = 0) -> pd.DataFrame:
    """Table 5: percentage of failing cases per model, test set and bias type, with its interval and the same-group
    null (module docstring; ``p_adjusted`` over the family model × test set × bias type; ``seed``: the half-samples
    of the identity terms where there are more than :data:`MAX_HALF_SAMPLES`)."""
    checks.statistics(correction=correction, margin=margin, alpha=alpha)
    seed = checks.seed(seed)
    _check_theta(theta)
    _check_rule(rule)
    frame = _answers(scored, rule=rule).assign(_class=lambda f: text_classes(f))
    frame = frame.assign(_term=_terms(frame))
    rows = [{"model": model, "test_set": test_set, "bias_type": bias_type,
             **_block_row(block, theta=theta, alpha=alpha, seed=seed)}
            for (model, test_set, bias_type), block in frame.groupby(["model", "test_set", "bias_type"], sort=False)]
    out = pd.DataFrame(rows)
    out = out[out["n_cases"] > 0].reset_index(drop=True).assign(theta=theta)
    out["p_adjusted"] = st.adjust(out["p_value"].to_numpy(dtype=float), method=correction)
    out["verdict"] = [st.verdict(estimate=e / 100, se=se, df=df, p_adjusted=p, margin=margin, alpha=alpha)
                      if np.isfinite(se) else "inconclusive"
                      for e, se, df, p in zip(out["excess_pct"], out["se"], out["df"], out["p_adjusted"])]
    out["no_test_reason"] = np.where(out["n_pair_cases"] > 0, "", NO_PAIRS)
    return out.loc[:, list(FAILURE_PCT_COLUMNS)]


def pooled_failure_percentage(failure_pct: pd.DataFrame, *, alpha: float = st.ALPHA) -> pd.DataFrame:
    """The failure % per model × test set over all its bias types (cases summed) with a Wilson interval
    (:data:`POOLED_COLUMNS`); ``failure_pct`` from :func:`failure_percentage`."""
    alpha = checks.alpha(alpha)
    out = failure_pct.groupby(["model", "test_set", "theta"], sort=False)[["n_cases", "n_failed"]].sum().reset_index()
    bounds = [st.wilson(k, n, alpha=alpha) for k, n in zip(out["n_failed"], out["n_cases"])]
    out["failure_pct"] = [100 * b[0] for b in bounds]
    out["ci_low"], out["ci_high"] = [100 * b[1] for b in bounds], [100 * b[2] for b in bounds]
    return out.loc[:, list(POOLED_COLUMNS)]


BIAS_TYPE_POOLED_COLUMNS = ("model", "bias_type", "theta", "n_sets", "test_sets", "n_cases", "n_failed", "failure_pct",
                            "ci_low", "ci_high")


def failure_by_bias_type(failure_pct: pd.DataFrame, *, alpha: float = st.ALPHA) -> pd.DataFrame:
    """The failure % per model × bias type over every test set that has the bias type (cases summed) with a Wilson
    interval at the case as the unit, as :func:`pooled_failure_percentage` pools over bias types
    (:data:`BIAS_TYPE_POOLED_COLUMNS`; ``n_sets``: how many test sets are pooled, ``test_sets``: their names, joined
    by ", " in the order of ``failure_pct``); ``failure_pct`` from :func:`failure_percentage`."""
    alpha = checks.alpha(alpha)
    keys = ["model", "bias_type", "theta"]
    out = failure_pct.groupby(keys, sort=False).agg(
        n_sets=("test_set", "nunique"), test_sets=("test_set", lambda s: ", ".join(dict.fromkeys(map(str, s)))),
        n_cases=("n_cases", "sum"), n_failed=("n_failed", "sum")).reset_index()
    bounds = [st.wilson(k, n, alpha=alpha) for k, n in zip(out["n_failed"], out["n_cases"])]
    out["failure_pct"] = [100 * b[0] for b in bounds]
    out["ci_low"], out["ci_high"] = [100 * b[1] for b in bounds], [100 * b[2] for b in bounds]
    return out.loc[:, list(BIAS_TYPE_POOLED_COLUMNS)]


def detection_probability(scored: pd.DataFrame, *, thetas: Sequence[float] = (0.2,),
                          rule: str = "published") -> pd.DataFrame:
    """Table 2: the probability that a case of a test set and bias type fails, over all models and cases."""
    frames = []
    for theta in thetas:
        table = failures(scored, theta=theta, rule=rule).groupby(["test_set", "bias_type"], sort=False).agg(
            n_cases=("case_id", "nunique"), n_models=("model", "nunique"),
            detection_probability=("failed", "mean")).reset_index()
        frames.append(table.assign(theta=theta))
    return pd.concat(frames, ignore_index=True).loc[:, list(DETECTION_COLUMNS)]


def detection_intervals(scored: pd.DataFrame, *, thetas: Sequence[float] = (0.2,), rule: str = "published",
                        alpha: float = st.ALPHA) -> pd.DataFrame:
    """:func:`detection_probability` with a Wilson interval at the case as the unit (module docstring): columns
    :data:`DETECTION_CI_COLUMNS`, what ``btcsam.run`` reports."""
    alpha = checks.alpha(alpha)
    table = detection_probability(scored, thetas=thetas, rule=rule)
    bounds = [st.wilson(p * n, n, alpha=alpha) for p, n in zip(table["detection_probability"], table["n_cases"])]
    return table.assign(ci_low=[b[1] for b in bounds], ci_high=[b[2] for b in bounds]).loc[
        :, list(DETECTION_CI_COLUMNS)]


def _metrics(group: pd.DataFrame) -> dict[str, float]:
    texts = group["text"].tolist()
    toks = [tokens(t) for t in texts]
    words = [w for ts in toks for w in ts if re.match(r"\w", w)]
    filled = [group[c].fillna("") for c in ("concept_term", "emotion_word") if c in group.columns]
    concepts = next((c[c != ""] for c in filled if (c != "").any()), pd.Series([], dtype=str))
    return {"unique_cases": group["case_id"].nunique(), "sentences": len(texts),
            "unique_tokens": len({_STEMMER.stem(t) for ts in toks for t in ts}),
            "mean_chars": float(np.mean([len(t) for t in texts])), "mean_tokens": float(np.mean([len(ts) for ts in toks])),
            "mean_word_len": float(np.mean([len(w) for w in words])) if words else float("nan"),
            "identity_terms": group.loc[group["fill"] != "", "fill"].nunique(),
            "concept_terms": concepts.nunique()}


def _by(cases: pd.DataFrame, keys: list[str]) -> list[tuple[tuple, pd.DataFrame]]:
    frame = cases if "test_set" in cases.columns else cases.assign(test_set=cases["generator"])
    return [(k if isinstance(k, tuple) else (k,), g) for k, g in frame.groupby(keys, sort=False)]


def diversity(cases: pd.DataFrame) -> pd.DataFrame:
    """Table 3: one row per test set (``test_set``, else ``generator``)."""
    rows = [{"test_set": key[0], **_metrics(group)} for key, group in _by(cases, ["test_set"])]
    return pd.DataFrame(rows, columns=list(DIVERSITY_COLUMNS))


def stage_diversity(cases: pd.DataFrame) -> pd.DataFrame:
    """Table 4: one row per test set and stage, with the mean word-level edit distance to the ETSG source."""
    rows = []
    for (test_set, stage), group in _by(cases, ["test_set", "stage"]):
        sources = group["source_text"] if "source_text" in group.columns else pd.Series("", index=group.index)
        linked = sources.fillna("") != ""
        distances = [edit_distance(tokens(t.lower()), tokens(s.lower()))
                     for t, s in zip(group.loc[linked, "text"], sources[linked])]
        rows.append({"test_set": test_set, "stage": stage, **_metrics(group),
                     "mean_edit_distance": float(np.mean(distances)) if distances else float("nan")})
    return pd.DataFrame(rows, columns=list(STAGE_COLUMNS))
