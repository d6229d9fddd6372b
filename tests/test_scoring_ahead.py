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

from toolkit.scoring import score

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
    ahead = score(sample_and_eec, models=spec, cache=False, batch_tokens=2048)
    serial = score(sample_and_eec, models=spec, cache=False, batch_tokens=2048, tokenise_ahead=False)
    _assert_bit_identical(ahead, serial)
    assert ahead.attrs["inputs"][spec]["telemetry"]["tokenise_ahead"] is True
    assert serial.attrs["inputs"][spec]["telemetry"]["tokenise_ahead"] is False
    assert _no_worker_threads()


def test_scoring_ahead_gives_the_previous_answers_bit_for_bit_with_truncation_and_shared_inputs(tiny_bert_dir):
    """max_length=8 cuts most texts, and texts that differ only past the cut share one model input."""
    words = ["the", "a", "good", "bad", "movie", "great", "awful", "film", "i", "it", "was", "not", "very", "is", "and", "she", "he", "her", "him", "my", "sister"]
    texts = [" ".join(words[(i // len(words) ** k) % len(words)] for k in range(2 + i % 9)) for i in range(600)]
    texts += [t + " brother angry" for t in texts[:100]]  # the same first tokens: one model input when cut
    cases = precision_support.cases(texts)
    spec = f"hf:{tiny_bert_dir}?max_length=8"
    ahead = score(cases, models=spec, cache=False, batch_tokens=64)
    serial = score(cases, models=spec, cache=False, batch_tokens=64, tokenise_ahead=False)
    _assert_bit_identical(ahead, serial)
    counts = ahead.attrs["inputs"][spec]
    assert 0 < counts["truncated_rows"] < len(texts) and counts["model_inputs"] < counts["texts"]
    assert ahead.attrs["inputs"][spec]["telemetry"]["batches"] > 10
    assert _no_worker_threads()


def test_scoring_ahead_with_a_cache_resumes_as_before(tiny_bert_dir, tmp_path):
    """A run that finds part of its texts in the cache scores the rest as the previous path does."""
    words = ["the", "a", "good", "bad", "movie", "great", "awful", "film", "i", "it", "was", "not", "very"]
    texts = [" ".join(words[(i // len(words) ** k) % len(words)] for k in range(1 + i % 4)) for i in range(300)]
    spec = f"hf:{tiny_bert_dir}"
    runs = {}
    for ahead in (True, False):
        cache = tmp_path / str(ahead)
        first = score(precision_support.cases(texts[:100]), models=spec, cache=cache, batch_tokens=64,
                      tokenise_ahead=ahead)
        runs[ahead] = score(precision_support.cases(texts), models=spec, cache=cache, batch_tokens=64,
                            tokenise_ahead=ahead)
        assert runs[ahead].attrs["inputs"][spec]["cached_texts"] == first.attrs["inputs"][spec]["texts"] > 0
    _assert_bit_identical(runs[True], runs[False])
