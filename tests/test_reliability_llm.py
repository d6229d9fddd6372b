"""The OpenAI-compatible client under hostile or failing endpoints: redirects, trickling and oversize replies,
rate limits with Retry-After, settable deadline/timeout/retries, and fix texts that name the right option.
Every server here binds 127.0.0.1 on port 0, runs in daemon threads and ends its handlers in bounded loops."""
import email.utils
import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from toolkit.errors import InputError, LLMError, ModelSpecError
from toolkit.llm import OpenAIBackend, retry_after
from toolkit.models import load

KEY_ENV = "RELIABILITY_LLM_KEY"
KEY = "sk-reliability-secret"
MESSAGES = [{"role": "user", "content": "hi"}]
GOOD = json.dumps({"choices": [{"message": {"role": "assistant", "content": "positive"}}]}).encode()


class Scripted:
    """A loopback server answering request n (0-based) with ``script(handler, n)``; records when each came."""

    def __init__(self, script):
        self.times, self.auth = [], []
        self.ended = []  # the requests whose script ran to its end (the client waited for all of it)
        self.release = threading.Event()  # set at close: a script waiting on it returns
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self):
                if self.headers.get("Content-Length"):
                    self.rfile.read(int(self.headers["Content-Length"]))
                outer.times.append(time.monotonic())
                outer.auth.append(self.headers.get("Authorization"))
                try:
                    script(self, len(outer.times) - 1)
                except OSError:  # the client hung up: stop
                    pass

            do_POST = do_GET = _any

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.url = self.base + "/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def reply(handler, status=200, body=GOOD, headers=()):
    handler.send_response(status)
    for name, value in headers:
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.fixture
def serve(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    servers = []

    def start(script):
        servers.append(Scripted(script))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def backend(url, **kw):
    return OpenAIBackend(base_url=url, model="m", api_key_env=KEY_ENV, backoff=0.01, **kw)


# ---- redirects --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirect_is_an_error_naming_the_target_and_the_key_never_goes_there(serve, status):
    other = serve(lambda h, n: reply(h, body=json.dumps({"choices": [{"message": {"content": "stolen"}}]}).encode()))
    target = other.base + "/collect"
    first = serve(lambda h, n: reply(h, status, b"", [("Location", target)]))
    with pytest.raises(LLMError, match=f"HTTP {status}, a redirect to {target}") as info:
        backend(first.url).complete(MESSAGES)
    assert info.value.code == "TK501" and "neither the request nor the API key was sent there" in str(info.value)
    assert other.times == [] and other.auth == []  # the other origin got no request at all
    assert len(first.times) == 1 and first.auth == [f"Bearer {KEY}"]  # a redirect is not retried


# ---- deadline, timeout, retries -----------------------------------------------------------------------------------

def trickle(handler, n, ended=None):
    handler.send_response(200)
    handler.send_header("Content-Length", "100000")
    handler.end_headers()
    for _ in range(40):  # one byte every 0.3 s, at most 12 s
        handler.wfile.write(b" ")
        handler.wfile.flush()
        time.sleep(0.3)
    if ended is not None:
        ended.append(n)  # every byte sent: the client read on to the end


def test_trickling_reply_fails_at_the_spec_deadline(serve):
    ended = []
    server = serve(lambda h, n: trickle(h, n, ended))
    model = load(f"llm:openai:m@{server.url}?key_env={KEY_ENV}&deadline=1")
    with pytest.raises(LLMError, match="within the 1 s deadline") as info:
        model.predict(["a text"])
    assert ended == []  # it gave up while the server still trickled (it used to read on for as long as bytes came)
    assert info.value.code == "TK501" and f"{server.url}/chat/completions" in str(info.value)
    assert "waiting for the reply body" in str(info.value) and "?deadline=" in info.value.fix
    assert len(server.times) == 1


def test_silent_endpoint_uses_the_spec_timeout_and_retries(serve, capsys):
    def silent(handler, n):  # answers nothing until the test ends (at most 60 s), then hangs up
        if not server.release.wait(60):
            server.ended.append(n)

    server = serve(silent)
    model = load(f"llm:openai:m@{server.url}?key_env={KEY_ENV}&timeout=0.3&retries=1&deadline=120")
    model.backend.backoff = 0.01
    with pytest.raises(LLMError, match=r"sent nothing for 0.3 s .*attempt 2 of 2") as info:
        model.predict(["a text"])
    assert len(server.times) == 2 and server.ended == []  # both attempts given up on, neither waited out
    assert "?timeout=" in info.value.fix
    waits = [line for line in capsys.readouterr().err.splitlines() if line.startswith("waiting ")]
    assert len(waits) == 1 and "before retry 1/1" in waits[0]


def test_a_slow_reply_is_reported_while_waited_for(serve, capsys):
    server = serve(lambda h, n: (time.sleep(0.8), reply(h)))
    client = backend(server.url)
    client.progress_every = 0.2
    assert client.complete(MESSAGES) == "positive"
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("still waiting for")]
    assert lines and all(f"{server.url}/chat/completions" in line and "deadline 300 s" in line for line in lines)


# ---- reply size -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "read-until-close"])
def test_oversize_reply_is_read_no_further_than_the_cap_and_not_retried(serve, monkeypatch, declared):
    cap, size = 4096, 2 * 2**20

    def huge(handler, n):
        handler.send_response(200)
        if declared:
            handler.send_header("Content-Length", str(size))
        handler.end_headers()
        handler.wfile.write(b"x" * size)

    read = []
    for name in ("read", "read1"):
        original = getattr(http.client.HTTPResponse, name)

        def counting(self, *args, _original=original, **kwargs):
            data = _original(self, *args, **kwargs)
            read.append(len(data))
            return data

        monkeypatch.setattr(http.client.HTTPResponse, name, counting)
    server = serve(huge)
    with pytest.raises(LLMError, match="over the 4096-byte cap") as info:
        backend(server.url, max_reply_bytes=cap).complete(MESSAGES)
    assert info.value.code == "TK501" and "max_reply_bytes=" in info.value.fix
    assert sum(read) <= cap + 1 and len(server.times) == 1


def test_reply_size_cap_from_the_spec(serve):
    server = serve(lambda h, n: reply(h, body=GOOD + b" " * 5000))
    with pytest.raises(LLMError, match="over the 2048-byte cap") as info:
        load(f"llm:openai:m@{server.url}?key_env={KEY_ENV}&max_reply_bytes=2048&logprobs=0").predict(["a text"])
    assert "?max_reply_bytes=" in info.value.fix
    assert load(f"llm:openai:m@{server.url}?key_env={KEY_ENV}&logprobs=0").predict(["a text"]).label == ["positive"]


# ---- statuses and Retry-After ---------------------------------------------------------------------------------------

def test_429_retry_after_is_waited_and_announced(serve, capsys):
    server = serve(lambda h, n: reply(h, 429, b"{}", [("Retry-After", "1")]) if n == 0 else reply(h))
    assert backend(server.url).complete(MESSAGES) == "positive"
    assert len(server.times) == 2 and server.times[1] - server.times[0] >= 0.9
    (line,) = [line for line in capsys.readouterr().err.splitlines() if line]
    assert line.startswith("waiting 1.0 s (as its Retry-After asks) before retry 1/4 of http://127.0.0.1")
    assert "HTTP 429" in line


def test_retry_after_past_the_deadline_fails_at_once(serve):
    server = serve(lambda h, n: reply(h, 429, b"", [("Retry-After", "600")]))
    start = time.monotonic()
    with pytest.raises(LLMError, match=r"asks to wait 600.0 s, past the 5 s deadline") as info:
        backend(server.url, deadline=5).complete(MESSAGES)
    assert time.monotonic() - start < 60 and len(server.times) == 1  # not the 600 s asked: load-tolerant bound
    assert "rate limited: wait or lower the request rate" in info.value.fix


def test_retry_after_reads_seconds_and_http_dates():
    assert retry_after("2") == 2.0 and retry_after(" 0 ") == 0.0 and retry_after("-5") == 0.0
    soon = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 28 <= retry_after(soon) <= 30
    assert retry_after(email.utils.formatdate(time.time() - 60, usegmt=True)) == 0.0
    assert retry_after(None) is None and retry_after("soon") is None and retry_after("nan") is None


@pytest.mark.parametrize("status, says, asked", [
    (429, "rate limited: wait or lower the request rate", 3),
    (401, "check the key in $RELIABILITY_LLM_KEY", 1),
    (403, "check the key in $RELIABILITY_LLM_KEY", 1),
    (404, "check the base URL (up to /v1) and the model name 'm'", 1),
    (400, "check the request the server refused", 1),
])
def test_each_failing_status_has_its_own_fix_and_only_transient_ones_are_retried(serve, status, says, asked):
    server = serve(lambda h, n: reply(h, status, b'{"error": "no"}', [("Retry-After", "0")]))
    with pytest.raises(LLMError, match=f"HTTP {status}") as info:
        backend(server.url, retries=2).complete(MESSAGES)
    assert says in info.value.fix and len(server.times) == asked
    assert '{"error": "no"}' in str(info.value)  # what the server said is shown
    if status == 429:
        assert "key" not in info.value.fix


# ---- settings: validation, the fingerprint, the missing key --------------------------------------------------------

@pytest.mark.parametrize("option, valid", [
    ("deadline=0", "above 0 and at most 86400"), ("deadline=abc", "above 0 and at most 86400"),
    ("timeout=-1", "above 0 and at most 3600"), ("retries=21", "from 0 to 20"), ("retries=1.5", "from 0 to 20"),
    ("max_reply_bytes=10", "from 1024 to 1073741824"), ("max_tokens=0", "whole number from 1"),
])
def test_bad_request_settings_in_the_spec_name_the_valid_range(option, valid):
    with pytest.raises(ModelSpecError, match=valid) as info:
        load(f"llm:openai:m@http://127.0.0.1:9/v1?{option}")
    assert info.value.code == "TK201" and option.split("=")[0] in str(info.value)


def test_bad_request_settings_as_keywords_are_input_errors():
    with pytest.raises(InputError, match="retries= is -1; it must be a whole number from 0 to 20"):
        OpenAIBackend(base_url="http://127.0.0.1:9/v1", model="m", retries=-1)
    with pytest.raises(InputError, match="deadline= is 0"):
        OpenAIBackend(base_url="http://127.0.0.1:9/v1", model="m", deadline=0)


def test_request_settings_are_applied_and_leave_the_fingerprint_alone():
    base = "llm:openai:m@http://127.0.0.1:9/v1"
    plain = load(base)
    tuned = load(base + "?deadline=10&timeout=5&retries=1&max_reply_bytes=2048")
    assert (tuned.backend.deadline, tuned.backend.timeout, tuned.backend.retries,
            tuned.backend.max_reply_bytes) == (10.0, 5.0, 1, 2048)
    assert (plain.backend.deadline, plain.backend.retries) == (300.0, 4)
    assert tuned.fingerprint == plain.fingerprint and tuned.backend.identity == plain.backend.identity
    assert load(base + "?max_tokens=10").fingerprint != plain.fingerprint  # options that change answers do change it


def test_missing_key_fix_names_the_option_of_its_context(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(InputError) as spec_error:
        load("llm:openai:m@http://127.0.0.1:9/v1?key_env=NO_SUCH_KEY_VAR").predict(["a text"])
    assert "?key_env=<VARIABLE> in the model spec" in spec_error.value.fix
    assert "api_key_env" not in spec_error.value.fix
    with pytest.raises(InputError) as kwarg_error:
        OpenAIBackend(base_url="http://127.0.0.1:9/v1", model="m", api_key_env="NO_SUCH_KEY_VAR").complete(MESSAGES)
    assert "api_key_env=<VARIABLE>" in kwarg_error.value.fix and "?key_env" not in kwarg_error.value.fix
