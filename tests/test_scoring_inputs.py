"""Input-level dedup (texts the model reads identically are scored once) and CPU-bound models over every core."""
import numpy as np
import pandas as pd
import pytest

from toolkit.cache import ScoreCache
from toolkit.models import load
from toolkit.scoring import score

RESULT = ["score", "label", "truncated", "top_label", "top_score", "class_probs"]
# the tiny BERT's vocabulary; at max_length=8 a text keeps 6 words ([CLS] + 6 + [SEP])
HEAD = "the good movie was not very"
TAILS = ["good", "bad", "great and awful", "awful film", "she feels happy", "he feels angry", "my sister"]


def _cases(texts):
    return pd.DataFrame({"case_id": [f"c{i // 3}" for i in range(len(texts))],
                         "variant_id": [f"v{i}" for i in range(len(texts))], "text": texts, "attribute": "gender",
                         "group": [("a", "b", "c")[i % 3] for i in range(len(texts))], "fill": "",
                         "generator": "test", "template": "", "is_original": False})


def _texts():
    """Texts that differ only past the 8-token window (one input), the 6-word head itself (fits exactly: same input,
    not truncated), and short texts that differ inside the window."""
    return ([f"{HEAD} {tail}" for tail in TAILS] + [HEAD] + ["a bad film", "a good film", "she feels happy"]
            + [f"it was {tail}" for tail in TAILS])


@pytest.fixture()
def spec(tiny_bert_dir):
    return f"hf:{tiny_bert_dir}?max_length=8"


def test_input_dedup_is_bit_identical_to_scoring_every_text(spec):
    cases = _cases(_texts())
    every = score(cases, models=spec, cache=False, input_dedup=False, batch_tokens=1)  # one text per batch
    once = score(cases, models=spec, cache=False, batch_tokens=1)
    pd.testing.assert_frame_equal(once[RESULT], every[RESULT])
    head = once["text"].astype(str).str.startswith(HEAD)
    assert once.loc[head, "input_id"].nunique() == 1 and once.loc[~head, "input_id"].nunique() == (~head).sum()
    assert once["truncated"].tolist() == every["truncated"].tolist()
    assert not once.loc[once["text"] == HEAD, "truncated"].item()  # its own flag, though its input is shared
    assert once.loc[head & (once["text"] != HEAD), "truncated"].all()
    counts = once.attrs["inputs"][spec]
    assert counts["texts"] == len(cases) and counts["model_inputs"] == len(cases) - len(TAILS)
    assert counts["computed_inputs"] == counts["model_inputs"]
    assert every.attrs["inputs"][spec]["model_inputs"] == len(cases)


def test_input_dedup_matches_default_batches_too(spec):
    cases = _cases(_texts())
    every = score(cases, models=spec, cache=False, input_dedup=False)
    once = score(cases, models=spec, cache=False)
    np.testing.assert_allclose(once["score"], every["score"], rtol=0, atol=1e-6)
    assert once["truncated"].tolist() == every["truncated"].tolist()


def test_a_cached_text_answers_the_texts_with_its_model_input(spec, tmp_path):
    texts = _texts()
    first = score(_cases(texts[:1]), models=spec, cache=tmp_path, batch_tokens=1)
    second = score(_cases(texts), models=spec, cache=tmp_path, batch_tokens=1)
    counts = second.attrs["inputs"][spec]
    assert counts["cached_texts"] == 1 and counts["from_same_input"] == len(TAILS)  # the 6 others + the bare head
    assert counts["computed_inputs"] == counts["model_inputs"] - 1
    fresh = score(_cases(texts), models=spec, cache=False, input_dedup=False, batch_tokens=1)
    pd.testing.assert_frame_equal(second[RESULT], fresh[RESULT])
    assert second.loc[0, "score"] == first.loc[0, "score"]
    with ScoreCache(tmp_path / "scores.sqlite") as store:  # every text stored with its own truncation flag
        rows = store.get(load(spec).fingerprint, texts)
    assert len(rows) == len(set(texts)) and rows[HEAD][2] is False and rows[texts[0]][2] is True
    third = score(_cases(texts), models=spec, cache=tmp_path)
    assert third.attrs["inputs"][spec]["computed_inputs"] == 0
    pd.testing.assert_frame_equal(third[RESULT], fresh[RESULT])


def test_encoded_ids_are_the_tokenizers_own_inputs(spec):
    model = load(spec)
    texts = _texts()
    ids, lengths = model.encode(texts)
    reference = model.tokenizer(texts, truncation=True, max_length=model.max_length)["input_ids"]
    assert [x.tolist() for x in ids] == reference
    assert lengths.tolist() == model.lengths(texts)
    by_ids = model.predict_ids(ids, lengths > model.max_length)
    by_text = model.predict(texts)
    np.testing.assert_array_equal(by_ids.score, by_text.score)
    np.testing.assert_array_equal(by_ids.truncated, by_text.truncated)


def test_lexicons_dedup_on_raw_strings():
    texts = ["A good film.", "A good film.", "A  good film.", "a good film."]
    scored = score(_cases(texts), models="vader", cache=False)
    counts = {k: v for k, v in scored.attrs["inputs"]["vader"].items() if k != "telemetry"}
    assert counts == {"rows": 4, "texts": 3, "model_inputs": 3, "cached_texts": 0, "from_same_input": 0,
                      "computed_inputs": 3, "too_long_skipped": 0, "max_text_chars": 20_000, "truncated_rows": 0}
    assert scored["input_id"].tolist() == [0, 0, 1, 2]


@pytest.mark.parametrize("spec", ["vader", "textblob", "afinn", "py:synthetic_models:forkable"])
def test_worker_processes_give_identical_results_and_cache(spec, tmp_path):
    texts = [f"Film {i}: the acting was {'great' if i % 3 else 'awful'}, the plot {i % 7} times dull."
             for i in range(300)]
    one = score(_cases(texts), models=spec, cache=tmp_path / "one", n_jobs=1)
    two = score(_cases(texts), models=spec, cache=tmp_path / "two", n_jobs=2)
    pd.testing.assert_frame_equal(one, two)
    fingerprint = load(spec).fingerprint
    with ScoreCache(tmp_path / "one" / "scores.sqlite") as a, ScoreCache(tmp_path / "two" / "scores.sqlite") as b:
        assert a.get(fingerprint, texts) == b.get(fingerprint, texts) and b.count() == len(texts)


def test_n_jobs_is_checked():
    from toolkit.errors import InputError

    with pytest.raises(InputError, match="n_jobs"):
        score(_cases(["a"]), models="vader", cache=False, n_jobs=0)


def test_an_error_in_a_worker_process_reads_as_in_process(tmp_path, monkeypatch):
    import pickle

    from toolkit.errors import ModelOutputError

    error = ModelOutputError("py:x:y raised ValueError: boom", fix="fix the function.")
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is ModelOutputError and str(back) == str(error) and back.fix == error.fix
    module = tmp_path / "failing_scorer.py"
    module.write_text("def score(texts):\n    raise ValueError('boom')\n\n\nscore.fork_safe = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModelOutputError, match=r"^\[TK203\] py:failing_scorer:score raised ValueError: boom"):
        score(_cases([f"text {i}" for i in range(40)]), models="py:failing_scorer:score", cache=False, n_jobs=2)
