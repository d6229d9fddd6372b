"""Agreement's words: what the number of models allows an agreement claim to say (:func:`claim_words`)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def family_words(row: Mapping[str, Any], *, alpha: float = 0.05) -> tuple[str, str]:
    """One ``tau`` row's correction in words: ``("Holm over 6 pairs", "0.05/6")`` — how the pairs are corrected and
    the level the first claim needs — or ``("", "0.05")`` with no correction (a row without the columns)."""
    correction, size = str(row.get("correction", "none")), row.get("family_size", 1)
    size = int(size) if isinstance(size, (int, float, np.integer, np.floating)) and np.isfinite(size) else 1
    if correction == "none" or size <= 1:
        return "", f"{alpha:g}"
    return f"{correction.capitalize()} over {size} pairs", f"{alpha:g}/{size}"


def claim_words(row: Mapping[str, Any], *, alpha: float = 0.05) -> str:
    """One pair of studies' ``tau`` row (``n_models``, ``claim_possible``, ``min_abs_tau``, ``p_min``, ``state``,
    ``correction``, ``family_size``) in words: ``6 models: an agreement claim needs τ ≥ 0.87 (p < 0.05)``,
    ``8 models, Holm over 6 pairs: the first agreement claim needs τ ≥ 0.79 (p < 0.05/6)`` or ``4 models cannot
    support an agreement claim: …`` (``alpha``: the level the table was made at)."""
    m = int(row["n_models"])
    family, level = family_words(row, alpha=alpha)
    who = f"{m} models" + (f", {family}" if family else "")
    if row.get("state") == "undefined":
        return f"{m} models, but one study gives every model the same headline: no ranking, no claim"
    if row["claim_possible"]:
        first = "the first agreement claim" if family.startswith("Holm") else "an agreement claim"
        return f"{who}: {first} needs τ ≥ {row['min_abs_tau']:.2f} (p < {level})"
    if np.isfinite(row["min_abs_tau"]):  # untied rankings could, these ties cannot
        return (f"{m} models with ties" + (f", {family}," if family else "") + " cannot support an agreement claim: "
                f"the smallest exact p is {row['p_min']:.3g} ≥ {level}")
    return f"{who} cannot support an agreement claim: no ranking of {m} reaches p < {level}"
