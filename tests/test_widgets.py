import html

import pandas as pd
import pytest

from toolkit.apps.messages import widget_message
from toolkit.errors import InputError
from toolkit.studies.eec.app import eec_app


@pytest.fixture(scope="module")
def eec_result():
    """One real EEC run (afinn and vader, subset all) for the tests about what the app shows of a result: the study
    is run once here and handed to those apps by an injected study function (:func:`replaying`)."""
    from toolkit.studies import eec

    return eec.run(models=["afinn", "vader"], subsets=["all"], cache=False, progress=False, n_boot=200)


def replaying(result):
    """A study function for an app: checks and loads the model specs as ``eec.run`` does (a bad spec is its coded
    error), then returns ``result`` instead of scoring and testing again."""
    from toolkit import checks
    from toolkit.models import load_all

    def study(*, models, **_):
        load_all(checks.model_list(models))
        return result

    return study


def test_eec_app_runs_the_selected_models():
    app = eec_app(models=["afinn"], cache=False)
    app.extra.value = "py:synthetic_models:female_plus"
    app.subset.value = "neutral"
    app.button.click()  # the button runs in a thread; wait() joins it
    app.wait()
    assert app.result is not None
    assert set(app.result.tests["model"]) == {"afinn", "py:synthetic_models:female_plus"}
    assert set(app.result.tests["subset"]) == {"neutral"}


def test_eec_app_reports_a_bad_spec_without_raising():
    app = eec_app(models=["afinn"], cache=False)
    app.extra.value = "vadr"
    assert app.run() is False
    assert app.result is None
    assert app.error.startswith("[TK") and "vadr" in app.status.value and "Traceback" not in app.status.value
    assert not app.button.disabled and app.cancel_button.disabled and app.output.outputs == ()


def test_a_failed_run_clears_the_previous_output(eec_result):
    app = eec_app(models=["afinn"], cache=False, study=replaying(eec_result))
    assert app.run() and len(app.output.outputs) > 0
    app.models.value = ()
    app.extra.value = "vadr"
    assert app.run() is False
    assert app.output.outputs == () and app.result is None


def test_a_fix_that_speaks_python_is_worded_for_the_apps_fields():
    app = eec_app(models=["afinn"], cache=False)
    app.models.value = ()
    app.run()  # no model at all: the API's fix says "pass e.g. models=[...]"
    assert app.error.startswith("[TK102]") and "models=" not in app.error and "pass" not in app.error
    assert "Fix: change the app's fields" in app.error
    plain = InputError("x is wrong.", fix="check the spelling.")
    assert widget_message(plain) == "[TK102] x is wrong. Fix: check the spelling."


def test_eec_app_disables_run_while_working_shows_its_stages_and_figures_without_pyplot(monkeypatch):
    import matplotlib.pyplot as plt

    from toolkit.studies import eec

    plt.close("all")
    app = eec_app(models=["afinn"], cache=False)
    seen, statuses = [], []
    app.status.observe(lambda change: statuses.append(change["new"]), names="value")
    real = eec.run
    monkeypatch.setattr(eec, "run", lambda **kw: seen.append((app.button.disabled, app.cancel_button.disabled))
                        or real(**kw))
    app.button.click()
    app.wait()
    app.button.click()  # a second run replaces the first one's output
    app.wait()
    assert seen == [(True, False), (True, False)]  # Run disabled, Cancel enabled while working
    assert not app.button.disabled and app.cancel_button.disabled and "done" in app.status.value
    stages = [s for s in statuses if "⏳" in s]
    assert any("scoring with afinn" in s for s in stages) and any("computing statistics" in s for s in stages)
    assert any("drawing" in s for s in stages)
    images = [o for o in app.output.outputs if "image/png" in o["data"]]
    assert len(images) == 4  # gender and race box plots and their mean-Δ interval plots, once each
    assert plt.get_fignums() == []


def test_eec_app_tables_carry_a_caption_with_the_correction_family_and_one_number_format(eec_result):
    app = eec_app(models=["afinn", "vader"], cache=False, study=replaying(eec_result))
    app.run()
    tables = [o["data"]["text/html"] for o in app.output.outputs if "text/html" in o["data"]]
    assert len(tables) == 3 and all("<caption" in t for t in tables)  # a paper table per attribute, then the per-system one
    assert sum("EEC per system" in t for t in tables) == 1
    assert "Bonferroni over 4 tests" in tables[0] and "changes with the systems selected" in tables[0]
    assert "n = 2 systems" in tables[0]
    import re

    numbers = re.findall(r">\s*(-?\d+\.\d+)\s*<", "".join(tables))
    assert numbers and all(len(n.split(".")[1]) == 3 for n in numbers)  # three decimals everywhere


def test_psa_app_runs_and_the_slider_redraws_flips(monkeypatch):
    from toolkit.studies import psa
    from toolkit.studies.psa.app import psa_app

    app = psa_app(models=["afinn"], n=10, cache=False)
    app.run()
    assert app.result is not None and set(app.result.summary["model"]) == {"afinn"}
    seen, scored_before = [], app.result
    real = psa.label_flips
    monkeypatch.setattr(psa, "label_flips", lambda scored, *, threshold: seen.append(threshold) or real(
        scored, threshold=threshold))
    app.threshold.value = 0.3
    assert seen == [0.3] and app.result is scored_before  # redrawn from the stored result, nothing re-scored


def test_psa_app_says_in_words_the_score_sens_figure_it_does_not_draw():
    from toolkit.studies.psa.app import psa_app

    app = psa_app(models=["textblob", "vader"], n=10, cache=False)
    assert app.run(), app.status.value
    shown = [o.get("data", {}).get("text/html", "") for o in app.output.outputs]
    notes = [h for h in shown if "psa-not-drawn" in h]
    assert any("textblob gives every name the same score" in n for n in notes) and all("No figure" in n for n in notes)
    drawn = app.result.figures()
    assert "psa_score_sens_textblob" not in drawn and "psa_label_dist" in drawn
    assert len(notes) == sum(f"psa_score_sens_{m}" not in drawn for m in ("textblob", "vader"))  # each missing one said


def test_psa_app_takes_a_spec_with_commas_inside_labels_and_counts_a_ticked_and_typed_model_once(
        tiny_bert_generic_dir):
    from toolkit.studies.psa.app import psa_app

    spec = f"hf:{tiny_bert_generic_dir}?labels=negative,positive"
    app = psa_app(models=["afinn"], n=6, cache=False)
    app.extra.value = f"{spec}, afinn"
    assert app.specs() == ["afinn", spec]
    assert app.run(), app.status.value
    assert set(app.result.summary["model"]) == {"afinn", spec}
    assert "given more than once, scored once: 'afinn'" in html.unescape(app.status.value)  # a note, not an error


def test_psa_app_says_how_many_rows_a_short_max_length_truncated(tiny_bert_dir):
    from toolkit.studies.psa.app import psa_app

    spec = f"hf:{tiny_bert_dir}?max_length=4"
    app = psa_app(models=[spec], n=6, cache=False)
    assert app.models.value == () and app.extra.value == spec  # not a named model: typed
    assert app.run(), app.status.value
    rows = len(app.result.scored)
    assert f"{rows:,} of {rows:,} rows (100.0%) were truncated at max_length=4" in app.status.value
    assert app.result.provenance.inputs[spec]["truncated_rows"] == rows


def test_eec_app_task_picker_offers_that_tasks_systems_and_clears_typed_specs_of_another_task():
    from toolkit.models import ait

    app = eec_app(models=["vader", "py:synthetic_models:female_plus"], cache=False)
    assert app.task.value == "valence" and "vader" in app.models.options
    assert "ait:svm-unigrams/valence" in app.models.options  # the valence zoo sits beside the named models
    assert app.models.value == ("vader",) and app.extra.value == "py:synthetic_models:female_plus"  # not dropped
    app.task.value = "anger"
    assert list(app.models.options) == ait.specs("anger") and "vader" not in app.models.options
    assert set(app.models.value) == set(ait.specs("anger"))  # the task's defaults
    assert app.extra.value == "" and "cleared py:synthetic_models:female_plus" in app.status.value
    app.extra.value = "hf:/some/model?task=anger"
    app.task.value = "all"
    assert len(app.models.options) == 5 * len(ait.specs("anger"))
    assert app.extra.value == "hf:/some/model?task=anger"  # still fits: kept
    app.task.value = "valence"
    assert app.extra.value == ""


@pytest.mark.parametrize("text, specs", [
    ("vader, afinn", ["vader", "afinn"]),
    ("hf:/m?labels=neg,neu,pos, vader", ["hf:/m?labels=neg,neu,pos", "vader"]),
    ("hf:/m?labels=neg,pos,py:mod:fn", ["hf:/m?labels=neg,pos", "py:mod:fn"]),
    (" , ", []),
])
def test_more_specs_field_keeps_commas_inside_labels(text, specs):
    app = eec_app(models=[], cache=False)
    app.extra.value = text
    assert app.specs() == specs


def test_eec_app_drills_down_from_a_system_to_its_sentence_pairs_with_the_changed_words():
    app = eec_app(models=["afinn", "vader"], cache=False)
    assert app.drill.children == ()
    app.run()
    _, pickers, holder = app.drill.children
    system, attribute = pickers.children
    assert list(system.options) == ["afinn", "vader"] and list(attribute.options) == ["gender", "race"]
    shown = holder.children[0].browser
    assert set(shown.pairs["model"]) == {"afinn"} and len(shown.pairs) > 0
    assert "<mark>" in shown.view.value
    system.value, attribute.value = "vader", "race"
    shown = holder.children[0].browser
    assert set(shown.pairs["model"]) == {"vader"} and set(shown.pairs["group_a"]) == {"African-American"}
    app.extra.value = "vadr"
    app.run()  # a failed run clears the drill-down too
    assert app.drill.children == ()


def test_an_app_run_exports_one_self_contained_report_with_its_tables_and_figures(tmp_path, eec_result):
    app = eec_app(models=["afinn"], cache=False, study=replaying(eec_result))
    with pytest.raises(InputError, match="no finished run"):
        app.export_report(tmp_path / "none.html")
    assert app.export_button.disabled
    assert app.run() and not app.export_button.disabled
    path = app.export_report(tmp_path / "eec.html")
    page = path.read_text()
    shown = sum("image/png" in o.get("data", {}) for o in app.output.outputs)
    assert shown >= 2 and page.count("<img") == shown  # every figure the app showed
    assert "EEC gender, subset all" in page and "EEC race, subset all" in page  # the captioned tables
    assert "afinn" in page and "http://" not in page.replace("http://www.w3.org", "")  # nothing loaded from outside
    app.export_button.click()  # the button writes to data/reports and says where
    assert "report written to" in app.status.value and app.report_path.exists()
    app.report_path.unlink()


def test_an_app_run_exports_its_paper_tables_as_latex_with_its_provenance(tmp_path, eec_result):
    import json

    app = eec_app(models=["afinn", "vader"], cache=False, study=replaying(eec_result))
    assert app.latex_button in app._buttons().children and app.latex_button.disabled
    with pytest.raises(InputError, match="no finished run"):
        app.export_latex(tmp_path / "none")
    assert app.run() and not app.latex_button.disabled
    written = app.export_latex(tmp_path / "eec")
    names = {p.name for p in written}
    assert {"eec_table5.tex", "eec_table7.tex"} <= names  # the paper's Tables 5 and 7 (6 needs the emotion subsets)
    table = (tmp_path / "eec" / "eec_table5.tex").read_text()
    assert "\\toprule" in table and "\\bottomrule" in table
    assert "afinn" in (tmp_path / "eec" / "eec_table5_systems.tex").read_text()  # a row per system
    record = json.loads((tmp_path / "eec" / "provenance.json").read_text())
    assert [m["spec"] for m in record["models"]] == ["afinn", "vader"] and record["settings"]  # not empty
    app.latex_button.click()  # the button writes to data/reports/<app>-<time>/ and says where
    assert "LaTeX table(s) written to" in app.status.value and app.latex_paths
    report_path = app.export_report(tmp_path / "eec.html")
    page = report_path.read_text()
    assert "fingerprint" in page.lower() and "settings" in page.lower()  # full provenance, not ``settings: {}``


def test_app_tables_escape_their_cells():
    from toolkit.apps.tables import table

    shown = table(pd.DataFrame({"model": ["hf:/m?labels=<b>neg</b>,pos"], "x": [0.5]}), caption="c").to_html()
    assert "&lt;b&gt;neg&lt;/b&gt;" in shown and "<b>neg</b>" not in shown


def test_two_apps_run_at_once_leave_the_kernels_warnings_as_they_were():
    import warnings

    def warning(**kw):  # a study that warns, as a real run does (truncated rows, skipped texts)
        warnings.warn(f"a note from {kw['models']}", UserWarning, stacklevel=1)
        raise InputError("stopped after warning.", fix="none needed.")

    impl, filters = warnings._showwarnmsg_impl, list(warnings.filters)
    first, second = eec_app(models=["afinn"], study=warning), eec_app(models=["textblob"], study=warning)
    first.run(block=False)
    second.run(block=False)
    first.wait()
    second.wait()
    assert first.error.startswith("[TK102] stopped") and second.error.startswith("[TK102] stopped")
    assert warnings._showwarnmsg_impl is impl and warnings.filters == filters


def test_cancel_after_a_finished_run_changes_nothing(eec_result):
    app = eec_app(models=["afinn"], cache=False, study=replaying(eec_result))
    assert app.run()
    done = app.status.value
    app.cancel()
    assert app.status.value == done and not app._cancel.is_set()
