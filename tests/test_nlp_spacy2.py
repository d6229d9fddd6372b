"""BiasFinder's spaCy 2 parser in its own interpreter (toolkit.nlp.spacy2).

The protocol is tested with the worker running under this interpreter's spaCy 3 and its small English package (what
the worker imports is a command-line argument), against that package loaded here directly; the real spaCy 2 worker
(``make parser-spacy2``) against the neuralcoref reference fixtures, whose parse spaCy 2.3.9 with en_core_web_sm
2.2.5 made, where both are present."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SHARED_DATA

from toolkit.errors import MissingDependencyError
from toolkit.nlp import spacy2
from toolkit.nlp.pipeline import DEFAULT_PIPELINE

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = SHARED_DATA / "neuralcoref" / "imdb_train.json"
TEXTS = ["Sean Connery was great and he knew it. I loved him in this.",
         "The director's wife, Mary Smith, said she hated the film!",
         "", "  Two  spaces   here.\n\nAnd a new paragraph about Paris and Tom Hanks."]


@pytest.fixture(scope="module")
def here():
    """The worker under this interpreter, importing the default spaCy 3 package."""
    pipeline = spacy2.Spacy2Pipeline(DEFAULT_PIPELINE, python=Path(sys.executable))
    yield pipeline
    pipeline.close()


@pytest.fixture(scope="module")
def direct():
    import spacy

    return spacy.load(DEFAULT_PIPELINE)


def _fields(doc) -> tuple:
    return ([t.text for t in doc], [t.whitespace_ for t in doc], [t.tag_ for t in doc], [t.pos_ for t in doc],
            [t.dep_ for t in doc], [t.head.i for t in doc], [(e.start, e.end, e.label_) for e in doc.ents],
            [s.start for s in doc.sents] if len(doc) else [], doc.text)


def test_the_workers_parses_rebuild_as_the_docs_the_model_makes_here(here, direct):
    got = list(here.pipe(TEXTS, batch_size=2))
    assert len(got) == len(TEXTS)
    for text, doc in zip(TEXTS, got):
        assert _fields(doc) == _fields(direct(text)), text
    assert here.meta["package"] == DEFAULT_PIPELINE and here.meta["spacy"].startswith("3.")


def test_nested_calls_read_their_own_replies_and_an_early_stop_leaves_the_next_call_right(here, direct):
    outer = here.pipe(TEXTS * 3, batch_size=1)  # batch 2 already sent when batch 1 is read
    seen = []
    for doc in outer:
        inner = list(here.pipe(["his father", "the man"], batch_size=1))
        assert [[t.text for t in d] for d in inner] == [["his", "father"], ["the", "man"]]
        seen.append(doc.text)
    assert seen == TEXTS * 3
    stopped = here.pipe(TEXTS * 5, batch_size=1)
    next(stopped)
    stopped.close()  # replies in flight are read and dropped
    assert [d.text for d in here.pipe(TEXTS[:2])] == TEXTS[:2]
    assert _fields(here(TEXTS[1])) == _fields(direct(TEXTS[1]))


def test_a_missing_interpreter_is_tk204_naming_make_parser_spacy2(tmp_path, monkeypatch):
    monkeypatch.setenv(spacy2.ENV_PYTHON, str(tmp_path / "no-python"))
    with pytest.raises(MissingDependencyError) as err:
        spacy2.load("spacy2:en_core_web_sm")
    assert err.value.code == "TK204" and "make parser-spacy2" in err.value.fix


def test_a_missing_model_package_is_tk204_with_the_workers_own_error():
    with pytest.raises(MissingDependencyError) as err:
        spacy2.Spacy2Pipeline("no_such_model_package", python=Path(sys.executable))
    assert "No module named 'no_such_model_package'" in str(err.value) and "make parser-spacy2" in err.value.fix


def test_a_worker_killed_mid_run_is_tk205_and_the_next_call_starts_another(direct):
    pipeline = spacy2.Spacy2Pipeline(DEFAULT_PIPELINE, python=Path(sys.executable))
    try:
        docs = pipeline.pipe(TEXTS * 4, batch_size=1)
        next(docs)
        pipeline._process.kill()
        with pytest.raises(spacy2.Spacy2Error) as err:
            list(docs)
        assert err.value.code == "TK205"
        assert pipeline._process is None  # stopped, not left half-read
        assert _fields(pipeline(TEXTS[0])) == _fields(direct(TEXTS[0]))
    finally:
        pipeline.close()


def test_load_pipeline_routes_the_spacy2_prefix_and_records_it(monkeypatch):
    from toolkit.nlp import pipeline as nlp_pipeline

    monkeypatch.setenv(spacy2.ENV_PYTHON, sys.executable)
    name = f"spacy2:{DEFAULT_PIPELINE}"
    loaded = nlp_pipeline.load_pipeline(name)
    try:
        assert isinstance(loaded, spacy2.Spacy2Pipeline) and loaded.python == Path(sys.executable)
        record = nlp_pipeline.record(name)
        assert record["name"] == name and record["model"].startswith("en_core_web_sm")
        assert record["spacy"].startswith("3.")
    finally:
        loaded.close()
        nlp_pipeline.load_pipeline.cache_clear()
    with pytest.raises(MissingDependencyError):
        spacy2.load("spacy2:")


_CTRL_C = """import os, signal, sys, threading
from pathlib import Path
from toolkit.nlp import spacy2
pipeline = spacy2.Spacy2Pipeline(sys.argv[1], python=Path(sys.executable))
worker = pipeline._process.pid
print(worker, flush=True)
# Ctrl-C in a terminal (the whole group, the worker too) while the driver waits on the worker's reply
threading.Timer(1.0, lambda: os.killpg(os.getpgrp(), signal.SIGINT)).start()
try:
    list(pipeline.pipe(["A sentence about Tom, who liked it a lot."] * 100000, batch_size=500))
except KeyboardInterrupt:
    # the interrupt path itself stopped and reaped the worker, before this process ends
    print("closed" if pipeline._process is None and not os.path.exists(f"/proc/{worker}") else "alive", flush=True)
    sys.exit(130)
"""


def test_ctrl_c_ends_the_driver_with_130_and_stops_the_worker(tmp_path):
    """A Ctrl-C that lands in the pipe stops the worker there (a Ctrl-C in the caller's own loop leaves the cached
    worker to the next call, its reply in flight dropped; it exits when its driver does)."""
    script = tmp_path / "driver.py"
    script.write_text(_CTRL_C)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, str(script), DEFAULT_PIPELINE], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    assert out.split()[1:] == ["closed"], out


# --- the real spaCy 2 (make parser-spacy2) against the reference fixtures --------------------------------------

def _real():
    if not spacy2.interpreter().exists() and spacy2.ENV_PYTHON not in os.environ:
        pytest.skip("no spaCy 2 environment (make parser-spacy2)")
    if not FIXTURES.exists():
        pytest.skip("no ../shared/data/neuralcoref (the reference fixtures)")
    return json.loads(FIXTURES.read_text())


@pytest.fixture(scope="module")
def real():
    fixtures = _real()
    pipeline = spacy2.load(spacy2.SPACY2_PIPELINE)
    yield pipeline, fixtures
    pipeline.close()


def _reference(vocab, fixture: dict):
    from spacy.tokens import Doc, Span

    doc = Doc(vocab, words=fixture["words"], spaces=fixture["spaces"], tags=fixture["tags"], pos=fixture["pos"],
              deps=fixture["deps"], heads=fixture["heads"], sent_starts=fixture["sent_starts"])
    doc.ents = [Span(doc, s, e, label=label) for s, e, label in fixture["ents"]]
    return doc


@pytest.mark.shared_data
def test_spacy2_reproduces_the_reference_parse_of_every_fixture(real):
    """The worker's own output against the fixtures' fields, before any Doc is rebuilt; then the rebuilt Docs, which
    spaCy 3 builds alike from both (it makes a whitespace token without a dependency its own head)."""
    pipeline, fixtures = real
    assert (pipeline.meta["spacy"], pipeline.meta["version"]) == ("2.3.9", "2.2.5")
    raw = pipeline.raw([f["text"] for f in fixtures], batch_size=64)
    fields = ("words", "spaces", "tags", "pos", "deps", "heads", "sent_starts", "ents")
    differ = [(f["id"], name) for f, got in zip(fixtures, raw) for name in fields if got[name] != f[name]]
    assert differ == []
    docs = list(pipeline.pipe([f["text"] for f in fixtures], batch_size=64))
    assert [d.text for d in docs] == [f["text"] for f in fixtures]
    assert [f["id"] for f, doc in zip(fixtures, docs) if doc.to_json() != _reference(pipeline.vocab, f).to_json()] == []


@pytest.mark.shared_data
def test_neuralcoref_on_the_spacy2_parse_gives_the_originals_clusters(real):
    from toolkit.nlp import neuralcoref as nc

    if not any(all((d / f).is_file() for f in nc.FILES) for d in nc.model_dirs()):
        pytest.skip(f"neuralcoref model not fetched ({nc.FETCH})")
    pipeline, fixtures = real
    resolver = nc.NeuralCoref()
    docs = list(pipeline.pipe([f["text"] for f in fixtures], batch_size=64))
    same = sum([{"main": list(c["main"]), "mentions": [list(m) for m in c["mentions"]]}
                for c in resolver.clusters(doc)] == f["clusters"] for f, doc in zip(fixtures, docs))
    assert same >= 148, f"{same}/{len(fixtures)}"


def test_tokenize_gives_the_tokenizers_words_and_nests_with_pipe(here, direct):
    docs = here.pipe(TEXTS, batch_size=1)
    first = next(docs)
    assert here.tokenize(["a 14-year old", "Mr. Smith's film"]) == [
        [t.text for t in direct.tokenizer("a 14-year old")], [t.text for t in direct.tokenizer("Mr. Smith's film")]]
    assert [first.text] + [d.text for d in docs] == TEXTS


@pytest.mark.shared_data
def test_preprocessing_with_spacy2s_tokenizer_gives_the_fixtures_texts(real):
    """The fixtures hold each review after BiasFinder's preprocessText: with spaCy 2's tokenizer every review found
    in IMDB train comes out as the fixture's text (spaCy 3's tokenizer closes up some hyphens spaCy 2 kept)."""
    import re

    import pandas as pd

    from toolkit.studies.biasfinder.generator.paper import preprocess_all

    imdb = SHARED_DATA / "imdb" / "imdb_train.csv.gz"
    if not imdb.exists():
        pytest.skip("no ../shared/data/imdb")
    _, fixtures = real
    raw = pd.read_csv(imdb)["review"].astype(str).tolist()
    pairs = []
    for fixture in fixtures:  # the raw review: the one holding the fixture's first six long words in order
        words = re.findall(r"[A-Za-z]{4,}", fixture["text"])[:6]
        pattern = re.compile(".*?".join(map(re.escape, words)), re.S)
        found = [r for r in raw if all(w in r for w in words) and pattern.search(r)]
        if len(found) == 1:
            pairs.append((fixture["text"], found[0]))
    spacy2_texts = preprocess_all(pd.Series([r for _, r in pairs]), parser=spacy2.SPACY2_PIPELINE).tolist()
    spacy3_texts = preprocess_all(pd.Series([r for _, r in pairs]), parser=DEFAULT_PIPELINE).tolist()
    matched = [(want, two, three) for (want, _), two, three in zip(pairs, spacy2_texts, spacy3_texts)
               if want in (two, three)]  # the raw review found is the fixture's
    assert len(matched) >= 100
    assert [two for want, two, _ in matched] == [want for want, _, _ in matched]
    assert sum(three != want for want, _, three in matched) >= 3  # what the spaCy 2 tokenizer changes


def test_n_process_does_not_fork_a_parser_in_its_own_process_and_says_so(here, direct):
    from toolkit import executors

    with pytest.warns(UserWarning, match="n_process=2 does not apply"):
        docs = list(executors.parse(here, TEXTS, batch_size=2, n_process=2))
    assert [_fields(d) for d in docs] == [_fields(direct(t)) for t in TEXTS]


def test_a_call_whose_worker_was_stopped_by_another_gets_tk205_never_another_calls_docs(direct):
    pipeline = spacy2.Spacy2Pipeline(DEFAULT_PIPELINE, python=Path(sys.executable))
    try:
        outer = pipeline.pipe(TEXTS * 3, batch_size=1)  # batch 2 in flight when batch 1 is read
        assert next(outer).text == TEXTS[0]
        inner = pipeline.pipe(["the man"] * 3, batch_size=1)
        next(inner)
        pipeline._process.kill()  # the worker dies under the inner call
        with pytest.raises(spacy2.Spacy2Error):
            list(inner)
        assert [d.text for d in pipeline.pipe(TEXTS[:2], batch_size=1)] == TEXTS[:2]  # a new worker
        with pytest.raises(spacy2.Spacy2Error, match="stopped while this call waited"):
            list(outer)  # its tickets belonged to the old worker: an error, not the new worker's replies
        assert _fields(pipeline(TEXTS[1])) == _fields(direct(TEXTS[1]))
    finally:
        pipeline.close()


def test_a_worker_that_died_on_its_own_is_tk205_with_its_last_words_then_a_new_one(direct):
    pipeline = spacy2.Spacy2Pipeline(DEFAULT_PIPELINE, python=Path(sys.executable))
    try:
        pipeline._process.kill()
        pipeline._process.wait()  # dead before the next request: not restarted silently
        with pytest.raises(spacy2.Spacy2Error, match="worker stopped"):
            list(pipeline.pipe(TEXTS))
        assert [_fields(d) for d in pipeline.pipe(TEXTS)] == [_fields(direct(t)) for t in TEXTS]
    finally:
        pipeline.close()


def test_a_batch_size_below_one_is_tk102(here):
    from toolkit.errors import InputError

    for bad in (0, -1, 2.5, True):
        with pytest.raises(InputError, match="batch_size"):
            list(here.pipe(TEXTS, batch_size=bad))
        with pytest.raises(InputError, match="batch_size"):
            here.tokenize(TEXTS, batch_size=bad)


_KILLED = """import os, signal, sys, time
from pathlib import Path
from toolkit.nlp import spacy2
pipeline = spacy2.Spacy2Pipeline(sys.argv[1], python=Path(sys.executable))
print(pipeline._process.pid, flush=True)
pipeline._request(["A sentence about Tom, who liked it a lot."] * 20000)  # minutes of parsing queued
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_driver_killed_outright_takes_the_worker_with_it(tmp_path):
    """SIGKILL leaves the driver no say: the worker ends on its closed input, not after its queued batches."""
    script = tmp_path / "killed.py"
    script.write_text(_KILLED)
    proc = subprocess.run([sys.executable, str(script), DEFAULT_PIPELINE], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    stat = Path(f"/proc/{int(proc.stdout.split()[0])}/stat")

    def gone() -> bool:  # exited (a zombie until its new parent reaps it counts as gone)
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
        except OSError:
            return True

    deadline = time.monotonic() + 15  # the queued parse takes far longer; waits for the event, not a fixed nap
    while not gone() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert gone()
