"""The batch planner: which texts go together, under a token budget, and how a batch of token ids is padded (a
leaf: imports only numpy).

:func:`plan_batches` is what the scoring engine (:mod:`toolkit.scoring`) batches with; a model that embeds texts
itself (:mod:`toolkit.models.ait`) plans its batches with the same function rather than importing the engine. The
plan sorts texts by length, longest first, so each batch holds texts of nearly one length: these are the engine's
length buckets, and the padding share they leave is in every run's telemetry (:mod:`toolkit.telemetry`).
:func:`pad_into` writes a batch of token ids into flat reusable arrays as a tokenizer pads them
(:class:`InputLayout`).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class InputLayout:
    """How a model's tokenizer pads a batch: the pad token id, the side (``left``), and which tensors the model reads
    (``names``, a subset of ``input_ids``, ``attention_mask``, ``token_type_ids``; token type 0 everywhere)."""

    pad_id: int
    left: bool
    names: tuple[str, ...]


def pad_into(ids: Sequence[np.ndarray], *, layout: InputLayout, input_ids: np.ndarray,
             attention_mask: np.ndarray) -> tuple[int, int, int]:
    """Write the batch ``ids`` (one array of token ids per text) padded to its longest text into the first
    ``rows × width`` elements of the flat arrays ``input_ids`` and ``attention_mask`` (row-major, so their first
    ``rows × width`` elements viewed as ``(rows, width)`` are the batch): the pad id and mask 0 in the padding, on
    ``layout.left``'s side. Returns ``(rows, width, real tokens)``. The arrays must hold ``rows × width`` elements."""
    rows = len(ids)
    lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=rows)
    width = int(lengths.max()) if rows else 0
    size = rows * width
    if size > len(input_ids) or size > len(attention_mask):
        raise ValueError(f"a batch of {rows} x {width} tokens does not fit arrays of {len(input_ids)} and "
                         f"{len(attention_mask)} elements.")
    real = int(lengths.sum())
    input_ids[:size] = layout.pad_id
    attention_mask[:size] = 0
    if real:
        starts = np.arange(rows, dtype=np.int64) * width + ((width - lengths) if layout.left else 0)
        offsets = np.arange(real, dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        positions = np.repeat(starts, lengths) + offsets
        input_ids[positions] = np.concatenate(ids)
        attention_mask[positions] = 1
    return rows, width, real


__all__ = ["InputLayout", "pad_into", "plan_batches"]
