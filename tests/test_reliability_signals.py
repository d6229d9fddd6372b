"""Issue: Ctrl-C / SIGTERM during a run end it and its worker processes within seconds with one TK302 line (exit 130 /
143); a full disk under the score cache is TK106 ("free space"); a ``--cache`` under a plain file is TK301 naming it.

The command-line tests start ``python -m toolkit`` as a subprocess, wait (polling) until its worker processes exist,
signal it, and check that it ends, says so in one line, and leaves no child behind."""
from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from toolkit import executors
from toolkit.cache import ScoreCache
from toolkit.errors import CacheError, DiskFullError
from toolkit.models import SentimentModel
from toolkit.models.base import Predictions
from toolkit.scoring import score

TESTS_DIR = Path(__file__).resolve().parent
pytestmark = pytest.mark.slow  # runs, signals and waits on child processes: left out by make test-fast
DEADLINE_S = 90.0  # "ends on the signal", not after the minutes the run has left: load-tolerant (a busy 2-core
# machine took over 10 s); a run that ignored the signal would still fail on its exit status
GONE_S = 30.0  # how long a stopped worker may take to disappear from /proc on a busy machine
_SLOW_MODEL = '''import os, time


def score(texts):
    time.sleep(float(os.environ.get("SLOW", "0")))
    return [0.2 + 0.6 * (len(t) % 5) / 4 for t in texts]


score.fork_safe = True
'''


def _cases(texts):
    return pd.DataFrame({"case_id": [f"c{i}" for i in range(len(texts))],
                         "variant_id": [f"v{i}" for i in range(len(texts))], "text": texts, "attribute": "name",
                         "group": "x", "fill": "", "generator": "test", "template": "", "is_original": False})


def _children(pid: int) -> set[int]:
    """The live child processes of ``pid`` (from /proc)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return {c for c in found if _alive(c)}


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(autouse=True)
def _ctrl_c_as_in_a_terminal():
    """A shell that starts the suite in the background makes it ignore SIGINT, and its children inherit that. These
    tests are about Ctrl-C, so they run with Python's own handler; subprocesses they start then get the default."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _start(args: list[str], tmp_path: Path, *, env: dict | None = None, group: bool = False) -> subprocess.Popen:
    path = [str(TESTS_DIR.parent), str(TESTS_DIR), str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "MPLBACKEND": "Agg", **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "toolkit", *args], cwd=tmp_path, env=env, text=True,
                            stdout=subprocess.DEVNULL, stderr=open(tmp_path / "stderr.txt", "w"),
                            start_new_session=group)


def _ignores_sigint(pid: int) -> bool:
    """Whether ``pid`` ignores SIGINT (/proc's SigIgn mask): a forked worker past its set-up does
    (toolkit.executors._worker_main), while the run still counts the worker it has just forked."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigIgn:"):
                return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    except (OSError, ValueError, IndexError):
        pass
    return False


def _wait_for_workers(proc: subprocess.Popen, n: int, *, timeout: float = 300.0) -> set[int]:
    """The run's worker processes once ``n`` of them are set up (not merely forked: a signal sent between the
    fork and the run's bookkeeping would find fewer workers than /proc shows, a race a busy machine widens)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before its workers started"
        kids = _children(proc.pid)
        if len({k for k in kids if _ignores_sigint(k)}) >= n:
            return kids
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"no {n} worker processes within {timeout} s")


def _signal_and_wait(proc: subprocess.Popen, sig: int, *, group: bool) -> float:
    sent = time.monotonic()
    if group:  # Ctrl-C in a terminal: the whole process group gets SIGINT
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    try:
        proc.wait(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError(f"still running {DEADLINE_S} s after the signal")
    return time.monotonic() - sent


def _wait_for_rows(path: Path, proc: subprocess.Popen, *, timeout: float = 300.0) -> None:
    """Until the score cache at ``path`` holds a committed batch (read-only: SQLite lets readers in meanwhile)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as db:
                if db.execute("SELECT COUNT(*) FROM scores").fetchone()[0]:
                    return
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    raise AssertionError("no batch reached the cache")


def _kill_leftovers(pids: set[int]) -> list[int]:
    """The workers still alive once they had ``GONE_S`` to go (waiting for the event, not a fixed nap), killed."""
    deadline = time.monotonic() + GONE_S
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = sorted(p for p in pids if _alive(p))
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def _corpus(path: Path, n: int) -> Path:
    review = ("Michael gave a wonderful performance in this film {i}. He was funny and his timing was perfect. "
              "I liked him in every scene, although the plot around him drags in the middle. ") * 3
    pd.DataFrame({"text": [review.format(i=i) for i in range(n)]}).to_csv(path, index=False)
    return path


# --- templating: spaCy parsing workers (--n-process 2) ----------------------------------------------------------

@pytest.mark.parametrize("sig, group, status", [(signal.SIGINT, False, 130), (signal.SIGINT, True, 130),
                                                (signal.SIGTERM, False, 143)],
                         ids=["sigint-to-parent", "sigint-to-group", "sigterm"])
def test_signal_during_templating_ends_the_run_and_its_parsing_workers(tmp_path, sig, group, status):
    corpus = _corpus(tmp_path / "reviews.csv", 3000)  # far more than parses in the test's lifetime
    proc = _start(["biasfinder", "--model", "vader", "--corpus", str(corpus), "--n-process", "2", "--no-cache",
                   "--out", str(tmp_path / "out")], tmp_path, group=group)
    workers = _wait_for_workers(proc, 2)
    _signal_and_wait(proc, sig, group=group)
    assert _kill_leftovers(workers) == [], "worker processes outlived the run"
    stderr = (tmp_path / "stderr.txt").read_text()
    last = stderr.strip().splitlines()[-1]
    assert proc.returncode == status, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]
    assert last.startswith(f"error: [TK302] interrupted by {signal.Signals(sig).name} during templating"), last
    assert "2 worker processes were stopped" in last and "re-run the same command" in last


def _wait_for_spacy2_worker(proc: subprocess.Popen, *, timeout: float = 300.0) -> int:
    """The pid of the run's spaCy 2 worker (toolkit/nlp/spacy2_worker.py) once it has started."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before its spaCy 2 worker started"
        for kid in _children(proc.pid):
            try:
                if b"spacy2_worker.py" in Path(f"/proc/{kid}/cmdline").read_bytes():
                    return kid
            except OSError:
                pass
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"no spaCy 2 worker within {timeout} s")


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["sigint", "sigterm"])
def test_signal_during_paper_templating_ends_the_run_and_its_spacy2_worker(tmp_path, sig, status):
    """BiasFinder's paper preset parses in spaCy 2's own interpreter (toolkit.nlp.spacy2): Ctrl-C to the whole group
    (the worker ignores it) or SIGTERM to the run alone ends the run with its status and the worker with it."""
    from toolkit.nlp import spacy2

    if not spacy2.interpreter().exists():
        pytest.skip("no spaCy 2 environment (make parser-spacy2)")
    corpus = _corpus(tmp_path / "reviews.csv", 3000)
    proc = _start(["biasfinder", "--model", "vader", "--corpus", str(corpus), "--coherence", "paper", "--backend",
                   "neuralcoref", "--lists", "paper", "--no-cache", "--out", str(tmp_path / "out")], tmp_path,
                  group=True)
    worker = _wait_for_spacy2_worker(proc)
    _signal_and_wait(proc, sig, group=sig == signal.SIGINT)
    assert _kill_leftovers({worker}) == [], "the spaCy 2 worker outlived the run"
    stderr = (tmp_path / "stderr.txt").read_text()
    assert proc.returncode == status, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]
    assert stderr.strip().splitlines()[-1].startswith(f"error: [TK302] interrupted by {signal.Signals(sig).name}")


# --- templating: a Ctrl-C that lands in a finalizer (both ends of the race, provoked on purpose) ------------------

_FINALIZER_RUN = """import os, signal, sys, time
from toolkit import executors

AT = os.environ["TRIGGER_AT"]  # "last": once every parse result is in; "first": with batches still in flight


class Finalizer:
    \"\"\"Ctrl-C to the whole process group from inside a finalizer, waiting there until the driver's handler has
    run: Python can only print the KeyboardInterrupt it raises here.\"\"\"

    def __del__(self):
        os.killpg(os.getpgrp(), signal.SIGINT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the handler runs (and raises) inside this loop
            pass


original = executors.parse


def parse(nlp, texts, *, batch_size, n_process):
    for i, doc in enumerate(original(nlp, texts, batch_size=batch_size, n_process=n_process)):
        if i == (len(texts) - 1 if AT == "last" else 0):
            Finalizer()  # made and dropped at once: its __del__ runs here
        yield doc


executors.parse = parse
from toolkit.__main__ import main

sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("at", ["last", "first"], ids=["lost-after-the-last-result", "lost-with-batches-in-flight"])
def test_executors_a_ctrl_c_lost_in_a_finalizer_during_templating_still_ends_the_run_with_130(tmp_path, at):
    """Both ends of the race, each provoked deterministically (the signal is sent from inside a finalizer, which
    waits for the handler): after the last parse result the lost interrupt let the run finish with exit 0 and write
    its outputs; with batches in flight the stopped workers' pipes broke (BrokenPipeError / a dead worker, exit 1)."""
    (tmp_path / "run_cli.py").write_text(_FINALIZER_RUN)
    corpus = _corpus(tmp_path / "reviews.csv", 300)  # 300 candidates: 5 parse batches over 2 workers
    path = [str(TESTS_DIR.parent), str(tmp_path)]
    with open(tmp_path / "stderr.txt", "w") as err:
        proc = subprocess.Popen([sys.executable, str(tmp_path / "run_cli.py"), "biasfinder", "--model", "vader",
                                 "--corpus", str(corpus), "--instance", "gender", "--n-process", "2", "--no-cache",
                                 "--out", str(tmp_path / "out")], cwd=tmp_path, text=True, stdout=subprocess.DEVNULL,
                                stderr=err, start_new_session=True,
                                env={**os.environ, "PYTHONPATH": os.pathsep.join(path), "MPLBACKEND": "Agg",
                                     "TRIGGER_AT": at})
        try:
            proc.wait(timeout=600)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    stderr = (tmp_path / "stderr.txt").read_text()
    assert proc.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr[-3000:]
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("error: [TK302] interrupted by SIGINT during templating"), last
    assert not (tmp_path / "out" / "provenance.json").exists()  # nothing written
    assert _kill_leftovers(_children(proc.pid)) == []


def _lose_in_a_finalizer(sig: int) -> None:
    """Send ``sig`` to this process from inside a finalizer and wait there for its handler (see above)."""
    class Finalizer:
        def __del__(self):
            signal.raise_signal(sig)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                pass

    Finalizer()


def test_executors_a_pipe_broken_by_the_signal_raises_the_interrupt_not_brokenpipe():
    """The driver's handler stopped the workers but its KeyboardInterrupt was lost: the next send or receive on a
    worker's pipe raises the interrupt (as it would have been), with the workers stopped, never BrokenPipeError."""
    results = executors.map_in_processes(str.upper, [f"t{i}" for i in range(40)], n_workers=2)
    assert next(results) == ("t0", "T0")
    _lose_in_a_finalizer(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt) as info:
        list(results)
    assert not isinstance(info.value, executors.Terminated)
    assert multiprocessing.active_children() == []
    _delivered_once()


def _delivered_once() -> None:
    """The lost interrupt was raised once: the next checkpoint passes (a KeyboardInterrupt escaping a test would stop
    the whole pytest session, so it is caught and failed here)."""
    try:
        executors.check_interrupted()
    except KeyboardInterrupt:
        pytest.fail("the lost interrupt was raised a second time")


def test_executors_an_interrupt_lost_outside_the_workers_is_raised_at_the_next_checkpoint():
    previous = signal.signal(signal.SIGTERM, executors.raise_on_sigterm)
    try:
        _lose_in_a_finalizer(signal.SIGTERM)  # no workers: only the checkpoint can bring it back
        with pytest.raises(executors.Terminated):
            executors.check_interrupted()
        _delivered_once()
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_executors_map_in_processes_ends_its_workers_before_the_last_result():
    """A consumer that stops at the last result (zip) leaves no worker and no handler for a finalizer to deal with."""
    before = signal.getsignal(signal.SIGINT)
    results = executors.map_in_processes(str.upper, ["a", "b", "c"], n_workers=2)
    assert [next(results) for _ in range(3)] == [("a", "A"), ("b", "B"), ("c", "C")]
    assert multiprocessing.active_children() == [] and signal.getsignal(signal.SIGINT) == before
    results.close()


# --- scoring: forked lexicon workers (--n-jobs 2) -----------------------------------------------------------------

def test_sigterm_during_scoring_keeps_the_cache_and_the_rerun_completes_it(tmp_path):
    (tmp_path / "slowmod.py").write_text(_SLOW_MODEL)
    corpus = _corpus(tmp_path / "reviews.csv", 40)  # 40 templates, 2,440 texts: five batches of the py: model
    common = ["biasfinder", "--model", "py:slowmod:score", "--corpus", str(corpus), "--instance", "gender",
              "--n-jobs", "2", "--scored"]
    proc = _start([*common, "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "a")], tmp_path,
                  env={"SLOW": "1"})
    workers = _wait_for_workers(proc, 2)
    _wait_for_rows(tmp_path / "cache" / "scores.sqlite", proc)
    _signal_and_wait(proc, signal.SIGTERM, group=False)
    assert _kill_leftovers(workers) == []
    last = (tmp_path / "stderr.txt").read_text().strip().splitlines()[-1]
    assert proc.returncode == 143, last
    assert last.startswith("error: [TK302] interrupted by SIGTERM during scoring with py:slowmod:score"), last
    assert "texts were scored and are in the cache" in last and "re-run the same command to resume" in last
    with ScoreCache(tmp_path / "cache" / "scores.sqlite") as cache:
        kept = cache.count()
    assert f"{kept} of " in last  # the message counts what the cache holds

    rerun = _start([*common, "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "a")], tmp_path)
    assert rerun.wait(timeout=300) == 0, (tmp_path / "stderr.txt").read_text()[-3000:]
    scored = pd.read_csv(tmp_path / "a" / "biasfinder_scored.csv")
    with ScoreCache(tmp_path / "cache" / "scores.sqlite") as cache:
        assert cache.count() == scored["text"].nunique() > kept  # resumed: the rest was scored and stored
    expected = 0.2 + 0.6 * (scored["text"].str.len() % 5) / 4  # the model's own formula, text by text
    assert ((scored["score"] - expected).abs() < 1e-9).all()


# --- scoring a transformer: tokeniser and prefetch threads ahead of the model ---------------------------------------

def _toolkit_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(("toolkit-prefetch", "toolkit-tokenise"))]


def test_ctrl_c_while_a_transformer_scores_ahead_stops_its_threads_and_keeps_every_committed_batch(tiny_bert_dir,
                                                                                                   tmp_path):
    """SIGINT to the process after the first committed batch (from the progress callback, in the main thread), while
    the prefetch thread pads batches ahead: a KeyboardInterrupt saying what was kept, that many texts in the cache,
    and no tokeniser or prefetch thread left once they had time to end (joined: waiting for that event)."""
    from toolkit import monitor

    words = ["the", "a", "good", "bad", "movie", "great", "awful", "film", "i", "it", "was", "not", "very", "is", "and",
             "she", "he", "her", "him", "my", "sister"]
    texts = [" ".join(words[(i // len(words) ** k) % len(words)] for k in range(3 + i % 6)) for i in range(3000)]
    sent = []

    def interrupt_once(report):
        if report.done and not sent:
            sent.append(report.done)
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt) as info, monitor.watching(on_progress=interrupt_once):
        score(_cases(texts), models=f"hf:{tiny_bert_dir}", cache=tmp_path, batch_tokens=32)
    facts = info.value.toolkit_interrupt
    for thread in _toolkit_threads():
        thread.join(GONE_S)
    assert _toolkit_threads() == []
    assert sent and facts["stage"].startswith("scoring with hf:") and 0 < facts["scored"] < facts["total"]
    with ScoreCache(tmp_path / "scores.sqlite") as cache:
        assert cache.count() == facts["scored"]


def test_ctrl_c_while_scoring_a_transformer_from_the_command_line_exits_130(tmp_path):
    """The command line scoring the EEC with minilm-imdb (tokenised and padded ahead of the model), SIGINT after the
    first committed batch: it ends within the deadline (no thread holds the exit) with status 130 and one TK302
    line counting what the cache holds."""
    proc = _start(["eec", "--model", "minilm-imdb", "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "o")],
                  tmp_path)
    _wait_for_rows(tmp_path / "cache" / "scores.sqlite", proc)
    _signal_and_wait(proc, signal.SIGINT, group=False)
    stderr = (tmp_path / "stderr.txt").read_text()
    last = stderr.strip().splitlines()[-1]
    assert proc.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]
    assert last.startswith("error: [TK302] interrupted by SIGINT during scoring with minilm-imdb"), last
    with ScoreCache(tmp_path / "cache" / "scores.sqlite") as cache:
        kept = cache.count()
    assert f"{kept:,} of " in last or f"{kept} of " in last


# --- the library: interrupts stay KeyboardInterrupt, workers never outlive them -----------------------------------

def _interrupt_driver_on(text: str, marker: str) -> str:
    """Runs in a worker: Ctrl-C to the driver when it sees ``marker``, then carry on."""
    if text[0] == marker:
        os.kill(os.getppid(), signal.SIGINT)
        time.sleep(0.5)
    return text.upper()


def test_map_in_processes_keeps_order_and_raises_a_workers_error():
    tasks = [f"task {i}" for i in range(23)]
    assert list(executors.map_in_processes(str.upper, tasks, n_workers=3)) == [(t, t.upper()) for t in tasks]
    with pytest.raises(ZeroDivisionError):
        list(executors.map_in_processes(lambda x: 1 / (x - 5), range(10), n_workers=2))
    assert multiprocessing.active_children() == []


def test_ctrl_c_in_the_library_is_a_keyboard_interrupt_and_stops_the_workers():
    before = signal.getsignal(signal.SIGINT)
    tasks = [f"{'x' if i == 6 else 'a'}{i}" for i in range(40)]
    with pytest.raises(KeyboardInterrupt) as info:
        for _ in executors.map_in_processes(lambda t: _interrupt_driver_on(t, "x"), tasks, n_workers=2):
            pass
    assert multiprocessing.active_children() == []
    assert info.value.toolkit_interrupt["workers"] == 2
    assert signal.getsignal(signal.SIGINT) == before  # the handler is put back


class _InterruptingModel(SentimentModel):
    """A fork-safe model whose worker sends Ctrl-C to the driver on the batch holding 'stop here'."""

    spec = fingerprint = "interrupting"
    batch_size = 5
    fork_safe = True

    def predict(self, texts):
        if "stop here" in texts:
            os.kill(os.getppid(), signal.SIGINT)
            time.sleep(1)
        return Predictions(np.full(len(texts), 0.5), ["neutral"] * len(texts), np.zeros(len(texts), bool))


def test_ctrl_c_while_scoring_with_workers_keeps_every_committed_batch(tmp_path):
    model = _InterruptingModel()
    texts = [f"text {i}" for i in range(60)]
    texts[40] = "stop here"
    with pytest.raises(KeyboardInterrupt) as info:
        score(_cases(texts), models=model, cache=tmp_path, n_jobs=2)
    facts = info.value.toolkit_interrupt
    assert multiprocessing.active_children() == []
    assert facts["stage"] == "scoring with interrupting" and facts["total"] == 60 and facts["workers"] == 2
    with ScoreCache(tmp_path / "scores.sqlite") as cache:
        assert cache.count() == facts["scored"] and 0 < facts["scored"] < 60


def test_a_ctrl_c_taken_by_another_thread_still_waits_for_the_deferred_block():
    """CI saw a batch committed but not counted: SIGINT sent to the process landed on another thread (blocking it in
    the main thread does not stop that), and its handler then ran inside the block."""
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with executors.signals_deferred():
            other = threading.Thread(target=lambda: signal.pthread_kill(threading.get_ident(), signal.SIGINT))
            other.start()
            other.join()
            for _ in range(10_000):  # many chances for the interpreter to run a pending handler
                steps.append(1)
            steps.append("end of block")
    assert steps[-1] == "end of block" and len(steps) == 10_001
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_in_the_library_keeps_its_default_exit_and_leaves_no_worker(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(
        "import sys, time\n"
        "from toolkit import executors\n"
        "for task, _ in executors.map_in_processes(lambda x: time.sleep(0.2), range(10_000), n_workers=2):\n"
        "    pass\n")
    env = {**os.environ, "PYTHONPATH": str(TESTS_DIR.parent)}
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stderr=subprocess.PIPE, text=True)
    workers = _wait_for_workers(proc, 2)
    _signal_and_wait(proc, signal.SIGTERM, group=False)
    assert proc.returncode == -signal.SIGTERM  # still killed by SIGTERM, as without the toolkit
    assert _kill_leftovers(workers) == []
    assert "Traceback" not in proc.stderr.read()


# --- the cache: a full disk, a path under a plain file ------------------------------------------------------------

class _FullDisk:
    def __init__(self, db):
        self.db = db

    def __enter__(self):
        return self.db.__enter__()

    def __exit__(self, *exc):
        return self.db.__exit__(*exc)

    def executemany(self, *args):
        raise sqlite3.OperationalError("database or disk is full")

    def __getattr__(self, name):
        return getattr(self.db, name)


def test_full_disk_while_committing_says_free_space_not_delete_the_cache(tmp_path):
    cache = ScoreCache(tmp_path / "scores.sqlite")
    cache._db = _FullDisk(cache._db)
    with pytest.raises(DiskFullError) as info:
        score(_cases(["a good film", "a bad film"]), models="vader", cache=cache)
    message = str(info.value)
    assert info.value.code == "TK106" and "free space on" in message and "--no-cache" in message
    assert "MB" in message and "delete" not in message
    cache._db = cache._db.db
    cache.close()


@pytest.fixture
def small_disk(tmp_path):
    folder = tmp_path / "small"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(folder)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def test_a_real_full_disk_is_tk106_and_the_committed_batches_stay(small_disk):
    texts = [f"review number {i} was good and the acting was fine {'x' * 50}" for i in range(5000)]
    with pytest.raises(DiskFullError, match=f"free space on {small_disk}"):
        score(_cases(texts), models="vader", cache=small_disk / "scores.sqlite", n_jobs=1)
    with ScoreCache(small_disk / "scores.sqlite") as cache:
        assert 0 < cache.count() < 5000


def test_cache_under_a_plain_file_is_tk301_naming_the_file(tmp_path, capsys):
    from toolkit.__main__ import main

    blocker = tmp_path / "afile"
    blocker.write_text("not a folder")
    target = blocker / "sub" / "cache.sqlite"
    assert main(["eec", "--model", "vader", "--subset", "all", "--cache", str(target),
                 "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "[TK301]" in err and f"{blocker} is a file" in err and "Traceback" not in err
    with pytest.raises(CacheError, match=f"{blocker} is a file"):
        score(_cases(["a"]), models="vader", cache=target)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_parsing_in_worker_processes_gives_the_docs_of_one_process():
    from toolkit.nlp import coref

    nlp = coref.backend("rules").nlp
    texts = [f"Review {i}: Michael gave a wonderful performance. He was funny and his timing was perfect."
             for i in range(9)] + ["", "She said: \"Never again\"."]
    alone = [doc.to_json() for doc in nlp.pipe(texts, batch_size=2)]
    spread = [doc.to_json() for doc in executors.parse(nlp, texts, batch_size=2, n_process=2)]
    assert spread == alone
    assert multiprocessing.active_children() == []
