"""The BTC-SAM app accepts any spec (hf:, llm:) next to the named models, and the failure rule."""
from toolkit.studies.btcsam.app import btcsam_app


def test_btcsam_app_keeps_spec_strings_and_offers_both_failure_rules():
    app = btcsam_app(sets={}, models=["vader", "hf:/models/emotion", "llm:openai:m@http://127.0.0.1:1/v1"])
    assert app.specs() == ["vader", "hf:/models/emotion", "llm:openai:m@http://127.0.0.1:1/v1"]
    assert app.rule.value == "published" and tuple(app.rule.options) == ("published", "valence")


def test_btcsam_app_counts_a_model_ticked_and_typed_once_and_keeps_commas_inside_labels():
    app = btcsam_app(sets={}, models=["vader"])
    app.extra.value = "vader, hf:/models/three?labels=neg,neu,pos"
    assert app.specs() == ["vader", "hf:/models/three?labels=neg,neu,pos"]


def test_btcsam_app_without_sets_shows_the_coded_error_worded_for_the_app():
    app = btcsam_app(sets={}, models=["vader"], cache=False)
    assert app.run() is False
    assert app.error.startswith("[TK102] no test sets given.") and "sets={" not in app.error
    assert app.output.outputs == () and not app.button.disabled


def test_biasfinder_app_runs_models_and_shows_a_captioned_table4():
    from toolkit.studies.biasfinder.app import biasfinder_app

    app = biasfinder_app(models=["afinn"], n_names=3, max_templates=3, cache=False, n_boot=100)
    assert app.run(), app.status.value
    assert set(app.result.table4["model"]) == {"afinn"}
    tables = [o["data"]["text/html"] for o in app.output.outputs if "text/html" in o["data"]]
    assert len(tables) == 1 and "BiasFinder Table 4" in tables[0]
    # three templates in all: no characteristic has the two a rate test needs, and the caption says so
    assert app.result.provenance.settings["family_size"] == 0 and "no test of the BTC rate" in tables[0]
    assert len([o for o in app.output.outputs if "image/png" in o["data"]]) == 2
    _, pickers, holder = app.drill.children  # drill down: a template's mutant pairs
    (template,) = pickers.children
    assert set(template.options) == set(app.result.scored["case_id"])
    shown = holder.children[0].browser
    assert len(shown.pairs) > 0 and set(shown.pairs["model"]) == {"afinn"} and "<mark>" in shown.view.value


def test_biasfinder_caption_says_why_there_is_no_test_instead_of_over_0_tests():
    from toolkit.studies.biasfinder.captions import biasfinder_family as _biasfinder_family

    none = _biasfinder_family({"family_size": 0, "correction": "holm", "family": "model × characteristic"})
    assert "over 0" not in none and "within-class null" in none and "n_country_names" in none
    some = _biasfinder_family({"family_size": 3, "correction": "holm", "family": "model × characteristic"})
    assert some.startswith("Holm over 3 tests (model × characteristic)")


def test_btcsam_app_runs_a_small_test_set_end_to_end_with_its_table_figures_and_drill_down():
    import pandas as pd

    rows = [{"case_id": case, "variant_id": f"{case}-{term}", "text": template.format(term), "attribute": "religion",
             "group": term, "fill": term, "generator": "external:test", "template": "",
             "is_original": term == "Christian", "bias_type": "religion"}
            for case, template in (("c1", "The {} neighbours were kind."), ("c2", "My {} friend cooked a bad dinner."))
            for term in ("Christian", "Jewish", "Muslim")]
    app = btcsam_app(sets={"mini": pd.DataFrame(rows)}, models=["vader", "afinn"], cache=False)
    assert app.run(), app.status.value
    assert set(app.result.models) == {"vader", "afinn"}
    tables = [o["data"]["text/html"] for o in app.output.outputs if "text/html" in o["data"]]
    assert len(tables) == 1 and "BTC-SAM detection probability at θ = 0.2 (published rule; n = 2 cases" in tables[0]
    assert any("image/png" in o["data"] for o in app.output.outputs)
    _, pickers, holder = app.drill.children  # drill down: a test set × model cell, each case's extreme texts
    test_set, model = pickers.children
    assert list(test_set.options) == ["mini"] and set(model.options) == {"vader", "afinn"}
    shown = holder.children[0].browser
    assert len(shown.pairs) == 2 and set(shown.pairs["key"]) == {"mini/c1", "mini/c2"}
