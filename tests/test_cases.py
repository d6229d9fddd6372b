import pandas as pd
import pytest

from toolkit.cases import CASE_COLUMNS, validate
from toolkit.errors import SchemaError


def _table(**overrides) -> pd.DataFrame:
    row = {"case_id": "c1", "variant_id": "v1", "text": "She is happy.", "attribute": "gender", "group": "female",
           "fill": "she", "generator": "test", "template": "<p> is happy.", "is_original": False}
    row.update(overrides)
    return pd.DataFrame([row, {**row, "variant_id": "v2", "text": "He is happy.", "group": "male", "fill": "he"}])


def test_validate_accepts_a_complete_table():
    table = _table()
    assert validate(table) is table


@pytest.mark.parametrize("column", CASE_COLUMNS)
def test_validate_names_the_missing_column(column):
    with pytest.raises(SchemaError, match=f"missing column '{column}'") as info:
        validate(_table().drop(columns=column))
    assert info.value.code == "TK101"


def test_validate_rejects_none_in_a_string_column():
    table = _table()
    table.loc[1, "fill"] = None
    with pytest.raises(SchemaError, match="'fill' must hold strings"):
        validate(table)


def test_validate_rejects_empty_text_and_duplicate_variant_ids():
    with pytest.raises(SchemaError, match="'text' is empty"):
        validate(_table(text="  "))
    table = _table()
    table.loc[1, "variant_id"] = "v1"
    with pytest.raises(SchemaError, match="variant_id.*unique"):
        validate(table)


def test_validate_rejects_non_boolean_is_original():
    with pytest.raises(SchemaError, match="is_original"):
        validate(_table(is_original="yes"))


def test_validate_scored_needs_scores_in_unit_interval():
    table = _table().assign(model="m", task="valence", score=[0.2, 1.2], label="positive", truncated=False)
    with pytest.raises(SchemaError, match=r"\[0, 1\]"):
        validate(table, scored=True)
    with pytest.raises(SchemaError, match="missing column 'model'"):
        validate(_table(), scored=True)


def test_validate_rejects_non_frames():
    with pytest.raises(SchemaError, match="DataFrame"):
        validate([{"text": "x"}])


def test_validate_scored_rejects_unknown_task():
    table = _table().assign(model="m", task="joyfulness", score=[0.2, 0.8], label="positive", truncated=False)
    with pytest.raises(SchemaError, match="'joyfulness'; available: valence, anger"):
        validate(table, scored=True)


def test_score_records_each_models_task(eec_cases):
    from toolkit.scoring import score

    scored = score(eec_cases.head(4), models="vader", cache=False)
    assert scored["task"].tolist() == ["valence"] * 4


def _scored_two_cases():
    table = pd.concat([_table(), _table(case_id="c2").assign(variant_id=["v3", "v4"])], ignore_index=True)
    return table.assign(model="m", task="valence", score=[0.2, float("nan"), 0.4, 0.6], label="",
                        truncated=False, top_label=["joy", "anger", "joy", "joy"], top_score=[0.5, 0.7, 0.6, 0.9],
                        class_probs=['{"joy": 0.5, "anger": 0.5}', "", '{"joy": 0.6}', '{"anger": 0.1, "joy": 0.9}'])


def test_validate_accepts_nan_scores_but_not_out_of_range_ones():
    from toolkit.cases import NATIVE_COLUMNS

    scored = _scored_two_cases()
    assert set(NATIVE_COLUMNS) <= set(scored.columns)
    validate(scored, scored=True)
    with pytest.raises(SchemaError, match="'top_score' must hold numbers in \\[0, 1\\]"):
        validate(scored.assign(top_score=[0.5, 1.5, 0.6, 0.9]), scored=True)


def test_with_scores_skips_whole_cases_with_a_warning():
    from toolkit.cases import with_scores

    with pytest.warns(UserWarning, match="toy: .*'m': 1 of 4 rows, 1 cases"):
        kept = with_scores(_scored_two_cases(), study="toy")
    assert kept["case_id"].tolist() == ["c2", "c2"]


def test_widen_class_probs_makes_one_column_per_class():
    from toolkit.cases import widen_class_probs

    wide = widen_class_probs(_scored_two_cases())
    assert wide["p_joy"].tolist()[::2] == [0.5, 0.6] and pd.isna(wide["p_joy"].iloc[1])
    assert wide["p_anger"].tolist()[3] == 0.1


# --- one constructor (issue 33) ------------------------------------------------------------------------------------

def _row(i: int, **extra) -> dict:
    return {"case_id": "c1", "variant_id": f"c1:{i}", "text": f"text {i}", "attribute": "gender", "group": "female",
            "fill": "she", "generator": "test", "template": "", "is_original": False, **extra}


def test_cases_frame_orders_schema_then_extra_columns():
    from toolkit.cases import frame

    table = frame([{"topic": "x", **_row(1)}, _row(2, topic="y")], extra=("topic",))
    assert list(table.columns) == ["case_id", "variant_id", "text", "attribute", "group", "fill", "generator",
                                   "template", "is_original", "topic"]
    assert table["topic"].tolist() == ["x", "y"] and table["variant_id"].tolist() == ["c1:1", "c1:2"]


def test_cases_frame_of_no_rows_has_the_columns():
    from toolkit.cases import frame

    assert list(frame([], extra=("stage",)).columns)[-2:] == ["is_original", "stage"]


@pytest.mark.parametrize("rows, extra, message", [
    ([{k: v for k, v in _row(1).items() if k != "fill"}], (), "lack 'fill'"),
    ([_row(1, colour="red")], (), "carry 'colour'"),
    ([_row(1)], ("stage",), "lack 'stage'"),
])
def test_cases_frame_refuses_a_missing_or_unknown_column(rows, extra, message):
    from toolkit.cases import frame

    with pytest.raises(SchemaError, match=message) as info:
        frame(rows, extra=extra)
    assert info.value.code == "TK101"
