"""PSA's table captions, as the apps show them: what the table holds, n, the correction family and its size
(each reads only the study's result or its settings)."""
from __future__ import annotations


def psa_table2(*, sentences: int) -> str:
    return (f"PSA Table 2: ScoreDev and ScoreRange per model with their 95% bootstrap intervals over sentences "
            f"(n = {sentences:,} sentences × names; no correction: descriptive).")


def psa_gender(*, n: int, correction: str, family: str, legend: str = "") -> str:
    return (f"Gender gap per model and corpus (n = {n} tests; {correction.capitalize()} over {n} tests ({family}); "
            "a model's significance changes with the models selected)." + (f" {legend}" if legend else ""))
