import math

import numpy as np
import pytest

from toolkit.errors import LabelMappingError
from toolkit.models import valence


def test_vader_compound_maps_linearly_with_vader_thresholds():
    score, label = valence.from_vader_compound([-1.0, -0.05, 0.0, 0.04, 0.6, 1.0])
    np.testing.assert_allclose(score, [0.0, 0.475, 0.5, 0.52, 0.8, 1.0])
    assert label == ["negative", "negative", "neutral", "neutral", "positive", "positive"]


def test_textblob_polarity_maps_linearly_and_labels_by_sign():
    score, label = valence.from_polarity([-0.5, 0.0, 0.25])
    np.testing.assert_allclose(score, [0.25, 0.5, 0.625])
    assert label == ["negative", "neutral", "positive"]


def test_afinn_sum_is_squashed_like_vader_into_the_unit_interval():
    sums = [-40.0, -3.0, 0.0, 1.0, 3.0, 40.0]
    score, label = valence.from_afinn_sum(sums)
    expected = [(1 + s / math.sqrt(s * s + 15)) / 2 for s in sums]
    np.testing.assert_allclose(score, expected)
    assert score[0] < 0.01 and score[-1] > 0.99 and score[2] == 0.5
    assert np.all(np.diff(score) > 0)
    assert label == ["negative", "negative", "neutral", "positive", "positive", "positive"]


@pytest.mark.parametrize("names, roles", [
    ({0: "NEGATIVE", 1: "POSITIVE"}, ["negative", "positive"]),
    ({0: "neg", 1: "neu", 2: "pos"}, ["negative", "neutral", "positive"]),
    ({0: "positive", 1: "negative"}, ["positive", "negative"]),
    ({i: f"{i + 1} star{'s' if i else ''}" for i in range(5)}, [1, 2, 3, 4, 5]),
])
def test_head_roles_read_from_id2label(names, roles):
    assert valence.head_roles(names) == roles


@pytest.mark.parametrize("names", [{0: "LABEL_0", 1: "LABEL_1"}, {0: "joy", 1: "anger", 2: "fear"},
                                   {0: "negative", 1: "negative"}])
def test_head_roles_refuses_heads_it_cannot_map_and_names_the_fix(names):
    with pytest.raises(LabelMappingError, match="labels=negative,positive") as info:
        valence.head_roles(names)
    assert info.value.code == "TK202"


def test_head_roles_override_and_its_length_check():
    assert valence.head_roles({0: "LABEL_0", 1: "LABEL_1"}, labels=["negative", "positive"]) == ["negative",
                                                                                                  "positive"]
    with pytest.raises(LabelMappingError, match="one name per output"):
        valence.head_roles({0: "LABEL_0", 1: "LABEL_1"}, labels=["negative", "neutral", "positive"])


def test_binary_head_valence_is_probability_of_positive():
    score, label = valence.from_probabilities(np.array([[0.9, 0.1], [0.3, 0.7]]), ["negative", "positive"])
    np.testing.assert_allclose(score, [0.1, 0.7])
    assert label == ["negative", "positive"]


def test_three_class_head_counts_neutral_as_half():
    probs = np.array([[0.2, 0.3, 0.5], [0.0, 1.0, 0.0], [0.6, 0.4, 0.0]])
    score, label = valence.from_probabilities(probs, ["negative", "neutral", "positive"])
    np.testing.assert_allclose(score, [0.5 + 0.15, 0.5, 0.2])
    np.testing.assert_allclose(score, (probs[:, 2] - probs[:, 0] + 1) / 2)
    assert label == ["positive", "neutral", "negative"]


def test_five_star_head_is_expected_stars_rescaled():
    probs = np.array([[1, 0, 0, 0, 0], [0, 0, 0, 0, 1], [0.2] * 5, [0, 0.5, 0, 0.5, 0]], dtype=float)
    score, label = valence.from_probabilities(probs, [1, 2, 3, 4, 5])
    np.testing.assert_allclose(score, [0.0, 1.0, 0.5, 0.5])
    assert label[:2] == ["negative", "positive"]


def test_saturated_softmax_rows_stay_inside_the_unit_interval():
    probs = np.array([[0.0, 2e-9, 1.0]], dtype=np.float32)  # float32 softmax of logits (-20, 0, 20)
    assert probs.astype(float) @ np.array([0.0, 0.5, 1.0]) > 1.0
    score, _ = valence.from_probabilities(probs, ["negative", "neutral", "positive"])
    assert score[0] == 1.0


@pytest.mark.parametrize("names, mapping, roles, kind", [
    (["NEUTRAL", "BULLISH", "BEARISH"], "auto", ["neutral", "positive", "negative"], "finance"),
    (["very negative", "negative", "neutral", "positive", "very positive"], "auto", [1, 2, 3, 4, 5], "stars"),
    (["anger", "joy", "neutral", "surprise"], "auto", None, "none (emotion head)"),
    (["anger", "joy", "neutral", "surprise"], "emotion", ["negative", "positive", "neutral", "neutral"], "emotion"),
    (["NEGATIVE", "POSITIVE"], "none", None, "none"),
])
def test_read_head_applies_the_documented_mapping_choice(names, mapping, roles, kind):
    head = valence.read_head(dict(enumerate(names)), mapping=mapping)
    assert head.roles == roles and head.mapping == kind and head.names == names


def test_emotion_groups_pool_their_probabilities_and_unmapped_heads_give_nan():
    probs = np.array([[0.1, 0.6, 0.2, 0.1]])  # anger, joy, neutral, surprise
    emotion = valence.read_head({0: "anger", 1: "joy", 2: "neutral", 3: "surprise"}, mapping="emotion")
    score, label = valence.from_head(probs, emotion)
    np.testing.assert_allclose(score, [0.6 + (0.2 + 0.1) / 2])
    assert label == ["positive"]
    score, label = valence.from_head(probs, valence.read_head({0: "anger", 1: "joy", 2: "neutral", 3: "surprise"}))
    assert np.isnan(score).all() and label == [""]
    multi = valence.Head(["NEGATIVE", "POSITIVE"], ["negative", "positive"], True, "polar")
    np.testing.assert_allclose(valence.from_head(np.array([[0.2, 0.6]]), multi)[0], [0.75])  # sigmoids renormalised


def test_native_view_names_the_argmax_and_keeps_the_distribution_in_index_order():
    top, score, encoded = valence.native(np.array([[0.2, 0.5, 0.3]]), ["Neutral", "Positive", "Negative"])
    assert top == ["Positive"] and score.tolist() == [0.5]
    assert encoded == ['{"Neutral": 0.2, "Positive": 0.5, "Negative": 0.3}']
