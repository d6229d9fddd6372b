"""Cancel and progress in the apps: the run stops after a committed batch, the cache keeps what was scored, the
status line says how much, and the progress bar moves while scoring."""
import re
import threading
import time

import numpy as np

from toolkit.cache import ScoreCache

CALLS = []


def slow(texts):
    """A valence function slow enough to be cancelled mid-run (0.2 s per batch of 512)."""
    CALLS.append(len(texts))
    time.sleep(0.2)
    return np.full(len(texts), 0.5)


def _wait_for(condition, timeout=60.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_cancel_stops_the_eec_app_and_the_status_says_what_the_cache_kept(tmp_path):
    from toolkit.studies.eec.app import eec_app

    CALLS.clear()
    cache = tmp_path / "scores.sqlite"
    app = eec_app(models=[], cache=cache)
    app.extra.value = "py:test_widgets_cancel:slow"
    values = []
    app.bar.observe(lambda change: values.append(change["new"]), names="value")
    app.run(block=False)
    assert app.button.disabled and not app.cancel_button.disabled
    assert _wait_for(lambda: len(CALLS) >= 2), app.status.value
    app.cancel_button.click()
    app.wait(timeout=60)
    assert not app.running and not app.button.disabled and app.cancel_button.disabled
    status = app.status.value
    assert "cancelled during scoring with py:test_widgets_cancel:slow" in status, status
    kept = re.search(r"([\d,]+) of 8,640 texts scored", status)
    assert kept and f"kept in the cache {cache}" in status, status
    kept = int(kept.group(1).replace(",", ""))
    assert 0 < kept < 8640 and kept == sum(CALLS)  # every batch scored is kept, none after the cancel
    assert app.result is None and app.output.outputs == () and app.error is None
    from toolkit.models import load

    with ScoreCache(cache) as store:
        assert store.count(load("py:test_widgets_cancel:slow").fingerprint) == kept
    assert values and max(values) >= 1024 and values == sorted(values)  # the bar moved forward batch by batch


def test_cancel_before_scoring_says_nothing_was_scored(monkeypatch):
    from toolkit.studies import eec
    from toolkit.studies.eec.app import eec_app

    started, release = threading.Event(), threading.Event()
    real = eec.run

    def held(**kw):
        started.set()
        release.wait(30)
        return real(**kw)

    monkeypatch.setattr(eec, "run", held)
    app = eec_app(models=["afinn"], cache=False)
    app.run(block=False)
    assert started.wait(30)
    app.cancel()
    release.set()
    app.wait(timeout=60)
    assert "cancelled" in app.status.value and "before any text was scored" in app.status.value
    assert app.result is None and app.cancelled == "nothing scored yet"


def test_cancel_during_the_statistics_says_every_text_was_scored(monkeypatch):
    from toolkit.studies import eec
    from toolkit.studies.eec.app import eec_app

    started, release = threading.Event(), threading.Event()
    real = eec.ttests

    def held(*args, **kw):
        started.set()
        release.wait(30)
        return real(*args, **kw)

    monkeypatch.setattr(eec, "ttests", held)
    app = eec_app(models=["afinn"], cache=False)
    app.run(block=False)
    assert started.wait(60)
    assert "computing statistics" in app.status.value
    app.cancel()
    release.set()
    app.wait(timeout=120)
    assert "cancelled during computing statistics" in app.status.value
    assert "every text was scored" in app.status.value and app.result is None and app.output.outputs == ()
