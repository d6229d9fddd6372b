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


def test_psa_app_runs_and_the_slider_redraws_flips():
    from toolkit.widgets import psa_app

    app = psa_app(models=["afinn"], n=10, cache=False)
    app.run()
    assert app.result is not None and set(app.result.summary["model"]) == {"afinn"}
    app.threshold.value = 0.3  # observed: redraws from the stored result without re-scoring
    assert app.result.scored["case_id"].nunique() == 10
