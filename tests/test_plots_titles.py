"""Figures saved without their titles (``make figures TITLES=off``, ``$TOOLKIT_FIGURE_TITLES``): the caption in the
paper says them, the file's Title metadata keeps their words, and the figure on screen keeps its titles."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from toolkit import notebooks, plots
from toolkit.errors import InputError

ROOT = Path(__file__).resolve().parents[1]


def _figure_with_titles():
    """Two panels with their own titles and a figure title, as the task grids draw them."""
    with plots.use_preset("acl-double"):
        ax = plots.new_axes()
    figure = ax.figure
    second = figure.add_subplot(1, 2, 2)
    ax.plot([0, 1], [0, 1])
    second.plot([0, 1], [1, 0])
    ax.set_title("anger")
    second.set_title("joy", loc="left")
    figure.suptitle("EEC gender: Δ per system")
    return ax


def test_a_figure_saved_without_titles_keeps_their_words_in_its_metadata_and_on_screen(tmp_path):
    ax = _figure_with_titles()
    path = plots.save(ax, tmp_path / "grid.png", titles=False)
    assert Image.open(path).text["Title"] == "EEC gender: Δ per system"  # the panels keep "anger", "joy": they
    # name the panels (round 24: a grid without them left a reader to match panels to the caption's list)
    assert b"/Title" in path.with_suffix(".pdf").read_bytes()
    assert ax.get_title() == "anger" and ax.figure._suptitle.get_text() == "EEC gender: Δ per system"  # restored
    titled = plots.save(ax, tmp_path / "titled.png", titles=True)
    assert "Title" not in Image.open(titled).text
    assert Image.open(titled).size == Image.open(path).size  # the same width and height: the preset's
    spine = []  # the first row that is a long dark line: the Axes' top edge
    for image in (path, titled):
        pixels = np.asarray(Image.open(image).convert("L")) < 128
        spine.append(int(np.argmax(pixels.sum(1) > 0.3 * pixels.shape[1])))
    assert 0 < spine[0] < spine[1] - 10  # without titles the panels take the title's room (constrained layout)
    single = plots.new_axes()
    single.set_title("PSA LabelDist across thresholds c")  # one plot: its own title is the figure's
    assert Image.open(plots.save(single, tmp_path / "one.png", titles=False)).text["Title"] == \
        "PSA LabelDist across thresholds c"


def test_the_environment_switches_titles_off_and_a_bad_value_is_tk102(tmp_path, monkeypatch):
    ax = _figure_with_titles()
    monkeypatch.setenv(plots.TITLES_ENV, "off")
    assert not plots.figure_titles()
    assert Image.open(plots.save(ax, tmp_path / "env.png", vector=None)).text.get("Title", "").startswith("EEC")
    monkeypatch.setenv(plots.TITLES_ENV, "ON")
    assert plots.figure_titles()
    monkeypatch.setenv(plots.TITLES_ENV, "none")
    with pytest.raises(InputError, match="on, off") as error:
        plots.save(ax, tmp_path / "bad.png")
    assert error.value.code == "TK102" and not (tmp_path / "bad.png").exists()


def test_make_figures_titles_reaches_the_runner_and_a_bad_value_stops_before_anything_runs(monkeypatch, capsys):
    assert notebooks.make_arguments({"TOOLKIT_MAKE_TITLES": "off"}) == ["--titles", "off"]
    monkeypatch.delenv(plots.TITLES_ENV, raising=False)
    monkeypatch.setattr(notebooks, "execute", lambda *a, **k: pytest.fail("ran a notebook"))
    assert notebooks.main(["--titles", "maybe", "01"]) == 2
    assert "unknown titles setting 'maybe'" in capsys.readouterr().err
    assert plots.TITLES_ENV not in os.environ


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_makefile_exports_titles_unexpanded(tmp_path):
    dump = tmp_path / "dump.json"
    stand_in = tmp_path / "stand_in.py"
    stand_in.write_text("import json, os, sys\njson.dump({k: v for k, v in os.environ.items() "
                        "if k.startswith('TOOLKIT_MAKE_')}, open(os.environ['DUMP_TO'], 'w'))\n")
    proc = subprocess.run(["make", "-s", "-o", "venv", "figures", f"PY={sys.executable} {stand_in}", "TITLES=off"],
                          cwd=ROOT, env={**os.environ, "DUMP_TO": str(dump)}, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(dump.read_text())["TOOLKIT_MAKE_TITLES"] == "off"
    proc = subprocess.run(["make", "-s", "-o", "venv", "figures", f"PY={sys.executable} {stand_in}"], cwd=ROOT,
                          env={**os.environ, "DUMP_TO": str(dump)}, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr  # round 24: make figures writes the paper's figures with caption files
    assert json.loads(dump.read_text())["TOOLKIT_MAKE_TITLES"] == "caption"
    assert notebooks.make_arguments({"TOOLKIT_MAKE_TITLES": "caption"}) == ["--titles", "caption"]


def test_a_study_figure_written_by_a_run_honours_the_switch(tmp_path, monkeypatch):
    """The runs' writer (StudyResult.write → runs.write) saves through the same path: no title on disk."""
    from toolkit.studies.agreement import figures as agreement_figures

    tau = pd.DataFrame([{"study_a": "eec", "study_b": "psa", "n_models": 8, "tau": 0.5, "ci_low": 0.1,
                         "ci_high": 0.8, "p_value": 0.04, "claim_possible": True, "min_abs_tau": 0.64,
                         "state": "assessable"}])
    with plots.use_preset("acl-single"):
        ax = agreement_figures.agreement_tau(tau)
    monkeypatch.setenv(plots.TITLES_ENV, "off")
    from toolkit.outputs import runs

    target = tmp_path / "agreement_tau.png"
    with target.open("wb") as handle:
        runs.figure_renderer(ax, "png")(handle)
    assert Image.open(target).text["Title"] == "Agreement of rankings (8 models)"


def test_titles_must_be_a_boolean_not_a_word(tmp_path):
    """titles="off" is a true value: taken as it is, it would keep the titles the caller meant to drop."""
    ax = _figure_with_titles()
    with pytest.raises(InputError, match="titles='off'") as error:
        plots.save(ax, tmp_path / "x.png", titles="off")
    assert error.value.code == "TK102" and not (tmp_path / "x.png").exists()


def test_titles_caption_moves_the_notes_and_titles_into_a_caption_file(tmp_path, monkeypatch):
    """Round-12 readers (as every round) wanted the notes under the axes in the caption: TITLES=caption draws no
    note and no title, and writes both to <stem>.caption.txt beside the figure; the default draws the note."""
    from toolkit.plots.style import _legend_outside, _note_below

    def drawn(caption: bool):
        if caption:
            monkeypatch.setenv(plots.TITLES_ENV, "caption")
        else:
            monkeypatch.delenv(plots.TITLES_ENV, raising=False)
        with plots.use_preset("acl-double"):
            ax = plots.new_axes()
            ax.plot([0, 1], [0, 1], label="vader")
            ax.set_title("EEC gender: Δ per system")
            _note_below(ax, "AA, EA: African-American, European names")
            _legend_outside(ax)
        texts = [t.get_text() for t in ax.figure.texts] + [lg.get_title().get_text() for lg in ax.figure.legends]
        return ax, " ".join(texts)

    ax, words = drawn(caption=False)
    assert "African-American" in words and not plots.figure_captions()
    plots.save(ax, tmp_path / "on.png")
    assert not (tmp_path / "on.caption.txt").exists()
    ax, words = drawn(caption=True)
    assert "African-American" not in words and plots.figure_captions() and not plots.figure_titles()
    path = plots.save(ax, tmp_path / "cap.png")
    assert (tmp_path / "cap.caption.txt").read_text(encoding="utf-8") == \
        "EEC gender: Δ per system\n\nAA, EA: African-American, European names\n"
    assert Image.open(path).text["Title"] == "EEC gender: Δ per system"  # saved without it, as with off
    _note_below(ax, "* EEC: CI ≥ 95 %\n† BiasFinder: one template")  # round 24: a note's paragraphs ran together
    assert plots.caption_text(ax).split("\n\n")[-2:] == ["* EEC: CI ≥ 95 %", "† BiasFinder: one template\n"]
    assert ax.get_title() == "EEC gender: Δ per system"  # on screen it stays
    _note_below(ax, r"rate higher, $p_\mathrm{adj}$ ≤ 0.004; $\tau_b$ $\leq$ 1; costs \$5")  # round 26: raw mathtext
    assert plots.caption_text(ax).split("\n\n")[-1] == "rate higher, p_adj ≤ 0.004; τ_b ≤ 1; costs $5\n"


def test_a_study_run_writes_the_caption_file_beside_its_figure(tmp_path, monkeypatch):
    """The runs' writer (StudyResult.write → runs.write) plans the caption file with the figure under
    TITLES=caption, and not otherwise."""
    from toolkit.outputs import runs

    with plots.use_preset("acl-single"):
        ax = plots.new_axes()
        ax.set_title("Agreement of rankings (8 models)")
    for setting, expected in (("on", False), ("caption", True)):
        monkeypatch.setenv(plots.TITLES_ENV, setting)
        planned = runs._planned(tables={}, axes={"agreement_tau": ax}, formats=("csv",), out=tmp_path,
                                figures=tmp_path / "figures", guard=False, tex={})
        names = [path.name for path, _ in planned]
        assert ("agreement_tau.caption.txt" in names) == expected, (setting, names)


def test_a_later_run_removes_the_caption_file_an_earlier_caption_run_listed(tmp_path):
    """A stranger's review: .txt was not one of the toolkit's own suffixes, so a TITLES=on run left the caption a
    TITLES=caption run had written beside the new figure, with the old notes. A listed caption file is now the
    study's own, removed like its PNG; a .txt the run did not list stays."""
    from toolkit.outputs import files

    figures = tmp_path / "figures"
    figures.mkdir()
    caption = figures / "agreement_tau.caption.txt"
    caption.write_text("old notes\n", encoding="utf-8")
    mine = files._own_file(str(caption), out=tmp_path, figures=figures, study="agreement")
    assert mine == caption
    assert files._own_file(str(figures / "notes.txt"), out=tmp_path, figures=figures, study="agreement") is None
