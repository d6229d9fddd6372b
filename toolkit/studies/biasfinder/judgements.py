"""BiasFinder's human-annotation study, estimated: true-positive rate and Cohen's κ (Asyrofi et al. 2021, 6.2).

- :func:`tpr` — per annotator, the share of annotated BTCs that are true positives (:data:`TPR_COLUMNS`), by one of
  :data:`TPR_RULES`. ``rule="paper"`` (default): both mutants coherent ("yes") and given the same sentiment label,
  whatever it is — two "neutral" or two "not sure" labels agree; "neutral" against "not sure" does not.
  ``rule="strict"``: as "paper", and the shared label must be definite: two "not sure" labels never make a true
  positive.
- :func:`kappa` — Cohen's κ between two annotators on one field (statsmodels). For ``sentiment``,
  ``merge_neutral=True`` (default) merges "neutral" and "not sure" into one class, ``unsure``, the reading under which
  the paper reports its sentiment κ (0.485; not re-checked here: the released annotations are not in this
  repository); ``merge_neutral=False`` keeps the four classes. :func:`tpr` never merges.
- :func:`tpr_table` — :func:`tpr` with Wilson intervals (``unflagged_in=sample``: over the sample's BTCs without
  flagged fills only); :func:`kappa_table` — :func:`kappa` with a bootstrap interval over the annotated mutants.

Annotation tables have the columns :data:`ANNOTATION_COLUMNS`, one row per annotator × BTC × variant (a|b). Values
are read case- and space-insensitively (:data:`ANNOTATION_VALUES`): "Yes", "Positive ", "Not sure", "unsure"…;
"not sure" and "unsure" are one value, ``unsure``. Anything else is a SchemaError (TK101), and so is a table without
those columns (:func:`check_annotation_columns`). Reading the CSV file is :mod:`toolkit.studies.biasfinder.annotation_files`'s.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from statsmodels.stats.inter_rater import cohens_kappa

from toolkit import checks
from toolkit import stats as tkstats
from toolkit.errors import InputError, SchemaError, unknown
from toolkit.studies.biasfinder.sampling import _sample_flagged

ANNOTATION_COLUMNS = ("btc_id", "variant", "annotator", "coherent", "sentiment")
TPR_COLUMNS = ("annotator", "n_btcs", "tpr", "rule")
TPR_RULES: tuple[str, ...] = ("paper", "strict")
_DEFINITE = {"positive", "negative", "neutral"}


def _unflagged_annotations(annotations: pd.DataFrame, sample: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``annotations`` whose BTC is in ``sample`` with no flagged fill on either side (TK101 for a
    sample without the flag columns, TK102 when no annotated BTC is left)."""
    missing = [c for c in ("btc_id", "fill_flag_a", "fill_flag_b") if c not in sample.columns]
    if missing:
        raise SchemaError(f"the sample lacks {', '.join(map(repr, missing))}: it does not say which BTCs come from "
                          "flagged fills.", fix="draw it again with sample_btcs() (same scored table and seed: the "
                                                "same BTCs, now with fill_flag_a and fill_flag_b).")
    check_annotation_columns(annotations.columns, source="the annotation table")
    clean = set(sample.loc[~_sample_flagged(pd.DataFrame(), sample), "btc_id"].astype(str))
    kept = annotations[annotations["btc_id"].astype(str).str.strip().isin(clean)]
    if kept.empty:
        raise InputError("no annotated BTC of the sample is free of flagged fills.",
                         fix="annotate more BTCs of the sample, or leave unflagged_in=None for the TPR over all.")
    return kept


ANNOTATION_VALUES: dict[str, dict[str, str]] = {
    # column: accepted spelling (lower case, one space between words) -> the value tpr and kappa read
    "variant": {"a": "a", "b": "b"},
    "coherent": {"yes": "yes", "no": "no", "unsure": "unsure", "not sure": "unsure"},
    "sentiment": {"positive": "positive", "negative": "negative", "neutral": "neutral", "unsure": "unsure",
                  "not sure": "unsure"},
}


def check_annotation_columns(columns, *, source: str) -> None:
    """SchemaError (TK101) naming the missing annotation columns, the ones ``source`` has and the expected ones."""
    missing = [c for c in ANNOTATION_COLUMNS if c not in columns]
    if missing:
        has = ", ".join(repr(str(c)) for c in columns) or "none"
        raise SchemaError(f"{source} lacks column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} "
                          f"(it has {has}).",
                          fix=f"an annotation CSV has a header row with the columns {', '.join(ANNOTATION_COLUMNS)}; "
                              "rename its columns or point to the right file.")


def _annotations(annotations: pd.DataFrame) -> pd.DataFrame:
    check_annotation_columns(annotations.columns, source="the annotation table")
    frame = annotations.loc[:, list(ANNOTATION_COLUMNS)].fillna("").astype(str)
    frame = frame.apply(lambda column: column.str.strip())
    for column, accepted in ANNOTATION_VALUES.items():
        spelled = frame[column].str.lower().str.split().str.join(" ")
        bad = sorted(set(frame[column][~spelled.isin(list(accepted))]))
        if bad:
            aliases = "; ".join(f"{k!r} for {v}" for k, v in accepted.items() if k != v)
            raise SchemaError(f"column {column!r} holds {bad}; allowed: {', '.join(sorted(set(accepted.values())))}"
                              f" (any case and spacing{'; also ' + aliases if aliases else ''}).",
                              fix="correct those cells (an empty cell means the mutant was not annotated).")
        frame[column] = spelled.map(accepted)
    if frame.duplicated(["annotator", "btc_id", "variant"]).any():
        raise SchemaError("an annotator annotated the same mutant twice.",
                          fix="keep one row per annotator, BTC and variant.")
    return frame


def tpr(annotations: pd.DataFrame, *, rule: str = "paper") -> pd.DataFrame:
    """Per annotator: BTCs annotated and the true-positive rate by ``rule`` (one of :data:`TPR_RULES`; see the module
    docstring), columns :data:`TPR_COLUMNS`."""
    if rule not in TPR_RULES:
        raise unknown("TPR rule", rule, TPR_RULES)
    frame = _annotations(annotations)
    if frame.empty:  # nothing annotated yet: no annotator has a rate
        return pd.DataFrame({c: pd.Series(dtype=object if c in ("annotator", "rule") else float)
                             for c in TPR_COLUMNS})
    wide = frame.pivot_table(index=["annotator", "btc_id"], columns="variant", values=["coherent", "sentiment"],
                             aggfunc="first")
    incomplete = wide[wide.isna().any(axis=1)]
    if len(incomplete):
        annotator, btc_id = incomplete.index[0]
        raise SchemaError(f"annotator {annotator!r} annotated only one mutant of BTC {btc_id!r}.",
                          fix="annotate both mutants (a and b) of every BTC, or drop the BTC.")
    true_positive = ((wide[("coherent", "a")] == "yes") & (wide[("coherent", "b")] == "yes")
                     & (wide[("sentiment", "a")] == wide[("sentiment", "b")]))
    if rule == "strict":
        true_positive &= wide[("sentiment", "a")].isin(_DEFINITE)
    out = true_positive.groupby(level="annotator").agg(["size", "mean"]).reset_index()
    out.columns = list(TPR_COLUMNS[:3])
    return out.assign(rule=rule).loc[:, list(TPR_COLUMNS)]


def kappa(annotations: pd.DataFrame, *, field: str, annotators: tuple[str, str] | None = None,
          merge_neutral: bool = True) -> float:
    """Cohen's κ of two annotators on ``field`` ('coherent' or 'sentiment') over the mutants both annotated;
    ``merge_neutral``: "neutral" and "not sure" count as one class, ``unsure`` (the paper's κ; see the module
    docstring)."""
    if field not in ("coherent", "sentiment"):
        raise InputError(f"unknown field {field!r}; available: coherent, sentiment.", fix="field='coherent'.")
    frame = _annotations(annotations)
    if merge_neutral:
        frame[field] = frame[field].replace("neutral", "unsure")
    people = annotators or tuple(sorted(frame["annotator"].unique()))
    if len(people) != 2:
        raise InputError(f"Cohen's κ needs exactly two annotators; found {list(people)}.",
                         fix="pass annotators=(first, second).")
    found = sorted(frame["annotator"].unique())
    absent = [p for p in people if p not in found]
    if absent:
        raise InputError(f"no annotation by {', '.join(map(repr, absent))}; annotators in the file: {found}.",
                         fix="pass annotators= two of the names found.")
    wide = frame.pivot_table(index=["btc_id", "variant"], columns="annotator", values=field, aggfunc="first")
    both = wide[list(people)].dropna()
    if both.empty:
        raise InputError("the two annotators share no annotated mutant.", fix="annotate the same BTCs.")
    categories = sorted(set(both.to_numpy().ravel()))
    table = pd.crosstab(both[people[0]], both[people[1]]).reindex(index=categories, columns=categories,
                                                                  fill_value=0)
    if len(categories) < 2:
        raise InputError(f"both annotators gave only {categories!r} for {field!r}: κ is undefined.",
                         fix="compute κ on more varied annotations.")
    return float(cohens_kappa(np.asarray(table, dtype=float)).kappa)


TPR_INTERVAL_COLUMNS = ("annotator", "n_btcs", "true_positives", "tpr", "tpr_low", "tpr_high", "rule")
KAPPA_COLUMNS = ("field", "annotator_a", "annotator_b", "n_mutants", "kappa", "kappa_low", "kappa_high",
                 "merge_neutral")


def tpr_table(annotations: pd.DataFrame, *, rule: str = "paper", alpha: float = tkstats.ALPHA,
              unflagged_in: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`tpr` (same rule, same values) with the count of true positives and its Wilson interval
    (``tpr_low``, ``tpr_high``; :func:`toolkit.stats.wilson`), columns :data:`TPR_INTERVAL_COLUMNS`. BTCs are
    treated as independent draws (the sample takes at most ``per_template`` per template). ``unflagged_in``: a
    sample of :func:`sample_btcs`; only its BTCs without a flagged fill on either side count (the TPR over the
    stronger evidence; an annotator with none drops out; none at all is an InputError, TK102)."""
    alpha = tkstats._alpha(alpha)
    if unflagged_in is not None:
        annotations = _unflagged_annotations(annotations, unflagged_in)
    table = tpr(annotations, rule=rule)
    hits = (table["tpr"] * table["n_btcs"]).round().astype(int)
    bounds = [tkstats.wilson(int(k), int(n), alpha=alpha) for k, n in zip(hits, table["n_btcs"])]
    out = table.assign(true_positives=hits, tpr_low=[b[1] for b in bounds], tpr_high=[b[2] for b in bounds])
    return out.loc[:, list(TPR_INTERVAL_COLUMNS)]


def kappa_table(annotations: pd.DataFrame, *, field: str, annotators: tuple[str, str] | None = None,
                merge_neutral: bool = True, alpha: float = tkstats.ALPHA, n_boot: int = tkstats.N_BOOT,
                seed: int = 0) -> pd.DataFrame:
    """:func:`kappa` (same value, same checks) as a one-row frame with a seeded percentile bootstrap interval that
    draws whole BTCs (both mutants of a BTC together: their labels are correlated) among the mutants both
    annotators labelled (:func:`toolkit.stats.kappa_interval`), columns :data:`KAPPA_COLUMNS`."""
    alpha, n_boot, seed = checks.alpha(alpha), checks.n_boot(n_boot), checks.seed(seed)
    value = kappa(annotations, field=field, annotators=annotators, merge_neutral=merge_neutral)
    frame = _annotations(annotations)
    if merge_neutral:
        frame[field] = frame[field].replace("neutral", "unsure")
    people = annotators or tuple(sorted(frame["annotator"].unique()))
    wide = frame.pivot_table(index=["btc_id", "variant"], columns="annotator", values=field, aggfunc="first")
    both = wide[list(people)].dropna()
    _, low, high = tkstats.kappa_interval(both[people[0]].to_numpy(), both[people[1]].to_numpy(),
                                        alpha=tkstats._alpha(alpha), n_boot=n_boot, seed=seed,
                                        groups=both.index.get_level_values("btc_id").to_numpy())
    return pd.DataFrame([{"field": field, "annotator_a": people[0], "annotator_b": people[1], "n_mutants": len(both),
                          "kappa": value, "kappa_low": low, "kappa_high": high, "merge_neutral": merge_neutral}],
                        columns=list(KAPPA_COLUMNS))

