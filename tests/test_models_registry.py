import numpy as np
import pytest

from toolkit.errors import ModelOutputError, ModelSpecError, UnknownNameError
from toolkit.models import OFFLINE_DEFAULTS, available, load
from toolkit.models.lexicon import VaderModel


def test_available_lists_offline_models_and_patterns():
    names = available()
    assert set(OFFLINE_DEFAULTS) <= set(names)
    assert "hf:<hub-id-or-local-path>" in names and "py:<module>:<callable>" in names


def test_unknown_model_error_lists_valid_names():
    with pytest.raises(UnknownNameError) as info:
        load("vadr")
    message = str(info.value)
    assert "unknown model 'vadr'" in message and info.value.code == "TK103"
    for name in ("vader", "textblob", "afinn", "hf:<hub-id-or-local-path>"):
        assert name in message


@pytest.mark.parametrize("spec", OFFLINE_DEFAULTS)
def test_lexicon_models_order_positive_above_negative(spec):
    model = load(spec)
    out = model.predict(["This is a wonderful, happy day.", "This is a horrible, sad day.", "The table is brown."])
    assert out.score[0] > 0.5 > out.score[1]
    assert out.label[0] == "positive" and out.label[1] == "negative"
    assert np.all((out.score >= 0) & (out.score <= 1))


def test_vader_adapter_uses_the_compound_score():
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    text = "The food was good but the service was terrible."
    compound = SentimentIntensityAnalyzer().polarity_scores(text)["compound"]
    assert VaderModel().predict([text]).score[0] == pytest.approx((compound + 1) / 2)


def test_models_load_once_and_fingerprints_are_stable():
    assert load("vader") is load("vader")
    assert load("vader").fingerprint == VaderModel().fingerprint
    assert len({load(s).fingerprint for s in OFFLINE_DEFAULTS}) == len(OFFLINE_DEFAULTS)


def test_py_spec_loads_any_function():
    model = load("py:synthetic_models:blind")
    out = model.predict(["She feels angry.", "He feels angry."])
    assert out.score[0] == out.score[1] and 0 <= out.score[0] <= 1


@pytest.mark.parametrize("spec, pattern", [
    ("py:synthetic_models", "py:<module>:<callable>"),
    ("py:no_such_module_xyz:f", "cannot import module"),
    ("py:synthetic_models:nope", "has no attribute 'nope'"),
])
def test_py_spec_errors_say_what_is_wrong(spec, pattern):
    with pytest.raises(ModelSpecError, match=pattern):
        load(spec)


@pytest.mark.parametrize("spec, pattern", [("py:synthetic_models:out_of_range", r"outside \[0, 1\]"),
                                           ("py:synthetic_models:too_few", "returned 1 scores for 2 texts")])
def test_py_models_outputs_are_checked(spec, pattern):
    with pytest.raises(ModelOutputError, match=pattern):
        load(spec).predict(["a", "b"])
