"""Annotation files: BiasFinder's annotation CSV read back as the annotation app wrote it.

:func:`annotations_path` is the default file, ``data/annotations/biasfinder.csv``; :func:`read_annotation_csv`
reads one file (columns :data:`~toolkit.studies.biasfinder.analysis.ANNOTATION_COLUMNS`, one row
per annotator × BTC × variant), every cell as text, taking off the ``'`` the app puts before a cell that a
spreadsheet would run as a formula (an annotator called ``=cmd``). The values are checked where they are estimated
(:mod:`toolkit.studies.biasfinder.judgements`); :func:`read_annotations` keeps the finished ones, as the
estimators take them.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from toolkit import paths
from toolkit.errors import SchemaError
from toolkit.outputs.files import unguard_text
from toolkit.studies.biasfinder.judgements import ANNOTATION_COLUMNS, check_annotation_columns


def read_annotation_csv(path: str | Path) -> pd.DataFrame:
    """Every row of the annotation CSV at ``path`` as text (empty cells ""; an empty file has no rows), the leading
    ``'`` the annotation app puts before a cell that starts like a spreadsheet formula (``=cmd``, and before a
    leading ``'``: :func:`toolkit.results.guard_text`) taken off again. A file without the columns
    :data:`ANNOTATION_COLUMNS`, or that is not a CSV, is a SchemaError (TK101)."""
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        return pd.DataFrame(columns=list(ANNOTATION_COLUMNS))
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise SchemaError(f"annotation file {str(path)!r} cannot be read as a UTF-8 CSV: {exc}.",
                          fix="repair the file (or move it away to start a new one).") from None
    check_annotation_columns(frame.columns, source=f"annotation file {str(path)!r}")
    return frame.fillna("").map(unguard_text)



def annotations_path() -> Path:
    """The default annotation CSV, ``data/annotations/biasfinder.csv``."""
    return paths.data_dir() / "annotations" / "biasfinder.csv"


def read_annotations(path: str | Path | None = None) -> pd.DataFrame:
    """The annotation CSV (columns :data:`ANNOTATION_COLUMNS`) as :func:`toolkit.studies.biasfinder.analysis.tpr` and :func:`~toolkit.studies.biasfinder.analysis.kappa` take it: the last
    row per annotator × BTC × variant, only complete ones (both fields set), only BTCs with both variants done."""
    path = Path(path) if path is not None else annotations_path()
    if not path.exists():
        return pd.DataFrame(columns=list(ANNOTATION_COLUMNS))
    frame = read_annotation_csv(path)  # coded error for missing columns; the formula guard taken off
    last = frame.drop_duplicates(["annotator", "btc_id", "variant"], keep="last")
    done = last[(last["coherent"] != "") & (last["sentiment"] != "")]
    both = done.groupby(["annotator", "btc_id"])["variant"].transform("nunique") == 2
    return done[both].loc[:, list(ANNOTATION_COLUMNS)].reset_index(drop=True)


__all__ = ["annotations_path", "read_annotation_csv", "read_annotations"]
