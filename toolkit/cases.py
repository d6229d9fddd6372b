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
intensity ``anger``/``fear``/``joy``/``sadness``, SemEval-2018 Task 1), ``score`` (in [0, 1]; NaN where the model
has no valence for the text — an emotion head without a valence mapping, an unparseable LLM answer — which the
engine warns about and every study skips, case by case, with a warning: :func:`with_scores`), ``label`` and ``truncated``, then the
model's native view (:data:`NATIVE_COLUMNS`):

=============  ==========================================================================================
top_label      the classifier's own top-1 label name, as the ``text-classification`` pipeline reports it
               ("POSITIVE", "joy", "BULLISH", "4 stars"); an LLM's answer word or "unparseable"; for models
               without a native distribution (lexicons, ``py:``, regressors) the same as ``label``
top_score      its probability (softmax; sigmoid for multi-label heads); NaN without a native distribution
class_probs    the full distribution as one JSON object per row, ``{"<native label>": probability}`` in the
               head's index order (6 decimals); "" without one. :func:`widen_class_probs` makes one column
               per class on request
=============  ==========================================================================================
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from toolkit.errors import ModelOutputError, SchemaError, warn

CASE_COLUMNS: tuple[str, ...] = (
    "case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template", "is_original",
)
SCORE_COLUMNS: tuple[str, ...] = ("model", "task", "score", "label", "truncated")
NATIVE_COLUMNS: tuple[str, ...] = ("top_label", "top_score", "class_probs")
"""The model's own answer, next to :data:`SCORE_COLUMNS` in every scored table (see the module docstring)."""
TASKS: tuple[str, ...] = ("valence", "anger", "fear", "joy", "sadness")
"""What a model's ``score`` can measure: valence, or an emotion intensity (SemEval-2018 Task 1 EI-reg)."""
LABELS: tuple[str, ...] = ("negative", "neutral", "positive")
_STRING_COLUMNS = ("case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template")


def frame(rows: Iterable[Mapping[str, object]] | pd.DataFrame | Mapping[str, object], *,
          extra: Sequence[str] = ()) -> pd.DataFrame:
    """The one constructor of a case table: ``rows`` (dicts, a column mapping or a DataFrame) as a frame whose columns
    are exactly :data:`CASE_COLUMNS` then the generator's own ``extra`` columns, in that order (no rows: the same
    columns, empty). A row missing a schema column, or carrying a column that is in neither, is SchemaError (TK101)
    naming it: a generator never drops or invents a column silently. The values are not checked here
    (:func:`validate` does that before scoring)."""
    columns = list(CASE_COLUMNS) + [c for c in extra if c not in CASE_COLUMNS]
    table = rows.reset_index(drop=True) if isinstance(rows, pd.DataFrame) else pd.DataFrame(
        rows if isinstance(rows, Mapping) else list(rows))
    if table.empty and not len(table.columns):
        return pd.DataFrame(columns=columns)
    missing = [c for c in columns if c not in table.columns]
    unexpected = [c for c in table.columns if c not in columns]
    if missing or unexpected:
        problems = ([f"lack {', '.join(map(repr, missing))}"] if missing else []) + (
            [f"carry {', '.join(map(repr, unexpected))} (in neither the schema nor extra)"] if unexpected else [])
        raise SchemaError(f"case rows {' and '.join(problems)}.",
                          fix="give every row the columns of toolkit.cases.CASE_COLUMNS and list the generator's own "
                              "columns in extra=.")
    return table.loc[:, columns]


def validate(frame: pd.DataFrame, *, scored: bool = False) -> pd.DataFrame:
    """Check ``frame`` against the case-table schema and return it unchanged.

    Raises :class:`~toolkit.errors.SchemaError` (TK101) naming the first missing column, a column holding missing
    values or wrong types, an empty text, or a duplicated ``variant_id``. With ``scored=True`` the scoring columns
    must be present too, every task one of :data:`TASKS` and every score in [0, 1] or NaN (no valence: recorded,
    see :func:`with_scores`); native columns, where present, are checked likewise.
    """
    if not isinstance(frame, pd.DataFrame):
        raise SchemaError(f"a case table must be a pandas DataFrame, got {type(frame).__name__}.",
                          fix="build one with a generator, e.g. toolkit.studies.eec.generator().")
    required = CASE_COLUMNS + (SCORE_COLUMNS if scored else ())
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise SchemaError(f"case table is missing column {missing[0]!r} (missing: {', '.join(missing)}).",
                          fix=f"a case table needs the columns {', '.join(required)}; see toolkit.cases.")
    for column in _STRING_COLUMNS:
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype):  # a scored table holds texts once, as categoricals
            values = values.astype(object)
        bad = values.isna() | ~values.map(lambda v: isinstance(v, str)).astype(bool)
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
        for column in ("score", "top_score"):
            if column not in frame.columns:
                continue
            values = pd.to_numeric(frame[column], errors="coerce")
            bad = frame[column].notna() & ~values.between(0.0, 1.0)
            if bad.any():
                raise SchemaError(f"column {column!r} must hold numbers in [0, 1] (or NaN: no valence); row "
                                  f"{frame.index[bad.to_numpy()][0]!r} holds {frame.loc[bad, column].iloc[0]!r}.",
                                  fix="score with toolkit.scoring.score(), which maps every model to [0, 1].")
    return frame


def with_scores(scored: pd.DataFrame, *, study: str, column: str = "score") -> pd.DataFrame:
    """``scored`` without the cases that lack a score: every (model, ``case_id``) holding a row whose ``column`` is
    NaN (no valence: an emotion head without a valence mapping, an unparseable LLM answer) is skipped whole — a case
    compared on a subset of its rows would be another case — with a warning naming each model, its rows without a
    score and the cases skipped; never silently. ``study`` names the caller in the warning. A model with scores
    whose missing ones still hit every case (one name unscored in a design where every case holds every name) would
    leave nothing to study: ModelOutputError (TK203) naming the fills without a score; a model with no score at all
    (an emotion head) is skipped with the warning."""
    missing = scored[column].isna()
    if not missing.any():
        return scored
    keys = ["model", "case_id"] if "case_id" in scored.columns else ["model"]
    bad = missing.groupby([scored[k] for k in keys]).transform("any")
    counts = scored.loc[missing, "model"].value_counts()
    for model in counts.index:
        mine = scored["model"] == model
        if (bad & mine).sum() == mine.sum() and (missing & mine).sum() < mine.sum():
            fills = scored.loc[missing & mine, "fill"].astype(str).value_counts() if "fill" in scored.columns \
                else pd.Series(dtype=int)
            shown = ", ".join(f"{f!r} ({n} rows)" for f, n in fills.head(5).items()) or "several"
            raise ModelOutputError(
                f"{study}: model {model!r} has no {column} for {int((missing & mine).sum())} of {int(mine.sum())} "
                f"rows, and they fall in every case, so every case would be skipped and nothing studied; the rows "
                f"without a {column} are those of {shown}"
                + (f" and {len(fills) - 5} more fills" if len(fills) > 5 else "") + ".",
                fix=f"score those rows again (an LLM answer without a label word is 'unparseable': check its prompt "
                    f"and labels), or leave {model!r} out of the study.", model=str(model))
    cases = scored.loc[bad].drop_duplicates(keys)["model"].value_counts()
    detail = "; ".join(f"{model!r}: {n} of {int((scored['model'] == model).sum())} rows, {cases[model]} cases"
                       for model, n in counts.items())
    warn(f"{study}: cases with rows without a {column} skipped ({detail}). An emotion head has no valence "
         "unless scored with '?valence=emotion' (its own answer: top_label/class_probs); an LLM answer "
         "without a label word is 'unparseable'.")
    return scored[~bad]


def widen_class_probs(scored: pd.DataFrame, *, prefix: str = "p_") -> pd.DataFrame:
    """``scored`` plus one column per native class, ``<prefix><label>``, from the JSON ``class_probs`` (NaN where a
    row has no distribution or lacks that class)."""
    import json

    if "class_probs" not in scored.columns:
        raise SchemaError("scored table lacks 'class_probs'.", fix="score it with toolkit.scoring.score().")
    parsed = [json.loads(v) if isinstance(v, str) and v else {} for v in scored["class_probs"]]
    wide = pd.DataFrame(parsed, index=scored.index, dtype=float).add_prefix(prefix)
    return pd.concat([scored, wide], axis=1)
