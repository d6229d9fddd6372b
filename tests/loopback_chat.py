"""A stand-in for an OpenAI-compatible endpoint, shared by the LLM tests: :class:`LoopbackChat` serves HTTP on
127.0.0.1 (port 0, so the OS picks a free one) from a daemon thread, records every POST and answers it through a
function the test gives. Nothing leaves the machine.

    with LoopbackChat(reply=lambda request: (200, completion("Positive"))) as chat:
        OpenAIBackend(base_url=chat.url, ...)       # chat.url ends in /v1
        assert chat.requests[0].body["model"] == ...
"""
from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Request:
    """One POST as the server saw it: ``body`` is the parsed JSON, or None when the bytes in ``raw`` are not JSON."""

    path: str
    headers: dict[str, str]
    raw: bytes
    body: Any


Reply = Callable[[Request], tuple[int, bytes | dict]]
"""A test's answer to a request: an HTTP status and the payload (bytes sent as they are, a dict as JSON)."""


def completion(content: str) -> dict:
    """A minimal chat completion whose one choice is an assistant message saying ``content``."""
    return {"choices": [{"message": {"role": "assistant", "content": content}}]}


class LoopbackChat:
    """Answers each POST with ``reply(request)`` after appending the request to ``requests``. The two run under one
    lock, so a reply function may keep state (a queue of failures, say); if it raises, the client sees the connection
    dropped and the traceback goes to stderr. ``close()`` (or leaving a ``with`` block) stops the thread and closes the
    listening socket."""

    def __init__(self, *, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def _respond(self, request: Request) -> tuple[int, bytes, dict[str, str]]:
        """Record ``request`` and return the status, payload bytes and extra headers to send back."""
        with self._lock:
            self.requests.append(request)
            status, payload = self.reply(request)
        if isinstance(payload, bytes):
            return status, payload, {}
        return status, json.dumps(payload).encode(), {"Content-Type": "application/json"}

    def close(self) -> None:
        """Stop serving, close the socket and wait (at most 10 s) for the thread; safe to call twice."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> LoopbackChat:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _parse(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _handler_for(chat: LoopbackChat) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, payload, headers = chat._respond(Request(self.path, dict(self.headers), raw, _parse(raw)))
            self.send_response(status)
            for name, value in {**headers, "Content-Length": str(len(payload))}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:  # keep test output quiet
            pass

    return Handler
