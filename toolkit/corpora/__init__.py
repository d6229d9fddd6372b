"""Corpus loaders: every corpus becomes one frame with columns :data:`CORPUS_COLUMNS`.

Sources: ``"sample"`` (the small review corpus this project wrote itself, ``data/sample_reviews.csv``), or a path to
a CSV/TSV (optionally gzipped) or JSONL file with a ``text`` column — or ``review`` as in the aclImdb CSV — and an
optional ``sentiment``/``label`` column. HTML line breaks (``<br />``) are turned into spaces.

Robustness (every case recorded in ``frame.attrs["corpus_report"]``, which the studies copy into provenance):

- Files are decoded with ``encoding`` (default UTF-8); a file that is not valid in it raises TK104 naming the line
  and the ``encoding=`` (CLI ``--encoding``) to pass. An empty file raises TK104.
- CSV/TSV files are parsed strictly first: an unbalanced quote (which would merge the following rows into one text)
  or a row with more fields than the header raises TK104 naming the line. A broken JSONL line raises TK104 naming
  its number.
- Missing, empty and whitespace-only texts are dropped, counted (``empty_texts_dropped``) and warned about; never
  kept as "".
- Other HTML markup (``<p>``, ``<b>``, ``<a href=…>``) is stripped and entities unescaped (``strip_html=True``);
  the number of texts changed is ``html_stripped``.
- Texts that do not look English (:func:`looks_english`: mostly non-ASCII letters, or 8+ words with fewer than two
  distinct common English words) are counted (``non_english``) and warned about; PSA and BiasFinder skip them.
"""
from __future__ import annotations

import csv
import gzip
import hashlib
import html
import io
import json
import re
import warnings
from pathlib import Path

import pandas as pd

from toolkit import paths
from toolkit.errors import CorpusError, InputError, SchemaError

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


_BLOCK_TAG = re.compile(r"</?(?:br|p|div|li|ul|ol|h[1-6]|tr|td|th|table|blockquote|hr)\b[^<>]*>", re.IGNORECASE)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z]+);")


def strip_html(text: str) -> str:
    """``text`` without HTML tags (block tags become spaces, inline tags vanish) and with entities unescaped."""
    return html.unescape(_TAG.sub("", _BLOCK_TAG.sub(" ", text))) if ("<" in text or "&" in text) else text


_ENGLISH_WORDS = frozenset("the a an and of to is was it in that this i you he she they for with on not but be are "
                           "have as at his her my me so all very just no".split())


def looks_english(text: str) -> bool:
    """A cheap language check: False when most letters are non-ASCII (Chinese, Russian, …), when there are no letters,
    or when 8+ words include fewer than two distinct common English words (French, German, Spanish, …)."""
    letters = [c for c in text if c.isalpha()]
    if not letters or sum(not c.isascii() for c in letters) > 0.3 * len(letters):
        return False
    words = re.findall(r"[a-z]+", text.lower())
    return len(words) < 8 or len(_ENGLISH_WORDS.intersection(words)) >= 2


def _decode(raw: bytes, *, path: Path, encoding: str) -> str:
    try:
        text = raw.decode("utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}.", fix="pass a Python codec name such as utf-8, cp1252 or "
                         "latin-1.") from None
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise CorpusError(f"corpus {path.name!r} is not valid {encoding} (line {line}, byte {exc.start}: "
                          f"{raw[exc.start:exc.start + 1]!r}).",
                          fix="pass its encoding: encoding='cp1252' (Windows) or 'latin-1' in Python, "
                              "--encoding cp1252 on the command line.") from None
    if not text.strip():
        raise CorpusError(f"corpus {path.name!r} is empty.", fix="give a file with a header and at least one row.")
    return text


def _strict_csv(text: str, *, sep: str, path: Path) -> int:
    """Parse ``text`` strictly (an unbalanced quote or an extra field is an error naming its line); the number of
    data records."""
    reader = csv.reader(io.StringIO(text), delimiter=sep, strict=True)
    start, width, records = 1, None, 0
    try:
        for row in reader:
            if row:
                if width is None:
                    width = len(row)
                else:
                    records += 1
                    if len(row) > width:
                        raise CorpusError(f"corpus {path.name!r} line {start}: {len(row)} fields where the header has "
                                          f"{width}.", fix="quote texts that contain the delimiter.")
            start = reader.line_num + 1
    except csv.Error as exc:
        raise CorpusError(f"corpus {path.name!r} is malformed in the record starting at line {start}: {exc} (an "
                          "unbalanced quote there would merge the following rows into one text).",
                          fix='close the quote, or double quotes inside a quoted text ("" for ").') from None
    return records


def _jsonl(text: str, *, path: Path) -> pd.DataFrame:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"corpus {path.name!r} line {number} is not valid JSON: {exc.msg}.",
                              fix="write one JSON object per line.") from None
        if not isinstance(row, dict):
            raise CorpusError(f"corpus {path.name!r} line {number} is a {type(row).__name__}, not a JSON object.",
                              fix='write one object per line, e.g. {"text": "…", "label": "positive"}.')
        rows.append(row)
    return pd.DataFrame(rows)


def _read(path: Path, *, encoding: str) -> tuple[pd.DataFrame, str]:
    """The raw table of a corpus file and the SHA-256 of its bytes."""
    suffixes = "".join(path.suffixes[-2:]).lower()
    if not suffixes.endswith((".jsonl", ".jsonl.gz", ".json", ".tsv", ".tsv.gz", ".csv", ".csv.gz")):
        raise InputError(f"cannot read corpus file {path.name!r}: unknown format.",
                         fix="use .csv, .tsv or .jsonl (optionally .gz).")
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if suffixes.endswith(".gz"):
        raw = gzip.decompress(raw)
    text = _decode(raw, path=path, encoding=encoding)
    if suffixes.endswith((".jsonl", ".jsonl.gz", ".json")):
        return _jsonl(text, path=path), digest
    sep = "\t" if suffixes.endswith((".tsv", ".tsv.gz")) else ","
    records = _strict_csv(text, sep=sep, path=path)
    frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False)
    if len(frame) != records:  # a cross-check: the strict parse and pandas must agree on the rows
        raise CorpusError(f"corpus {path.name!r}: {records} records by a strict parse but {len(frame)} by pandas.",
                          fix="check the file's quoting.")
    return frame, digest


def load(source: str | Path, *, name: str | None = None, limit: int | None = None, encoding: str = "utf-8",
         strip_markup: bool = True) -> pd.DataFrame:
    """Load a corpus (see the module docstring); ``name`` defaults to ``"sample"`` or the file's stem. What was
    dropped, stripped or flagged is in ``attrs["corpus_report"]``."""
    path = sample_path() if str(source) == "sample" else Path(source).expanduser()
    if not path.exists():
        raise InputError(f"corpus {str(source)!r} not found.",
                         fix="pass 'sample' or the path of a CSV/TSV/JSONL file with a 'text' (or 'review') column.")
    frame, digest = _read(path, encoding=encoding)
    text_column = next((c for c in TEXT_COLUMNS if c in frame.columns), None)
    if text_column is None:
        raise SchemaError(f"corpus {path.name!r} has no text column; its columns: {', '.join(map(str, frame.columns))}.",
                          fix=f"name the text column one of: {', '.join(TEXT_COLUMNS)}.")
    label_column = next((c for c in LABEL_COLUMNS if c in frame.columns), None)
    texts = frame[text_column].map(lambda t: "" if t is None or (isinstance(t, float) and t != t) else str(t))
    stripped = texts.map(strip_html) if strip_markup else texts
    cleaned = stripped.map(clean)
    empty = cleaned.str.len() == 0
    kept = frame[~empty].head(limit) if limit else frame[~empty]
    corpus_name = name or ("sample" if str(source) == "sample" else path.name.split(".")[0])
    labels = kept[label_column].map(lambda v: "" if v is None or (isinstance(v, float) and v != v) else str(v)) \
        if label_column else pd.Series([""] * len(kept), index=kept.index)
    out = pd.DataFrame({
        "doc_id": [f"{corpus_name}:{i}" for i in kept.index],
        "text": cleaned[kept.index].tolist(),
        "label": labels.tolist(),
        "corpus": corpus_name,
    }).loc[:, list(CORPUS_COLUMNS)]
    non_english = int((~out["text"].map(looks_english)).sum())
    report = {"source": "sample" if str(source) == "sample" else str(path.resolve()), "sha256": digest,
              "encoding": encoding, "rows_read": int(len(frame)), "empty_texts_dropped": int(empty.sum()),
              "html_stripped": int((stripped != texts.map(lambda t: _BREAK.sub(" ", t))).sum()),
              "non_english": non_english, "rows": int(len(out))}
    if report["empty_texts_dropped"]:
        warnings.warn(f"corpus {corpus_name!r}: {report['empty_texts_dropped']} of {len(frame)} rows have a missing, "
                      "empty or whitespace-only text and were dropped (recorded in attrs['corpus_report']).",
                      stacklevel=2)
    if non_english:
        warnings.warn(f"corpus {corpus_name!r}: {non_english} of {len(out)} texts do not look English; English models "
                      "will score them anyway (PSA and BiasFinder skip them).", stacklevel=2)
    out.attrs["corpus_report"] = report
    return out
