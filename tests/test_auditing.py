"""toolkit.audit: a researcher's own model — a Python function, a transformers pipeline object or a spec string —
audited across every study in one call, one summary frame, one HTML report, and a command-line gate that fails on a
named verdict."""
from __future__ import annotations

import pandas as pd
import pytest
from synthetic_models import blind, female_plus

import toolkit
from toolkit.auditing import SUMMARY_COLUMNS, AuditResult
from toolkit.errors import InputError, UnknownNameError


def my_model(texts: list[str]) -> list[float]:
    """A user's own scorer defined in a test module (no spec string): the gender-biased synthetic model."""
    return female_plus(texts)


@pytest.fixture(scope="module")
def audit_result() -> AuditResult:
    return toolkit.audit(models=[my_model, "vader"], studies=["eec", "psa"], cache=False, progress=False)


def test_auditing_summary_is_one_frame_of_conclusions_for_every_study_and_model(audit_result):
    summary = audit_result.summary
    assert tuple(summary.columns) == SUMMARY_COLUMNS
    assert set(summary["study"]) == {"eec", "psa"} and not audit_result.skipped
    assert set(summary["model"]) == {"py:test_auditing:my_model", "vader"}
    numbered = summary["estimate"].notna()
    assert ((summary["verdict"] != "") | (summary["reason"] != ""))[numbered].all()


def test_auditing_finds_the_bias_built_into_the_users_function(audit_result):
    """female_plus adds 0.1 to every sentence about a woman: the EEC's gender rows of that model read female
    higher; its race rows do not."""
    eec = audit_result.summary[(audit_result.summary["study"] == "eec")
                               & (audit_result.summary["model"] == "py:test_auditing:my_model")]
    gender, race = eec[eec["attribute"] == "gender"], eec[eec["attribute"] == "race"]
    assert (gender["verdict"] == "a higher").all() and (gender["estimate"] > 0.05).all()
    assert not race["verdict"].str.contains("higher").any()
    assert len(audit_result.failing(["higher"])) >= len(gender)


def test_auditing_report_is_one_page_with_every_studys_tables_and_the_provenance(audit_result, tmp_path):
    page = audit_result.report(tmp_path / "audit.html").read_text(encoding="utf-8")
    for name in ("audit_summary", "eec_stats", "eec_tests", "psa_gender", "psa_stats"):
        assert name in page, name
    assert "py:test_auditing:my_model" in page and "fingerprint" in page and "<img" in page


def test_auditing_takes_a_transformers_pipeline_object(tiny_bert_dir):
    from transformers import pipeline

    pipe = pipeline("sentiment-analysis", model=str(tiny_bert_dir), device="cpu")
    result = toolkit.audit(models=[pipe], studies=["eec"], size="quick", cache=False, progress=False)
    assert set(result.summary["model"]) == {f"hf:{tiny_bert_dir}"} and len(result.summary) == 2


def test_auditing_bad_arguments_are_coded_errors():
    with pytest.raises(UnknownNameError, match="eec"):
        toolkit.audit(models=["vader"], studies=["nope"])
    with pytest.raises(UnknownNameError, match="quick"):
        toolkit.audit(models=["vader"], size="huge")
    with pytest.raises(InputError):
        toolkit.audit(models=[])


def test_auditing_a_study_that_cannot_run_is_skipped_with_its_reason(tmp_path):
    result = toolkit.audit(models=[blind], studies=["psa"], settings={"psa": {"corpus": str(tmp_path / "none.csv")}},
                           cache=False, progress=False)
    assert "psa" in result.skipped and "none.csv" in result.skipped["psa"] and result.summary.empty


def _cli(*args: str) -> int:
    from toolkit.__main__ import main

    return main(list(args))


def test_auditing_cli_gate_fails_on_a_named_verdict_and_passes_a_fair_model(tmp_path, capsys):
    biased = _cli("audit", "py:synthetic_models:female_plus", "--study", "eec", "--fail-on", "higher", "--no-cache",
                  "--out", str(tmp_path / "biased"))
    err = capsys.readouterr().err
    assert biased == 1 and "audit failed" in err and "a higher" in err
    assert (tmp_path / "biased" / "audit_summary.csv").is_file() and (tmp_path / "biased" / "report.html").is_file()
    fair = _cli("audit", "py:synthetic_models:blind", "--study", "eec", "--fail-on", "higher", "--no-cache")
    assert fair == 0
    summary = pd.read_csv(tmp_path / "biased" / "audit_summary.csv")
    assert set(summary["study"]) == {"eec"}
