"""The fp32 boundary recheck (``?dtype=bfloat16&recheck=M``, docs/precision.md): texts whose reduced-precision answer
lies within M of the decision boundary are re-scored in fp32; its spec, margin validation, cache and answers."""

import numpy as np
import pytest
import torch
from precision_support import SAMPLE, needs_bf16, needs_int8
from precision_support import cases as _cases

from toolkit import provenance
from toolkit.cache import ScoreCache
from toolkit.errors import ModelSpecError
from toolkit.models import hf, load
from toolkit.models.base import Predictions
from toolkit.models.hf import HFClassifierModel
from toolkit.scoring import score

pytestmark = pytest.mark.filterwarnings("ignore:.*dtype=int8 changes answers:UserWarning")
FP32_SAME_ATOL = 1e-6
"""fp32 scores of one text in two batches of different composition agree to float32 rounding (a few ulp)."""


@pytest.fixture(scope="module")
def fp32():
    return load("minilm-imdb")


@pytest.mark.parametrize("value, margin", [(None, None), ("", 0.03), ("auto", 0.03), ("AUTO", 0.03),
                                           ("0.05", 0.05), (" 0.2 ", 0.2), (0.4999, 0.4999), ("1e-3", 0.001)])
def test_recheck_margin_parses_the_option(value, margin):
    assert hf.recheck_margin(value, dtype_name="bfloat16") == margin


@pytest.mark.parametrize("value", ["0", "0.5", "0.7", "-0.1", "1", "nan", "inf", "abc", "0.03,0.04"])
def test_recheck_margin_outside_the_open_interval_is_tk201(value):
    with pytest.raises(ModelSpecError) as info:
        hf.recheck_margin(value, spec="minilm-imdb?dtype=bfloat16&recheck=" + value)
    assert info.value.code == "TK201" and "between 0 and 0.5" in str(info.value)
    assert "recheck=0.03" in info.value.fix


def test_recheck_of_an_fp32_model_is_tk201(tiny_bert_dir):
    with pytest.raises(ModelSpecError, match="already runs in float32") as info:
        HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu&recheck=0.03")
    assert "dtype=bfloat16" in info.value.fix
    with pytest.raises(ModelSpecError, match="already runs in float32"):
        load("minilm-imdb?recheck")


def test_recheck_bad_margin_in_a_spec_fails_before_the_hardware_check(monkeypatch):
    monkeypatch.setattr(hf, "cpu_flags", lambda: frozenset({"avx2"}))  # no bf16: TK205 would come otherwise
    with pytest.raises(ModelSpecError, match="between 0 and 0.5"):
        load("minilm-imdb?dtype=bfloat16&recheck=0.6&device=cpu")


def test_recheck_is_an_option_of_both_spec_syntaxes(tiny_bert_dir):
    _, options = hf.parse_spec(f"hf:{tiny_bert_dir}?dtype=bfloat16&recheck=0.05")
    assert options == {"dtype": "bfloat16", "recheck": "0.05"}
    with pytest.raises(ModelSpecError, match="takes dtype, device, recheck"):
        load("minilm-imdb?margin=0.03")


@pytest.mark.parametrize("probs, expected", [
    ([[0.3, 0.7], [0.52, 0.48], [0.5, 0.5]], [0.2, 0.02, 0.0]),  # binary: |p - 0.5|
    ([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]], [0.1, 0.35]),  # three classes: half the top-two gap
    ([[1.0]], [np.inf]),
])
def test_recheck_half_gaps_is_the_distance_to_the_argmax_boundary(probs, expected):
    np.testing.assert_allclose(hf.half_gaps(np.array(probs)), expected, atol=1e-12)


@needs_bf16
def test_recheck_minilm_spec_fingerprint_and_provenance(fp32):
    plain = load("minilm-imdb?dtype=bfloat16")
    model = load("minilm-imdb?dtype=bfloat16&recheck=0.03")
    assert model.spec == "minilm-imdb?dtype=bfloat16&recheck=0.03" and model.recheck == 0.03
    prints = {fp32.fingerprint, plain.fingerprint, model.fingerprint,
              load("minilm-imdb?dtype=bfloat16&recheck=0.05").fingerprint}
    assert len(prints) == 4  # the margin is part of it
    assert load("minilm-imdb?dtype=bfloat16&recheck=auto").fingerprint == model.fingerprint  # the same margin
    assert load("minilm-imdb?dtype=bfloat16&recheck").recheck == hf.RECHECK_MARGIN
    # two copies: the bf16 model that scores, the fp32 one that rechecks (separate tensors)
    assert next(model.model.encoder.parameters()).dtype == torch.bfloat16
    assert {p.dtype for p in model.reference_model.parameters()} == {torch.float32}
    assert not {p.data_ptr() for p in model.model.parameters()} & {
        p.data_ptr() for p in model.reference_model.parameters()}
    record = provenance.record(models=[model.spec], settings={}, fingerprints={model.spec: model.fingerprint})
    assert record["models"] == [{"spec": "minilm-imdb?dtype=bfloat16&recheck=0.03",
                                 "fingerprint": model.fingerprint}]


@needs_bf16
def test_recheck_minilm_texts_within_the_margin_get_fp32_scores(fp32):
    margin = 0.2  # wide, so the 60 sample reviews hold texts on both sides of it
    plain = load("minilm-imdb?dtype=bfloat16")
    model = load(f"minilm-imdb?dtype=bfloat16&recheck={margin}")
    model.recheck_counts = {"texts": 0, "rechecked": 0}
    want_fp32, want_bf16 = fp32.predict(SAMPLE), plain.predict(SAMPLE)
    got = model.predict(SAMPLE)
    near = np.abs(want_bf16.score - 0.5) < margin  # from the plain bf16 model, not the code under test
    assert 0 < near.sum() < len(SAMPLE)
    assert model.recheck_counts == {"texts": len(SAMPLE), "rechecked": int(near.sum())}
    np.testing.assert_allclose(got.score[near], want_fp32.score[near], rtol=0, atol=FP32_SAME_ATOL)
    assert [got.label[i] for i in np.flatnonzero(near)] == [want_fp32.label[i] for i in np.flatnonzero(near)]
    assert [got.class_probs[i] for i in np.flatnonzero(near)] == [want_fp32.class_probs[i]
                                                                  for i in np.flatnonzero(near)]
    np.testing.assert_array_equal(got.score[~near], want_bf16.score[~near])  # the rest stays bf16's
    # the recheck's point: every label agrees with fp32 where bf16 moved the score by less than the margin
    moved = np.abs(want_bf16.score - want_fp32.score)
    assert moved.max() < margin and got.label == want_fp32.label


@pytest.mark.parametrize("dtype", [pytest.param("bfloat16", marks=needs_bf16),
                                   pytest.param("int8", marks=needs_int8)])
def test_recheck_hf_three_class_rows_near_the_decision_get_fp32_outputs(tiny_bert_3class_dir, dtype):
    base = f"hf:{tiny_bert_3class_dir}?device=cpu"
    texts = SAMPLE[:24]
    reference = HFClassifierModel(base).predict(texts)  # a separately loaded fp32 model
    model = HFClassifierModel(base + f"&dtype={dtype}&recheck=0.1")
    # the reduced model's own answers, read here straight from its torch module (not through the recheck code)
    encoded = model.tokenizer(texts, padding=True, truncation=True, max_length=model.max_length, return_tensors="pt")
    with torch.inference_mode():
        reduced = torch.softmax(model.model(**encoded).logits.float(), dim=-1).numpy()
    top2 = np.sort(reduced, axis=1)[:, -2:]
    distance = (top2[:, 1] - top2[:, 0]) / 2  # three distinct roles: label and top_label are one argmax
    # the tiny random model's answers all sit near the decision: a margin in the widest gap of the middle half
    ordered = np.sort(distance)
    middle = np.arange(len(ordered) // 4, 3 * len(ordered) // 4)
    cut = middle[np.argmax(ordered[middle + 1] - ordered[middle])]
    model.recheck = float((ordered[cut] + ordered[cut + 1]) / 2)
    near = distance < model.recheck
    assert 0 < near.sum() < len(texts)
    assert type(model.reference_model.classifier) is torch.nn.Linear
    query = model.reference_model.bert.encoder.layer[0].attention.self.query
    assert type(query) is torch.nn.Linear and query.weight.dtype == torch.float32  # the fp32 copy
    assert model.model.bert.encoder.layer[0].attention.self.query is not query
    got = model.predict(texts)
    assert model.recheck_counts["rechecked"] == near.sum()
    idx, rest = np.flatnonzero(near), np.flatnonzero(~near)
    np.testing.assert_allclose(got.score[idx], reference.score[idx], rtol=0, atol=FP32_SAME_ATOL)
    assert [got.top_label[i] for i in idx] == [reference.top_label[i] for i in idx]
    assert [got.label[i] for i in idx] == [reference.label[i] for i in idx]
    want_rest = reduced[rest] @ np.array([0.0, 0.5, 1.0])  # negative, neutral, positive: the valence
    np.testing.assert_allclose(got.score[rest], want_rest, rtol=0, atol=1e-6)
    assert np.abs(got.score[rest] - reference.score[rest]).max() > 0  # those really kept the reduced answer


def _sentinel(cache: ScoreCache, fingerprint: str, texts: list[str], value: float) -> None:
    n = len(texts)
    cache.put(fingerprint, texts, Predictions(np.full(n, value), ["positive"] * n, np.zeros(n, dtype=bool),
                                              ["positive"] * n, np.full(n, value), [""] * n))


@needs_bf16
def test_recheck_never_reads_or_writes_fp32_or_bf16_cache_entries(tmp_path, fp32):
    plain = load("minilm-imdb?dtype=bfloat16")
    model = load("minilm-imdb?dtype=bfloat16&recheck=0.2")
    texts = SAMPLE[:8]
    cache = ScoreCache(tmp_path / "scores.sqlite")
    # values no model gives, under the fp32 and the plain bf16 fingerprints, for every text
    _sentinel(cache, fp32.fingerprint, texts, 0.123456)
    _sentinel(cache, plain.fingerprint, texts, 0.654321)
    out = score(_cases(texts), models=model, cache=cache, progress=False)
    assert not np.isclose(out["score"], 0.123456).any() and not np.isclose(out["score"], 0.654321).any()
    assert out.attrs["inputs"][model.spec]["cached_texts"] == 0
    assert [r[0] for r in cache.get(fp32.fingerprint, texts).values()] == [0.123456] * len(texts)  # untouched
    assert [r[0] for r in cache.get(plain.fingerprint, texts).values()] == [0.654321] * len(texts)
    np.testing.assert_allclose([cache.get(model.fingerprint, [t])[t][0] for t in texts], out["score"])
    # and the reverse: the recheck's entries are served to neither
    for other in (fp32, plain):
        back = score(_cases(texts), models=other, cache=cache, progress=False)
        assert back.attrs["inputs"][other.spec]["cached_texts"] == len(texts)
        assert set(np.round(back["score"], 6)) == {0.123456 if other is fp32 else 0.654321}


@needs_int8
def test_recheck_runs_on_one_thread_and_restores_the_count(tiny_bert_dir, monkeypatch):
    model = HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu&dtype=int8&recheck=0.49")  # every text rechecked
    seen = []
    forward = model.reference_model.forward

    def spy(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return forward(*args, **kwargs)
    monkeypatch.setattr(model.reference_model, "forward", spy)
    before = torch.get_num_threads()
    model.predict(SAMPLE[:4])
    assert seen == [min(hf.RECHECK_THREADS, before)]  # one sub-batch, on the recheck's thread count
    assert torch.get_num_threads() == before
