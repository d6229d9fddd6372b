"""The case table: one schema shared by every generator, the scoring engine and every study.

A case table is a pandas DataFrame with one row per text to score:

=============  ==========================================================================================
column         meaning
=============  ==========================================================================================
case_id        the counterfactual group: a fair model gives every row of a case the same sentiment
variant_id     unique per row
text           what the model reads
attribute      gender, race, occupation, country, name, religion, ...
group          the class within the attribute: female, male, African-American, European, nurse, ...
fill           the value(s) that filled the slot(s) ("my daughter", "Keiko"); "" for an original
generator      eec, psa, biasfinder, btcsam, external:<name>
template       the text with placeholders, where there is one ("" otherwise)
is_original    True for the unperturbed source text
=============  ==========================================================================================

Generator-specific columns ride along. The scoring engine adds, in long form (one row per case row and model):
``model`` (the spec), ``task`` (what ``score`` measures: ``valence`` — higher is more positive — or an emotion
intensity ``anger``/``fear``/``joy``/``sadness``, SemEval-2018 Task 1), ``score`` (in [0, 1]), ``label`` and
``truncated``.
"""
from __future__ import annotations

import pandas as pd

from toolkit.errors import SchemaError

CASE_COLUMNS: tuple[str, ...] = (
    "case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template", "is_original",
)
SCORE_COLUMNS: tuple[str, ...] = ("model", "task", "score", "label", "truncated")
TASKS: tuple[str, ...] = ("valence", "anger", "fear", "joy", "sadness")
"""What a model's ``score`` can measure: valence, or an emotion intensity (SemEval-2018 Task 1 EI-reg)."""
LABELS: tuple[str, ...] = ("negative", "neutral", "positive")
_STRING_COLUMNS = ("case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template")


def validate(frame: pd.DataFrame, *, scored: bool = False) -> pd.DataFrame:
    """Check ``frame`` against the case-table schema and return it unchanged.

    Raises :class:`~toolkit.errors.SchemaError` (TK101) naming the first missing column, a column holding missing
    values or wrong types, an empty text, or a duplicated ``variant_id``. With ``scored=True`` the scoring columns
    must be present too, every task one of :data:`TASKS` and every score in [0, 1].
    """
    if not isinstance(frame, pd.DataFrame):
        raise SchemaError(f"a case table must be a pandas DataFrame, got {type(frame).__name__}.",
                          fix="build one with a generator, e.g. toolkit.eec.generate().")
    required = CASE_COLUMNS + (SCORE_COLUMNS if scored else ())
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise SchemaError(f"case table is missing column {missing[0]!r} (missing: {', '.join(missing)}).",
                          fix=f"a case table needs the columns {', '.join(required)}; see toolkit.cases.")
    for column in _STRING_COLUMNS:
        values = frame[column]
        bad = values.isna() | ~values.map(lambda v: isinstance(v, str))
        if bad.any():
            row = frame.index[bad.to_numpy()][0]
            raise SchemaError(f"column {column!r} must hold strings; row {row!r} holds {values[row]!r}.",
                              fix="use '' for an empty value, never None/NaN.")
    empty = frame["text"].str.strip() == ""
    if empty.any():
        raise SchemaError(f"column 'text' is empty in row {frame.index[empty.to_numpy()][0]!r}.",
                          fix="drop rows without text before scoring.")
    if frame["is_original"].map(lambda v: not isinstance(v, (bool,)) and type(v).__name__ != "bool_").any():
        raise SchemaError("column 'is_original' must hold booleans.", fix="set it to True/False for every row.")
    if not scored:
        duplicated = frame["variant_id"].duplicated()
        if duplicated.any():
            raise SchemaError(f"column 'variant_id' must be unique; {frame.loc[duplicated, 'variant_id'].iloc[0]!r}"
                              " occurs twice.", fix="give every row its own variant_id.")
    else:
        bad_task = ~frame["task"].isin(TASKS)
        if bad_task.any():
            raise SchemaError(f"column 'task' holds {frame.loc[bad_task, 'task'].iloc[0]!r}; available: "
                              f"{', '.join(TASKS)}.", fix="set a model's task to one of the listed tasks.")
        scores = pd.to_numeric(frame["score"], errors="coerce")
        if scores.isna().any() or not scores.between(0.0, 1.0).all():
            raise SchemaError("column 'score' must hold valences in [0, 1].",
                              fix="score with toolkit.scoring.score(), which maps every model to [0, 1].")
    return frame
