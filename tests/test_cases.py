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
