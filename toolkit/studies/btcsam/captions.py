"""BTC-SAM's table captions, as the apps show them: what the table holds, n, the correction family and its size
(each reads only the study's result or its settings)."""
from __future__ import annotations


def btcsam_failure(*, theta, rule: str, legend: str = "") -> str:
    """The failure-% table (the paper's Table 5): per model, test set and bias type."""
    return (f"BTC-SAM Table 5: failure % per model, test set and bias type at θ = {theta} ({rule} rule; Wilson "
            "intervals; the excess of cross-group over same-group pairs where a set has both, Newcombe's interval, "
            "corrected over model × test set × bias type)." + (f" {legend}" if legend else ""))


def btcsam_detection(*, theta, rule: str, cases: int, sets: int) -> str:
    return (f"BTC-SAM detection probability at θ = {theta} ({rule} rule; n = {cases:,} cases of {sets} test set(s); "
            "Wilson intervals, no correction).")
