"""Where the engine's batches run. ``local`` (default): in this process, in order — except that a CPU-bound model
that declares itself safe to fork (``fork_safe``: the lexicons, a ``py:`` callable with ``fn.fork_safe = True``) is
spread over worker processes (:class:`ProcessExecutor`, one per core by default, see :func:`for_model`): each worker
inherits the loaded model by ``fork``, batches come back in order, and the driver alone writes the cache. ``ray``:
sharded over Ray actors (``pip install -e .[ray]``), each loading the model once by its spec (one model's pool at a
time); results come back as they finish and the driver alone writes the cache, so resume works the same. At most
``2 × workers`` batches are in flight (bounded memory).
"""
from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable, Iterator

from toolkit.errors import MissingDependencyError, unknown
from toolkit.models import SentimentModel
from toolkit.models.base import Predictions

Batch = list[str]


class LocalExecutor:
    name = "local"

    def run(self, model: SentimentModel, batches: Iterable[Batch]) -> Iterator[tuple[Batch, Predictions]]:
        for batch in batches:
            yield batch, model.predict(batch)


_WORKER_MODEL: SentimentModel | None = None
PROCESS_MIN_TEXTS = 2_000
"""Below this many texts to score, a fork-safe model stays in process (starting workers costs more)."""


def _set_worker_model(model: SentimentModel) -> None:
    global _WORKER_MODEL
    _WORKER_MODEL = model


def _predict_in_worker(batch: Batch) -> Predictions:
    return _WORKER_MODEL.predict(batch)


class ProcessExecutor:
    """Runs a fork-safe model's batches in ``n_jobs`` forked worker processes (default: every core), yielding them
    in submission order (so results and cache contents equal in-process scoring)."""

    name = "processes"

    def __init__(self, *, n_jobs: int | None = None) -> None:
        self.n_jobs = n_jobs or os.cpu_count() or 1

    def run(self, model: SentimentModel, batches: Iterable[Batch]) -> Iterator[tuple[Batch, Predictions]]:
        context = multiprocessing.get_context("fork")
        queue = iter(batches)
        with context.Pool(self.n_jobs, initializer=_set_worker_model, initargs=(model,)) as pool:
            pending: list = []
            while True:
                while len(pending) < 2 * self.n_jobs:  # bounded: at most two batches per worker in flight
                    batch = next(queue, None)
                    if batch is None:
                        break
                    pending.append((batch, pool.apply_async(_predict_in_worker, (batch,))))
                if not pending:
                    return
                batch, result = pending.pop(0)
                yield batch, result.get()


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
                    from toolkit.models import load

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
            yield batch, ray.get(ref)
            submit()

    def shutdown(self) -> None:
        for actors in self._actors.values():
            for actor in actors:
                self._ray.kill(actor)
        self._actors.clear()


EXECUTORS = {"local": LocalExecutor, "ray": RayExecutor, "processes": ProcessExecutor}


Executor = "LocalExecutor | RayExecutor | ProcessExecutor"


def get(executor: "str | Executor") -> "Executor":
    if not isinstance(executor, str):
        return executor
    if executor not in EXECUTORS:
        raise unknown("executor", executor, EXECUTORS)
    return EXECUTORS[executor]()
