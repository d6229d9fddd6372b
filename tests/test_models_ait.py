from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from toolkit.cases import TASKS
from toolkit.corpora import semeval2018
from toolkit.errors import ModelSpecError, UnknownNameError
from toolkit.models import ait, available, load, task_of
from toolkit.scoring import score

LINEAR = ("svm-unigrams", "svr-ngrams", "ridge-chars", "lexicon-ridge")


def test_every_system_of_every_task_is_listed_with_its_task():
    names = available()
    for task in TASKS:
        for system in ait.SYSTEMS:
            assert f"ait:{system}/{task}" in names
            assert task_of(f"ait:{system}/{task}") == task
    assert len(ait.specs("all")) == len(TASKS) * len(ait.SYSTEMS) >= 25
    assert task_of("py:synthetic_models:joy_female_minus") == "joy" and task_of("vader") == "valence"


@pytest.mark.parametrize("spec, error, message", [
    ("ait:svm-unigram/anger", UnknownNameError, "unknown ait system 'svm-unigram'; available: ensemble"),
    ("ait:svm-unigrams/surprise", UnknownNameError, "unknown task 'surprise'; available: anger"),
    ("ait:svm-unigrams", ModelSpecError, "not of the form 'ait:<system>/<task>'"),
])
def test_bad_ait_specs_list_the_valid_names(spec, error, message):
    with pytest.raises(error, match=message):
        load(spec)


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("system", LINEAR)
def test_linear_systems_score_their_task_in_unit_range(system, task):
    model = load(f"ait:{system}/{task}")
    assert model.task == task and 0.2 < model.pearson < 1 and 0 < model.pearson_dev < 1
    texts = {"anger": ["I am furious and outraged, this is infuriating!", "What a calm, lovely afternoon."],
             "fear": ["I am terrified and panicking, so scared of the horror.", "What a calm, lovely afternoon."],
             "joy": ["So happy and delighted, what a wonderful joyful day!", "Everything is awful and I hate it."],
             "sadness": ["I feel so sad, depressed and heartbroken, crying all night.", "So happy and delighted!"],
             "valence": ["So happy and delighted, what a wonderful day!", "Everything is awful and I hate it."]}[task]
    out = model.predict(texts)
    assert out.score[0] > out.score[1] and np.all((out.score >= 0) & (out.score <= 1))
    expected = ("positive", "negative") if task == "valence" else ("high", "low")
    assert {lab for lab in out.label} <= set(expected)


SEMEVAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "semeval2018"


def test_the_baseline_is_svm_unigrams():
    entry = ait.artefact("anger")["systems"]["svm-unigrams"]
    assert entry["regressor"] == "SVR(kernel='linear')" and entry["vectorizer"]["ngram_range"] == [1, 1]
    assert entry["hyperparameters"]["C"] in (1.0, 0.3, 0.1, 0.03, 0.01)


@pytest.mark.skipif(not SEMEVAL.is_dir(), reason="../shared/data/semeval2018 is not on this machine")
@pytest.mark.parametrize("system", ["svm-unigrams", "lexicon-ridge"])
def test_shipped_weights_reproduce_the_recorded_test_pearson(system):
    gold = semeval2018.load(SEMEVAL / semeval2018.file_name("joy", "test-gold"))
    model = ait.AITModel(f"ait:{system}/joy")
    r = stats.pearsonr(gold["intensity"], model.predict(gold["text"].tolist()).score)[0]
    assert r == pytest.approx(model.pearson, abs=1e-9)


def test_out_of_range_predictions_are_clipped_and_counted(eec_cases):
    model = ait.AITModel("ait:svm-unigrams/joy")
    model._all = {"systems": {**model._all["systems"],
                              "svm-unigrams": {**model.entry, "bias": model.entry["bias"] + 5.0}}}
    model.spec = "ait:svm-unigrams/joy"
    texts = ["So happy!", "So sad.", "A table."]
    out = model.predict(texts)
    assert out.score.tolist() == [1.0, 1.0, 1.0] and model.clips == {"predicted": 3, "below_0": 0, "above_1": 3}
    scored = score(eec_cases.head(40), models=[model], cache=False)
    assert ait.clip_counts(scored) == {"ait:svm-unigrams/joy": {"rows": 40, "clipped_to_0": 0, "clipped_to_1": 40}}
    assert model.clips["above_1"] == 3 + scored["text"].nunique()


def test_pearson_table_has_every_system_and_task():
    table = ait.pearson_table()
    assert len(table) == len(TASKS) * len(ait.SYSTEMS)
    assert table["pearson_test"].between(0.2, 1).all()


@pytest.mark.parametrize("system", ["minilm-ridge", "ensemble"])
def test_neural_systems_share_the_offline_encoder_and_flag_truncation(system):
    model = load(f"ait:{system}/sadness")
    out = model.predict(["I feel so sad, depressed and heartbroken, crying all night.", "So happy and delighted!",
                         "sad " * 400])
    assert out.score[0] > out.score[1] and out.truncated.tolist() == [False, False, True]
    assert model.max_length == ait.encoder().max_length == 256
