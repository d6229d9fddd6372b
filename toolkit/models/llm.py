"""LLMs as models under test: ``llm:hf:<id-or-path>[?options]`` and ``llm:openai:<model>@<base_url>[?options]``.

One zero-shot prompt (:data:`PROMPT`, editable: ``prompt_file=<path>`` with a ``{text}`` slot and ``{labels}`` for the
label words; part of the fingerprint) asks for the sentiment, as a single chat message. BTC-SAM (Appendix B) tested
Phi-3-mini-4k-instruct, Mistral-7B-Instruct-v0.3 and DeepSeek-R1-Distill-Qwen-1.5B this way.

- ``llm:hf:`` loads a local causal LM through the BTC-SAM backend (:class:`toolkit.llm.HFBackend`,
  chat template when the tokenizer has one) and reads, with no sampling, the next-token probabilities of the label
  words' first tokens (with and without a leading space; a first token two label words share is left out) right
  after the prompt; renormalised over the label words
  they are ``class_probs`` and give the valence as a 3-class head does. When the chat template opens a think section
  for the answer (DeepSeek-R1 distills end their generation prompt with ``<think>``), an empty one is closed first so
  the next token is the answer. Batched by the engine (prompts padded on the right, logits read at each prompt's last
  token, so batched = one by one); a text longer than ``max_length`` minus the prompt is cut and flagged.
- ``llm:openai:`` asks any OpenAI-compatible endpoint (:class:`toolkit.llm.OpenAIBackend`: key from the
  environment variable ``key_env``, default ``OPENAI_API_KEY``, never stored) at temperature 0. When the reply has
  token log-probabilities (asked with ``logprobs=1``, the default), the top alternatives of the answer's first label
  token give ``class_probs`` and ``top_score``; otherwise the answer is parsed (``class_probs`` "" and ``top_score``
  NaN record that), valence 0 / 0.5 / 1 from the label. A ``<think>…</think>`` section is skipped; an answer with no
  label word (or a think section that never closes) is ``top_label`` "unparseable" with a NaN score: counted by the
  engine (warning, ``ScoreRecord.no_score``), never dropped.

Options: ``labels=negative,neutral,positive`` (the label words, each naming a polar role), ``prompt_file=``,
``max_length=`` and ``device=`` (hf), ``key_env=``, ``logprobs=0|1``, ``max_tokens=`` (openai; default 2048 so
reasoning models can finish thinking). How the openai client waits (none of these change answers or the fingerprint):
``deadline=`` seconds for one text, all tries and waits included (default 300), ``timeout=`` seconds per connect or
socket read (default 120), ``retries=`` (0-20, default 4; 429/5xx, connection errors and replies that are not a chat
completion are retried, waiting as ``Retry-After`` asks or with exponential backoff, one line on stderr per wait),
``max_reply_bytes=`` (default 16 MiB; a longer reply fails at once, unretried). A redirect is never followed: it is
an error naming its target, and the key is not sent there.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np

from toolkit.errors import ModelSpecError, unknown
from toolkit.llm import HFBackend, OpenAIBackend, check_setting
from toolkit.models import valence
from toolkit.models.base import Predictions, SentimentModel, digest
from toolkit.models.hf import _weights_digest, pick_device
from toolkit.models.registry import scheme

PROMPT = ("What is the sentiment of the following text? Answer with exactly one word: {labels}.\n\n"
          "Text: {text}\n\nSentiment:")
"""The default zero-shot prompt: ``{labels}`` is the label words joined by ", ", ``{text}`` the text."""
LABELS = ("negative", "neutral", "positive")
UNPARSEABLE = "unparseable"
KINDS = ("hf", "openai")
_OPTIONS = {"hf": ("labels", "prompt_file", "max_length", "device"),
            "openai": ("labels", "prompt_file", "key_env", "logprobs", "max_tokens", "deadline", "timeout", "retries",
                       "max_reply_bytes")}
_REQUEST_SETTINGS = {"deadline": float, "timeout": float, "retries": int, "max_reply_bytes": int}
"""Spec options passed to the endpoint's client as they are; they do not change answers, so not the fingerprint."""
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)


def parse_spec(spec: str) -> tuple[str, str, dict[str, str]]:
    """``llm:<kind>:<target>?k=v&…`` → kind, target, options; unknown kinds or options are an error (TK103/TK201)."""
    body = spec[len("llm:"):]
    kind, _, rest = body.partition(":")
    if kind not in KINDS:
        raise unknown("LLM kind", kind, [f"llm:{k}:" for k in KINDS])
    target, _, query = rest.partition("?")
    if not target:
        raise ModelSpecError(f"model spec {spec!r} names no model.",
                             fix="use 'llm:hf:<local folder or hub id>' or 'llm:openai:<model>@<base_url>'.")
    options = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    bad = sorted(set(options) - set(_OPTIONS[kind]))
    if bad:
        raise ModelSpecError(f"unknown option {bad[0]!r} in model spec {spec!r}; available: "
                             f"{', '.join(_OPTIONS[kind])}.", fix="remove it or use one of the listed options.")
    return kind, target, options


def endpoint(spec: str, target: str) -> tuple[str, str]:
    """``<model>@<base_url>`` → (model, base_url), split at the ``@`` before ``http(s)://`` (a model name may hold
    ``@``; a URL's credentials do too). A missing part, or credentials in the URL (``https://user:key@host``), is
    ModelSpecError: the key goes in an environment variable named by ``key_env=``, never in the spec."""
    match = re.fullmatch(r"(.+?)@(https?://.+)", target)
    if match is None:
        raise ModelSpecError(f"model spec {spec!r} needs '<model>@<base_url>'.",
                             fix="e.g. llm:openai:gpt-4o-mini@https://api.openai.com/v1")
    model, base_url = match.groups()
    if "@" in base_url.split("://", 1)[1].split("/", 1)[0]:
        raise ModelSpecError(f"the base URL of model spec {spec!r} holds credentials (user:key@host).",
                             fix="put the key in an environment variable and name it: ?key_env=MY_KEY (default "
                                 "OPENAI_API_KEY); leave it out of the URL.")
    return model, base_url


def answer_of(reply: str) -> str | None:
    """The answer part of a reply: after a closed think section (also when only ``</think>`` survives, as with
    R1 distills whose template opens it); None when a think section never closes (the answer was cut off)."""
    if "</think>" in reply:
        return reply.rsplit("</think>", 1)[1]
    if "<think>" in reply:
        return None
    return _THINK.sub("", reply)


def parse_label(answer: str | None, words: list[str]) -> str | None:
    """The first label word in ``answer`` (case-insensitive, whole word), or None."""
    if answer is None:
        return None
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)
    found = pattern.search(answer)
    return found.group(1).lower() if found else None


def distribution_from_logprobs(content: list[dict], words: list[str]) -> np.ndarray | None:
    """Class probabilities over ``words`` from an OpenAI ``logprobs.content`` list: at the answer's first token
    (after any think section) that starts a label word, the top alternatives that start exactly one label word add
    their probabilities to it; renormalised. None when no such token or no mass, or when the list is malformed
    (entries that are not objects, a log-probability that is not a number <= 0): the answer text is parsed then."""
    try:
        return _distribution(content, words)
    except (TypeError, ValueError, AttributeError, KeyError, OverflowError):
        return None


def _distribution(content: list[dict], words: list[str]) -> np.ndarray | None:
    full = "".join(str(item.get("token", "")) for item in content)
    think_end = full.rfind("</think>") + len("</think>") if "</think>" in full else 0
    offset = 0
    for item in content:
        offset += len(str(item.get("token", "")))
        if offset <= think_end:
            continue  # inside (or closing) the think section
        piece = item.get("token", "").strip().lower()
        if not piece or not any(w.startswith(piece) for w in words):
            continue
        mass = np.zeros(len(words))
        for alt in item.get("top_logprobs") or [item]:
            token = str(alt.get("token", "")).strip().lower()
            hits = [i for i, w in enumerate(words) if token and w.startswith(token)]
            if len(hits) == 1:
                logprob = float(alt["logprob"])
                if not logprob <= 1e-6:  # above 0 (or NaN) is no log-probability
                    raise ValueError(f"logprob {logprob!r}")
                mass[hits[0]] += math.exp(min(logprob, 0.0))
        return mass / mass.sum() if mass.sum() > 0 else None
    return None


class _LLMClassifier(SentimentModel):
    """Shared by both kinds: label words and their roles, the prompt, the conversion to predictions."""

    no_score_reason = "unparseable LLM answers (top_label 'unparseable')"

    def _setup(self, spec: str, options: dict[str, str]) -> None:
        self.spec = spec
        self.words = [w.strip().lower() for w in (options.get("labels") or ",".join(LABELS)).split(",")]
        self.roles = valence.head_roles(dict(enumerate(self.words)))
        self.template = _prompt_text(spec, options["prompt_file"]) if options.get("prompt_file") else PROMPT
        if "{text}" not in self.template:
            raise ModelSpecError(f"the prompt of {spec!r} has no {{text}} slot.", fix="put {text} where the text goes.")

    def messages(self, text: str) -> list[dict[str, str]]:
        content = self.template.replace("{labels}", ", ".join(self.words)).replace("{text}", text)
        return [{"role": "user", "content": content}]

    def _from_distribution(self, probs: np.ndarray, truncated: np.ndarray) -> Predictions:
        score, label = valence.from_probabilities(probs, self.roles)
        return Predictions(score, label, truncated, *valence.native(probs, self.words))


class LocalLLMClassifier(_LLMClassifier):
    """``llm:hf:``: next-token probabilities of the label words from a local causal LM (see the module doc)."""

    batch_size = 16

    def __init__(self, spec: str, *, device: str | None = None) -> None:
        _, target, options = parse_spec(spec)
        self._setup(spec, options)
        try:
            self.backend = HFBackend(model=target, temperature=0.0)
        except ModelSpecError:  # already coded (e.g. the hub cannot be reached): not wrapped again
            raise
        except (OSError, ValueError) as exc:
            raise ModelSpecError(f"cannot load {target!r} as a causal LM: {exc}",
                                 fix="give a local folder written by save_pretrained(), or a hub id with the "
                                     "network available.") from exc
        self.tokenizer, self.model = self.backend.tokenizer, self.backend.model
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "right"
        self.device = pick_device(options.get("device") or device)
        self.model.to(self.device).eval()
        self.token_ids = self._label_tokens()
        positions = getattr(self.model.config, "max_position_embeddings", None) or 2048
        self.max_length = int(options.get("max_length") or positions)
        self._overhead = len(self._encode(self._prompt("")))
        if self._overhead >= self.max_length:
            raise ModelSpecError(f"the prompt alone has {self._overhead} tokens, max_length is {self.max_length}.",
                                 fix="raise max_length or shorten the prompt.")
        self._fingerprint = digest("llm:hf", _weights_digest(self.model), self.template, self.words, self.max_length,
                                   self._prompt("{text}"), valence.MAPPING_VERSION)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def _encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def _label_tokens(self) -> list[list[int]]:
        """Per label word, the first tokens of ``word`` and `` word`` that no other label word starts with; a word
        left with none is an error (its probability cannot be told apart)."""
        firsts = [{self._encode(v)[0] for v in (w, " " + w) if self._encode(v)} for w in self.words]
        out = []
        for k, (word, ids) in enumerate(zip(self.words, firsts)):
            others = set().union(*(f for j, f in enumerate(firsts) if j != k))
            own = sorted(ids - others)
            if not own:
                raise ModelSpecError(f"label word {word!r} starts with the same token as another label word in "
                                     "this tokenizer; their probabilities cannot be told apart.",
                                     fix="choose label words with distinct first tokens (labels=...).")
            out.append(own)
        return out

    def _prompt(self, text: str) -> str:
        prompt = self.backend.prompt(self.messages(text))
        if prompt.rstrip().endswith("<think>"):  # a reasoning model's template opens the think section: close it
            prompt = prompt.rstrip() + "\n\n</think>\n\n"
        return prompt

    def _fit(self, text: str) -> tuple[str, bool]:
        ids = self._encode(text)
        budget = self.max_length - self._overhead
        return (text, False) if len(ids) <= budget else (self.tokenizer.decode(ids[:budget]), True)

    def lengths(self, texts: list[str]) -> list[int]:
        return [self._overhead + len(self._encode(t)) for t in texts]

    def predict(self, texts: list[str]) -> Predictions:
        import torch

        fitted = [self._fit(t) for t in texts]
        prompts = [self._prompt(t) for t, _ in fitted]
        encoded = self.tokenizer(prompts, padding=True, add_special_tokens=False, return_tensors="pt").to(self.device)
        with torch.inference_mode():
            logits = self.model(**encoded).logits.float()
        last = encoded["attention_mask"].sum(dim=1) - 1
        probs = torch.softmax(logits[torch.arange(len(prompts)), last], dim=-1).cpu().numpy()
        mass = np.stack([probs[:, ids].sum(axis=1) for ids in self.token_ids], axis=1)
        return self._from_distribution(mass / mass.sum(axis=1, keepdims=True),
                                       np.array([cut for _, cut in fitted], dtype=bool))


class EndpointLLMClassifier(_LLMClassifier):
    """``llm:openai:<model>@<base_url>``: an OpenAI-compatible endpoint (see the module doc)."""

    batch_size = 8

    def __init__(self, spec: str, *, device: str | None = None) -> None:
        _, target, options = parse_spec(spec)
        self._setup(spec, options)
        model, base_url = endpoint(spec, target)
        self.logprobs = options.get("logprobs", "1").lower() in ("1", "true", "yes")
        self.backend = OpenAIBackend(base_url=base_url, model=model, spec=spec, temperature=0.0,
                                     api_key_env=options.get("key_env") or "OPENAI_API_KEY",
                                     max_tokens=max_tokens(spec, options), **request_settings(spec, options))
        self.answers = {"logprobs": 0, "parsed": 0, UNPARSEABLE: 0}
        self._fingerprint = digest("llm:openai", self.backend.identity, self.template, self.words, self.logprobs,
                                   valence.MAPPING_VERSION)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        extra = {"logprobs": True, "top_logprobs": 5} if self.logprobs else {}
        rows = []
        for text in texts:
            choice = self.backend.chat(self.messages(text), **extra)
            reply = choice.get("message", {}).get("content") or ""
            content = (choice.get("logprobs") or {}).get("content") or []
            dist = distribution_from_logprobs(content, self.words) if content else None
            word = parse_label(answer_of(reply), self.words)
            if dist is not None and answer_of(reply) is not None:
                self.answers["logprobs"] += 1
                rows.append((dist, None))
            elif word is not None:
                self.answers["parsed"] += 1
                rows.append((None, word))
            else:
                self.answers[UNPARSEABLE] += 1
                rows.append((None, None))
        score, label, top_label, top_score, class_probs = [], [], [], [], []
        weight = {"negative": 0.0, "neutral": 0.5, "positive": 1.0}
        for dist, word in rows:
            if dist is not None:
                s, lab = valence.from_probabilities(dist[None, :], self.roles)
                score.append(float(s[0]))
                label.append(lab[0])
                top_label.append(self.words[int(dist.argmax())])
                top_score.append(float(dist.max()))
                class_probs.append(json.dumps({w: round(float(p), 6) for w, p in zip(self.words, dist)}))
                continue
            role = self.roles[self.words.index(word)] if word is not None else None
            score.append(weight[role] if role is not None else math.nan)
            label.append(role or "")
            top_label.append(word or UNPARSEABLE)
            top_score.append(math.nan)
            class_probs.append("")
        return Predictions(np.array(score), label, np.zeros(len(texts), dtype=bool), top_label, np.array(top_score),
                           class_probs)


def _prompt_text(spec: str, path: str) -> str:
    """The prompt template in ``path`` (UTF-8 text); a missing, unreadable or binary file is TK201."""
    try:
        return Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise ModelSpecError(f"the prompt_file {path!r} of {spec!r} cannot be read as UTF-8 text ({reason}).",
                             fix="point prompt_file= at a UTF-8 text file holding the prompt with a {text} slot.") \
            from None


def request_settings(spec: str, options: dict[str, str]) -> dict[str, float | int]:
    """``deadline=``, ``timeout=``, ``retries=``, ``max_reply_bytes=`` from the spec, checked against the client's
    ranges (TK201 naming the valid range)."""
    settings = {}
    for name, kind in _REQUEST_SETTINGS.items():
        if name not in options:
            continue
        try:
            value = kind(options[name])
        except ValueError:
            value = options[name]
        valid = check_setting(name, value)
        if valid:
            raise ModelSpecError(f"option {name}={options[name]!r} in model spec {spec!r} must be {valid}.",
                                 fix=f"give {name}= {valid}, or leave it out for the default.")
        settings[name] = value
    return settings


def max_tokens(spec: str, options: dict[str, str]) -> int:
    text = options.get("max_tokens") or "2048"
    if not text.isdigit() or int(text) < 1:
        raise ModelSpecError(f"option max_tokens={text!r} in model spec {spec!r} must be a whole number from 1.",
                             fix="give max_tokens= a positive whole number, or leave it out for 2048.")
    return int(text)


@scheme("llm:", patterns={"llm:hf:<hub-id-or-local-path>": ("torch", "transformers"),
                          "llm:openai:<model>@<base_url>": ()})
def load_llm(spec: str, *, device: str | None = None) -> SentimentModel:
    """The ``llm:hf:`` or ``llm:openai:`` classifier for ``spec`` (an unknown kind is TK103 naming both)."""
    kind, _, _ = parse_spec(spec)
    return (LocalLLMClassifier if kind == "hf" else EndpointLLMClassifier)(spec, device=device)
