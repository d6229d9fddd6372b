"""The batch planner: which texts go together, under a token budget (a leaf: imports only numpy).

:func:`plan_batches` is what the scoring engine (:mod:`toolkit.scoring`) batches with; a model that embeds texts
itself (:mod:`toolkit.models.ait`) plans its batches with the same function rather than importing the engine.
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np


def plan_batches(lengths: list[int] | None, *, n: int, batch_size: int, batch_tokens: int,
                 max_length: int | None = None) -> Iterator[list[int]]:
    """Yield lists of indices into the texts to score.

    Without lengths: consecutive chunks of ``batch_size``. With lengths: longest first, each batch as many texts as
    fit ``len(batch) * longest_in_batch <= batch_tokens`` (at least one text per batch).
    """
    if lengths is None:
        for start in range(0, n, batch_size):
            yield list(range(start, min(start + batch_size, n)))
        return
    capped = np.minimum(np.asarray(lengths, dtype=np.int64), max_length or np.iinfo(np.int64).max)
    order = np.argsort(-capped, kind="stable")
    batch: list[int] = []
    longest = 0
    for index in order.tolist():
        longest_if_added = max(longest, int(capped[index]))
        if batch and (len(batch) + 1) * longest_if_added > batch_tokens:
            yield batch
            batch, longest_if_added = [], int(capped[index])
        batch.append(index)
        longest = longest_if_added
    if batch:
        yield batch


__all__ = ["plan_batches"]
