"""The shared loopback chat server (tests/loopback_chat.py): what it records, what it sends, and that closing it
frees the socket."""
import json
import urllib.error
import urllib.request

import pytest
from loopback_chat import LoopbackChat, completion


def _post(url, data, headers=None):
    request = urllib.request.Request(url, data=data, headers=headers or {}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_records_each_request_and_sends_the_reply_functions_answer():
    replies = [(503, b"<html>busy</html>"), (200, completion("hi"))]
    with LoopbackChat(reply=lambda request: replies.pop(0)) as chat:
        assert chat.url.startswith("http://127.0.0.1:") and chat.url.endswith("/v1")
        status, headers, raw = _post(chat.url + "/chat/completions", b"not json", {"X-Test": "1"})
        assert (status, raw, headers["Content-Type"]) == (503, b"<html>busy</html>", None)
        status, headers, raw = _post(chat.url + "/chat/completions", json.dumps({"model": "m"}).encode(),
                                     {"Content-Type": "application/json"})
        assert status == 200 and headers["Content-Type"] == "application/json"
        assert json.loads(raw)["choices"][0]["message"] == {"role": "assistant", "content": "hi"}
    first, second = chat.requests
    assert (first.path, first.raw, first.body, first.headers["X-Test"]) == ("/v1/chat/completions", b"not json",
                                                                            None, "1")
    assert second.body == {"model": "m"}


def test_close_stops_the_thread_and_closes_the_socket():
    chat = LoopbackChat(reply=lambda request: (200, completion("ok")))
    socket = chat._httpd.socket
    chat.close()
    chat.close()  # a second close is harmless
    assert socket.fileno() == -1 and not chat._thread.is_alive()
    with pytest.raises(OSError):
        _post(chat.url + "/chat/completions", b"{}")
