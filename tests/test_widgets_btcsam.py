"""The BTC-SAM app accepts any spec (hf:, llm:) next to the named models, and the failure rule."""
from toolkit.widgets import btcsam_app


def test_btcsam_app_keeps_spec_strings_and_offers_both_failure_rules():
    app = btcsam_app(sets={}, models=["vader", "hf:/models/emotion", "llm:openai:m@http://127.0.0.1:1/v1"])
    assert app.specs() == ["vader", "hf:/models/emotion", "llm:openai:m@http://127.0.0.1:1/v1"]
    assert app.rule.value == "published" and tuple(app.rule.options) == ("published", "valence")
