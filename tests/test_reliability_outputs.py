"""What a run writes: deletion confined to the run's own files, all-or-nothing outputs on a full disk, CSVs that read
back every text, the spreadsheet formula guard, one run per output folder at a time, annotation files that lose no
click and say what is wrong with their columns."""
from __future__ import annotations

import errno
import io
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from toolkit.errors import DiskFullError, OutputDirError, SchemaError
from toolkit.outputs import files, runs

TEXTS = ["a\rb", "a\nb", "a\r\nb", "\r", "\n", 'say "hi"', '"', "c,omma", "t\tab", "nu\x00l", "\x00", "  lead",
         "trail  ", "", "plain", "1.5", "x;y|z"]
FORMULAS = ["=HYPERLINK(\"http://x\",\"y\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "'quoted"]


def _scored(models):
    return pd.DataFrame()


def _fingerprints(models):
    return {m: "f" * 32 for m in models}


def _write(out, models, *, rows=1, figures=True, **kwargs):
    from toolkit.plots import new_axes

    axes = {f"psa_score_sens_{m}": new_axes() for m in models} if figures else {}
    table = pd.DataFrame({"model": [m for m in models for _ in range(rows)]})
    return runs.write(study="psa", tables={"psa_summary": table}, axes=axes, scored=_scored(models), fingerprints=_fingerprints(models),
                         models=models, settings={}, out_dir=out, figures_dir=kwargs.pop("figures_dir", out),
                         **kwargs)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# --- case 2: deletion confined to the output folder -------------------------------------------------------------

def test_a_planted_provenance_deletes_nothing_outside_out(tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.mkdir()
    (victim / "psa_names.csv").write_text("victim")
    (tmp_path / "psa_absolute.csv").write_text("absolute")
    (out / "psa_link.csv").symlink_to(victim / "psa_names.csv")
    (out / "sub").symlink_to(victim, target_is_directory=True)
    (out / "psa_old.csv").write_text("a previous run's table")
    planted = ["../victim/psa_names.csv", str(tmp_path / "psa_absolute.csv"), "psa_link.csv", "sub/psa_names.csv",
               str(out / ".." / "victim" / "psa_names.csv"), "psa_old.csv"]
    (out / "provenance.json").write_text(json.dumps({"outputs": planted}))
    _write(out, ["a"], figures=False)
    assert (victim / "psa_names.csv").read_text() == "victim"
    assert (tmp_path / "psa_absolute.csv").read_text() == "absolute"
    assert (out / "psa_link.csv").is_symlink() and (out / "sub").is_symlink()
    assert not (out / "psa_old.csv").exists()  # the study's own regular file inside out is still cleared


def test_figures_in_another_folder_are_cleared_only_there(tmp_path):
    out, figures, elsewhere = tmp_path / "out", tmp_path / "figures", tmp_path / "elsewhere"
    elsewhere.mkdir()
    _write(out, ["a", "b"], figures_dir=figures)
    listed = json.loads((out / "provenance.json").read_text())["outputs"]
    assert str((figures / "psa_score_sens_a.png").resolve()) in listed
    (elsewhere / "psa_score_sens_z.png").write_text("not this run's folder")
    record = json.loads((out / "provenance.json").read_text())
    record["outputs"].append(str(elsewhere / "psa_score_sens_z.png"))
    (out / "provenance.json").write_text(json.dumps(record))
    _write(out, ["b"], figures_dir=figures)
    assert not (figures / "psa_score_sens_a.png").exists() and (figures / "psa_score_sens_b.png").exists()
    assert (elsewhere / "psa_score_sens_z.png").exists()


# --- case 5: a full disk leaves the previous run as it was ------------------------------------------------------

class _FillingFile(io.FileIO):
    """A file on a disk with ``room`` bytes left in all (class attribute, shared by every file opened)."""

    room = 0

    def write(self, data) -> int:
        size = memoryview(data).nbytes
        if size > _FillingFile.room:
            super().write(bytes(memoryview(data).cast("B")[:_FillingFile.room]))
            _FillingFile.room = 0
            raise OSError(errno.ENOSPC, "No space left on device")
        _FillingFile.room -= size
        return super().write(data)


def test_a_full_disk_keeps_the_previous_run_and_says_how_much_was_needed(tmp_path, monkeypatch):
    out = tmp_path / "out"
    _write(out, ["a", "b"])
    before = _snapshot(out)
    monkeypatch.setattr(files, "_open_new", lambda path: _FillingFile(path, "xb"))
    _FillingFile.room = 3000  # the table fits, the figures do not
    with pytest.raises(DiskFullError) as caught:
        _write(out, ["c"], rows=50)
    error = caught.value
    assert error.code == "TK106" and "--out" in error.fix and "bytes are free" in error.message
    needed = int(error.message.split("need about ")[1].split(" bytes")[0].replace(",", ""))
    assert needed > 3000
    assert _snapshot(out) == before  # previous files and provenance unchanged, nothing new, nothing partial
    assert not list(out.glob(".toolkit-staging-*"))
    (out / "psa_summary.csv").write_text("kept")
    _FillingFile.room = 10
    with pytest.raises(DiskFullError):
        files.write_table(pd.DataFrame({"model": ["x"] * 100}), out / "psa_summary.csv")
    assert (out / "psa_summary.csv").read_text() == "kept"


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 256 KiB tmpfs (root only); skipped where mounting is not permitted."""
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"mount not permitted here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_real_full_disk_keeps_the_previous_run(small_tmpfs):
    _write(small_tmpfs, ["a", "b"], figures=False)
    before = _snapshot(small_tmpfs)
    with pytest.raises(DiskFullError, match=r"need about [\d,]+ bytes .* free"):
        _write(small_tmpfs, ["c"], rows=100_000, figures=False)  # ~400 KB of CSV on a 256 KiB disk
    assert _snapshot(small_tmpfs) == before
    assert not list(small_tmpfs.glob(".toolkit-staging-*"))
    assert json.loads((small_tmpfs / "provenance.json").read_text())["models"][0]["spec"] == "a"


def test_a_killed_runs_staging_folder_is_removed_by_the_next_run(tmp_path):
    out = tmp_path / "out"
    (out / ".toolkit-staging-killed").mkdir(parents=True)
    (out / ".toolkit-staging-killed" / "psa_summary.csv").write_text("half a ro")
    _write(out, ["a"], figures=False)
    assert not list(out.glob(".toolkit-staging-*")) and (out / "psa_summary.csv").exists()


# --- case 8 and the formula guard: CSVs that read back every text -----------------------------------------------

def test_results_csvs_read_back_every_text(tmp_path):
    frame = pd.DataFrame({"text": TEXTS, "score": [-0.25 + i for i in range(len(TEXTS))]})
    frame["group"] = pd.Categorical(TEXTS)
    _write_tables(tmp_path, {"psa_texts": frame}, csv_formula_guard=False)
    back = pd.read_csv(tmp_path / "psa_texts.csv", keep_default_na=False, dtype={"text": str, "group": str})
    assert back["text"].tolist() == TEXTS and back["group"].tolist() == TEXTS
    assert back["score"].tolist() == frame["score"].tolist()
    _write_tables(tmp_path, {"psa_texts": frame})  # guarded ("\r" starts like a formula): the toolkit reads it back
    assert files.read_table(tmp_path / "psa_texts.csv", dtype={"text": str})["text"].tolist() == TEXTS
    lone = files.write_table(pd.DataFrame({"text": ["x\ry"]}), tmp_path / "lone.csv")
    assert pd.read_csv(lone, keep_default_na=False)["text"].tolist() == ["x\ry"]


def _write_tables(out, tables, **kwargs):
    return runs.write(study="psa", tables=tables, axes={}, scored=_scored(["m"]), fingerprints=_fingerprints(["m"]), models=["m"], settings={},
                         out_dir=out, figures_dir=out, formats=("csv", "parquet"), **kwargs)


def test_formula_cells_are_neutralised_in_csv_only_and_numbers_stay_numbers(tmp_path):
    frame = pd.DataFrame({"text": FORMULAS, "delta": [-0.25] * len(FORMULAS), "n": range(len(FORMULAS))})
    frame["annotator"] = pd.Categorical(["=cmd"] * len(FORMULAS))
    _write_tables(tmp_path, {"psa_formulas": frame})
    raw = pd.read_csv(tmp_path / "psa_formulas.csv", keep_default_na=False)
    assert raw["text"].tolist() == ["'" + t for t in FORMULAS]
    assert set(raw["annotator"]) == {"'=cmd"}
    assert raw["delta"].dtype.kind == "f" and raw["delta"].tolist() == [-0.25] * len(FORMULAS)
    assert files.read_table(tmp_path / "psa_formulas.csv")["text"].tolist() == FORMULAS
    assert pd.read_parquet(tmp_path / "psa_formulas.parquet")["text"].tolist() == FORMULAS
    assert json.loads((tmp_path / "provenance.json").read_text())["settings"]["csv_formula_guard"] is True
    _write_tables(tmp_path, {"psa_formulas": frame}, csv_formula_guard=False)
    assert pd.read_csv(tmp_path / "psa_formulas.csv", keep_default_na=False)["text"].tolist() == FORMULAS
    assert json.loads((tmp_path / "provenance.json").read_text())["settings"]["csv_formula_guard"] is False


def test_guard_text_is_undone_exactly():
    for text in TEXTS + FORMULAS + ["''", "'", "'=x"]:
        assert files.unguard_text(files.guard_text(text)) == text
        assert not files.guard_text(text).startswith(tuple("=+-@\t\r"))


# --- weak: one run per output folder at a time ------------------------------------------------------------------

_SPAWN = multiprocessing.get_context("spawn")  # a fresh interpreter: a fork of a process whose threads (torch,
# BLAS, matplotlib) hold locks can crash the child (SIGSEGV seen under load); imports cost a few seconds instead
START_S = 180  # how long a child may take to start and import the toolkit on a busy machine


def _run_in_child(out, models, timeout, messages, go):
    """Child process: once ``go`` is set, one files.write into ``out``; "ready" just before it, the coded error
    (if any) after it."""
    files.LOCK_TIMEOUT_S = timeout
    go.wait(START_S)
    messages.put("ready")
    try:
        _write(out, models)
    except OutputDirError as exc:
        messages.put(str(exc))
        sys.exit(3)


def _runner(out, models, go, *, timeout=2.0 * START_S):
    """A child process writing into ``out`` once ``go`` is set (started before the test takes a lock), and the queue
    it reports on."""
    messages = _SPAWN.Queue()
    child = _SPAWN.Process(target=_run_in_child, args=(out, models, timeout, messages, go), daemon=True)
    child.start()
    return child, messages


def test_a_run_waits_for_another_writing_the_same_folder(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    go = _SPAWN.Event()
    (waiting, said), (failing, failed) = _runner(out, ["a"], go), _runner(out, ["b"], go, timeout=0.2)
    with files.lock(out / files.LOCK_NAME, timeout=5, what="the test"):
        go.set()
        assert said.get(timeout=START_S) == "ready"
        time.sleep(1.0)
        assert not (out / "psa_summary.csv").exists() and waiting.is_alive()
        failing.join(timeout=START_S)
        assert failed.get(timeout=5) == "ready" and failing.exitcode == 3
        message = failed.get(timeout=5)
        assert "TK105" in message and "another process is still writing" in message
    waiting.join(timeout=START_S)
    assert waiting.exitcode == 0
    assert json.loads((out / "provenance.json").read_text())["models"] == [{"spec": "a", "fingerprint": "f" * 32}]


def test_two_runs_at_once_leave_a_provenance_listing_exactly_the_files_present(tmp_path):
    out = tmp_path / "out"
    go = _SPAWN.Event()
    runs = [_runner(out, [f"m{i}" for i in range(k, k + 3)], go) for k in (0, 100)]
    go.set()
    for run, messages in runs:
        run.join(timeout=2 * START_S)
        assert run.exitcode == 0, [messages.get(timeout=5) for _ in range(2)]
    listed = set(json.loads((out / "provenance.json").read_text())["outputs"])
    present = {p.name for p in out.iterdir() if p.name.startswith("psa_")}
    assert listed == present and len(present) == 7


# --- case 7 and the annotation file -----------------------------------------------------------------------------

def _annotate(path, annotator, count, go):
    from toolkit.studies.biasfinder.annotation import upsert_annotation

    go.wait(START_S)
    for i in range(count):
        upsert_annotation(path, {"btc_id": f"b{i}", "variant": "a", "annotator": annotator, "coherent": "yes",
                                 "sentiment": "positive"})


def test_concurrent_annotators_lose_no_click(tmp_path):
    import toolkit.studies.biasfinder.annotation

    path, go = tmp_path / "ann.csv", _SPAWN.Event()
    annotators = [_SPAWN.Process(target=_annotate, args=(path, who, 100, go), daemon=True)
                  for who in ("ann1", "ann2", "ann3")]
    for process in annotators:
        process.start()
    go.set()
    for process in annotators:
        process.join(timeout=2 * START_S)
        assert process.exitcode == 0
    rows = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert len(rows) == 300 and not rows.duplicated(["btc_id", "variant", "annotator"]).any()
    assert rows.groupby("annotator").size().to_dict() == {"ann1": 100, "ann2": 100, "ann3": 100}


def test_the_annotation_file_reads_back_every_text_and_guards_formulas(tmp_path):
    from toolkit.studies.biasfinder.annotation import _read_rows, annotation_app, upsert_annotation
    from toolkit.studies.biasfinder.annotation_files import read_annotation_csv

    path = tmp_path / "ann.csv"
    ids = TEXTS + FORMULAS
    for btc_id in ids:
        upsert_annotation(path, {"btc_id": btc_id, "variant": "a", "annotator": "=cmd", "coherent": "yes",
                                 "sentiment": "positive"})
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert set(raw["annotator"]) == {"'=cmd"}  # what a spreadsheet shows as text
    assert raw["btc_id"].tolist() == [files.guard_text(t) for t in ids]
    assert read_annotation_csv(path)["btc_id"].tolist() == ids and set(read_annotation_csv(path)["annotator"]) == {
        "=cmd"}
    assert sorted(_read_rows(path)) == sorted((t, "a", "=cmd") for t in ids)
    btcs = pd.DataFrame([{"btc_id": "=b1", "attribute": "gender", "text_a": "She won.", "text_b": "He won."}])
    app = annotation_app(btcs, annotator="=cmd", path=path)
    app.record(variant="a", coherent="no", sentiment="negative")
    app.record(variant="b", coherent="yes", sentiment="negative")
    assert annotation_app(btcs, annotator="=cmd", path=path).position == 1  # the guarded name resumes
    assert read_annotation_csv(path).set_index("btc_id").loc["=b1", "annotator"].tolist() == ["=cmd", "=cmd"]


def test_an_annotation_file_without_the_columns_is_a_coded_error(tmp_path):
    from toolkit.studies import biasfinder
    from toolkit.studies.biasfinder.annotation import annotation_app, upsert_annotation
    from toolkit.studies.biasfinder.annotation_files import read_annotation_csv

    path = tmp_path / "ann.csv"
    path.write_text("id,who,ok\n1,ann1,yes\n")
    btcs = pd.DataFrame([{"btc_id": "b1", "attribute": "gender", "text_a": "She won.", "text_b": "He won."}])
    for attempt in (lambda: annotation_app(btcs, annotator="ann1", path=path),
                    lambda: upsert_annotation(path, {"btc_id": "b1", "variant": "a", "annotator": "ann1"}),
                    lambda: read_annotation_csv(path)):
        with pytest.raises(SchemaError, match=r"lacks columns 'btc_id', 'variant', 'annotator', 'coherent', "
                                              r"'sentiment' \(it has 'id', 'who', 'ok'\)") as caught:
            attempt()
        assert caught.value.code == "TK101" and "btc_id, variant, annotator, coherent, sentiment" in caught.value.fix
    assert path.read_text() == "id,who,ok\n1,ann1,yes\n"
    with pytest.raises(SchemaError, match="lacks columns 'coherent', 'sentiment'"):
        biasfinder.tpr(pd.DataFrame({"btc_id": ["b1"], "variant": ["a"], "annotator": ["ann1"]}))


def test_a_folder_in_the_way_of_an_output_is_tk105_before_anything_moves(tmp_path):
    """Found in review: a folder where eec_b.csv goes made the move fail half-way, leaving eec_a.csv new beside the
    old provenance.json, with a raw IsADirectoryError."""
    from toolkit.errors import OutputDirError
    from toolkit.outputs import files, runs

    scored = pd.DataFrame({"model": ["m"], "score": [0.5]})
    old = {"eec_a": pd.DataFrame({"x": [1]}), "eec_b": pd.DataFrame({"x": [2]})}
    runs.write(study="eec", tables=old, axes={}, scored=scored, fingerprints=None, models=["vader"], settings={}, out_dir=tmp_path,
                  figures_dir=tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    (tmp_path / "eec_b.csv").unlink()
    (tmp_path / "eec_b.csv").mkdir()
    before.pop("eec_b.csv")
    new = {"eec_a": pd.DataFrame({"x": [9]}), "eec_b": pd.DataFrame({"x": [9]})}
    with pytest.raises(OutputDirError, match="eec_b.csv' is in the way of an output"):
        runs.write(study="eec", tables=new, axes={}, scored=scored, fingerprints=None, models=["vader"], settings={},
                      out_dir=tmp_path, figures_dir=tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


def test_a_failure_while_moving_files_in_puts_the_previous_run_back(tmp_path, monkeypatch):
    from toolkit.errors import OutputDirError
    from toolkit.outputs import files, runs

    scored = pd.DataFrame({"model": ["m"], "score": [0.5]})
    runs.write(study="eec", tables={"eec_a": pd.DataFrame({"x": [1]}), "eec_b": pd.DataFrame({"x": [2]})},
                  axes={}, scored=scored, fingerprints=None, models=["vader"], settings={}, out_dir=tmp_path, figures_dir=tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    real = files.Staging.replace
    calls = []

    def flaky(self, target):
        calls.append(target.name)
        if len(calls) == 2:
            raise PermissionError(13, "Permission denied", str(target))
        return real(self, target)

    monkeypatch.setattr(files.Staging, "replace", flaky)
    with pytest.raises(OutputDirError, match="previous run's files are as they were"):
        runs.write(study="eec", tables={"eec_a": pd.DataFrame({"x": [9]}), "eec_b": pd.DataFrame({"x": [9]})},
                      axes={}, scored=scored, fingerprints=None, models=["vader"], settings={}, out_dir=tmp_path, figures_dir=tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    assert not [p for p in tmp_path.iterdir() if p.is_dir()]  # no staging folder left behind


def test_a_wait_for_the_lock_is_announced_once(tmp_path):
    """Found in review: a second run into a locked folder waited up to 600 s without a word."""
    path = tmp_path / files.LOCK_NAME
    with files.lock(path, timeout=5, what="the test"):
        waiter = subprocess.Popen([sys.executable, "-c", "from toolkit.outputs import files\nprint('ready', flush=True)\n"
                                   f"with files.lock({str(path)!r}, timeout=10, what='into the folder'): pass"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert waiter.stdout.readline().strip() == "ready"
        time.sleep(2.0)  # the waiter announces itself after 1 s
    _, err = waiter.communicate(timeout=30)
    assert waiter.returncode == 0
    assert err.count("waiting for another process writing into the folder") == 1
