"""Shared fixtures: an isolated data/figures folder per test session (per xdist worker), the EEC corpus, a tiny
local BERT, a Ray cluster start that a busy machine meets."""
from __future__ import annotations

import contextlib
import fcntl
import os
import re
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Caches and figures of the tests never land in the project's data/ and figures/."""
    root = tmp_path_factory.getbasetemp()
    monkeypatch.setenv("TOOLKIT_DATA", str(root / "data"))
    monkeypatch.setenv("TOOLKIT_FIGURES", str(root / "figures"))
    monkeypatch.setenv("MPLBACKEND", "Agg")


@pytest.fixture(autouse=True)
def _default_figure_preset(monkeypatch: pytest.MonkeyPatch):
    """Every test starts with the default figure preset: a preset one test sets (plots.use_preset, or the environment
    a user's shell exports) never reaches the next test on the same worker."""
    from toolkit.plots import presets

    monkeypatch.delenv(presets.PRESET_ENV, raising=False)
    monkeypatch.delenv(presets.FONT_ENV, raising=False)
    token = presets._ACTIVE.set(presets._UNSET)
    saved, presets._SESSION[0] = presets._SESSION[0], presets._UNSET
    yield
    presets._SESSION[0] = saved
    presets._ACTIVE.reset(token)


@pytest.fixture(scope="session")
def eec_cases():
    from toolkit.studies.eec.generator import generate

    return generate()


def _tiny_bert(folder: Path, *, id2label: dict[int, str], seed: int) -> Path:
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    words = ("[PAD] [UNK] [CLS] [SEP] [MASK] the a good bad movie great awful film i it was not very is and "
             "she he her him my sister brother feels angry happy").split()
    tokenizer = BertTokenizer(vocab={w: i for i, w in enumerate(words)})
    config = BertConfig(vocab_size=len(words), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=37, max_position_embeddings=64, num_labels=len(id2label),
                        id2label=id2label, label2id={v: k for k, v in id2label.items()})
    torch.manual_seed(seed)
    model = BertForSequenceClassification(config)
    tokenizer.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-class BERT (NEGATIVE/POSITIVE) built from a config and saved locally: the hf: path with no download."""
    return _tiny_bert(tmp_path_factory.mktemp("tiny_bert"), id2label={0: "NEGATIVE", 1: "POSITIVE"}, seed=0)


@pytest.fixture(scope="session")
def tiny_bert_3class_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tiny_bert(tmp_path_factory.mktemp("tiny_bert3"),
                      id2label={0: "negative", 1: "neutral", 2: "positive"}, seed=1)


@pytest.fixture(scope="session")
def tiny_bert_generic_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generic LABEL_0/LABEL_1 names: the mapping must be given explicitly."""
    return _tiny_bert(tmp_path_factory.mktemp("tiny_bert_generic"), id2label={0: "LABEL_0", 1: "LABEL_1"}, seed=2)


def benchmark_module(name: str):
    """``benchmarks/<name>.py`` imported as a module (the simulations the statistics tests run at a smaller size)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def corpus_of(texts: list[str]):
    """A corpus frame (toolkit.corpora's columns) holding ``texts``, for generator tests."""
    import pandas as pd

    return pd.DataFrame({"doc_id": [f"d{i}" for i in range(len(texts))], "text": texts, "label": "",
                         "corpus": "test"})


RAY_START_TRIES = 6
"""Starts of a local Ray node tried before a test fails: under a load of 10 on 2 cores three 30 s windows all
passed without the raylet registering (a full suite beside three CPU-bound jobs)."""


def kill_ray_leftovers(driver_pid: int, *, root: str = "/tmp/ray") -> int:
    """Kill the processes of the Ray sessions ``driver_pid`` started (their command lines name a session folder
    ``<root>/session_<time>_<driver_pid>``): a start that timed out leaves its GCS server, monitors, dashboard and
    raylet running, and each retry under load would add more. Returns how many were killed (0 without psutil)."""
    try:
        import psutil
    except ImportError:
        return 0

    marker = re.compile(re.escape(root.rstrip("/")) + r"/session_[0-9_-]+_" + str(driver_pid) + r"\b")
    killed = 0
    for process in psutil.process_iter(["pid", "cmdline"]):
        if process.info["pid"] == os.getpid() or not any(marker.search(part) for part in process.info["cmdline"] or []):
            continue
        try:
            process.kill()
            killed += 1
        except psutil.Error:
            pass  # gone already
    return killed


@contextlib.contextmanager
def local_ray(tmp_path_factory: pytest.TempPathFactory, **init):
    """A local Ray cluster for a test, started so a busy machine meets it: one cluster at a time across the xdist
    workers (a lock file beside the workers' temp folders), the GCS port wait raised to 120 s, and a node that timed
    out during startup (Ray's own 30 s raylet wait, not configurable) started again, its leftovers killed
    (:func:`kill_ray_leftovers`), up to :data:`RAY_START_TRIES` tries; shut down after."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e .[ray])")
    lock = tmp_path_factory.getbasetemp().parent / "ray.lock"  # shared by the workers of one run
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "120")
        try:
            for attempt in range(RAY_START_TRIES):
                try:
                    ray.init(include_dashboard=False, log_to_driver=False, **init)
                    break
                except Exception as exc:  # Ray raises a bare Exception for it
                    ray.shutdown()
                    kill_ray_leftovers(os.getpid())  # a failed start leaves its GCS, monitors and raylet running
                    if "timed out during startup" not in str(exc) or attempt == RAY_START_TRIES - 1:
                        raise
            yield ray
        finally:
            ray.shutdown()
            fcntl.flock(held, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def small_runs():
    """A real small run of each study (tests/small_runs.py), for the tests of what tables, reports and apps show."""
    from small_runs import run_all

    return run_all()
