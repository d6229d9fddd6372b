import contextlib
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

TESTS_DIR = Path(__file__).resolve().parent
REQUIRED = {"model", "attribute", "subset", "n_pairs", "mean_diff", "t_stat", "p_value", "p_bonferroni",
            "significant", "direction"}


def _subprocess(*args, cwd):
    """``python -m toolkit ARGS`` in a new Python: for the smoke tests of the exit codes a shell sees."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS_DIR), str(TESTS_DIR.parent)])}  # this checkout
    return subprocess.run([sys.executable, "-m", "toolkit", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def _run(*args, cwd):
    """``python -m toolkit ARGS`` in this process (``toolkit.__main__.main(argv)``, no new Python): its exit code
    (argparse's ``SystemExit`` too), stdout, and stderr with the warnings the run gave, as a new Python shows them."""
    from toolkit.__main__ import main

    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        warnings.simplefilter("always")
        os.chdir(cwd)
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse: a bad option or choice
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            os.chdir(here)
    stderr = err.getvalue() + "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno)
                                      for w in caught)
    return subprocess.CompletedProcess(["toolkit", *args], code, out.getvalue(), stderr)


def test_cli_eec_writes_tests_figures_and_provenance(tmp_path):
    out = tmp_path / "eec"
    proc = _run("eec", "--model", "vader", "--model", "py:synthetic_models:female_plus", "--subset", "all",
                "--subset", "neutral", "--out", str(out), "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    tests = pd.read_csv(out / "eec_tests.csv")
    assert REQUIRED <= set(tests.columns)
    assert set(tests["model"]) == {"vader", "py:synthetic_models:female_plus"}
    assert set(tests["subset"]) == {"all", "neutral"} and (tests["n_tests"] == 4).all()
    row = tests[(tests["model"] == "py:synthetic_models:female_plus") & (tests["attribute"] == "gender")
                & (tests["subset"] == "all")].iloc[0]
    assert row["direction"] == "F↑–M↓ significant" and row["n_pairs"] == 1584
    for name in ("eec_gender_box.png", "eec_race_box.png"):
        assert (out / name).stat().st_size > 1000
    provenance = json.loads((out / "provenance.json").read_text())
    assert [m["spec"] for m in provenance["models"]] == ["vader", "py:synthetic_models:female_plus"]
    assert all(len(m["fingerprint"]) == 32 for m in provenance["models"])
    assert provenance["settings"]["spelling"] == "published"


def test_cli_eec_spelling_corrected_is_recorded_and_a_bad_one_exits_2(tmp_path):
    out = tmp_path / "eec"
    proc = _run("eec", "--model", "py:synthetic_models:blind", "--subset", "all", "--spelling", "corrected", "--out",
                str(out), "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "provenance.json").read_text())["settings"]["spelling"] == "corrected"
    proc = _run("eec", "--model", "vader", "--spelling", "british", "--out", str(tmp_path / "x"), cwd=tmp_path)
    assert proc.returncode == 2 and "corrected" in proc.stderr and "published" in proc.stderr


def test_cli_unknown_model_exits_2_and_lists_the_valid_names(tmp_path):
    proc = _subprocess("eec", "--model", "vadr", "--out", str(tmp_path / "x"), cwd=tmp_path)
    assert proc.returncode == 2
    assert "unknown model 'vadr'" in proc.stderr and "vader" in proc.stderr and "textblob" in proc.stderr
    assert not (tmp_path / "x" / "eec_tests.csv").exists()


def test_cli_lists_models(tmp_path):
    proc = _subprocess("models", cwd=tmp_path)
    assert proc.returncode == 0 and "vader" in proc.stdout.split()


def test_cli_psa_writes_the_three_tables_and_figures(tmp_path):
    out = tmp_path / "psa"
    proc = _run("psa", "--model", "py:synthetic_models:curie_bonus", "--model", "vader", "--corpus", "sample",
                "--n", "20", "--n-boot", "50", "--out", str(out), "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    names = pd.read_csv(out / "psa_names.csv")
    assert {"model", "name", "score_sens"} <= set(names.columns)
    curie = names[(names["model"] == "py:synthetic_models:curie_bonus") & (names["name"] == "Marie Curie")]
    assert curie["score_sens"].iloc[0] == pytest.approx(0.1)
    summary = pd.read_csv(out / "psa_summary.csv")
    assert {"model", "corpus", "score_dev", "score_range"} <= set(summary.columns) and len(summary) == 2
    label_dist = pd.read_csv(out / "psa_label_dist.csv")
    assert {"model", "threshold", "label_dist"} <= set(label_dist.columns)
    assert (out / "psa_label_dist.png").stat().st_size > 1000
    not_drawn = json.loads((out / "provenance.json").read_text())["settings"]["figures_not_drawn"]
    assert not (out / "psa_score_sens_vader.png").exists() and "psa_score_sens_vader" in not_drawn  # one bar: words


def test_cli_model_option_takes_a_comma_list_and_counts_a_repeated_spec_once(tmp_path):
    out = tmp_path / "psa"
    proc = _run("psa", "--model", "vader,afinn", "--model", "vader", "--corpus", "sample", "--n", "5", "--n-boot",
                "20", "--out", str(out), "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(pd.read_csv(out / "psa_summary.csv")["model"]) == ["afinn", "vader"]
    assert "vader" in proc.stderr and "once" in proc.stderr  # the repeat is named, not silently dropped


def test_cli_psa_reports_a_bad_names_file(tmp_path):
    bad = tmp_path / "names.csv"
    bad.write_text("name,sex\nX,f\n")
    proc = _run("psa", "--model", "vader", "--names", str(bad), "--n", "4", "--out", str(tmp_path / "o"),
                cwd=tmp_path)
    assert proc.returncode == 2 and "lacks column 'gender'" in proc.stderr


def test_cli_biasfinder_scores_at_most_max_templates_per_characteristic(tmp_path):
    out = tmp_path / "bf"
    proc = _run("biasfinder", "--corpus", "sample", "--model", "vader", "--max-templates", "3", "--out", str(out),
                "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for name in ("biasfinder_btcs.csv", "biasfinder_table4.csv", "provenance.json", "biasfinder_btcs.png"):
        assert (out / name).exists() and str(out / name) in proc.stdout
    table = pd.read_csv(out / "biasfinder_table4.csv")
    assert set(table["attribute"]) == {"gender", "occupation", "country"} and set(table["model"]) == {"vader"}
    assert (table["templates"] <= 3).all() and (table["templates"] >= 1).all()
    assert table.set_index("attribute").loc["gender", "templates"] == 3  # the sample has more than 3
    counts = pd.read_csv(out / "biasfinder_btcs.csv")
    assert (counts.groupby("attribute")["case_id"].nunique() <= 3).all()
    settings = json.loads((out / "provenance.json").read_text())["settings"]
    assert settings["max_templates"] == 3 and settings["seed"] == 0
    assert settings["word_lists"]["preset"] == "curated"  # the default, recorded
    assert "templates" in proc.stdout and "btcs" in proc.stdout  # Table 4 printed


def test_cli_biasfinder_generator_options_reach_the_run_and_its_provenance(tmp_path):
    out = tmp_path / "bf"
    proc = _run("biasfinder", "--corpus", "sample", "--model", "vader", "--instance", "occupation", "--instance",
                "gender", "--max-templates", "2", "--occupation-fit", "family", "--people", "skip-real",
                "--coherence", "paper", "--person-names", "cluster", "--gender-nouns", "both", "--occupation-templates", "each",
                "--country-clusters", "first-valid", "--pronoun-slots", "parse", "--noun-fills", "pair",
                "--out", str(out),
                "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    settings = json.loads((out / "provenance.json").read_text())["settings"]
    assert settings["generation_report"]["occupation_fit"]["method"] == "family"
    assert settings["generation_report"]["people"] == "skip-real"
    assert settings["generation_report"]["coherence"] == "paper"
    paper = settings["coherence"]["paper"]
    assert (paper["person_names"], paper["gender_nouns"], paper["titles"], paper["occupation_templates"]) == (
        "cluster", "both", "extended", "each")
    assert paper["country_clusters"] == "first-valid"
    assert (paper["pronoun_slots"], paper["noun_fills"]) == ("parse", "pair")
    bad = _run("biasfinder", "--corpus", "sample", "--model", "vader", "--coherence", "title_nam", "--out",
               str(tmp_path / "bad"), "--no-cache", cwd=tmp_path)
    assert bad.returncode == 2 and "TK103" in bad.stderr and "title_name" in bad.stderr


def test_cli_biasfinder_rejects_max_templates_below_one(tmp_path):
    proc = _run("biasfinder", "--model", "vader", "--max-templates", "0", "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert proc.returncode == 2
    assert "[TK102] max_templates must be a whole number of at least 1 or None; got 0" in proc.stderr
    assert "Fix:" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_cli_eec_per_task_writes_task_columns_tables_and_pearson(tmp_path):
    out = tmp_path / "eec"
    proc = _run("eec", "--task", "anger", "--model", "ait:svm-unigrams/anger", "--model", "ait:lexicon-ridge/anger",
                "--subset", "all", "--subset", "neutral", "--out", str(out), "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    tests = pd.read_csv(out / "eec_tests.csv")
    assert set(tests["task"]) == {"anger"} and len(tests) == 2 * 2 * 2  # models × attributes × subsets
    summary = pd.read_csv(out / "eec_summary.csv")
    assert list(summary["table"].dropna().drop_duplicates()) == ["Table 5", "Table 6", "Table 7"]
    assert summary["table"].isna().sum() == 4  # race on the neutral subset: no table of the paper
    assert (summary.groupby("table").size() == 4).all()  # one task: three groups + All
    provenance = json.loads((out / "provenance.json").read_text())
    assert set(provenance["settings"]["pearson_test"]) == {"ait:svm-unigrams/anger", "ait:lexicon-ridge/anger"}
    assert provenance["settings"]["model_tasks"] == {"ait:svm-unigrams/anger": "anger",
                                                     "ait:lexicon-ridge/anger": "anger"}
    assert provenance["settings"]["clipped_rows"]["ait:svm-unigrams/anger"]["rows"] == 8640


def test_cli_eec_task_mismatch_and_missing_choice_exit_2(tmp_path):
    proc = _run("eec", "--task", "fear", "--model", "ait:svm-unigrams/anger", "--out", str(tmp_path / "x"),
                cwd=tmp_path)
    assert proc.returncode == 2 and "predicts 'anger', not the task 'fear'" in proc.stderr
    proc = _run("eec", "--out", str(tmp_path / "x"), cwd=tmp_path)
    assert proc.returncode == 2 and "--task" in proc.stderr


def test_cli_lists_the_trained_systems_with_their_task(tmp_path):
    lines = _run("models", cwd=tmp_path).stdout.splitlines()
    assert any(line.split() == ["ait:svm-unigrams/fear", "fear"] for line in lines)


def test_cli_biasfinder_lists_paper_fills_the_released_lists_and_records_them(tmp_path):
    out = tmp_path / "bf"
    proc = _run("biasfinder", "--corpus", "sample", "--model", "vader", "--instance", "occupation", "--lists",
                "paper", "--scored", "--max-templates", "2", "--out", str(out), "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    settings = json.loads((out / "provenance.json").read_text())["settings"]
    assert settings["word_lists"]["preset"] == "paper" and settings["word_lists"]["occupations"] == 79
    scored = pd.read_csv(out / "biasfinder_scored.csv", keep_default_na=False)
    fills = set(scored.loc[scored["group"] != "", "fill"])
    assert len(fills) == 79 and {"construction worker", "air traffic controller", "CEO"} <= fills
    bad = _run("biasfinder", "--model", "vader", "--lists", "papers", "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert bad.returncode == 2 and "invalid choice: 'papers'" in bad.stderr


def test_cli_eec_report_and_latex_are_part_of_the_run_and_a_plain_rerun_removes_them(tmp_path):
    out = tmp_path / "eec"
    base = ("eec", "--model", "py:synthetic_models:female_plus", "--subset", "all", "--n-boot", "200", "--out",
            str(out), "--no-cache")
    proc = _run(*base, "--report", "--latex", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    tex = {"eec_table5.tex", "eec_table7.tex", "eec_table5_systems.tex", "eec_table7_systems.tex"}
    for name in {"report.html", *tex}:
        assert (out / name).is_file() and str(out / name) in proc.stdout.splitlines()
    assert not (out / "eec_table6.tex").exists()  # no neutral subset tested: no Table 6
    listed = set(json.loads((out / "provenance.json").read_text())["outputs"])
    assert {"report.html", *tex} <= listed
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count("<img ") == 4 and "eec_tests" in html and "<script" not in html
    table5 = (out / "eec_table5.tex").read_text()
    assert r"\toprule" in table5 and r"\label{tab:eec-table5}" in table5 and "F$\\uparrow$" in table5

    again = _run("report", str(out), "--html", str(tmp_path / "again.html"), cwd=tmp_path)
    assert again.returncode == 0 and (tmp_path / "again.html").read_text(encoding="utf-8").count("<img ") == 4
    proc = _run(*base, cwd=tmp_path)  # the same run without --report and --latex
    assert proc.returncode == 0, proc.stderr
    assert not (out / "report.html").exists() and not any(out.glob("*.tex"))

    cmp = _run("compare", str(out), str(out), "--html", str(tmp_path / "cmp.html"), cwd=tmp_path)
    assert cmp.returncode == 0, cmp.stderr
    assert (tmp_path / "cmp.html").read_text(encoding="utf-8").count("(same in both runs)") == 4  # 3 tables, the stats
    bad = _run("report", str(tmp_path / "nothing"), cwd=tmp_path)
    assert bad.returncode == 2 and "TK102" in bad.stderr and "provenance.json" in bad.stderr


def test_cli_coherence_option_never_turns_every_rule_off_by_being_empty():
    from toolkit.errors import UnknownNameError
    from toolkit.studies.biasfinder import coherence_option as _coherence
    from toolkit.studies.biasfinder.generator.rules import active

    assert _coherence("paper") == "paper" and _coherence("deity, honorific") == ("deity", "honorific")
    for empty in ("", ",", " , "):
        with pytest.raises(UnknownNameError, match="paper"):
            active(_coherence(empty))


def test_cli_biasfinder_paper_preset_reaches_the_generator(tmp_path):
    """--coherence paper --backend neuralcoref --lists paper: BiasFinder's generator from the command line, recorded
    in provenance (in process; the weights come with `make`)."""
    import json

    from toolkit.__main__ import main
    from toolkit.nlp import neuralcoref

    if not any(all((d / f).is_file() for f in neuralcoref.FILES) for d in neuralcoref.model_dirs()):
        pytest.skip(f"neuralcoref model not fetched ({neuralcoref.FETCH})")
    corpus = tmp_path / "reviews.csv"
    corpus.write_text("text\n\"Meryl Streep is wonderful. She owns every scene she is in.\"\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["biasfinder", "--corpus", str(corpus), "--model", "vader", "--out", str(out), "--no-cache",
                 "--instance", "gender", "--coherence", "paper", "--backend", "neuralcoref", "--lists", "paper",
                 "--n-names", "2"]) == 0
    settings = json.loads((out / "provenance.json").read_text(encoding="utf-8"))["settings"]
    assert '"neuralcoref"' in json.dumps(settings) and '"biasfinder"' in json.dumps(settings)


def test_cli_agreement_offers_its_own_corrections_over_the_pairs_and_others_keep_theirs(tmp_path):
    """Agreement's family is its pairs of studies: --correction takes holm (its default), bonferroni or none, and a
    study whose family is a model's tests still refuses none (argparse: exit 2, the valid choices listed)."""
    proc = _run("agreement", "--help", cwd=tmp_path)
    help_text = " ".join(proc.stdout.split())
    assert proc.returncode == 0 and "{holm,bonferroni,none}" in help_text and "(default holm)" in help_text
    proc = _run("agreement", "--model", "vader", "--correction", "fdr_bh", "--out", str(tmp_path / "a"),
                cwd=tmp_path)
    assert proc.returncode == 2 and "holm" in proc.stderr
    proc = _run("eec", "--model", "vader", "--correction", "none", "--out", str(tmp_path / "e"), cwd=tmp_path)
    assert proc.returncode == 2 and "fdr_bh" in proc.stderr


def test_cli_eec_box_colour_reaches_the_figures_and_is_recorded(tmp_path):
    """--box-colour two-way colours the box plots by the names × templates test; provenance.json records it (the
    figure options given; a plain run records the default, paper)."""
    out = tmp_path / "eec"
    proc = _run("eec", "--model", "py:synthetic_models:blind", "--subset", "all", "--box-colour", "two-way", "--out",
                str(out), "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    settings = json.loads((out / "provenance.json").read_text())["settings"]
    assert settings["figure_options"] == {"colour_by": "two-way"}
    proc = _run("eec", "--model", "py:synthetic_models:blind", "--subset", "all", "--out", str(tmp_path / "plain"),
                "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "plain" / "provenance.json").read_text())["settings"]["figure_options"] == \
        {"colour_by": "paper"}
    proc = _run("eec", "--model", "vader", "--box-colour", "t-test", "--out", str(tmp_path / "x"), cwd=tmp_path)
    assert proc.returncode == 2 and "two-way" in proc.stderr
