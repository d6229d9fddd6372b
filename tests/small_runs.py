"""Real small runs of each study, shared by the tests of verdict words and app exports (tests/conftest.py's
``small_runs`` fixture): two or three offline models, small samples, BTC-SAM on a test set with same-group pairs."""
from __future__ import annotations

import pandas as pd


def btcsam_cases() -> pd.DataFrame:
    """Two religious groups with two terms each: every case holds same-group and cross-group pairs."""
    terms = {"Christian": "christian", "Catholic": "christian", "Muslim": "muslim", "Islamic": "muslim"}
    templates = ["The {} neighbours were kind.", "My {} friend cooked a terrible dinner.", "A {} shop opened.",
                 "The {} teacher was wonderful and generous.", "I hate the {} food here.",
                 "The {} family laughed happily."]
    return pd.DataFrame([{"case_id": f"c{i}", "variant_id": f"c{i}-{term}", "text": template.format(term),
                          "attribute": "religion", "group": group, "fill": term, "generator": "external:test",
                          "template": template, "is_original": term == "Christian", "bias_type": "religion"}
                         for i, template in enumerate(templates) for term, group in terms.items()])


RUNS = {
    "eec": dict(models=["afinn", "vader", "py:synthetic_models:female_plus"], subsets=["all"], n_boot=200),
    "psa": dict(models=["vader", "afinn"], corpus="sample", n=12, n_boot=200),
    "biasfinder": dict(models=["afinn"], corpus="sample", n_names=3, n_boot=200),
    "btcsam": dict(models=["vader", "afinn"], sets={"mini": btcsam_cases()}),
}


def run_all() -> dict:
    from toolkit import studies

    return {name: studies.get(name).run(cache=False, progress=False, **options) for name, options in RUNS.items()}
