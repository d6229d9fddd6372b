"""``hf:<hub-id-or-local-path>[?options]``: any ``AutoModelForSequenceClassification``.

Options (URL query syntax): ``labels=negative,neutral,positive`` (override ``id2label``), ``max_length=N``,
``device=cpu|cuda|cuda:1|mps``, ``dtype=float32|bfloat16|float16|int8`` (default float32; half precision on a GPU,
or on a CPU with the instruction set, else TK205; int8 on a CPU only: docs/precision.md says what each costs),
``recheck=M`` (with a reduced dtype: re-score in fp32 every text whose reduced-precision answer lies within ``M``
of the decision boundary, :func:`recheck_margin`; ``recheck`` alone or ``recheck=auto``: :data:`RECHECK_MARGIN`),
``revision=<git ref>``, ``trust_remote_code=1`` (off unless asked), ``valence=auto|emotion|none`` (the valence
mapping, :data:`toolkit.models.valence.MAPPINGS`), ``task=anger|fear|joy|sadness`` (score = the probability of that
emotion label of an emotion head, as an intensity; ``task`` column set accordingly), ``hub=1`` (treat the target as
a hub id even when it looks like a local path). A local path loads offline; a hub id downloads through
``transformers`` and needs the network (or a filled HF cache). A target that looks like a local path (``./x``,
``/x``, ``~/x``, ``a/b/c``, or a single name close to a folder here, i.e. a typo) but does not exist fails at once
with "folder not found" instead of asking the hub; with ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) set, hub
ids load from the HF cache only. Otherwise the hub is probed once per process before the first hub id loads
(:func:`probe_hub`: one TCP connection to ``HF_ENDPOINT``'s host, or to the proxy that would carry it, within
:data:`PROBE_TIMEOUT_S` seconds); when it cannot be reached, hub ids load from the HF cache only, and one that is not
there fails at once (TK201, naming a local folder or ``HF_HUB_OFFLINE=1`` with a filled cache as the fix) instead of
``huggingface_hub``'s ~50 s of retries.
``max_length`` must lie between the tokenizer's special tokens + 1 and the model's position limit; ``device=cuda``
needs CUDA. A folder that would score garbage is refused at load (TK201): no tokenizer file
(:func:`check_tokenizer_files`), a tokenizer that reads English as unknowns only (:func:`check_tokenizer`, also used
by the MiniLM and local-LLM adapters), a malformed ``config.json`` (:func:`check_config_file`), weights that do not
fit the config or leave a layer random (:func:`check_loading_info`), or non-finite outputs (:func:`check_forward`).

The head is read from ``id2label`` and ``problem_type`` (:func:`toolkit.models.valence.read_head`): softmax
outputs, or independent sigmoids for ``multi_label_classification`` heads (as the ``text-classification`` pipeline
does). Every prediction carries the native view (``top_label``, ``top_score``, ``class_probs``) and, where the head
maps, a valence; an emotion head under ``valence=auto`` has none (NaN, recorded). Decoder classifiers (GPT-2 and
others without a pad token) get the EOS token as pad token, and are padded on the right: the model pools the last
non-pad token, and right padding leaves every real token's causal context and positions unchanged, so batched
scores equal one-by-one scores. The fingerprint covers the weights themselves (a hash of the state dict), the model
config (architecture settings such as ``layer_norm_eps``), the tokenizer (its full serialised pipeline: vocabulary,
normaliser, special tokens, post-processor, and its settings), the mapping, max length and precision.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np

from toolkit.batching import InputLayout
from toolkit.cases import TASKS
from toolkit.errors import InputError, MissingDependencyError, ModelSpecError, UnsupportedHardwareError, warn

# the hub helpers live in the infrastructure module toolkit.hub (the local-LLM client uses them too); kept
# importable here
from toolkit.hub import (
    PROBE_MEMORY_S,
    PROBE_SENTENCE,
    PROBE_TIMEOUT_S,
    TOKENIZER_FILES,
    check_config_file,
    check_tokenizer,
    check_tokenizer_files,
    hub_endpoint,
    hub_load_error,
    hub_offline,
    looks_local,
    offline_reason,
    probe_hub,
    resolve_target,
)
from toolkit.models import quantize, valence
from toolkit.models.base import Predictions, SentimentModel, digest
from toolkit.models.registry import scheme

_OPTIONS = ("labels", "max_length", "device", "dtype", "recheck", "revision", "trust_remote_code", "valence", "task",
            "hub")
_OBJECT_OPTIONS = ("labels", "max_length", "device", "dtype", "recheck", "valence", "task")
"""The options of a model and tokenizer given as objects (:meth:`HFClassifierModel.from_objects`): those of a spec
that do not say how to load it."""
_TRUE = ("1", "true", "yes", "on")
_DECODERS = ("gpt2", "gpt_neo", "gpt_neox", "gptj", "llama", "mistral", "qwen2", "phi3", "phi", "opt", "bloom",
             "falcon", "gemma", "gemma2")
"""Model types whose sequence classifier pools the last non-pad token (padded on the right here)."""


def pick_device(requested: str | None = None) -> str:
    """The device to run on: ``requested`` if given (checked: a CUDA or MPS device this machine lacks is a coded
    error), else cuda, then mps, then cpu."""
    import torch

    if requested:
        if requested.startswith("cuda"):
            index = requested.partition(":")[2]
            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
            if count == 0 or (index.isdigit() and int(index) >= count):
                raise InputError(f"device={requested!r} asked for, but this machine has {count} CUDA device(s).",
                                 fix="drop the device option (the default picks cuda, mps or cpu) or use device=cpu.")
        elif requested.startswith("mps") and not (getattr(torch.backends, "mps", None) is not None
                                                   and torch.backends.mps.is_available()):
            raise InputError(f"device={requested!r} asked for, but MPS is not available here.",
                             fix="drop the device option or use device=cpu.")
        return requested
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``hf:<target>?k=v&…`` into the target and its options; unknown options are an error."""
    body = spec[len("hf:"):]
    target, _, query = body.partition("?")
    if not target:
        raise ModelSpecError(f"model spec {spec!r} names no model.", fix="use 'hf:<hub-id>' or 'hf:<local folder>'.")
    options = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise ModelSpecError(f"unknown option {unknown[0]!r} in model spec {spec!r}; available: {', '.join(_OPTIONS)}.",
                             fix="remove it or use one of the listed options.")
    return target, options


def _checked_max_length_option(value: str | None, *, spec: str) -> None:
    """TK201 unless the ``max_length`` option is absent or a whole number of tokens."""
    if value is not None and not re.fullmatch(r"\d+", str(value).strip()):
        raise ModelSpecError(f"max_length={value!r} in {spec!r} is not a whole number of tokens.",
                             fix="use e.g. max_length=512, or drop it for the model's own limit.")


def check_loading_info(spec: str, info: dict, model=None) -> None:
    """Refuse (TK201) weights that do not fill the model: a layer missing from them (transformers would initialise
    it at random, e.g. a base encoder without a classifier head) or of another shape than the config says. Only
    trainable parameters count as missing (``model`` given): a buffer such as ``position_ids`` is rebuilt."""
    mismatched = sorted(info.get("mismatched_keys") or [], key=str)
    if mismatched:
        shown = "; ".join(f"{k[0]}: weights {tuple(k[1])}, config {tuple(k[2])}" if isinstance(k, tuple) else str(k)
                          for k in mismatched[:4])
        raise ModelSpecError(f"{spec}: {len(mismatched)} weight(s) do not match the sizes its config.json gives "
                             f"({shown}); e.g. num_labels or vocab_size differ from the trained model.",
                             fix="use the config.json saved with these weights (save_pretrained writes both).")
    missing = sorted(info.get("missing_keys") or [])
    if model is not None:
        parameters = {name for name, _ in model.named_parameters(remove_duplicate=False)}
        missing = [k for k in missing if k in parameters]
    if missing:
        raise ModelSpecError(f"{spec}: {len(missing)} layer(s) are not in its weights and would be random "
                             f"({', '.join(missing[:4])}{', …' if len(missing) > 4 else ''}); a base model without "
                             "a trained classifier head scores noise.",
                             fix="fine-tune a sequence-classification head and save it (save_pretrained), or pick a "
                                 "model trained for sentiment.")


def malformed_error(spec: str, exc: Exception) -> ModelSpecError:
    """TK201 for a folder whose config cannot build the model or whose weights cannot be read."""
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return ModelSpecError(f"{spec}: the model folder is malformed ({type(exc).__name__}: {first}); e.g. a config "
                          "value of 0 or of the wrong kind, or a truncated or corrupt weights file.",
                          fix="save the model again with save_pretrained(), or check config.json against the "
                              "architecture's documented settings.")


def check_forward(model: "TransformerModel", *, spec: str) -> None:
    """Run :data:`PROBE_SENTENCE` through the loaded model once: an error or a non-finite output (NaN/inf weights,
    a config the weights do not fit) is TK201 at load, not a failure in the middle of a run."""
    try:
        probs = np.asarray(model._raw_probe(), dtype=float)
    except (ImportError, MemoryError):
        raise
    except Exception as exc:
        raise malformed_error(spec, exc) from exc
    if not np.isfinite(probs).all():
        raise ModelSpecError(f"{spec}: the model gives non-finite outputs (NaN or inf) on the probe sentence: its "
                             "weights are corrupt or overflow in this precision.",
                             fix="re-save the weights; in float16 try bfloat16 or float32.")


def _tokenizer_digest(tokenizer) -> str:
    """Everything in the tokenizer that shapes the model's inputs: the serialised pipeline of a fast tokenizer (vocab,
    normaliser, pre-tokeniser, post-processor with its special tokens) or the vocabulary of a slow one, plus its
    special tokens and settings (paths left out, so a moved folder keeps its fingerprint)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    pipeline = backend.to_str() if backend is not None else sorted(tokenizer.get_vocab().items())
    settings = {k: v for k, v in tokenizer.init_kwargs.items()
                if k not in ("name_or_path", "is_local", "local_files_only") and not k.endswith("_file")}
    return digest(pipeline, json.dumps(settings, sort_keys=True, default=str), tokenizer.special_tokens_map,
                  getattr(tokenizer, "padding_side", ""), getattr(tokenizer, "truncation_side", ""))


DTYPES: tuple[str, ...] = ("float32", "bfloat16", "float16", "int8")
"""The ``dtype=`` option's values: fp32 (default, the papers' precision); bf16/fp16 on a GPU or a CPU with the
instruction set; int8 on a CPU (see docs/precision.md for what each costs in answers)."""
CPU_HALF_PRECISION_FLAGS: dict[str, tuple[str, ...]] = {
    "bfloat16": ("avx512_bf16", "amx_bf16", "bf16"),  # x86 AVX-512 BF16 / AMX; Arm's BF16 extension ("bf16")
    "float16": ("avx512_fp16", "amx_fp16"),  # x86 AVX512-FP16 / AMX-FP16 (Sapphire Rapids, Granite Rapids)
}
"""Per half-precision dtype, the CPU flags (as ``/proc/cpuinfo`` spells them) of which one must be present for it to
run natively; without one, PyTorch emulates it, slower than fp32."""


def cpu_flags() -> frozenset[str]:
    """The instruction-set flags of this machine's CPU from ``/proc/cpuinfo`` (``flags``, or ``Features`` on Arm);
    empty where that file cannot be read (not Linux)."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def cpu_half_precision_support(dtype_name: str) -> str:
    """``""`` when this CPU runs ``dtype_name`` (bfloat16 or float16) natively, else what it lacks, in words. Reads
    :func:`cpu_flags`; where they cannot be read, asks oneDNN (``torch.ops.mkldnn._is_mkldnn_bf16_supported``)."""
    wanted = CPU_HALF_PRECISION_FLAGS[dtype_name]
    flags = cpu_flags()
    if flags:
        return "" if flags & set(wanted) else f"none of the instruction sets {', '.join(wanted)}"
    import torch

    probe = {"bfloat16": "_is_mkldnn_bf16_supported", "float16": "_is_mkldnn_fp16_supported"}[dtype_name]
    try:
        supported = bool(getattr(torch.ops.mkldnn, probe)())
    except (AttributeError, RuntimeError):
        supported = False
    return "" if supported else f"no {dtype_name} support that oneDNN can use (flags unreadable)"


def check_cpu_half_precision(dtype_name: str) -> None:
    """Raise TK205 (:class:`~toolkit.errors.UnsupportedHardwareError`) when this CPU lacks the instruction set for
    ``dtype_name``, naming it and the fix."""
    missing = cpu_half_precision_support(dtype_name)
    if missing:
        raise UnsupportedHardwareError(
            f"dtype={dtype_name} on a CPU needs {' or '.join(CPU_HALF_PRECISION_FLAGS[dtype_name])}; this CPU has "
            f"{missing}, so PyTorch would emulate {dtype_name}, slower than float32.",
            fix="drop the dtype option (float32), use dtype=int8 (see docs/precision.md for its cost in answers), "
                "or run on a CPU with that instruction set or a GPU.")


INT8_KEEP_FLOAT: tuple[str, ...] = ()
"""Name patterns (regular expressions, matched against module names) of the linear layers :func:`quantize_int8`
keeps in fp32. Empty: quantising any one group of MiniLM's layers alone already moves scores by 0.04–0.35
(docs/precision.md), so no fp32 subset keeps the answers at int8's speed; int8 is an explicit, warned option."""
INT8_RECIPE = "dynamic-int8-per-channel-v1"


ENCODE_CHUNK = 512
"""The most texts per chunk when :meth:`TransformerModel.encode` tokenises in worker threads (fewer where that
leaves a thread without a chunk)."""
PREFIX_CHARS_PER_TOKEN = 6
"""With ``encode(..., prefix=True)``: a text longer than ``(max_length + PREFIX_SPARE_TOKENS) * 6`` characters is
first tokenised from that many leading characters only (English reviews average about 4.5 characters per BERT
token, so most such prefixes already run past the cut)."""
PREFIX_SPARE_TOKENS = 16
"""Tokens the character prefix is sized to hold beyond ``max_length``."""
CHECK_CHARS_PER_TOKEN = 12
"""The Rust path's agreement check reads at most this many characters per token of ``max_length`` of each checked
text (twice the prefix's)."""
RECHECK_MARGIN = 0.03
"""The default ``recheck`` margin: the documented bf16 tolerance (docs/precision.md), about twice the largest
|bf16 − fp32| score difference measured on BiasFinder mutants (0.016) and above the EEC's (0.025)."""
RECHECK_THREADS = 1
"""Intra-op threads of the fp32 recheck on a CPU. Its sub-batches are small (1–10 texts), and on a loaded 2-core
machine two threads spent 9.2 s where one spent 1.5 s on the same rechecks (each small op waits for a descheduled
thread; docs/precision.md)."""
RECHECK_RECIPE = "fp32-boundary-recheck-v1"
"""Part of a rechecked model's fingerprint, with its margin: which texts are re-scored in fp32, and how."""


def recheck_margin(value: str | float | None, *, spec: str = "", dtype_name: str = "bfloat16") -> float | None:
    """The ``recheck`` option as a margin: None when absent; ``""`` or ``"auto"`` give :data:`RECHECK_MARGIN`;
    otherwise a number strictly between 0 and 0.5 (a probability distance from the decision boundary). A margin
    outside (0, 0.5), a value that is not a number, or a recheck of an fp32 model is TK201 naming the fix."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if text in ("", "auto"):
        margin = RECHECK_MARGIN
    else:
        try:
            margin = float(text)
        except ValueError:
            margin = float("nan")
        if not 0.0 < margin < 0.5:  # NaN fails too
            raise ModelSpecError(f"recheck={value!r} in {spec or 'the model spec'!r} is not a margin strictly "
                                 "between 0 and 0.5 (a distance in probability from the decision boundary).",
                                 fix=f"use e.g. recheck={RECHECK_MARGIN} (the documented bf16 tolerance), or recheck "
                                     "alone for that default; drop it for no fp32 recheck.")
    if dtype_name == "float32":
        raise ModelSpecError(f"recheck in {spec or 'the model spec'!r} re-scores reduced-precision answers in fp32, "
                             "but this model already runs in float32.",
                             fix="add dtype=bfloat16 (or float16, int8) to the spec, or drop recheck.")
    return margin


def half_gaps(values: np.ndarray) -> np.ndarray:
    """Per row of ``values`` (one vector whose argmax is a decision), half the gap between its top two entries: the
    distance each entry would have to move for the argmax to change (``|p - 0.5|`` for a binary ``[1 - p, p]``);
    inf for a single column."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[1] < 2:
        return np.full(len(v), np.inf)
    top2 = np.sort(v, axis=1)[:, -2:]
    return (top2[:, 1] - top2[:, 0]) / 2.0


def quantize_int8(model, *, keep_float: tuple[str, ...] | None = None):
    """Quantise ``model``'s ``nn.Linear`` layers in place to int8 with torch dynamic quantisation: weights per
    output channel, activations per batch at run time; layers matching ``keep_float`` (default
    :data:`INT8_KEEP_FLOAT`), and every classifier head, stay in fp32. The model remembers the digest of its fp32
    weights and the recipe (:func:`_weights_digest` reads them). Returns ``model``."""
    import warnings

    import torch
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    keep = INT8_KEEP_FLOAT if keep_float is None else keep_float
    source = _weights_digest(model)
    qconfig = {name: per_channel_dynamic_qconfig for name, module in model.named_modules()
               if isinstance(module, torch.nn.Linear) and not name.startswith(("classifier", "score", "pre_classifier"))
               and not any(re.search(pattern, name) for pattern in keep)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.ao.quantization's deprecation notice (torchao is not a dependency)
        quantize_dynamic(model, qconfig, dtype=torch.qint8, inplace=True)
    model._toolkit_float_digest = digest(source, INT8_RECIPE, sorted(qconfig))
    return model


def _config_digest(config) -> str:
    """The model config without what cannot change a score (its path, the transformers version, the dtype)."""
    settings = {k: v for k, v in config.to_dict().items()
                if k not in ("_name_or_path", "name_or_path", "transformers_version", "torch_dtype", "dtype")}
    return digest(json.dumps(settings, sort_keys=True, default=str))


def _weights_digest(model) -> str:
    """A hash of the state dict; for a model quantised by :func:`quantize_int8`, of its fp32 weights and recipe."""
    import torch

    if getattr(model, "_toolkit_float_digest", None):
        return model._toolkit_float_digest
    h = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        h.update(name.encode())
        h.update(str(tuple(tensor.shape)).encode())
        h.update(tensor.detach().to("cpu").contiguous().view(-1).view(dtype=torch.uint8).numpy().tobytes())
    return h.hexdigest()[:32]


@contextlib.contextmanager
def _threads(count: int | None):
    """torch's intra-op thread count set to ``count`` (no change for None or more than it has), restored after."""
    import torch

    before = torch.get_num_threads()
    if count is None or count >= before:
        yield
        return
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _rows(encoded: dict, rows: np.ndarray) -> dict:
    """The batch ``encoded`` cut to ``rows``, its padding columns that none of them uses dropped (either side)."""
    import torch

    first = next(iter(encoded.values()))
    index = torch.as_tensor(rows, dtype=torch.long, device=first.device)
    span = slice(0, first.shape[1])
    if "attention_mask" in encoded:
        columns = torch.nonzero(encoded["attention_mask"].index_select(0, index).any(dim=0)).flatten()
        span = slice(int(columns.min()), int(columns.max()) + 1) if len(columns) else span
    return {k: v.index_select(0, index)[:, span] for k, v in encoded.items()}


class TransformerModel(SentimentModel):
    """Shared by every transformer adapter: token lengths, truncation at ``max_length`` (flagged per text), device,
    precision, ``torch.inference_mode``. Subclasses set ``tokenizer``, ``model``, ``roles`` and implement
    ``_probabilities(encoded)`` (class probabilities in ``roles`` order)."""

    roles: list[str | int]
    max_length: int
    recheck: float | None = None
    """The fp32 boundary-recheck margin (``recheck=`` option), None when off."""
    reference_model = None
    """With ``recheck``: the fp32 copy of the model that re-scores texts near the decision boundary."""

    def _place(self, device: str | None, dtype_name: str, *, recheck: str | float | None = None) -> None:
        """Move the model to its device in its precision (:data:`DTYPES`): ``bfloat16``/``float16`` cast the
        encoder's weights (its ops then run in half precision; measured faster than ``torch.autocast`` on a CPU),
        keep the head and the final layer norm in fp32 (:func:`toolkit.models.quantize.keep_tail_fp32`: the labels
        near the boundary), route a CPU's linear layers through oneDNN with the bias fused (the same numbers)
        (:func:`toolkit.models.quantize.fuse_cpu_linear`), and need a GPU or a CPU with the instruction set
        (:func:`cpu_half_precision_support`, else TK205); ``int8`` (CPU only) quantises the linear layers
        (:func:`quantize_int8`). ``recheck`` (:func:`recheck_margin`; a reduced dtype only) keeps an fp32 copy of
        the model (:attr:`reference_model`) that re-scores the texts near the decision boundary (:meth:`_probabilities`).
        docs/precision.md has the measurements."""
        import copy

        import torch

        self.device = pick_device(device)
        if dtype_name not in DTYPES:
            raise InputError(f"unknown dtype {dtype_name!r}; available: {', '.join(DTYPES)}.",
                             fix="use dtype=float32 (default), bfloat16 or float16 (a GPU, or a CPU with the "
                                 "instruction set), or int8 (CPU).")
        margin = recheck_margin(recheck, spec=getattr(self, "spec", type(self).__name__), dtype_name=dtype_name)
        on_cpu = self.device == "cpu"
        if dtype_name == "int8" and not on_cpu:
            raise InputError(f"dtype=int8 runs on a CPU only; this run uses {self.device!r}.",
                             fix="add device=cpu to the spec, or use dtype=bfloat16/float16 on a GPU.")
        if dtype_name in ("float16", "bfloat16") and on_cpu:
            check_cpu_half_precision(dtype_name)
        elif dtype_name != "float32" and not (on_cpu or self.device.startswith("cuda")):
            raise InputError(f"dtype={dtype_name} needs a CUDA device or a CPU; this run uses {self.device!r}.",
                             fix="drop the dtype option on MPS, or add device=cpu.")
        self.dtype_name = dtype_name
        self.recheck = margin
        self.recheck_counts = {"texts": 0, "rechecked": 0}
        if self.recheck is not None:
            self.reference_model = copy.deepcopy(self.model).to(self.device, dtype=torch.float32).eval()
        if dtype_name == "int8":
            quantize_int8(self.model.to("cpu").eval())
            warn(f"{getattr(self, 'spec', type(self).__name__)}: dtype=int8 changes answers: on BiasFinder mutants "
                 "scored by minilm-imdb it moved scores by up to 0.52, kept only about a quarter of fp32's BTC pairs "
                 "and changed 12 of 48 EEC verdicts, and a text's score depends on the other texts of its batch "
                 "(activation scales are set per batch: up to 0.40 apart; docs/precision.md); use it for rough "
                 "screening only, dtype=bfloat16 for fast runs that keep the answers, float32 for the numbers you "
                 "report.")
        else:
            self.model.to(self.device, dtype=getattr(torch, dtype_name)).eval()
            if dtype_name != "float32":
                self.fp32_modules = quantize.keep_tail_fp32(self.model)
                self.fused_linear = quantize.fuse_cpu_linear(self.model) if on_cpu else 0

    @property
    def precision_key(self) -> str:
        """The precision as the fingerprint records it: the dtype, and for bf16/fp16 the recipe
        (:data:`toolkit.models.quantize.HALF_RECIPE`: which modules stay fp32)."""
        name = getattr(self, "dtype_name", "float32")
        key = f"{name}/{quantize.HALF_RECIPE}" if name in ("bfloat16", "float16") else name
        return key if self.recheck is None else f"{key}+{RECHECK_RECIPE}:{self.recheck!r}"

    def lengths(self, texts: list[str]) -> list[int]:
        """Token counts with special tokens, before truncation (tokenised in chunks to bound memory)."""
        out: list[int] = []
        for start in range(0, len(texts), 1024):
            ids = self.tokenizer(list(texts[start:start + 1024]), add_special_tokens=True, truncation=False,
                                 verbose=False)["input_ids"]
            out += [len(x) for x in ids]
        return out

    def encode(self, texts: list[str], *, threads: int = 1, one_pass: bool = False, prefix: bool = False
               ) -> tuple[list[np.ndarray], np.ndarray]:
        """The model inputs of ``texts``: token ids after tokenisation and truncation at ``max_length`` (one array
        per text, as the model reads them), and each text's length before truncation. A text that fits is tokenised
        once; one that does not is tokenised again with truncation, so its ids are exactly what ``predict`` feeds.

        A fast tokenizer is driven through its Rust backend (``encode_batch`` on every core, no per-text Python
        conversion: on a GPU the transformers wrapper's conversion cost more than the tokenisation itself); the
        first texts of every call are checked against the transformers path, and any difference falls back to it.
        ``threads`` > 1 tokenises chunks of :data:`ENCODE_CHUNK` texts in that many worker threads on the Rust path
        (its calls release the GIL, so they run in parallel also where the tokenizer's own parallelism is off, e.g.
        in a process forked after it was used); the ids are the same, in text order. An interrupt cancels the chunks
        not started; a running one finishes first. ``one_pass``: tokenise every text once, with truncation, and read
        its length before truncation from the pieces cut off (the Rust path only, where that gives the wrapper's ids
        and lengths on the checked texts; else two passes as above): the same ids and lengths. ``prefix`` (with
        ``one_pass``): a long text is tokenised from a character prefix only when that provably gives its ids (see
        :meth:`_rust_tokenize`); the ids are the same, and such a text's length is that of the prefix: more than
        ``max_length`` as the whole text's is, not the whole text's count."""
        dtype = np.uint16 if len(self.tokenizer) <= np.iinfo(np.uint16).max + 1 else np.int32
        lengths = np.zeros(len(texts), dtype=np.int64)
        if not len(texts):  # transformers' tokenizer raises IndexError on an empty batch
            return [], lengths
        tokenize = self._rust_tokenize() if self._rust_agrees(texts) else self._wrapper_tokenize
        single = getattr(tokenize, "one_pass", None) if one_pass and getattr(tokenize, "one_pass_agrees", False) \
            else None
        if single is not None and prefix and getattr(tokenize, "prefix_agrees", False):
            single = functools.partial(single, chars=tokenize.prefix_chars)

        def chunk_ids(chunk: list[str]) -> tuple[list[np.ndarray], list[int]]:
            if single is not None:
                cut, sizes = single(chunk)
                return [np.asarray(x, dtype=dtype) for x in cut], sizes
            full = tokenize(chunk, truncate=False)
            sizes = [len(x) for x in full]
            long = [i for i, x in enumerate(full) if len(x) > self.max_length]
            if long:
                for i, x in zip(long, tokenize([chunk[i] for i in long], truncate=True)):
                    full[i] = x
            return [np.asarray(x, dtype=dtype) for x in full], sizes

        size = max(64, min(ENCODE_CHUNK, -(-len(texts) // int(threads)))) if threads > 1 else 4096
        chunks = [list(texts[start:start + size]) for start in range(0, len(texts), size)]
        ids: list[np.ndarray] = []
        if threads <= 1 or len(chunks) == 1 or tokenize == self._wrapper_tokenize:  # the wrapper sets its backend's
            # truncation on every call, which two threads at once would collide on ("Already borrowed")
            done = map(chunk_ids, chunks)
            pool = None
        else:
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(max_workers=int(threads), thread_name_prefix="toolkit-tokenise")
            done = pool.map(chunk_ids, chunks)
        finished = False
        try:
            position = 0
            for chunk_ids_, sizes in done:
                ids += chunk_ids_
                lengths[position:position + len(sizes)] = sizes
                position += len(sizes)
            finished = True
        finally:
            if pool is not None:  # every chunk done: the idle workers are joined; else not-started ones cancelled
                pool.shutdown(wait=finished, cancel_futures=not finished)
        return ids, lengths

    def _wrapper_tokenize(self, texts: list[str], *, truncate: bool) -> list[list[int]]:
        kwargs = {"truncation": True, "max_length": self.max_length} if truncate else {"truncation": False}
        return self.tokenizer(texts, add_special_tokens=True, verbose=False, **kwargs)["input_ids"]

    def _rust_tokenize(self):
        """A tokenize function over two copies of the fast tokenizer's backend (the tokenizer itself is left as it
        is): one without truncation, one truncating as transformers does (longest first, the tokenizer's side).
        Built once per backend, maximum length and side (copying a backend costs a few hundred ms).

        Its ``one_pass(texts, chars=N)`` tokenises a text longer than N characters from its first N only, and keeps
        that where the prefix's kept tokens (the first ``max_length``) all come from words (pre-tokens) that end at
        least two words before the prefix's last: the normaliser and pre-tokeniser act on a character and its
        neighbours, and the model on one word at a time, so only the last word or two of a prefix (a word cut in
        two, the spacing before it) can differ from the whole text's, and the ids the model reads are those of the
        earlier words. Used only with the right truncation side and a pre-tokeniser (a tokenizer without one reads
        the text as one word: never kept), and only where :meth:`_rust_agrees` found it gives the wrapper's ids on
        the first call's texts."""
        backend = getattr(self.tokenizer, "backend_tokenizer", None)
        if backend is None:
            return self._wrapper_tokenize
        key = (id(backend), self.max_length, getattr(self.tokenizer, "truncation_side", "right"))
        built = getattr(self, "_rust_built", None)
        if built is not None and built[0] == key:
            return built[1]
        from tokenizers import Tokenizer

        plain, cut = Tokenizer.from_str(backend.to_str()), Tokenizer.from_str(backend.to_str())
        for copy in (plain, cut):
            copy.no_padding()
        plain.no_truncation()
        cut.enable_truncation(self.max_length, stride=0, strategy="longest_first",
                              direction=getattr(self.tokenizer, "truncation_side", "right"))

        def tokenize(texts: list[str], *, truncate: bool) -> list[list[int]]:
            return [e.ids for e in (cut if truncate else plain).encode_batch(texts, add_special_tokens=True)]
        special = self.tokenizer.num_special_tokens_to_add(pair=False)

        def prefix_decides(encoding) -> bool:
            """Whether a prefix's truncated encoding is the whole text's: it was cut, and its kept tokens' words
            all lie at least two words before the prefix's last word."""
            tail = [w for o in encoding.overflowing for w in o.word_ids if w is not None]
            kept = [w for w in encoding.word_ids if w is not None]
            return bool(tail) and bool(kept) and max(kept) < max(tail) - 1

        def one_pass(texts: list[str], *, chars: int | None = None) -> tuple[list[list[int]], list[int]]:
            """The truncated ids and each text's length before truncation, from one tokenisation: the pieces cut
            off are in ``overflowing`` (each with the special tokens again, not counted). ``chars``: a text longer
            than that is first tokenised from its first ``chars`` characters, kept where :func:`prefix_decides`
            (its length is then the prefix's), else tokenised whole."""
            encodings: list = [None] * len(texts)
            if chars:
                long = [i for i, text in enumerate(texts) if len(text) > chars]
                if long:
                    for i, e in zip(long, cut.encode_batch([texts[i][:chars] for i in long], add_special_tokens=True)):
                        if prefix_decides(e):
                            encodings[i] = e
            rest = [i for i, e in enumerate(encodings) if e is None]
            if rest:
                for i, e in zip(rest, cut.encode_batch([texts[i] for i in rest] if chars else texts,
                                                       add_special_tokens=True)):
                    encodings[i] = e
            return ([e.ids for e in encodings],
                    [len(e.ids) + sum(len(o.ids) - special for o in e.overflowing) for e in encodings])
        tokenize.one_pass = one_pass
        tokenize.prefix_agrees = None  # checked on the first call's texts (:meth:`_rust_agrees`)
        tokenize.prefix_chars = (self.max_length + PREFIX_SPARE_TOKENS) * PREFIX_CHARS_PER_TOKEN \
            if getattr(self.tokenizer, "truncation_side", "right") == "right" and backend.pre_tokenizer is not None \
            else None
        self._rust_built = (key, tokenize)
        return tokenize

    def _rust_agrees(self, texts: list[str]) -> bool:
        """Whether the Rust path gives the transformers path's ids on a sample of ``texts`` (the 16 longest of the
        first 256, so truncation is exercised when it occurs; each cut to its first :data:`CHECK_CHARS_PER_TOKEN`
        characters per token of ``max_length``, still past the cut, so that a long review does not cost the check
        more than the call)."""
        tokenize = self._rust_tokenize()
        if tokenize == self._wrapper_tokenize:
            return False
        limit = CHECK_CHARS_PER_TOKEN * (self.max_length + PREFIX_SPARE_TOKENS)
        sample = [text[:limit] for text in sorted(texts[:256], key=len)[-16:]]
        full, cut = (self._wrapper_tokenize(sample, truncate=flag) for flag in (False, True))
        if tokenize(sample, truncate=False) != full or tokenize(sample, truncate=True) != cut:
            return False
        ids, lengths = tokenize.one_pass(sample)  # else encode(one_pass=True) tokenises a long text twice
        tokenize.one_pass_agrees = ids == cut and lengths == [len(x) for x in full]
        if getattr(tokenize, "prefix_agrees", None) is None or not tokenize.one_pass_agrees:  # once per build
            tokenize.prefix_agrees = bool(tokenize.one_pass_agrees and tokenize.prefix_chars) and all(
                tokenize.one_pass(sample, chars=chars)[0] == cut  # the shipped prefix, and one cutting every sample
                for chars in (tokenize.prefix_chars, max(1, min(len(t) for t in sample) // 2)))
        return True

    def inputs_from_ids(self, ids: list[np.ndarray]) -> dict:
        """The padded tensors of a batch of :meth:`encode` ids, as the tokenizer itself pads them (pad token and
        side, attention mask, token type 0 for a single sequence), on the model's device."""
        import torch

        longest = max(len(x) for x in ids)
        input_ids = torch.full((len(ids), longest), int(self.tokenizer.pad_token_id), dtype=torch.long)
        mask = torch.zeros((len(ids), longest), dtype=torch.long)
        for row, x in enumerate(ids):
            span = slice(longest - len(x), longest) if self.tokenizer.padding_side == "left" else slice(0, len(x))
            input_ids[row, span] = torch.from_numpy(x.astype(np.int64))
            mask[row, span] = 1
        encoded = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self.tokenizer.model_input_names:
            encoded["token_type_ids"] = torch.zeros_like(input_ids)
        return {k: v.to(self.device) for k, v in encoded.items() if k in self.tokenizer.model_input_names}

    @property
    def reuses_ids(self) -> bool:
        """Whether batches can be built from :meth:`encode` ids (the tokenizer gives a single text token type 0
        everywhere, as BERT, RoBERTa, DistilBERT and GPT-2 do); otherwise the engine passes texts to ``predict``."""
        if not hasattr(self, "_reuses_ids"):
            probe = self.tokenizer(["a b"], return_tensors=None)
            self._reuses_ids = (self.tokenizer.pad_token_id is not None
                                and not any(any(row) for row in probe.get("token_type_ids", [])))
        return self._reuses_ids

    def predict_ids(self, ids: list[np.ndarray], truncated: np.ndarray) -> Predictions:
        """``predict`` for a batch already encoded by :meth:`encode` (``truncated``: each text's own flag)."""
        import torch

        with torch.inference_mode():
            probs = self._probabilities(self.inputs_from_ids(ids))
        return self._predictions(probs, np.asarray(truncated, dtype=bool))

    def input_layout(self) -> InputLayout:
        """How this model's tokenizer pads a batch (:class:`toolkit.batching.InputLayout`): what
        :meth:`inputs_from_ids` builds, for batches padded elsewhere (:class:`toolkit.device.Prefetcher`)."""
        names = tuple(n for n in ("input_ids", "attention_mask", "token_type_ids")
                      if n in self.tokenizer.model_input_names)
        return InputLayout(pad_id=int(self.tokenizer.pad_token_id), left=self.tokenizer.padding_side == "left",
                           names=names)

    def probabilities(self, encoded: dict) -> np.ndarray:
        """Class probabilities (``roles`` order) of a padded batch on the model's device (:meth:`inputs_from_ids`'
        tensors, or a :class:`toolkit.device.Prefetcher`'s), with the recheck where it is on."""
        import torch

        with torch.inference_mode():
            return self._probabilities(encoded)

    def predictions(self, probs: np.ndarray, truncated: np.ndarray) -> Predictions:
        """The predictions of :meth:`probabilities`' output (``truncated``: each text's own flag)."""
        return self._predictions(probs, np.asarray(truncated, dtype=bool))

    def _probabilities(self, encoded) -> "np.ndarray":
        """Class probabilities of a batch (``roles`` order) from :attr:`model`; with ``recheck``, the rows whose
        answer lies within the margin of the decision boundary (:meth:`_boundary_distance`) re-scored by the fp32
        :attr:`reference_model` (counted in ``recheck_counts``)."""
        probs = self._class_probabilities(encoded, self.model)
        if self.recheck is None or not len(probs):
            return probs
        near = np.flatnonzero(self._boundary_distance(probs) < self.recheck)
        self.recheck_counts["texts"] += len(probs)
        self.recheck_counts["rechecked"] += len(near)
        if len(near):
            probs = np.array(probs, copy=True)
            with _threads(RECHECK_THREADS if str(self.device) == "cpu" else None):
                probs[near] = self._class_probabilities(_rows(encoded, near), self.reference_model)
        return probs

    def _class_probabilities(self, encoded, model) -> np.ndarray:
        """Class probabilities (``roles`` order) of ``encoded`` computed by ``model`` (this adapter's model or its
        fp32 reference copy)."""
        raise NotImplementedError

    def _boundary_distance(self, probs: np.ndarray) -> np.ndarray:
        """Per row, how far its answer lies from the decision: half the gap between the top two class probabilities
        (:func:`half_gaps`; ``|p - 0.5|`` for a binary head). A label can change only where some class probability
        moves by at least this much."""
        return half_gaps(probs)

    def _raw_probe(self) -> "np.ndarray":
        """Class probabilities of :data:`PROBE_SENTENCE` (see :func:`check_forward`)."""
        import torch

        encoded = self.tokenizer([PROBE_SENTENCE], truncation=True, max_length=self.max_length,
                                 return_tensors="pt").to(self.device)
        with torch.inference_mode():
            return self._probabilities(encoded)

    def _predictions(self, probs: np.ndarray, truncated: np.ndarray) -> Predictions:
        score, label = valence.from_probabilities(probs, self.roles)
        return Predictions(score, label, truncated, *valence.native(probs, [str(r) for r in self.roles]))

    def predict(self, texts: list[str]) -> Predictions:
        import torch

        if not len(texts):  # as the lexicons do: no texts, no predictions (the tokenizer fails on an empty batch)
            return self._predictions(np.zeros((0, len(self.model.config.id2label or self.roles or []))),
                                     np.zeros(0, dtype=bool))
        truncated = np.asarray(self.lengths(texts)) > self.max_length
        encoded = self.tokenizer(list(texts), padding=True, truncation=True, max_length=self.max_length,
                                 return_tensors="pt").to(self.device)
        with torch.inference_mode():
            probs = self._probabilities(encoded)
        return self._predictions(probs, truncated)


@scheme("hf:", patterns={"hf:<hub-id-or-local-path>": ("torch", "transformers")})
class HFClassifierModel(TransformerModel):
    def __init__(self, spec: str, *, device: str | None = None) -> None:
        try:
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as exc:
            raise MissingDependencyError("hf: models need torch and transformers.",
                                         fix="pip install torch==2.13.0 transformers (see README).") from exc
        self.spec = spec
        target, options = parse_spec(spec)
        _checked_max_length_option(options.get("max_length") or None, spec=spec)
        pick_device(options.get("device") or device)  # a missing CUDA fails before the weights load
        target, local_only = resolve_target(target, hub=options.get("hub", "0").lower() in _TRUE)
        load_kwargs = {
            "revision": options.get("revision") or None,
            "trust_remote_code": options.get("trust_remote_code", "0").lower() in _TRUE,
        }
        if local_only:
            load_kwargs["local_files_only"] = True
        check_config_file(target)
        check_tokenizer_files(target)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(target, **load_kwargs)
            self.model, info = AutoModelForSequenceClassification.from_pretrained(
                target, output_loading_info=True, ignore_mismatched_sizes=True, **load_kwargs)
        except (OSError, ValueError) as exc:
            raise hub_load_error(target, exc, what="a sequence-classification model") from exc
        except (ImportError, MemoryError):
            raise
        except Exception as exc:  # a malformed folder: config that cannot build a model, unreadable weights
            raise malformed_error(spec, exc) from exc
        check_loading_info(spec, info, self.model)
        self._adopt(options, device=device)

    @classmethod
    def from_objects(cls, model, tokenizer, *, spec: str, options: dict[str, str] | None = None,
                     device: str | None = None) -> HFClassifierModel:
        """The adapter over a sequence-classification ``model`` and its ``tokenizer`` already in memory, labelled
        ``spec``: the same checks, head mapping, batching, truncation, precision, recheck and fingerprint as an
        ``hf:`` spec of the folder they were saved to. ``options``: the spec options that do not load anything
        (``labels``, ``max_length``, ``device``, ``dtype``, ``recheck``, ``valence``, ``task``). The model is placed
        on ``device`` in the ``dtype`` option's precision and put in eval mode in place; a decoder's tokenizer gets
        its pad token as :meth:`_pad_decoder` says."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(_OBJECT_OPTIONS))
        if unknown:
            raise ModelSpecError(f"unknown option {unknown[0]!r} for the model {spec!r}; available: "
                                 f"{', '.join(_OBJECT_OPTIONS)}.", fix="remove it or use one of the listed options.")
        self = cls.__new__(cls)
        self.spec = spec
        self.tokenizer, self.model = tokenizer, model
        _checked_max_length_option(options.get("max_length") or None, spec=spec)
        self._adopt(options, device=device)
        return self

    def _adopt(self, options: dict[str, str], *, device: str | None) -> None:
        """Everything after the weights are in memory: the tokenizer check, the head and its valence mapping, the
        task, the decoder's padding, ``max_length``, placement and precision, the probe forward pass and the
        fingerprint."""
        spec = self.spec
        max_length = options.get("max_length") or None
        check_tokenizer(self.tokenizer, spec=spec, model=self.model)
        labels = [x.strip() for x in options["labels"].split(",")] if options.get("labels") else None
        config = self.model.config
        self.head = valence.read_head(config.id2label, labels=labels, mapping=options.get("valence") or "auto",
                                      multi_label=config.problem_type == "multi_label_classification")
        self.roles = self.head.roles
        self._emotion_index = self._task_index(options.get("task") or "valence")
        if self.roles is None:
            self.no_score_reason = f"no valence mapping for this head ({self.head.mapping}; try ?valence=emotion)"
        self._pad_decoder()
        self.max_length = self._checked_max_length(max_length)
        self._place(options.get("device") or device, options.get("dtype", "float32"), recheck=options.get("recheck"))
        check_forward(self, spec=spec)
        self.recheck_counts = {"texts": 0, "rechecked": 0}  # the load probe is not a scored text
        self._fingerprint = digest("hf", _weights_digest(self.model), self.roles, self.max_length, self.precision_key,
                                   valence.MAPPING_VERSION, self.head.mapping, self.head.multi_label, self.task,
                                   self.tokenizer.padding_side, _tokenizer_digest(self.tokenizer),
                                   _config_digest(self.model.config))

    def _task_index(self, task: str) -> int | None:
        """``task=<emotion>``: the output index whose native label is that emotion (the score is its probability)."""
        if task not in TASKS:
            raise ModelSpecError(f"unknown task {task!r} in model spec {self.spec!r}; available: {', '.join(TASKS)}.",
                                 fix="use task=anger, fear, joy or sadness with an emotion head.")
        if task == "valence":
            return None
        names = [n.strip().lower() for n in self.head.names]
        if task not in names:
            raise ModelSpecError(f"task={task} needs a head with a {task!r} label; this head has {self.head.names}.",
                                 fix="use an emotion head (e.g. j-hartmann/emotion-english-distilroberta-base) or "
                                     "drop the task option.")
        self.task = task
        self.no_score_reason = ""
        return names.index(task)

    def _pad_decoder(self) -> None:
        """Decoder classifiers (GPT-2, …) without a pad token: pad with EOS, on the right (see the module doc)."""
        if self.tokenizer.pad_token is None:
            if self.tokenizer.eos_token is None:
                raise ModelSpecError(f"{self.spec}: the tokenizer has neither a pad nor an EOS token.",
                                     fix="save the model with a tokenizer that defines pad_token.")
            self.tokenizer.pad_token = self.tokenizer.eos_token
        if self.model.config.pad_token_id is None:
            self.model.config.pad_token_id = self.tokenizer.pad_token_id
        if not self.model.config.is_encoder_decoder and self.model.config.model_type in _DECODERS:
            self.tokenizer.padding_side = "right"

    def _predictions(self, probs: np.ndarray, truncated: np.ndarray) -> Predictions:
        top_label, top_score, class_probs = valence.native(probs, self.head.names)
        if self._emotion_index is not None:
            score = np.clip(probs[:, self._emotion_index].astype(float), 0.0, 1.0)
            label = [""] * len(probs)
        else:
            score, label = valence.from_head(probs, self.head)
        return Predictions(score, label, truncated, top_label, top_score, class_probs)

    def _checked_max_length(self, requested: str | None) -> int:
        """The model's own limit, or ``requested`` when it lies between the special tokens + 1 and the position
        limit (below, every text would be cut to nothing; above, the position embeddings run out)."""
        if requested is None:
            return self._model_max_length()
        value = int(requested)
        least = self.tokenizer.num_special_tokens_to_add(pair=False) + 1
        positions = getattr(self.model.config, "max_position_embeddings", None)
        most = int(positions) - (2 if self.model.config.model_type in ("roberta", "xlm-roberta") else 0) \
            if positions else None
        if value < least or (most is not None and value > most):
            raise ModelSpecError(f"max_length={value} in {self.spec!r} is outside this model's range "
                                 f"[{least}, {most if most is not None else '∞'}].",
                                 fix="use a value in that range, or drop max_length for the model's own limit.")
        return value

    def _model_max_length(self) -> int:
        declared = getattr(self.tokenizer, "model_max_length", None)
        if declared and declared < 100_000:
            return int(declared)
        positions = getattr(self.model.config, "max_position_embeddings", 512)
        return int(positions) - (2 if self.model.config.model_type in ("roberta", "xlm-roberta") else 0)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def _boundary_distance(self, probs: np.ndarray) -> np.ndarray:
        """Half the top-two gap of each vector an output is the argmax of (:func:`half_gaps`): the native classes
        (``top_label``) and, where the head maps to a valence label, the values ``label`` is the argmax of
        (normalised sigmoids of a multi-label head, polarity groups summed), as
        :func:`toolkit.models.valence.from_head` derives it."""
        p = np.asarray(probs, dtype=float)
        distance = half_gaps(p)
        roles = self.head.roles
        if roles is None or self._emotion_index is not None:
            return distance
        if self.head.multi_label:
            p = p / np.clip(p.sum(axis=1, keepdims=True), 1e-12, None)
        if not (isinstance(roles[0], int) or len(set(roles)) == len(roles)):
            groups = [r for r in ("negative", "neutral", "positive") if r in roles]
            p = np.stack([p[:, [i for i, r in enumerate(roles) if r == g]].sum(axis=1) for g in groups], axis=1)
        return np.minimum(distance, half_gaps(p))

    def _class_probabilities(self, encoded, model) -> np.ndarray:
        import torch

        logits = model(**encoded).logits.float()
        if self.head.multi_label:
            return torch.sigmoid(logits).cpu().numpy()
        return torch.softmax(logits, dim=-1).cpu().numpy()
