"""The run monitor: stages, progress with rate and ETA, and Cancel between committed batches."""
import threading

import numpy as np
import pandas as pd
import pytest
import synthetic_models

from toolkit import monitor
from toolkit.cache import ScoreCache
from toolkit.models import SentimentModel
from toolkit.models.base import Predictions
from toolkit.scoring import score


def _cases(n):
    texts = [f"text number {i}" for i in range(n)]
    return pd.DataFrame({"case_id": [f"c{i}" for i in range(n)], "variant_id": [f"v{i}" for i in range(n)],
                         "text": texts, "attribute": "gender", "group": "x", "fill": "", "generator": "test",
                         "template": "", "is_original": False})


class Counting(SentimentModel):
    """Batches of 10; sets ``event`` once ``cancel_after`` batches were predicted."""

    spec = "counting-monitor"
    batch_size = 10
    fingerprint = "counting-monitor-v1"

    def __init__(self, *, event=None, cancel_after=None):
        self.event, self.cancel_after, self.batches = event, cancel_after, 0

    def predict(self, texts):
        self.batches += 1
        if self.event is not None and self.batches == self.cancel_after:
            self.event.set()
        s = np.array(synthetic_models.counting(texts))
        return Predictions(s, ["positive" if v >= .5 else "negative" for v in s], np.zeros(len(texts), bool))


def test_outside_watching_the_hooks_do_nothing():
    monitor.stage("anything")
    monitor.progress(done=1, total=2)
    monitor.check()
    assert monitor.current_stage() == ""


def test_scoring_reports_stages_and_progress_per_committed_batch():
    stages, reports = [], []
    with monitor.watching(on_stage=stages.append, on_progress=reports.append):
        score(_cases(45), models=[Counting(), "afinn"], cache=False)
    assert stages == ["loading model afinn (2 of 2)", "scoring with counting-monitor (model 1 of 2)",
                      "scoring with afinn (model 2 of 2)", "computing statistics"]
    ours = [(p.done, p.total) for p in reports if p.stage.startswith("scoring with counting")]
    assert ours == [(0, 45), (10, 45), (20, 45), (30, 45), (40, 45), (45, 45)]
    assert all(p.unit == "texts" for p in reports)


def test_progress_rate_and_eta_come_from_the_stage_start(monkeypatch):
    clock = iter([100.0, 102.0, 104.0])
    monkeypatch.setattr(monitor.time, "perf_counter", lambda: next(clock))
    seen = []
    with monitor.watching(on_progress=seen.append):
        monitor.stage("scoring with x")
        monitor.progress(done=0, total=100)
        monitor.progress(done=20, total=100)   # 20 texts in 2 s
        monitor.progress(done=40, total=100)   # 40 in 4 s: 10/s, 60 left
    assert seen[0].rate is None and seen[0].eta_s is None
    assert seen[2].rate == pytest.approx(10.0) and seen[2].eta_s == pytest.approx(6.0)
    assert seen[2].describe() == "40 / 100 texts · 10 texts/s · ETA 6 s"
    assert seen[2].fraction == pytest.approx(0.4)


def test_cancel_stops_after_the_committed_batch_and_the_cache_keeps_it(tmp_path):
    event = threading.Event()
    model = Counting(event=event, cancel_after=3)
    with monitor.watching(cancel=event), pytest.raises(monitor.Cancelled) as caught:
        score(_cases(100), models=[model], cache=tmp_path / "scores.sqlite")
    assert model.batches == 3  # no batch after the cancel
    facts = caught.value.toolkit_interrupt
    assert (facts["scored"], facts["total"]) == (30, 100) and facts["cache"] == str(tmp_path / "scores.sqlite")
    assert monitor.kept(caught.value) == (f"30 of 100 texts scored with counting-monitor and kept in the cache "
                                          f"{tmp_path / 'scores.sqlite'}")
    with ScoreCache(tmp_path / "scores.sqlite") as cache:
        assert len(cache.get("counting-monitor-v1", [f"text number {i}" for i in range(100)])) == 30
    again = Counting()
    score(_cases(100), models=[again], cache=tmp_path / "scores.sqlite")  # resumes: 70 left, 7 batches
    assert again.batches == 7


def test_a_watch_in_one_thread_is_not_seen_by_another():
    seen, inner = [], []
    started, release = threading.Event(), threading.Event()

    def other():
        started.wait(5)
        inner.append(monitor.current_stage())
        release.set()

    thread = threading.Thread(target=other)
    thread.start()
    with monitor.watching(on_stage=seen.append):
        monitor.stage("mine")
        started.set()
        release.wait(5)
    thread.join(5)
    assert seen == ["mine"] and inner == [""]


def test_kept_words_what_an_interrupted_templating_or_scoring_stage_recorded():
    from toolkit.executors import note_interrupt

    templating = monitor.Cancelled("cancelled during templating")
    note_interrupt(templating, stage="templating", templated=750, reviews=1500)
    assert monitor.kept(templating).startswith("750 of 1,500 reviews templated")
    scoring = monitor.Cancelled("x")
    note_interrupt(scoring, stage="scoring with vader", scored=10, total=20, cache=None)
    assert monitor.kept(scoring) == "10 of 20 texts scored with vader (cache off: nothing kept)"
    assert monitor.kept(monitor.Cancelled("y")) == ""
