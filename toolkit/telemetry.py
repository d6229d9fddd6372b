"""Where a scoring run's time goes (a leaf: imports only the standard library).

The engine (:mod:`toolkit.scoring`) keeps one :class:`Telemetry` per model it scores with and adds to it, per batch,
the seconds spent in each phase of :data:`PHASES`: the score cache (lookups and commits), tokenisation, batching and
padding, host→device copies, the forward pass and the answers (valence mapping and checks); the main thread's wait
for a ready batch; the real and padded tokens of every batch; and, on a CUDA device, the device's own busy time
(CUDA events around each forward pass). :meth:`Telemetry.record` is the JSON-ready summary the engine puts into
``attrs["inputs"][spec]["telemetry"]`` (and so into ``provenance.json``); :meth:`Telemetry.describe` is the short
form the progress line shows (``forward 91% · tokenise 4% · padding 2%``).

Shares are of the model's wall time. Batching and copies run in a worker thread ahead of the model (see
:class:`toolkit.device.Prefetcher`), overlapping the forward pass, so shares can add up to more than 1; ``wait_s`` is
how long the model waited for the host all the same. A run is **host-bound** when its device was busy less than
:data:`HOST_BOUND_BELOW` of the wall time (the device's own busy time on CUDA, the forward pass's on a CPU): the
host, not the model's arithmetic, decided how long it took. Its record says so and names the largest host phase.

Each phase is timed with two ``time.perf_counter`` calls (about 0.1 µs each) per batch; the cost is measured in
``benchmarks/bench_ceiling.py``.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["HOST_BOUND_BELOW", "PHASES", "Telemetry"]

PHASES: tuple[str, ...] = ("cache", "tokenise", "batch", "copy", "forward", "post")
"""The phases timed, in the order a batch meets them."""
PHASE_WORDS = {"cache": "the score cache", "tokenise": "tokenisation", "batch": "batching and padding",
               "copy": "host→device copies", "forward": "the forward pass", "post": "answers (valence, checks)"}
HOST_BOUND_BELOW = 0.5
"""A run whose device was busy less than this share of the wall time is host-bound."""
_HOST_PHASES = ("cache", "tokenise", "batch", "copy", "post")


class _Phase:
    __slots__ = ("name", "started", "telemetry")

    def __init__(self, telemetry: Telemetry, name: str) -> None:
        self.telemetry, self.name = telemetry, name

    def __enter__(self) -> None:
        self.started = self.telemetry.clock()

    def __exit__(self, *exc: object) -> None:
        self.telemetry.add(self.name, self.telemetry.clock() - self.started)


class _Off:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_OFF = _Off()


class Telemetry:
    """The time a model's scoring run spends per phase, its padding, and its device's busy time.

    ``device``: where the model runs (``"cpu"``, ``"cuda:0"``, …); ``enabled=False`` records nothing (every method
    is a no-op and :meth:`record` is None): the benchmark's baseline for the telemetry's own cost; ``clock``: the
    seconds clock (``time.perf_counter``). Safe to add to from several threads (one lock)."""

    def __init__(self, *, device: str = "cpu", enabled: bool = True,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.device = str(device)
        self.clock = clock
        self.enabled = bool(enabled)
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self.wait_s = 0.0
        self.device_busy_s: float | None = None
        self.batches = 0
        self.real_tokens = 0
        self.padded_tokens = 0
        self.notes: dict[str, object] = {}
        self._lock = threading.Lock()
        self._started = clock()
        self._wall: float | None = None

    def phase(self, name: str):
        """A context manager adding the time spent inside it to phase ``name`` (one of :data:`PHASES`)."""
        return _Phase(self, name) if self.enabled else _OFF

    def add(self, name: str, seconds: float) -> None:
        """Add ``seconds`` to phase ``name``."""
        if self.enabled:
            with self._lock:
                self.seconds[name] += seconds

    def waited(self, seconds: float) -> None:
        """The model waited ``seconds`` for its next batch to be ready."""
        if self.enabled:
            with self._lock:
                self.wait_s += seconds

    def batch(self, *, rows: int, width: int, real: int) -> None:
        """A batch of ``rows`` texts padded to ``width`` tokens, ``real`` of them not padding."""
        if self.enabled:
            with self._lock:
                self.batches += 1
                self.real_tokens += int(real)
                self.padded_tokens += int(rows) * int(width) - int(real)

    def device_busy(self, seconds: float) -> None:
        """Add ``seconds`` of the device's own busy time (CUDA events around the forward passes)."""
        if self.enabled:
            with self._lock:
                self.device_busy_s = (self.device_busy_s or 0.0) + seconds

    def note(self, **facts: object) -> None:
        """Record settings of the run beside its times (``tokenise_ahead``, ``tokenise_threads``, …)."""
        if self.enabled:
            self.notes.update(facts)

    def finish(self) -> Telemetry:
        """Stop the wall clock (later calls keep the first stop)."""
        if self._wall is None:
            self._wall = self.clock() - self._started
        return self

    @property
    def wall_s(self) -> float:
        return self._wall if self._wall is not None else self.clock() - self._started

    @property
    def padding_share(self) -> float | None:
        """Padded tokens / all tokens of the batches (None before any batch with a known width)."""
        total = self.real_tokens + self.padded_tokens
        return self.padded_tokens / total if total else None

    def busy_share(self) -> float | None:
        """The share of the wall time the device computed: the CUDA events' time where measured, else the forward
        pass's (on a CPU the forward pass is the device's work); None before anything was timed."""
        wall = self.wall_s
        if wall <= 0:
            return None
        busy = self.device_busy_s if self.device_busy_s is not None else self.seconds["forward"]
        return busy / wall if busy else None

    def host_bound(self) -> bool:
        """Whether the device was busy less than :data:`HOST_BOUND_BELOW` of the wall time (and the forward pass was
        timed at all: a run answered wholly from the cache is neither)."""
        share = self.busy_share()
        return share is not None and share < HOST_BOUND_BELOW

    def largest_host_phase(self) -> str:
        return max(_HOST_PHASES, key=lambda name: self.seconds[name])

    def verdict(self) -> str:
        """``"host-bound: …"``, ``"device-bound: …"`` or ``""`` (nothing computed), in words."""
        share = self.busy_share()
        if share is None:
            return ""
        where = "the device" if self.device_busy_s is not None else "the forward pass"
        if share < HOST_BOUND_BELOW:
            top = self.largest_host_phase()
            return (f"host-bound: {where} was busy {share:.0%} of the wall time; the largest host phase was "
                    f"{PHASE_WORDS[top]} ({self.seconds[top] / self.wall_s:.0%})")
        return f"device-bound: {where} was busy {share:.0%} of the wall time"

    def record(self) -> dict | None:
        """The JSON-ready summary: ``wall_s``; ``seconds`` and ``shares`` (of the wall time) per phase; ``wait_s``;
        ``batches``, ``real_tokens``, ``padded_tokens``, ``padding_share``; ``device``, ``device_busy_s`` (CUDA) and
        ``device_busy_share``; ``host_bound`` and ``verdict``; and the notes. None when disabled."""
        if not self.enabled:
            return None
        wall = self.wall_s
        share = self.busy_share()
        padding = self.padding_share
        return {
            "wall_s": round(wall, 6),
            "seconds": {name: round(value, 6) for name, value in self.seconds.items()},
            "shares": {name: round(value / wall, 4) if wall > 0 else None for name, value in self.seconds.items()},
            "wait_s": round(self.wait_s, 6),
            "batches": self.batches,
            "real_tokens": self.real_tokens,
            "padded_tokens": self.padded_tokens,
            "padding_share": None if padding is None else round(padding, 4),
            "device": self.device,
            "device_busy_s": None if self.device_busy_s is None else round(self.device_busy_s, 6),
            "device_busy_share": None if share is None else round(share, 4),
            "host_bound": self.host_bound(),
            "verdict": self.verdict(),
            **self.notes,
        }

    def describe(self) -> str:
        """The progress line's part: the three largest phases' shares, the padding share, and ``host-bound`` when
        it is (``"forward 62% · tokenise 21% · batch 9% · padding 3% · host-bound"``); ``""`` when disabled or
        nothing was timed yet."""
        if not self.enabled:
            return ""
        wall = self.wall_s
        if wall <= 0:
            return ""
        top = sorted((name for name in PHASES if self.seconds[name] > 0), key=lambda n: -self.seconds[n])[:3]
        parts = [f"{name} {self.seconds[name] / wall:.0%}" for name in top]
        if self.padding_share is not None:
            parts.append(f"padding {self.padding_share:.0%}")
        if self.host_bound():
            parts.append("host-bound")
        return " · ".join(parts)
