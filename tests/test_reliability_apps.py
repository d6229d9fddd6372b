"""Issue 37, round three (part B): apps and files. Cancel of a run queued behind another app's run takes effect at
once; an annotation file that is a link stays a link; ``eec --order`` is checked before scoring; the TK102 of
``people="skip-known"`` names the right fix; ``make figures`` passes values holding ``'`` and ``$(…)`` as written
and runs nothing."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from toolkit.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
GATE = threading.Event()  # the first app's model waits on it, so its run holds the kernel's run lock
ENTERED = threading.Event()
QUEUED_CALLS: list[int] = []


def gated(texts):
    """A model that blocks until the test opens GATE."""
    ENTERED.set()
    GATE.wait(120)
    return np.full(len(texts), 0.5)


def counted(texts):
    """A model that records every call (the queued app's: it must never be called)."""
    QUEUED_CALLS.append(len(texts))
    return np.full(len(texts), 0.5)


def test_cancel_of_a_run_queued_behind_another_apps_run_takes_effect_at_once(tmp_path):
    from toolkit.studies.eec.app import eec_app

    GATE.clear()
    ENTERED.clear()
    QUEUED_CALLS.clear()
    first = eec_app(models=[], cache=tmp_path / "a.sqlite")
    first.extra.value = "py:test_reliability_apps:gated"
    second = eec_app(models=[], cache=tmp_path / "b.sqlite")
    second.extra.value = "py:test_reliability_apps:counted"
    try:
        first.run(block=False)
        assert ENTERED.wait(120), first.status.value  # the first run is scoring and holds the lock
        waiting = threading.Event()
        second.status.observe(lambda change: "waiting for another app" in change["new"] and waiting.set(),
                              names="value")
        second.run(block=False)
        assert waiting.wait(30) or "waiting for another app" in second.status.value, second.status.value
        second.cancel_button.click()
        second.wait(timeout=30)
        assert not second.running, "the queued run still waits for the other app's run"
        assert first.running  # the other run is still going: the cancel did not wait for it
        assert "never started" in second.status.value and "never started" in second.cancelled
        assert not second.button.disabled and second.cancel_button.disabled and second.result is None
    finally:
        GATE.set()
        first.wait(timeout=120)
    assert first.error is None and first.cancelled is None
    assert QUEUED_CALLS == []  # the cancelled run never scored, even after the lock came free


def test_an_annotation_file_that_is_a_link_stays_a_link_and_receives_the_rows(tmp_path):
    from toolkit.studies.biasfinder.annotation import _read_rows, upsert_annotation

    shared = tmp_path / "shared" / "annotations.csv"
    shared.parent.mkdir()
    upsert_annotation(shared, {"btc_id": "b1", "variant": "a", "annotator": "ann1", "coherent": "yes"})
    mine = tmp_path / "me" / "annotations.csv"
    mine.parent.mkdir()
    mine.symlink_to(shared)
    upsert_annotation(mine, {"btc_id": "b1", "variant": "a", "annotator": "ann2", "coherent": "no"})
    upsert_annotation(mine, {"btc_id": "b2", "variant": "b", "annotator": "ann2", "sentiment": "positive"})
    assert mine.is_symlink() and os.readlink(mine) == str(shared)
    rows = _read_rows(shared)
    assert set(rows) == {("b1", "a", "ann1"), ("b1", "a", "ann2"), ("b2", "b", "ann2")}
    assert rows[("b1", "a", "ann2")]["coherent"] == "no"
    assert not list(mine.parent.glob(".*.tmp"))  # nothing staged beside the link


def test_an_annotation_link_to_a_file_not_yet_written_creates_the_target(tmp_path):
    from toolkit.studies.biasfinder.annotation import upsert_annotation

    target = tmp_path / "shared" / "new.csv"
    target.parent.mkdir()
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    upsert_annotation(link, {"btc_id": "b1", "variant": "a", "annotator": "ann1", "coherent": "yes"})
    assert link.is_symlink() and target.is_file() and "ann1" in target.read_text()


def test_cli_eec_order_with_an_unknown_model_fails_before_scoring(tmp_path, capsys, monkeypatch):
    from toolkit import __main__ as cli
    from toolkit.studies import eec

    monkeypatch.setattr(eec, "score", lambda *a, **k: pytest.fail("scored before checking --order"))
    out = tmp_path / "out"
    code = cli.main(["eec", "--model", "vader", "--model", "afinn", "--order", "afinn", "nope", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "[TK102] --order afinn nope: 'nope' is not among the run's models (vader, afinn)" in err
    assert "permutation of the models: vader afinn" in err and not out.exists()
    code = cli.main(["eec", "--model", "vader", "--model", "afinn", "--order", "afinn", "--out", str(out)])
    assert code == 2 and "must name each of the run's models once" in capsys.readouterr().err


def test_skip_known_removing_every_review_names_the_people_option_as_the_fix():
    from toolkit.studies.biasfinder import generator as biasfinder

    texts = [f"Tom Hanks was great in film number {i}. He made me laugh and his acting was wonderful."
             for i in range(12)]
    corpus = pd.DataFrame({"doc_id": range(12), "text": texts, "corpus": "tiny"})
    assert len(biasfinder.generate(corpus, instances=["gender"], n_names=3))  # mutate: templated
    with pytest.raises(InputError, match=r"kept unmutated by people='skip-known': 12") as excinfo:
        biasfinder.generate(corpus, instances=["gender"], n_names=3, people="skip-known")
    fix = excinfo.value.fix
    assert "people='mutate' (--people mutate" in fix and "people='skip-real'" in fix
    assert "mention a person" not in fix  # the old advice: these reviews do mention one


def test_make_arguments_keeps_quotes_and_command_substitutions_as_written():
    from toolkit import notebooks

    environ = {"TOOLKIT_MAKE_PARAMS": "N=20 X='$(id)' Y=it's", "TOOLKIT_MAKE_TASK": "all",
               "TOOLKIT_MAKE_NOTEBOOKS": "01 02;id", "TOOLKIT_MAKE_PRESET": ""}
    assert notebooks.make_arguments(environ) == ["--task", "all", "--make-param", "N=20", "--make-param", "X='$(id)'",
                                                 "--make-param", "Y=it's", "01", "02;id"]
    assert notebooks.parse_assignment("Y=it's") == ("Y", "it's")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_figures_passes_a_value_with_a_quote_and_a_command_substitution_without_running_it(tmp_path):
    """The Makefile's figures recipe, run with a stand-in for the Python it calls (no notebook runs, venv not
    remade: -o venv), gets the values in its environment exactly as given, and no shell runs any part of them."""
    dump, sentinel = tmp_path / "dump.json", tmp_path / "pwned"
    stand_in = tmp_path / "stand_in.py"
    stand_in.write_text("import json, os, sys\njson.dump({'argv': sys.argv[1:], 'env': {k: v for k, v in "
                        "os.environ.items() if k.startswith('TOOLKIT_MAKE_')}}, open(os.environ['DUMP_TO'], 'w'))\n")
    params = f"N=20 X='$(touch {sentinel})' Y=it's Z=`touch {sentinel}`"
    notebooks = f"01;touch {sentinel}"
    proc = subprocess.run(["make", "-s", "-o", "venv", "figures", f"PY={sys.executable} {stand_in}",
                           f"PARAMS={params}", f"NOTEBOOKS={notebooks}", "TASK=all'"], cwd=ROOT,
                          env={**os.environ, "DUMP_TO": str(dump)}, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(dump.read_text())
    assert seen["argv"] == ["-m", "toolkit.notebooks", "--from-make"]
    assert seen["env"]["TOOLKIT_MAKE_PARAMS"] == params and seen["env"]["TOOLKIT_MAKE_NOTEBOOKS"] == notebooks
    assert seen["env"]["TOOLKIT_MAKE_TASK"] == "all'"
    assert not sentinel.exists()


def test_cli_biasfinder_format_parquet_without_pyarrow_fails_before_templating(tmp_path, capsys, monkeypatch):
    from toolkit import __main__ as cli
    from toolkit.studies import biasfinder

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now raises ImportError
    monkeypatch.setattr(biasfinder, "run", lambda **k: pytest.fail("ran before checking --format"))
    code = cli.main(["biasfinder", "--model", "vader", "--format", "parquet", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "[TK204] Parquet output needs pyarrow" in err and "pip install -e .[parquet]" in err
