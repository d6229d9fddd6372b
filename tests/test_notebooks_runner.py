"""``python -m toolkit.notebooks`` (``make figures``): --task, --preset, -p NAME=VALUE and notebook names; a parameter
goes only into the notebooks whose parameters cell defines it; unknown names are coded errors listing the valid ones.

Tiny notebooks written into tmp_path are run by papermill on the real kernel; each writes what it received to a JSON
file, so the test reads what the kernel saw."""
import json

import nbformat
import pytest

from toolkit import notebooks
from toolkit.errors import InputError, UnknownNameError

pytestmark = pytest.mark.notebook


def _notebook(folder, name, parameters):
    """A notebook whose parameters cell defines ``parameters`` (name → default source) and whose next cell writes
    every parameter's value, and the figure preset the kernel sees, to ``<stem>.json`` beside it."""
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("\n".join(f"{k} = {v}" for k, v in parameters.items()))
    cell.metadata["tags"] = ["parameters"]
    report = ("import json, os\n"
              f"values = {{k: globals()[k] for k in {list(parameters)!r}}}\n"
              "values['preset'] = os.environ.get('TOOLKIT_FIGURE_PRESET')\n"
              f"open({name.removesuffix('.ipynb') + '.json'!r}, 'w').write(json.dumps(values))\n")
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {name}"), cell, nbformat.v4.new_code_cell(report)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / name)
    return folder / name


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """Two tiny numbered notebooks: 01_eec defines TASK and N; 02_psa defines N and MODELS."""
    monkeypatch.delenv("TOOLKIT_FIGURE_PRESET", raising=False)
    monkeypatch.setenv("TOOLKIT_FIGURES", str(tmp_path / "figures"))
    _notebook(tmp_path, "01_eec.ipynb", {"TASK": '"valence"', "N": "3"})
    _notebook(tmp_path, "02_psa.ipynb", {"N": "5", "MODELS": '["vader"]'})
    return tmp_path


def _seen(folder, stem):
    return json.loads((folder / f"{stem}.json").read_text())


def _run(folder, *args):
    return notebooks.main(["--dir", str(folder), "--output-dir", str(folder / "executed"), *args])


def test_task_goes_only_into_the_notebook_that_defines_it(folder):
    assert _run(folder, "--task", "all", "-p", "N=20") == 0
    assert _seen(folder, "01_eec") == {"TASK": "all", "N": 20, "preset": None}
    assert _seen(folder, "02_psa") == {"N": 20, "MODELS": ["vader"], "preset": None}  # no TASK injected
    assert (folder / "executed" / "02_psa.ipynb").exists()


def test_parameters_are_read_as_python_literals_else_as_text(folder):
    assert _run(folder, "-p", 'MODELS=["vader", "afinn"]', "-p", "N=None", "02") == 0
    assert _seen(folder, "02_psa") == {"N": None, "MODELS": ["vader", "afinn"], "preset": None}
    assert not (folder / "01_eec.json").exists()  # only the chosen notebook ran
    assert notebooks.parse_assignment("CORPUS=../data/my.csv") == ("CORPUS", "../data/my.csv")
    assert notebooks.parse_assignment("CACHE=False") == ("CACHE", False)


def test_preset_reaches_the_kernel_as_an_environment_variable(folder):
    assert _run(folder, "--preset", "acl-single", "eec") == 0
    assert _seen(folder, "01_eec")["preset"] == "acl-single"


@pytest.mark.parametrize("names", [["01"], ["eec"], ["01_eec"], ["01_eec.ipynb"]])
def test_a_notebook_is_named_by_file_name_stem_number_or_short_name(folder, names):
    assert [p.name for p in notebooks.resolve(names, folder=folder)] == ["01_eec.ipynb"]


def test_no_names_means_every_numbered_notebook(folder):
    assert [p.name for p in notebooks.resolve([], folder=folder)] == ["01_eec.ipynb", "02_psa.ipynb"]


def test_an_unknown_notebook_lists_the_notebooks(folder, capsys):
    with pytest.raises(UnknownNameError) as caught:
        notebooks.resolve(["03"], folder=folder)
    assert caught.value.code == "TK103" and "01_eec.ipynb, 02_psa.ipynb" in str(caught.value)
    assert _run(folder, "03") == 2 and "[TK103]" in capsys.readouterr().err
    assert not (folder / "executed").exists()  # nothing ran


def test_a_parameter_no_chosen_notebook_defines_is_an_error_listing_theirs(folder, capsys):
    with pytest.raises(UnknownNameError) as caught:
        notebooks.plan(notebooks.resolve(["02"], folder=folder), {"TASK": "all"})
    assert "'TASK'" in str(caught.value) and "MODELS, N" in str(caught.value)
    assert _run(folder, "--task", "joy", "02") == 2
    err = capsys.readouterr().err
    assert "[TK103]" in err and "02_psa" in err
    assert not (folder / "02_psa.json").exists()


@pytest.mark.parametrize("option, value, valid", [("--task", "valance", "valence"),
                                                  ("--preset", "acl", "acl-single")])
def test_an_unknown_task_or_preset_lists_the_valid_ones(folder, capsys, option, value, valid):
    assert _run(folder, option, value) == 2
    err = capsys.readouterr().err
    assert "[TK103]" in err and repr(value) in err and valid in err
    assert not (folder / "01_eec.json").exists()


def test_a_parameter_without_a_value_is_an_input_error():
    with pytest.raises(InputError) as caught:
        notebooks.parse_assignment("MODELS")
    assert caught.value.code == "TK102" and "NAME=VALUE" in str(caught.value)


def test_the_real_notebooks_define_what_make_figures_passes():
    """TASK is notebook 01's parameter and the five EEC tasks plus 'all' are its values."""
    assert "TASK" in notebooks.parameters_of(notebooks.notebooks_dir() / "01_eec.ipynb")
    assert set(notebooks.EEC_TASKS) == {"valence", "anger", "fear", "joy", "sadness", "all"}


def test_figure_index_names_the_paper_figure_of_each_pdf(tmp_path):
    from toolkit.notebooks import figure_index

    for name in ("eec_gender_box.pdf", "psa_score_sens_vader.pdf", "mine.pdf", "eec_gender_box.png"):
        (tmp_path / name).write_bytes(b"%PDF-1.4")
    index = {name: (paper, function) for name, paper, function in figure_index(tmp_path)}
    assert index == {"eec_gender_box.pdf": ("EEC Figure 1", "eec_task_deltas"),
                     "mine.pdf": ("not a paper figure of the toolkit", "?"),
                     "psa_score_sens_vader.pdf": ("PSA Figure 1", "psa_score_sens")}
