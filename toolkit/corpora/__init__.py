"""Corpus loaders: every corpus becomes one frame with columns :data:`CORPUS_COLUMNS`.

Sources: ``"sample"`` (the small review corpus this project wrote itself, ``data/sample_reviews.csv``), or a path to
a CSV/TSV (optionally gzipped) or JSONL file with a ``text`` column — or ``review`` as in the aclImdb CSV — and an
optional ``sentiment``/``label`` column. HTML line breaks (``<br />``) are turned into spaces.

The Large Movie Review Dataset (aclImdb, Maas et al. 2011) loads as it is downloaded, unpacked or not:

- a folder: the top folder ``aclImdb/`` (its splits ``test/`` and ``train/``), or one split such as
  ``aclImdb/test/``; a split folder holds ``pos/`` and ``neg/`` with one review per file named ``ID_RATING.txt``
  (``200_8.txt``: review 200, 8 stars of 10);
- the tarball ``aclImdb_v1.tar.gz`` (also ``.tar``, ``.tgz``, ``.tar.bz2``, ``.tar.xz``), streamed member by member
  without unpacking; it gives exactly the frame of the unpacked folder.

Such a corpus has one more column, ``rating`` (int), and ``label`` positive (``pos/``) or negative (``neg/``);
``doc_id`` is the review's path without ``.txt``, e.g. ``train/pos/200_8`` (the same whether the top folder, the
split folder or the tarball was loaded); ``corpus`` defaults to ``"aclImdb"``. Rows are sorted by split, label folder
(``neg`` before ``pos``) and numeric ID, so ``limit=`` takes the first reviews of that order (negative ones first):
draw a random sample of the frame for a balanced subset. The unlabelled ``train/unsup/`` reviews (rating 0) are
skipped and counted (``unsup_skipped``) unless ``unsup=True``, which keeps them with label ``""``. Files starting with
``.`` (``.DS_Store``, macOS ``._`` copies) are skipped and counted (``hidden_skipped``); any other entry of ``pos/``,
``neg/`` (or a kept ``unsup/``) not named ``ID_RATING.txt`` raises TK104 naming it. In the report, ``sha256`` is the
tarball's own digest; ``content_sha256`` (a folder's ``sha256`` too) is the SHA-256 of the lines
``<sha256 of the file>  <split>/<folder>/<name>\n`` over the reviews read, in row order (what ``sha256sum FILES |
sha256sum`` prints in that order): the same for a folder and its tarball, and proof of which reviews were read.

>>> load("aclImdb_v1.tar.gz")   # test and train: 50,000 reviews (all read and cleaned, as for a CSV, even with limit=)
>>> load("aclImdb/test")        # the test split: 25,000 reviews, doc_ids test/neg/… then test/pos/…

Robustness (every case recorded in the ``report`` dict ``load`` fills, which the studies copy into provenance):

- Files are decoded with ``encoding`` (default UTF-8); a file that is not valid in it raises TK104 naming the line
  (and, for aclImdb, the review file) and the ``encoding=`` (CLI ``--encoding``) to pass. An empty file raises TK104
  (an empty aclImdb review is dropped like an empty row). A folder that is not aclImdb-like, or a file of an unknown
  format, raises TK102 naming the accepted sources.
- CSV/TSV files are parsed strictly first: an unbalanced quote (which would merge the following rows into one text)
  or a row with more fields than the header raises TK104 naming the line. A broken JSONL line raises TK104 naming
  its number.
- Missing, empty and whitespace-only texts (rows, or aclImdb review files) are dropped, counted
  (``empty_texts_dropped``) and warned about; never kept as "".
- Other HTML markup (``<p>``, ``<b>``, ``<a href=…>``) is stripped and entities unescaped (``strip_html=True``);
  the number of texts changed is ``html_stripped``.
- Texts that do not look English (:func:`looks_english`: mostly non-ASCII letters, or 8+ words with fewer than two
  distinct common English words) are counted (``non_english``) and warned about; PSA and BiasFinder skip them.
- Texts are put in Unicode normal form NFC (``unicode_form="NFC"``, the default; None keeps them as read): "café"
  written with a combining accent (NFD, as macOS file names and some scrapers give it) and with the composed "é" are
  one text, scored alike (a lexicon that splits words on letters would otherwise read "cafe" + "´", and AFINN scored
  one review .625 in NFC and .806 in NFD). The number of texts changed is ``unicode_normalised``.
- A header naming a column the loader reads (``text``, ``review``, … or ``label``) twice is TK104 naming it (pandas
  would silently read the first); a CSV field of any length loads (Python's csv module stops at 128 KiB by default);
  texts too long for a model are skipped and counted by the scoring engine, not here.
- :func:`from_frame` makes a corpus of any DataFrame with a text column (``doc_id`` derived when absent), as the
  studies do when given a frame.
"""
from __future__ import annotations

import copy
import csv
import gzip
import hashlib
import html
import io
import json
import os
import re
import tarfile
import threading
import unicodedata
import warnings
import zlib
from collections import OrderedDict
from pathlib import Path

import pandas as pd

from toolkit import monitor, paths
from toolkit.errors import CorpusError, InputError, SchemaError

CORPUS_COLUMNS = ("doc_id", "text", "label", "corpus")
TEXT_COLUMNS = ("text", "review", "sentence", "comment")
LABEL_COLUMNS = ("sentiment", "label")
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)

LOADED_KEEP = 4
"""How many loaded corpora :func:`load` keeps in memory (the most recently used), each keyed by its source's
identity and the loading options."""
_LOADED: OrderedDict[tuple, tuple[pd.DataFrame, list[str]]] = OrderedDict()
_LOADED_LOCK = threading.Lock()
LOAD_COUNTS = {"read": 0, "reused": 0}
"""How many :func:`load` calls read and parsed their source, and how many reused a corpus already loaded."""


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


def fingerprint(frame: pd.DataFrame | pd.Series) -> str:
    """A SHA-256 of a frame's (or series') values in row order, index ignored: two frames with the same texts in the
    same order have the same one."""
    hashed = pd.util.hash_pandas_object(frame, index=False)
    return hashlib.sha256(hashed.to_numpy().tobytes()).hexdigest()


_ENGLISH: OrderedDict[str, pd.Series] = OrderedDict()


def english(texts: pd.Series) -> pd.Series:
    """:func:`looks_english` of each text (a boolean series on ``texts``' index); the answer for the last
    :data:`LOADED_KEEP` text columns is remembered by their :func:`fingerprint` (:func:`load` computes it for every
    corpus it reads, so a study filtering that corpus again checks nothing twice)."""
    key = fingerprint(texts)
    with _LOADED_LOCK:
        known = _ENGLISH.get(key)
    if known is None:
        known = pd.Series([looks_english(t) for t in texts], dtype=bool)
        with _LOADED_LOCK:
            _ENGLISH[key] = known
            while len(_ENGLISH) > LOADED_KEEP:
                _ENGLISH.popitem(last=False)
    return pd.Series(known.to_numpy(), index=texts.index, dtype=bool)


_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"),
         (b"\xfe\xff", "utf-16"))


def _bom_encoding(raw: bytes) -> str | None:
    """The UTF-16/32 encoding a byte-order mark at the start of ``raw`` announces (Excel's "Unicode text"), or None."""
    return next((name for bom, name in _BOMS if raw.startswith(bom)), None)


def _decode(raw: bytes, *, path: Path | str, encoding: str, empty_ok: bool = False) -> str:
    """``raw`` decoded with ``encoding`` (a UTF-8 byte-order mark dropped); errors name ``path`` (a file, or a review
    inside a folder or archive) and the line. An empty text is an error unless ``empty_ok``."""
    where = path if isinstance(path, str) else path.name
    try:
        text = raw.decode("utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}.", fix="pass a Python codec name such as utf-8, cp1252 or "
                         "latin-1.") from None
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        marked = _bom_encoding(raw)
        guess = (f"it starts with a {marked} byte-order mark: encoding='{marked}' in Python, --encoding {marked} on "
                 "the command line" if marked else "encoding='cp1252' (Windows) or 'latin-1' in Python, "
                 "--encoding cp1252 on the command line")
        raise CorpusError(f"corpus {where!r} is not valid {encoding} (line {line}, byte {exc.start}: "
                          f"{raw[exc.start:exc.start + 1]!r}).", fix=f"pass its encoding: {guess}.") from None
    wide = _utf16_without_bom(raw) if "\x00" in text and not encoding.lower().startswith("utf-16") else None
    if wide is not None:
        raise CorpusError(f"corpus {where!r} reads as {wide.upper()} text without a byte-order mark (every other byte "
                          f"is NUL), not {encoding}.", fix=f"pass its encoding: encoding='{wide}' in Python, "
                                                           f"--encoding {wide} on the command line.")
    if not empty_ok and not text.strip():
        raise CorpusError(f"corpus {where!r} is empty.", fix="give a file with a header and at least one row.")
    return text


def _one_newline(text: str) -> str:
    """A file whose lines end in a carriage return alone (classic Mac OS, some spreadsheet exports) with its line
    ends as newlines, so the CSV reader sees its rows; CRLF and LF files are returned as they are."""
    return text.replace("\r", "\n") if "\r" in text and "\n" not in text else text


def _utf16_without_bom(raw: bytes) -> str | None:
    """``"utf-16-le"`` or ``"utf-16-be"`` when ``raw`` reads as UTF-16 text without a byte-order mark (a NUL in
    nearly every other byte of its start, as ASCII letters in UTF-16 have), else None."""
    head = raw[:4096]
    if len(head) < 4 or raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return None
    odd, even = head[1::2], head[0::2]
    if odd.count(0) >= 0.8 * len(odd) and even.count(0) <= 0.2 * len(even):
        return "utf-16-le"
    if even.count(0) >= 0.8 * len(even) and odd.count(0) <= 0.2 * len(odd):
        return "utf-16-be"
    return None


def _strict_csv(text: str, *, sep: str, path: Path) -> int:
    """Parse ``text`` strictly (an unbalanced quote or an extra field is an error naming its line); the number of
    data records, a blank or whitespace-only line after the header included (read with pandas'
    ``skip_blank_lines=False`` the two counts agree, and such a row is an empty text, dropped and counted)."""
    reader = csv.reader(io.StringIO(text), delimiter=sep, strict=True)
    start, width, records = 1, None, 0
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text) + 1))  # a field can be as long as the file; the default stops at 128 KiB
    try:
        for row in reader:
            if width is not None:
                records += 1
            if row:
                if width is None:
                    width = len(row)
                    _check_header(row, path=path)
                else:
                    if len(row) > width:
                        raise CorpusError(f"corpus {path.name!r} line {start}: {len(row)} fields where the header has "
                                          f"{width}.", fix="quote texts that contain the delimiter.")
            start = reader.line_num + 1
    except csv.Error as exc:
        raise CorpusError(f"corpus {path.name!r} is malformed in the record starting at line {start}: {exc} (an "
                          "unbalanced quote there would merge the following rows into one text).",
                          fix='close the quote, or double quotes inside a quoted text ("" for ").') from None
    finally:
        csv.field_size_limit(limit)
    return records


def _check_header(names: list[str], *, path: Path) -> None:
    """A column the loader reads (a text or label column) named twice is TK104: which one is meant is unknown."""
    read = [n.strip() for n in names if n.strip() in TEXT_COLUMNS + LABEL_COLUMNS]
    twice = sorted({n for n in read if read.count(n) > 1})
    if twice:
        raise CorpusError(f"corpus {path.name!r} names the column {twice[0]!r} {read.count(twice[0])} times in its "
                          f"header ({', '.join(names)}); which one holds the texts is not known.",
                          fix=f"rename or drop the extra {twice[0]!r} column.")


UNICODE_FORMS = ("NFC", None)


def normalise(text: str, *, form: str | None = "NFC") -> str:
    """``text`` in Unicode normal form ``form`` (None: unchanged); see the module docstring."""
    return unicodedata.normalize(form, text) if form and not unicodedata.is_normalized(form, text) else text


def _jsonl(text: str, *, path: Path) -> pd.DataFrame:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line, object_pairs_hook=_no_twice)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"corpus {path.name!r} line {number} is not valid JSON: {exc.msg}.",
                              fix="write one JSON object per line.") from None
        if not isinstance(row, dict):
            raise CorpusError(f"corpus {path.name!r} line {number} is a {type(row).__name__}, not a JSON object.",
                              fix='write one object per line, e.g. {"text": "…", "label": "positive"}.')
        odd = next(((k, v) for k, v in row.items() if k in TEXT_COLUMNS and v is not None and not isinstance(v, str)),
                   None)
        if odd is not None:  # 123 or ["a"] would otherwise be scored as the text "123" / "['a']"
            raise CorpusError(f"corpus {path.name!r} line {number}: {odd[0]!r} is a JSON {type(odd[1]).__name__} "
                              f"({json.dumps(odd[1])[:40]}), not a string.",
                              fix=f'write the text as a JSON string, e.g. {{"{odd[0]}": "…"}}.')
        broken = next((k for k, v in row.items() if k in TEXT_COLUMNS and isinstance(v, str) and _surrogate(v)), None)
        if broken is not None:  # "\ud800" alone: no character, and no model or cache can encode it
            raise CorpusError(f"corpus {path.name!r} line {number}: {broken!r} holds a lone surrogate escape "
                              f"(U+{ord(_surrogate(row[broken])):04X}), which is not a character.",
                              fix="write the character itself, or both halves of its surrogate pair "
                                  "(\\ud83d\\ude00 for 😀).")
        rows.append(row)
    return pd.DataFrame(rows)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogate(text: str) -> str:
    """The first lone surrogate code point in ``text`` ("" if none): not valid Unicode, cannot be encoded."""
    found = _SURROGATE.search(text)
    return found.group(0) if found else ""


def _no_twice(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object; a text or label key given twice in one object is an error (json keeps the last silently)."""
    keys = [k for k, _ in pairs if k in TEXT_COLUMNS + LABEL_COLUMNS]
    twice = next((k for k in keys if keys.count(k) > 1), None)
    if twice is not None:
        raise json.JSONDecodeError(f"the key {twice!r} is given twice", "", 0)
    return dict(pairs)


def _gunzip(raw: bytes, *, path: Path) -> bytes:
    """The decompressed bytes of a ``.gz`` corpus; a file that is not gzip, or is cut short, is TK104."""
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError; a cut file an EOFError
        kind = "is not gzip-compressed" if raw[:2] != b"\x1f\x8b" else "is truncated or corrupt"
        raise CorpusError(f"corpus {path.name!r} {kind} ({type(exc).__name__}: {exc}; {len(raw):,} bytes).",
                          fix="download or copy the file again, or drop the .gz suffix if it is plain text.") from None


def _read(path: Path, *, encoding: str) -> tuple[pd.DataFrame, str]:
    """The raw table of a corpus file and the SHA-256 of its bytes."""
    suffixes = "".join(path.suffixes[-2:]).lower()
    if not suffixes.endswith((".jsonl", ".jsonl.gz", ".json", ".tsv", ".tsv.gz", ".csv", ".csv.gz")):
        raise InputError(f"cannot read corpus file {path.name!r}: unknown format.",
                         fix=f"use .csv, .tsv or .jsonl (optionally .gz); accepted sources: {_SOURCES}.")
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if suffixes.endswith(".gz"):
        raw = _gunzip(raw, path=path)
    text = _decode(raw, path=path, encoding=encoding)
    if suffixes.endswith((".jsonl", ".jsonl.gz", ".json")):
        return _jsonl(text, path=path), digest
    sep = "\t" if suffixes.endswith((".tsv", ".tsv.gz")) else ","
    text = _one_newline(text)
    records = _strict_csv(text, sep=sep, path=path)
    frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, skip_blank_lines=False)
    if len(frame) != records:  # a cross-check: the strict parse and pandas must agree on the rows
        raise CorpusError(f"corpus {path.name!r}: {records} records by a strict parse but {len(frame)} by pandas.",
                          fix="check the file's quoting.")
    return frame, digest


# --- aclImdb (Maas et al. 2011): the folder tree, or its tarball read without unpacking ---------------------------

ACLIMDB_SOURCE = "aclImdb v1.0, the tarball or its folder, from https://ai.stanford.edu/~amaas/data/sentiment/"
"""Where the IMDB reviews the papers' sizes need come from (they do not ship), in the words of a coded error."""
ACLIMDB_LABELS = {"neg": "negative", "pos": "positive"}  # label folder -> label
ACLIMDB_UNSUP = "unsup"  # train/unsup/: 50,000 unlabelled reviews, rating 0
_REVIEW_NAME = re.compile(r"^(\d+)_(\d+)\.txt$")
_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
_SOURCES = ("'sample', a CSV/TSV/JSONL file (optionally .gz) with a 'text' (or 'review') column, an aclImdb folder "
            "(aclImdb/ holding train/ and test/, or one split such as aclImdb/test/, each with pos/ and neg/ of "
            "ID_RATING.txt reviews) or the aclImdb_v1.tar.gz tarball")


def _is_tarball(path: Path) -> bool:
    return path.name.lower().endswith(_TAR_SUFFIXES)


def _review_key(name: str, *, shown: str) -> tuple[int, int]:
    """(ID, rating) of a review file named ``ID_RATING.txt``; TK104 naming the file otherwise."""
    match = _REVIEW_NAME.match(name)
    if not match:
        raise CorpusError(f"aclImdb file {shown!r} is not a review named ID_RATING.txt (e.g. 200_8.txt).",
                          fix="rename or remove it: pos/, neg/ and unsup/ hold only reviews, named by ID and rating.")
    return int(match[1]), int(match[2])


def _acl_splits(path: Path) -> list[tuple[str, Path]]:
    """(split, folder) of an aclImdb folder: the folder itself when it holds pos/ or neg/ (``aclImdb/test/``), else its
    subfolders that do (``aclImdb/`` -> test, train); [] when it is neither."""
    def is_split(folder: Path) -> bool:
        return any((folder / label).is_dir() for label in ACLIMDB_LABELS)

    if is_split(path):
        return [(path.resolve().name, path)]
    return [(child.name, child) for child in sorted(path.iterdir()) if child.is_dir() and is_split(child)]


def _acl_folder(path: Path, *, unsup: bool) -> tuple[list[tuple], dict]:
    """The reviews of an aclImdb folder, sorted, as (split, folder, ID, rating, name, where, bytes) — ``where`` names
    the file in errors — and the skip counts."""
    splits = _acl_splits(path)
    if not splits:
        raise InputError(f"cannot read corpus folder {path.name!r}: unknown format (no pos/ or neg/ folder in it or "
                         "in its subfolders).", fix=f"pass {_SOURCES}.")
    folders = (*ACLIMDB_LABELS, ACLIMDB_UNSUP) if unsup else tuple(ACLIMDB_LABELS)
    found, skipped = [], {"unsup_skipped": 0, "hidden_skipped": 0}
    for split, split_dir in splits:
        if not unsup and (split_dir / ACLIMDB_UNSUP).is_dir():
            with os.scandir(split_dir / ACLIMDB_UNSUP) as entries:
                skipped["unsup_skipped"] += sum(not entry.name.startswith(".") for entry in entries)
        for folder in folders:
            if not (split_dir / folder).is_dir():
                continue
            with os.scandir(split_dir / folder) as entries:
                for entry in entries:
                    if entry.name.startswith("."):
                        skipped["hidden_skipped"] += 1
                        continue
                    key = _review_key(entry.name, shown=entry.path)
                    if not entry.is_file():
                        raise CorpusError(f"aclImdb entry {entry.path!r} is not a file.",
                                          fix="move it out of the folder.")
                    found.append((split, folder, *key, entry.name, entry.path))
    found.sort(key=lambda r: r[:5])
    return [(*r, Path(r[5]).read_bytes()) for r in found], skipped


class _HashingReader:
    """A binary file that updates ``digest`` with every byte read from it."""

    def __init__(self, file, digest) -> None:
        self.file, self.digest = file, digest

    def read(self, size: int = -1) -> bytes:
        data = self.file.read(size)
        self.digest.update(data)
        return data


def _acl_tarball(path: Path, *, unsup: bool) -> tuple[list[tuple], dict, str]:
    """The reviews of an aclImdb tarball, streamed without unpacking (members ``[ROOT/]SPLIT/FOLDER/NAME``), as
    :func:`_acl_folder` gives them, the skip counts and the SHA-256 of the archive's bytes."""
    folders = (*ACLIMDB_LABELS, ACLIMDB_UNSUP) if unsup else tuple(ACLIMDB_LABELS)
    found, skipped, digest = [], {"unsup_skipped": 0, "hidden_skipped": 0}, hashlib.sha256()
    with path.open("rb") as file:
        stream = _HashingReader(file, digest)
        try:
            with tarfile.open(fileobj=stream, mode="r|*") as tar:
                for member in tar:
                    parts = [part for part in member.name.split("/") if part not in ("", ".")]
                    if len(parts) not in (3, 4) or parts[-2] not in (*ACLIMDB_LABELS, ACLIMDB_UNSUP):
                        continue
                    split, folder, name = parts[-3:]
                    if folder not in folders:  # counted as the folder reader counts them
                        skipped["unsup_skipped"] += not name.startswith(".")
                        continue
                    if name.startswith("."):
                        skipped["hidden_skipped"] += 1
                        continue
                    shown = f"{path.name}:{member.name}"
                    key = _review_key(name, shown=shown)
                    if not member.isfile():
                        raise CorpusError(f"aclImdb member {shown!r} is not a regular file.",
                                          fix="rebuild the archive with the review files themselves.")
                    found.append((split, folder, *key, name, shown, tar.extractfile(member).read()))
        except (tarfile.TarError, EOFError, zlib.error) as exc:
            raise CorpusError(f"archive {path.name!r} cannot be read: {exc}.",
                              fix="download it again (it may be truncated) or unpack it and pass the folder.") from None
        while stream.read(1 << 20):  # the bytes after the archive's end marker, for the file's digest
            pass
    if not found and not skipped["unsup_skipped"]:
        raise InputError(f"cannot read corpus archive {path.name!r}: unknown format (no SPLIT/pos/ or SPLIT/neg/ "
                         "review files in it).", fix=f"pass {_SOURCES}.")
    found.sort(key=lambda r: r[:5])
    return found, skipped, digest.hexdigest()


def _read_aclimdb(path: Path, *, encoding: str, unsup: bool) -> tuple[pd.DataFrame, str, dict]:
    """The raw aclImdb table (``doc_id``, ``text``, ``label``, ``rating``), the source's SHA-256 and the report's
    aclImdb entries (see the module docstring)."""
    if path.is_dir():
        reviews, skipped = _acl_folder(path, unsup=unsup)
        digest, layout = None, "aclImdb folder"
    else:
        reviews, skipped, digest = _acl_tarball(path, unsup=unsup)
        layout = "aclImdb tarball"
    manifest, rows = hashlib.sha256(), []
    for split, folder, _, rating, name, where, raw in reviews:
        relative = f"{split}/{folder}/{name}"
        manifest.update(f"{hashlib.sha256(raw).hexdigest()}  {relative}\n".encode())
        rows.append((relative[:-len(".txt")], _decode(raw, path=where, encoding=encoding, empty_ok=True),
                     ACLIMDB_LABELS.get(folder, ""), rating))
    frame = pd.DataFrame(rows, columns=["doc_id", "text", "label", "rating"]).astype({"rating": "int64"})
    duplicated = frame["doc_id"][frame["doc_id"].duplicated()]
    if len(duplicated):
        raise CorpusError(f"aclImdb source {path.name!r} holds review {duplicated.iloc[0]!r} more than once.",
                          fix="give one aclImdb tree (an archive with a single top folder).")
    report = {"layout": layout, "splits": sorted({r[0] for r in reviews}), "content_sha256": manifest.hexdigest(),
              **skipped}
    return frame, digest or report["content_sha256"], report


def identity(path: str | Path) -> tuple:
    """What identifies a corpus source on disk: a file's resolved path, size and modification time (ns); a folder's
    path with the count, total size and latest modification time of every file under it. A file edited, replaced or
    touched gets another identity."""
    path = Path(path).expanduser().resolve()
    if not path.is_dir():
        info = path.stat()
        return (str(path), info.st_size, info.st_mtime_ns)
    count = size = latest = 0
    for folder, _, names in os.walk(path):
        for file_name in names:
            try:
                info = os.stat(os.path.join(folder, file_name))
            except OSError:
                continue
            count, size, latest = count + 1, size + info.st_size, max(latest, info.st_mtime_ns)
    return (str(path), "folder", count, size, latest)


def source_path(source: str | Path) -> Path:
    """The file or folder a corpus ``source`` names (``"sample"``: the bundled one); InputError (TK102) when it does
    not exist (or is blank, or not a path), so a caller can check a source before a long run reaches it."""
    if not isinstance(source, (str, os.PathLike)) or not str(source).strip():
        raise InputError(f"a corpus must be named by a path or 'sample'; got {source!r}.", fix=f"pass {_SOURCES}.")
    path = sample_path() if str(source) == "sample" else Path(source).expanduser()
    if not path.exists():
        where = "" if path.is_absolute() else f" (a relative path is read from {Path.cwd()})"
        raise InputError(f"corpus {str(source)!r} not found{where}.", fix=f"pass {_SOURCES}.")
    return path


def load(source: str | Path, *, name: str | None = None, limit: int | None = None, encoding: str = "utf-8",
         strip_markup: bool = True, unsup: bool = False, unicode_form: str | None = "NFC",
         report: dict | None = None) -> pd.DataFrame:
    """Load a corpus (see the module docstring); ``name`` defaults to ``"sample"``, ``"aclImdb"`` for an aclImdb folder
    or tarball, or the file's stem. ``limit`` keeps the first rows after empty texts are dropped. ``unsup`` keeps the
    unlabelled aclImdb ``train/unsup/`` reviews (skipped by default). What was dropped, stripped or flagged goes into
    ``report`` (a dict to fill; the corpus report the studies record). ``unicode_form``: ``"NFC"`` (default) or
    None, see the module docstring.

    A source loaded before in this process with the same options and the same :func:`identity` (path, size,
    modification time) is not read again: a copy of the frame (and of its report) is returned and its warnings
    repeated (:data:`LOADED_KEEP` corpora kept; :data:`LOAD_COUNTS` counts reads and reuses); an edited file is read
    anew."""
    if unicode_form not in UNICODE_FORMS:
        raise InputError(f"unicode_form must be one of {UNICODE_FORMS}; got {unicode_form!r}.",
                         fix="pass unicode_form='NFC' (default) or None to keep texts as read.")
    path = source_path(source)
    key = (identity(path), str(source) == "sample", name, limit, encoding, strip_markup, unsup, unicode_form)
    with _LOADED_LOCK:
        hit = _LOADED.get(key)
        if hit is not None:
            _LOADED.move_to_end(key)
            LOAD_COUNTS["reused"] += 1
    if hit is not None:
        frame, found, said = hit
        for message in said:
            warnings.warn(message, stacklevel=2)
        if report is not None:
            report.update(copy.deepcopy(found))
        return copied(frame)
    monitor.stage(f"reading the corpus {path.name}")
    (frame, found), said = recorded(_load, path, source=source, name=name, limit=limit, encoding=encoding,
                           strip_markup=strip_markup, unsup=unsup, unicode_form=unicode_form)
    with _LOADED_LOCK:
        LOAD_COUNTS["read"] += 1
        _LOADED[key] = (frame, found, said)
        while len(_LOADED) > LOADED_KEEP:
            _LOADED.popitem(last=False)
    if report is not None:
        report.update(copy.deepcopy(found))
    return copied(frame)


def recorded(function, /, *args, **kwargs) -> tuple:
    """``function(*args, **kwargs)`` and the texts of the warnings it raised (each raised again as it came), for a
    cache to say them again when it reuses the result."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result, [str(w.message) for w in caught]


def copied(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of a remembered frame, so a caller's edits never reach the cache."""
    return frame.copy()


def _load(path: Path, *, source: str | Path, name: str | None, limit: int | None, encoding: str, strip_markup: bool,
          unsup: bool, unicode_form: str | None) -> tuple[pd.DataFrame, dict]:
    """:func:`load` without the cache: the corpus and its report."""
    aclimdb = path.is_dir() or _is_tarball(path)
    if aclimdb:
        frame, digest, acl_report = _read_aclimdb(path, encoding=encoding, unsup=unsup)
        text_column, label_column = "text", "label"
    else:
        frame, digest = _read(path, encoding=encoding)
        text_column = next((c for c in TEXT_COLUMNS if c in frame.columns), None)
        if text_column is None:
            columns = [str(c) for c in frame.columns]
            other = next((name for sep, name in (("\t", "tab"), (";", "semicolon"), ("|", "pipe"))
                          if len(columns) == 1 and any(c in TEXT_COLUMNS for c in columns[0].split(sep))), None)
            raise SchemaError(f"corpus {path.name!r} has no text column; its columns: {', '.join(columns)}"
                              + (f" (a {other}-separated header read as one column)." if other else "."),
                              fix=("save it comma-separated, or tab-separated with a .tsv name." if other else
                                   f"name the text column one of: {', '.join(TEXT_COLUMNS)}."))
        label_column = next((c for c in LABEL_COLUMNS if c in frame.columns), None)
    texts = frame[text_column].map(lambda t: "" if t is None or (isinstance(t, float) and t != t) else str(t))
    stripped = texts.map(strip_html) if strip_markup else texts
    cleaned = stripped.map(clean)
    normalised = cleaned.map(lambda t: normalise(t, form=unicode_form))
    changed = normalised != cleaned
    cleaned = normalised
    empty = cleaned.str.len() == 0
    kept = frame[~empty].head(limit) if limit else frame[~empty]
    corpus_name = name or ("sample" if str(source) == "sample" else "aclImdb" if aclimdb else path.name.split(".")[0])
    labels = kept[label_column].map(lambda v: "" if v is None or (isinstance(v, float) and v != v) else str(v)) \
        if label_column else pd.Series([""] * len(kept), index=kept.index)
    out = pd.DataFrame({
        "doc_id": kept["doc_id"].tolist() if aclimdb else [f"{corpus_name}:{i}" for i in kept.index],
        "text": cleaned[kept.index].tolist(),
        "label": labels.tolist(),
        "corpus": corpus_name,
    }).loc[:, list(CORPUS_COLUMNS)]
    if aclimdb:
        out["rating"] = kept["rating"].to_numpy(dtype="int64")
    non_english = int((~english(out["text"])).sum())
    found = {"source": "sample" if str(source) == "sample" else str(path.resolve()), "sha256": digest,
             "encoding": encoding, "rows_read": int(len(frame)), "empty_texts_dropped": int(empty.sum()),
             "html_stripped": int((stripped != texts.map(lambda t: _BREAK.sub(" ", t))).sum()),
             "non_english": non_english, "unicode_form": unicode_form,
             "unicode_normalised": int((changed & ~empty).sum()), "rows": int(len(out)),
             **(acl_report if aclimdb else {})}
    if found["empty_texts_dropped"]:
        warnings.warn(f"corpus {corpus_name!r}: {found['empty_texts_dropped']} of {len(frame)} rows have a missing, "
                      "empty or whitespace-only text and were dropped (counted in the corpus report).",
                      stacklevel=3)
    if non_english:
        warnings.warn(f"corpus {corpus_name!r}: {non_english} of {len(out)} texts do not look English; English models "
                      "will score them anyway (PSA and BiasFinder skip them).", stacklevel=3)
    return out, found


def from_frame(frame: pd.DataFrame, *, name: str = "frame") -> pd.DataFrame:
    """A corpus (columns :data:`CORPUS_COLUMNS`) from any DataFrame with a text column (``text``, or ``review``,
    ``sentence``, ``comment``): ``doc_id`` ``<name>:<row>`` where absent, ``label`` "" and ``corpus`` ``name`` where
    absent; other columns are kept. A frame that already has every corpus column is returned as it is.
    No text column, or texts that are not strings, is TK101 naming the columns."""
    if not isinstance(frame, pd.DataFrame):
        raise SchemaError(f"a corpus must be a file path, 'sample' or a pandas DataFrame; got {type(frame).__name__}.",
                          fix="pass corpora.load(path), or a DataFrame with a 'text' column.")
    if all(c in frame.columns for c in CORPUS_COLUMNS) and frame["text"].map(lambda t: isinstance(t, str)).all():
        return frame
    text_column = next((c for c in TEXT_COLUMNS if c in frame.columns), None)
    if text_column is None:
        raise SchemaError(f"the corpus frame has no text column; its columns: "
                          f"{', '.join(map(str, frame.columns)) or 'none'}.",
                          fix=f"name the text column one of: {', '.join(TEXT_COLUMNS)} (doc_id, label and corpus are "
                              "optional), or load a file with toolkit.corpora.load().")
    texts = frame[text_column]
    bad = texts.map(lambda t: not isinstance(t, str))
    if bad.any():
        row = frame.index[bad.to_numpy()][0]
        raise SchemaError(f"the corpus frame's {text_column!r} column holds {texts[row]!r} "
                          f"({type(texts[row]).__name__}) in row {row!r}, not a string.",
                          fix="drop rows without text (frame.dropna(subset=[...])) and pass strings.")
    out = frame.copy()
    out["text"] = texts
    if "doc_id" not in out.columns:
        out["doc_id"] = [f"{name}:{i}" for i in range(len(out))]
    out["doc_id"] = out["doc_id"].astype(str)
    if "label" not in out.columns:
        out["label"] = next((out[c].astype(str) for c in LABEL_COLUMNS if c in out.columns), "")
    if "corpus" not in out.columns:
        out["corpus"] = name
    return out.loc[:, list(CORPUS_COLUMNS) + [c for c in out.columns if c not in CORPUS_COLUMNS]]


def read_csv(path: str | Path, *, encoding: str = "utf-8") -> pd.DataFrame:
    """A small CSV table (a names file, say) read as strictly as a corpus: every cell a string ("" where empty); not
    in ``encoding``, empty, an unbalanced quote, an extra field or a column named twice is TK104 naming the line."""
    path = Path(path).expanduser()
    text = _one_newline(_decode(path.read_bytes(), path=path, encoding=encoding))
    records = _strict_csv(text, sep=",", path=path)
    header = next(csv.reader(io.StringIO(text)), [])
    names = [h.strip() for h in header]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise CorpusError(f"{path.name!r} names the column {twice!r} {names.count(twice)} times in its header.",
                          fix=f"rename or drop the extra {twice!r} column.")
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, skip_blank_lines=False)
    if len(frame) != records:
        raise CorpusError(f"{path.name!r}: {records} records by a strict parse but {len(frame)} by pandas.",
                          fix="check the file's quoting.")
    return frame[(frame != "").any(axis=1)].reset_index(drop=True)  # blank lines hold no row
