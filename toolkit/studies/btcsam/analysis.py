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
  ``cross_pct`` and ``excess_pct`` = cross − same with Newcombe's interval (:func:`toolkit.stats.rate_difference`
  on share·n_cases, again conservative), ``p_adjusted`` over the family model × test set × bias type
  (``correction``), ``verdict`` (a = cross-group pairs, b = same-group pairs; TOST at ``margin`` on the [0, 1]
  scale). Sets with no same-group pairs (the released BTC-SAM sets, one text per identity term; BiasFinder's
  one female and one male mutant) have NaN there, ``n_pair_cases`` = 0 and ``no_test_reason`` says why: no null is
  available for them. Power: the Newcombe interval counts cases, not pairs, and is conservative (shares in [0, 1]
  at most Bernoulli variance); with 56 PSA cases it is about ±19 points wide, so it detects only large excesses
  (a 0.2-3 point spread between models is far inside it). A paired test over cases would be narrower but would
  treat the names, the same in every case, as fixed (the error docs/statistics.md finds in BiasFinder's rates), so
  it is not used.
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

import numbers
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
from nltk import edit_distance
from nltk.stem.snowball import SnowballStemmer
from scipy.stats import norm

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


def pair_null(scored: pd.DataFrame, *, theta: float = 0.2, rule: str = "published") -> pd.DataFrame:
    """Per model × test set × bias type: the mean share of failing same-group and cross-group pairs over the cases
    holding both (columns ``same, cross, n_pair_cases``); see the module docstring."""
    _check_theta(theta)
    _check_rule(rule)
    frame = _answers(scored, rule=rule).assign(_class=lambda f: text_classes(f))
    rows = []
    for key, case in frame.groupby(_KEYS, sort=False):
        classes = case["_class"].to_numpy(dtype=str)
        named = classes[classes != ""]
        if len(named) < 3 or len(set(named)) in (1, len(named)):  # no same-group or no cross-group pair
            continue
        same, cross = _case_pair_shares(case["_label"].astype(str).to_numpy(), case["_value"].to_numpy(float),
                                        classes, theta)
        rows.append((*key[:3], same, cross))
    pairs = pd.DataFrame(rows, columns=["model", "test_set", "bias_type", "same", "cross"])
    return pairs.groupby(["model", "test_set", "bias_type"], sort=False).agg(
        same=("same", "mean"), cross=("cross", "mean"), n_pair_cases=("same", "size")).reset_index()


def _null_columns(row: pd.Series, *, alpha: float) -> dict:
    n = int(row["n_pair_cases"]) if pd.notna(row["n_pair_cases"]) else 0
    if n == 0:
        return {"null_pct": np.nan, "null_low": np.nan, "null_high": np.nan, "cross_pct": np.nan,
                "excess_pct": np.nan, "excess_low": np.nan, "excess_high": np.nan, "effect_size": np.nan,
                "p_value": np.nan, "se": np.nan, "n_pair_cases": 0}
    rate, low, high = st.wilson(row["same"] * n, n, alpha=alpha)
    diff = st.rate_difference(row["cross"] * n, n, row["same"] * n, n, alpha=alpha)
    se = (diff["ci_high"] - diff["ci_low"]) / (2 * norm.ppf(1 - alpha / 2))
    return {"null_pct": 100 * rate, "null_low": 100 * low, "null_high": 100 * high, "cross_pct": 100 * row["cross"],
            "excess_pct": 100 * diff["estimate"], "excess_low": 100 * diff["ci_low"],
            "excess_high": 100 * diff["ci_high"],
            "effect_size": 2 * np.arcsin(np.sqrt(row["cross"])) - 2 * np.arcsin(np.sqrt(row["same"])),  # Cohen's h
            "p_value": diff["p_value"], "se": se, "n_pair_cases": n}


def failure_percentage(scored: pd.DataFrame, *, theta: float = 0.2, rule: str = "published", alpha: float = st.ALPHA,
                       margin: float = st.MARGIN, correction: str = "bonferroni") -> pd.DataFrame:
    """Table 5: percentage of failing cases per model, test set and bias type, with its Wilson interval and the
    same-group null (module docstring; ``p_adjusted`` over the family model × test set × bias type)."""
    checks.statistics(correction=correction, margin=margin, alpha=alpha)
    out = (failures(scored, theta=theta, rule=rule).groupby(["model", "test_set", "bias_type"], sort=False)["failed"]
           .agg(n_cases="size", n_failed="sum").reset_index())
    out["n_failed"] = out["n_failed"].astype(int)
    out = out.assign(theta=theta, failure_pct=100.0 * out["n_failed"] / out["n_cases"])
    bounds = [st.wilson(k, n, alpha=alpha)[1:] for k, n in zip(out["n_failed"], out["n_cases"])]
    out["ci_low"], out["ci_high"] = [100 * b[0] for b in bounds], [100 * b[1] for b in bounds]
    out = out.merge(pair_null(scored, theta=theta, rule=rule), on=["model", "test_set", "bias_type"], how="left")
    null = pd.DataFrame([_null_columns(r, alpha=alpha) for _, r in out.iterrows()], index=out.index)
    out = pd.concat([out.drop(columns=["same", "cross", "n_pair_cases"]), null], axis=1)
    out["p_adjusted"] = st.adjust(out["p_value"].to_numpy(dtype=float), method=correction)
    out["verdict"] = [st.verdict(estimate=e / 100, se=se, df=np.inf, p_adjusted=p, margin=margin, alpha=alpha)
                      if np.isfinite(se) else "inconclusive"
                      for e, se, p in zip(out["excess_pct"], out["se"], out["p_adjusted"])]
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


BIAS_TYPE_POOLED_COLUMNS = ("model", "bias_type", "theta", "n_sets", "n_cases", "n_failed", "failure_pct", "ci_low",
                            "ci_high")


def failure_by_bias_type(failure_pct: pd.DataFrame, *, alpha: float = st.ALPHA) -> pd.DataFrame:
    """The failure % per model × bias type over every test set that has the bias type (cases summed) with a Wilson
    interval at the case as the unit, as :func:`pooled_failure_percentage` pools over bias types
    (:data:`BIAS_TYPE_POOLED_COLUMNS`; ``n_sets``: the test sets pooled); ``failure_pct`` from
    :func:`failure_percentage`."""
    alpha = checks.alpha(alpha)
    keys = ["model", "bias_type", "theta"]
    out = failure_pct.groupby(keys, sort=False).agg(n_sets=("test_set", "nunique"), n_cases=("n_cases", "sum"),
                                                   n_failed=("n_failed", "sum")).reset_index()
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
