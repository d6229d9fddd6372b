"""Where the engine's batches run. ``local`` (default): in this process, in order — except that a CPU-bound model
that declares itself safe to fork (``fork_safe``: the lexicons, a ``py:`` callable with ``fn.fork_safe = True``) is
spread over worker processes (:class:`ProcessExecutor`, one per core by default, see :func:`for_model`): each worker
inherits the loaded model by ``fork``, batches come back in order, and the driver alone writes the cache. ``ray``:
sharded over Ray actors (``pip install -e .[ray]``), each loading the model once by its spec (one model's pool at a
time); results come back as they finish and the driver alone writes the cache, so resume works the same. At most
``2 × workers`` batches are in flight on Ray, and one per worker process (bounded memory).

Forked workers (:func:`map_in_processes`: the lexicon workers and BiasFinder's spaCy parsers, :func:`parse`) ignore
SIGINT, so Ctrl-C in a terminal (which reaches the whole process group) is handled by the driver alone; SIGINT or
SIGTERM to the driver first kills its workers, then does what it did before (KeyboardInterrupt; the command line's
:class:`Terminated`; otherwise SIGTERM's default exit), and leaving the workers' loop by any exception stops them too,
so no worker outlives its run. :func:`note_interrupt` records on the exception where the run was (the stage, the
workers stopped, what was scored), for the command line's one-line message.

An interrupt is never lost. Python runs a signal handler wherever the main thread is; when that is a finalizer (a
generator closed by the garbage collector, a ``__del__``), the KeyboardInterrupt it raises cannot propagate and
Python only prints it — while the workers are already stopped. Such an interrupt is kept (``sys.unraisablehook``)
and raised again at the next checkpoint (:func:`check_interrupted`: every result of the workers, every scored batch,
before a run's files are written); a worker pipe that breaks after the handler stopped the workers raises the
interrupt, not BrokenPipeError; and :func:`map_in_processes` ends its workers and puts the handlers back before it
yields its last result, so a consumer that stops there (``zip``) leaves nothing for a finalizer to do.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from toolkit.errors import MissingDependencyError, WorkerError, unknown, warn
from toolkit.models import SentimentModel, load
from toolkit.models.base import Predictions

Batch = list[str]


class LocalExecutor:
    name = "local"

    def run(self, model: SentimentModel, batches: Iterable[Batch]) -> Iterator[tuple[Batch, Predictions]]:
        for batch in batches:
            yield batch, model.predict(batch)


PROCESS_MIN_TEXTS = 2_000
"""Below this many texts to score, a fork-safe model stays in process (starting workers costs more)."""
_STOP_TIMEOUT_S = 5.0


class Terminated(KeyboardInterrupt):
    """SIGTERM turned into an exception by :func:`raise_on_sigterm` (the command line installs it): a
    KeyboardInterrupt, so no ``except Exception`` swallows it and every cleanup runs as for Ctrl-C."""


def raise_on_sigterm(signum: int, frame: object) -> None:
    """A SIGTERM handler: raise :class:`Terminated` in the main thread."""
    raise Terminated("SIGTERM")


_LOST: list[KeyboardInterrupt] = []
"""Interrupts raised where Python could not propagate them (finalizers), to be raised again by
:func:`check_interrupted`."""


class _KeepLostInterrupts:
    """A ``sys.unraisablehook`` that keeps a KeyboardInterrupt (Ctrl-C, or SIGTERM under the command line) for
    :func:`check_interrupted` instead of printing it, and passes anything else to the hook it replaced."""

    def __init__(self, previous: Callable) -> None:
        self.previous = previous

    def __call__(self, unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            _LOST.append(unraisable.exc_value)
            return
        self.previous(unraisable)


def _keep_lost_interrupts() -> None:
    """Install :class:`_KeepLostInterrupts` unless it is the hook already (a test runner may swap hooks per test)."""
    if not isinstance(sys.unraisablehook, _KeepLostInterrupts):
        sys.unraisablehook = _KeepLostInterrupts(sys.unraisablehook)


def check_interrupted() -> None:
    """Raise the interrupt that arrived where Python could only print it (a finalizer, see the module docstring), if
    any: a checkpoint of every run, so that a Ctrl-C ends the run even when its first KeyboardInterrupt was lost."""
    if _LOST:
        lost = _LOST[0]
        _LOST.clear()
        raise lost


def interrupt_for(signum: int) -> KeyboardInterrupt:
    """The exception a signal raises under the command line: :class:`Terminated` for SIGTERM, else
    KeyboardInterrupt."""
    return Terminated("SIGTERM") if signum == signal.SIGTERM else KeyboardInterrupt()


def note_interrupt(exc: BaseException, **facts: object) -> None:
    """Record ``facts`` (stage, workers, scored, total, cache) on an interrupt on its way out; the innermost record
    of each fact wins. Read with ``getattr(exc, "toolkit_interrupt", {})``."""
    record = getattr(exc, "toolkit_interrupt", None)
    if record is None:
        record = {}
        exc.toolkit_interrupt = record
    for key, value in facts.items():
        record.setdefault(key, value)


@contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM (in the main thread) wait until the block ends, then act: what the block does, such as
    committing a batch and counting it, happens entirely or not at all. The handlers are swapped for a recorder
    (blocking the signals with ``pthread_sigmask`` is not enough: a signal sent to the process may be taken by
    another thread, and its Python handler then runs in the main thread inside the block)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _keep_lost_interrupts()
    caught: list[int] = []
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig, handler in previous.items():
        if handler not in (signal.SIG_IGN, None):
            signal.signal(sig, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if handler not in (signal.SIG_IGN, None):
                signal.signal(sig, handler)
        for sig in dict.fromkeys(caught):
            signal.raise_signal(sig)  # now handled as if it had just arrived


class _StopWorkersOnSignal:
    """While entered (in the main thread): SIGINT and SIGTERM kill ``processes`` first, then go to the handler that
    was there before. In a forked worker that has not yet set its own handlers, SIGINT is ignored and SIGTERM ends
    it."""

    _SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.processes: list = []
        self.signalled: int | None = None  # the signal that stopped the workers, if one did
        self._owner = os.getpid()
        self._previous: dict[int, Any] = {}  # kept after exit: a handler left installed still passes signals on
        self._handler = self._handle

    def __enter__(self) -> "_StopWorkersOnSignal":
        if threading.current_thread() is threading.main_thread():
            _keep_lost_interrupts()
            for sig in self._SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        for sig, previous in self._previous.items():
            if signal.getsignal(sig) == self._handler:  # not if someone replaced it meanwhile
                signal.signal(sig, previous if previous is not None else signal.SIG_DFL)

    def _handle(self, signum: int, frame: object) -> None:
        if os.getpid() != self._owner:
            if signum == signal.SIGTERM:
                os._exit(128 + signum)
            return
        previous = self._previous.get(signum)
        if previous == signal.SIG_IGN:
            return
        stopped = len([p for p in self.processes if p.exitcode is None])
        self.signalled = signum  # before the workers go: a broken pipe from here on is this signal's doing
        self.stop()
        if callable(previous):
            try:
                previous(signum, frame)
            except KeyboardInterrupt as exc:  # raised wherever the driver was: say here what was stopped
                if stopped:  # a guard whose workers had ended already passes the signal on without a count
                    note_interrupt(exc, workers=stopped)
                raise
        else:  # SIG_DFL (or set outside Python): the default action, now that the workers are gone
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    def stop(self) -> int:
        """Kill the processes still running (all before waiting for any); how many there were."""
        running = [p for p in self.processes if p.exitcode is None]
        for process in running:
            process.kill()
        for process in running:
            process.join(_STOP_TIMEOUT_S)
        return len(running)


def _worker_main(conn, fn: Callable[[Any], Any], inherited: list) -> None:
    """A forked worker: apply ``fn`` to each task received until ``None`` or the driver's end closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the process group: the driver handles it
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for other in inherited:  # the driver's ends of this and earlier workers' pipes, copied by fork
        other.close()
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            reply = (True, fn(task))
        except Exception as exc:
            reply = (False, exc)
        try:
            conn.send(reply)
        except (pickle.PicklingError, AttributeError, TypeError):
            conn.send((False, RuntimeError(f"a worker failed and its error cannot be sent: "
                                           f"{traceback.format_exception_only(reply[1])[-1].strip()}")))
        except (BrokenPipeError, OSError):
            return


def map_in_processes(fn: Callable[[Any], Any], tasks: Iterable[Any], *, n_workers: int
                     ) -> Iterator[tuple[Any, Any]]:
    """``(task, fn(task))`` for each task, in order, computed in ``n_workers`` forked workers (``fn`` and what it
    refers to are inherited, not pickled; tasks and results are). One task is in flight per worker. A worker's
    exception is raised here. An interrupt (or any exception) stops the workers: see the module docstring; an
    interrupt leaving here carries ``workers`` (how many were stopped) in :func:`note_interrupt`'s record."""
    context = multiprocessing.get_context("fork")
    check_interrupted()
    last = None
    with _StopWorkersOnSignal() as guard:
        try:
            conns = []
            for _ in range(n_workers):
                mine, theirs = context.Pipe(duplex=True)
                conns.append(mine)
                process = context.Process(target=_worker_main, args=(theirs, fn, list(conns)), daemon=True)
                process.start()
                guard.processes.append(process)
                theirs.close()
            for task, result, final in _round_robin(conns, iter(tasks), guard):
                if final:  # yielded once the workers are gone: nothing is left for a finalizer to stop
                    last = (task, result)
                    break
                yield task, result
                check_interrupted()
            for conn in conns:
                _talk(guard, conn.send, None)
            for process in guard.processes:
                process.join(_STOP_TIMEOUT_S)
        except KeyboardInterrupt as exc:
            note_interrupt(exc, workers=len(guard.processes))
            raise
    check_interrupted()
    if last is not None:
        yield last


def _talk(guard: _StopWorkersOnSignal | None, call: Callable, *args: Any) -> Any:
    """``call(*args)`` on a worker's pipe. A pipe that broke after a signal stopped the workers raises that
    interrupt (an interrupt lost in a finalizer first), never BrokenPipeError or EOFError; otherwise a worker that
    died is RuntimeError."""
    try:
        return call(*args)
    except (EOFError, OSError) as exc:
        check_interrupted()
        if guard is not None and guard.signalled is not None:
            raise interrupt_for(guard.signalled) from None
        if not isinstance(exc, (EOFError, BrokenPipeError, ConnectionResetError)):
            raise
        raise WorkerError("a worker process died before it replied (killed from outside, or out of memory).",
                          fix="re-run the same command: what was scored is in the cache and is not scored again; "
                              "with little memory, pass fewer workers (--n-jobs, --n-process).") from None


def _round_robin(conns: list, tasks: Iterator[Any], guard: _StopWorkersOnSignal | None = None
                 ) -> Iterator[tuple[Any, Any, bool]]:
    """Task ``k`` to worker ``k % n``, results in task order as ``(task, result, last)``; a worker gets its next task
    when it has replied; ``last`` is True for the final result (no task left, none in flight)."""
    in_flight: deque = deque()
    for conn in conns:
        task = next(tasks, None)
        if task is None:
            break
        _talk(guard, conn.send, task)
        in_flight.append((conn, task))
    while in_flight:
        conn, task = in_flight.popleft()
        ok, result = _talk(guard, conn.recv)
        following = next(tasks, None)
        if following is not None:
            _talk(guard, conn.send, following)
            in_flight.append((conn, following))
        if not ok:
            raise result
        yield task, result, not in_flight


def parse(nlp, texts: list[str], *, batch_size: int, n_process: int) -> Iterator:
    """``nlp.pipe(texts, batch_size=batch_size)``'s docs, in order; with ``n_process`` > 1 parsed in that many forked
    workers, batch by batch (the same batches as in one process, so the same docs), which stop on an interrupt
    instead of hanging the driver or outliving it (spaCy's own ``n_process`` does both). A parser that runs in its
    own process (spaCy 2's worker, ``runs_apart``) is never forked; a warning says ``n_process`` does not apply."""
    if n_process > 1 and getattr(nlp, "runs_apart", False):  # a parser in its own process is never forked
        warn(f"n_process={n_process} does not apply to a parser that runs in its own process (spaCy 2's worker "
             "parses one batch ahead of the driver): it parses in one process.")
    if n_process <= 1 or getattr(nlp, "runs_apart", False):
        yield from nlp.pipe(texts, batch_size=batch_size)
        return
    from spacy.tokens import Doc

    def parse_batch(batch: list[str]) -> list[bytes]:
        return [doc.to_bytes() for doc in nlp.pipe(batch, batch_size=batch_size)]

    batches = (texts[start:start + batch_size] for start in range(0, len(texts), batch_size))
    for _, docs in map_in_processes(parse_batch, batches, n_workers=n_process):
        for data in docs:
            yield Doc(nlp.vocab).from_bytes(data)


class ProcessExecutor:
    """Runs a fork-safe model's batches in ``n_jobs`` forked worker processes (default: every core), yielding them
    in submission order (so results and cache contents equal in-process scoring); see :func:`map_in_processes`."""

    name = "processes"

    def __init__(self, *, n_jobs: int | None = None) -> None:
        self.n_jobs = n_jobs or os.cpu_count() or 1

    def run(self, model: SentimentModel, batches: Iterable[Batch]) -> Iterator[tuple[Batch, Predictions]]:
        yield from map_in_processes(model.predict, batches, n_workers=self.n_jobs)


def for_model(model: SentimentModel, executor: "LocalExecutor | RayExecutor | ProcessExecutor", *,
              n_jobs: int | None, n_texts: int) -> "LocalExecutor | RayExecutor | ProcessExecutor":
    """The executor for one model's batches: ``executor``, except that a fork-safe model under the local executor
    goes to a :class:`ProcessExecutor` when ``n_jobs`` asks for more than one process, or (``n_jobs`` None) when
    this machine has several cores and at least :data:`PROCESS_MIN_TEXTS` texts need scoring."""
    if not isinstance(executor, LocalExecutor) or not getattr(model, "fork_safe", False):
        return executor
    if "fork" not in multiprocessing.get_all_start_methods():
        return executor
    workers = n_jobs if n_jobs is not None else ((os.cpu_count() or 1) if n_texts >= PROCESS_MIN_TEXTS else 1)
    return ProcessExecutor(n_jobs=workers) if workers > 1 else executor


class RayExecutor:
    """Shards batches over ``workers`` Ray actors (default: the cluster's CPUs, or its GPUs when it has some).

    Connects to ``address`` (e.g. ``"auto"`` for a running cluster) or starts a local one; ``ray_init`` passes
    further keyword arguments to ``ray.init``. Each worker loads the model by its spec string with
    :func:`toolkit.models.load`, so a model object that is not behind a registered spec cannot be sharded.
    """

    name = "ray"

    def __init__(self, *, workers: int | None = None, address: str | None = None, gpus_per_worker: float = 0.0,
                 **ray_init: object) -> None:
        try:
            import ray
        except ImportError as exc:
            raise MissingDependencyError("the ray executor needs Ray.", fix="pip install -e .[ray]") from exc
        self._ray = ray
        if not ray.is_initialized():
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False, **ray_init)
        resources = ray.cluster_resources()
        default = int(resources.get("GPU", 0)) if gpus_per_worker else int(resources.get("CPU", 1))
        self.workers = workers or max(1, default)
        self.gpus_per_worker = gpus_per_worker
        self._actors: dict[str, list] = {}

    def _pool(self, spec: str) -> list:
        if spec not in self._actors:
            self.shutdown()  # models are scored one after another: free the previous model's workers first
            ray = self._ray

            @ray.remote(num_gpus=self.gpus_per_worker, num_cpus=1)
            class Worker:
                def __init__(self, spec: str) -> None:
                    self.model = load(spec)

                def predict(self, batch: Batch) -> Predictions:
                    return self.model.predict(batch)

            self._actors[spec] = [Worker.remote(spec) for _ in range(self.workers)]
        return self._actors[spec]

    def run(self, model: SentimentModel, batches: Iterable[Batch]) -> Iterator[tuple[Batch, Predictions]]:
        ray = self._ray
        actors = self._pool(model.spec)
        pending: dict = {}
        queue = iter(batches)
        next_actor = 0

        def submit() -> bool:
            nonlocal next_actor
            batch = next(queue, None)
            if batch is None:
                return False
            pending[actors[next_actor % len(actors)].predict.remote(batch)] = batch
            next_actor += 1
            return True

        for _ in range(2 * len(actors)):
            if not submit():
                break
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            ref = done[0]
            batch = pending.pop(ref)
            try:
                predictions = ray.get(ref)
            except ray.exceptions.RayActorError as exc:  # ActorDiedError: the worker process is gone
                self.shutdown()
                raise ray_worker_died(exc, what=f"scoring with {model.spec}") from None
            yield batch, predictions
            submit()

    def shutdown(self) -> None:
        for actors in self._actors.values():
            for actor in actors:
                self._ray.kill(actor)
        self._actors.clear()


def ray_worker_died(exc: BaseException, *, what: str) -> WorkerError:
    """TK303 for a Ray actor that died while ``what`` ran (the first line of Ray's own reason kept)."""
    reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
    return WorkerError(f"a Ray worker died while {what} ({type(exc).__name__}: {reason[:300]}).",
                       fix="re-run the same command: what was scored is in the cache and is not scored again; check "
                           "the Ray workers' memory and logs (ray status) if it happens again.")


EXECUTORS = {"local": LocalExecutor, "ray": RayExecutor, "processes": ProcessExecutor}


Executor = "LocalExecutor | RayExecutor | ProcessExecutor"


def get(executor: "str | Executor") -> "Executor":
    if not isinstance(executor, str):
        return executor
    if executor not in EXECUTORS:
        raise unknown("executor", executor, EXECUTORS)
    return EXECUTORS[executor]()
