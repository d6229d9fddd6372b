"""The statistics options reach every study from the command line and land in the results and provenance."""
import json

import pandas as pd
import pytest

from toolkit.__main__ import main


def test_eec_cli_correction_margin_and_seed_are_used_and_recorded(tmp_path, capsys):
    out = tmp_path / "eec"
    assert main(["eec", "--model", "vader", "--out", str(out), "--no-cache", "--correction", "holm", "--margin",
                 "0.02", "--n-boot", "200", "--seed", "3"]) == 0
    settings = json.loads((out / "provenance.json").read_text())["settings"]
    assert (settings["correction"], settings["margin"], settings["n_boot"], settings["seed"]) == ("holm", 0.02, 200, 3)
    tests = pd.read_csv(out / "eec_tests.csv")
    assert {"estimate", "ci_low", "ci_high", "effect_size", "p_adjusted", "verdict"} <= set(tests.columns)
    assert set(tests["correction"]) == {"holm"}
    assert set(tests["ci_method"]) <= {"satterthwaite"} and set(tests["weighting"]) == {"sentences"}


def test_eec_cli_two_way_method_weighting_and_family_size_reach_the_table(tmp_path, capsys):
    out = tmp_path / "eec"
    assert main(["eec", "--model", "vader", "--out", str(out), "--no-cache", "--subset", "neutral", "--two-way",
                 "bootstrap-t", "--n-boot", "200", "--weighting", "templates", "--family-size", "438"]) == 0
    tests = pd.read_csv(out / "eec_tests.csv")
    assert set(tests["weighting"]) == {"templates"} and set(tests["n_family"]) == {438}
    assert set(tests["ci_method"]) <= {"bootstrap-t", "percentile (bootstrap-t undefined)"}
    settings = json.loads((out / "provenance.json").read_text())["settings"]
    assert (settings["method"], settings["weighting"], settings["family_size"]) == ("bootstrap-t", "templates", 438)


@pytest.mark.parametrize("study", ["eec", "psa", "biasfinder"])
def test_an_unknown_correction_is_refused_with_the_choices(tmp_path, capsys, study):
    with pytest.raises(SystemExit) as info:
        main([study, "--model", "vader", "--out", str(tmp_path / "o"), "--correction", "sidak"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'sidak'" in err and all(m in err for m in ('bonferroni', 'holm', 'fdr_bh'))


def test_biasfinder_cli_country_names_give_the_country_null_and_interval_is_recorded(tmp_path, capsys):
    out = tmp_path / "bf"
    assert main(["biasfinder", "--model", "vader", "--instance", "country", "--instance", "gender",
                 "--n-country-names", "2", "--interval", "pairs", "--few-templates", "none", "--n-boot", "100",
                 "--out", str(out), "--no-cache"]) == 0
    settings = json.loads((out / "provenance.json").read_text())["settings"]
    assert settings["n_country_names"] == 2 and settings["interval"] == "pairs"
    assert settings["few_templates"] == "none" and "no interval" in settings["few_templates_method"]
    rates = pd.read_csv(out / "biasfinder_rates.csv")
    country = rates[rates["attribute"] == "country"].iloc[0]
    assert country["pairs_within"] > 0  # two names per country and gender: same-country pairs exist
