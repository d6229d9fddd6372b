"""LLM backends for BTC-SAM behind one interface, and the SQLite prompt store that makes runs resumable.

A backend has an ``identity`` (kind + model + generation settings; never the API key) and ``complete(messages)``
(chat messages ``[{"role": ..., "content": ...}]`` in, reply text out). Two kinds:

- ``hf``: a local Hugging Face causal LM (a folder or hub id already on disk); the tokenizer's chat template is used
  when it has one, else a plain ``role: content`` transcript.
- ``openai``: any OpenAI-compatible ``/chat/completions`` endpoint over HTTP (stdlib ``urllib``); the key is read
  from the environment variable ``api_key_env`` at call time and only ever sent in the ``Authorization`` header.
  429/5xx replies, connection errors and replies that are not JSON or lack ``choices[0].message.content`` (a proxy's
  HTML error page, a truncated body) are retried with exponential backoff, then raise TK501.

:class:`LLM` wraps a backend with a :class:`PromptStore`: ``ask(stage, messages)`` returns the stored reply when the
same backend identity, stage and prompt were asked before, so an interrupted run resumes and asks only for what is
missing.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from toolkit import paths
from toolkit.cache import open_checked
from toolkit.errors import InputError, LLMError, unknown

Messages = Sequence[dict[str, str]]
BACKENDS = ("hf", "openai")
_RETRY_STATUS = (429, 500, 502, 503, 504)


class Backend(Protocol):
    identity: str

    def complete(self, messages: Messages) -> str: ...


class OpenAIBackend:
    """An OpenAI-compatible chat-completions endpoint (``base_url`` up to ``/v1``)."""

    def __init__(self, *, base_url: str, model: str, api_key_env: str = "OPENAI_API_KEY", temperature: float = 0.7,
                 max_tokens: int = 1024, retries: int = 4, backoff: float = 1.0, timeout: float = 120.0) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key_env = model, api_key_env
        self.temperature, self.max_tokens = temperature, max_tokens
        self.retries, self.backoff, self.timeout = retries, backoff, timeout
        self.identity = f"openai:{model}@{base_url.rstrip('/')}?temperature={temperature}&max_tokens={max_tokens}"

    def _key(self) -> str:
        key = os.environ.get(self.api_key_env)
        if not key:
            raise InputError(f"environment variable {self.api_key_env!r} holding the API key is not set.",
                             fix=f"export {self.api_key_env}=<your key>, or pass api_key_env=<the variable's name>.")
        return key

    def complete(self, messages: Messages) -> str:
        return self.chat(messages)["message"]["content"]

    def chat(self, messages: Messages, **extra: object) -> dict:
        """The first choice of a chat completion (``message``, and ``logprobs`` when asked with
        ``logprobs=True, top_logprobs=k`` and the server returns them); ``extra`` goes into the request body."""
        body = json.dumps({"model": self.model, "messages": list(messages), "temperature": self.temperature,
                           "max_tokens": self.max_tokens, **extra}).encode()
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self._key()}"}
        for attempt in range(self.retries + 1):
            try:
                request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
                try:
                    choice = json.loads(raw)["choices"][0]
                    content = choice["message"]["content"]
                    if not isinstance(content, str):
                        raise TypeError(f"content is {type(content).__name__}")
                    return choice
                except (ValueError, KeyError, IndexError, TypeError) as exc:  # transient: retried like a 5xx
                    if attempt == self.retries:
                        raise LLMError(f"{self.url} answered {len(raw)} bytes that are not a chat completion "
                                       f"({type(exc).__name__}: {exc}; starts {raw[:80]!r}), {self.retries + 1} "
                                       "times.", fix="check that the base URL is an OpenAI-compatible /v1 endpoint "
                                                     "(not a proxy or login page) and the model name.") from None
            except urllib.error.HTTPError as exc:
                if exc.code not in _RETRY_STATUS or attempt == self.retries:
                    raise LLMError(f"{self.url} answered HTTP {exc.code}.",
                                   fix="check the base URL, the model name and the key's permissions.") from None
            except (urllib.error.URLError, TimeoutError) as exc:
                if attempt == self.retries:
                    raise LLMError(f"cannot reach {self.url}: {exc}.",
                                   fix="check the base URL and the network.") from None
            time.sleep(self.backoff * 2**attempt)
        raise AssertionError("unreachable")


class HFBackend:
    """A local causal LM loaded with ``transformers`` (no download: pass a local folder)."""

    def __init__(self, *, model: str | Path, max_new_tokens: int = 256, temperature: float = 0.7,
                 seed: int = 0) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from toolkit.models.hf import resolve_target

        target, local_only = resolve_target(str(model))  # a missing local-looking folder fails at once
        kwargs = {"local_files_only": True} if local_only else {}
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(target, **kwargs)
            self.model = AutoModelForCausalLM.from_pretrained(target, **kwargs)
        except (OSError, ValueError) as exc:
            raise LLMError(f"cannot load {target!r} as a causal LM: {exc}",
                           fix="give a local folder written by save_pretrained(), or a hub id already in the "
                               "Hugging Face cache.") from exc
        self.max_new_tokens, self.temperature, self.seed = max_new_tokens, temperature, seed
        self.identity = f"hf:{model}?temperature={temperature}&max_new_tokens={max_new_tokens}&seed={seed}"

    def prompt(self, messages: Messages) -> str:
        """The text the model continues: its chat template with the generation prompt, else a plain transcript."""
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
        return "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant:"

    def complete(self, messages: Messages) -> str:
        import torch

        prompt = self.prompt(messages)
        inputs = self.tokenizer(prompt, return_tensors="pt")
        torch.manual_seed(self.seed)
        sample = self.temperature > 0
        output = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=sample,
                                     temperature=self.temperature if sample else None,
                                     pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id)
        return self.tokenizer.decode(output[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)


def backend(kind: str, **settings) -> Backend:
    """Build a backend by kind: ``hf`` (``model=<local folder>``) or ``openai`` (``base_url=..., model=...``)."""
    if kind not in BACKENDS:
        raise unknown("LLM backend", kind, BACKENDS)
    return HFBackend(**settings) if kind == "hf" else OpenAIBackend(**settings)


APPLICATION_ID = 0x5341_4250  # "SABP"
_SCHEMA = ("CREATE TABLE IF NOT EXISTS prompts (backend TEXT, stage TEXT, prompt_hash TEXT, prompt TEXT, reply TEXT, "
           "PRIMARY KEY (backend, stage, prompt_hash))")


class PromptStore:
    """Every prompt and reply, keyed by (backend identity, stage, SHA-256 of the prompt); a foreign or corrupt file
    is refused like the score cache (:func:`toolkit.cache.open_checked`, TK301)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else paths.cache_dir() / "btcsam_prompts.sqlite"
        open_checked(self.path, application_id=APPLICATION_ID, schema=_SCHEMA, what="BTC-SAM prompt store",
                     legacy_tables=frozenset({"prompts"})).close()

    @staticmethod
    def key(prompt: str) -> str:
        return hashlib.sha256(prompt.encode()).hexdigest()

    def get(self, backend: str, stage: str, prompt: str) -> str | None:
        with sqlite3.connect(self.path) as db:
            row = db.execute("SELECT reply FROM prompts WHERE backend=? AND stage=? AND prompt_hash=?",
                             (backend, stage, self.key(prompt))).fetchone()
        return row[0] if row else None

    def put(self, backend: str, stage: str, prompt: str, reply: str) -> None:
        with sqlite3.connect(self.path) as db:
            db.execute("INSERT OR REPLACE INTO prompts VALUES (?, ?, ?, ?, ?)",
                       (backend, stage, self.key(prompt), prompt, reply))

    def __len__(self) -> int:
        with sqlite3.connect(self.path) as db:
            return db.execute("SELECT COUNT(*) FROM prompts").fetchone()[0]


class LLM:
    """A backend plus its prompt store; ``calls`` counts the replies that were not in the store."""

    def __init__(self, backend: Backend, *, store: PromptStore | str | Path | None = None) -> None:
        self.backend = backend
        self.store = store if isinstance(store, PromptStore) else PromptStore(store)
        self.calls = 0

    def ask(self, stage: str, messages: Messages, *, repeat: int = 0) -> str:
        """The reply to ``messages`` at ``stage``; ``repeat`` > 0 asks the same prompt again as a new draw."""
        prompt = json.dumps(list(messages), sort_keys=True) + (f"\n#repeat={repeat}" if repeat else "")
        reply = self.store.get(self.backend.identity, stage, prompt)
        if reply is None:
            reply = self.backend.complete(messages)
            self.calls += 1
            self.store.put(self.backend.identity, stage, prompt, reply)
        return reply
