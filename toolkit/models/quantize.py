"""Reduced-precision recipes for transformer encoders (docs/precision.md): the half-precision model the
``dtype=bfloat16|float16`` option builds, and the oneDNN linear layers that make bf16 pay on a CPU.

- :func:`keep_tail_fp32`: the head (classifier, pooler, score) and the encoder's final layer norm stay in fp32, fed
  fp32 inputs; everything before runs in half precision. Measured on BiasFinder mutants, the tail in fp32 is what
  keeps labels near the decision boundary (docs/precision.md, "bf16 variants").
- :func:`fuse_cpu_linear`: on a CPU, every half-precision ``nn.Linear`` calls oneDNN's linear with the bias fused
  (``torch.ops.mkldnn._linear_pointwise``) instead of ``addmm``, which copies the bias into the output first (17 % of
  the bf16 forward pass, profiled). Same numbers as ``F.linear`` (checked per layer at load; a layer that differs
  keeps ``F.linear``).
"""
from __future__ import annotations

from toolkit.errors import MissingDependencyError

HALF_RECIPE = "half-fp32-tail-v2"
"""Part of a half-precision model's fingerprint: the tail kept in fp32 changes scores (v1: every op in half)."""
HEAD_NAMES = ("classifier", "pre_classifier", "score", "pooler", "qa_outputs", "lm_head")
"""Top-level module names of heads kept in fp32."""


def _norm_like(module) -> bool:
    import torch

    name = type(module).__name__
    return isinstance(module, torch.nn.LayerNorm) or name.endswith(("LayerNorm", "RMSNorm"))


def _cast_inputs_fp32(module, args, kwargs):
    import torch

    cast = tuple(a.float() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args)
    return cast, kwargs


def keep_tail_fp32(model) -> list[str]:
    """Put ``model``'s head modules (:data:`HEAD_NAMES`) and its final norm (the last layer norm in registration
    order, when nothing but head modules is registered after it) back in fp32, each casting its floating inputs to
    fp32. Returns the names of the modules kept in fp32."""
    named = list(model.named_modules())
    base = getattr(model, getattr(model, "base_model_prefix", ""), None)
    heads = [name for name, _ in model.named_children() if name in HEAD_NAMES]
    if base is not None and base is not model:
        prefix = model.base_model_prefix
        heads += [f"{prefix}.{name}" for name, _ in base.named_children() if name in HEAD_NAMES]

    def is_head(name: str) -> bool:
        return any(name == h or name.startswith(h + ".") for h in heads)

    kept = list(heads)
    norms = [i for i, (name, module) in enumerate(named) if _norm_like(module) and not is_head(name)]
    if norms:
        last = norms[-1]
        after = [name for name, module in named[last + 1:] if any(True for _ in module.parameters(recurse=False))]
        if all(is_head(name) for name in after):
            kept.append(named[last][0])
    modules = dict(named)
    for name in kept:
        module = modules[name]
        module.float()
        module.register_forward_pre_hook(_cast_inputs_fp32, with_kwargs=True)
    return kept


def keep_norms_fp32(model) -> list[str]:
    """Every layer norm of ``model`` in fp32, fed fp32 inputs: the residual stream then stays in fp32 (a half-precision
    linear layer's output added to an fp32 residual gives fp32), only the matrix products and attention run in half
    precision. Returns the names of the norms. Pair with :func:`fuse_cpu_linear`, whose layers cast their inputs."""
    kept = [name for name, module in model.named_modules() if _norm_like(module)]
    modules = dict(model.named_modules())
    for name in kept:
        modules[name].float()
        modules[name].register_forward_pre_hook(_cast_inputs_fp32, with_kwargs=True)
    return kept


def _exact_gelu(act) -> bool:
    """Whether ``act`` is the exact (erf) GELU, as BERT-family ``GELUActivation``/``nn.GELU`` compute it."""
    import torch

    if isinstance(act, torch.nn.GELU):
        return act.approximate == "none"
    return type(act).__name__ == "GELUActivation" and getattr(act, "act", None) is torch.nn.functional.gelu


def fuse_cpu_linear(model, *, gelu: bool = False) -> int:
    """Route ``model``'s half-precision ``nn.Linear`` layers through oneDNN's fused linear on a CPU, the bias fused
    in (the same numbers as ``F.linear``: a layer whose output differs on a probe keeps ``F.linear``). ``gelu=True``
    also fuses the exact GELU of a BERT ``intermediate`` block (rounded once instead of twice: it changes scores
    and, measured, a label near the boundary for no measurable speed; off in the shipped recipe). Returns the
    number of layers routed (0 where this torch has no oneDNN)."""
    import torch

    op = getattr(torch.ops.mkldnn, "_linear_pointwise", None) if torch.backends.mkldnn.is_available() else None
    if op is None:
        return 0
    count = 0
    gen = torch.Generator().manual_seed(0)
    for module in list(model.modules()):
        fuse_gelu = gelu and isinstance(getattr(module, "dense", None), torch.nn.Linear) \
            and _exact_gelu(getattr(module, "intermediate_act_fn", None))
        if fuse_gelu and _route(module.dense, op, gen, attr="gelu"):
            module.forward = _calls(module.dense)  # the dense layer now applies the GELU itself
            count += 1
    for module in list(model.modules()):
        if isinstance(module, torch.nn.Linear) and "forward" not in vars(module) and _route(module, op, gen):
            count += 1
    return count


def _calls(layer):
    """A plain function calling ``layer`` (assigning a module as ``forward`` would register it as a submodule)."""
    def forward(hidden_states):
        return layer(hidden_states)
    return forward


def _route(layer, op, gen, *, attr: str = "none") -> bool:
    import torch

    weight, bias = layer.weight, layer.bias
    if weight.dtype not in (torch.bfloat16, torch.float16) or weight.device.type != "cpu":
        return False
    algorithm = "none" if attr == "gelu" else ""

    def forward(x):
        return op(x.to(weight.dtype), weight, bias, attr, [], algorithm)

    probe = torch.randn(3, 5, weight.shape[1], generator=gen).to(weight.dtype)
    try:
        with torch.inference_mode():
            want = torch.nn.functional.linear(probe, weight, bias)
            if attr == "gelu":
                want = torch.nn.functional.gelu(want)
            got = forward(probe)
    except RuntimeError:
        return False
    tolerance = 0.0 if attr == "none" else 2 ** -6  # fused GELU rounds once instead of twice
    if got.shape != want.shape or float((got.float() - want.float()).abs().max()) > tolerance * float(
            want.float().abs().max() + 1):
        return False
    layer.forward = forward
    return True


def _int8_extra(module: str) -> None:
    """MissingDependencyError (TK204) naming the ``int8`` extra unless ``module`` (``onnx``, ``onnxruntime``) is
    installed: the ONNX helpers below need it."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(f"the ONNX int8 helpers need the package {module!r}, which is not installed.",
                                     fix="pip install -e '.[int8]' (onnx and onnxruntime); the other precisions "
                                         "(dtype=bfloat16, float16, int8 dynamic) need neither.")


STATIC_INT8_RECIPE = "ort-static-int8-qdq-u8s8-per-channel-v1"
"""The ONNX Runtime static int8 recipe (:func:`quantize_onnx_static`): QDQ graph, uint8 activations with fixed
scales from calibration, int8 weights per output channel, only the matrix products with a weight operand."""
ONNX_GROUPS: dict[str, str] = {
    "attention q, k, v": r"/attention/self/(query|key|value)/",
    "attention output": r"/attention/output/dense/",
    "feed-forward in": r"/intermediate/dense/",
    "feed-forward out": r"/layer\.\d+/output/dense/",
}
"""Groups of a BERT-family ONNX graph's weight matrix products, by node-name pattern (the per-layer sweep)."""


def export_onnx(model, path, *, opset: int = 17):
    """Export a transformers encoder (``input_ids``, ``attention_mask`` [, ``token_type_ids``] → its first output)
    to ONNX at ``path`` with batch and sequence axes dynamic, offline (TorchScript exporter; nothing downloaded).
    Needs the ``int8`` extra (``onnx``). Returns ``path``."""
    _int8_extra("onnx")
    import torch

    names = ["input_ids", "attention_mask"] + (["token_type_ids"] if model.config.type_vocab_size else [])
    dummy = tuple(torch.ones((2, 8), dtype=torch.long) if n != "token_type_ids" else
                  torch.zeros((2, 8), dtype=torch.long) for n in names)

    class Wrapped(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *args):
            return self.inner(**dict(zip(names, args)))[0]

    axes = {n: {0: "batch", 1: "sequence"} for n in names} | {"hidden": {0: "batch", 1: "sequence"}}
    wrapped = Wrapped(model.float()).eval()  # the exporter restores the wrapper's mode on exit: eval, not train
    with torch.inference_mode():
        torch.onnx.export(wrapped, dummy, str(path), input_names=names, output_names=["hidden"],
                          dynamic_axes=axes, opset_version=opset, dynamo=False)
    model.eval()
    return path


def weight_matmuls(path) -> list[str]:
    """Names of the ``MatMul`` nodes of the ONNX graph at ``path`` whose second operand is a weight (initializer):
    the linear layers, not attention's activation products."""
    _int8_extra("onnx")
    import onnx

    graph = onnx.load(str(path)).graph
    weights = {init.name for init in graph.initializer}
    return [node.name for node in graph.node if node.op_type == "MatMul" and node.input[1] in weights]


def quantize_onnx_static(source, target, *, calibration: list[dict], nodes: list[str],
                         method: str = "minmax", cache=None):
    """Static int8 quantisation of the ONNX graph ``source`` into ``target`` with ONNX Runtime (recipe
    :data:`STATIC_INT8_RECIPE`): the matrix-product ``nodes`` only, weights per channel, activation scales fixed from
    ``calibration`` (model inputs as numpy int64 arrays; ``method`` minmax, percentile or entropy). ``cache``: a
    path where the calibrated ranges are kept for the next call. Returns ``target``."""
    _int8_extra("onnxruntime")
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter(calibration)

        def get_next(self):
            return next(self.items, None)

    quantize_static(str(source), str(target), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"],
                    nodes_to_quantize=list(nodes), calibrate_method={"minmax": CalibrationMethod.MinMax,
                                                                     "percentile": CalibrationMethod.Percentile,
                                                                     "entropy": CalibrationMethod.Entropy}[method],
                    calibration_cache_path=None if cache is None else str(cache))
    return target


class OrtEncoder:
    """An ONNX Runtime session called like the transformers encoder it was exported from: ``encoder(**encoded)``
    gives an object whose ``last_hidden_state`` (and ``[0]``) is a float32 torch tensor."""

    def __init__(self, path, *, threads: int | None = None) -> None:
        _int8_extra("onnxruntime")
        import onnxruntime as ort
        import torch

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or torch.get_num_threads()
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]

    def __call__(self, **encoded):
        import torch

        feed = {n: encoded[n].cpu().numpy().astype("int64") if n in encoded else
                torch.zeros_like(encoded["input_ids"]).numpy().astype("int64") for n in self.inputs}
        hidden = torch.from_numpy(self.session.run(None, feed)[0])

        class Out(tuple):
            last_hidden_state = hidden
        return Out((hidden,))
