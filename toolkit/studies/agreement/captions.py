"""Agreement's words: what the number of models allows an agreement claim to say (:func:`claim_words`)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def claim_words(row: Mapping[str, Any], *, alpha: float = 0.05) -> str:
    """One pair of studies' ``tau`` row (``n_models``, ``claim_possible``, ``min_abs_tau``, ``p_min``, ``state``) in
    words: ``6 models: an agreement claim needs |τ| ≥ 0.87 (p < 0.05)`` or ``4 models cannot support an agreement
    claim: …`` (``alpha``: the level the table was made at)."""
    m = int(row["n_models"])
    if row.get("state") == "undefined":
        return f"{m} models, but one study gives every model the same headline: no ranking, no claim"
    if row["claim_possible"]:
        return f"{m} models: an agreement claim needs |τ| ≥ {row['min_abs_tau']:.2f} (p < {alpha:g})"
    if np.isfinite(row["min_abs_tau"]):  # untied rankings could, these ties cannot
        return (f"{m} models with ties cannot support an agreement claim: the smallest exact p is "
                f"{row['p_min']:.3g} ≥ {alpha:g}")
    return f"{m} models cannot support an agreement claim: no ranking of {m} reaches p < {alpha:g}"
