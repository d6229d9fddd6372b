"""Models given as Python objects: functions, lambdas, a transformers pipeline and (model, tokenizer) pair built
from a tiny BERT saved to a temp folder, a scikit-learn TF-IDF + logistic-regression Pipeline: their labels,
fingerprints, scores (bit-identical to the hf: path), the engine, a study, the cache and every bad-object error."""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import textwrap
import types

import numpy as np
import pandas as pd
import pytest

from toolkit import checks
from toolkit.errors import InputError, LabelMappingError, ModelOutputError, ModelSpecError
from toolkit.models import load, load_all, wrap
from toolkit.scoring import ScoreRecord, score

TEXTS = ["the movie was good", "a bad film", "she feels angry", "my sister is happy and the film was great",
         " ".join(["it was not very good and the film is awful"] * 12)]  # the last is longer than 64 positions
TRAIN = (["a good film", "great movie", "good and great", "i was happy", "a bad film", "awful movie",
          "bad and awful", "i was angry"], ["pos"] * 4 + ["neg"] * 4)


def _cases(texts: list[str]) -> pd.DataFrame:
    n = len(texts)
    return pd.DataFrame({"case_id": [f"c{i}" for i in range(n)], "variant_id": [f"v{i}" for i in range(n)],
                         "text": texts, "attribute": "gender", "group": "female", "fill": "", "generator": "test",
                         "template": "", "is_original": False})


def _notebook_function(source: str, *, cell: str = "/tmp/ipykernel_1/123.py", name: str = "score",
                       namespace: dict | None = None):
    """``source`` run as a notebook cell runs it: compiled under a kernel's file name, in a ``__main__``
    namespace that is not a module file."""
    namespace = {"__name__": "__main__", "__builtins__": __builtins__} if namespace is None else namespace
    exec(compile(textwrap.dedent(source), cell, "exec"), namespace)
    return namespace[name]


def length_score(texts):
    return [min(1.0, len(t) / 100) for t in texts]


@pytest.fixture(scope="module")
def sklearn_clf():
    pytest.importorskip("sklearn", reason="scikit-learn is not installed (pip install -e .[dev])")
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    return make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(*TRAIN)


@pytest.fixture(scope="module")
def tiny_pipeline(tiny_bert_dir):
    from transformers import pipeline

    return pipeline("sentiment-analysis", model=str(tiny_bert_dir), device="cpu")


@pytest.fixture(scope="module")
def tiny_pair(tiny_bert_dir):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    return (AutoModelForSequenceClassification.from_pretrained(tiny_bert_dir),
            AutoTokenizer.from_pretrained(tiny_bert_dir))


# --- functions ----------------------------------------------------------------------------------------------------

def test_models_inmemory_importable_function_is_its_py_spec(tmp_path, monkeypatch):
    (tmp_path / "my_scorer.py").write_text("def score(texts):\n"
                                           "    return [0.25 + 0.5 * ('good' in t) for t in texts]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import my_scorer

    model = wrap(my_scorer.score)
    spec = load("py:my_scorer:score")
    assert model.spec == "py:my_scorer:score" and model.fingerprint == spec.fingerprint
    assert model.predict(TEXTS).score.tolist() == [0.75, 0.25, 0.25, 0.25, 0.75]


def test_models_inmemory_lambda_label_and_fingerprint_from_its_code():
    first, second = [lambda texts: [0.5] * len(texts), lambda texts: [0.75] * len(texts)]
    a, b = load(first), load(second)
    assert a.spec == b.spec == "fn:<lambda>"
    assert a.fingerprint != b.fingerprint  # the same label and module: told apart by their code
    assert load(first).fingerprint == a.fingerprint
    assert wrap(first, label="half").spec == "half" and wrap(first, version="2").fingerprint != a.fingerprint


def test_models_inmemory_notebook_function_fingerprint_ignores_file_and_lines_and_follows_the_body():
    body = """
        THRESHOLD = 0.3

        def helper(t):
            return 0.9 if "good" in t else THRESHOLD

        def score(texts):
            return [helper(t) for t in texts if t not in {"x", "y"}]
    """
    model = load(_notebook_function(body))
    assert model.spec == "fn:score"  # not reachable in the test process's __main__
    moved = load(_notebook_function("\n\n\n" + body, cell="/tmp/ipykernel_2/999.py"))  # another kernel, lower
    assert moved.fingerprint == model.fingerprint
    for changed in (body.replace("0.9", "0.8"),                       # the function's helper
                    body.replace("THRESHOLD = 0.3", "THRESHOLD = 0.4"),  # a plain global it reads
                    body.replace('"x", "y"', '"x", "z"')):             # a constant of its own
        assert load(_notebook_function(changed)).fingerprint != model.fingerprint


def test_models_inmemory_notebook_function_fingerprint_is_the_same_in_a_new_process():
    source = textwrap.dedent("""
        import sys
        from toolkit.models import wrap

        def score(texts):
            return [0.9 if t in {"good", "great", "fine"} else 0.1 for t in texts]

        print(wrap(score).fingerprint)
    """)
    prints = set()
    for seed in ("1", "2"):  # string hashing (a set constant's order) changes with the seed
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, env=env, timeout=300,
                              check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        prints.add(done.stdout.strip().splitlines()[-1])
    assert len(prints) == 1


def test_models_inmemory_notebook_function_reading_an_object_warns_that_it_is_not_covered():
    namespace = {"__name__": "__main__", "__builtins__": __builtins__, "weights": {"good": 1.0}}
    fn = _notebook_function("def score(texts):\n    return [weights.get(t, 0.5) for t in texts]\n",
                            namespace=namespace)
    with pytest.warns(UserWarning, match=r"weights \(dict\).*version="):
        load(fn)


def test_models_inmemory_function_task_and_fork_safe_attributes_are_read():
    def anger(texts):
        return [0.5] * len(texts)

    anger.task, anger.fork_safe = "anger", True
    model = load(anger)
    assert model.task == "anger" and model.fork_safe
    anger.task = "rage"
    with pytest.raises(ModelSpecError, match="declares the task 'rage'"):
        load(anger)


def test_models_inmemory_callable_objects_hash_their_state():
    class Threshold:
        def __init__(self, level: float) -> None:
            self.level = level

        def __call__(self, texts):
            return [self.level] * len(texts)

        def method(self, texts):
            return [self.level] * len(texts)

    low, high = Threshold(0.2), Threshold(0.8)
    assert load(low).spec == "fn:Threshold"
    assert load(low).fingerprint != load(high).fingerprint
    assert load(low.method).fingerprint != load(high.method).fingerprint
    scaled = functools.partial(lambda texts, level: [level] * len(texts), level=0.3)
    assert load(scaled).predict(["a"]).score.tolist() == [0.3]
    assert load(scaled).fingerprint != load(functools.partial(scaled.func, level=0.4)).fingerprint


# --- transformers: pipeline and (model, tokenizer) -----------------------------------------------------------------

def test_models_inmemory_pipeline_scores_bit_identical_to_the_hf_spec(tiny_bert_dir, tiny_pipeline):
    reference = load(f"hf:{tiny_bert_dir}")
    model = load(tiny_pipeline)
    assert model.spec == f"hf:{tiny_bert_dir}" and model.fingerprint == reference.fingerprint
    ours, theirs = model.predict(TEXTS), reference.predict(TEXTS)
    assert np.array_equal(ours.score, theirs.score) and ours.label == theirs.label
    assert ours.truncated.tolist() == theirs.truncated.tolist() == [False] * 4 + [True]
    # the pipeline's own answer (its softmax, no truncation needed for the short texts) agrees
    answers = tiny_pipeline(TEXTS[:4], top_k=None)
    positive = [next(d["score"] for d in row if d["label"] == "POSITIVE") for row in answers]
    assert np.allclose(ours.score[:4], positive, atol=1e-6)


def test_models_inmemory_pair_scores_bit_identical_to_the_hf_spec_in_either_order(tiny_bert_dir, tiny_pair):
    reference = load(f"hf:{tiny_bert_dir}")
    model, tokenizer = tiny_pair
    for pair in (tiny_pair, (tokenizer, model), list(tiny_pair)):
        wrapped = load(pair)
        assert wrapped.fingerprint == reference.fingerprint
        assert np.array_equal(wrapped.predict(TEXTS).score, reference.predict(TEXTS).score)
        ids, lengths = wrapped.encode(TEXTS)
        ref_ids, ref_lengths = reference.encode(TEXTS)
        assert [x.tolist() for x in ids] == [x.tolist() for x in ref_ids] and lengths.tolist() == ref_lengths.tolist()


def test_models_inmemory_pair_options_match_the_spec_options(tiny_bert_generic_dir):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    pair = (AutoModelForSequenceClassification.from_pretrained(tiny_bert_generic_dir),
            AutoTokenizer.from_pretrained(tiny_bert_generic_dir))
    with pytest.raises(LabelMappingError):  # LABEL_0/LABEL_1: the mapping must be given, as for hf:
        load(pair)
    wrapped = wrap(pair, labels=["negative", "positive"], max_length=16)
    reference = load(f"hf:{tiny_bert_generic_dir}?labels=negative,positive&max_length=16")
    assert wrapped.fingerprint == reference.fingerprint and wrapped.max_length == 16
    assert np.array_equal(wrapped.predict(TEXTS).score, reference.predict(TEXTS).score)
    with pytest.raises(ModelSpecError, match="unknown option 'revision'"):
        wrap(pair, revision="main")


def test_models_inmemory_pair_leaves_the_callers_model_and_tokenizer_as_they_are(tiny_bert_dir):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(tiny_bert_dir)
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert_dir)
    tokenizer.padding_side = "left"
    wrapped = wrap((model, tokenizer), dtype="int8")  # a precision change scores a copy
    assert next(model.parameters()).dtype == torch.float32 and wrapped.model is not model
    assert wrapped.tokenizer is not tokenizer and tokenizer.padding_side == "left"
    assert wrap((model, tokenizer)).model is model  # float32 where it is: scored in place, no copy


def test_models_inmemory_pipeline_and_pair_default_labels(tiny_bert_dir):
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    tokenizer = BertTokenizer.from_pretrained(tiny_bert_dir)
    unsaved = BertForSequenceClassification(BertConfig.from_pretrained(tiny_bert_dir))
    unsaved.config._name_or_path = ""
    assert load((unsaved, tokenizer)).spec == "hf:BertForSequenceClassification"


# --- scikit-learn -------------------------------------------------------------------------------------------------

def test_models_inmemory_sklearn_valence_is_the_positive_class_probability(sklearn_clf):
    model = load(sklearn_clf)
    assert model.spec == "sklearn:LogisticRegression"
    out = model.predict(TEXTS)
    probs = sklearn_clf.predict_proba(TEXTS)
    pos, neg = list(sklearn_clf.classes_).index("pos"), list(sklearn_clf.classes_).index("neg")
    assert np.array_equal(out.score, probs[:, pos])
    assert out.label == ["positive" if p[pos] > p[neg] else "negative" for p in probs]  # a tie: the first class
    assert out.top_label == list(sklearn_clf.predict(TEXTS))  # the classifier's own answer, its tie-break included


def test_models_inmemory_sklearn_classes_decide_the_positive_column(sklearn_clf):
    from sklearn.base import clone

    texts, words = TRAIN
    numeric = clone(sklearn_clf).fit(texts, [1 if w == "pos" else 0 for w in words])
    assert np.array_equal(load(numeric).predict(TEXTS).score, numeric.predict_proba(TEXTS)[:, 1])
    flipped = clone(sklearn_clf).fit(texts, ["good" if w == "pos" else "bad" for w in words])
    with pytest.raises(LabelMappingError, match="which class is positive") as info:
        load(flipped)
    assert "positive=" in info.value.fix and "labels=" in info.value.fix and info.value.code == "TK202"
    good = list(flipped.classes_).index("good")
    assert np.array_equal(wrap(flipped, positive="good").predict(TEXTS).score, flipped.predict_proba(TEXTS)[:, good])
    assert wrap(flipped, positive="good").fingerprint != wrap(flipped, positive="bad").fingerprint
    three = clone(sklearn_clf).fit(texts + ["it was a film", "a movie"], [0, 0, 0, 0, 2, 2, 2, 2, 1, 1])
    with pytest.raises(LabelMappingError, match="which class is positive"):
        load(three)
    mapped = wrap(three, labels="negative,neutral,positive").predict(TEXTS).score
    probs = three.predict_proba(TEXTS)
    assert np.allclose(mapped, probs[:, 2] + probs[:, 1] / 2)
    with pytest.raises(LabelMappingError, match="must be one of two classes"):
        wrap(three, positive=2)


def test_models_inmemory_sklearn_fingerprint_follows_the_fitted_state(sklearn_clf):
    from sklearn.base import clone

    again = clone(sklearn_clf).fit(*TRAIN)
    assert load(again).fingerprint == load(sklearn_clf).fingerprint
    refit = clone(sklearn_clf).fit(TRAIN[0] + ["good"], TRAIN[1] + ["neg"])
    assert load(refit).fingerprint != load(sklearn_clf).fingerprint


# --- the engine, a study, the cache --------------------------------------------------------------------------------

def _objects(kind: str, request):
    if kind == "function":
        return length_score
    if kind == "lambda":
        return [lambda texts: [0.25 + 0.5 * ("good" in t) for t in texts]][0]
    if kind == "pipeline":
        return request.getfixturevalue("tiny_pipeline")
    if kind == "pair":
        return request.getfixturevalue("tiny_pair")
    return request.getfixturevalue("sklearn_clf")


@pytest.mark.parametrize("kind", ["function", "lambda", "pipeline", "pair", "sklearn"])
def test_models_inmemory_scores_through_the_engine_and_a_rerun_is_all_cache_hits(kind, request, tmp_path):
    obj = _objects(kind, request)
    cases = _cases(TEXTS)
    first = score(cases, models=obj, cache=tmp_path / "cache", progress=False, record=(first_record := ScoreRecord()))
    spec = first["model"].iloc[0]
    assert first_record.inputs[spec]["cached_texts"] == 0
    second = score(cases, models=[obj], cache=tmp_path / "cache", progress=False, record=(second_record := ScoreRecord()))
    assert second_record.inputs[spec]["cached_texts"] == len(TEXTS)
    assert second_record.inputs[spec]["computed_inputs"] == 0
    assert np.array_equal(first["score"].to_numpy(), second["score"].to_numpy())
    assert np.array_equal(first["score"].to_numpy(), load(obj).predict(TEXTS).score)


def test_models_inmemory_objects_run_through_the_eec_study(tiny_pipeline, tiny_pair, sklearn_clf, tmp_path):
    try:
        from toolkit.studies import eec
        eec.run
    except (ImportError, AttributeError):
        from toolkit import eec

    models = [length_score, tiny_pipeline, wrap(tiny_pair, label="tiny-pair"), sklearn_clf]
    result = eec.run(models=models, subsets=["all"], n_boot=100, cache=tmp_path / "cache", progress=False)
    labels = ["py:test_models_inmemory:length_score", load(tiny_pipeline).spec, "tiny-pair",
              "sklearn:LogisticRegression"]
    assert result.models == labels
    assert set(result.tests["model"]) == set(labels)
    scored = result.scored
    pipe_scores = scored.loc[scored["model"] == labels[1], "score"].to_numpy()
    assert np.array_equal(pipe_scores, scored.loc[scored["model"] == "tiny-pair", "score"].to_numpy())
    again = eec.run(models=models, subsets=["all"], n_boot=100, cache=tmp_path / "cache", progress=False)
    assert all(again.provenance.inputs[spec]["computed_inputs"] == 0 for spec in labels)


# --- labels -------------------------------------------------------------------------------------------------------

def test_models_inmemory_two_models_with_one_label_name_wrap_label(tmp_path):
    first, second = [lambda texts: [0.5] * len(texts), lambda texts: [0.6] * len(texts)]
    for call in (lambda: load_all([first, second]),
                 lambda: score(_cases(TEXTS), models=[first, second], cache=False, progress=False)):
        with pytest.raises(InputError, match="both labelled 'fn:<lambda>'") as info:
            call()
        assert "wrap(obj, label=" in info.value.fix and info.value.code == "TK102"
    scored = score(_cases(TEXTS), models=[first, wrap(second, label="sixty")], cache=False, progress=False)
    assert sorted(set(scored["model"])) == ["fn:<lambda>", "sixty"]
    with pytest.raises(InputError, match="listed 2 times"):  # the same model twice is still refused as such
        score(_cases(TEXTS), models=[first, first], cache=False, progress=False)


def test_models_inmemory_wrap_relabels_a_spec_without_touching_the_loaded_model():
    relabelled = wrap("vader", label="VADER (lexicon)")
    assert relabelled.spec == "VADER (lexicon)" and load("vader").spec == "vader"
    assert relabelled.fingerprint == load("vader").fingerprint
    with pytest.raises(ModelSpecError, match="options"):
        wrap("vader", max_length=3)
    with pytest.raises(ModelSpecError, match="label=''"):
        wrap(length_score, label="")


def test_models_inmemory_model_list_takes_objects_as_specs(tiny_pair, sklearn_clf):
    assert checks.model_list(length_score) == [length_score]
    assert checks.model_list(tiny_pair) == [tiny_pair]  # one pair, not two models
    assert checks.model_list(sklearn_clf) == [sklearn_clf]
    assert checks.model_list(["vader", length_score, tiny_pair]) == ["vader", length_score, tiny_pair]
    with pytest.raises(InputError, match=r"got 3 \(int\)") as info:
        checks.model_list(["vader", 3])
    assert "predict_proba" in info.value.fix and "your-own-model" in info.value.fix


# --- bad objects --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("obj, code, pattern", [
    (3, "TK201", r"3 \(int\) is neither a model spec string nor a model object"),
    ({"texts": 1}, "TK201", "accepted objects: a transformers pipeline"),
    (lambda: [0.5], "TK201", "cannot be called with one argument"),
    (os.system, "TK201", "standard library"),
])
def test_models_inmemory_bad_objects_are_refused_at_load(obj, code, pattern):
    with pytest.raises(ModelSpecError, match=pattern) as info:
        load(obj)
    assert info.value.code == code and info.value.fix


@pytest.mark.parametrize("returns", [
    lambda texts: np.full(len(texts), 0.25),
    lambda texts: [[0.25] for _ in texts],  # one score per row
    lambda texts: np.full((len(texts), 1), 0.25),
    lambda texts: tuple(0.25 for _ in texts),
    lambda texts: pd.Series([0.25] * len(texts)),
    lambda texts: pd.DataFrame({"score": [0.25] * len(texts)}),  # one column: its rows are the scores
    lambda texts: np.array([0.25] * len(texts), dtype=object),
], ids=["array", "rows of one", "array of rows of one", "tuple", "series", "one-column frame", "object array"])
def test_models_inmemory_one_score_per_text_in_any_container_is_accepted(returns):
    scored = score(_cases(TEXTS), models=[returns], cache=False, progress=False)
    assert np.allclose(scored["score"], 0.25) and len(scored) == len(TEXTS)


@pytest.mark.parametrize("returns, pattern, fix", [
    (lambda texts: [0.5] * (len(texts) - 1), r"returned 4 scores for 5 texts", "exactly one score per input text"),
    (lambda texts: [float("nan")] * len(texts), r"returned NaN in 5 of 5 scores", "0.5 for no opinion"),
    (lambda texts: [1.5] * len(texts), r"outside \[0, 1\]", "valences in \\[0, 1\\]"),
    (lambda texts: ["positive"] * len(texts), "not numbers", "labels such as 'positive' are not scores"),
    (lambda texts: ["0.5"] * len(texts), "5 of 5 are strings, e.g. '0.5'", r"one float in \[0, 1\] per text\.$"),
    (lambda texts: np.array(["0.5"] * len(texts)), "strings, e.g. '0.5'", "one float"),
    (lambda texts: np.full((len(texts), 2), 0.5), r"shape \(5, 2\)", r"\[:, 1\]"),
    (lambda texts: [[0.3, 0.7] for _ in texts], r"rows of shape \(5, 2\)", r"\[:, 1\]"),  # a list, not an array
    (lambda texts: [{"label": "POSITIVE", "score": 0.9} for _ in texts], "dicts .* a transformers pipeline",
     r"toolkit\.models\.wrap\(pipe\)"),
    (lambda texts: [[{"label": "NEG", "score": 0.1}, {"label": "POS", "score": 0.9}] for _ in texts],  # top_k=None
     "dicts .* a transformers pipeline", r"wrap\(pipe\)"),
    (lambda texts: pd.DataFrame([[0.3, 0.7]] * len(texts)), r"shape \(5, 2\)", r"\[:, 1\]"),  # rows, not columns
    (lambda texts: [[0.3, 0.7]] + [[0.5]] * (len(texts) - 1), r"rows of different lengths \(1, 2\)", "one float"),
    (lambda texts: None, "returned None", "one per input text"),
])
def test_models_inmemory_bad_function_outputs_are_coded_errors_through_the_engine(returns, pattern, fix):
    with pytest.raises(ModelOutputError, match=pattern) as info:
        score(_cases(TEXTS), models=[returns], cache=False, progress=False)
    assert info.value.code == "TK203"
    assert re.search(fix, info.value.fix)


def test_models_inmemory_bad_classifiers_are_coded_errors(sklearn_clf):
    from sklearn.base import clone
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    with pytest.raises(ModelSpecError, match="has no classes_") as info:
        load(clone(sklearn_clf))  # not fitted
    assert "fit it first" in info.value.fix
    with pytest.raises(ModelSpecError, match="predict but no predict_proba") as info:
        load(make_pipeline(TfidfVectorizer(), LinearSVC()).fit(*TRAIN))
    assert "CalibratedClassifierCV" in info.value.fix
    numbers_only = LogisticRegression().fit([[0.0], [1.0]], ["neg", "pos"])
    with pytest.raises(ModelSpecError, match="predict_proba raised ValueError") as info:
        load(numbers_only)
    assert "Pipeline" in info.value.fix

    class Scores:
        classes_ = np.array(["neg", "pos"])

        def predict_proba(self, texts):
            return np.tile([2.0, -1.0], (len(texts), 1))

    with pytest.raises(ModelSpecError, match="not probabilities"):
        load(Scores())
    with pytest.raises(ModelSpecError, match="unknown option 'colour'"):
        wrap(sklearn_clf, colour="red")


def test_models_inmemory_bad_transformers_objects_are_coded_errors(tiny_bert_dir, tiny_pair):
    from transformers import AutoModel, pipeline

    with pytest.raises(ModelSpecError, match="feature-extraction pipeline is not a sentiment classifier"):
        load(pipeline("feature-extraction", model=str(tiny_bert_dir), device="cpu"))
    with pytest.raises(ModelSpecError, match="function_to_apply") as info:
        load(pipeline("sentiment-analysis", model=str(tiny_bert_dir), device="cpu", function_to_apply="sigmoid"))
    assert "without function_to_apply" in info.value.fix
    with pytest.raises(ModelSpecError, match="is not a sequence classifier") as info:
        load((AutoModel.from_pretrained(tiny_bert_dir), tiny_pair[1]))
    assert "AutoModelForSequenceClassification" in info.value.fix
    for alone in tiny_pair:  # callable, but half of a model
        with pytest.raises(ModelSpecError, match="alone cannot score texts") as info:
            load(alone)
        assert "(model, tokenizer)" in info.value.fix


def test_models_inmemory_registers_each_kind_in_the_registry():
    from toolkit.models import registry

    assert list(registry.OBJECTS) == ["transformers pipeline", "(model, tokenizer)", "predict_proba", "callable"]
    assert all(kind.factory.__module__ == "toolkit.models.inmemory" for kind in registry.OBJECTS.values())
    assert isinstance(registry.adapter_of(length_score), registry.ObjectKind)
    assert registry.adapter_of(types.SimpleNamespace()) is None


def test_models_inmemory_main_spec_and_object_share_a_fingerprint(monkeypatch):
    main = types.ModuleType("__main__")
    monkeypatch.setitem(sys.modules, "__main__", main)
    fn = _notebook_function("def cell_score(texts):\n    return [0.5] * len(texts)\n", name="cell_score",
                            namespace=vars(main))
    model = load(fn)
    assert model.spec == "py:__main__:cell_score"
    assert load("py:__main__:cell_score").fingerprint == model.fingerprint
    _notebook_function("def cell_score(texts):\n    return [0.25] * len(texts)\n", name="cell_score",
                       namespace=vars(main))  # the cell edited and run again
    redefined = load("py:__main__:cell_score")
    assert redefined.fingerprint != model.fingerprint and redefined.predict(["a"]).score.tolist() == [0.25]
