import sqlite3

import numpy as np
import pandas as pd
import pytest
import synthetic_models

from toolkit.cache import ScoreCache
from toolkit.cases import CASE_COLUMNS, SCORE_COLUMNS
from toolkit.errors import CacheError, InputError
from toolkit.models import SentimentModel
from toolkit.models.base import Predictions
from toolkit.scoring import plan_batches, score


def _cases(texts):
    return pd.DataFrame({"case_id": [f"c{i // 2}" for i in range(len(texts))],
                         "variant_id": [f"v{i}" for i in range(len(texts))], "text": texts, "attribute": "gender",
                         "group": "x", "fill": "", "generator": "test", "template": "", "is_original": False})


class Flaky(SentimentModel):
    """Scores like synthetic_models.counting, but dies after ``fail_after`` batches."""

    spec = "flaky"
    batch_size = 4
    fingerprint = "flaky-v1"

    def __init__(self, fail_after=None):
        self.fail_after, self.batches = fail_after, 0

    def predict(self, texts):
        if self.fail_after is not None and self.batches >= self.fail_after:
            raise KeyboardInterrupt("simulated kill")
        self.batches += 1
        s = np.array(synthetic_models.counting(texts))
        return Predictions(s, ["positive" if v >= .5 else "negative" for v in s], np.zeros(len(texts), bool))


def test_score_returns_the_long_table(eec_cases):
    cases = eec_cases.head(120)
    scored = score(cases, models=["vader", "afinn"], cache=False)
    assert len(scored) == 240
    assert list(scored.columns[: len(CASE_COLUMNS)]) == list(CASE_COLUMNS)
    assert set(SCORE_COLUMNS) <= set(scored.columns) and "emotion_word" in scored.columns
    assert scored["model"].value_counts().to_dict() == {"vader": 120, "afinn": 120}
    assert scored["score"].between(0, 1).all()


def test_score_deduplicates_texts():
    synthetic_models.CALLS.clear()
    texts = ["a b", "c d", "a b", "a b", "e f", "c d"]
    scored = score(_cases(texts), models="py:synthetic_models:counting", cache=False)
    assert sum(synthetic_models.CALLS) == 3
    assert scored.groupby("text")["score"].nunique().eq(1).all() and len(scored) == 6


def test_rerun_with_cache_scores_nothing_twice(tmp_path):
    texts = [f"text number {i}" for i in range(50)]
    synthetic_models.CALLS.clear()
    first = score(_cases(texts), models="py:synthetic_models:counting", cache=tmp_path)
    assert sum(synthetic_models.CALLS) == 50
    second = score(_cases(texts + ["one new text"]), models="py:synthetic_models:counting", cache=tmp_path)
    assert sum(synthetic_models.CALLS) == 51
    as_text = {"text": str, "template": str}  # categoricals over different text sets
    pd.testing.assert_frame_equal(first.astype(as_text), second.iloc[:50].astype(as_text))


def test_cache_is_keyed_by_model_fingerprint(tmp_path):
    texts = ["x y z"]
    score(_cases(texts), models="py:synthetic_models:counting", cache=tmp_path)
    with ScoreCache(tmp_path / "scores.sqlite") as cache:
        assert cache.count() == 1
    score(_cases(texts), models="vader", cache=tmp_path)
    with ScoreCache(tmp_path / "scores.sqlite") as cache:
        assert cache.count() == 2


def test_killed_run_resumes_and_matches_an_uninterrupted_run(tmp_path):
    texts = [f"sentence {i}" for i in range(30)]
    with pytest.raises(KeyboardInterrupt):
        score(_cases(texts), models=Flaky(fail_after=3), cache=tmp_path)
    with ScoreCache(tmp_path / "scores.sqlite") as cache:
        assert cache.count("flaky-v1") == 12  # three batches of four committed, nothing else
    resumed_model = Flaky()
    resumed = score(_cases(texts), models=resumed_model, cache=tmp_path)
    assert resumed_model.batches == 5  # the remaining 18 texts
    fresh = score(_cases(texts), models=Flaky(), cache=False)
    pd.testing.assert_frame_equal(resumed, fresh)


def test_corrupt_cache_is_reported_not_trusted(tmp_path):
    path = tmp_path / "scores.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(CacheError, match="move .* aside") as info:
        score(_cases(["a"]), models="vader", cache=path)
    assert info.value.code == "TK301"


def test_foreign_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE things (x)")
    with pytest.raises(CacheError, match="not a score cache"):
        ScoreCache(path)


def test_score_rejects_bad_arguments():
    with pytest.raises(InputError, match="batch_tokens"):
        score(_cases(["a"]), models="vader", batch_tokens=0)
    with pytest.raises(InputError, match="no models"):
        score(_cases(["a"]), models=[], cache=False)


@pytest.mark.parametrize("budget", [1, 10, 64, 1000])
def test_token_budget_batches_cover_every_text_once_and_respect_the_budget(budget):
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 60, size=200).tolist()
    batches = list(plan_batches(lengths, n=200, batch_size=8, batch_tokens=budget))
    assert sorted(i for b in batches for i in b) == list(range(200))
    for batch in batches:
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= budget


def test_hf_scores_are_identical_across_budgets(tiny_bert_dir):
    texts = ["the good movie was great", "a bad film", "it was not very good and the movie was awful",
             "she feels happy", "he feels angry and bad", "my sister"] * 3
    cases = _cases([f"{t} {'i ' * (i % 5)}".strip() for i, t in enumerate(texts)])
    small = score(cases, models=f"hf:{tiny_bert_dir}", cache=False, batch_tokens=16)
    large = score(cases, models=f"hf:{tiny_bert_dir}", cache=False, batch_tokens=4096)
    np.testing.assert_allclose(small["score"], large["score"], atol=1e-5)


class Bare(SentimentModel):
    """Leaves ``truncated`` at its default (empty) and can return an out-of-range score."""

    spec = "bare"
    batch_size = 2

    def __init__(self, overshoot=0.0):
        self.overshoot, self.calls = overshoot, 0

    @property
    def fingerprint(self):
        return f"bare-{self.overshoot}"

    def predict(self, texts):
        self.calls += 1
        return Predictions(np.full(len(texts), 1.0 + self.overshoot), ["positive"] * len(texts))


def test_models_without_truncation_flags_are_cached_too(tmp_path):
    score(_cases(["a", "b", "c"]), models=Bare(), cache=tmp_path)
    again = Bare()
    scored = score(_cases(["a", "b", "c"]), models=again, cache=tmp_path)
    assert again.calls == 0 and not scored["truncated"].any()


def test_an_out_of_range_score_is_a_coded_error_not_a_cache_crash(tmp_path):
    from toolkit.errors import ModelOutputError

    with pytest.raises(ModelOutputError, match=r"outside \[0, 1\]") as info:
        score(_cases(["a", "b"]), models=Bare(overshoot=1e-9), cache=tmp_path)
    assert info.value.code == "TK203"


def test_a_damaged_cache_page_is_reported(tmp_path):
    path = tmp_path / "scores.sqlite"
    score(_cases([f"text {i}" for i in range(3000)]), models="vader", cache=path)
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 4096] = b"\xff" * 4096
    path.write_bytes(bytes(data))
    with pytest.raises(CacheError):
        score(_cases(["text 1"]), models="vader", cache=path)


def test_truncated_rows_are_warned_about_with_count_and_share_and_kept_in_attrs(tiny_bert_dir):
    texts = ["good", "the movie was not very good and it was awful", "bad film", "she was happy and he was angry"]
    cases = _cases(texts)
    spec = f"hf:{tiny_bert_dir}?max_length=4"  # [CLS] + 2 words + [SEP]: the two long texts are cut
    with pytest.warns(UserWarning, match=r"2 of 4 rows \(50\.0%\) were truncated at max_length=4") as caught:
        scored = score(cases, models=[spec, "afinn"], cache=False)
    assert [str(w.message) for w in caught if "truncated" in str(w.message)][0].startswith(spec)
    assert scored.attrs["inputs"][spec]["truncated_rows"] == 2
    assert scored.attrs["inputs"]["afinn"]["truncated_rows"] == 0
    assert scored.loc[scored["model"] == spec, "truncated"].tolist() == [False, True, False, True]


def test_no_truncation_warning_when_nothing_is_cut(tiny_bert_dir, recwarn):
    score(_cases(["good", "bad film"]), models=[f"hf:{tiny_bert_dir}"], cache=False)
    assert not [w for w in recwarn if "truncated" in str(w.message)]


def test_a_run_whose_every_text_is_cached_does_not_tokenise_again_and_keeps_its_input_ids(tiny_bert_dir, tmp_path,
                                                                                          monkeypatch):
    import toolkit.scoring as scoring

    calls = []
    real = scoring._group_by_input
    monkeypatch.setattr(scoring, "_group_by_input", lambda *a, **k: calls.append(1) or real(*a, **k))
    # max_length=4 keeps [CLS] + 2 words + [SEP]: the first two texts share one model input, the third is its own
    texts = ["good film and more", "good film but less", "bad"]
    spec = f"hf:{tiny_bert_dir}?max_length=4"
    with pytest.warns(UserWarning, match="truncated"):
        first = score(_cases(texts), models=[spec], cache=tmp_path / "s.sqlite")
    assert len(calls) == 1
    with pytest.warns(UserWarning, match="truncated"):
        warm = score(_cases(texts), models=[spec], cache=tmp_path / "s.sqlite")
    assert len(calls) == 1  # every text cached: the model inputs are remembered, not tokenised again
    assert warm["input_id"].tolist() == first["input_id"].tolist() == [0, 0, 1]
    assert warm["truncated"].tolist() == first["truncated"].tolist() == [True, True, False]
    with pytest.warns(UserWarning, match="truncated"):
        score(_cases(texts + ["bad film and worse"]), models=[spec], cache=tmp_path / "s.sqlite")
    assert len(calls) == 2  # a text not in the cache: tokenised (its input may be shared with a cached one)
