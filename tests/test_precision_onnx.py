"""The ONNX Runtime static int8 helpers (the ``int8`` extra; docs/precision.md): offline export, static quantisation
of the weight matrix products only, and the session called like the encoder."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

pytest.importorskip("onnx", reason="the int8 extra (onnx, onnxruntime) is not installed")
pytest.importorskip("onnxruntime", reason="the int8 extra (onnx, onnxruntime) is not installed")

from toolkit.models import quantize
from toolkit.models.hf import HFClassifierModel

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = pd.read_csv(ROOT / "data" / "sample_reviews.csv")["text"].tolist()


@pytest.fixture(scope="module")
def exported(tiny_bert_dir, tmp_path_factory):
    model = HFClassifierModel(f"hf:{tiny_bert_dir}?device=cpu")
    path = quantize.export_onnx(model.model.bert, tmp_path_factory.mktemp("onnx") / "encoder.onnx")
    return model, path


def _inputs(model, texts):
    return model.tokenizer(texts, padding=True, truncation=True, max_length=64, return_tensors="pt")


def test_onnx_export_runs_like_the_torch_encoder(exported):
    model, path = exported
    encoded = _inputs(model, SAMPLE[:5])  # another batch and length than the export's dummy (2 x 8)
    with torch.inference_mode():
        want = model.model.bert(**encoded).last_hidden_state
    got = quantize.OrtEncoder(path, threads=1)(**encoded).last_hidden_state
    assert not model.model.training  # the export leaves the model in eval mode (dropout off)
    assert got.shape == want.shape and got.dtype == torch.float32
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_onnx_static_int8_quantises_the_weight_products_only(exported, tmp_path):
    import onnx

    model, path = exported
    nodes = quantize.weight_matmuls(path)
    graph = onnx.load(str(path)).graph
    all_matmuls = [n.name for n in graph.node if n.op_type == "MatMul"]
    layers = model.model.config.num_hidden_layers
    assert len(nodes) == 6 * layers  # q, k, v, attention output, feed-forward in and out per layer
    assert len(all_matmuls) > len(nodes)  # attention's activation products are not among them
    calibration = [{k: v.numpy().astype(np.int64) for k, v in _inputs(model, SAMPLE[i:i + 8]).items()}
                   for i in range(0, 32, 8)]
    keep = [n for n in nodes if "/intermediate/dense/" in n]
    target = quantize.quantize_onnx_static(path, tmp_path / "int8.onnx", calibration=calibration,
                                           nodes=[n for n in nodes if n not in keep])
    quantized = onnx.load(str(target)).graph
    dequantized = {n.output[0] for n in quantized.node if n.op_type == "DequantizeLinear"}
    inputs_of = {n.name: list(n.input) for n in quantized.node if n.op_type == "MatMul"}
    for name in nodes:  # a quantised product reads a dequantised weight; a kept one its fp32 initializer
        assert (inputs_of[name][1] in dequantized) == (name not in keep), name
    encoded = _inputs(model, SAMPLE[:6])
    with torch.inference_mode():
        want = model.model.bert(**encoded).last_hidden_state
    got = quantize.OrtEncoder(target, threads=1)(**encoded).last_hidden_state
    diff = (got - want).abs()
    assert 0 < float(diff.max()) < 0.5 * float(want.abs().max())  # int8 ran (it moved) and stayed near
