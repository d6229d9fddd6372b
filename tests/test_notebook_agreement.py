"""Notebook 05 (agreement across methods) runs end to end with small parameters and writes its tables and figures."""
import json

import pandas as pd
import pytest

from toolkit.notebooks import execute

pytestmark = pytest.mark.notebook


def test_05_agreement_notebook_writes_tau_and_figures(tmp_path):
    figures = tmp_path / "figures"
    executed = execute("05_agreement.ipynb", output_dir=tmp_path, parameters={
        "MODELS": ["vader", "afinn", "ait:svm-unigrams/valence"], "PSA_N": 20, "N_BOOT": 100, "SETS": [],
        "BTCSAM_DIR": None, "CACHE": False, "OUT_DIR": str(tmp_path / "results"), "FIGURES_DIR": str(figures)})
    cells = json.loads(executed.read_text())["cells"]
    assert not [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    tau = pd.read_csv(tmp_path / "results" / "agreement_tau.csv")
    assert len(tau) == 6 and set(tau["n_models"]) == {3} and tau["tau"].between(-1, 1).all()
    headlines = pd.read_csv(tmp_path / "results" / "agreement_headlines.csv")
    assert set(headlines["study"]) == {"eec", "psa", "biasfinder", "btcsam"} and len(headlines) == 12
    for name in ("agreement_tau.png", "agreement_ranks.png", "agreement_tau.pdf"):
        assert (figures / name).stat().st_size > 1000
    provenance = json.loads((tmp_path / "results" / "provenance.json").read_text())
    assert provenance["settings"]["measures"]["psa"] == "PSA ScoreDev"
    assert provenance["settings"]["correction"] == "holm" and set(tau["correction"]) == {"holm"}  # the default
    assert (tau["p_adjusted"].dropna() >= tau["p_value"].dropna() - 1e-12).all()
