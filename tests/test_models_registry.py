import numpy as np
import pytest

from toolkit.errors import ModelOutputError, ModelSpecError, UnknownNameError
from toolkit.models import OFFLINE_DEFAULTS, available, load, split_specs
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


# --- several specs in one text (issue 27) -----------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("vader, textblob", ["vader", "textblob"]),
    ("vader\ntextblob\n\n", ["vader", "textblob"]),
    ("hf:/m?labels=neg,neu,pos", ["hf:/m?labels=neg,neu,pos"]),
    ("vader, hf:/m?labels=neg,neu,pos", ["vader", "hf:/m?labels=neg,neu,pos"]),
    ("hf:/m?labels=neg,neu,pos, vader", ["hf:/m?labels=neg,neu,pos", "vader"]),
    ("hf:/m?labels=neg, neu, pos&max_length=8,\ntextblob", ["hf:/m?labels=neg,neu,pos&max_length=8", "textblob"]),
    ("hf:/a?labels=neg,pos, hf:/b?labels=x,y,z", ["hf:/a?labels=neg,pos", "hf:/b?labels=x,y,z"]),
    ("hf:/a?labels=neg,pos,", ["hf:/a?labels=neg,pos"]),
    ("hf:/a?labels=neg,pos, ait:svm-unigrams/valence, py:mod:f", ["hf:/a?labels=neg,pos", "ait:svm-unigrams/valence",
                                                                  "py:mod:f"]),
    ("llm:openai:m@http://127.0.0.1:8000/v1?key_env=K, afinn", ["llm:openai:m@http://127.0.0.1:8000/v1?key_env=K",
                                                               "afinn"]),
    (" , ,\n", []),
])
def test_split_specs_keeps_commas_inside_a_query_string(text, expected):
    assert split_specs(text) == expected


def test_split_specs_scores_a_spec_given_twice_once_and_says_so():
    with pytest.warns(UserWarning, match="more than once.*'vader'"):
        assert split_specs("vader, afinn, vader") == ["vader", "afinn"]
    with pytest.warns(UserWarning, match="'afinn'"):           # ticked in an app and typed in its field
        assert split_specs("afinn, textblob", selected=["vader", "afinn"]) == ["vader", "afinn", "textblob"]


def test_a_split_spec_with_labels_loads(tiny_bert_3class_dir):
    specs = split_specs(f"vader, hf:{tiny_bert_3class_dir}?labels=negative,neutral,positive")
    assert len(specs) == 2
    assert load(specs[1]).roles == ["negative", "neutral", "positive"]


@pytest.mark.parametrize("spec, meant", [("vadr", "vader"), ("Vader", "vader"), ("minilm", "minilm-imdb"),
                                         ("HF:/models/x", "hf:/models/x"), ("hff:/models/x", "hf:/models/x"),
                                         ("hf", "hf:<hub-id-or-local-path>")])
def test_unknown_model_hint_names_the_nearest_spec_in_words_for_python_and_apps(spec, meant):
    with pytest.raises(UnknownNameError) as info:
        load(spec)
    assert info.value.code == "TK103" and f"did you mean {meant!r}?" in info.value.fix
    assert "app's model field" in info.value.fix and "Python" in info.value.fix
    assert "load(" not in info.value.fix and "models=" not in info.value.fix   # not Python-only advice
    from toolkit.apps.messages import widget_message

    assert info.value.fix in widget_message(info.value)          # so an app shows it as it is


def test_several_specs_in_one_string_are_named_in_the_error():
    with pytest.raises(UnknownNameError, match=r"holds 2 specs \('vader', 'textblob'\)") as info:
        load("vader, textblob")
    assert "split_specs" in info.value.fix


# --- families registered by decorator (issue 33) -----------------------------------------------------------------

def test_models_registry_decorators_make_a_family_loadable(monkeypatch):
    from toolkit.models import registry
    from toolkit.models.base import Predictions, SentimentModel

    monkeypatch.setattr(registry, "NAMED", dict(registry.NAMED))
    monkeypatch.setattr(registry, "SCHEMES", dict(registry.SCHEMES))

    class Constant(SentimentModel):
        spec = "toy:"

        def __init__(self, spec: str = "constant", *, level: str = "0.5") -> None:
            self.spec, self.level = spec, float(level)

        @property
        def fingerprint(self) -> str:
            return f"constant-{self.level}"

        def predict(self, texts: list[str]) -> Predictions:
            return Predictions(np.full(len(texts), self.level), ["neutral"] * len(texts), np.zeros(len(texts), bool))

    registry.named("constant-test", options=("level",))(Constant)
    registry.scheme("toy:", patterns={"toy:<anything>": ()})(Constant)
    assert "constant-test" in available() and "toy:<anything>" in available()
    assert load("toy:abc").spec == "toy:abc"
    model = load("constant-test?level=0.25")
    assert model.spec == "constant-test?level=0.25" and model.predict(["a"]).score[0] == 0.25
    with pytest.raises(ModelSpecError, match="takes level"):
        load("constant-test?colour=red")
    with pytest.raises(UnknownNameError) as info:
        load("constant-tset")
    assert "constant-test" in str(info.value) and "toy:<anything>" in str(info.value)


def test_models_registry_every_builtin_family_is_registered_where_it_is_defined():
    from toolkit.models import registry

    assert {"vader", "textblob", "afinn", "minilm-imdb"} <= set(registry.NAMED)
    assert {"hf:", "py:", "llm:", "ait:"} <= set(registry.SCHEMES)
    assert registry.NAMED["vader"].factory.__module__ == "toolkit.models.lexicon"
    assert registry.NAMED["minilm-imdb"].factory.__module__ == "toolkit.models.minilm"
    assert registry.SCHEMES["hf:"].factory.__module__ == "toolkit.models.hf"
    assert registry.SCHEMES["ait:"].factory.__module__ == "toolkit.models.ait"
