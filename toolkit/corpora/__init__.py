"""Corpus loaders: every corpus becomes one frame with columns :data:`CORPUS_COLUMNS`.

Sources: ``"sample"`` (the small review corpus this project wrote itself, ``data/sample_reviews.csv``), or a path to
a CSV/TSV (optionally gzipped) or JSONL file with a ``text`` column — or ``review`` as in the aclImdb CSV — and an
optional ``sentiment``/``label`` column. HTML line breaks (``<br />``) are turned into spaces.
"""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from toolkit import paths
from toolkit.errors import InputError, SchemaError

CORPUS_COLUMNS = ("doc_id", "text", "label", "corpus")
TEXT_COLUMNS = ("text", "review", "sentence", "comment")
LABEL_COLUMNS = ("sentiment", "label")
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)


def sample_path() -> Path:
    return paths.project_root() / "data" / "sample_reviews.csv"


_C1 = re.compile("[\x80-\x9f]")


def _cp1252(match: re.Match) -> str:
    try:
        return match.group(0).encode("latin-1").decode("cp1252")
    except UnicodeDecodeError:
        return " "


def clean(text: str) -> str:
    """Remove HTML line breaks, read stray C1 control characters as the cp1252 punctuation they were meant to be
    (IMDB's "\x96" is an en dash), and collapse whitespace."""
    return " ".join(_C1.sub(_cp1252, _BREAK.sub(" ", str(text))).split())


def load(source: str | Path, *, name: str | None = None, limit: int | None = None) -> pd.DataFrame:
    """Load a corpus (see the module docstring); ``name`` defaults to ``"sample"`` or the file's stem."""
    path = sample_path() if str(source) == "sample" else Path(source).expanduser()
    if not path.exists():
        raise InputError(f"corpus {str(source)!r} not found.",
                         fix="pass 'sample' or the path of a CSV/TSV/JSONL file with a 'text' (or 'review') column.")
    suffixes = "".join(path.suffixes[-2:]).lower()
    if suffixes.endswith((".jsonl", ".jsonl.gz", ".json")):
        frame = pd.read_json(path, lines=True)
    elif suffixes.endswith((".tsv", ".tsv.gz")):
        frame = pd.read_csv(path, sep="\t")
    elif suffixes.endswith((".csv", ".csv.gz")):
        frame = pd.read_csv(path)
    else:
        raise InputError(f"cannot read corpus file {path.name!r}: unknown format.",
                         fix="use .csv, .tsv or .jsonl (optionally .gz).")
    text_column = next((c for c in TEXT_COLUMNS if c in frame.columns), None)
    if text_column is None:
        raise SchemaError(f"corpus {path.name!r} has no text column; its columns: {', '.join(map(str, frame.columns))}.",
                          fix=f"name the text column one of: {', '.join(TEXT_COLUMNS)}.")
    label_column = next((c for c in LABEL_COLUMNS if c in frame.columns), None)
    frame = frame.dropna(subset=[text_column]).head(limit) if limit else frame.dropna(subset=[text_column])
    corpus_name = name or ("sample" if str(source) == "sample" else path.name.split(".")[0])
    return pd.DataFrame({
        "doc_id": [f"{corpus_name}:{i}" for i in frame.index],
        "text": frame[text_column].map(clean).tolist(),
        "label": frame[label_column].astype(str).tolist() if label_column else [""] * len(frame),
        "corpus": corpus_name,
    }).loc[:, list(CORPUS_COLUMNS)]
