"""Batches made ready ahead of the model: a worker thread pads each batch of token ids into reused input buffers and,
on a CUDA device, copies it there on a side stream, feeding a bounded queue the model reads from.

:class:`Prefetcher` is what the scoring engine (:mod:`toolkit.scoring`) runs a transformer's batches through. Its
parts:

- :class:`BufferSet`: one batch's flat ``int64`` input arrays (ids, attention mask, token types), reused batch after
  batch; it grows in power-of-two capacity steps (a few sizes for a whole run, since the plan's batches hold about
  the same number of tokens), and on CUDA its memory is pinned (page-locked), so a copy from it can run
  asynchronously. A batch's tensors are views of its first ``rows × width`` elements: contiguous, and holding the
  very values the tokenizer's own padding gives (:func:`toolkit.batching.pad_into`).
- a transfer: :class:`Resident` (CPU: the buffers are the model's inputs, so a buffer set is reused only after the
  model has released its batch), :class:`Moved` (MPS: moved in the model's thread) or :class:`CudaTransfer` (a side stream: ``non_blocking`` copies from the pinned
  buffers, an event recorded after them; the model's stream waits for that event before it computes, the copies'
  memory is marked as used by the model's stream, and a buffer set is refilled only once its copy has completed).
- :class:`DeviceTimer`: the device's own busy time from CUDA events around each forward pass (nothing on a CPU).

Threads and signals: the worker thread never runs the model and never touches the score cache; the model's thread
(the main thread under the engine) consumes. :meth:`Prefetcher.close` stops the worker and waits for it (it is
between two numpy calls at worst), so a Ctrl-C in the model's thread ends the run with no thread left behind.
"""
from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from toolkit.batching import InputLayout, pad_into

__all__ = ["BufferSet", "CudaTransfer", "DeviceTimer", "Moved", "Prefetcher", "Ready", "Resident", "transfer_for"]

PREFETCH_DEPTH = 2
"""Ready batches queued ahead of the model (the worker thread waits when the queue is full)."""
_JOIN_S = 10.0
_POLL_S = 0.05
_END = object()


def _capacity(size: int) -> int:
    """The buffer size for ``size`` elements: the next power of two, at least 1,024."""
    return max(1024, 1 << max(int(size) - 1, 0).bit_length())


class BufferSet:
    """One batch's reusable input arrays (``torch.int64``, flat): ``input_ids``, ``attention_mask`` and, when the
    layout names it, ``token_type_ids`` (zeros, never written). ``pinned``: page-locked memory (CUDA only)."""

    def __init__(self, *, layout: InputLayout, pinned: bool = False) -> None:
        self.layout = layout
        self.pinned = pinned
        self.capacity = 0
        self.allocations = 0
        self.in_flight = None  # the event of the last copy out of these buffers (CUDA), waited for before a refill
        self._tensors: dict[str, Any] = {}

    def _ensure(self, size: int) -> None:
        import torch

        if size <= self.capacity:
            return
        capacity = _capacity(size)
        self._tensors = {name: torch.zeros(capacity, dtype=torch.long, pin_memory=self.pinned)
                         for name in ("input_ids", "attention_mask", "token_type_ids")}
        self.capacity = capacity
        self.allocations += 1

    def fill(self, ids: Sequence[np.ndarray]) -> tuple[dict, int, int, int]:
        """Pad ``ids`` into the buffers; returns the batch's tensors (views, shape ``(rows, width)``, the layout's
        names only), rows, width and real tokens."""
        if self.in_flight is not None:  # the device may still be reading the previous batch from these buffers
            self.in_flight.synchronize()
            self.in_flight = None
        rows = len(ids)
        width = max((len(x) for x in ids), default=0)
        self._ensure(rows * width)
        rows, width, real = pad_into(ids, layout=self.layout, input_ids=self._tensors["input_ids"].numpy(),
                                     attention_mask=self._tensors["attention_mask"].numpy())
        size = rows * width
        views = {name: self._tensors[name][:size].view(rows, width) for name in self.layout.names}
        return views, rows, width, real

    def storage(self, name: str) -> int:
        """The address of buffer ``name`` (for tests: a reused buffer keeps its address)."""
        return self._tensors[name].data_ptr()


class Resident:
    """The CPU transfer: the model reads the host buffers themselves."""

    pinned = False
    device = "cpu"

    def send(self, tensors: dict) -> tuple[dict, None]:
        return tensors, None

    def adopt(self, tensors: dict, event: object) -> dict:
        return tensors


class Moved:
    """Another device (MPS): the model's thread moves each batch there as the engine's serial path does, then the
    buffers are free again."""

    pinned = False

    def __init__(self, device: str) -> None:
        self.device = str(device)

    def send(self, tensors: dict) -> tuple[dict, None]:
        return tensors, None

    def adopt(self, tensors: dict, event: object) -> dict:
        return {name: t.to(self.device) for name, t in tensors.items()}


class CudaTransfer:
    """Host→device copies on a side stream of ``device``: from pinned buffers, ``non_blocking``, followed by an
    event; :meth:`adopt` (in the model's thread) makes the model's stream wait for that event and marks the copies'
    memory as used by it (``record_stream``), so the caching allocator does not hand it out while the model reads."""

    pinned = True

    def __init__(self, device: str) -> None:
        import torch

        self.device = torch.device(device)
        self.stream = torch.cuda.Stream(device=self.device)

    def send(self, tensors: dict) -> tuple[dict, object]:
        import torch

        with torch.cuda.device(self.device), torch.cuda.stream(self.stream):
            moved = {name: t.to(self.device, non_blocking=True) for name, t in tensors.items()}
            done = torch.cuda.Event()
            done.record(self.stream)
        return moved, done

    def adopt(self, tensors: dict, event: object) -> dict:
        import torch

        current = torch.cuda.current_stream(self.device)
        current.wait_event(event)
        for tensor in tensors.values():
            tensor.record_stream(current)
        return tensors


def transfer_for(device: str) -> Resident | Moved | CudaTransfer:
    """:class:`CudaTransfer` for a CUDA device, :class:`Resident` for the CPU, :class:`Moved` for another (MPS)."""
    import torch

    if str(device).startswith("cuda") and torch.cuda.is_available():
        return CudaTransfer(str(device))
    return Resident() if str(device) == "cpu" else Moved(str(device))


class DeviceTimer:
    """The device's busy time: CUDA events recorded on the model's stream before and after each forward pass (after
    the stream's wait for the batch's copy, so the copy is not counted; gaps between kernels that the host launched
    late are), read once the run has synchronised (:meth:`total`); on a CPU it records nothing (``total`` is None)."""

    def __init__(self, device: str) -> None:
        import torch

        self._cuda = str(device).startswith("cuda") and torch.cuda.is_available()
        self._pairs: list[tuple[Any, Any]] = []

    def start(self) -> object:
        if not self._cuda:
            return None
        import torch

        event = torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def stop(self, started: object) -> None:
        if started is None:
            return
        import torch

        event = torch.cuda.Event(enable_timing=True)
        event.record()
        self._pairs.append((started, event))

    def total(self) -> float | None:
        """Seconds between each start and stop event, summed (waits for the last event); None on a CPU."""
        if not self._cuda:
            return None
        if self._pairs:
            self._pairs[-1][1].synchronize()
        return sum(a.elapsed_time(b) for a, b in self._pairs) / 1000.0


class Ready:
    """A batch ready for the model: ``inputs`` (tensors on the model's device), ``rows``, ``width``, ``real``
    tokens. Call :meth:`release` once the model no longer reads ``inputs`` (its forward pass has returned), so the
    buffers can take another batch."""

    __slots__ = ("_buffers", "_event", "_free", "inputs", "real", "rows", "width")

    def __init__(self, inputs: dict, rows: int, width: int, real: int, buffers: BufferSet, event: object,
                 free: queue.Queue) -> None:
        self.inputs, self.rows, self.width, self.real = inputs, rows, width, real
        self._buffers, self._event, self._free = buffers, event, free

    def release(self) -> None:
        if self._buffers is not None:
            self._buffers.in_flight = self._event
            self._free.put(self._buffers)
            self._buffers = None


class _Failure:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


class Prefetcher:
    """Iterate over ready batches of ``batches`` (each a list of token-id arrays), built ahead of the model.

    A worker thread pads each batch into one of ``depth + 2`` reused :class:`BufferSet` s, hands it to ``transfer``
    (default: :func:`transfer_for` ``device``) and queues it; at most ``depth`` batches wait ready. Iterating yields
    :class:`Ready` batches in order and adopts their copies in the iterating thread; the time spent waiting for one
    goes to ``telemetry.waited``, the padding to phase ``batch`` and the copies to ``copy``. An error in the worker is
    raised in the iterating thread. Use as a context manager, or call :meth:`close` (it stops and joins the worker)."""

    def __init__(self, batches: Iterable[Sequence[np.ndarray]], *, layout: InputLayout, device: str = "cpu",
                 depth: int = PREFETCH_DEPTH, telemetry=None, transfer: Resident | Moved | CudaTransfer | None = None
                 ) -> None:
        if depth < 1:
            raise ValueError(f"depth must be at least 1; got {depth}.")
        self.transfer = transfer if transfer is not None else transfer_for(device)
        self.telemetry = telemetry
        self.buffers = [BufferSet(layout=layout, pinned=self.transfer.pinned) for _ in range(depth + 2)]
        self._free: queue.Queue = queue.Queue()
        for buffers in self.buffers:
            self._free.put(buffers)
        self._ready: queue.Queue = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._source = iter(batches)
        self._thread = threading.Thread(target=self._work, name="toolkit-prefetch", daemon=True)
        self._thread.start()

    # --- the worker thread -------------------------------------------------------------------------------------
    def _put(self, item: object) -> bool:
        while not self._stop.is_set():
            try:
                self._ready.put(item, timeout=_POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def _take(self) -> BufferSet | None:
        while not self._stop.is_set():
            try:
                return self._free.get(timeout=_POLL_S)
            except queue.Empty:
                continue
        return None

    def _work(self) -> None:
        telemetry = self.telemetry
        try:
            for ids in self._source:
                buffers = self._take()
                if buffers is None:
                    return
                started = time.perf_counter()
                tensors, rows, width, real = buffers.fill(ids)
                padded = time.perf_counter()
                inputs, event = self.transfer.send(tensors)
                if telemetry is not None:
                    telemetry.add("batch", padded - started)
                    telemetry.add("copy", time.perf_counter() - padded)
                    telemetry.batch(rows=rows, width=width, real=real)
                if not self._put(Ready(inputs, rows, width, real, buffers, event, self._free)):
                    return
                if self._stop.is_set():
                    return
            self._put(_END)
        except BaseException as exc:  # noqa: BLE001 - raised in the model's thread, which decides what it means
            self._put(_Failure(exc))

    # --- the model's thread ------------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Ready]:
        while True:
            started = time.perf_counter()
            item = self._ready.get()
            if self.telemetry is not None:
                self.telemetry.waited(time.perf_counter() - started)
            if item is _END:
                return
            if isinstance(item, _Failure):
                raise item.exc
            item.inputs = self.transfer.adopt(item.inputs, item._event)
            yield item

    def close(self) -> None:
        """Stop the worker thread and wait for it (a bounded wait: it checks for the stop between batches and every
        50 ms while blocked)."""
        self._stop.set()
        while True:  # unblock a worker waiting to queue a batch
            try:
                self._ready.get_nowait()
            except queue.Empty:
                break
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(_JOIN_S)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def __enter__(self) -> Prefetcher:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
