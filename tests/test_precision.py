"""Reduced precision (``dtype=bfloat16|float16|int8``): detection of the CPU instruction set, its coded error, the
cache kept apart from fp32, and the documented tolerance against fp32 (docs/precision.md)."""

import numpy as np
import pytest
import torch
from precision_support import BF16_CPU, SAMPLE, needs_bf16, needs_int8
from precision_support import cases as _cases
from precision_support import cpuinfo_has as _cpuinfo_has

from toolkit import provenance
from toolkit.cache import ScoreCache
from toolkit.errors import ModelSpecError, UnsupportedHardwareError
from toolkit.models import hf, load, quantize, split_specs
from toolkit.models.base import Predictions
from toolkit.models.hf import HFClassifierModel
from toolkit.scoring import score

pytestmark = pytest.mark.filterwarnings("ignore:.*dtype=int8 changes answers:UserWarning")
BF16_MAX_ABS = 0.03
"""The documented bf16 tolerance (docs/precision.md): the largest |bf16 − fp32| score difference on the sample."""
INT8_MEAN_ABS, INT8_LABELS = 0.15, 0.85
"""int8 moves scores much more (docs/precision.md: up to 0.46 on mutants); the bounds this test holds it to on the
sample: mean |Δ| and the share of labels that agree with fp32."""


@pytest.fixture(scope="module")
def fp32():
    return load("minilm-imdb")


@pytest.mark.skipif(_cpuinfo_has("avx512_bf16") is None, reason="no /proc/cpuinfo on this system")
def test_precision_detection_reads_the_cpus_own_flags():
    # the answer follows the flags the kernel reports, read here independently of the toolkit
    assert (hf.cpu_half_precision_support("bfloat16") == "") == bool(BF16_CPU)
    assert (hf.cpu_half_precision_support("float16") == "") == bool(_cpuinfo_has("avx512_fp16")
                                                                      or _cpuinfo_has("amx_fp16"))


@pytest.mark.parametrize("dtype, missing", [("bfloat16", "avx512_bf16"), ("float16", "avx512_fp16")])
def test_precision_cpu_without_the_instruction_set_gets_tk205(monkeypatch, tiny_bert_dir, dtype, missing):
    monkeypatch.setattr(hf, "cpu_flags", lambda: frozenset({"sse4_2", "avx2", "avx512f", "avx512_vnni"}))
    for spec in (f"minilm-imdb?dtype={dtype}&device=cpu", f"hf:{tiny_bert_dir}?dtype={dtype}&device=cpu"):
        with pytest.raises(UnsupportedHardwareError) as info:
            load(spec)
        assert info.value.code == "TK205" and missing in str(info.value)
        assert "float32" in info.value.fix and "int8" in info.value.fix


def test_precision_flags_unreadable_falls_back_to_onednn(monkeypatch):
    monkeypatch.setattr(hf, "cpu_flags", lambda: frozenset())
    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: False, raising=False)
    assert "oneDNN" in hf.cpu_half_precision_support("bfloat16")
    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: True, raising=False)
    assert hf.cpu_half_precision_support("bfloat16") == ""


def test_precision_named_model_options_are_checked(tiny_bert_dir):
    with pytest.raises(ModelSpecError, match="vader takes no options"):
        load("vader?dtype=bfloat16")
    with pytest.raises(ModelSpecError, match="takes dtype, device"):
        load("minilm-imdb?precision=bf16")
    with pytest.raises(Exception, match="unknown dtype 'fp8'"):
        load("minilm-imdb?dtype=fp8")
    assert split_specs("minilm-imdb?dtype=bfloat16, vader") == ["minilm-imdb?dtype=bfloat16", "vader"]


@needs_bf16
def test_precision_bf16_minilm_keeps_its_spec_fingerprint_and_tolerance(fp32):
    bf16 = load("minilm-imdb?dtype=bfloat16")
    assert bf16.spec == "minilm-imdb?dtype=bfloat16" and bf16.dtype_name == "bfloat16"
    assert bf16.fingerprint not in (fp32.fingerprint, load("minilm-imdb?dtype=int8").fingerprint)
    assert load("minilm-imdb?dtype=float32").fingerprint == fp32.fingerprint  # the same model, the same cache
    a, b = fp32.predict(SAMPLE), bf16.predict(SAMPLE)
    diff = np.abs(a.score - b.score)
    assert 0 < diff.max() <= BF16_MAX_ABS  # bf16 really ran (scores moved), within the documented tolerance
    near = np.abs(a.score - 0.5) <= BF16_MAX_ABS
    assert all(x == y for x, y, n in zip(a.label, b.label, near) if not n)


@needs_int8
def test_precision_int8_minilm_is_quantised_and_close(fp32):
    q = load("minilm-imdb?dtype=int8")
    kinds = {type(m).__module__ for m in q.model.modules()}
    assert any("quantized" in k for k in kinds)  # the linear layers were really replaced
    first = q.fingerprint
    assert first != fp32.fingerprint
    from toolkit.models.minilm import MiniLMSentimentModel

    with pytest.warns(UserWarning, match="dtype=int8 changes answers"):
        again = MiniLMSentimentModel(dtype="int8")
    assert again.fingerprint == first  # deterministic: a re-run hits its cache
    a, b = fp32.predict(SAMPLE), q.predict(SAMPLE)
    diff = np.abs(a.score - b.score)
    assert 0 < diff.mean() <= INT8_MEAN_ABS
    assert np.mean(np.array(a.label) == np.array(b.label)) >= INT8_LABELS


@needs_bf16
def test_precision_hf_bf16_on_cpu_casts_the_weights(tiny_bert_dir):
    plain = HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu")
    half = HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu&dtype=bfloat16")
    assert half.fingerprint != plain.fingerprint
    assert next(half.model.parameters()).dtype == torch.bfloat16
    texts = SAMPLE[:8]
    a, b = plain.predict(texts).score, half.predict(texts).score
    assert 0 < np.abs(a - b).max() <= BF16_MAX_ABS


@needs_int8
def test_precision_hf_int8_keeps_the_classifier_head_in_fp32(tiny_bert_dir):
    q = HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu&dtype=int8")
    assert type(q.model.classifier) is torch.nn.Linear
    assert type(q.model.bert.encoder.layer[0].attention.self.query) is not torch.nn.Linear
    assert q.fingerprint != HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu").fingerprint


def test_precision_int8_on_a_gpu_is_refused(tiny_bert_dir, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(Exception, match="int8 runs on a CPU only"):
        HFClassifierModel(f"hf:{tiny_bert_dir}?device=cuda&dtype=int8")


def _sentinel(cache: ScoreCache, fingerprint: str, texts: list[str], value: float) -> None:
    n = len(texts)
    cache.put(fingerprint, texts, Predictions(np.full(n, value), ["positive"] * n, np.zeros(n, dtype=bool),
                                              ["positive"] * n, np.full(n, value), [""] * n))


@pytest.mark.parametrize("dtype", [pytest.param("bfloat16", marks=needs_bf16), pytest.param("int8", marks=needs_int8)])
def test_precision_scores_never_cross_between_fp32_and_reduced_cache_entries(tmp_path, fp32, dtype):
    reduced = load(f"minilm-imdb?dtype={dtype}")
    texts = SAMPLE[:6]
    cache = ScoreCache(tmp_path / "scores.sqlite")
    # an fp32 entry with a value no model would give: a reduced run must neither read it nor overwrite it
    _sentinel(cache, fp32.fingerprint, texts[:3], 0.123456)
    out = score(_cases(texts), models=reduced, cache=cache, progress=False)
    assert not np.isclose(out["score"], 0.123456).any()
    assert out.attrs["inputs"][reduced.spec]["cached_texts"] == 0
    assert [r[0] for r in cache.get(fp32.fingerprint, texts).values()] == [0.123456] * 3
    assert len(cache.get(fp32.fingerprint, texts)) == 3  # nothing written under fp32's fingerprint
    np.testing.assert_allclose([cache.get(reduced.fingerprint, [t])[t][0] for t in texts], out["score"])
    # and the reverse: a reduced entry is never served to fp32
    _sentinel(cache, reduced.fingerprint, texts[3:], 0.654321)
    back = score(_cases(texts), models=fp32, cache=cache, progress=False)
    assert not np.isclose(back["score"], 0.654321).any()
    assert back.loc[:2, "score"].tolist() == [0.123456] * 3  # fp32 reads its own entries, as before
    record = provenance.record(models=[reduced.spec], settings={}, fingerprints=out.attrs["fingerprints"])
    assert record["models"] == [{"spec": f"minilm-imdb?dtype={dtype}", "fingerprint": reduced.fingerprint}]


@needs_bf16
def test_precision_bf16_keeps_the_head_and_final_layer_norm_in_fp32(tiny_bert_dir):
    half = HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu&dtype=bfloat16")
    bert = half.model.bert
    assert half.model.classifier.weight.dtype == torch.float32
    assert bert.pooler.dense.weight.dtype == torch.float32
    assert bert.encoder.layer[-1].output.LayerNorm.weight.dtype == torch.float32
    # everything before the tail runs in bf16
    assert bert.encoder.layer[-1].output.dense.weight.dtype == torch.bfloat16
    assert bert.encoder.layer[0].attention.output.LayerNorm.weight.dtype == torch.bfloat16
    assert bert.embeddings.word_embeddings.weight.dtype == torch.bfloat16
    assert half.precision_key.startswith("bfloat16/")


@needs_bf16
def test_precision_bf16_fused_linear_equals_f_linear(tiny_bert_dir):
    half = HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu&dtype=bfloat16")
    assert half.fused_linear > 0
    layer = half.model.bert.encoder.layer[0].attention.self.query
    assert "forward" in vars(layer)  # routed through oneDNN
    assert "forward" not in vars(half.model.bert.encoder.layer[0].intermediate)  # the GELU is not fused by default
    x = torch.randn(2, 7, layer.in_features, generator=torch.Generator().manual_seed(3)).to(torch.bfloat16)
    with torch.inference_mode():
        want = torch.nn.functional.linear(x, layer.weight, layer.bias)
        torch.testing.assert_close(layer(x), want, rtol=0, atol=0)  # the same numbers as F.linear


@needs_bf16
def test_precision_fused_gelu_is_within_one_bf16_rounding(tiny_bert_dir):
    plain = HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu")
    plain.model.to(dtype=torch.bfloat16)
    assert quantize.fuse_cpu_linear(plain.model, gelu=True) > 0
    block = plain.model.bert.encoder.layer[0].intermediate
    assert "forward" in vars(block)
    h = torch.randn(2, 7, block.dense.in_features, generator=torch.Generator().manual_seed(4)).to(torch.bfloat16)
    with torch.inference_mode():
        exact = torch.nn.functional.gelu(torch.nn.functional.linear(h.float(), block.dense.weight.float(),
                                                                    block.dense.bias.float()))
        # bf16 keeps 8 significant bits: a relative error of 2**-8 per rounding, a few roundings allowed
        torch.testing.assert_close(block(h).float(), exact, rtol=2 ** -6, atol=2 ** -6)


@needs_bf16
def test_precision_minilm_bf16_pools_in_fp32(fp32):
    bf16 = load("minilm-imdb?dtype=bfloat16")
    assert "encoder.layer.5.output.LayerNorm" in bf16.fp32_modules
    encoded = bf16.tokenizer(SAMPLE[:4], padding=True, truncation=True, max_length=bf16.max_length,
                             return_tensors="pt")
    with torch.inference_mode():
        assert bf16.model(**encoded).last_hidden_state.dtype == torch.float32
        embedded = bf16._embed(encoded)
    assert embedded.dtype == torch.float32
    np.testing.assert_allclose(torch.linalg.norm(embedded, dim=1).numpy(), 1.0, rtol=1e-5)


@needs_bf16
def test_precision_half_recipe_is_part_of_the_fingerprint(tiny_bert_dir, monkeypatch):
    first = HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu&dtype=bfloat16").fingerprint
    monkeypatch.setattr(quantize, "HALF_RECIPE", "another-recipe")
    assert HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu&dtype=bfloat16").fingerprint != first
    plain = HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu")
    monkeypatch.undo()
    assert HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu").fingerprint == plain.fingerprint  # fp32 untouched
