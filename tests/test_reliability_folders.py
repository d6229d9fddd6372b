"""A run folder belongs to one study: ``--out``, ``write(out_dir=…)`` or an app's Export LaTeX pointed at another
study's result folder is refused (TK105) before anything is written, and that run's ``provenance.json`` and files stay
as they were. Output folders that cannot be one (a dangling link, a file) are named as such; an app's Export report
that cannot write says so on its status line; a cache that cannot grow past ``ulimit -f`` says so, not "delete it"."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import pytest

from toolkit.errors import OutputDirError
from toolkit.outputs import files, runs

ROOT = Path(__file__).resolve().parents[1]


def _write(study: str, out: Path, *, value: float = 0.5) -> list[Path]:
    """A study's run written by runs.write (no model loaded: its fingerprint is given)."""
    scored = pd.DataFrame({"model": ["m"], "text": ["t"]})
    _, ax = plt.subplots()
    ax.bar(["a"], [value])
    try:
        return runs.write(study=study, tables={f"{study}_table": pd.DataFrame({"v": [value]})},
                          axes={f"{study}_bars": ax}, scored=scored, models=["m"], fingerprints={"m": "f" * 32},
                          settings={"study": study}, out_dir=out, figures_dir=out)
    finally:
        plt.close(ax.figure)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and p.name != files.LOCK_NAME}


def test_runs_write_of_another_study_into_a_run_folder_is_tk105_and_changes_nothing(tmp_path):
    out = tmp_path / "results"
    _write("psa", out)
    before = _snapshot(out)
    with pytest.raises(OutputDirError, match=r"holds the results of a psa run; writing this eec run there would "
                                             r"replace its provenance.json") as excinfo:
        _write("eec", out)
    assert "results-eec" in excinfo.value.fix
    assert _snapshot(out) == before  # provenance.json and every file of the psa run as they were
    assert json.loads((out / "provenance.json").read_text())["settings"]["study"] == "psa"
    _write("psa", out, value=0.7)  # the same study's re-run still replaces its own run
    assert (out / "psa_table.csv").read_text() != before["psa_table.csv"].decode()


def test_runs_write_into_a_folder_with_a_foreign_provenance_is_tk105(tmp_path):
    out = tmp_path / "somebody"
    out.mkdir()
    (out / "provenance.json").write_text("not json")
    with pytest.raises(OutputDirError, match="not a toolkit run's record"):
        _write("eec", out)
    assert (out / "provenance.json").read_text() == "not json"


def test_files_run_owner_reads_the_study_from_settings_or_the_names_it_listed(tmp_path):
    assert files.run_owner(tmp_path) is None
    (tmp_path / "provenance.json").write_text(json.dumps({"outputs": ["btcsam_t.csv", "btcsam_f.png"]}))
    assert files.run_owner(tmp_path) == "btcsam"  # a record without settings.study
    (tmp_path / "provenance.json").write_text(json.dumps({"settings": {"study": "eec"}, "outputs": []}))
    assert files.run_owner(tmp_path) == "eec"


def test_cli_out_pointing_at_another_studys_run_folder_fails_before_any_work(tmp_path, capsys, monkeypatch):
    from toolkit import __main__ as cli
    from toolkit import studies

    out = tmp_path / "bf"
    _write("biasfinder", out)
    before = _snapshot(out)
    monkeypatch.setattr(type(studies.get("psa")), "run", lambda *a, **k: pytest.fail("ran before checking --out"))
    code = cli.main(["psa", "--model", "vader", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "[TK105]" in err and "holds the results of a biasfinder run" in err
    assert _snapshot(out) == before


def test_apps_export_latex_into_another_studys_run_folder_is_refused_on_the_status_line(tmp_path):
    from toolkit.studies import eec
    from toolkit.studies.eec.app import eec_app

    result = eec.run(models=["afinn"], subsets=["all"], cache=False, progress=False, n_boot=200)
    app = eec_app(models=["afinn"], cache=False, study=lambda **_: result)
    assert app.run()
    out = tmp_path / "psa-run"
    _write("psa", out)
    before = _snapshot(out)
    app._export_and_say(lambda: app.export_latex(out), lambda written: "written")
    assert "[TK105]" in app.status.value and "holds the results of a psa run" in app.status.value
    assert _snapshot(out) == before
    assert app.export_latex(tmp_path / "eec-run")  # a folder of its own works


def test_files_probe_names_a_dangling_link_or_a_file_given_as_the_output_folder(tmp_path, capsys):
    from toolkit import __main__ as cli

    link = tmp_path / "out"
    link.symlink_to(tmp_path / "nowhere")
    with pytest.raises(OutputDirError, match=r"is a link to .*nowhere', which does not exist") as excinfo:
        files.check_writable(link)
    assert "File exists" not in str(excinfo.value) and "create the folder the link points to" in excinfo.value.fix
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    with pytest.raises(OutputDirError, match="is a file, not a folder"):
        files.check_writable(plain)
    assert cli.main(["psa", "--model", "vader", "--out", str(link)]) == 2
    assert "which does not exist" in capsys.readouterr().err


def test_apps_export_report_that_cannot_write_says_so_on_the_status_line(tmp_path, monkeypatch):
    """The data folder cannot be created (a plain file stands where a folder should be; as root a read-only mode
    would not stop the write): the status line names the folder and the fix, not the message from before."""
    from toolkit.studies import eec
    from toolkit.studies.eec.app import eec_app

    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    monkeypatch.setenv("TOOLKIT_DATA", str(blocker / "data"))
    result = eec.run(models=["afinn"], subsets=["all"], cache=False, progress=False, n_boot=200)
    app = eec_app(models=["afinn"], cache=False, study=lambda **_: result)
    assert app.run()
    before = app.status.value
    app.export_button.click()
    assert app.status.value != before
    assert "[TK105] cannot create the reports folder" in app.status.value and "TOOLKIT_DATA" in app.status.value


_ULIMIT = textwrap.dedent('''
    import resource, sys
    import numpy as np
    from toolkit.cache import ScoreCache
    from toolkit.errors import ToolkitError
    from toolkit.models.base import Predictions

    def batch(start, n):
        texts = [f"text {i} " + "x" * 200 for i in range(start, start + n)]
        return texts, Predictions(score=np.full(n, 0.5), label=["neutral"] * n, truncated=np.zeros(n, dtype=bool))

    cache = ScoreCache(sys.argv[1])
    cache.put("fp", *batch(0, 50))
    size = sum(p.stat().st_size for p in __import__("pathlib").Path(sys.argv[1]).parent.iterdir())
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))
    try:
        cache.put("fp", *batch(50, 5000))
        print("STORED")
    except ToolkitError as exc:
        print("ERROR", exc.code, exc.message, "FIX", exc.fix)
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    print("KEPT", ScoreCache(sys.argv[1]).count("fp"))
''')


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file size limit")
def test_cache_past_the_file_size_limit_names_ulimit_and_keeps_the_cache(tmp_path):
    done = subprocess.run([sys.executable, "-c", _ULIMIT, str(tmp_path / "scores.sqlite")], cwd=ROOT,
                          check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ERROR TK301" in done.stdout and "ulimit -f" in done.stdout, done.stdout
    fix = done.stdout.split("FIX", 1)[1]
    assert "delete" not in fix and "raise the limit" in fix
    assert "KEPT 50" in done.stdout  # the batches stored before are there


def test_an_unwritable_figures_folder_is_named_as_the_figures_folder_and_an_app_says_what_to_do(small_runs,
                                                                                                 tmp_path):
    """The fix named --out when the figures' folder was the culprit; in an app it said to press Run again."""
    from toolkit.apps.messages import widget_message

    blocker = tmp_path / "figures.txt"
    blocker.write_text("a file, not a folder")
    with pytest.raises(OutputDirError, match="is a file, not a folder") as caught:
        small_runs["eec"].write(tmp_path / "out", figures_dir=blocker)
    assert "figures_dir=" in caught.value.fix and "--out folder" not in caught.value.fix
    shown = widget_message(caught.value)  # as an app's Export LaTeX shows it
    assert "figures.txt" in shown and "press Run" not in shown and "press the button again" in shown
