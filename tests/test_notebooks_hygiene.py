"""Run hygiene (issue 35): notebooks never carry outputs into git (the committed versions are clean; ``--strip`` is
a clean filter), a notebook edited since HEAD is named before ``make figures`` runs it, and the closing listing
names only the figures this run wrote, each with its own preset."""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time

import pandas as pd
import pytest

from toolkit import notebooks, paths, plots
from toolkit.outputs import runs

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _notebook(parameters: str = "N = 3", outputs: bool = False) -> dict:
    code = {"cell_type": "code", "execution_count": 4 if outputs else None, "id": "c1",
            "metadata": {"tags": ["parameters"]}, "source": [parameters],
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["hi\n"]}] if outputs else []}
    return {"cells": [{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# t"]}, code],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         **({"widgets": {"state": {}}} if outputs else {})},
            "nbformat": 4, "nbformat_minor": 5}


def test_strip_removes_outputs_counts_and_widget_state_and_keeps_the_code():
    dirty = _notebook(outputs=True)
    clean = notebooks.strip(dirty)
    assert notebooks.has_outputs(dirty) and not notebooks.has_outputs(clean)
    assert "widgets" not in clean["metadata"] and clean["cells"][1]["source"] == ["N = 3"]
    assert notebooks.strip(clean) == clean


@needs_git
def test_every_tracked_notebook_is_committed_without_outputs():
    tracked = subprocess.run(["git", "ls-files", "notebooks/*.ipynb"], cwd=paths.project_root(), capture_output=True,
                             text=True, check=False)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    names = [line for line in tracked.stdout.splitlines() if line]
    assert names, "no tracked notebook"
    for name in names:
        committed = subprocess.run(["git", "show", f"HEAD:{name}"], cwd=paths.project_root(), capture_output=True,
                                   text=True, check=False)
        if committed.returncode != 0:
            continue  # added but not committed yet
        assert not notebooks.has_outputs(json.loads(committed.stdout)), f"{name} is committed with outputs"
    assert notebooks.committed_with_outputs() == []


@pytest.mark.parametrize("name", sorted(path.name for path in notebooks.notebooks_dir().glob("[0-9]*.ipynb")))
def test_every_parameter_reads_in_papermill(name, caplog):
    """``papermill --help-notebook`` lists every parameter; a line papermill cannot parse (a second "=" in the
    comment) is left out, with a warning on every run (notebook 06's SYSTEMS was)."""
    import logging

    from papermill.inspection import inspect_notebook

    with caplog.at_level(logging.WARNING, logger="papermill"):
        found = inspect_notebook(str(notebooks.notebooks_dir() / name))
    cell = next(c for c in json.loads((notebooks.notebooks_dir() / name).read_text(encoding="utf-8"))["cells"]
                if "parameters" in c["metadata"].get("tags", []))
    assigned = [line.split("=")[0].strip() for line in "".join(cell["source"]).splitlines()
                if "=" in line and not line.startswith((" ", "#"))]
    assert [r.getMessage() for r in caplog.records if "Unable to parse" in r.getMessage()] == []
    assert list(found) == assigned, name


def test_strip_as_a_git_clean_filter_writes_the_notebook_as_jupyter_does():
    committed = (notebooks.notebooks_dir() / "01_eec.ipynb").read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "toolkit.notebooks", "--strip"], input=committed, text=True,
                          capture_output=True, cwd=paths.project_root(), check=False)
    assert done.returncode == 0 and done.stdout == committed  # a clean notebook passes unchanged, byte for byte
    dirty = json.dumps(_notebook(outputs=True))
    done = subprocess.run([sys.executable, "-m", "toolkit.notebooks", "--strip"], input=dirty, text=True,
                          capture_output=True, cwd=paths.project_root(), check=False)
    assert not notebooks.has_outputs(json.loads(done.stdout))


@pytest.fixture
def repo(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    folder = tmp_path / "notebooks"
    folder.mkdir()
    (folder / "01_eec.ipynb").write_text(notebooks.dumps(_notebook()), encoding="utf-8")
    (folder / "02_psa.ipynb").write_text(notebooks.dumps(_notebook()), encoding="utf-8")
    env = ["-c", "user.email=t@example.org", "-c", "user.name=t"]
    for args in (["init", "-q"], ["add", "."], [*env, "commit", "-qm", "notebooks"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)
    return folder


def test_a_notebook_edited_since_head_is_named_with_what_differs(repo):
    (repo / "01_eec.ipynb").write_text(notebooks.dumps(_notebook("N = 300")), encoding="utf-8")
    (repo / "02_psa.ipynb").write_text(notebooks.dumps(_notebook(outputs=True)), encoding="utf-8")
    assert notebooks.changed_from_head([repo / "01_eec.ipynb", repo / "02_psa.ipynb"]) == [
        ("01_eec.ipynb", "code or parameters"), ("02_psa.ipynb", "outputs only")]
    stream = io.StringIO()
    changed = notebooks.warn_changed([repo / "01_eec.ipynb", repo / "02_psa.ipynb"], stream=stream)
    assert changed == [("01_eec.ipynb", "code or parameters")]  # a saved run is no change: not named
    assert "01_eec.ipynb differs from git's HEAD (code or parameters)" in stream.getvalue()
    assert "02_psa" not in stream.getvalue()
    assert notebooks.committed_with_outputs(repo) == []  # the working file has outputs, the commit does not


def _jupyterlab_save(path, notebook: dict, *, prefix=None) -> None:
    """Save ``notebook`` at ``path`` as JupyterLab's Save does: the Jupyter server's contents manager (PUT
    /api/contents), which writes through nbformat, configured from ``prefix``'s server config (as a server started
    from that environment is: the post-save hook ``make venv`` names there)."""
    import nbformat
    from jupyter_server.services.contents.largefilemanager import LargeFileManager
    from traitlets.config import Config
    from traitlets.config.loader import JSONFileConfigLoader

    config = Config()
    if prefix is not None:
        hook = prefix / notebooks.SAVE_HOOK_CONFIG
        config = JSONFileConfigLoader(hook.name, path=str(hook.parent)).load_config()
    manager = LargeFileManager(root_dir=str(path.parent), config=config)
    manager.save({"type": "notebook", "format": "json", "content": nbformat.from_dict(notebook)}, path.name)


def _run_it(notebook: dict) -> dict:
    """``notebook`` as a run in JupyterLab leaves it: outputs (text, a PNG, a widget view), execution counts and
    timings, the kernel's language_info, widget state, a scrolled output."""
    out = json.loads(json.dumps(notebook))
    for count, cell in enumerate((c for c in out["cells"] if c["cell_type"] == "code"), start=1):
        cell["execution_count"] = count
        cell["metadata"].update({"execution": {"iopub.execute_input": "2026-11-28T10:00:00.000Z",
                                               "shell.execute_reply": "2026-11-28T10:00:01.000Z"},
                                 "scrolled": True})
        cell["outputs"] = [
            {"output_type": "stream", "name": "stdout", "text": "line one\nline two\n"},
            {"output_type": "execute_result", "execution_count": count, "metadata": {},
             "data": {"text/plain": "   model  rank\n0  vader     1", "image/png": "iVBORw0KGgo=\n",
                      "application/vnd.jupyter.widget-view+json": {"model_id": "abc", "version_major": 2,
                                                                   "version_minor": 0}}}]
    out["metadata"]["language_info"] = {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                                        "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                                        "pygments_lexer": "ipython3", "version": "3.12.3"}
    out["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}, "version_major": 2,
                                                                                "version_minor": 0}}
    return out


@needs_git
@pytest.mark.parametrize("name", sorted(notebooks.available()))
def test_notebooks_a_jupyterlab_save_of_a_run_leaves_git_status_and_diff_clean(tmp_path, name):
    pytest.importorskip("jupyter_server")
    source = notebooks.available()[name]
    folder = tmp_path / "notebooks"
    folder.mkdir()
    shutil.copy(source, folder / name)
    for kept in (".gitattributes", ".gitignore"):
        shutil.copy(paths.project_root() / kept, tmp_path / kept)
    prefix = tmp_path / "venv"
    git = lambda *args: subprocess.run(["git", "-c", "user.email=t@example.org", "-c", "user.name=t", *args],
                                       cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    git("init", "-q")
    assert notebooks.install_filter(root=tmp_path, python=sys.executable, prefix=prefix, stream=io.StringIO())
    assert git("config", "--get", "filter.nbstrip.clean").strip() == f"{sys.executable} -m toolkit.notebooks --strip"
    git("add", ".")
    git("commit", "-qm", "notebooks")
    assert (folder / name).read_text(encoding="utf-8") == git("show", f"HEAD:notebooks/{name}")  # stored as is
    _jupyterlab_save(folder / name, _run_it(json.loads(source.read_text(encoding="utf-8"))), prefix=prefix)
    saved = (folder / name).read_text(encoding="utf-8")
    assert "image/png" in saved and '"version": "3.12.3"' in saved  # the file keeps its outputs
    assert git("status", "--porcelain") == "" and git("diff") == ""
    edited = json.loads(saved)
    code = next(c for c in edited["cells"] if c["cell_type"] == "code")
    code["source"] = ["N_EDITED = 1\n", *code["source"]]
    _jupyterlab_save(folder / name, edited, prefix=prefix)
    assert git("status", "--porcelain").strip() == f"M notebooks/{name}"  # an edit still shows, unstaged
    diff = git("diff")
    assert "N_EDITED = 1" in diff and "image/png" not in diff and "3.12.3" not in diff
    assert not notebooks.install_filter(root=tmp_path, python=sys.executable, prefix=prefix)  # once: nothing new


def test_notebooks_the_filter_is_named_relative_to_the_project_so_each_checkout_runs_its_own(tmp_path):
    assert notebooks.filter_command(tmp_path / ".venv" / "bin" / "python", root=tmp_path) == \
        ".venv/bin/python -m toolkit.notebooks --strip"
    assert notebooks.filter_command("/opt/py/bin/python", root=tmp_path) == "/opt/py/bin/python -m toolkit.notebooks --strip"


def test_notebooks_install_filter_does_nothing_outside_a_git_checkout(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    assert not notebooks.install_filter(root=tmp_path, stream=io.StringIO())


def test_notebooks_make_venv_sets_up_the_clean_filter():
    makefile = (paths.project_root() / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nvenv:", 1)[1].split("\n\n", 1)[0]
    assert "-m toolkit.notebooks --install-filter" in recipe
    assert "filter=nbstrip" in (paths.project_root() / ".gitattributes").read_text(encoding="utf-8")


def test_an_unchanged_or_untracked_notebook_is_not_named(repo, tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "03_x.ipynb").write_text(notebooks.dumps(_notebook()), encoding="utf-8")
    assert notebooks.changed_from_head([repo / "01_eec.ipynb", other / "03_x.ipynb"]) == []


def test_the_closing_listing_names_only_this_runs_figures_with_their_presets(tmp_path, capsys):
    figures = tmp_path / "figures"
    scored = pd.DataFrame({"model": ["m"], "score": [0.5]})

    def run(stem: str, preset: str) -> None:
        with plots.use_preset(preset):
            ax = plots.new_axes()
            ax.plot([0, 1], [0, 1])
        runs.write(study="eec", tables={}, axes={stem: ax}, scored=scored, models=["vader"], settings={},
                   out_dir=tmp_path / stem, figures_dir=figures)

    run("eec_gender_box", "acl-single")
    hour_ago = time.time() - 3600  # an earlier run: its files and its manifest entries an hour old
    manifest = json.loads((figures / runs.FIGURE_MANIFEST).read_text())
    for name, entry in manifest.items():
        entry["written"] = hour_ago
        os.utime(figures / name, (hour_ago, hour_ago))
    (figures / runs.FIGURE_MANIFEST).write_text(json.dumps(manifest))
    started = time.time()
    run("eec_race_box", "acl-double")
    rows = notebooks.print_figures(figures, since=started)
    assert [(name, preset) for name, preset, *_ in rows] == [("eec_race_box.pdf", "acl-double")]
    out = capsys.readouterr().out
    listed, _, older = out.partition("older figures there")
    assert "eec_race_box.pdf [acl-double]" in listed and "eec_gender_box" not in listed
    assert older.startswith(", not written by this run (1): eec_gender_box.pdf")  # named, not only counted
    everything = notebooks.print_figures(figures, since=0)
    assert {(name, preset) for name, preset, *_ in everything} == {("eec_gender_box.pdf", "acl-single"),
                                                                 ("eec_race_box.pdf", "acl-double")}


def test_the_figure_listing_never_shows_the_projects_issue_numbers(tmp_path):
    for stem in ("eec_gender_intervals", "biasfinder_rates", "eec_race_box"):
        (tmp_path / f"{stem}.pdf").write_bytes(b"%PDF-1.4")
    rows = {name: paper for name, paper, _ in notebooks.figure_index(tmp_path)}
    assert rows == {"biasfinder_rates.pdf": "beyond the papers", "eec_gender_intervals.pdf": "beyond the papers",
                    "eec_race_box.pdf": "EEC Figure 2"}


def test_figures_the_names_and_templates_notebook_saves_are_listed_with_their_preset(tmp_path):
    from toolkit import instrument

    started = time.time()
    with plots.use_preset("acl-double"):
        ax = plots.new_axes()
        ax.plot([0, 1], [0, 1])
    instrument.save_figures({"names_gap": ax}, tmp_path)
    rows = runs.figures_written(tmp_path, since=started)
    assert sorted(rows) == [("names_gap.pdf", "acl-double", "names and templates"),
                            ("names_gap.png", "acl-double", "names and templates")]


def test_a_figure_narrower_than_its_preset_is_listed_with_its_preset_and_width():
    from matplotlib.figure import Figure

    with plots.use_preset("acl-double"):
        small = plots.new_axes(figsize=(5.35, 3.0))  # agreement_tau's size with three studies
        full = plots.new_axes()
    assert runs.figure_preset(small) == "acl-double, 5.35 in wide" and runs.figure_preset(full) == "acl-double"
    assert runs.figure_preset(Figure(figsize=(3.03, 2))) == "acl-single"  # drawn elsewhere: by its width
    assert runs.figure_preset(Figure(figsize=(5.35, 2))) == "own width 5.35 in"
