"""The apps' one runner with an injected fake study: arguments in, result presented, Run/Cancel states, stages and
progress, coded and unexpected errors, warnings as notes, cancel (running, queued), and each app's fields reaching
its study function. No model is loaded and nothing is scored here (the real runs: test_widgets*.py)."""
from __future__ import annotations

import threading
import warnings

import pandas as pd
import pytest

from toolkit import monitor
from toolkit.apps import Runner, table
from toolkit.errors import InputError
from toolkit.studies.biasfinder.app import biasfinder_app
from toolkit.studies.btcsam.app import btcsam_app
from toolkit.studies.eec.app import eec_app
from toolkit.studies.psa.app import psa_app


class Echo(Runner):
    """The smallest app: no fields; ``run(**arguments)`` hands them to the study, ``present`` shows a table."""

    def __init__(self, *, study) -> None:
        self._controls()
        self.study = study
        self.presented: list = []

    def present(self, result) -> None:
        self.presented.append(result)
        self._show(table(pd.DataFrame({"x": [0.12345]}), caption="echo"))

    def run(self, *, block: bool = True, **arguments) -> bool:
        return self.launch("echo", arguments, block=block)


def test_the_runner_calls_the_injected_study_with_the_arguments_and_presents_its_result():
    seen = []

    def study(**arguments):
        seen.append((arguments, app.button.disabled, app.cancel_button.disabled, app.running))
        monitor.stage("scoring with fake")
        monitor.progress(done=5, total=10)
        return "the result"

    app = Echo(study=study)
    statuses = []
    app.status.observe(lambda change: statuses.append(change["new"]), names="value")
    assert app.run(models=["m"], n=3) is True
    assert seen == [({"models": ["m"], "n": 3}, True, False, True)]  # Run disabled, Cancel enabled while working
    assert app.result == "the result" and app.presented == ["the result"] and app.error is None
    assert any("scoring with fake" in s for s in statuses) and any("drawing tables and figures" in s for s in statuses)
    assert "done in" in app.status.value and not app.button.disabled and app.cancel_button.disabled
    assert "0.123" in app.output.outputs[0]["data"]["text/html"] and not app.export_button.disabled


def test_a_coded_error_of_the_study_is_one_line_worded_for_the_fields_and_clears_the_output():
    calls = []

    def study(**arguments):
        calls.append(arguments)
        if len(calls) > 1:
            raise InputError("no models given.", fix="pass e.g. models=['vader'].")
        return "first"

    app = Echo(study=study)
    assert app.run() and app.output.outputs
    assert app.run() is False
    assert app.error == "[TK102] no models given. Fix: change the app's fields (see the message) and press Run again."
    assert "✖" in app.status.value and "Traceback" not in app.status.value
    assert app.result is None and app.output.outputs == () and app.drill.children == ()


def test_an_unexpected_error_is_named_in_the_app_and_raised_by_wait():
    def study(**_):
        raise ValueError("boom")

    app = Echo(study=study)
    app.run(block=False)
    with pytest.raises(ValueError, match="boom"):
        app.wait(timeout=60)
    assert app.error == "unexpected ValueError: boom" and app.result is None
    assert "Traceback" in "".join(o.get("text", "") for o in app.output.outputs)  # the traceback, in the app


def test_the_studys_warnings_are_notes_in_the_status_line_and_the_kernels_filters_stay():
    def study(**_):
        warnings.warn("12 rows were truncated", UserWarning, stacklevel=1)
        warnings.warn("12 rows were truncated", UserWarning, stacklevel=1)  # said once
        return "ok"

    filters = list(warnings.filters)
    app = Echo(study=study)
    assert app.run()
    assert app.notes == ["12 rows were truncated"] and "note: 12 rows were truncated" in app.status.value
    assert warnings.filters == filters


def test_cancel_while_the_study_runs_stops_it_at_its_next_check():
    entered, release = threading.Event(), threading.Event()

    def study(**_):
        monitor.stage("scoring with fake")
        entered.set()
        assert release.wait(120)
        monitor.check()  # the engine checks after each committed batch
        pytest.fail("the cancel did not stop the study")

    app = Echo(study=study)
    app.run(block=False)
    assert entered.wait(120)
    app.cancel_button.click()
    assert "cancelling after the current batch" in app.status.value and app.cancel_button.disabled
    release.set()
    app.wait(timeout=120)
    assert not app.running and app.result is None and app.error is None
    assert app.cancelled == "nothing scored yet" and "cancelled during scoring with fake" in app.status.value
    assert not app.button.disabled and app.cancel_button.disabled


def test_a_run_queued_behind_another_apps_run_starts_when_it_ends_and_a_cancelled_one_never_does():
    gate, entered, order = threading.Event(), threading.Event(), []

    def held(**_):
        entered.set()
        assert gate.wait(120)
        order.append("first")
        return "first"

    first, second, third = Echo(study=held), Echo(study=lambda **_: order.append("second") or "second"), \
        Echo(study=lambda **_: order.append("third") or "third")
    waiting = threading.Event()
    second.status.observe(lambda change: "waiting for another app" in change["new"] and waiting.set(),
                          names="value")
    try:
        first.run(block=False)
        assert entered.wait(120)
        second.run(block=False)
        third.run(block=False)
        assert waiting.wait(120)
        third.cancel()
        third.wait(timeout=120)
        assert "never started" in third.cancelled and first.running
    finally:
        gate.set()
        first.wait(timeout=120)
        second.wait(timeout=120)
    assert order == ["first", "second"] and second.result == "second" and third.result is None


def test_cancel_after_the_run_ended_changes_nothing():
    app = Echo(study=lambda **_: "done")
    assert app.run()
    status = app.status.value
    app.cancel()
    assert app.status.value == status and not app._cancel.is_set()


def _recording(into: list):
    def study(**arguments):
        into.append(arguments)
        raise InputError("recorded.", fix="none needed.")

    return study


def test_each_app_hands_its_fields_to_its_study_function(tmp_path):
    seen: list = []
    app = eec_app(models=["afinn"], cache=tmp_path, study=_recording(seen))
    app.extra.value, app.subset.value = "py:synthetic_models:blind", "neutral"
    assert app.run() is False and "recorded" in app.error
    assert seen[-1] == {"models": ["afinn", "py:synthetic_models:blind"], "task": "valence", "subsets": ["neutral"],
                        "cache": tmp_path, "progress": False}
    app = psa_app(corpus="reviews.csv", models=["vader"], n=7, cache=False, study=_recording(seen))
    app.names.value = " names.csv "
    app.run()
    assert seen[-1] == {"corpus": "reviews.csv", "models": ["vader"], "names": "names.csv", "n": 7, "cache": False,
                        "progress": False}
    app = biasfinder_app(models=["vader"], n_names=4, max_templates=2, cache=False, study=_recording(seen),
                         lists="paper")
    app.run()
    assert seen[-1] == {"corpus": "sample", "models": ["vader"], "n_names": 4, "max_templates": 2, "cache": False,
                        "progress": False, "lists": "paper"}
    sets = {"mini": pd.DataFrame({"text": ["a"]})}
    app = btcsam_app(sets=sets, models=["vader"], cache=False, study=_recording(seen))
    app.theta.value, app.rule.value = 0.1, "valence"
    app.run()
    assert seen[-1] == {"sets": sets, "models": ["vader"], "theta": 0.1, "rule": "valence", "cache": False,
                        "progress": False}


def test_toolkit_widgets_still_exports_the_apps_and_warns_naming_their_new_homes():
    import importlib

    import toolkit.apps
    import toolkit.studies.biasfinder.annotation
    from toolkit.studies.biasfinder import app as biasfinder_app
    from toolkit.studies.btcsam import app as btcsam_app
    from toolkit.studies.eec import app as eec_app
    from toolkit.studies.psa import app as psa_app

    with pytest.warns(DeprecationWarning, match="toolkit.widgets moved to toolkit.studies.<study>.app"):
        import toolkit.widgets as shim
        importlib.reload(shim)
    homes = {"eec_app": eec_app, "EECApp": eec_app, "psa_app": psa_app, "PSAApp": psa_app,
             "biasfinder_app": biasfinder_app, "BiasFinderApp": biasfinder_app, "btcsam_app": btcsam_app,
             "BTCSAMApp": btcsam_app, "ModelField": toolkit.apps, "table": toolkit.apps,
             "widget_message": toolkit.apps}
    for name, home in homes.items():
        assert getattr(shim, name) is getattr(home, name), name
    for name in ("annotation_app", "AnnotationApp", "upsert_annotation", "ANNOTATION_LOCK_TIMEOUT_S"):
        assert getattr(shim, name) is getattr(toolkit.studies.biasfinder.annotation, name), name