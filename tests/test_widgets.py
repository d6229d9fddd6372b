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
