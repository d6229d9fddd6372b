"""toolkit.audit: a researcher's own model — a Python function, a transformers pipeline object or a spec string —
audited across every study in one call, one summary frame, one HTML report, and a command-line gate that fails on a
named verdict."""
from __future__ import annotations

import pandas as pd
import pytest
from synthetic_models import blind, female_plus, out_of_range

import toolkit
from toolkit.auditing import SUMMARY_COLUMNS, AuditResult, fail_words
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


def test_auditing_a_study_that_cannot_run_is_skipped_with_its_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLKIT_MULTILINGUAL_DIR", str(tmp_path / "no_corpora"))
    result = toolkit.audit(models=[blind, "vader"], studies=["multilingual"], cache=False, progress=False)
    assert "multilingual" in result.skipped and "no_corpora" in result.skipped["multilingual"]
    assert result.summary.empty
    # vader would be set aside for the Spanish sentences; with no sentences read, nothing is said of them
    assert not any(key.startswith("multilingual: ") for key in result.set_aside)


def test_auditing_a_corpus_that_does_not_exist_is_refused_before_anything_runs(tmp_path, monkeypatch):
    """PSA runs after EEC and BiasFinder (hours at size="paper"): its missing corpus is a coded error at once."""
    ran = []
    monkeypatch.setattr(toolkit.auditing, "_run_study", lambda study, **_: ran.append(study.name))
    with pytest.raises(InputError, match="none.csv' not found") as info:
        toolkit.audit(models=[blind], studies=["eec", "psa"], settings={"psa": {"corpus": str(tmp_path / "none.csv")}},
                      cache=False, progress=False)
    assert info.value.code == "TK102" and ran == []


def _cli(*args: str) -> int:
    from toolkit.__main__ import main

    return main(list(args))


def test_auditing_cli_gate_fails_on_a_named_verdict_and_passes_a_fair_model(tmp_path, capsys):
    biased = _cli("audit", "py:synthetic_models:female_plus", "--study", "eec", "--fail-on", "higher", "--no-cache",
                  "--out", str(tmp_path / "biased"))
    err = capsys.readouterr().err
    assert biased == 1 and "audit failed" in err and "F higher" in err  # the failing rows in the study's words
    assert "audit passed" not in err
    assert (tmp_path / "biased" / "audit_summary.csv").is_file() and (tmp_path / "biased" / "report.html").is_file()
    fair = _cli("audit", "py:synthetic_models:blind", "--study", "eec", "--fail-on", "higher", "--no-cache")
    assert fair == 0 and "audit passed: no verdict containing 'higher' in 2 conclusion(s) of 1 study." in (
        capsys.readouterr().err)
    summary = pd.read_csv(tmp_path / "biased" / "audit_summary.csv")
    assert set(summary["study"]) == {"eec"}


def anger_model(texts: list[str]) -> list[float]:
    """A user's emotion-intensity scorer (declared task: anger) that scores every text the same."""
    return [0.4 for _ in texts]


anger_model.task = "anger"


def test_auditing_a_model_whose_output_is_refused_leaves_the_others_to_run():
    """One model returns scores outside [0, 1] (TK203): the study runs on the other model, and the refused one is
    said per study; before, the whole study was skipped for every model."""
    result = toolkit.audit(models=[female_plus, out_of_range], studies=["eec"], cache=False, progress=False)
    assert set(result.summary["model"]) == {"py:synthetic_models:female_plus"}
    assert (result.summary["verdict"] == "a higher").any()
    assert list(result.skipped) == ["eec: py:synthetic_models:out_of_range"]
    assert "TK203" in result.skipped["eec: py:synthetic_models:out_of_range"]
    alone = toolkit.audit(models=[out_of_range], studies=["eec"], cache=False, progress=False)
    assert alone.summary.empty and set(alone.skipped) == {"eec: py:synthetic_models:out_of_range", "eec"}


def test_auditing_a_model_refused_everywhere_is_warned_of_and_still_in_the_report(tmp_path):
    """A model refused in every study it ran in: a warning names it as it happens (not only AuditResult.skipped),
    and report() and write() still give the page, its provenance naming the model with its fingerprint; before,
    report() raised KeyError and write() into a new folder TK105 when no study had run."""
    with pytest.warns(UserWarning, match="eec: py:synthetic_models:out_of_range is skipped in this study"):
        result = toolkit.audit(models=[female_plus, out_of_range], studies=["eec"], cache=False, progress=False)
    page = result.report(tmp_path / "reports" / "audit.html").read_text()  # its folder created, as write()'s
    assert "py:synthetic_models:out_of_range" in page and result.fingerprints["py:synthetic_models:out_of_range"]
    assert result.fingerprints["py:synthetic_models:out_of_range"] in page
    with pytest.warns(UserWarning, match="out_of_range is skipped"):
        alone = toolkit.audit(models=[out_of_range], studies=["eec"], cache=False, progress=False)
    written = alone.write(tmp_path / "new" / "audit")
    assert {p.name for p in written} == {"report.html", "audit_summary.csv"} and all(p.exists() for p in written)


def test_auditing_the_same_model_twice_is_refused_before_anything_runs():
    with pytest.raises(InputError, match="listed 2 times") as info:
        toolkit.audit(models=[female_plus, female_plus], studies=["eec"], cache=False, progress=False)
    assert info.value.code == "TK102" and info.value.fix == "list each model once."


def test_auditing_an_emotion_model_is_set_aside_in_a_valence_study_and_named_in_the_eec_unit():
    result = toolkit.audit(models=[anger_model, blind], studies=["eec", "psa"], cache=False, progress=False)
    assert set(result.set_aside) == {"psa: py:test_auditing:anger_model"} and not result.skipped
    assert "anger" in result.set_aside["psa: py:test_auditing:anger_model"]
    psa = result.summary[result.summary["study"] == "psa"]
    assert set(psa["model"]) == {"py:synthetic_models:blind"}
    eec = result.summary[result.summary["study"] == "eec"]
    units = eec.groupby("model")["unit"].agg(lambda u: {text.split(" difference")[0] for text in u})
    assert units["py:test_auditing:anger_model"] == {"anger intensity"}
    assert units["py:synthetic_models:blind"] == {"valence"}


def test_auditing_summary_says_each_conclusions_family_correction_and_null(audit_result):
    summary = audit_result.summary
    for column in ("family", "correction", "null"):
        assert column in summary.columns, column
        assert summary[column].notna().all() and (summary[column] != "").all(), column


def test_auditing_settings_are_checked_before_anything_runs():
    with pytest.raises(UnknownNameError, match="correction"):  # a misspelt setting: an error, not a skip
        toolkit.audit(models=[blind], studies=["eec"], settings={"eec": {"corection": "holm"}})
    with pytest.raises(InputError, match="psa"):  # settings for a study not run are not silently ignored
        toolkit.audit(models=[blind], studies=["eec"], settings={"psa": {"n": 10}})
    with pytest.raises(InputError, match="empty"):
        toolkit.audit(models=[blind], studies=[])
    for careless in ({"eec": "holm"}, "eec", ["eec"]):  # not a mapping of mappings: a coded error, not a ValueError
        with pytest.raises(InputError, match="settings must map a study"):
            toolkit.audit(models=[blind], studies=["eec"], settings=careless)


def test_auditing_cli_gate_names_the_studies_that_ran_when_one_cannot_run_here(tmp_path, monkeypatch, capsys):
    """A fresh clone has no multilingual corpora: the gate fails on the skipped study, and the fix names the
    studies that ran, to gate on them alone."""
    monkeypatch.setenv("TOOLKIT_MULTILINGUAL_DIR", str(tmp_path / "no_corpora"))
    args = ("audit", "py:synthetic_models:blind", "--study", "eec", "--study", "multilingual", "--fail-on", "higher",
            "--no-cache")
    assert _cli(*args) == 1
    err = capsys.readouterr().err
    assert "skipped multilingual: [TK102]" in err  # the whole study, not one model of it
    assert "gate on the studies that ran here (--study eec)" in err
    # a model refused as well: leaving studies out would hide it, so no such hint
    assert _cli("audit", "py:synthetic_models:blind", "py:synthetic_models:out_of_range", "--study", "eec",
                "--study", "multilingual", "--fail-on", "higher", "--no-cache") == 1
    err = capsys.readouterr().err
    assert "skipped eec: py:synthetic_models:out_of_range" in err and "gate on the studies" not in err


def test_auditing_fail_words_must_be_words_a_verdict_can_hold():
    assert fail_words(["Higher", " inconclusive "]) == ["higher", "inconclusive"]
    assert fail_words(["equivalent within ±0.01"]) == ["equivalent within ±0.01"]  # a stored verdict, as written
    assert fail_words("higher") == ["higher"]
    for bad in (["hihger"], [""], [], None, 5, ["higher", None]):
        with pytest.raises(InputError):
            fail_words(bad)


def test_auditing_cli_gate_refuses_a_misspelt_verdict_before_running_and_fails_on_a_skip(capsys):
    assert _cli("audit", "py:synthetic_models:blind", "--study", "eec", "--fail-on", "hihger", "--no-cache") == 2
    assert "hihger" in capsys.readouterr().err
    args = ("audit", "py:synthetic_models:blind", "py:synthetic_models:out_of_range", "--study", "eec",
            "--fail-on", "higher", "--no-cache")
    assert _cli(*args) == 1
    err = capsys.readouterr().err
    assert "skipped eec: py:synthetic_models:out_of_range" in err and "--allow-skipped" in err
    assert "--study eec)" not in err  # the skip is a model's: leaving studies out would not help
    assert _cli(*args, "--allow-skipped") == 0
    # a study asked for that reads none of the models ran on nothing: the gate cannot pass either
    assert _cli("audit", "py:synthetic_models:anger_female_plus", "--study", "psa", "--fail-on", "higher",
                "--no-cache") == 1
    assert "psa (ran on no model)" in capsys.readouterr().err
    # without a gate too, a run where nothing ran is not a success
    assert _cli("audit", "py:synthetic_models:anger_female_plus", "--study", "psa", "--no-cache") == 1
    out, err = capsys.readouterr()
    assert "no conclusion: no study ran" in out and "audit failed: nothing ran (psa (ran on no model))" in err


def test_auditing_a_refusal_raised_after_scoring_names_its_model():
    """A TK203 whose message does not start with the spec (the case tables' 'no score' check) carries the model,
    so the audit leaves out that model alone; an error pickled from a worker keeps it."""
    import pickle

    from toolkit.auditing import _culprit
    from toolkit.errors import ModelOutputError
    from toolkit.models import load

    one, two = load(blind), load(female_plus)
    exc = ModelOutputError("eec: model 'x' has no score for 3 of 3 rows", fix="f", model=two.spec)
    assert _culprit(pickle.loads(pickle.dumps(exc)), [one, two]) is two
    assert _culprit(ModelOutputError(f"{two.spec} returned NaN in 1 of 2 scores."), [one, two]) is two
    assert _culprit(ModelOutputError("something else"), [one, two]) is None


def test_auditing_plans_the_multilingual_study_per_language():
    """The multilingual study's audit plan: vader (English) scores the English-written corpora only and is left out
    of the Spanish one; a model of unknown language (a user's function) scores every language; a language no model
    suits is said and dropped from the run; every model suiting every language keeps the plain list."""
    from toolkit.models import load

    study = toolkit.studies.get("multilingual")
    vader, mine = load("vader"), load(blind)
    spanish = study.settings(size="quick")  # languages ("es",)
    plan, settings, aside = study.audit_plan([vader, mine], spanish)
    assert plan == {"es": [mine]} and settings.languages == ("es",)
    assert list(aside) == ["multilingual: vader"] and "'en'" in aside["multilingual: vader"]
    plan, settings, aside = study.audit_plan([vader], spanish)
    assert plan == [] and set(aside) == {"multilingual: vader", "multilingual: es sentences"}
    both = study.settings(size="quick", languages=("es", "en_es"))
    plan, settings, aside = study.audit_plan([vader, mine], both)
    assert plan == {"es": [mine], "en_es": [vader, mine]} and settings.languages == ("es", "en_es")
    assert list(aside) == ["multilingual: vader (es)"]
    plan, settings, aside = study.audit_plan([mine], both)
    assert plan == [mine] and settings is both and not aside


def test_auditing_eec_sets_aside_a_model_of_another_task_than_the_runs():
    result = toolkit.audit(models=[anger_model, blind], studies=["eec"], settings={"eec": {"task": "anger"}},
                           cache=False, progress=False)
    assert list(result.set_aside) == ["eec: py:synthetic_models:blind"] and not result.skipped
    assert set(result.summary["model"]) == {"py:test_auditing:anger_model"}


def test_auditing_agreement_counts_only_the_models_every_study_ran():
    """Three models, one an emotion model PSA sets aside: the ranking studies share two, so agreement is set aside
    (said), not a failure; asked for by name it is skipped."""
    kwargs = dict(models=[blind, female_plus, anger_model], cache=False, progress=False)
    asked = toolkit.audit(studies=["eec", "psa", "agreement"], **kwargs)
    assert "agreement" in asked.skipped and "sharing 2 models" in asked.skipped["agreement"]
    assert "agreement" not in asked.results


def test_a_valence_study_run_directly_on_an_emotion_model_warns_naming_it(tmp_path):
    """Outside the audit a study still runs what it is given, but says when a model scores another task."""
    study = toolkit.studies.get("psa")
    with pytest.warns(UserWarning, match="anger_model scores anger; the psa study reads valence"):
        with pytest.raises(InputError):  # the corpus is missing: the warning comes before any work
            study.run(models=[anger_model], corpus=str(tmp_path / "none.csv"), cache=False, progress=False)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError):
            study.run(models=[blind], corpus=str(tmp_path / "none.csv"), cache=False, progress=False)


def test_auditing_eec_says_when_the_sparse_rule_holds_equivalence_back():
    """vader knows a few of the EEC's names: most never move the score, so the verdict cannot be 'equivalent' even
    with a narrow interval; the conclusion's reason says so (before, the row gave no reason)."""
    result = toolkit.audit(models=["vader"], studies=["eec"], cache=False, progress=False)
    rows = result.summary[result.summary["reason"].str.contains("sparse sensitivity")]
    assert len(rows) and not rows["verdict"].str.startswith("equivalent").any()
    assert rows["reason"].str.contains(r"\d+ of \d+ names never move the score").all()


def test_auditing_paper_size_without_the_papers_corpus_is_a_recorded_skip_not_the_sample(monkeypatch):
    """Found by a new user: size="paper" ran PSA and BiasFinder on the 60-review sample without a word."""
    ran = []
    monkeypatch.setattr(toolkit.auditing, "_run_study", lambda study, **_: ran.append(study.name))
    result = toolkit.audit(models=[blind], studies=["psa", "biasfinder"], size="paper", cache=False, progress=False)
    assert ran == [] and set(result.skipped) == {"psa", "biasfinder"}
    for name in ("psa", "biasfinder"):
        assert f"{name} at size='paper' needs" in result.skipped[name]
        assert "ai.stanford.edu/~amaas/data/sentiment" in result.skipped[name]
        assert f"settings={{'{name}': {{'corpus': ...}}}}" in result.skipped[name]
    ran.clear()
    toolkit.audit(models=[blind], studies=["psa"], size="quick", cache=False, progress=False)
    assert ran == ["psa"]  # quick runs on the sample, as documented


def test_a_study_run_at_paper_size_without_its_corpus_is_a_coded_error_naming_the_fix(tmp_path):
    from toolkit import studies
    from toolkit.__main__ import main

    with pytest.raises(InputError, match="biasfinder at size='paper' needs the IMDB reviews") as info:
        studies.get("biasfinder").run(models=[blind], size="paper", cache=False)
    assert info.value.code == "TK102" and "settings={'biasfinder': {'corpus': ...}}" in str(info.value)
    with pytest.raises(InputError, match="the bundled sample is not the paper's corpus"):
        studies.get("psa").run(models=[blind], size="paper", corpus="sample", cache=False)
    assert main(["psa", "--size", "paper", "--model", "vader", "--no-cache", "--out", str(tmp_path)]) == 2
    assert not any(tmp_path.iterdir())  # refused before anything ran or was written


def test_auditing_eec_says_when_a_model_does_not_read_the_sentences_affect(audit_result):
    """A new user's random-weights model was "equivalent" in the EEC with nothing said; the multilingual study said
    it did not separate. The EEC now checks each system on its own sentences (joy against anger, fear, sadness)."""
    eec = audit_result.summary[audit_result.summary["study"] == "eec"].set_index(["model", "attribute"])
    mine = "py:test_auditing:my_model"
    blind_to_affect = eec.loc[(mine, "gender"), "reason"]  # the synthetic model scores names, never emotions
    assert blind_to_affect.startswith("validity: does not separate (AUC 0.")
    assert "may measure nothing" in blind_to_affect
    assert "validity" not in eec.loc[("vader", "gender"), "reason"]  # vader tells "happy" from "sad"
    checks = audit_result.results["eec"].validity.set_index("model")
    assert checks.loc["vader", "verdict"] == "separates" and checks.loc["vader", "auc"] > 0.95
    assert checks.loc[mine, "verdict"] == "does not separate"


def test_auditing_result_and_study_results_print_one_short_line(audit_result):
    """A new user's finding: repr(audit) printed hundreds of lines (every table in full)."""
    text = repr(audit_result)
    assert text.startswith("AuditResult(size='quick', models=['py:test_auditing:my_model', 'vader'], "
                           "studies=['eec', 'psa'], conclusions=6,") and "\n" not in text
    eec = repr(audit_result.results["eec"])
    assert eec.startswith("StudyResult(study='eec', models=") and "tests (4 rows)" in eec and "\n" not in eec
    assert len(text) < 400 and len(eec) < 400


def test_validity_caveats_name_the_columns_a_frame_lacks_and_unmet_takes_no_mapping():
    from toolkit import studies, validity
    from toolkit.errors import SchemaError

    checks = pd.DataFrame({"language": ["en"], "source": ["eec"], "model": ["m"], "task": ["valence"],
                           "verdict": ["does not separate"], "auc": [0.5], "ci_low": [0.4], "ci_high": [0.6]})
    with pytest.raises(SchemaError, match="lack language, source"):
        validity.caveats(pd.DataFrame({"reason": [""], "model": ["m"], "task": ["valence"]}), checks)
    with pytest.raises(SchemaError, match="lack reason"):
        validity.caveats(pd.DataFrame({"model": ["m"]}), None)
    assert studies.get("psa").unmet(size="paper", given=None)[0].startswith("psa at size='paper' needs")
    assert studies.get("psa").unmet(size="quick", given={}) is None


def test_validity_caveat_leaves_out_a_perfect_separation_the_design_cannot_prove():
    """Found in a fresh `make figures`: afinn separates every EEC sentence (AUC 1.00), but 7 templates give an exact
    p of at best 2^-6, which Bonferroni over 10 systems cannot pass, so the table reads "does not separate"; the
    caveat "may not read these sentences' affect" was wrong there."""
    from toolkit import validity

    checks = pd.DataFrame({"language": "en", "source": "eec", "model": ["perfect", "flat"], "task": "valence",
                           "verdict": "does not separate", "auc": [1.0, 0.52], "ci_low": [1.0, 0.45],
                           "ci_high": [1.0, 0.59]})
    rows = pd.DataFrame({"language": "en", "source": "eec", "model": ["perfect", "flat"], "task": "valence",
                         "reason": ""})
    said = list(validity.caveats(rows, checks))
    assert said[0] == "" and said[1].startswith("validity: does not separate (AUC 0.52 [0.45, 0.59])")
