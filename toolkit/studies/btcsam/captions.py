"""BTC-SAM's table captions, as the apps show them: what the table holds, n, the correction family and its size
(each reads only the study's result or its settings)."""
from __future__ import annotations


def btcsam_detection(*, theta, rule: str, cases: int, sets: int) -> str:
    return (f"BTC-SAM detection probability at θ = {theta} ({rule} rule; n = {cases:,} cases of {sets} test set(s); "
            "Wilson intervals, no correction).")
