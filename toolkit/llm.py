"""The LLM client (infrastructure): backends behind one interface, and the SQLite prompt store that makes runs
resumable. Used by BTC-SAM's generator, LLMs as models under test (:mod:`toolkit.models.llm`) and BiasFinder's
occupation fit (:mod:`toolkit.studies.biasfinder.generator.fit`).

A backend has an ``identity`` (kind + model + generation settings; never the API key) and ``complete(messages)``
(chat messages ``[{"role": ..., "content": ...}]`` in, reply text out). Two kinds:

- ``hf``: a local Hugging Face causal LM (a folder or hub id already on disk); the tokenizer's chat template is used
  when it has one, else a plain ``role: content`` transcript.
- ``openai``: any OpenAI-compatible ``/chat/completions`` endpoint over HTTP (stdlib ``urllib``); the key is read
  from the environment variable ``api_key_env`` at call time and only ever sent in the ``Authorization`` header, to
  the base URL's own origin: a redirect is never followed (TK501 naming its target). 429/5xx replies, connection
  errors and replies that are not JSON or lack ``choices[0].message.content`` (a proxy's HTML error page, a truncated
  body) are retried (``retries``, default 4), waiting as ``Retry-After`` asks or with exponential backoff and saying
  so in one line on stderr, then raise TK501; 401/403 (the key), 404 (URL or model), other 4xx and a reply over
  ``max_reply_bytes`` (default 16 MiB; read no further than that) fail at once. One ``chat`` call, all tries and
  waits together, has a wall-clock ``deadline`` (default 300 s; also against a server that trickles its reply) and
  each connect or socket read a ``timeout`` (default 120 s); a line on stderr every 30 s says what is awaited.

:class:`LLM` wraps a backend with a :class:`PromptStore`: ``ask(stage, messages)`` returns the stored reply when the
same backend identity, stage and prompt were asked before, so an interrupted run resumes and asks only for what is
missing.
"""
from __future__ import annotations

import email.utils
import hashlib
import http.client
import json
import math
import os
import sqlite3
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.message import Message
from pathlib import Path
from typing import Protocol

from toolkit import paths
from toolkit.errors import InputError, LLMError, redact, unknown
from toolkit.hub import (
    check_config_file,
    check_tokenizer,
    check_tokenizer_files,
    hub_load_error,
    offline_reason,
    resolve_target,
)
from toolkit.sqlite import open_checked

Messages = Sequence[dict[str, str]]
BACKENDS = ("hf", "openai")
_RETRY_STATUS = (429, 500, 502, 503, 504)


class Backend(Protocol):
    identity: str

    def complete(self, messages: Messages) -> str: ...


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses every redirect: a 3xx reaches the caller as an ``HTTPError``, so the key never leaves the origin."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # urllib's signature
        return None


@dataclass
class _Reply:
    """One HTTP exchange as the client saw it: the status, the headers, and the body it read (≤ cap + 1 bytes)."""

    status: int
    headers: Message
    body: bytes
    declared: int | None = None
    """The ``Content-Length`` when it is over the cap (the body is then not read)."""


@dataclass
class _Exchange:
    """State shared between the waiting caller and the thread doing one request."""

    timeout: float
    """The socket timeout this request runs with: ``timeout``, or less when the deadline is nearer."""
    phase: str = "the connection and the reply headers"
    received: int = 0
    cancelled: bool = False
    done: threading.Event = field(default_factory=threading.Event)
    reply: _Reply | None = None
    error: BaseException | None = None


@dataclass
class _Failure:
    """Why an attempt gave no chat completion: the message and fix if it is the last, whether to try again, and
    how long the server asked to wait (``Retry-After``)."""

    message: str
    """No full stop at the end: the caller may add the attempt count."""
    fix: str
    retry: bool
    wait: float | None = None


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delay-seconds or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value.strip())
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        seconds = (when - datetime.now(timezone.utc)).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


LIMITS = {"retries": (0, 20), "timeout": (0.0, 3600.0), "deadline": (0.0, 86400.0),
          "max_reply_bytes": (1024, 2**30)}
"""Valid ranges of the OpenAI backend's request settings (``timeout`` and ``deadline`` exclusive at 0)."""


def check_setting(name: str, value: float) -> str | None:
    """None when ``value`` is valid for setting ``name`` (see :data:`LIMITS`), else the valid range in words."""
    low, high = LIMITS[name]
    if isinstance(low, int):
        ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
        return None if ok else f"a whole number from {low} to {high}"
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and low < value <= high
    return None if ok else f"a number of seconds above {low:g} and at most {high:g}"


class OpenAIBackend:
    """An OpenAI-compatible chat-completions endpoint (``base_url`` up to ``/v1``).

    Each :meth:`chat` has a wall-clock ``deadline`` (seconds) for all its attempts and waits together; ``timeout``
    bounds each connect and socket read, ``retries`` the tries after the first, ``max_reply_bytes`` a reply's size.
    Redirects are never followed. ``spec`` (the model spec the backend serves, if any) makes the fix texts name the
    spec's options (``?key_env=``) rather than this constructor's (``api_key_env=``)."""

    progress_every = 30.0
    """Seconds between "still waiting" lines while one request is pending."""

    def __init__(self, *, base_url: str, model: str, api_key_env: str = "OPENAI_API_KEY", temperature: float = 0.7,
                 max_tokens: int = 1024, retries: int = 4, backoff: float = 1.0, timeout: float = 120.0,
                 deadline: float = 300.0, max_reply_bytes: int = 16 * 2**20, spec: str | None = None) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key_env, self.spec = model, api_key_env, spec
        self.temperature, self.max_tokens = temperature, max_tokens
        for name, value in (("retries", retries), ("timeout", timeout), ("deadline", deadline),
                            ("max_reply_bytes", max_reply_bytes)):
            valid = check_setting(name, value)
            if valid:
                raise InputError(f"{self._option(name)} is {value!r}; it must be {valid}.",
                                 fix=f"give {self._option(name)} {valid}.")
        self.retries, self.backoff, self.timeout = retries, backoff, timeout
        self.deadline, self.max_reply_bytes = deadline, max_reply_bytes
        self._opener = urllib.request.build_opener(_NoRedirect)
        # deadline, timeout, retries and the size cap do not change answers: not part of the identity
        # credentials in the URL are never recorded (provenance, cache keys)
        self.identity = redact(f"openai:{model}@{base_url.rstrip('/')}?temperature={temperature}"
                               f"&max_tokens={max_tokens}")

    def _option(self, name: str) -> str:
        """How the user sets ``name`` here: ``?key_env=`` in a model spec, ``api_key_env=`` as a keyword."""
        if self.spec is None:
            return f"{name}="
        return "?key_env=" if name == "api_key_env" else f"?{name}="

    def _key(self) -> str:
        key = os.environ.get(self.api_key_env)
        if not key:
            where = " in the model spec" if self.spec is not None else ""
            raise InputError(f"environment variable {self.api_key_env!r} holding the API key is not set.",
                             fix=f"export {self.api_key_env}=<your key>, or name the variable that holds it with "
                                 f"{self._option('api_key_env')}<VARIABLE>{where}.")
        return key

    def complete(self, messages: Messages) -> str:
        return self.chat(messages)["message"]["content"]

    def chat(self, messages: Messages, **extra: object) -> dict:
        """The first choice of a chat completion (``message``, and ``logprobs`` when asked with
        ``logprobs=True, top_logprobs=k`` and the server returns them); ``extra`` goes into the request body.
        Transient failures are retried within the deadline; anything else, or the last failure, raises TK501."""
        body = json.dumps({"model": self.model, "messages": list(messages), "temperature": self.temperature,
                           "max_tokens": self.max_tokens, **extra}).encode()
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self._key()}"}
        deadline_at = time.monotonic() + self.deadline
        tries = self.retries + 1
        for attempt in range(1, tries + 1):
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            outcome = self._verdict(self._send(request, deadline_at, attempt))
            if not isinstance(outcome, _Failure):
                return outcome
            if not outcome.retry or attempt == tries:
                times = f" (attempt {attempt} of {tries})" if outcome.retry else ""
                raise LLMError(f"{outcome.message}{times}.", fix=outcome.fix)
            self._pause(outcome, attempt, deadline_at)
        raise AssertionError("unreachable")

    def _pause(self, failure: _Failure, attempt: int, deadline_at: float) -> None:
        """Wait before the next try: the server's ``Retry-After`` if it sent one, else exponential backoff; one line
        on stderr says so. A wait that would pass the deadline fails now instead."""
        wait = failure.wait if failure.wait is not None else self.backoff * 2 ** (attempt - 1)
        left = deadline_at - time.monotonic()
        if wait >= left:
            asked = "the server asks to wait" if failure.wait is not None else "the next try would be"
            raise LLMError(f"{failure.message}; {asked} {wait:.1f} s, past the {self.deadline:g} s deadline "
                           f"(attempt {attempt} of {self.retries + 1}).",
                           fix=f"{failure.fix} Or raise the deadline ({self._option('deadline')}).")
        why = "as its Retry-After asks" if failure.wait is not None else "backoff"
        print(redact(f"waiting {wait:.1f} s ({why}) before retry {attempt}/{self.retries} of {self.url}: "
                     f"{failure.message.removeprefix(self.url + ' ')}"), file=sys.stderr, flush=True)
        time.sleep(wait)

    def _send(self, request: urllib.request.Request, deadline_at: float, attempt: int) -> _Exchange:
        """One request in a helper thread, waited for until the deadline (a line on stderr every
        :attr:`progress_every` s); past the deadline the request is abandoned and TK501 says what was pending."""
        exchange = _Exchange(timeout=max(0.001, min(self.timeout, deadline_at - time.monotonic())))
        threading.Thread(target=self._exchange, args=(request, exchange), daemon=True, name="llm-request").start()
        start = time.monotonic()
        while not exchange.done.wait(max(0.0, min(self.progress_every, deadline_at - time.monotonic()))):
            if time.monotonic() >= deadline_at:
                exchange.cancelled = True
                raise LLMError(f"no complete reply from {self.url} within the {self.deadline:g} s deadline "
                               f"(attempt {attempt} of {self.retries + 1}; was waiting for {self._pending(exchange)}).",
                               fix=f"check that the endpoint is up and not overloaded; for a slow model raise the "
                                   f"deadline ({self._option('deadline')}) or lower max_tokens.")
            print(redact(f"still waiting for {self.url}: {self._pending(exchange)}, {time.monotonic() - start:.0f} s "
                         f"into attempt {attempt} (deadline {self.deadline:g} s)"), file=sys.stderr, flush=True)
        return exchange

    @staticmethod
    def _pending(exchange: _Exchange) -> str:
        if exchange.phase == "the reply body":
            return f"the reply body, {exchange.received} bytes so far"
        return exchange.phase

    def _exchange(self, request: urllib.request.Request, exchange: _Exchange) -> None:
        """The helper thread's work: send, read the status, headers and at most ``max_reply_bytes`` + 1 bytes."""
        try:
            try:
                with self._opener.open(request, timeout=exchange.timeout) as response:
                    declared = response.headers.get("Content-Length", "").strip()
                    if declared.isdigit() and int(declared) > self.max_reply_bytes:
                        exchange.reply = _Reply(response.status, response.headers, b"", int(declared))
                    else:
                        exchange.reply = _Reply(response.status, response.headers, self._read(response, exchange))
            except urllib.error.HTTPError as error:  # any status but 2xx, redirects included: read a snippet
                with error:
                    exchange.reply = _Reply(error.code, error.headers, self._read(error, exchange, cap=2048))
        except (OSError, http.client.HTTPException, ValueError) as exc:
            exchange.error = exc
        finally:
            exchange.done.set()

    def _read(self, response, exchange: _Exchange, *, cap: int | None = None) -> bytes:
        """At most ``cap`` + 1 bytes of the body (default cap: ``max_reply_bytes``), chunk by chunk, stopping
        early once the caller has given up."""
        cap = self.max_reply_bytes if cap is None else cap
        exchange.phase = "the reply body"
        chunks, size = [], 0
        read = getattr(response, "read1", None) or response.read
        while size <= cap and not exchange.cancelled:
            chunk = read(min(65536, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            exchange.received = size
        return b"".join(chunks)

    def _verdict(self, exchange: _Exchange) -> dict | _Failure:
        """The first choice of a good reply, or why there is none and whether trying again can help."""
        outcome = exchange.reply
        if outcome is None:
            return self._transport_failure(exchange)
        if outcome.declared is not None or len(outcome.body) > self.max_reply_bytes:
            size = f"of {outcome.declared} bytes" if outcome.declared is not None else "longer"
            return _Failure(f"{self.url} sent a reply {size} (HTTP {outcome.status}), over the "
                            f"{self.max_reply_bytes}-byte cap; it was read no further and not asked again",
                            fix=f"check that the base URL is an OpenAI-compatible /v1 endpoint (a chat completion "
                                f"is a few KiB); if such long replies are expected, raise "
                                f"{self._option('max_reply_bytes')}.", retry=False)
        if 300 <= outcome.status < 400:
            return self._redirect_failure(outcome)
        if outcome.status >= 400:
            return self._status_failure(outcome)
        return self._parse(outcome.body)

    def _transport_failure(self, exchange: _Exchange) -> _Failure:
        reason = getattr(exchange.error, "reason", exchange.error)
        if isinstance(reason, TimeoutError):
            return _Failure(f"{self.url} sent nothing for {exchange.timeout:g} s (waiting for "
                            f"{self._pending(exchange)}; per-read timeout {self.timeout:g} s, deadline "
                            f"{self.deadline:g} s)",
                            fix=f"check that the endpoint is up; for a slow model raise {self._option('timeout')}.",
                            retry=True)
        return _Failure(f"cannot reach {self.url}: {reason}", fix="check the base URL and the network.", retry=True)

    def _redirect_failure(self, reply: _Reply) -> _Failure:
        target = reply.headers.get("Location") or "(no Location header)"
        return _Failure(f"{self.url} answered HTTP {reply.status}, a redirect to {target}; redirects are not "
                        "followed, so neither the request nor the API key was sent there",
                        fix="if you trust that address, use it as the base URL (e.g. https:// rather than http://, "
                            "or the path up to /v1 it names).", retry=False)

    def _status_failure(self, reply: _Reply) -> _Failure:
        said = reply.body[:200].decode("utf-8", "replace").strip()
        message = f"{self.url} answered HTTP {reply.status}" + (f" ({said!r})" if said else "")
        if reply.status in (401, 403):
            return _Failure(message + ": the API key was refused", retry=False,
                            fix=f"check the key in ${self.api_key_env} and its permissions for model "
                                f"{self.model!r}.")
        if reply.status == 404:
            return _Failure(message, retry=False, fix=f"check the base URL (up to /v1) and the model name "
                                                      f"{self.model!r}.")
        if reply.status == 429:
            return _Failure(message + ": rate limited", retry=True, wait=retry_after(reply.headers.get("Retry-After")),
                            fix="rate limited: wait or lower the request rate (fewer runs at once), or allow more "
                                f"time with {self._option('retries')} and {self._option('deadline')}.")
        if reply.status in _RETRY_STATUS:
            return _Failure(message, retry=True, wait=retry_after(reply.headers.get("Retry-After")),
                            fix="the endpoint is failing or overloaded; try again later.")
        return _Failure(message, retry=False, fix=f"check the request the server refused: the model name "
                                                  f"{self.model!r}, max_tokens and the options it supports.")

    def _parse(self, raw: bytes) -> dict | _Failure:
        try:
            choice = json.loads(raw)["choices"][0]
            content = choice["message"]["content"]
            if not isinstance(content, str):
                raise TypeError(f"content is {type(content).__name__}")
            check_logprobs(choice.get("logprobs"))
            return choice
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError) as exc:  # transient:
            # retried like a 5xx (RecursionError: JSON nested past Python's limit; AttributeError: a choice that is
            # not an object)
            return _Failure(f"{self.url} answered {len(raw)} bytes that are not a chat completion "
                            f"({type(exc).__name__}: {exc}; starts {raw[:80]!r})", retry=True,
                            fix="check that the base URL is an OpenAI-compatible /v1 endpoint (not a proxy or "
                                "login page) and the model name.")


def check_logprobs(logprobs: object) -> None:
    """Raise TypeError/ValueError unless ``logprobs`` is absent or an OpenAI ``logprobs`` object: ``content`` a list
    of ``{"token": str, "logprob": number <= 0, "top_logprobs": [same] }`` (a log-probability above 0, or not a
    finite number, is no probability)."""
    if logprobs is None:
        return
    if not isinstance(logprobs, dict):
        raise TypeError(f"logprobs is {type(logprobs).__name__}, not an object")
    content = logprobs.get("content")
    if content is None:
        return
    if not isinstance(content, list):
        raise TypeError(f"logprobs.content is {type(content).__name__}, not a list")
    for item in content:
        alternatives = item.get("top_logprobs") if isinstance(item, dict) else None
        if alternatives is not None and not isinstance(alternatives, list):
            raise TypeError(f"top_logprobs is {type(alternatives).__name__}, not a list")
        for entry in [item, *(alternatives or [])]:
            if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
                raise TypeError(f"a logprobs entry is not an object with a string token: {str(entry)[:60]}")
            value = entry.get("logprob")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value > 1e-6:
                raise ValueError(f"logprob {value!r} of token {entry['token']!r} is not a number <= 0")


class HFBackend:
    """A local causal LM loaded with ``transformers`` (no download: pass a local folder)."""

    def __init__(self, *, model: str | Path, max_new_tokens: int = 256, temperature: float = 0.7,
                 seed: int = 0) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        target, local_only = resolve_target(str(model))  # a missing local-looking folder fails at once
        kwargs = {"local_files_only": True} if local_only else {}
        check_config_file(target)  # a malformed folder, or one without a tokenizer, is TK201 before loading
        check_tokenizer_files(target)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(target, **kwargs)
            self.model = AutoModelForCausalLM.from_pretrained(target, **kwargs)
        except (OSError, ValueError) as exc:
            if offline_reason():  # the hub cannot be reached: say so, and how to work offline (TK201)
                raise hub_load_error(target, exc, what="a causal LM") from exc
            raise LLMError(f"cannot load {target!r} as a causal LM: {exc}",
                           fix="give a local folder written by save_pretrained(), or a hub id already in the "
                               "Hugging Face cache.") from exc
        check_tokenizer(self.tokenizer, spec=f"hf:{model}", model=self.model)
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
    is refused like the score cache (:func:`toolkit.sqlite.open_checked`, TK301)."""

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


__all__ = ["APPLICATION_ID", "BACKENDS", "LIMITS", "LLM", "Backend", "HFBackend", "Messages", "OpenAIBackend",
           "PromptStore", "backend", "check_logprobs", "check_setting", "retry_after"]
