"""A run monitor: what stage a run is in, how far it is, and a way to cancel it — without changing any signature.

An app (or a script) opens :func:`watching` around a run; engine code anywhere below it calls :func:`stage`,
:func:`progress` and :func:`check`. Outside :func:`watching` the three do nothing, so the Python API is unchanged.
The monitor lives in a :class:`contextvars.ContextVar`, so a run in a worker thread (the apps run their task in one,
keeping the kernel free for the Cancel click) sees only its own monitor.

>>> cancel = threading.Event()
>>> with monitor.watching(on_stage=print, on_progress=lambda p: print(p.describe()), cancel=cancel):
...     toolkit.studies.eec.run(models=["vader"])           # scoring reports per committed batch, checks cancel after each

Cancelling raises :class:`Cancelled` at the next :func:`check` (the scoring engine checks after each committed
batch, so what was scored stays in the cache). It is a :class:`KeyboardInterrupt`, so it takes the engine's
interrupt path: workers are stopped, no ``except Exception`` swallows it, and the facts of where the run was
(``stage, scored, total, cache``) are recorded on it (:func:`toolkit.executors.note_interrupt`; read them with
:func:`kept`).
"""
from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["Cancelled", "Progress", "check", "kept", "progress", "stage", "watching"]


class Cancelled(KeyboardInterrupt):
    """A watched run was cancelled (:func:`check` after its cancel event was set). A KeyboardInterrupt, so the
    engine's interrupt path records what was kept (``exc.toolkit_interrupt``) and stops its workers."""


@dataclass(frozen=True)
class Progress:
    """One progress report: ``done`` of ``total`` ``unit``s in ``stage``; ``rate`` (units per second since the
    stage's first report, None until measurable), ``eta_s`` (seconds left at that rate, None if unknown) and
    ``detail`` (where the time goes, from the scoring engine's telemetry; "" when none)."""

    stage: str
    done: int
    total: int
    unit: str
    rate: float | None
    eta_s: float | None
    detail: str = ""

    @property
    def fraction(self) -> float:
        return min(max(self.done / self.total, 0.0), 1.0) if self.total > 0 else 0.0

    def describe(self) -> str:
        """``"1,200 / 8,640 texts · 410 texts/s · ETA 18 s"``, then the detail where there is one
        (``" · forward 91% · tokenise 4% · padding 2%"``)."""
        parts = [f"{self.done:,} / {self.total:,} {self.unit}"]
        if self.rate is not None:
            parts.append(f"{self.rate:,.0f} {self.unit}/s" if self.rate >= 10 else f"{self.rate:.2g} {self.unit}/s")
        if self.eta_s is not None:
            parts.append(f"ETA {_duration(self.eta_s)}")
        if self.detail:
            parts.append(self.detail)
        return " · ".join(parts)


def _duration(seconds: float) -> str:
    seconds = max(int(round(seconds)), 0)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class _Watch:
    def __init__(self, on_stage: Callable[[str], None] | None, on_progress: Callable[[Progress], None] | None,
                 cancel: threading.Event | None) -> None:
        self.on_stage, self.on_progress = on_stage, on_progress
        self.cancel = cancel if cancel is not None else threading.Event()
        self.stage = ""
        self._start: tuple[str, str, int, float] | None = None  # (stage, unit, done, time) of the first report

    def set_stage(self, text: str) -> None:
        self.stage, self._start = text, None
        if self.on_stage is not None:
            self.on_stage(text)

    def report(self, done: int, total: int, unit: str, detail: str = "") -> None:
        now = time.perf_counter()
        if self._start is None or self._start[:2] != (self.stage, unit) or done < self._start[2]:
            self._start = (self.stage, unit, done, now)
        _, _, done0, t0 = self._start
        rate = (done - done0) / (now - t0) if done > done0 and now > t0 else None
        eta = (total - done) / rate if rate else None
        if self.on_progress is not None:
            self.on_progress(Progress(self.stage, int(done), int(total), unit, rate, eta, detail))


_CURRENT: contextvars.ContextVar[_Watch | None] = contextvars.ContextVar("toolkit_monitor", default=None)


@contextmanager
def watching(*, on_stage: Callable[[str], None] | None = None,
             on_progress: Callable[[Progress], None] | None = None,
             cancel: threading.Event | None = None) -> Iterator[threading.Event]:
    """Watch the run inside the block: ``on_stage(text)`` at each :func:`stage`, ``on_progress(Progress)`` at each
    :func:`progress`; setting ``cancel`` (a :class:`threading.Event`, made if not given and yielded) makes the next
    :func:`check` raise :class:`Cancelled`. Callbacks run in the run's thread; their errors propagate."""
    watch = _Watch(on_stage, on_progress, cancel)
    token = _CURRENT.set(watch)
    try:
        yield watch.cancel
    finally:
        _CURRENT.reset(token)


def stage(text: str) -> None:
    """Say that the run enters stage ``text`` ("loading hf:…", "scoring with vader", "computing statistics");
    checks for a cancel first. Nothing outside :func:`watching`."""
    watch = _CURRENT.get()
    if watch is not None:
        check()
        watch.set_stage(text)


def progress(*, done: int, total: int, unit: str = "texts", detail: str = "") -> None:
    """Report ``done`` of ``total`` ``unit`` in the current stage, with ``detail`` (where the time goes) for the
    progress line. Nothing outside :func:`watching`."""
    watch = _CURRENT.get()
    if watch is not None:
        watch.report(int(done), int(total), unit, detail)


def check() -> None:
    """Raise :class:`Cancelled` if the watched run was cancelled; call it between units of work that are kept
    (after a batch is committed). Nothing outside :func:`watching`."""
    watch = _CURRENT.get()
    if watch is not None and watch.cancel.is_set():
        raise Cancelled(f"cancelled during {watch.stage or 'the run'}")


def current_stage() -> str:
    """The watched run's current stage ("" outside :func:`watching`)."""
    watch = _CURRENT.get()
    return watch.stage if watch is not None else ""


def kept(exc: BaseException) -> str:
    """What a cancelled or interrupted run kept, in words, from the facts the engine recorded on ``exc``:
    ``"1,200 of 8,640 texts scored with vader and kept in the cache data/cache/scores.sqlite"``, or how many reviews
    a BiasFinder templating stage had done; ``""`` when it stopped before either."""
    facts = getattr(exc, "toolkit_interrupt", {}) or {}
    if "scored" not in facts and "templated" in facts:
        return (f"{int(facts['templated']):,} of {int(facts.get('reviews', 0)):,} reviews templated (templates are "
                "not cached: Run again templates them again)")
    if "scored" not in facts:
        return ""
    stage_ = str(facts.get("stage", "scoring"))
    where = stage_.removeprefix("scoring ").strip()
    text = f"{int(facts['scored']):,} of {int(facts.get('total', 0)):,} texts scored{' ' + where if where else ''}"
    cache = facts.get("cache")
    return text + (f" and kept in the cache {cache}" if cache else " (cache off: nothing kept)")
