"""The studies' table captions, as the apps show them: what the table holds, n, the correction family and its
size (each reads only a study's result or its settings)."""
from __future__ import annotations

import pandas as pd


def biasfinder_family(settings: dict) -> str:
    """The BiasFinder caption's correction clause; no test when no characteristic has 2 templates with a null."""
    if not settings.get("family_size"):
        return ("no test of the BTC rate: it needs 2 templates of one characteristic with a within-class null; "
                "gender needs n_names ≥ 2 and a name slot, country n_country_names ≥ 2, occupation has no null")
    return (f"{str(settings['correction']).capitalize()} over {settings['family_size']} tests ({settings['family']}); "
            "a model's verdict changes with the models selected")


def eec_family(tests: pd.DataFrame) -> str:
    """"Bonferroni over 4 tests (eec:all: 2 attributes × 2 systems)": the correction and its family's size."""
    if tests.empty or "n_tests" not in tests.columns:
        return ""
    first = tests.iloc[0]
    family = str(first.get("family", "")).split(" = ")[0]
    return (f"{str(first.get('correction', 'bonferroni')).capitalize()} over {int(first['n_tests'])} tests"
            + (f" ({family})" if family else "") + "; a system's significance changes with the systems selected")


def eec_table(*, attribute: str, subset: str, n: int, family: str) -> str:
    return f"EEC {attribute}, subset {subset}: systems per significance group (n = {n} systems; {family})."


def psa_table2(*, sentences: int) -> str:
    return (f"PSA Table 2: ScoreDev and ScoreRange per model (n = {sentences:,} sentences × names; no correction: "
            "descriptive).")


def psa_gender(*, n: int, correction: str, family: str) -> str:
    return (f"Gender gap per model and corpus (n = {n} tests; {correction.capitalize()} over {n} tests ({family}); "
            "a model's significance changes with the models selected).")


def biasfinder_table4(*, mutants: int, templates: int, settings: dict) -> str:
    return (f"BiasFinder Table 4: BTCs per model and characteristic (n = {mutants:,} mutants of {templates:,} "
            f"templates; {biasfinder_family(settings)}).")


def btcsam_detection(*, theta, rule: str, cases: int, sets: int) -> str:
    return (f"BTC-SAM detection probability at θ = {theta} ({rule} rule; n = {cases:,} cases of {sets} test set(s); "
            "Wilson intervals, no correction).")
