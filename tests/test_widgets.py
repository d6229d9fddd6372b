from toolkit.widgets import eec_app


def test_eec_app_runs_the_selected_models():
    app = eec_app(models=["afinn"], cache=False)
    app.extra.value = "py:synthetic_models:female_plus"
    app.subset.value = "neutral"
    app.button.click()
    assert app.result is not None
    assert set(app.result.tests["model"]) == {"afinn", "py:synthetic_models:female_plus"}
    assert set(app.result.tests["subset"]) == {"neutral"}


def test_eec_app_reports_a_bad_spec_without_raising():
    app = eec_app(models=["afinn"], cache=False)
    app.extra.value = "vadr"
    app.run()
    assert app.result is None
    assert app.error.startswith("[TK") and "vadr" in app.status.value and "Traceback" not in app.status.value
    assert not app.button.disabled and app.output.outputs == ()


def test_eec_app_disables_run_while_working_and_shows_its_figures_without_pyplot(monkeypatch):
    import matplotlib.pyplot as plt

    from toolkit import eec

    plt.close("all")
    app = eec_app(models=["afinn"], cache=False)
    seen = []
    real = eec.run
    monkeypatch.setattr(eec, "run", lambda **kw: seen.append((app.button.disabled, app.status.value)) or real(**kw))
    app.button.click()
    app.button.click()  # a second run replaces the first one's output
    assert [disabled for disabled, _ in seen] == [True, True] and "scoring" in seen[0][1]
    assert not app.button.disabled and "done" in app.status.value
    images = [o for o in app.output.outputs if "image/png" in o["data"]]
    assert len(images) == 4  # gender and race box plots and their mean-Δ interval plots, once each
    assert plt.get_fignums() == []


def test_psa_app_runs_and_the_slider_redraws_flips(monkeypatch):
    from toolkit import psa
    from toolkit.widgets import psa_app

    app = psa_app(models=["afinn"], n=10, cache=False)
    app.run()
    assert app.result is not None and set(app.result.summary["model"]) == {"afinn"}
    seen, scored_before = [], app.result
    real = psa.label_flips
    monkeypatch.setattr(psa, "label_flips", lambda scored, *, threshold: seen.append(threshold) or real(
        scored, threshold=threshold))
    app.threshold.value = 0.3
    assert seen == [0.3] and app.result is scored_before  # redrawn from the stored result, nothing re-scored


def test_eec_app_task_picker_offers_that_tasks_systems_and_keeps_other_specs():
    from toolkit.models import ait

    app = eec_app(models=["vader", "py:synthetic_models:female_plus"], cache=False)
    assert app.task.value == "valence" and "vader" in app.models.options
    assert "ait:svm-unigrams/valence" in app.models.options  # the valence zoo sits beside the named models
    assert app.models.value == ("vader",) and app.extra.value == "py:synthetic_models:female_plus"  # not dropped
    app.task.value = "anger"
    assert list(app.models.options) == ait.specs("anger") and "vader" not in app.models.options
    assert set(app.models.value) == set(ait.specs("anger"))  # the task's defaults
    app.task.value = "all"
    assert len(app.models.options) == 5 * len(ait.specs("anger"))
