"""Every numbered notebook runs end to end (papermill, offline models, small parameters) and writes its figures."""
import json
import re

import pandas as pd
import pytest

from toolkit import plots
from toolkit.notebooks import execute, notebooks_dir

pytestmark = pytest.mark.notebook


def _assert_paper_pdfs(figures, preset: str | None = None) -> None:
    """Every PDF the notebook wrote: no Type 3 font, TrueType embedded, no wider than the preset (default: the one
    active here, which the kernel inherits through the environment) (issue 26)."""
    preset = preset or plots.preset().name
    pdfs = sorted(figures.glob("*.pdf"))
    assert pdfs, f"no PDF in {figures}"
    for path in pdfs:
        pdf = path.read_bytes()
        assert not re.search(rb"/Subtype\s*/Type3", pdf) and b"/FontFile2" in pdf, path.name
        width = float(re.search(rb"/MediaBox\s*\[\s*[-\d.]+\s+[-\d.]+\s+([-\d.]+)", pdf).group(1)) / 72
        assert width <= plots.PRESETS[preset].width + 1e-6, (path.name, width, preset)


def _errors(executed):
    cells = json.loads(executed.read_text())["cells"]
    return [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"]


def test_every_committed_notebook_is_clean_and_parameterised():
    notebooks = sorted(notebooks_dir().glob("[0-9][0-9]_*.ipynb"))
    assert notebooks, "no notebooks found"
    for path in notebooks:
        cells = json.loads(path.read_text())["cells"]
        code = [c for c in cells if c["cell_type"] == "code"]
        assert not any(c.get("outputs") or c.get("execution_count") for c in code), f"{path.name} has outputs"
        assert any("parameters" in c.get("metadata", {}).get("tags", []) for c in code), path.name


def test_01_eec_notebook_writes_its_figures(tmp_path):
    figures = tmp_path / "figures"
    executed = execute("01_eec.ipynb", output_dir=tmp_path, parameters={
        "MODELS": ["vader", "afinn"], "SUBSETS": ["all", "neutral"], "CACHE": False,
        "OUT_DIR": str(tmp_path / "results"), "FIGURES_DIR": str(figures)})
    assert not _errors(executed)
    for name in ("eec_gender_box.png", "eec_race_box.png", "eec_gender_box.pdf", "eec_race_box.pdf",
                 "eec_race_confounds.png", "eec_intersections.png", "eec_race_wordings.png"):  # + issue 36's
        assert (figures / name).stat().st_size > 1000
    assert (tmp_path / "results" / "eec_tests.csv").exists()
    confounds = pd.read_csv(tmp_path / "results" / "eec_race_confounds.csv")  # the numbers behind the figures
    assert {"model", "analysis", "estimate", "ci_low", "ci_high"} <= set(confounds.columns)
    assert set(confounds["model"]) == {"vader", "afinn"}
    assert len(pd.read_csv(tmp_path / "results" / "eec_intersections.csv"))
    assert set(pd.read_csv(tmp_path / "results" / "eec_wordings.csv")["model"]) == {"vader", "afinn"}
    record = json.loads((tmp_path / "results" / "provenance.json").read_text())  # the analyses' files are listed
    for name in ("eec_race_confounds.csv", "eec_intersections.csv", "eec_wordings.csv",
                 str((figures / "eec_intersections.pdf").resolve()),
                 str((figures / "eec_race_wordings.png").resolve())):
        assert name in record["outputs"]
    assert {"eec_race_confounds", "eec_intersections", "eec_wordings"} <= set(
        next(e for e in record["added"] if e["step"].startswith("tables"))["settings"])
    _assert_paper_pdfs(figures)


def test_01_eec_notebook_runs_an_emotion_task_of_the_trained_zoo(tmp_path):
    figures = tmp_path / "figures"
    executed = execute("01_eec.ipynb", output_dir=tmp_path, parameters={
        "TASK": "joy", "MODELS": ["ait:svm-unigrams/joy", "ait:ridge-chars/joy"], "SUBSETS": ["all", "neutral"],
        "CACHE": False, "OUT_DIR": str(tmp_path / "results"), "FIGURES_DIR": str(figures)})
    assert not _errors(executed)
    tests = pd.read_csv(tmp_path / "results" / "eec_tests.csv")
    assert set(tests["task"]) == {"joy"} and (figures / "eec_gender_box.png").stat().st_size > 1000
    _assert_paper_pdfs(figures)


def test_02_psa_notebook_writes_its_figures(tmp_path, monkeypatch):
    monkeypatch.setenv(plots.PRESET_ENV, "acl-single")  # as `make figures PRESET=acl-single`; the kernel inherits it
    figures = tmp_path / "figures"
    executed = execute("02_psa.ipynb", output_dir=tmp_path, parameters={
        "MODELS": ["vader", "afinn"], "N": 20, "N_BOOT": 50, "CACHE": False,
        "OUT_DIR": str(tmp_path / "results"), "FIGURES_DIR": str(figures)})
    assert not _errors(executed)
    assert (figures / "psa_label_dist.png").stat().st_size > 1000
    not_drawn = json.loads((tmp_path / "results" / "provenance.json").read_text())["settings"]["figures_not_drawn"]
    for model in ("vader", "afinn"):  # lexicons score no name: a ScoreSens figure of one bar is said in words
        assert not (figures / f"psa_score_sens_{model}.png").exists() and f"psa_score_sens_{model}" in not_drawn
    assert (tmp_path / "results" / "psa_summary.csv").exists()
    record = json.loads((tmp_path / "results" / "provenance.json").read_text())
    for stem in ("psa_label_flips", "psa_confounds"):  # shown by the notebook, so saved and listed
        assert (figures / f"{stem}.png").stat().st_size > 1000 and (tmp_path / "results" / f"{stem}.csv").exists()
        assert f"{stem}.csv" in record["outputs"] and str((figures / f"{stem}.pdf").resolve()) in record["outputs"]
    assert [e["settings"] for e in record["added"] if e["step"].startswith("figures")] == [{"threshold": 0.5}]
    _assert_paper_pdfs(figures, "acl-single")


def test_04_btc_sam_notebook_writes_its_figures(tmp_path):
    figures = tmp_path / "figures"
    executed = execute("04_btc_sam.ipynb", output_dir=tmp_path, parameters={
        "MODELS": ["vader", "afinn"], "SETS": ["llama3_baseline"], "PSA_N": 20, "CACHE": False,
        "OUT_DIR": str(tmp_path / "results"), "FIGURES_DIR": str(figures)})
    assert not _errors(executed)
    for name in ("btcsam_detection.png", "btcsam_failure_pct.png"):
        assert (figures / name).stat().st_size > 1000
    assert (tmp_path / "results" / "btcsam_detection.csv").exists()
    _assert_paper_pdfs(figures)


def test_03_biasfinder_notebook_writes_its_figures(tmp_path):
    figures = tmp_path / "figures"
    executed = execute("03_biasfinder.ipynb", output_dir=tmp_path, parameters={
        "MODELS": ["vader", "afinn"], "N_NAMES": 3, "MAX_TEMPLATES": 4, "CACHE": False,
        "ANNOTATIONS": str(tmp_path / "ann.csv"), "OUT_DIR": str(tmp_path / "results"), "FIGURES_DIR": str(figures)})
    assert not _errors(executed)
    assert (figures / "biasfinder_btcs.png").stat().st_size > 1000
    table4 = pd.read_csv(tmp_path / "results" / "biasfinder_table4.csv")
    assert table4["templates"].between(1, 4).all() and table4.set_index(["model", "attribute"]).loc[
        ("vader", "gender"), "templates"] == 4  # the sample corpus has more than 4 gender templates
    _assert_paper_pdfs(figures)


@pytest.mark.shared_data
def test_06_multilingual_notebook_writes_its_figure_and_tables(tmp_path):
    from conftest import SHARED_DATA

    corpus = SHARED_DATA / "multilingual_eec"
    if not (corpus / "camara2022" / "es.csv").is_file():
        pytest.skip("the multilingual EEC corpora are not in ../shared/data/multilingual_eec")
    for module in ("gersent", "mlask", "ipadic", "cnsenti", "snownlp"):  # the languages extra (make venv)
        pytest.importorskip(module, reason=f"{module} is not installed: pip install 'sa-bias-toolkit[languages]'")
    figures = tmp_path / "figures"
    executed = execute("06_multilingual.ipynb", output_dir=tmp_path, parameters={
        "LANGUAGES": ["es", "de", "ja", "zh"], "SOURCES": ["camara2022", "goldfarb_tarrant2023"],
        "CORPUS_DIR": str(corpus),
        "TASKS": ["valence", "anger"], "SUBSETS": ["all"], "N_BOOT": 200, "SMOKE": True, "CACHE": False,
        "OUT_DIR": str(tmp_path / "results"), "FIGURES_DIR": str(figures)})
    assert not _errors(executed)
    for stem in ("multilingual_gaps", "multilingual_gaps_anger"):  # a figure per task, each shown in the notebook
        assert (figures / f"{stem}.png").stat().st_size > 1000
    cells = {c["id"]: c for c in json.loads(executed.read_text(encoding="utf-8"))["cells"]}
    shown = [output for output in cells["ml16"]["outputs"] if "image/png" in output.get("data", {})]
    assert len(shown) == 2
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in cells["ml18"]["outputs"])
    stats = pd.read_csv(tmp_path / "results" / "multilingual_stats.csv")
    assert all(stats["scope"].str.contains(f"({source})", regex=False).any()
               for source in ("camara2022", "goldfarb_tarrant2023"))
    assert stats["verdict"].notna().all() and stats["study"].eq("multilingual").all()
    assert (tmp_path / "results" / "multilingual_gaps_table.tex").read_text().startswith("\\begin{table")
    # German, Japanese and Chinese are scored by their offline systems (the languages extra), each with its validity
    validity = pd.read_csv(tmp_path / "results" / "multilingual_validity.csv")
    assert {"gersent", "mlask", "cnsenti", "snownlp"} <= set(validity["model"])
    assert set(stats["model"]) >= {"gersent", "mlask", "cnsenti", "snownlp"}
    _assert_paper_pdfs(figures)


def test_06_multilingual_notebook_without_the_corpora_says_what_it_needs(tmp_path):
    executed = execute("06_multilingual.ipynb", output_dir=tmp_path, parameters={
        "CORPUS_DIR": str(tmp_path / "nowhere"), "CACHE": False, "OUT_DIR": str(tmp_path / "results"),
        "FIGURES_DIR": str(tmp_path / "figures")})
    assert not _errors(executed)
    text = executed.read_text()
    assert "skipped:" in text and "ascamara/ml-intersectionality" in text
    assert not (tmp_path / "results").exists()


def test_instrument_save_tables_refuses_what_it_cannot_write(tmp_path):
    from toolkit.errors import InputError, OutputDirError
    from toolkit.instrument import save_tables

    frame = pd.DataFrame({"model": ["vader"], "estimate": [0.1]})
    with pytest.raises(InputError, match="DataFrame per name"):
        save_tables({"eec_race_confounds": "not a frame"}, tmp_path)
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    with pytest.raises(OutputDirError):
        save_tables({"eec_race_confounds": frame}, blocker)
    for bad, match in (({"tables": "eec_x"}, "mapping of file stem"), ({"settings": "x"}, "settings must be"),
                       ({"study": None}, "study must be")):
        arguments = {"tables": {"eec_race_confounds": frame}, "out_dir": tmp_path, **bad}
        with pytest.raises(InputError, match=match):
            save_tables(arguments.pop("tables"), **arguments)
    with pytest.warns(UserWarning, match="holds no run's provenance.json"):  # written, and said unrecorded
        written = save_tables({"eec_race_confounds": frame}, tmp_path / "new" / "folder")
    assert pd.read_csv(written[0]).equals(frame)


def test_instrument_files_join_the_runs_provenance_and_a_rerun_replaces_them(tmp_path):
    from toolkit import instrument, provenance
    from toolkit.studies import eec

    out, figures = tmp_path / "results", tmp_path / "figures"
    result = eec.run(models=["vader"], subsets=["all"], cache=False)
    result.write(out, figures_dir=figures)
    frame = pd.DataFrame({"model": ["vader"], "estimate": [0.1]})
    frame.attrs["settings"] = {"caliper": 0.25}
    instrument.save_tables({"eec_race_confounds": frame}, out)
    ax = plots.new_axes()
    ax.plot([0, 1], [0, 1])
    instrument.save_figures({"eec_intersections": ax}, figures, out_dir=out, settings={"alpha": 0.05})
    instrument.save_tables({"eec_race_confounds": frame}, out)  # again: one entry per step, names listed once
    record = json.loads((out / "provenance.json").read_text())
    assert record["outputs"].count("eec_race_confounds.csv") == 1
    assert str((figures / "eec_intersections.pdf").resolve()) in record["outputs"]
    assert [(e["step"], e["settings"]) for e in record["added"]] == [
        ("figures: eec_intersections", {"alpha": 0.05}),
        ("tables: eec_race_confounds", {"eec_race_confounds": {"caliper": 0.25}})]
    assert record["models"][0]["spec"] == "vader"  # the run's record is kept
    result.write(out, figures_dir=figures)  # a rerun's files replace the previous run's, the added ones too
    assert not (out / "eec_race_confounds.csv").exists() and not (figures / "eec_intersections.png").exists()
    assert "added" not in json.loads((out / "provenance.json").read_text())
    (out / "provenance.json").write_text("not json")
    assert provenance.add_outputs(out, paths_written=[out / "x.csv"], step="tables: x") is None
