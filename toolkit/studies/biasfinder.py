"""BiasFinder's measurements (Asyrofi et al., IEEE TSE 2021; seed 000): bias-uncovering test cases (BTCs) and the
human-annotation study of their true-positive rate.

- :func:`btcs` — per model × case (template): the number of BTCs, i.e. pairs of mutants of the same template, of
  different classes (``group``), with different predicted labels. For two classes this is the paper's
  pos_A × neg_B + neg_A × pos_B; for more classes it sums over every pair of classes. Rows without a class
  (``group`` = "", the unperturbed reviews and PSA originals) are not mutants; in sets where every row carries a
  class (BTC-SAM, CrowS-Pairs) every row counts. ``n_btcs_unflagged`` counts only pairs whose mutants both have
  an empty ``fill_flag`` (fills without a sentiment of their own: :mod:`toolkit.generators.biasfinder.lint`; all
  pairs when the table has no such column).
- :func:`sample_templates` — a seeded random sample of at most ``max_templates`` templates per characteristic, each
  with all its rows (so CPU users can score a subset of a large corpus's templates).
- :func:`table4` — per model × characteristic (``attribute``): templates, mutants, templates with a BTC, BTCs
  (the paper's Table 4) and BTCs without flagged fills; templates (and their mutants) whose differences all lie
  past the model's window are not
  counted as tested but reported in ``templates_past_window``.
- :func:`sample_btcs` — a stratified random sample of BTC pairs for annotation: ``n`` split evenly over the
  characteristics (the paper samples per characteristic), then over the models; at most ``per_template`` BTCs per
  template, templates visited round-robin in a seeded order; each sampled BTC carries its two mutants' ``fill_flag``
  (``fill_flag_a``, ``fill_flag_b``). :func:`sample_strata` reports the strata sizes and, per characteristic, how
  many BTCs come from flagged fills, in the population (``btcs_flagged``) and in the sample (``sampled_flagged``).
- :func:`sample_size` — Cochran's sample size for a proportion (p = 0.5) with finite-population correction.
- :func:`tpr` — per annotator, the share of annotated BTCs that are true positives (columns :data:`TPR_COLUMNS`),
  by one of :data:`TPR_RULES`. ``rule="paper"`` (default; Section 6.2 of the paper): both mutants coherent ("yes")
  and given the same sentiment label, whatever it is — two "neutral" or two "not sure" labels agree; "neutral"
  against "not sure" does not. ``rule="strict"``: as "paper", and the shared label must be definite (positive,
  negative or neutral): two "not sure" labels never make a true positive. The rules differ only on BTCs whose two
  mutants an annotator labelled "not sure".
- :func:`kappa` — Cohen's κ between two annotators on one field (statsmodels). For ``sentiment``,
  ``merge_neutral=True`` (default) merges "neutral" and "not sure" into one class, ``unsure``, before κ is computed,
  the reading under which the paper reports its sentiment κ (0.485; the released annotations are not in this
  repository, so the figure is not re-checked here);
  ``merge_neutral=False`` keeps the four classes. ``coherent`` has no neutral class and reads the same either way.
  :func:`tpr` never merges: under either rule "neutral" against "not sure" is a disagreement.

Statistics beside the paper's numbers (issue 24; estimators from :mod:`toolkit.stats`):

- :func:`pair_counts` — per model × template: mutant pairs of different classes and of the same class, and the
  BTCs among each (:data:`PAIR_COLUMNS`).
- :func:`rates` — per model × characteristic (:data:`RATE_COLUMNS`): the BTC rate (BTCs / between-class pairs) with
  a template-clustered bootstrap interval (default; Wilson as well), the within-class placebo rate (two female
  names; two names of one country, which needs ``n_country_names >= 2``; occupation has no null), the excess
  (``estimate``) with its interval, Cohen's h, ``p_adjusted`` over the model × characteristic family, the
  :func:`toolkit.stats.verdict` (``a higher`` = more BTCs between classes than within) and ``btcs_net``.
  :func:`table4_rates` adds the rate columns to Table 4 (:data:`TABLE4_RATE_COLUMNS`), the paper's unchanged.
- :func:`tpr_table` — :func:`tpr` with Wilson intervals (``unflagged_in=sample``: over the sample's BTCs without
  flagged fills only); :func:`kappa_table` — :func:`kappa` with a bootstrap interval over the annotated mutants
  (both leave :func:`tpr` and :func:`kappa` as they were).

Annotation files are CSVs with columns :data:`ANNOTATION_COLUMNS`, one row per annotator × BTC × variant (a|b).
Values are read case- and space-insensitively (:data:`ANNOTATION_VALUES`): the released annotations' "Yes", "No",
"Unsure", "Positive ", "Neutral", "neutral", "Not sure" as well as the annotation app's "yes", "unsure", "positive"…;
"not sure" (any case, any spacing) and "unsure" are one value, ``unsure``. Anything else is a SchemaError (TK101),
and so is a file or table without those columns (the message names the missing and the expected ones).
:func:`read_annotation_csv` reads such a file as the app wrote it: the app puts a ``'`` before a cell that a
spreadsheet would run as a formula (an annotator called ``=cmd``), and the reader takes it off again.
Works on any scored case table, not only BiasFinder's.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa

from toolkit import checks
from toolkit import stats as tkstats
from toolkit.cases import with_scores
from toolkit.errors import InputError, SchemaError, unknown

BTC_COLUMNS = ("model", "attribute", "case_id", "n_mutants", "n_classes", "n_btcs", "n_btcs_unflagged", "past_window")
TABLE4_COLUMNS = ("model", "attribute", "templates", "mutants", "templates_with_btc", "btcs", "btcs_unflagged",
                  "templates_past_window")
ANNOTATION_COLUMNS = ("btc_id", "variant", "annotator", "coherent", "sentiment")
TPR_COLUMNS = ("annotator", "n_btcs", "tpr", "rule")
TPR_RULES: tuple[str, ...] = ("paper", "strict")
SAMPLE_COLUMNS = ("btc_id", "model", "attribute", "case_id", "variant_a", "variant_b", "text_a", "text_b", "group_a",
                  "group_b", "label_a", "label_b", "fill_flag_a", "fill_flag_b")
STRATA_COLUMNS = ("attribute", "model", "btcs", "templates_with_btc", "sampled", "templates_sampled", "btcs_flagged",
                  "sampled_flagged")
_DEFINITE = {"positive", "negative", "neutral"}


def _mutants(scored: pd.DataFrame, *, required: tuple[str, ...]) -> pd.DataFrame:
    """The rows of ``scored`` that carry a class (``group``), checked for the ``required`` columns (TK101) and for
    usable scores."""
    missing = [c for c in required if c not in scored]
    if missing:
        raise SchemaError(f"not a scored case table: column {missing[0]!r} is missing.",
                          fix="score a case table with toolkit.scoring.score().")
    if "score" in scored.columns:
        scored = with_scores(scored, study="biasfinder")
    return scored[scored["group"] != ""]


def btcs(scored: pd.DataFrame) -> pd.DataFrame:
    """BTC counts per model × case (columns :data:`BTC_COLUMNS`)."""
    mutants = _mutants(scored, required=("model", "label", "case_id", "group", "attribute", "is_original"))
    keys = ["model", "attribute", "case_id", "group", "label"]
    counts = mutants.groupby(keys, observed=True).size().rename("n")
    # rows of other generators (NaN after a concat or a CSV round trip) are not flagged
    clean = mutants[~_is_flagged(mutants["fill_flag"])] if "fill_flag" in mutants.columns else mutants
    clean_btcs = {key: _btc_pairs(block) for key, block in clean.groupby(keys, observed=True).size().groupby(
        level=["model", "attribute", "case_id"], sort=False)}
    inputs = (mutants.groupby(["model", "case_id"], observed=True)["input_id"].nunique().to_dict()
              if "input_id" in mutants.columns else {})
    rows = []
    for (model, attribute, case_id), block in counts.groupby(level=["model", "attribute", "case_id"], sort=False):
        n_mutants = int(block.sum())
        rows.append({"model": model, "attribute": attribute, "case_id": case_id, "n_mutants": n_mutants,
                     "n_classes": int(block.index.get_level_values("group").nunique()), "n_btcs": _btc_pairs(block),
                     "n_btcs_unflagged": clean_btcs.get((model, attribute, case_id), 0),
                     "past_window": bool(n_mutants > 1 and inputs.get((model, case_id), 2) == 1)})
    return pd.DataFrame(rows, columns=list(BTC_COLUMNS))


def _btc_pairs(block: pd.Series) -> int:
    """Pairs of mutants of different classes with different labels, from one case's counts by (…, group, label)."""
    per_class = block.droplevel(["model", "attribute", "case_id"]).unstack("label", fill_value=0).to_numpy()
    total = per_class.sum(axis=0)
    # pairs across different classes with different labels = all cross-class pairs − cross-class same-label pairs
    cross_pairs = (per_class.sum() ** 2 - (per_class.sum(axis=1) ** 2).sum()) / 2
    same_label = ((total ** 2 - (per_class ** 2).sum(axis=0)) / 2).sum()
    return int(round(cross_pairs - same_label))


def sample_templates(cases: pd.DataFrame, *, max_templates: int, seed: int = 0) -> pd.DataFrame:
    """The rows of at most ``max_templates`` templates (``case_id``) per ``attribute``, drawn at random (seeded, per
    attribute, from the sorted ids: a smaller sample is a subset of a larger one), in their original order."""
    if max_templates < 1:
        raise InputError(f"max_templates must be at least 1; got {max_templates}.",
                         fix="pass a positive number of templates per characteristic, or None to keep them all.")
    kept = []
    for _, ids in cases.groupby("attribute")["case_id"]:
        unique = np.sort(ids.unique())
        kept.extend(np.random.default_rng(seed).permutation(unique)[:max_templates])
    return cases[cases["case_id"].isin(kept)]


def table4(btc_counts: pd.DataFrame) -> pd.DataFrame:
    """Templates, mutants, templates with ≥ 1 BTC and BTCs per model × characteristic (:data:`TABLE4_COLUMNS`)."""
    past = (btc_counts["past_window"].astype(bool) if "past_window" in btc_counts
            else pd.Series(False, index=btc_counts.index))  # a BTC table written before the flag
    unflagged = btc_counts["n_btcs_unflagged"] if "n_btcs_unflagged" in btc_counts else btc_counts["n_btcs"]
    tested = btc_counts.assign(tested=~past, mutants=btc_counts["n_mutants"].where(~past, 0), past=past,
                               unflagged=unflagged)
    grouped = tested.groupby(["model", "attribute"], sort=False)
    out = grouped.agg(templates=("tested", "sum"), mutants=("mutants", "sum"),
                      templates_with_btc=("n_btcs", lambda s: int((s > 0).sum())), btcs=("n_btcs", "sum"),
                      btcs_unflagged=("unflagged", "sum"), templates_past_window=("past", "sum"))
    return out.reset_index().loc[:, list(TABLE4_COLUMNS)].astype({c: int for c in TABLE4_COLUMNS[2:]})


def _pairs(case: pd.DataFrame) -> list[tuple[int, int]]:
    """Row positions (i < j) of the BTC pairs of one model × case, mutants ordered by variant_id."""
    groups, labels = case["group"].to_numpy(), case["label"].to_numpy()
    return [(i, j) for i in range(len(case)) for j in range(i + 1, len(case))
            if groups[i] != groups[j] and labels[i] != labels[j]]


def _allocate(n: int, capacity: dict, ) -> dict:
    """Split ``n`` as evenly as possible over the keys of ``capacity`` without exceeding any (water-filling; the
    first keys in sorted order take the remainder)."""
    out, left, open_keys = dict.fromkeys(capacity, 0), n, sorted(k for k in capacity if capacity[k] > 0)
    while left > 0 and open_keys:
        share, extra = divmod(left, len(open_keys))
        for rank, key in enumerate(open_keys):
            take = min(share + (rank < extra), capacity[key] - out[key])
            out[key] += take
            left -= take
        open_keys = [k for k in open_keys if out[k] < capacity[k]]
    return out


def _flag(row: pd.Series) -> str:
    """A mutant's ``fill_flag`` as text: "" when the fill is clean, the column is missing or the cell is missing."""
    return _flag_text(row.get("fill_flag", ""))


def _flag_text(value) -> str:
    """A ``fill_flag`` cell as text: "" for a clean fill and for any missing value (None, NaN, pd.NA)."""
    return "" if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)) else str(value)


def sample_btcs(scored: pd.DataFrame, *, n: int, seed: int = 0, per_template: int = 2) -> pd.DataFrame:
    """``n`` BTC pairs (fewer if fewer can be drawn) for annotation, stratified as the paper samples: ``n`` is split
    evenly over the characteristics (``attribute``), each characteristic's share evenly over the models (a stratum
    with fewer BTCs gives its unused share to the others), and at most ``per_template`` BTCs come from one template
    (``case_id``, over all models) so that no template dominates. Within a stratum the templates are visited in a
    seeded random order, one BTC each per round, the BTC drawn uniformly among the template's. Columns
    :data:`SAMPLE_COLUMNS`; ``btc_id`` is ``model|variant_a|variant_b``; ``fill_flag_a``/``fill_flag_b`` are the
    two mutants' ``fill_flag`` ("" for a clean fill, and when ``scored`` has no such column; a BTC with a flagged
    fill is weak evidence: the fill's own sentiment may flip the label); :func:`sample_strata` reports the sizes."""
    if n < 1:
        raise InputError(f"n must be at least 1; got {n}.", fix="e.g. n=sample_size(total BTCs).")
    if per_template < 1:
        raise InputError(f"per_template must be at least 1; got {per_template}.", fix="e.g. per_template=2.")
    counts = btcs(scored)
    counts = counts[counts["n_btcs"] > 0]
    capped = counts.assign(cap=counts["n_btcs"].clip(upper=per_template))
    strata = capped.groupby(["attribute", "model"])["cap"].sum().to_dict()
    by_attribute = _allocate(n, {a: sum(v for (att, _), v in strata.items() if att == a)
                                 for a in sorted({a for a, _ in strata})})
    targets = {}
    for attribute, share in by_attribute.items():
        targets.update(_allocate(share, {k: v for k, v in strata.items() if k[0] == attribute}))
    rng = np.random.default_rng(seed)
    mutants = scored[~scored["is_original"]].sort_values("variant_id")
    positions = mutants.groupby(["model", "case_id"], sort=False).indices
    used: dict[tuple[str, str], int] = {}
    rows = []
    for (attribute, model), k in sorted(targets.items()):
        cases = counts[(counts["model"] == model) & (counts["attribute"] == attribute)]["case_id"].to_numpy()
        order = rng.permutation(np.sort(cases))
        drawn: dict[str, set] = {c: set() for c in order}
        pairs = {}
        taken = 0
        while taken < k:
            progressed = False
            for case_id in order:
                if taken == k:
                    break
                if used.get((attribute, case_id), 0) >= per_template:
                    continue
                if case_id not in pairs:
                    case = mutants.iloc[positions[(model, case_id)]]
                    pairs[case_id] = (case, _pairs(case))
                case, candidates = pairs[case_id]
                free = [i for i in range(len(candidates)) if i not in drawn[case_id]]
                if not free:
                    continue
                pick = int(free[rng.integers(len(free))])
                drawn[case_id].add(pick)
                used[(attribute, case_id)] = used.get((attribute, case_id), 0) + 1
                taken += 1
                progressed = True
                i, j = candidates[pick]
                a, b = case.iloc[i], case.iloc[j]
                rows.append({"btc_id": f"{model}|{a['variant_id']}|{b['variant_id']}", "model": model,
                             "attribute": attribute, "case_id": case_id, "variant_a": a["variant_id"],
                             "variant_b": b["variant_id"], "text_a": a["text"], "text_b": b["text"],
                             "group_a": a["group"], "group_b": b["group"], "label_a": a["label"],
                             "label_b": b["label"], "fill_flag_a": _flag(a), "fill_flag_b": _flag(b)})
            if not progressed:
                break
    return pd.DataFrame(rows, columns=list(SAMPLE_COLUMNS))


def sample_strata(scored: pd.DataFrame, sample: pd.DataFrame) -> pd.DataFrame:
    """Per characteristic × model: BTCs and templates with a BTC in ``scored``, and BTCs and distinct templates in
    ``sample`` (columns :data:`STRATA_COLUMNS`), with a total row per characteristic (model ``"all"``).
    ``btcs_flagged``: BTCs of ``scored`` with a flagged fill on at least one side (``n_btcs − n_btcs_unflagged`` of
    :func:`btcs`); ``sampled_flagged``: BTCs of ``sample`` with a flagged fill on either side (its ``fill_flag_a``/
    ``fill_flag_b``; a sample made before those columns is looked up in ``scored`` by model and variant)."""
    counts = btcs(scored)
    counts = counts[counts["n_btcs"] > 0].assign(flagged=lambda c: c["n_btcs"] - c["n_btcs_unflagged"])
    sample = sample.assign(flagged=_sample_flagged(scored, sample).astype(int))
    population = counts.groupby(["attribute", "model"]).agg(btcs=("n_btcs", "sum"),
                                                            templates_with_btc=("case_id", "nunique"),
                                                            btcs_flagged=("flagged", "sum"))
    drawn = sample.groupby(["attribute", "model"]).agg(sampled=("btc_id", "size"),
                                                       templates_sampled=("case_id", "nunique"),
                                                       sampled_flagged=("flagged", "sum"))
    out = population.join(drawn, how="outer").fillna(0).astype(int).reset_index()
    totals = pd.DataFrame({"btcs": counts.groupby("attribute")["n_btcs"].sum(),
                           "templates_with_btc": counts.groupby("attribute")["case_id"].nunique(),
                           "sampled": sample.groupby("attribute").size(),
                           "templates_sampled": sample.groupby("attribute")["case_id"].nunique(),
                           "btcs_flagged": counts.groupby("attribute")["flagged"].sum(),
                           "sampled_flagged": sample.groupby("attribute")["flagged"].sum()})
    totals = totals.fillna(0).astype(int).rename_axis("attribute").reset_index().assign(model="all")
    return pd.concat([out, totals], ignore_index=True).sort_values(["attribute", "model"], ignore_index=True).loc[
        :, list(STRATA_COLUMNS)]


def _sample_flagged(scored: pd.DataFrame, sample: pd.DataFrame) -> pd.Series:
    """Per row of ``sample``: whether either mutant's fill is flagged — from ``fill_flag_a``/``fill_flag_b``, or,
    for a sample without them, from ``scored``'s ``fill_flag`` by (model, variant); False when neither has one."""
    if {"fill_flag_a", "fill_flag_b"} <= set(sample.columns):
        return _is_flagged(sample["fill_flag_a"]) | _is_flagged(sample["fill_flag_b"])
    if "fill_flag" not in scored.columns or sample.empty:
        return pd.Series(False, index=sample.index)
    flags = dict(zip(zip(scored["model"], scored["variant_id"]), scored["fill_flag"]))
    side = {v: _is_flagged(pd.Series([flags.get(key) for key in zip(sample["model"], sample[f"variant_{v}"])],
                                     index=sample.index, dtype=object)) for v in "ab"}
    return side["a"] | side["b"]


def _is_flagged(values: pd.Series) -> pd.Series:
    """``fill_flag`` cells that name a reason (not "" or missing)."""
    return values.map(_flag_text).ne("")


def _unflagged_annotations(annotations: pd.DataFrame, sample: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``annotations`` whose BTC is in ``sample`` with no flagged fill on either side (TK101 for a
    sample without the flag columns, TK102 when no annotated BTC is left)."""
    missing = [c for c in ("btc_id", "fill_flag_a", "fill_flag_b") if c not in sample.columns]
    if missing:
        raise SchemaError(f"the sample lacks {', '.join(map(repr, missing))}: it does not say which BTCs come from "
                          "flagged fills.", fix="draw it again with sample_btcs() (same scored table and seed: the "
                                                "same BTCs, now with fill_flag_a and fill_flag_b).")
    _check_annotation_columns(annotations.columns, source="the annotation table")
    clean = set(sample.loc[~_sample_flagged(pd.DataFrame(), sample), "btc_id"].astype(str))
    kept = annotations[annotations["btc_id"].astype(str).str.strip().isin(clean)]
    if kept.empty:
        raise InputError("no annotated BTC of the sample is free of flagged fills.",
                         fix="annotate more BTCs of the sample, or leave unflagged_in=None for the TPR over all.")
    return kept


def sample_size(population: int, *, margin: float = 0.05, confidence: float = 0.95) -> int:
    """Cochran's n0 = z² · 0.25 / e², corrected for a finite population: n0 / (1 + (n0 − 1) / N), rounded."""
    if population < 1 or not 0 < margin < 1 or not 0 < confidence < 1:
        raise InputError(f"need population ≥ 1 and margin, confidence in (0, 1); got {population}, {margin}, "
                         f"{confidence}.", fix="e.g. sample_size(14916, margin=0.05, confidence=0.95).")
    z = stats.norm.ppf(1 - (1 - confidence) / 2)
    n0 = z * z * 0.25 / (margin * margin)
    return int(min(population, math.floor(n0 / (1 + (n0 - 1) / population) + 0.5)))


ANNOTATION_VALUES: dict[str, dict[str, str]] = {
    # column: accepted spelling (lower case, one space between words) -> the value tpr and kappa read
    "variant": {"a": "a", "b": "b"},
    "coherent": {"yes": "yes", "no": "no", "unsure": "unsure", "not sure": "unsure"},
    "sentiment": {"positive": "positive", "negative": "negative", "neutral": "neutral", "unsure": "unsure",
                  "not sure": "unsure"},
}


def _check_annotation_columns(columns, *, source: str) -> None:
    """SchemaError (TK101) naming the missing annotation columns, the ones ``source`` has and the expected ones."""
    missing = [c for c in ANNOTATION_COLUMNS if c not in columns]
    if missing:
        has = ", ".join(repr(str(c)) for c in columns) or "none"
        raise SchemaError(f"{source} lacks column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} "
                          f"(it has {has}).",
                          fix=f"an annotation CSV has a header row with the columns {', '.join(ANNOTATION_COLUMNS)}; "
                              "rename its columns or point to the right file.")


def read_annotation_csv(path: str | Path) -> pd.DataFrame:
    """Every row of the annotation CSV at ``path`` as text (empty cells ""; an empty file has no rows), the leading
    ``'`` the annotation app puts before a cell that starts like a spreadsheet formula (``=cmd``, and before a
    leading ``'``: :func:`toolkit.results.guard_text`) taken off again. A file without the columns
    :data:`ANNOTATION_COLUMNS`, or that is not a CSV, is a SchemaError (TK101)."""
    from toolkit.results import unguard_text

    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        return pd.DataFrame(columns=list(ANNOTATION_COLUMNS))
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise SchemaError(f"annotation file {str(path)!r} cannot be read as a UTF-8 CSV: {exc}.",
                          fix="repair the file (or move it away to start a new one).") from None
    _check_annotation_columns(frame.columns, source=f"annotation file {str(path)!r}")
    return frame.fillna("").map(unguard_text)


def _annotations(annotations: pd.DataFrame) -> pd.DataFrame:
    _check_annotation_columns(annotations.columns, source="the annotation table")
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


# --- Statistics (issue 24): BTC rates with intervals, the within-class (placebo) null, TPR and κ intervals. ---

PAIR_COLUMNS = ("model", "attribute", "case_id", "pairs_between", "btcs_between", "pairs_within", "btcs_within",
                "past_window")
RATE_COLUMNS = ("model", "attribute", "templates", "pairs_between", "btcs_between", "rate_between", "rate_low",
                "rate_high", "rate_wilson_low", "rate_wilson_high", "null_templates", "pairs_matched",
                "btcs_matched", "pairs_within", "btcs_within", "rate_within", "null_low", "null_high", "estimate",
                "ci_low", "ci_high", "newcombe_low", "newcombe_high", "effect_size", "p_value", "p_adjusted",
                "verdict", "btcs_net", "interval", "ci_method", "p_method", "n_names", "no_interval_reason",
                "no_test_reason")
TABLE4_RATE_COLUMNS = TABLE4_COLUMNS + ("btc_rate", "btc_rate_low", "btc_rate_high", "null_rate", "excess",
                                        "excess_low", "excess_high", "btcs_net", "verdict")
TPR_INTERVAL_COLUMNS = ("annotator", "n_btcs", "true_positives", "tpr", "tpr_low", "tpr_high", "rule")
KAPPA_COLUMNS = ("field", "annotator_a", "annotator_b", "n_mutants", "kappa", "kappa_low", "kappa_high",
                 "merge_neutral")
RATE_INTERVALS: tuple[str, ...] = ("cluster", "templates", "pairs")
MIN_TEMPLATES = 8
"""Fewer templates than this: no interval, and ``no_interval_reason`` says so. Where templates carry the variance,
a two-way bootstrap interval covered 87 % (5 templates) and 90 % (6) of a nominal 95 % even on the t(templates − 1)
scale (docs/statistics.md)."""
SMALL_TEMPLATES = 10
"""From :data:`MIN_TEMPLATES` to fewer than this: a t(templates − 1) interval on the two-way bootstrap SE (covered
91-92 % with 8 templates); from here on the percentile interval (92-97 %)."""
RATE_FAMILY = "BTC-rate excess (between − within class) per model × characteristic"


def pair_counts(scored: pd.DataFrame) -> pd.DataFrame:
    """Per model × case (template): mutant pairs of different classes (``pairs_between``) and of the same class
    (``pairs_within``, the placebo null), and how many of each have different labels (``btcs_between`` equals
    :func:`btcs`'s ``n_btcs``). Columns :data:`PAIR_COLUMNS`; ``past_window`` as in :func:`btcs`."""
    mutants = _mutants(scored, required=("model", "label", "case_id", "group", "attribute"))
    case = ["model", "attribute", "case_id"]
    half_pairs = (lambda n: n * (n - 1) // 2)
    cells = mutants.groupby([*case, "group", "label"], observed=True).size().rename("n").reset_index()
    per_class = cells.groupby([*case, "group"], observed=True)["n"].sum()
    per_label = cells.groupby([*case, "label"], observed=True)["n"].sum()
    out = pd.DataFrame({
        "n": per_class.groupby(level=case, sort=False).sum(),
        "pairs_within": half_pairs(per_class).groupby(level=case).sum(),
        "same_label_within": half_pairs(cells["n"]).groupby([cells[c] for c in case]).sum(),
        "same_label": half_pairs(per_label).groupby(level=case).sum()}).reset_index()
    pairs = half_pairs(out["n"])
    different_labels = pairs - out["same_label"]
    out["btcs_within"] = out["pairs_within"] - out["same_label_within"]
    out["pairs_between"] = pairs - out["pairs_within"]
    out["btcs_between"] = different_labels - out["btcs_within"]
    if "input_id" in mutants.columns:  # as btcs(): every mutant reads the same input → past the model's window
        inputs = mutants.groupby(["model", "case_id"], observed=True)["input_id"].nunique().rename("inputs")
        out = out.merge(inputs.reset_index(), on=["model", "case_id"], how="left")
        out["past_window"] = (out["n"] > 1) & out["inputs"].eq(1)
    else:
        out["past_window"] = False
    return out.loc[:, list(PAIR_COLUMNS)].astype({c: int for c in PAIR_COLUMNS[3:7]})


def _cluster_ratios(numerators: np.ndarray, denominators: np.ndarray, *, n_boot: int, seed: int) -> np.ndarray:
    """``n_boot`` seeded bootstrap replicates over templates (rows) of Σ numerators / Σ denominators, one column per
    ratio (2-D inputs: templates × ratios); a replicate with no pairs is NaN. Drawn in chunks to bound memory."""
    rng = np.random.default_rng(seed)
    t = len(numerators)
    out = []
    for start in range(0, n_boot, 250):
        weights = rng.multinomial(t, np.full(t, 1.0 / t), size=min(250, n_boot - start)).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append((weights @ numerators) / (weights @ denominators))
    return np.concatenate(out)


def _pair_design(mutants: pd.DataFrame) -> dict:
    """One model × characteristic's mutants as a names × templates × labels count array ``x``, each name's class
    (``name_class``) and per template whether it holds a within-class pair (``matched``). A name is a (``group``,
    ``fill``) pair, one name in every template it fills (BiasFinder fills every template with the same names);
    without a ``fill`` column every mutant is its own name."""
    fill = mutants["fill"].astype(str) if "fill" in mutants.columns else mutants["variant_id"].astype(str)
    name_codes, name_keys = pd.factorize(pd.MultiIndex.from_arrays([mutants["group"].astype(str), fill]), sort=True)
    template_codes, templates = pd.factorize(mutants["case_id"], sort=False)
    label_codes, labels = pd.factorize(mutants["label"].astype(str), sort=True)
    x = np.zeros((len(name_keys), len(templates), max(len(labels), 1)))
    np.add.at(x, (name_codes, template_codes, label_codes), 1.0)
    class_codes, _ = pd.factorize(name_keys.get_level_values(0), sort=True)
    per_class = np.zeros((class_codes.max() + 1, len(templates)))
    np.add.at(per_class, class_codes, x.sum(axis=2))
    return {"x": x, "name_class": class_codes, "templates": templates, "matched": (per_class >= 2).any(axis=0)}


def _pair_sums(x: np.ndarray, member: np.ndarray, fill_in: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Per replicate × template (``(B, T)`` arrays): pairs of mutants of different classes and of one class, and
    the BTCs among each, when name i counts ``member[b, i, c]`` times in class c (the data: 1 in its own class).
    ``x``: names × templates × labels counts. Two copies of one drawn name are a within-class pair whose BTC count
    is ``fill_in[i, t]`` (:func:`_fill_in`: the share of the name's classmates that disagree with it in the data)
    rather than 0: a name never disagrees with itself, and counting its copies as agreeing pairs would pull the
    resampled within-class rate below the between-class one (the U-statistic's diagonal)."""
    n_names, n_templates, n_labels = x.shape
    boot, _, n_classes = member.shape
    by_class = member.transpose(0, 2, 1).reshape(boot * n_classes, n_names)
    count = np.einsum("bi,ij->bj", by_class, x.reshape(n_names, -1)).reshape(boot, n_classes, n_templates, n_labels)
    size = count.sum(axis=3)
    within_pairs = ((size * size - size) / 2).sum(axis=1)
    within_btcs = ((size * size - (count * count).sum(axis=3)) / 2).sum(axis=1)
    if fill_in is not None:
        within_btcs = within_btcs + np.einsum("bci,it->bt", (member * member - member).transpose(0, 2, 1) / 2,
                                              fill_in)
    total = count.sum(axis=1)
    size_all = total.sum(axis=2)
    between_pairs = (size_all * size_all - (size * size).sum(axis=1)) / 2
    between_same = ((total * total - (count * count).sum(axis=1)) / 2).sum(axis=2)
    return {"pairs_between": between_pairs, "btcs_between": between_pairs - between_same,
            "pairs_within": within_pairs, "btcs_within": within_btcs}


def _fill_in(x: np.ndarray, name_class: np.ndarray) -> np.ndarray:
    """Per name × template: the share of the name's classmates in that template whose label differs from its own
    (0 where it has none)."""
    n_classes = int(name_class.max()) + 1
    per_class = np.zeros((n_classes,) + x.shape[1:])
    np.add.at(per_class, name_class, x)
    mine = per_class[name_class]  # names × templates × labels: the class's counts
    size = mine.sum(axis=2)
    differ = ((size[..., None] - mine) * x).sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(size > 1, differ / (size - 1), 0.0)


def _rates_of(sums: dict[str, np.ndarray], v: np.ndarray, matched: np.ndarray) -> np.ndarray:
    """``(B, 3)``: the BTC rate between classes over the templates weighted ``v`` and, over the templates with a
    within-class pair, the rates between and within (NaN where there is no such pair)."""
    vm = v * matched
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.column_stack([(v * sums["btcs_between"]).sum(1) / (v * sums["pairs_between"]).sum(1),
                                (vm * sums["btcs_between"]).sum(1) / (vm * sums["pairs_between"]).sum(1),
                                (vm * sums["btcs_within"]).sum(1) / (vm * sums["pairs_within"]).sum(1)])


def _one_hot(codes: np.ndarray, n_classes: int) -> np.ndarray:
    return (codes[..., None] == np.arange(n_classes)).astype(float)


def _two_way_draws(design: dict, *, n_boot: int, seed: int, names: bool = True) -> np.ndarray:
    """``n_boot`` seeded replicates (:func:`_rates_of` columns) that draw templates with replacement and, with
    ``names``, each class's names with replacement: a pigeonhole bootstrap over templates × names (Owen 2007)."""
    x, name_class, matched = design["x"], design["name_class"], design["matched"].astype(float)
    n_names, n_templates = x.shape[:2]
    n_classes = int(name_class.max()) + 1
    fill_in = _fill_in(x, name_class) if names else None
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, n_boot, 100):
        boot = min(100, n_boot - start)
        v = rng.multinomial(n_templates, np.full(n_templates, 1.0 / n_templates), size=boot).astype(float)
        w = np.ones((boot, n_names))
        if names:
            for c in range(n_classes):
                idx = np.flatnonzero(name_class == c)
                w[:, idx] = rng.multinomial(len(idx), np.full(len(idx), 1.0 / len(idx)), size=boot)
        member = w[:, :, None] * _one_hot(name_class, n_classes)[None]
        out.append(_rates_of(_pair_sums(x, member, fill_in), v, matched))
    return np.concatenate(out)


def _permuted_excess(design: dict, *, n_perm: int, seed: int) -> np.ndarray:
    """The excess (between − within, over the templates with a within-class pair) under ``n_perm`` seeded random
    reassignments of the names to the classes, class sizes kept, within each set of names that share templates
    (all names, when every template has the same names): its distribution when names are exchangeable between
    classes, i.e. a model with no class effect however much each name moves it."""
    x, name_class = design["x"][:, design["matched"]], design["name_class"]
    n_classes = int(name_class.max()) + 1
    present = x.sum(axis=(1, 2)) > 0
    x, name_class = x[present], name_class[present]
    blocks = _name_blocks(x)
    rng = np.random.default_rng(seed)
    out = []
    ones = np.ones(x.shape[1])
    for start in range(0, n_perm, 100):
        boot = min(100, n_perm - start)
        codes = np.tile(name_class, (boot, 1))
        for block in blocks:
            codes[:, block] = rng.permuted(codes[:, block], axis=1)
        member = _one_hot(codes, n_classes)
        rates = _rates_of(_pair_sums(x, member), ones[None], ones)
        out.append(rates[:, 1] - rates[:, 2])
    return np.concatenate(out)


def _name_blocks(x: np.ndarray) -> list[np.ndarray]:
    """Sets of names linked through the templates they fill (connected components of the names–templates graph)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    used = x.sum(axis=2) > 0
    n_names, n_templates = used.shape
    rows, cols = np.nonzero(used)
    size = n_names + n_templates
    graph = coo_matrix((np.ones(len(rows)), (rows, n_names + cols)), shape=(size, size)).tocsr()
    _, labels = connected_components(graph, directed=False)
    labels = labels[:n_names]
    return [np.flatnonzero(labels == value) for value in np.unique(labels[used.any(axis=1)])]


def _cohens_h(p1: float, p2: float) -> float:
    """Cohen's h = 2·asin √p1 − 2·asin √p2 (the effect size of a difference of proportions); NaN if either is."""
    if not (np.isfinite(p1) and np.isfinite(p2)):
        return float("nan")
    return float(2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2)))


def _bootstrap_p(draws: np.ndarray, *, n_boot: int) -> float:
    """Two-sided percentile-bootstrap p for a zero difference: twice the share of replicates on the far side of 0,
    at least 1 / (n_boot + 1)."""
    draws = draws[np.isfinite(draws)]
    if not len(draws) or np.all(draws == 0):
        return 1.0
    p = 2 * min(np.mean(draws <= 0), np.mean(draws >= 0))
    return float(min(1.0, max(p, 1.0 / (n_boot + 1))))


def _interval(draws: np.ndarray, estimate: float, templates: int, *, alpha: float, bounded: bool
              ) -> tuple[float, float, float, float, str, str]:
    """``low, high, se, df, ci_method, no_interval_reason`` of one quantity from its two-way replicates:
    the percentile interval from :data:`SMALL_TEMPLATES` templates on; from :data:`MIN_TEMPLATES` to fewer, the
    replicates' standard deviation (times √(k / (k − 1)), the bootstrap's shrinkage over k clusters) with a
    t(k − 1) quantile; below :data:`MIN_TEMPLATES`, none (the reason says why). ``bounded``: a rate, kept in [0, 1]."""
    nan = float("nan")
    draws = draws[np.isfinite(draws)]
    if templates < MIN_TEMPLATES or len(draws) < 2:
        return (nan, nan, nan, nan, "", f"{templates} template(s): fewer than {MIN_TEMPLATES}, where no template "
                "bootstrap covers (docs/statistics.md)")
    se = float(np.std(draws, ddof=1))
    if templates >= SMALL_TEMPLATES:
        low, high = np.quantile(draws, [alpha / 2, 1 - alpha / 2])
        return float(low), float(high), se, float(templates - 1), "two-way percentile", ""
    se *= math.sqrt(templates / (templates - 1))
    q = stats.t.ppf(1 - alpha / 2, templates - 1)
    low, high = estimate - q * se, estimate + q * se
    if bounded:
        low, high = max(low, 0.0), min(high, 1.0)
    return float(low), float(high), se, float(templates - 1), f"two-way SE, t({templates - 1})", ""


def _no_null_reason(tested: pd.DataFrame, matched: pd.DataFrame, attribute: str) -> str:
    """Why a row has no within-class null ("" when it has one)."""
    if len(tested) == 0:
        return "no template with a pair of mutants of different classes"
    if len(matched) == 0:
        hint = {"country": "; generate with n_country_names >= 2",
                "occupation": ": one mutant per occupation, no natural null"}.get(attribute, "")
        return f"no within-class pair: one mutant per class in every template{hint}"
    return ""


def _rate_row(block: pd.DataFrame, mutants: pd.DataFrame, *, attribute: str, alpha: float, n_boot: int, seed: int,
              interval: str) -> dict:
    """One model × characteristic of :func:`rates` (before the family correction and the verdict); ``block``: its
    :func:`pair_counts` rows, ``mutants``: its mutant rows."""
    nan = float("nan")
    tested = block[~block["past_window"] & (block["pairs_between"] > 0)]
    matched = tested[tested["pairs_within"] > 0]
    k, n = int(tested["btcs_between"].sum()), int(tested["pairs_between"].sum())
    rate, wilson_low, wilson_high = tkstats.wilson(k, n, alpha=alpha)
    km, nm = int(matched["btcs_between"].sum()), int(matched["pairs_between"].sum())
    kw, nw = int(matched["btcs_within"].sum()), int(matched["pairs_within"].sum())
    with np.errstate(divide="ignore", invalid="ignore"):  # a null rate of 0: statsmodels' ratio is inf, unused
        newcombe = tkstats.rate_difference(km, nm, kw, nw, alpha=alpha)
    rate_within = kw / nw if nw else nan
    no_null = _no_null_reason(tested, matched, attribute)
    row = {"templates": len(tested), "pairs_between": n, "btcs_between": k, "rate_between": rate,
           "rate_wilson_low": wilson_low, "rate_wilson_high": wilson_high, "null_templates": len(matched),
           "pairs_matched": nm, "btcs_matched": km, "pairs_within": nw, "btcs_within": kw, "rate_within": rate_within,
           "estimate": newcombe["estimate"], "newcombe_low": newcombe["ci_low"], "newcombe_high": newcombe["ci_high"],
           "effect_size": _cohens_h(km / nm if nm else nan, rate_within),
           "btcs_net": max(k - rate_within * n, 0.0) if nw else nan, "interval": interval,
           "no_test_reason": no_null, "n_names": int(mutants.groupby(["group", "fill"] if "fill" in mutants else
                                                                      ["group"]).ngroups)}
    quantiles = [alpha / 2, 1 - alpha / 2]
    if interval == "pairs":
        _, null_low, null_high = tkstats.wilson(kw, nw, alpha=alpha)
        z = stats.norm.ppf(1 - alpha / 2)
        se = (newcombe["ci_high"] - newcombe["ci_low"]) / (2 * z)
        return {**row, "rate_low": wilson_low, "rate_high": wilson_high, "null_low": null_low,
                "null_high": null_high, "ci_low": newcombe["ci_low"], "ci_high": newcombe["ci_high"],
                "p_value": newcombe["p_value"] if not no_null else nan, "se": se, "df": float("inf"),
                "ci_method": "Wilson / Newcombe over pairs", "p_method": "score test over pairs" if not no_null else "",
                "no_interval_reason": ""}
    out = {**row, "rate_low": nan, "rate_high": nan, "null_low": nan, "null_high": nan, "ci_low": nan,
           "ci_high": nan, "p_value": nan, "se": nan, "df": nan, "ci_method": "", "p_method": "",
           "no_interval_reason": ""}
    if interval == "templates":  # the template-only bootstrap (names fixed), kept for comparison
        if len(tested) >= 2:
            draws = _cluster_ratios(tested["btcs_between"].to_numpy(float), tested["pairs_between"].to_numpy(float),
                                    n_boot=n_boot, seed=seed)
            out["rate_low"], out["rate_high"] = np.nanquantile(draws, quantiles)
        if len(matched) >= 2:
            draws = _cluster_ratios(matched[["btcs_between", "btcs_within"]].to_numpy(float),
                                    matched[["pairs_between", "pairs_within"]].to_numpy(float), n_boot=n_boot,
                                    seed=seed)
            excess = draws[:, 0] - draws[:, 1]
            out["null_low"], out["null_high"] = np.nanquantile(draws[:, 1], quantiles)
            out["ci_low"], out["ci_high"] = np.nanquantile(excess, quantiles)
            out.update(p_value=_bootstrap_p(excess, n_boot=n_boot), se=float(np.nanstd(excess, ddof=1)),
                       df=float(len(matched) - 1), ci_method="template percentile",
                       p_method="template bootstrap")
        return out
    if not len(tested):
        return {**out, "no_interval_reason": no_null}
    design = _pair_design(mutants[mutants["case_id"].isin(set(tested["case_id"]))])
    draws = _two_way_draws(design, n_boot=n_boot, seed=seed)
    low, high, _, _, rate_method, rate_why = _interval(draws[:, 0], rate, len(tested), alpha=alpha, bounded=True)
    out.update(rate_low=low, rate_high=high, ci_method=rate_method and f"rate: {rate_method}",
               no_interval_reason=rate_why and f"rate and excess: {rate_why}")
    if no_null:
        return out
    null_low, null_high, _, _, _, _ = _interval(draws[:, 2], rate_within, len(matched), alpha=alpha, bounded=True)
    low, high, se, df, method, why = _interval(draws[:, 1] - draws[:, 2], out["estimate"], len(matched),
                                               alpha=alpha, bounded=False)
    permuted = _permuted_excess(design, n_perm=n_boot, seed=seed)
    p = (1 + np.sum(np.abs(permuted) >= abs(out["estimate"]) - 1e-12)) / (1 + len(permuted))
    if rate_method and method == rate_method:
        methods = method
    else:
        methods = "; ".join(filter(None, [rate_method and f"rate: {rate_method}", method and f"excess: {method}"]))
    reason = out["no_interval_reason"] or (why and f"excess and null, over the templates with a within-class "
                                           f"pair: {why}")
    return {**out, "null_low": null_low, "null_high": null_high, "ci_low": low, "ci_high": high, "se": se,
            "df": df, "ci_method": methods, "no_interval_reason": reason, "p_value": float(min(p, 1.0)),
            "p_method": f"names permuted between classes ({n_boot})"}


def rates(scored: pd.DataFrame, *, alpha: float = tkstats.ALPHA, margin: float = tkstats.MARGIN,
          correction: str = "holm", n_boot: int = tkstats.N_BOOT, seed: int = 0,
          interval: str = "cluster") -> pd.DataFrame:
    """BTC rates with intervals and their placebo null, per model × characteristic (columns :data:`RATE_COLUMNS`).

    What: ``rate_between`` = BTCs / pairs of mutants of different classes (over the templates tested, i.e. not past
    the model's window); ``rate_within`` = the same rate between mutants of the SAME class (two female names; two
    names of one country, which needs ``n_country_names >= 2``) — a name-sensitive but unbiased model has BTCs too,
    and this is how many. Occupation has no natural null (one mutant per occupation): its within columns are 0/NaN.
    The null is compared on the templates that have both kinds of pairs (``null_templates``; gender templates that
    swap only pronouns and nouns have one mutant per class): ``estimate`` (the excess) = ``btcs_matched /
    pairs_matched − rate_within``; ``effect_size`` is Cohen's h between those two rates; ``btcs_net`` = BTCs − 
    ``rate_within`` × pairs, at least 0 (counts net of the null; the raw count stays in ``btcs_between``).
    Names and templates are both samples (issue 32): BiasFinder fills every template with the same names, so a
    name's own effect repeats in every template, and a test that resamples templates alone reads it as bias (52-60 %
    false alarms for a name-sensitive unbiased model). ``interval="cluster"`` (default): ``rate_low/high``,
    ``null_low/high`` and ``ci_low/high`` come from ``n_boot`` seeded two-way replicates that draw templates and,
    within each class, names with replacement (a pigeonhole bootstrap; two copies of one drawn name are not a
    pair): the percentile interval from :data:`SMALL_TEMPLATES` templates on, a t(templates − 1) interval on the
    replicates' SE from :data:`MIN_TEMPLATES`, none below (``no_interval_reason`` says why); ``ci_method`` names
    the one used. ``p_value`` is a permutation test of the excess: the names are reassigned to the classes at random
    (``n_boot`` times, class sizes kept, within each set of names that share templates), the null of a model whose
    names differ but not by class; exact in any number of templates, its type I error was 2-7 % at alpha = 5 % in
    the same-names design (docs/statistics.md). The interval is conservative (97-100 % coverage: at a zero excess
    the excess is a degenerate contrast of names, whose bootstrap over-counts), so near zero the p is the sharper
    reading.
    ``interval="templates"``: the template-only bootstrap (names fixed) with its bootstrap p, kept for comparison;
    ``interval="pairs"``: Wilson (:func:`toolkit.stats.wilson`) and Newcombe (:func:`toolkit.stats.rate_difference`)
    treating pairs as independent (too narrow when templates differ). ``rate_wilson_*`` and ``newcombe_*`` always
    hold the pair-level ones. ``no_test_reason``: why a row has no null (no within-class pair: occupation, country
    with ``n_country_names`` = 1, gender templates that swap only pronouns); ``n_names``: the names (class × fill).
    ``p_adjusted``: ``correction`` (:data:`toolkit.stats.METHODS`) over the family of every row with a p
    (:data:`RATE_FAMILY`); ``verdict`` (:func:`toolkit.stats.verdict` at ``margin``, with the interval's SE and
    df = templates − 1):
    ``a higher`` = more BTCs between classes than within.
    """
    if interval not in RATE_INTERVALS:
        raise unknown("rate interval", interval, RATE_INTERVALS)
    alpha, margin, n_boot = checks.statistics(correction=correction, margin=margin, alpha=alpha, n_boot=n_boot)
    seed = checks.seed(seed)
    pairs = pair_counts(scored)
    mutants = _mutants(scored, required=("model", "label", "case_id", "group", "attribute"))
    by_block = dict(list(mutants.groupby(["model", "attribute"], sort=False)))
    rows = [{"model": model, "attribute": attribute,
             **_rate_row(block, by_block[(model, attribute)], attribute=attribute, alpha=alpha, n_boot=n_boot,
                         seed=seed, interval=interval)}
            for (model, attribute), block in pairs.groupby(["model", "attribute"], sort=False)]
    out = pd.DataFrame(rows, columns=list(RATE_COLUMNS) + ["se", "df"])
    out["p_adjusted"] = tkstats.adjust(out["p_value"].to_numpy(float), method=correction)
    out["verdict"] = [tkstats.verdict(estimate=r.estimate, se=r.se, df=r.df, p_adjusted=r.p_adjusted, margin=margin,
                                      alpha=alpha) if np.isfinite(r.estimate) and np.isfinite(r.p_value)
                      else "inconclusive" for r in out.itertuples()]
    return out.loc[:, list(RATE_COLUMNS)]


def table4_rates(table: pd.DataFrame, rate_table: pd.DataFrame) -> pd.DataFrame:
    """Table 4 (:func:`table4`, the paper's columns and values unchanged) with each row's BTC rate and interval, its
    within-class null rate, the excess with its interval, ``btcs_net`` and the verdict from :func:`rates`
    (columns :data:`TABLE4_RATE_COLUMNS`; NaN where a row has no rate)."""
    renamed = rate_table.rename(columns={"rate_between": "btc_rate", "rate_low": "btc_rate_low",
                                         "rate_high": "btc_rate_high", "rate_within": "null_rate",
                                         "estimate": "excess", "ci_low": "excess_low", "ci_high": "excess_high"})
    extra = list(TABLE4_RATE_COLUMNS[len(TABLE4_COLUMNS):])
    merged = table.loc[:, list(TABLE4_COLUMNS)].merge(renamed.loc[:, ["model", "attribute", *extra]],
                                                      on=["model", "attribute"], how="left")
    return merged.loc[:, list(TABLE4_RATE_COLUMNS)]


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
