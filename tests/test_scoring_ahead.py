"""Tokenising and padding ahead of the model (``score(..., tokenise_ahead=True)``, the default) gives the engine's
previous answers bit for bit: the same scores, labels, native view, ``input_id`` and ``truncated`` columns as the
path that pads and runs each batch in turn (``tokenise_ahead=False``), on the bundled sample reviews and EEC
sentences with ``minilm-imdb`` and on a tiny local BERT with truncation and shared model inputs."""
from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import precision_support
import pytest

from toolkit.scoring import ScoreRecord, score

ANSWER_COLUMNS = ["score", "label", "truncated", "top_label", "top_score", "class_probs", "input_id"]


def _assert_bit_identical(ahead: pd.DataFrame, serial: pd.DataFrame) -> None:
    for column in ANSWER_COLUMNS:
        a, b = ahead[column].to_numpy(), serial[column].to_numpy()
        if a.dtype.kind == "f":  # the same float64 bits, NaN included
            np.testing.assert_array_equal(a.view(np.int64), b.view(np.int64), err_msg=column)
        else:
            assert (a == b).all(), column
    assert ahead["text"].tolist() == serial["text"].tolist()


def _no_worker_threads() -> bool:
    return not any(t.name.startswith(("toolkit-prefetch", "toolkit-tokenise")) for t in threading.enumerate())


@pytest.fixture(scope="module")
def sample_and_eec(eec_cases):
    """The 60 bundled sample reviews and a seeded sample of 300 EEC sentences, in one case table."""
    eec = eec_cases.sample(n=300, random_state=0)["text"].tolist()
    return precision_support.cases(precision_support.SAMPLE + eec)


@pytest.mark.parametrize("spec", ["minilm-imdb",
                                  pytest.param("minilm-imdb?dtype=bfloat16&recheck=0.1",
                                               marks=precision_support.needs_bf16)])
def test_scoring_ahead_gives_the_previous_answers_bit_for_bit_with_minilm(sample_and_eec, spec):
    ahead = score(sample_and_eec, models=spec, cache=False, batch_tokens=2048, record=(ahead_record := ScoreRecord()))
    serial = score(sample_and_eec, models=spec, cache=False, batch_tokens=2048, tokenise_ahead=False, record=(serial_record := ScoreRecord()))
    _assert_bit_identical(ahead, serial)
    assert ahead_record.inputs[spec]["telemetry"]["tokenise_ahead"] is True
    assert serial_record.inputs[spec]["telemetry"]["tokenise_ahead"] is False
    assert _no_worker_threads()


def test_scoring_ahead_gives_the_previous_answers_bit_for_bit_with_truncation_and_shared_inputs(tiny_bert_dir):
    """max_length=8 cuts most texts, and texts that differ only past the cut share one model input."""
    words = ["the", "a", "good", "bad", "movie", "great", "awful", "film", "i", "it", "was", "not", "very", "is", "and", "she", "he", "her", "him", "my", "sister"]
    texts = [" ".join(words[(i // len(words) ** k) % len(words)] for k in range(2 + i % 9)) for i in range(600)]
    texts += [t + " brother angry" for t in texts[:100]]  # the same first tokens: one model input when cut
    cases = precision_support.cases(texts)
    spec = f"hf:{tiny_bert_dir}?max_length=8"
    ahead = score(cases, models=spec, cache=False, batch_tokens=64, record=(ahead_record := ScoreRecord()))
    serial = score(cases, models=spec, cache=False, batch_tokens=64, tokenise_ahead=False)
    _assert_bit_identical(ahead, serial)
    counts = ahead_record.inputs[spec]
    assert 0 < counts["truncated_rows"] < len(texts) and counts["model_inputs"] < counts["texts"]
    assert ahead_record.inputs[spec]["telemetry"]["batches"] > 10
    assert _no_worker_threads()


def test_scoring_ahead_with_a_cache_resumes_as_before(tiny_bert_dir, tmp_path):
    """A run that finds part of its texts in the cache scores the rest as the previous path does."""
    words = ["the", "a", "good", "bad", "movie", "great", "awful", "film", "i", "it", "was", "not", "very"]
    texts = [" ".join(words[(i // len(words) ** k) % len(words)] for k in range(1 + i % 4)) for i in range(300)]
    spec = f"hf:{tiny_bert_dir}"
    runs = {}
    for ahead in (True, False):
        cache = tmp_path / str(ahead)
        score(precision_support.cases(texts[:100]), models=spec, cache=cache, batch_tokens=64,
                      tokenise_ahead=ahead, record=(first_record := ScoreRecord()))
        again = ScoreRecord()
        runs[ahead] = score(precision_support.cases(texts), models=spec, cache=cache, batch_tokens=64,
                            tokenise_ahead=ahead, record=again)
        assert again.inputs[spec]["cached_texts"] == first_record.inputs[spec]["texts"] > 0
    _assert_bit_identical(runs[True], runs[False])


def test_scoring_ahead_with_the_character_prefix_gives_the_previous_answers_bit_for_bit(tiny_bert_dir, monkeypatch):
    """Long texts tokenised from a character prefix (multibyte letters, combining accents, whitespace runs, one long
    word, texts that differ only past the cut) score as the two-pass path and as the one-pass path without the
    prefix: the same scores, labels, ``input_id`` and ``truncated`` columns."""
    from toolkit import scoring

    base = ["she was great but he was awful and the film", "Zoë's café was naïve — 日本語の映画 😀 ünïcödé",
            "e\u0301t\u0301e\u0301 a\u0300", "word\u00a0word\u00a0word", "a" + " " * 200 + "b c d",
            " \t\n ".join(["tab", "and", "newline"]), "x" * 300, "good movie"]
    texts = [(t + " ") * k + tail for k in (1, 3, 8, 20) for t in base for tail in ("", "end", " the end .")]
    cases = precision_support.cases(texts)
    spec = f"hf:{tiny_bert_dir}?max_length=8"
    serial = score(cases, models=spec, cache=False, batch_tokens=64, tokenise_ahead=False)
    prefixed = score(cases, models=spec, cache=False, batch_tokens=64, record=(record := ScoreRecord()))
    monkeypatch.setattr(scoring, "TOKENISE_PREFIX", False)
    whole = score(cases, models=spec, cache=False, batch_tokens=64)
    _assert_bit_identical(prefixed, serial)
    _assert_bit_identical(prefixed, whole)
    assert 0 < record.inputs[spec]["truncated_rows"] < len(texts)
    from toolkit.models import load

    model = load(spec)
    _, lengths = model.encode(texts)
    _, prefix_lengths = model.encode(texts, threads=2, one_pass=True, prefix=True)
    assert model._rust_tokenize().prefix_agrees
    assert (prefix_lengths < lengths).sum() > len(texts) // 4  # the prefix decided many texts
    assert _no_worker_threads()


def test_scoring_ahead_prefix_is_off_for_left_truncation(tiny_bert_dir):
    """A tokenizer that cuts from the left keeps a text's end: no character prefix, the wrapper's ids."""
    from toolkit.models import load

    model = load(f"hf:{tiny_bert_dir}?max_length=8")  # loaded models are shared: the side is put back after
    model.tokenizer.truncation_side = "left"
    try:
        texts = ["she was great but he was awful " * 20, "good movie"] * 40
        ids, _ = model.encode(texts, threads=2, one_pass=True, prefix=True)
        assert model._rust_tokenize().prefix_chars is None
        assert [x.tolist() for x in ids] == model.tokenizer(texts, truncation=True, max_length=8)["input_ids"]
    finally:
        model.tokenizer.truncation_side = "right"


def test_scoring_tokenise_threads_follow_the_cores(monkeypatch):
    """One tokenising thread per usable core (whatever TOKENIZERS_PARALLELISM says), unless set."""
    import os

    from toolkit import scoring

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    assert scoring.tokenise_threads() == 16
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(200)), raising=False)
    assert scoring.tokenise_threads() == 32
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert scoring.tokenise_threads() == 2
    monkeypatch.setattr(scoring, "TOKENISE_THREADS", 3)
    assert scoring.tokenise_threads() == 3
