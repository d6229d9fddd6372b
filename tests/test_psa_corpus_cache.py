"""PSA's corpus is read, split into sentences and parsed once per process: a second Run of the app on the same
file with the same settings reads and parses nothing (counted, not timed); an edited file is read anew; the stages
are named while it works."""
from __future__ import annotations

import shutil
import sys
import uuid

import pytest

from toolkit import corpora, monitor
from toolkit.studies import psa

PSA_GEN = sys.modules["toolkit.studies.psa.generator"]  # the module (the package's ``generate`` is its function)


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "reviews.csv"
    shutil.copy(corpora.sample_path(), path)
    return path


def _counts():
    return dict(corpora.LOAD_COUNTS), dict(PSA_GEN.COUNTS)


def _delta(before, after):
    return ({k: after[0][k] - before[0][k] for k in after[0]}, {k: after[1][k] - before[1][k] for k in after[1]})


def test_psa_corpus_cache_a_second_app_run_reads_and_parses_nothing(corpus, tmp_path):
    from toolkit.studies.psa.app import psa_app

    app = psa_app(corpus=str(corpus), models=["afinn"], n=10, cache=tmp_path / "cache")
    before = _counts()
    assert app.run(), app.status.value
    first = _delta(before, _counts())
    assert first == ({"read": 1, "reused": 0}, {"split": 1, "split_reused": 0, "parsed": 1, "parsed_reused": 0})
    cases = app.result.scored[["case_id", "text"]].drop_duplicates()
    before = _counts()
    assert app.run(), app.status.value
    assert _delta(before, _counts()) == ({"read": 0, "reused": 1},
                                         {"split": 0, "split_reused": 0, "parsed": 0, "parsed_reused": 1})
    assert app.result.scored[["case_id", "text"]].drop_duplicates().equals(cases)  # the same cases


def test_psa_corpus_cache_other_settings_reuse_the_sentences_and_an_edited_file_is_read_again(corpus):
    frame = corpora.load(corpus)
    psa.generate(frame, n=10, seed=0)
    before = _counts()
    psa.generate(corpora.load(corpus), n=12, seed=0)  # another sample: parsed, the sentences not split again
    assert _delta(before, _counts()) == ({"read": 0, "reused": 1},
                                         {"split": 0, "split_reused": 1, "parsed": 1, "parsed_reused": 0})
    with corpus.open("a", encoding="utf-8") as handle:
        handle.write('"She said the film was fine.",positive\n')
    before = _counts()
    reread = corpora.load(corpus)
    assert _delta(before, _counts())[0] == {"read": 1, "reused": 0} and len(reread) == len(frame) + 1


def test_psa_corpus_cache_a_reused_corpus_is_a_copy_with_its_report(corpus):
    first_report, second_report = {}, {}
    first = corpora.load(corpus, report=first_report)
    first.loc[first.index[0], "text"] = "changed by the caller"
    first_report["rows"] = -1
    second = corpora.load(corpus, report=second_report)
    assert second["text"].iloc[0] != "changed by the caller" and second_report["rows"] == len(second)


def test_psa_corpus_cache_names_each_stage_while_it_reads_and_parses(corpus):
    with corpus.open("a", encoding="utf-8") as handle:  # texts no other test has split
        handle.write(f'"He wrote {uuid.uuid4().hex} on the poster.",positive\n')
    stages: list[str] = []
    with monitor.watching(on_stage=stages.append):
        psa.run(corpus=str(corpus), models=["afinn"], n=8, seed=3, cache=False)
    assert any(s.startswith("reading the corpus reviews.csv") for s in stages), stages
    assert any(s.startswith("PSA: finding sentences") for s in stages), stages
    assert any(s.startswith("PSA: parsing the sampled sentences") for s in stages), stages
