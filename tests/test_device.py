"""Batches made ready ahead of the model (toolkit.device) and the padding they are built with (toolkit.batching):
the tokenizer's own padding, reused buffers that are never refilled while read, a bounded queue in plan order,
errors and stops that reach the model's thread, and the CUDA transfer's ordering (its copy-then-refill rule run with
a CPU copy in place of the device's)."""
from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

from toolkit.batching import InputLayout, pad_into, plan_batches
from toolkit.device import BufferSet, DeviceTimer, Moved, Prefetcher, Resident, transfer_for
from toolkit.models import load

LAYOUT = InputLayout(pad_id=0, left=False, names=("input_ids", "attention_mask", "token_type_ids"))
TEXTS = ["a good movie", "she was great , he was awful", "", "not very good film", "my sister is happy and angry",
         "the the the the the the the the the the the the the the the the the the the the the the"]


def _batches(n: int, *, seed: int = 0) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [[rng.integers(1, 30_000, size=int(rng.integers(1, 40)), dtype=np.uint16)
             for _ in range(int(rng.integers(1, 9)))] for _ in range(n)]


def _padded(ids: list[np.ndarray], *, pad_id: int, left: bool) -> tuple[np.ndarray, np.ndarray]:
    """The padding written out row by row, as a reader would do it by hand."""
    width = max(len(x) for x in ids)
    out, mask = np.full((len(ids), width), pad_id), np.zeros((len(ids), width), dtype=np.int64)
    for row, x in enumerate(ids):
        span = slice(width - len(x), width) if left else slice(0, len(x))
        out[row, span], mask[row, span] = x, 1
    return out, mask


@pytest.mark.parametrize("side", ["right", "left"])
def test_batching_pad_into_gives_the_tokenizers_own_padding(tiny_bert_dir, side):
    model = load(f"hf:{tiny_bert_dir}?max_length=8")
    model.tokenizer.padding_side = side
    ids, _ = model.encode(TEXTS)
    layout = model.input_layout()
    assert layout.left is (side == "left") and layout.names == ("input_ids", "attention_mask", "token_type_ids")
    flat_ids, flat_mask = np.full(200, -7, dtype=np.int64), np.full(200, -7, dtype=np.int64)
    rows, width, real = pad_into(ids, layout=layout, input_ids=flat_ids, attention_mask=flat_mask)
    reference = model.tokenizer(TEXTS, padding=True, truncation=True, max_length=8, return_tensors="np")
    assert (rows, width, real) == (len(TEXTS), reference["input_ids"].shape[1], int(reference["attention_mask"].sum()))
    np.testing.assert_array_equal(flat_ids[:rows * width].reshape(rows, width), reference["input_ids"])
    np.testing.assert_array_equal(flat_mask[:rows * width].reshape(rows, width), reference["attention_mask"])
    assert (flat_ids[rows * width:] == -7).all()  # nothing written past the batch
    from_ids = model.inputs_from_ids(ids)  # the engine's serial path builds the same tensors
    np.testing.assert_array_equal(from_ids["input_ids"].numpy(), reference["input_ids"])


def test_batching_pad_into_refuses_arrays_too_small():
    with pytest.raises(ValueError, match="does not fit"):
        pad_into([np.arange(5), np.arange(3)], layout=LAYOUT, input_ids=np.zeros(9, dtype=np.int64),
                 attention_mask=np.zeros(10, dtype=np.int64))


def test_batching_plans_length_buckets_with_little_padding(eec_cases):
    """The planner's sorted batches are the length buckets: on the EEC's sentences they leave far less padding
    than batches of the same sizes in text order."""
    model = load("minilm-imdb")
    texts = eec_cases["text"].drop_duplicates().tolist()
    ids, _ = model.encode(texts)
    lengths = np.array([len(x) for x in ids])
    plan = list(plan_batches(lengths.tolist(), n=len(ids), batch_size=model.batch_size, batch_tokens=4096))

    def padding(batches):
        padded = sum(len(b) * lengths[b].max() for b in batches)
        return 1 - lengths.sum() / padded

    sizes = np.cumsum([len(b) for b in plan])[:-1]
    in_order = np.split(np.arange(len(ids)), sizes)
    assert padding(plan) < 0.2 and padding(plan) < padding(in_order) / 2


def test_device_buffers_are_reused_and_grow_in_power_of_two_steps():
    buffers = BufferSet(layout=LAYOUT)
    views, rows, width, real = buffers.fill([np.arange(1, 4), np.arange(1, 6)])
    assert (rows, width, real) == (2, 5, 8) and buffers.capacity == 1024 and buffers.allocations == 1
    address = buffers.storage("input_ids")
    for batch in _batches(30):
        views, rows, width, real = buffers.fill(batch)
        expected_ids, expected_mask = _padded(batch, pad_id=0, left=False)
        np.testing.assert_array_equal(views["input_ids"].numpy(), expected_ids)
        np.testing.assert_array_equal(views["attention_mask"].numpy(), expected_mask)
        assert not views["token_type_ids"].any() and all(v.is_contiguous() for v in views.values())
    assert buffers.allocations == 1 and buffers.storage("input_ids") == address  # one allocation, reused
    buffers.fill([np.arange(1, 1500)])  # a batch larger than the buffers: they grow to the next power of two
    assert buffers.capacity == 2048 and buffers.allocations == 2


def test_device_prefetcher_yields_every_batch_in_order_with_a_fixed_set_of_buffers():
    batches = _batches(60, seed=1)
    seen = []
    with Prefetcher(batches, layout=LAYOUT, device="cpu", depth=2) as prefetch:
        for batch, ready in zip(batches, prefetch):
            expected_ids, expected_mask = _padded(batch, pad_id=0, left=False)
            np.testing.assert_array_equal(ready.inputs["input_ids"].numpy(), expected_ids)
            np.testing.assert_array_equal(ready.inputs["attention_mask"].numpy(), expected_mask)
            seen.append(ready.rows)
            ready.release()
    assert seen == [len(b) for b in batches]
    assert len(prefetch.buffers) == 4 and sum(b.allocations for b in prefetch.buffers) == 4  # depth + 2, no more
    assert not prefetch.alive


def test_device_prefetcher_never_refills_a_batch_the_model_still_reads():
    """The model holds every batch it was given (none released): the worker fills the other buffers, then waits;
    the held batches keep their values, and the worker takes no more batches than it has buffers for."""
    taken = threading.Event()
    pulled = []

    def source():
        for i, batch in enumerate(_batches(20, seed=2)):
            pulled.append(i)
            if len(pulled) == 5:  # 4 buffers: the fifth batch waits for one
                taken.set()
            yield batch

    prefetch = Prefetcher(source(), layout=LAYOUT, device="cpu", depth=2)
    held = []
    iterator = iter(prefetch)
    for _ in range(4):
        ready = next(iterator)
        held.append((ready, ready.inputs["input_ids"].clone()))
    assert taken.wait(30)
    assert len(pulled) == 5 and prefetch._free.qsize() == 0  # all four buffer sets are out, the fifth batch waits
    for ready, values in held:
        assert torch.equal(ready.inputs["input_ids"], values)
    held[0][0].release()  # one buffer back: the worker goes on
    fifth = next(iterator)
    assert fifth.rows == len(_batches(20, seed=2)[4])
    prefetch.close()
    assert not prefetch.alive


def test_device_prefetcher_raises_the_workers_error_in_the_models_thread():
    def source():
        yield from _batches(3)
        raise ValueError("a broken batch")

    prefetch = Prefetcher(source(), layout=LAYOUT, device="cpu")
    got = 0
    with pytest.raises(ValueError, match="a broken batch"):
        for ready in prefetch:
            got += 1
            ready.release()
    assert got == 3
    prefetch.close()
    assert not prefetch.alive


def test_device_prefetcher_close_stops_the_worker_midway():
    prefetch = Prefetcher(_batches(500), layout=LAYOUT, device="cpu", depth=1)
    iterator = iter(prefetch)
    next(iterator)  # held, not released: the worker fills the rest of its buffers and waits
    prefetch.close()
    assert not prefetch.alive


class CopyEvent:
    """The CUDA event of a copy, on a CPU: ``synchronize`` marks the copy as waited for."""

    def __init__(self) -> None:
        self.waited = False

    def synchronize(self) -> None:
        self.waited = True


class CopyTransfer:
    """:class:`toolkit.device.CudaTransfer`'s contract with a CPU copy in place of the device's: ``send`` copies the
    pinned buffers to new memory in the worker thread and returns an event; ``adopt`` runs in the model's thread."""

    pinned = False

    def __init__(self) -> None:
        self.events: list[CopyEvent] = []
        self.adopted_in: set[int] = set()

    def send(self, tensors):
        event = CopyEvent()
        self.events.append(event)
        return {name: t.clone() for name, t in tensors.items()}, event

    def adopt(self, tensors, event):
        self.adopted_in.add(threading.get_ident())
        return tensors


def test_device_copy_transfer_refills_a_buffer_only_after_its_copy_was_waited_for():
    transfer = CopyTransfer()
    batches = _batches(40, seed=3)
    with Prefetcher(batches, layout=LAYOUT, transfer=transfer, depth=2) as prefetch:
        for batch, ready in zip(batches, prefetch):
            expected_ids, _ = _padded(batch, pad_id=0, left=False)
            np.testing.assert_array_equal(ready.inputs["input_ids"].numpy(), expected_ids)
            assert all(ready.inputs[n].data_ptr() != b.storage(n) for b in prefetch.buffers if b.capacity
                       for n in LAYOUT.names)
            ready.release()
    # every buffer set refilled after a copy first waited for that copy; the last ones were never refilled
    assert all(event.waited for event in transfer.events[:-len(prefetch.buffers)])
    assert transfer.adopted_in == {threading.get_ident()}


def test_device_cpu_runs_resident_another_device_moved_and_times_nothing_on_the_device():
    assert isinstance(transfer_for("cpu"), Resident) and isinstance(transfer_for("mps"), Moved)
    timer = DeviceTimer("cpu")
    timer.stop(timer.start())
    assert timer.total() is None


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_device_cuda_prefetcher_gives_the_same_tensors_on_the_device():
    batches = _batches(20, seed=4)
    with Prefetcher(batches, layout=LAYOUT, device="cuda") as prefetch:
        assert all(b.pinned for b in prefetch.buffers)
        for batch, ready in zip(batches, prefetch):
            expected_ids, expected_mask = _padded(batch, pad_id=0, left=False)
            assert ready.inputs["input_ids"].is_cuda
            np.testing.assert_array_equal(ready.inputs["input_ids"].cpu().numpy(), expected_ids)
            np.testing.assert_array_equal(ready.inputs["attention_mask"].cpu().numpy(), expected_mask)
            ready.release()
