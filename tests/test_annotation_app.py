"""The annotation app by keyboard (issue 27): keys typed into the key field record what the buttons record, move
between BTCs and slots; the progress count; TPR and κ with intervals inside the app; nothing moves when a text is
longer (fixed widths)."""
from __future__ import annotations

import pandas as pd
import pytest

from toolkit.studies.biasfinder import annotation
from toolkit.studies.biasfinder.annotation import annotation_app


def _btcs(n: int = 3) -> pd.DataFrame:
    rows = [("Anna is great and she wins.", "Tom is great and he wins."), ("She is dull.", "He is dull."),
            ("My sister liked the film.", "My brother liked the film.")]
    return pd.DataFrame([{"btc_id": f"b{i + 1}", "model": "m", "attribute": "gender", "case_id": f"c{i + 1}",
                          "text_a": a, "text_b": b, "group_a": "female", "group_b": "male"}
                         for i, (a, b) in enumerate(rows[:n])])


def _type(app, keys: str) -> None:
    """What the browser does: each key appends to the key field's value (one change per key)."""
    for key in keys:
        app.keys.value = app.keys.value + key


def _rows(path) -> list[list[str]]:
    return pd.read_csv(path, dtype=str, keep_default_na=False).values.tolist()


def test_keys_record_the_same_rows_as_clicking(tmp_path):
    keyed = annotation_app(_btcs(), annotator="ann1", path=tmp_path / "keys.csv")
    _type(keyed, "ypyn" "y0u0")  # BTC 1: a yes/positive, b yes/negative; BTC 2: a yes/neutral, b unsure/neutral
    clicked = annotation_app(_btcs(), annotator="ann1", path=tmp_path / "clicks.csv")
    for variant, field, choice in [("a", "coherent", "yes"), ("a", "sentiment", "positive"),
                                   ("b", "coherent", "yes"), ("b", "sentiment", "negative"),
                                   ("a", "coherent", "yes"), ("a", "sentiment", "neutral"),
                                   ("b", "coherent", "unsure"), ("b", "sentiment", "neutral")]:
        clicked.buttons[(variant, field, choice)].click()
    expected = [["b1", "a", "ann1", "yes", "positive"], ["b1", "b", "ann1", "yes", "negative"],
                ["b2", "a", "ann1", "yes", "neutral"], ["b2", "b", "ann1", "unsure", "neutral"]]
    assert _rows(tmp_path / "keys.csv") == expected == _rows(tmp_path / "clicks.csv")
    assert keyed.position == clicked.position == 2 and keyed.slot == 0
    assert keyed.progress.value == clicked.progress.value == "<b>2 of 3 annotated</b>"


def test_n_means_no_on_a_coherent_slot_and_negative_on_a_sentiment_slot(tmp_path):
    app = annotation_app(_btcs(), annotator="ann1", path=tmp_path / "a.csv")
    _type(app, "nn")
    assert app.values[("b1", "a")] == {"coherent": "no", "sentiment": "negative"} and app.slot == 2
    assert "▶" in app.labels[("b", "coherent")].value and "▶" not in app.labels[("a", "coherent")].value


def test_keys_arriving_together_or_upper_case_each_count_once(tmp_path):
    app = annotation_app(_btcs(), annotator="ann1", path=tmp_path / "a.csv")
    app.keys.value = "YP"  # two keys in one update (the frontend batches messages)
    app.keys.value = "YPyn"
    assert _rows(tmp_path / "a.csv") == [["b1", "a", "ann1", "yes", "positive"], ["b1", "b", "ann1", "yes",
                                                                                  "negative"]]
    app.keys.value = "YPy"  # a backspace records nothing
    app.keys.value = ""
    assert len(_rows(tmp_path / "a.csv")) == 2 and app.position == 1


def test_j_and_k_move_between_btcs_without_recording_and_h_l_between_slots(tmp_path):
    path = tmp_path / "a.csv"
    app = annotation_app(_btcs(), annotator="ann1", path=path)
    _type(app, "j")
    assert app.position == 1 and "BTC 2 of 3" in app.header.value and not path.exists()
    _type(app, "kk")
    assert app.position == 0 and app.back.disabled
    _type(app, "ll")  # to text b's coherent slot
    assert app.slot == 2
    _type(app, "u")
    assert app.values[("b1", "b")] == {"coherent": "unsure", "sentiment": ""} and app.slot == 0  # first open slot
    _type(app, "h")
    assert app.slot == 3


def test_an_unknown_key_is_named_and_records_nothing(tmp_path):
    path = tmp_path / "a.csv"
    app = annotation_app(_btcs(), annotator="ann1", path=path)
    _type(app, "p")  # p is a sentiment key; the first slot is coherent
    assert "key “p” does nothing" in app.key_note.value and "y, n, u" in app.key_note.value
    assert not path.exists() and app.slot == 0


def test_correcting_a_finished_btc_by_keys_stays_on_it(tmp_path):
    path = tmp_path / "a.csv"
    app = annotation_app(_btcs(), annotator="ann1", path=path)
    _type(app, "ypyp")
    assert app.position == 1
    _type(app, "k")
    assert app.position == 0 and app.slot == 0 and "done" in app.header.value
    _type(app, "n")
    assert app.position == 0 and app.slot == 1
    assert _rows(path)[0] == ["b1", "a", "ann1", "no", "positive"]


def test_the_end_of_the_sample_disables_the_answers(tmp_path):
    app = annotation_app(_btcs(1), annotator="ann1", path=tmp_path / "a.csv")
    _type(app, "ypyp")
    assert app.position == 1 and "All 1 BTCs annotated" in app.header.value
    assert all(button.disabled for button in app.buttons.values()) and app.skip.disabled
    _type(app, "y")
    assert "does nothing" in app.key_note.value and len(_rows(tmp_path / "a.csv")) == 2


def test_buttons_keep_fixed_widths_and_sit_above_the_texts(tmp_path):
    app = annotation_app(_btcs(), annotator="ann1", path=tmp_path / "a.csv")
    widths = {button.layout.width for button in app.buttons.values()} | {app.back.layout.width,
                                                                          app.skip.layout.width}
    assert widths == {annotation.BUTTON_WIDTH} and annotation.BUTTON_WIDTH.endswith("px")
    assert {label.layout.width for label in app.labels.values()} == {annotation.LABEL_WIDTH}
    rows = list(app.widget.children)
    texts_row = next(i for i, row in enumerate(rows) if app.texts["a"] in getattr(row, "children", ()))
    buttons_row = next(i for i, row in enumerate(rows) if any(
        app.buttons[("a", "coherent", "yes")] in getattr(column, "children", ())
        or any(app.buttons[("a", "coherent", "yes")] in getattr(line, "children", ())
               for line in getattr(column, "children", ())) for column in getattr(row, "children", ())))
    assert buttons_row < texts_row  # a longer text never pushes the buttons down
    assert app.buttons[("a", "coherent", "yes")].description == "yes"  # descriptions as before (browser test)


def test_statistics_show_tpr_and_kappa_with_intervals(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("btc_id,variant,annotator,coherent,sentiment\n"  # ann2: b1 true positive, b2 not (b incoherent)
                    "b1,a,ann2,yes,positive\nb1,b,ann2,yes,positive\n"
                    "b2,a,ann2,yes,negative\nb2,b,ann2,no,negative\n"
                    "zz,a,ann2,yes,positive\nzz,b,ann2,yes,positive\n")  # another sample's BTC: not counted
    app = annotation_app(_btcs(), annotator="ann1", path=path, n_boot=200)
    assert "no finished BTC yet" in app.stats.value
    _type(app, "ypyp")  # b1: true positive, agrees with ann2 on all four answers
    assert "TPR ann1: 1 of 1 = 1.00 [0.21, 1.00]" in app.stats.value  # Wilson 95 % for 1 of 1
    _type(app, "ynnn")  # b2: a yes/negative, b no/negative: not a true positive; agrees with ann2 again
    stats = app.statistics()
    assert stats["tpr"]["n_btcs"] == 2 and stats["tpr"]["true_positives"] == 1
    assert "TPR ann1: 1 of 2 = 0.50 [0.09, 0.91]" in app.stats.value
    kappas = {k["field"]: k for k in stats["kappa"]}
    assert kappas["coherent"]["kappa"] == pytest.approx(1.0) and kappas["coherent"]["other"] == "ann2"
    # sentiment: positive, positive, negative, negative for both annotators (neutral merged): κ = 1
    assert kappas["sentiment"]["kappa"] == pytest.approx(1.0)
    assert "κ coherent vs ann2: 1.00" in app.stats.value
    app.kappa_button.click()
    assert "κ coherent vs ann2: 1.00 [1.00, 1.00] (bootstrap over BTCs, 4 texts)" in app.stats.value


def test_kappa_that_is_undefined_says_why(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("btc_id,variant,annotator,coherent,sentiment\n"
                    "b1,a,ann2,yes,positive\nb1,b,ann2,yes,positive\n")
    app = annotation_app(_btcs(), annotator="ann1", path=path)
    _type(app, "ypyp")  # both annotators: only "yes" for coherent → κ undefined
    assert "κ coherent vs ann2: — (both annotators gave only ['yes']" in app.stats.value

