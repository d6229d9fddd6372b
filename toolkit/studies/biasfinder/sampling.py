"""BiasFinder's annotation sample: which BTCs people read (Asyrofi et al. 2021, Section 6.2).

- :func:`sample_btcs` — a stratified random sample of BTC pairs for annotation: ``n`` split evenly over the
  characteristics, then over the models; at most ``per_template`` BTCs per template, templates visited round-robin
  in a seeded order; each sampled BTC carries its two mutants' ``fill_flag`` (``fill_flag_a``, ``fill_flag_b``)
  (:data:`SAMPLE_COLUMNS`); a sample smaller than ``n`` is warned about with the numbers.
- :func:`sample_strata` — the strata sizes and, per characteristic, how many BTCs come from flagged fills, in the
  population (``btcs_flagged``) and in the sample (``sampled_flagged``) (:data:`STRATA_COLUMNS`).
- :func:`sample_size` — Cochran's sample size for a proportion (p = 0.5) with finite-population correction.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from toolkit.errors import InputError, warn
from toolkit.studies.biasfinder.counting import _flag_text, _is_flagged, btcs

SAMPLE_COLUMNS = ("btc_id", "model", "attribute", "case_id", "variant_a", "variant_b", "text_a", "text_b", "group_a",
                  "group_b", "label_a", "label_b", "fill_flag_a", "fill_flag_b")
STRATA_COLUMNS = ("attribute", "model", "btcs", "templates_with_btc", "sampled", "templates_sampled", "btcs_flagged",
                  "sampled_flagged")


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
    if len(rows) < n:
        _warn_short(drawn=len(rows), asked=n, btcs=int(counts["n_btcs"].sum()),
                    templates=int(counts["case_id"].nunique()), per_template=per_template)
    return pd.DataFrame(rows, columns=list(SAMPLE_COLUMNS))


def _warn_short(*, drawn: int, asked: int, btcs: int, templates: int, per_template: int) -> None:
    """Warn that the annotation sample is smaller than asked, with the numbers and what the shortfall costs."""
    half = 100 * stats.norm.ppf(0.975) * math.sqrt(0.25 / drawn) if drawn else float("inf")
    warn(f"annotation sample: {drawn:,} BTCs drawn of the {asked:,} asked for ({btcs:,} BTCs over {templates:,} "
         f"templates, at most {per_template} per template). A TPR from {drawn:,} BTCs has a 95 % interval of up to "
         + (f"±{half:.0f} percentage points" if drawn else "nothing to estimate")
         + (f", not the ±5 the sample size was chosen for" if drawn else "")
         + f". Raise per_template (now {per_template}), or mine more templates from a larger corpus.")


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


def sample_size(population: int, *, margin: float = 0.05, confidence: float = 0.95) -> int:
    """Cochran's n0 = z² · 0.25 / e², corrected for a finite population: n0 / (1 + (n0 − 1) / N), rounded."""
    if population < 1 or not 0 < margin < 1 or not 0 < confidence < 1:
        raise InputError(f"need population ≥ 1 and margin, confidence in (0, 1); got {population}, {margin}, "
                         f"{confidence}.", fix="e.g. sample_size(14916, margin=0.05, confidence=0.95).")
    z = stats.norm.ppf(1 - (1 - confidence) / 2)
    n0 = z * z * 0.25 / (margin * margin)
    return int(min(population, math.floor(n0 / (1 + (n0 - 1) / population) + 0.5)))

