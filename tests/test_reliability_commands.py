"""The commands read what the user wrote, once: an option given twice is TK102 (argparse kept the last silently), a
``make figures PARAMS`` item is named as PARAMS (not ``-p``), a byte that is not UTF-8 in PARAMS is TK102 before any
notebook starts, and the CLI's warnings are plain ``warning: …`` lines (not ``<frozen runpy>:88: UserWarning``)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("argv, option", [
    (["psa", "--model", "vader", "--n", "10", "--n", "20"], "--n"),
    (["psa", "--model", "vader", "--corpus", "a.csv", "--corpus", "b.csv"], "--corpus"),
    (["eec", "--model", "vader", "--task", "valence", "--task", "fear"], "--task"),
    (["biasfinder", "--model", "vader", "--seed", "1", "--seed", "2"], "--seed"),
])
def test_cli_an_option_given_twice_is_tk102_naming_it(tmp_path, capsys, argv, option):
    from toolkit import __main__ as cli

    out = tmp_path / "out"
    assert cli.main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"[TK102] the option {option} was given twice" in err and f"give {option} once" in err
    assert not out.exists()


def test_cli_repeatable_options_still_repeat(tmp_path, capsys, monkeypatch):
    from toolkit import __main__ as cli
    from toolkit import studies

    class Parsed(Exception):
        """Raised by the stand-in study: only the parse is tested."""

    def run(self, **options):
        raise Parsed(options["models"])

    monkeypatch.setattr(type(studies.get("psa")), "run", run)
    with pytest.raises(Parsed) as excinfo:
        cli.main(["psa", "--model", "vader", "--model", "afinn", "--out", str(tmp_path / "o")])
    assert excinfo.value.args[0] == ["vader", "afinn"]


def test_notebooks_an_option_or_parameter_given_twice_is_tk102(capsys):
    from toolkit import notebooks

    assert notebooks.main(["--task", "valence", "--task", "fear", "--list", "01"]) == 2
    assert "the option --task was given twice" in capsys.readouterr().err
    assert notebooks.main(["-p", "N=10", "-p", "N=20", "02"]) == 2
    assert "the parameter N was given twice (N=10 and N=20)" in capsys.readouterr().err
    assert notebooks.main(["--task", "fear", "-p", "TASK=joy", "01"]) == 2
    assert "TASK was given twice" in capsys.readouterr().err


def test_notebooks_a_malformed_params_item_is_named_as_make_figures_params(capsys, monkeypatch):
    from toolkit import notebooks

    monkeypatch.setenv("TOOLKIT_MAKE_PARAMS", "N=20 MODELS=[\"vader\", \"afinn\"]")  # a space inside a value
    assert notebooks.main(["--from-make"]) == 2
    err = capsys.readouterr().err
    assert "make figures PARAMS holds '\"afinn\"]', which is not NAME=VALUE" in err and "-p" not in err


def test_notebooks_a_non_utf8_byte_in_params_is_tk102_before_any_notebook_runs(tmp_path):
    env = {k.encode(): v.encode() for k, v in os.environ.items() if not k.startswith("TOOLKIT_MAKE_")}
    env[b"TOOLKIT_MAKE_PARAMS"] = b"N=\xff20"
    done = subprocess.run([sys.executable, "-m", "toolkit.notebooks", "--from-make", "--output-dir",
                           str(tmp_path / "executed"), "02"], cwd=ROOT, env=env, check=False, capture_output=True,
                          timeout=300)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, err[-2000:]
    assert "[TK102] make figures PARAMS holds a byte that is not UTF-8 text ('N=\\xff20'" in err
    assert "Traceback" not in err and not (tmp_path / "executed").exists()  # nothing started


@pytest.mark.slow
def test_cli_warnings_are_plain_lines_without_an_internal_location(tmp_path):
    done = subprocess.run([sys.executable, "-m", "toolkit", "psa", "--model", "vader", "--n", "100", "--n-boot", "10",
                           "--no-cache", "--out", str(tmp_path / "out")], cwd=ROOT, check=False, capture_output=True,
                          text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "\nwarning: PSA: asked for 100 sentences" in "\n" + done.stderr
    assert "runpy" not in done.stderr and "UserWarning" not in done.stderr
