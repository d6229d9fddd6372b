import multiprocessing

import pandas as pd
import pytest

from toolkit.errors import InputError
from toolkit.studies import biasfinder
from toolkit.studies.biasfinder.analysis import SAMPLE_COLUMNS
from toolkit.studies.biasfinder.annotation import annotation_app, upsert_annotation


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
    rows = pd.read_csv(path, dtype=str, keep_default_na=False)  # one current row per text, not one per click
    assert rows.values.tolist() == [["b1", "a", "ann1", "yes", "positive"], ["b1", "b", "ann1", "yes", "positive"],
                                    ["b2", "a", "ann1", "no", ""]]
    assert not list(tmp_path.glob(".*tmp"))  # the atomic rewrite leaves no temporary file behind
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


def test_upsert_keeps_one_row_per_text_and_other_annotators_rows(tmp_path):
    path = tmp_path / "ann.csv"
    path.write_text("btc_id,variant,annotator,coherent,sentiment\n"  # an old appended file with duplicates
                    "b1,a,ann1,yes,\nb1,a,ann1,yes,positive\nb1,a,ann2,no,negative\n")
    upsert_annotation(path, {"btc_id": "b1", "variant": "a", "annotator": "ann1", "coherent": "unsure",
                             "sentiment": "positive"})
    upsert_annotation(path, {"btc_id": "b1", "variant": "b", "annotator": "ann1", "coherent": "yes",
                             "sentiment": ""})
    rows = pd.read_csv(path, dtype=str, keep_default_na=False).values.tolist()
    assert rows == [["b1", "a", "ann1", "unsure", "positive"], ["b1", "a", "ann2", "no", "negative"],
                    ["b1", "b", "ann1", "yes", ""]]


def test_back_and_skip_move_without_recording_and_resume_at_the_skipped(tmp_path):
    path = tmp_path / "ann.csv"
    app = annotation_app(_btcs(), annotator="ann1", path=path)
    assert app.back.disabled and not app.skip.disabled
    app.skip.click()
    assert app.position == 1 and not path.exists()
    app.record(variant="a", coherent="yes", sentiment="negative")
    app.record(variant="b", coherent="yes", sentiment="negative")
    assert app.position == 2 and "skipped or unfinished" in app.header.value and app.skip.disabled
    app.back.click()
    assert app.position == 1 and "done" in app.header.value
    app.record(variant="b", sentiment="positive")  # a correction of a finished BTC stays on it
    assert app.position == 1
    resumed = annotation_app(_btcs(), annotator="ann1", path=path)
    assert resumed.position == 0  # the skipped BTC comes first
    assert resumed.values[("b2", "b")] == {"coherent": "yes", "sentiment": "positive"}
    assert len(pd.read_csv(path)) == 2


def _many_btcs():
    """Model m1 has 6 gender templates with 1 BTC and one template t0 with 8 (4 f × 2 m names, all different
    labels: 8 BTCs); m2 has one occupation template with 1 BTC."""
    rows = []
    for f in range(4):
        rows.append(("m1", "gender", "t0", f"t0:f{f}", "female", "positive"))
    for m in range(2):
        rows.append(("m1", "gender", "t0", f"t0:m{m}", "male", "negative"))
    for t in range(1, 7):
        rows += [("m1", "gender", f"t{t}", f"t{t}:f", "female", "positive"),
                 ("m1", "gender", f"t{t}", f"t{t}:m", "male", "negative")]
    rows += [("m2", "occupation", "o1", "o1:a", "baker", "positive"), ("m2", "occupation", "o1", "o1:b", "pilot",
                                                                         "negative")]
    frame = pd.DataFrame(rows, columns=["model", "attribute", "case_id", "variant_id", "group", "label"])
    return frame.assign(text="text of " + frame["variant_id"], is_original=False)


def test_sample_btcs_caps_templates_and_splits_by_characteristic():
    scored = _many_btcs()
    sample = biasfinder.sample_btcs(scored, n=6, seed=0, per_template=2)
    # proportional allocation would give occupation 0 of 6 (1 of 15 BTCs); even allocation gives it its one BTC
    assert sample["attribute"].value_counts().to_dict() == {"gender": 5, "occupation": 1}
    assert sample.groupby("case_id").size().max() <= 2
    assert sample["btc_id"].is_unique
    everything = biasfinder.sample_btcs(scored, n=100, seed=0, per_template=1)
    assert sorted(everything["case_id"]) == ["o1"] + [f"t{t}" for t in range(7)]  # one per template
    strata = biasfinder.sample_strata(scored, sample).set_index(["attribute", "model"])
    assert strata.loc[("gender", "m1")].to_dict() == {"btcs": 14, "templates_with_btc": 7, "sampled": 5,
                                                      "templates_sampled": 5, "btcs_flagged": 0,
                                                      "sampled_flagged": 0}  # no fill_flag column: none flagged
    assert strata.loc[("occupation", "all"), "sampled"] == 1
    with pytest.raises(InputError):
        biasfinder.sample_btcs(scored, n=3, per_template=0)


def _annotate(path, annotator, count, go):
    go.wait(30)
    for i in range(count):
        upsert_annotation(path, {"btc_id": f"b{i}", "variant": "a", "annotator": annotator, "coherent": "yes",
                                 "sentiment": "positive"})


def test_concurrent_annotators_in_other_processes_lose_no_click(tmp_path):
    """Issue 28, on toolkit.studies.biasfinder.annotation's copy: three processes saving into one file keep all 3 × 60 rows."""
    fork = multiprocessing.get_context("fork")
    path, go = tmp_path / "ann.csv", fork.Event()
    workers = [fork.Process(target=_annotate, args=(path, who, 60, go), daemon=True) for who in ("a1", "a2", "a3")]
    for worker in workers:
        worker.start()
    go.set()
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    rows = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert rows.groupby("annotator").size().to_dict() == {"a1": 60, "a2": 60, "a3": 60}
    assert not rows.duplicated(["btc_id", "variant", "annotator"]).any()
