"""LLM backends and the prompt store: a real HTTP server on loopback, retries, resume, the key never stored."""
import json
import sqlite3

import pytest
from loopback_chat import LoopbackChat, completion

from toolkit.errors import CacheError, InputError, LLMError, UnknownNameError
from toolkit.llm import LLM, OpenAIBackend, PromptStore, backend

KEY = "sk-test-secret-123"
MESSAGES = [{"role": "user", "content": "Say hi"}]


def _echo_after(failures=()):
    """Reply function for a :class:`LoopbackChat` speaking POST /v1/chat/completions: answers the ``failures`` error
    statuses first, then echoes the last message."""
    pending = list(failures)

    def reply(request):
        status = pending.pop(0) if pending else 200
        echo = completion(f"echo: {request.body['messages'][-1]['content']}")
        return status, echo if status == 200 else {"error": "busy"}

    return reply


@pytest.fixture
def server():
    chat = LoopbackChat(reply=_echo_after())
    yield chat
    chat.close()


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("BTCSAM_TEST_KEY", KEY)


def _openai(url, **kw):
    return OpenAIBackend(base_url=url, model="tiny-chat", api_key_env="BTCSAM_TEST_KEY", backoff=0.01, **kw)


def test_openai_backend_speaks_the_protocol(server):
    reply = _openai(server.url, temperature=0.0, max_tokens=7).complete(MESSAGES)
    assert reply == "echo: Say hi"
    (request,) = server.requests
    assert request.path == "/v1/chat/completions" and request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.body == {"model": "tiny-chat", "messages": MESSAGES, "temperature": 0.0, "max_tokens": 7}


def test_openai_backend_retries_429_and_500():
    chat = LoopbackChat(reply=_echo_after([429, 500]))
    try:
        assert _openai(chat.url).complete(MESSAGES) == "echo: Say hi"
        assert len(chat.requests) == 3
    finally:
        chat.close()


def test_openai_backend_gives_up_after_retries():
    chat = LoopbackChat(reply=_echo_after([503] * 5))
    try:
        with pytest.raises(LLMError, match="TK501.*HTTP 503"):
            _openai(chat.url, retries=2).complete(MESSAGES)
        assert len(chat.requests) == 3
    finally:
        chat.close()


def test_missing_key_variable_is_a_coded_error(server, monkeypatch):
    monkeypatch.delenv("BTCSAM_TEST_KEY")
    with pytest.raises(InputError, match="TK102.*BTCSAM_TEST_KEY"):
        _openai(server.url).complete(MESSAGES)
    assert server.requests == []


def test_resume_over_http_asks_only_what_is_missing_and_never_stores_the_key(server, tmp_path):
    store = tmp_path / "prompts.sqlite"
    first = LLM(_openai(server.url), store=store)
    assert first.ask("etsg", MESSAGES) == "echo: Say hi"
    again = LLM(_openai(server.url), store=store)  # a new run on the same store
    assert again.ask("etsg", MESSAGES) == "echo: Say hi"
    assert again.ask("etsg", [{"role": "user", "content": "More"}]) == "echo: More"
    assert len(server.requests) == 2 and again.calls == 1
    dump = "\n".join(sqlite3.connect(store).iterdump())
    assert KEY not in dump and "echo: More" in dump


class Counting:
    identity = "fake:counting"

    def __init__(self):
        self.calls = 0

    def complete(self, messages):
        self.calls += 1
        return f"reply {self.calls}"


def test_prompt_store_keys_by_backend_stage_prompt_and_repeat(tmp_path):
    fake = Counting()
    llm = LLM(fake, store=PromptStore(tmp_path / "s.sqlite"))
    assert llm.ask("bts", MESSAGES) == "reply 1"
    assert llm.ask("bts", MESSAGES) == "reply 1"           # stored: no call
    assert llm.ask("etsg", MESSAGES) == "reply 2"          # other stage
    assert llm.ask("bts", MESSAGES, repeat=1) == "reply 3"  # a new draw of the same prompt
    other = Counting()
    other.identity = "fake:other-settings"
    assert LLM(other, store=llm.store).ask("bts", MESSAGES) == "reply 1" and other.calls == 1
    assert fake.calls == 3 and len(llm.store) == 4


def test_unknown_backend_lists_valid_ones():
    with pytest.raises(UnknownNameError, match="TK103.*hf, openai"):
        backend("claude-local")


def test_hf_backend_runs_a_tiny_local_gpt2(tmp_path):
    pytest.importorskip("transformers")
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    words = "<eos> <unk> user assistant system : say hi the a good bad".split()
    core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<eos>", unk_token="<unk>")
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=len(words), n_positions=64)
                    ).save_pretrained(tmp_path / "gpt2")
    tokenizer.save_pretrained(tmp_path / "gpt2")
    llm = LLM(backend("hf", model=tmp_path / "gpt2", max_new_tokens=5), store=tmp_path / "s.sqlite")
    reply = llm.ask("etsg", MESSAGES)
    assert isinstance(reply, str) and llm.calls == 1
    assert llm.store.get(llm.backend.identity, "etsg", json.dumps(MESSAGES, sort_keys=True)) == reply


def test_prompt_store_refuses_a_foreign_or_corrupt_file_and_adopts_an_unstamped_one(tmp_path):
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE things (x)")
    with pytest.raises(CacheError, match="not a BTC-SAM prompt store") as info:
        PromptStore(foreign)
    assert info.value.code == "TK301"
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"not a database" * 100)
    with pytest.raises(CacheError, match="cannot be read"):
        PromptStore(corrupt)
    with pytest.raises(CacheError, match="not a BTC-SAM prompt store"):
        PromptStore(_score_cache_file(tmp_path))  # a score cache is not a prompt store
    legacy = tmp_path / "legacy.sqlite"  # written before stores were stamped: its paid replies are kept
    with sqlite3.connect(legacy) as db:
        db.execute("CREATE TABLE prompts (backend TEXT, stage TEXT, prompt_hash TEXT, prompt TEXT, reply TEXT, "
                   "PRIMARY KEY (backend, stage, prompt_hash))")
        db.execute("INSERT INTO prompts VALUES ('b', 's', ?, 'p', 'kept')", (PromptStore.key("p"),))
    assert PromptStore(legacy).get("b", "s", "p") == "kept"


def _score_cache_file(folder):
    from toolkit.cache import ScoreCache

    ScoreCache(folder / "scores.sqlite").close()
    return folder / "scores.sqlite"
