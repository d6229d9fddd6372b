"""The EEC's table captions, as the apps show them: what the table holds, n, the correction family and its size
(each reads only the study's result or its settings)."""
from __future__ import annotations

import pandas as pd


def eec_family(tests: pd.DataFrame) -> str:
    """"Bonferroni over 4 tests (eec:all: 2 attributes × 2 systems)": the correction and its family's size."""
    if tests.empty or "n_tests" not in tests.columns:
        return ""
    first = tests.iloc[0]
    family = str(first.get("family", "")).split(" = ")[0]
    return (f"{str(first.get('correction', 'bonferroni')).capitalize()} over {int(first['n_tests'])} tests"
            + (f" ({family})" if family else "") + "; a system's significance changes with the systems selected")


def eec_table(*, attribute: str, subset: str, n: int, family: str) -> str:
    return (f"EEC {attribute}, subset {subset}: systems per significance group with the 95% interval over the "
            f"group's systems (n = {n} systems; {family}).")


def eec_systems(*, subset: str, n: int, family: str, legend: str) -> str:
    """The per-system table: each system's paired t-test (the paper's) and two-way estimate with its verdict."""
    return (f"EEC per system, subset {subset}: the paper's paired t-test and the two-way estimate with its 95% "
            f"interval, simultaneous over the family (n = {n} tests; {family})." + (f" {legend}" if legend else ""))
