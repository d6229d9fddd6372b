"""Hugging Face hub helpers (infrastructure under every model family and the local-LLM client).

Whether the hub can be reached (:func:`probe_hub`: one TCP connection to ``HF_ENDPOINT``'s host, or the proxy that
would carry it, remembered per process), why hub ids load from the HF cache only (:func:`offline_reason`), how a
target resolves (:func:`resolve_target`: a local folder, or a hub id searched in the cache only when offline), the
coded error for a model that did not load (:func:`hub_load_error`), and the checks that refuse a folder that would
score garbage before loading (:func:`check_tokenizer_files`, :func:`check_config_file`) or after
(:func:`check_tokenizer`). Used by :mod:`toolkit.models.hf`, :mod:`toolkit.models.minilm` and :mod:`toolkit.llm`.
"""
from __future__ import annotations

import difflib
import json
import os
import re
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from toolkit.errors import ModelSpecError, redact

_TRUE = ("1", "true", "yes", "on")
_OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


def hub_offline() -> bool:
    """Whether ``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` is set (in the environment now, or in
    ``huggingface_hub``'s constants, read when it was imported)."""
    try:
        from huggingface_hub import constants
    except ImportError:
        constants = None
    return any(os.environ.get(name, "").strip().lower() in _TRUE for name in _OFFLINE_VARIABLES) \
        or bool(getattr(constants, "HF_HUB_OFFLINE", False))


PROBE_TIMEOUT_S = 3.0
"""How long :func:`probe_hub` waits for the hub (name lookup and TCP connection together)."""

_PROBES: dict[tuple[str, int], tuple[str, float]] = {}  # address → (reason, when probed)
PROBE_MEMORY_S = 60.0  # a failed probe is believed this long (a network blip must not poison a kernel); success: always
_PROBE_LOCK = threading.Lock()


def hub_endpoint() -> str:
    """The hub URL ``huggingface_hub`` sends requests to: ``HF_ENDPOINT`` as it read it at import (its default
    ``https://huggingface.co`` when unset or not installed)."""
    try:
        from huggingface_hub import constants

        return str(constants.ENDPOINT)
    except ImportError:
        return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def _probe_address(endpoint: str) -> tuple[str, int, str]:
    """``(host, port, via)``: where a request to ``endpoint`` first connects: the endpoint itself, or the HTTP(S)
    proxy set in the environment for its scheme (unless ``no_proxy`` exempts the host); ``via`` names the proxy."""
    import urllib.request

    parts = urlsplit(endpoint)
    scheme, host = parts.scheme or "https", parts.hostname or ""
    port = parts.port or (443 if scheme == "https" else 80)
    proxy = urllib.request.getproxies().get(scheme) or urllib.request.getproxies().get("all")
    if proxy and host and not urllib.request.proxy_bypass(host):
        pp = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        if pp.hostname:
            return pp.hostname, pp.port or (443 if pp.scheme == "https" else 80), f" through the proxy {redact(proxy)}"
    return host, port, ""


def probe_hub(*, endpoint: str | None = None, timeout: float = PROBE_TIMEOUT_S, refresh: bool = False) -> str:
    """Whether the Hugging Face hub can be reached: ``""`` when it can, else why not (a sentence naming the endpoint).

    One TCP connection to ``endpoint`` (default :func:`hub_endpoint`, i.e. ``HF_ENDPOINT``), or to the proxy the
    environment sets for it, within ``timeout`` seconds, name lookup included (it runs in a daemon thread, so a
    hanging DNS cannot stall the caller). The answer is remembered per address — a success for the life of the
    process, a failure for :data:`PROBE_MEMORY_S` seconds — so a second hub id does not wait again and a network
    blip does not last; ``refresh=True`` probes anew."""
    endpoint = (endpoint or hub_endpoint()).rstrip("/")
    host, port, via = _probe_address(endpoint)
    if not host:
        return f"the hub endpoint {endpoint!r} names no host"
    with _PROBE_LOCK:
        if not refresh and _remembered(host, port) is not None:
            return _remembered(host, port)
        outcome: list[str] = []

        def connect() -> None:
            try:
                socket.create_connection((host, port), timeout=timeout).close()
                outcome.append("")
            except OSError as exc:
                outcome.append(str(exc.strerror or exc or type(exc).__name__).lower())

        start = time.perf_counter()
        worker = threading.Thread(target=connect, name="toolkit-hub-probe", daemon=True)
        worker.start()
        worker.join(timeout)
        if outcome and not outcome[0]:
            reason = ""
        else:
            why = outcome[0] if outcome else f"no answer within {timeout:g} s"
            reason = (f"the Hugging Face hub at {endpoint}{via} cannot be reached from this machine ({why}, "
                      f"after {time.perf_counter() - start:.1f} s)")
        _PROBES[(host, port)] = (reason, time.monotonic())
        return reason


def _remembered(host: str, port: int) -> str | None:
    """The remembered probe of this address: ``""`` (reachable), a failure of the last :data:`PROBE_MEMORY_S`
    seconds, or None (never probed, or the failure is older: probe again)."""
    reason, when = _PROBES.get((host, port), (None, 0.0))
    if reason is None or (reason and time.monotonic() - when > PROBE_MEMORY_S):
        return None
    return reason


def offline_reason() -> str:
    """Why hub ids load from the HF cache only right now: ``HF_HUB_OFFLINE`` set, the remembered outcome of a failed
    :func:`probe_hub`, or ``""`` (online, or not probed yet). Never probes."""
    for name in _OFFLINE_VARIABLES:
        if os.environ.get(name, "").strip().lower() in _TRUE:
            return f"{name} is set"
    if hub_offline():
        return "HF_HUB_OFFLINE is set"
    host, port, _ = _probe_address(hub_endpoint())
    return _remembered(host, port) or ""


def looks_local(target: str) -> bool:
    """True when ``target`` reads as a file-system path rather than a hub id (``owner/name`` or ``name``): it starts
    with ``.``, ``/`` or ``~``, holds a backslash or two slashes, or is a single name close to a folder in the
    current directory (a typo of it)."""
    if target.startswith((".", "/", "~")) or "\\" in target or target.count("/") >= 2 or re.match(r"^[A-Za-z]:",
                                                                                                   target):
        return True
    if "/" not in target:
        return bool(difflib.get_close_matches(target, [p.name for p in Path.cwd().iterdir() if p.is_dir()], n=1,
                                              cutoff=0.8))
    return False


def resolve_target(target: str, *, hub: bool = False) -> tuple[str, bool]:
    """``(target, local_files_only)``: an existing folder loads locally; a missing one that looks local
    (:func:`looks_local`) fails at once with "folder not found" instead of retrying the hub; a hub id loads from the
    HF cache only when ``HF_HUB_OFFLINE`` is set or the hub cannot be reached (:func:`probe_hub`, once per process),
    so a model that is not in the cache fails in seconds, not after the hub client's retries. ``hub=True`` skips the
    local-path guess."""
    local = Path(target).expanduser()
    if local.exists():
        return str(local), True
    if not hub and looks_local(target):
        near = difflib.get_close_matches(local.name, [p.name for p in local.parent.iterdir()], n=1, cutoff=0.6) \
            if local.parent.is_dir() else []
        raise ModelSpecError(f"model folder {target!r} not found" + (f" (did you mean {near[0]!r}?)" if near else "")
                             + ".", fix="check the path; to load a hub id that looks like a path, write it as "
                                        "owner/name or add ?hub=1 to the spec.")
    return target, hub_offline() or bool(probe_hub())


def hub_load_error(target: str, exc: Exception, *, what: str) -> ModelSpecError:
    """TK201 for a model that did not load: when only the HF cache was searched (offline, or the hub unreachable),
    the message says why and the fix names a local folder or a filled cache; otherwise the loader's own reason."""
    reason = "" if Path(target).expanduser().exists() else offline_reason()
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if not reason:
        return ModelSpecError(f"cannot load {target!r} as {what}: {exc}",
                              fix="give a local folder written by save_pretrained (hf:/path/to/folder), or a hub "
                                  "id with the network available (offline, only models already in the Hugging Face "
                                  "cache load).")
    try:
        from huggingface_hub import constants

        cache = f" ({constants.HF_HUB_CACHE})"
    except ImportError:
        cache = ""
    return ModelSpecError(
        f"cannot load {target!r} as {what}: {reason}, so only the Hugging Face cache{cache} was searched, and it "
        f"does not hold this model ({first})",
        fix=f"use a local folder written by save_pretrained, as the spec hf:/path/to/folder; or fill the Hugging Face "
            f"cache on a machine with the network (huggingface-cli download {target}), copy it here and set the "
            f"environment variable HF_HUB_OFFLINE to 1; if the hub should be reachable, check HF_ENDPOINT and the "
            f"proxy settings.")


TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "tokenizer.model", "spiece.model",
                   "sentencepiece.bpe.model", "source.spm", "vocab.model", "bpe.codes", "sentencepiece.model")
"""Files of which a local model folder needs at least one for its tokenizer (what ``save_pretrained`` writes)."""
PROBE_SENTENCE = "The film was good, but the ending was bad and I did not like the music."
"""Ordinary English every tokenizer of an English sentiment model must represent with more than unknown tokens."""


def check_tokenizer_files(target: str) -> None:
    """A local folder with no tokenizer file (``model.save_pretrained`` alone) is refused (TK201): transformers
    would build a tokenizer of the special tokens only, read every word as unknown and score every text alike."""
    folder = Path(target).expanduser()
    if not folder.is_dir() or not (folder / "config.json").is_file():
        return
    names = {p.name for p in folder.iterdir()}
    if names & set(TOKENIZER_FILES) or any(n.endswith(".model") for n in names):
        return
    raise ModelSpecError(
        f"the model folder {str(folder)!r} has no tokenizer files (none of {', '.join(TOKENIZER_FILES)}); it holds "
        f"{', '.join(sorted(names)) or 'nothing'}. Loaded as it is, every word would be an unknown token and every "
        "text would get the same score.",
        fix="save the tokenizer beside the model: AutoTokenizer.from_pretrained(<the base model>)"
            f".save_pretrained({str(folder)!r}).")


_SIZES = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
          "max_position_embeddings", "num_labels", "n_embd", "n_layer", "n_head", "dim", "n_layers", "n_heads")


def check_config_file(target: str) -> None:
    """A local folder whose ``config.json`` is not a JSON object, or sets a size (hidden size, layers, heads,
    vocabulary, positions) that is not a positive whole number, is refused (TK201) naming the field."""
    path = Path(target).expanduser() / "config.json"
    if not path.is_file():
        return
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelSpecError(f"{str(path)!r} is not a readable JSON file ({type(exc).__name__}: {exc}).",
                             fix="save the model again with save_pretrained(), which writes config.json.") from exc
    if not isinstance(config, dict):
        raise ModelSpecError(f"{str(path)!r} holds a JSON {type(config).__name__}, not the object of settings a "
                             "model config is.", fix="save the model again with save_pretrained().")
    bad = [f"{k}={config[k]!r}" for k in _SIZES if config.get(k) is not None  # None: the architecture's default
           and not (isinstance(config[k], int) and not isinstance(config[k], bool) and config[k] > 0)]
    if bad:
        raise ModelSpecError(f"{str(path)!r} sets {', '.join(bad)}: sizes must be positive whole numbers.",
                             fix="use the config.json saved with these weights (save_pretrained writes both).")


def check_tokenizer(tokenizer, *, spec: str, model=None) -> None:
    """Refuse (TK201) a tokenizer that cannot represent ordinary English (:data:`PROBE_SENTENCE` tokenises to unknown
    tokens only) or that makes ids the model has no embedding for."""
    ids = tokenizer(PROBE_SENTENCE, add_special_tokens=False)["input_ids"]
    unk = getattr(tokenizer, "unk_token_id", None)
    if not ids or (unk is not None and all(i == unk for i in ids)):
        raise ModelSpecError(
            f"{spec}: its tokenizer ({len(tokenizer)} tokens) reads the English probe sentence "
            f"{PROBE_SENTENCE!r} as unknown tokens only, so every text would get the same score.",
            fix="save the tokenizer the model was trained with into its folder (tokenizer.save_pretrained(folder)).")
    embeddings = model.get_input_embeddings() if model is not None else None
    rows = getattr(embeddings, "num_embeddings", None)
    vocabulary = getattr(tokenizer, "vocab_size", None) or len(tokenizer)  # added special tokens may go unused
    if rows is not None and (vocabulary > rows or max(ids) >= rows):
        raise ModelSpecError(
            f"{spec}: the tokenizer has {vocabulary:,} tokens but the model embeds only {rows:,} "
            "(config vocab_size): texts with the other tokens cannot be scored.",
            fix="use the tokenizer the model was trained with, or a config whose vocab_size matches its weights.")


__all__ = ["PROBE_MEMORY_S", "PROBE_SENTENCE", "PROBE_TIMEOUT_S", "TOKENIZER_FILES", "check_config_file", "check_tokenizer", "check_tokenizer_files", "hub_endpoint", "hub_load_error", "hub_offline", "looks_local", "offline_reason", "probe_hub", "resolve_target"]
