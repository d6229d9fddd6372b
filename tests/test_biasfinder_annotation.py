import pandas as pd
import pytest

from toolkit import biasfinder
from toolkit.errors import InputError
from toolkit.studies.biasfinder import SAMPLE_COLUMNS
from toolkit.widgets import annotation_app


def _scored():
    rows = [("m1", "gender", "g1", "g1:f1", "female", "positive"), ("m1", "gender", "g1", "g1:f2", "female", "negative"),
            ("m1", "gender", "g1", "g1:m1", "male", "negative"),
            ("m1", "occupation", "o1", "o1:baker", "baker", "positive"),
            ("m1", "occupation", "o1", "o1:chef", "chef", "positive"),
            ("m1", "occupation", "o1", "o1:pilot", "pilot", "negative"),
            ("m2", "gender", "g1", "g1:f1", "female", "positive"), ("m2", "gender", "g1", "g1:f2", "female", "positive"),
            ("m2", "gender", "g1", "g1:m1", "male", "positive")]
    frame = pd.DataFrame(rows, columns=["model", "attribute", "case_id", "variant_id", "group", "label"])
    frame["text"] = "text of " + frame["variant_id"]
    frame["is_original"] = False
    return frame


def test_sample_btcs_lists_every_btc_when_n_is_large():
    sample = biasfinder.sample_btcs(_scored(), n=100, seed=1)
    assert tuple(sample.columns) == SAMPLE_COLUMNS
    assert sorted(zip(sample["variant_a"], sample["variant_b"])) == [
        ("g1:f1", "g1:m1"), ("o1:baker", "o1:pilot"), ("o1:chef", "o1:pilot")]
    row = sample.set_index("variant_a").loc["g1:f1"]
    assert (row["btc_id"], row["text_b"], row["group_b"], row["label_a"]) == ("m1|g1:f1|g1:m1", "text of g1:m1",
                                                                             "male", "positive")


def test_sample_btcs_is_stratified_and_seeded():
    sample = biasfinder.sample_btcs(_scored(), n=2, seed=3)
    assert sorted(sample["attribute"]) == ["gender", "occupation"]  # 1 gender BTC, 2 occupation BTCs: 1 each
    assert sample.equals(biasfinder.sample_btcs(_scored(), n=2, seed=3))
    with pytest.raises(InputError):
        biasfinder.sample_btcs(_scored(), n=0)


def _btcs():
    return pd.DataFrame([{"btc_id": "b1", "model": "m", "attribute": "gender", "case_id": "c1", "variant_a": "x",
                          "variant_b": "y", "text_a": "Anna is great and she wins.",
                          "text_b": "Tom is great and he wins.", "group_a": "female", "group_b": "male",
                          "label_a": "positive", "label_b": "negative"},
                         {"btc_id": "b2", "model": "m", "attribute": "gender", "case_id": "c2", "variant_a": "x2",
                          "variant_b": "y2", "text_a": "She is dull.", "text_b": "He is dull.", "group_a": "female",
                          "group_b": "male", "label_a": "negative", "label_b": "positive"}])


def test_app_saves_every_click_and_resumes(tmp_path):
    path = tmp_path / "ann.csv"
    app = annotation_app(_btcs(), annotator="ann1", path=path)
    assert "<mark>Anna</mark>" in app.texts["a"].value and "<mark>he</mark>" in app.texts["b"].value
    assert "<mark>great</mark>" not in app.texts["a"].value
    app.record(variant="a", coherent="yes")
    app.record(variant="a", sentiment="positive")
    app.record(variant="b", coherent="yes", sentiment="positive")
    assert app.position == 1
    app.record(variant="a", coherent="no")
    rows = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert rows.values.tolist() == [["b1", "a", "ann1", "yes", ""], ["b1", "a", "ann1", "yes", "positive"],
                                    ["b1", "b", "ann1", "yes", "positive"], ["b2", "a", "ann1", "no", ""]]
    assert annotation_app(_btcs(), annotator="ann1", path=path).position == 1
    assert annotation_app(_btcs(), annotator="ann2", path=path).position == 0
    with pytest.raises(InputError, match="unknown coherent 'maybe'"):
        app.record(variant="a", coherent="maybe")


def test_buttons_record_like_the_method(tmp_path):
    app = annotation_app(_btcs(), annotator="ann1", path=tmp_path / "ann.csv")
    app.buttons[("b", "sentiment", "neutral")].click()
    assert app.values[("b1", "b")] == {"coherent": "", "sentiment": "neutral"}


def test_tpr_and_kappa_on_a_hand_made_annotation_file(tmp_path):
    path = tmp_path / "ann.csv"
    path.write_text("btc_id,variant,annotator,coherent,sentiment\n"
                    "b1,a,ann1,yes,positive\nb1,b,ann1,yes,positive\n"   # true positive
                    "b2,a,ann1,yes,negative\nb2,b,ann1,no,negative\n"    # b incoherent
                    "b1,a,ann2,yes,positive\nb1,b,ann2,yes,negative\n"   # different sentiment
                    "b2,a,ann2,yes,\nb2,a,ann2,yes,negative\nb2,b,ann2,no,negative\n"
                    "b3,a,ann2,yes,positive\n")                          # b3 unfinished: dropped
    annotations = biasfinder.read_annotations(path)
    assert len(annotations) == 8
    rates = biasfinder.tpr(annotations).set_index("annotator")
    assert rates.loc["ann1", "tpr"] == 0.5 and rates.loc["ann2", "tpr"] == 0.0
    assert rates.loc["ann2", "n_btcs"] == 2
    # coherent: both annotators agree on all 4 texts (yes, yes, yes, no) → κ = 1
    assert biasfinder.kappa(annotations, field="coherent") == pytest.approx(1.0)
    # sentiment: agree on 3 of 4 (pos, pos/neg, neg, neg): po = 0.75, pe = (2·1 + 2·3)/16 = 0.5 → κ = 0.5
    assert biasfinder.kappa(annotations, field="sentiment") == pytest.approx(0.5)
