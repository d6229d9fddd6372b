"""neuralcoref's weights are checked at every load, not only at fetch: a truncated, swapped or changed file is TK204
naming it (the model is never read from it); ``fetch`` onto a path that is a file is TK105; ``greedyness`` and the
distances are checked; ``python -m toolkit.nlp.neuralcoref`` runs without Python's runpy warning."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.errors import InputError, MissingDependencyError, OutputDirError
from toolkit.nlp import neuralcoref as nc

ROOT = Path(__file__).resolve().parents[1]
MODEL = next((d for d in nc.model_dirs() if all((d / f).is_file() for f in nc.FILES)), None)
needs_model = pytest.mark.skipif(MODEL is None, reason=f"neuralcoref model not fetched ({nc.FETCH})")


def _copy(tmp_path: Path, *, changed: dict[str, bytes]) -> Path:
    """The fetched model as links to its files, except ``changed`` (name → new content)."""
    folder = tmp_path / "model"
    for name in nc.FILES:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name in changed:
            target.write_bytes(changed[name])
        else:
            target.symlink_to(MODEL / name)
    return folder


@needs_model
@pytest.mark.parametrize("case", ["truncated", "swapped", "one_byte", "misplaced"])
def test_neuralcoref_load_refuses_model_files_that_are_not_the_released_ones(tmp_path, case):
    single, pairs = (MODEL / "single_model").read_bytes(), (MODEL / "pairs_model").read_bytes()
    changed = {"truncated": {"pairs_model": pairs[: len(pairs) // 2]},
               "swapped": {"single_model": pairs, "pairs_model": single},
               "one_byte": {"single_model": single[:-1] + bytes([single[-1] ^ 1])},
               "misplaced": {"static_vectors/vectors": (MODEL / "tuned_vectors" / "vectors").read_bytes()}}[case]
    folder = _copy(tmp_path, changed=changed)
    with pytest.raises(MissingDependencyError) as excinfo:
        nc.NeuralCoref(model=folder)
    error = excinfo.value
    assert error.code == "TK204" and "are not the released ones" in error.message
    assert all(name in error.message for name in changed) and nc.FETCH in error.fix


@needs_model
def test_neuralcoref_load_of_the_released_files_still_works(tmp_path):
    assert nc.NeuralCoref(model=_copy(tmp_path, changed={})).weights.static.shape[1] == nc.E


@pytest.mark.parametrize("where", ["target_is_a_file", "parent_is_a_file", "downloads_is_a_file"])
def test_neuralcoref_fetch_onto_a_file_is_tk105_naming_it(tmp_path, where):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file")
    target = {"target_is_a_file": blocker, "parent_is_a_file": blocker / "model"}.get(where, tmp_path / "model")
    downloads = blocker if where == "downloads_is_a_file" else tmp_path / "downloads"
    with pytest.raises(OutputDirError, match=r"is a file, not a folder") as excinfo:
        nc.fetch(target=target, downloads=downloads, quiet=True, pip=["false"])
    assert str(blocker) in excinfo.value.message
    assert blocker.read_text() == "a file"


@pytest.mark.parametrize("options", [{"greedyness": 1.5}, {"greedyness": -0.1}, {"greedyness": float("nan")},
                                     {"greedyness": "0.5"}, {"greedyness": True}, {"max_dist": 2.7},
                                     {"max_dist_match": -1}])
def test_neuralcoref_options_out_of_range_are_tk102_before_the_model_is_read(options, monkeypatch):
    monkeypatch.setattr(nc, "load_weights", lambda *a, **k: pytest.fail("read the model before checking options"))
    with pytest.raises(InputError) as excinfo:
        nc.NeuralCoref(**options)
    assert next(iter(options)) in excinfo.value.message


def test_neuralcoref_command_runs_without_pythons_runpy_warning():
    done = subprocess.run([sys.executable, "-W", "default", "-m", "toolkit.nlp.neuralcoref", "check"], cwd=ROOT,
                          check=False, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONWARNINGS": "default"})
    assert done.returncode in (0, 1), done.stderr
    assert "neuralcoref model" in done.stdout
    assert "RuntimeWarning" not in done.stderr and "runpy" not in done.stderr, done.stderr
