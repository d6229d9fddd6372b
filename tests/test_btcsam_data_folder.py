"""Notebook 04's released BTC-SAM sets are found without the developers' folder layout: ``$TOOLKIT_BTCSAM_DIR``, then
``data/btcsam/``, then ``../shared/data/btcsam``; the first folder holding every requested file wins, and when none
does the error (or the notebook's warning) says which files are needed and where to put them.

The folders hold tiny made-up files in the released files' layouts (comma-separated ``baseline_output.csv`` with
``rowid, id, …, refid, isValid``; comma-separated ``lexical_output.csv`` with an unnamed index column; semicolon-
separated ``llama3_*`` files with ``refid … reflink``), never the corpus itself."""
import warnings
from pathlib import Path

import pytest

from toolkit import paths
from toolkit.corpora import sample_path
from toolkit.errors import InputError, UnknownNameError
from toolkit.studies import btcsam

BASELINE = ("rowid,id,bias_type,id_term,concept_term,sentence,flagged,reject_reason,refid,isValid\n"
            "0,1,religion,Christian,kind,\"The {w} Christian baker smiled.\",0,-,1,1\n"
            "1,1,religion,Jewish,kind,\"The {w} Jewish baker smiled.\",0,-,1,1\n"
            "2,2,gender,woman,calm,\"A calm woman {w} waited.\",0,-,2,1\n"
            "3,2,gender,man,calm,\"A calm man {w} waited.\",0,-,2,1\n")
LEXICAL = (",id,bias_type,id_term,concept_term,sentence,flagged,reject_reason,refid\n"
           "0,1,religion,Christian,kind,\"The {w} Christian baker grinned.\",0,-,1\n"
           "1,1,religion,Jewish,kind,\"The {w} Jewish baker grinned.\",0,-,1\n")
SAMPLE = str(sample_path())  # the bundled corpus, read before a test moves the data folder
LLAMA3 = ("refid;bias_type;id_term;sentence;flagged;reject_reason;reflink;isValid\n"
          "1;race;Black;My Black {w} neighbour waved.;0;-;1;1\n"
          "1;race;White;My White {w} neighbour waved.;0;-;1;1\n")


def _release(folder: Path, word: str, files=("baseline", "lexical", "llama3_baseline")) -> Path:
    """A fake release in ``folder``; ``word`` marks every sentence, so a test sees which folder a set came from."""
    folder.mkdir(parents=True, exist_ok=True)
    layouts = {"baseline": BASELINE, "lexical": LEXICAL, "llama3_baseline": LLAMA3}
    for name in files:
        (folder / f"{name}_output.csv").write_text(layouts[name].replace("{w}", word), encoding="utf-8")
    return folder


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """A project folder with no BTC-SAM files anywhere: TOOLKIT_DATA and the project root point into tmp_path (so the
    real ``../shared/data/btcsam`` of this checkout is not among the searched folders) and TOOLKIT_BTCSAM_DIR is
    unset."""
    project = tmp_path / "work" / "project"
    project.mkdir(parents=True)
    monkeypatch.setattr(paths, "project_root", lambda: project)
    monkeypatch.setenv("TOOLKIT_DATA", str(project / "data"))
    monkeypatch.delenv("TOOLKIT_BTCSAM_DIR", raising=False)
    return project


def test_btcsam_dirs_are_searched_in_the_documented_order(elsewhere, tmp_path, monkeypatch):
    assert paths.btcsam_dirs() == [elsewhere / "data" / "btcsam", tmp_path / "work" / "shared" / "data" / "btcsam"]
    monkeypatch.setenv("TOOLKIT_BTCSAM_DIR", str(tmp_path / "mine"))
    assert paths.btcsam_dirs()[0] == tmp_path / "mine" and len(paths.btcsam_dirs()) == 3


def test_load_sets_finds_the_files_in_the_projects_data_folder(elsewhere):
    _release(elsewhere / "data" / "btcsam", "data-folder")
    sets = btcsam.load_sets(["baseline", "lexical"])
    assert set(sets) == {"baseline", "lexical"}
    assert sets["baseline"]["text"].str.contains("data-folder").all() and len(sets["baseline"]) == 4
    assert sets["baseline"]["case_id"].nunique() == 2
    # the rewrite is linked to the baseline sentence it came from (same bias type, source id, identity term)
    assert sets["lexical"]["source_text"].tolist() == ["The data-folder Christian baker smiled.",
                                                       "The data-folder Jewish baker smiled."]


def test_the_environment_variable_wins_over_the_data_folder_and_the_developers_folder(elsewhere, tmp_path,
                                                                                       monkeypatch):
    _release(elsewhere / "data" / "btcsam", "data-folder")
    _release(tmp_path / "work" / "shared" / "data" / "btcsam", "shared-folder")
    monkeypatch.setenv("TOOLKIT_BTCSAM_DIR", str(_release(tmp_path / "mine", "env-folder")))
    assert btcsam.find_sets(["baseline"]) == tmp_path / "mine"
    assert btcsam.load_sets(["baseline"])["baseline"]["text"].str.contains("env-folder").all()


def test_the_first_folder_holding_every_requested_file_wins(elsewhere, tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLKIT_BTCSAM_DIR", str(_release(tmp_path / "mine", "env-folder", files=("baseline",))))
    _release(elsewhere / "data" / "btcsam", "data-folder")
    assert btcsam.find_sets(["baseline"]) == tmp_path / "mine"
    assert btcsam.find_sets(["baseline", "lexical"]) == elsewhere / "data" / "btcsam"
    sets = btcsam.load_sets(["baseline", "lexical"])
    assert sets["lexical"]["text"].str.contains("data-folder").all()


def test_the_developers_shared_folder_is_still_searched(elsewhere, tmp_path):
    _release(tmp_path / "work" / "shared" / "data" / "btcsam", "shared-folder")
    sets = btcsam.load_sets(["llama3_baseline"])
    assert sets["llama3_baseline"]["text"].tolist() == ["My Black shared-folder neighbour waved.",
                                                        "My White shared-folder neighbour waved."]


def test_with_no_folder_at_all_the_error_says_which_files_and_where_to_put_them(elsewhere):
    with pytest.raises(InputError) as caught:
        btcsam.load_sets(["baseline", "lexical"])
    message = str(caught.value)
    assert caught.value.code == "TK102"
    assert "baseline_output.csv" in message and "lexical_output.csv" in message
    assert f"{elsewhere / 'data' / 'btcsam'} (absent)" in message  # every searched folder, with what it lacks
    assert "TOOLKIT_BTCSAM_DIR" in message and "Kardkovács et al. 2025" in message
    assert str(elsewhere / "data" / "btcsam") in caught.value.fix


def test_an_explicit_folder_lacking_a_file_names_what_it_lacks(elsewhere, tmp_path):
    folder = _release(tmp_path / "partial", "x", files=("baseline",))
    _release(elsewhere / "data" / "btcsam", "data-folder")  # an explicit root is the only place looked at
    with pytest.raises(InputError) as caught:
        btcsam.load_sets(["baseline", "lexical"], root=folder)
    assert f"{folder} (lacks lexical_output.csv)" in str(caught.value)
    assert "data-folder" not in str(caught.value)


def test_an_unknown_set_name_lists_the_released_sets(elsewhere):
    with pytest.raises(UnknownNameError) as caught:
        btcsam.load_sets(["baseline", "lexicall"])
    assert caught.value.code == "TK103" and "llama3_semantic" in str(caught.value)


def test_toolkit_sets_skips_missing_released_sets_with_the_explanation(elsewhere):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sets = btcsam.toolkit_sets(corpus=SAMPLE, psa_n=10, released=["baseline"])
    assert set(sets) == {"eec", "psa", "biasfinder"}
    skipped = [str(w.message) for w in caught if "BTC-SAM sets skipped" in str(w.message)]
    assert len(skipped) == 1 and "baseline_output.csv" in skipped[0] and "data/btcsam" in skipped[0]


def test_toolkit_sets_auto_loads_the_sets_found_in_the_data_folder(elsewhere):
    _release(elsewhere / "data" / "btcsam", "data-folder")
    sets = btcsam.toolkit_sets(corpus=SAMPLE, psa_n=10, btcsam_dir="auto", released=["baseline"])
    assert set(sets) == {"eec", "psa", "biasfinder", "baseline"}
    assert sets["baseline"]["text"].str.contains("data-folder").all()


def test_a_run_records_which_files_it_read(elsewhere, tmp_path, monkeypatch):
    """The provenance names each released set's file (or says the EEC set stood in, or that the caller gave the
    sets): two runs of "baseline" from two folders are told apart."""
    from toolkit import studies

    folder = _release(tmp_path / "mine", "mine")
    monkeypatch.setenv("TOOLKIT_BTCSAM_DIR", str(folder))
    study = studies.get("btcsam")
    result = study.run(models=["vader"], released=("baseline",), cache=False, progress=False)
    assert result.provenance.settings["source"] == {"baseline": str((folder / "baseline_output.csv").resolve())}
    monkeypatch.delenv("TOOLKIT_BTCSAM_DIR")
    with pytest.warns(UserWarning, match="Released BTC-SAM sets not found"):
        fallback = study.run(models=["vader"], released=("baseline",), cache=False, progress=False)
    assert fallback.provenance.settings["source"].startswith("the toolkit's EEC test set")
    given = study.run(models=["vader"], sets={"mine": btcsam.load_sets(["baseline"], root=folder)["baseline"]},
                      cache=False, progress=False)
    assert given.provenance.settings["source"] == "given by the caller (sets=)"
    none = study.run(models=["vader"], released=(), cache=False, progress=False)
    assert none.provenance.settings["source"] == "the toolkit's EEC test set (no released set was asked for)"
