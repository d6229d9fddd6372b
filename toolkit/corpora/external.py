"""External test sets as case tables: the BTC-SAM releases, the official EEC CSV, CrowS-Pairs.

- :func:`load_btcsam` reads one released BTC-SAM file (comma- or semicolon-separated, detected from the header;
  columns ``id`` or ``refid``, ``bias_type``, ``id_term``, ``sentence``, optional ``concept_term``, ``isValid``
  (1/1.0/0/0.0) or only ``flagged``). One case = one (bias type, id) group. ``valid_only`` keeps rows marked valid
  (``isValid`` = 1, else ``flagged`` = 0) and then cases with at least two rows. ``termdefs_output.csv`` holds BTS
  triplets, not sentences, and is refused. :data:`BTCSAM_STAGES` maps file stems to pipeline stages.
- :func:`load_eec_csv`: the official EEC release (``ID, Sentence, Template, Person, Gender, Race, Emotion,
  Emotion word``); one case per template × emotion word.
- :func:`load_crows_pairs`: CrowS-Pairs (``sent_more, sent_less, stereo_antistereo, bias_type``); one case per pair,
  groups ``more_stereotypical`` / ``less_stereotypical``.

Every table has the case schema plus ``bias_type``, ``stage``, ``concept_term``, ``test_set``, and for BTC-SAM
releases ``release_id`` (the file's own group id) and ``source_id`` (the id of the baseline group a rewrite came
from: ``refid`` in the GPT files, ``reflink`` in the llama3 files; "" for baseline files and the other loaders).
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd

from toolkit import cases
from toolkit.errors import CorpusError, InputError, SchemaError, unknown

BTCSAM_STAGES = {"baseline": "etsg", "lexical": "lda", "syntactic": "syda", "semantic": "seda"}
BTCSAM_SETS = ("baseline", "lexical", "syntactic", "semantic", "llama3_baseline", "llama3_lexical", "llama3_semantic")
EXTRA_COLUMNS = ("bias_type", "stage", "concept_term", "test_set", "release_id", "source_id")
_BTCSAM_REQUIRED = ("bias_type", "id_term", "sentence")
_EEC_REQUIRED = ("Sentence", "Template", "Person", "Gender", "Race", "Emotion word")
_CROWS_REQUIRED = ("sent_more", "sent_less", "bias_type")


def _read(path: str | Path, *, kind: str, required: tuple[str, ...]) -> pd.DataFrame:
    path = Path(path).expanduser()
    if not path.is_file():
        raise InputError(f"{kind} file {str(path)!r} not found.", fix=f"pass the path of the {kind} CSV file.")
    raw = path.read_bytes()
    if b"\x00" in raw[:65536]:
        raise CorpusError(f"{kind} file {path.name!r} is binary (it holds NUL bytes), not a CSV text file.",
                          fix=f"pass the {kind} CSV file itself (unpack it first if it is an archive).")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise CorpusError(f"{kind} file {path.name!r} is not valid UTF-8 (line {line}, byte {exc.start}).",
                          fix=f"pass the {kind} CSV as released (UTF-8), or re-save it as UTF-8.") from None
    if not text.strip():
        raise CorpusError(f"{kind} file {path.name!r} is empty.", fix=f"copy the {kind} CSV file again.")
    header = text.split("\n", 1)[0]
    try:
        frame = pd.read_csv(io.StringIO(text), sep=";" if header.count(";") > header.count(",") else ",", dtype=str,
                            keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, csv.Error) as exc:
        raise CorpusError(f"{kind} file {path.name!r} is not a readable CSV: {str(exc).strip()[:200]}",
                          fix=f"pass the {kind} CSV as released; check its quoting.") from None
    if kind == "BTC-SAM release" and "topic" in frame.columns and "sentence" not in frame.columns:
        raise SchemaError(f"{path.name!r} holds BTS triplets (topic, concept term), not test sentences.",
                          fix="load one of the *_output.csv files with a 'sentence' column, e.g. baseline_output.csv.")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise SchemaError(f"{path.name!r} is not a {kind} file: it lacks {', '.join(missing)} (columns: "
                          f"{', '.join(map(str, frame.columns))}).", fix=f"pass a {kind} CSV with the columns "
                          f"{', '.join(required)}.")
    return frame


def _table(rows: pd.DataFrame) -> pd.DataFrame:
    rows = rows.reset_index(drop=True)
    rows["variant_id"] = rows["case_id"] + ":" + rows.groupby("case_id").cumcount().astype(str)
    return cases.frame(rows, extra=EXTRA_COLUMNS)


def btcsam_path(name: str, *, root: str | Path) -> Path:
    """The released file of set ``name`` (one of :data:`BTCSAM_SETS`) under ``root``."""
    if name not in BTCSAM_SETS:
        raise unknown("BTC-SAM set", name, BTCSAM_SETS)
    return Path(root) / f"{name}_output.csv"


def load_btcsam(path: str | Path, *, name: str | None = None, valid_only: bool = True) -> pd.DataFrame:
    """One released BTC-SAM file as a case table; ``name`` (default: the file stem without ``_output``) becomes
    ``test_set`` and picks the stage."""
    path = Path(path)
    frame = _read(path, kind="BTC-SAM release", required=_BTCSAM_REQUIRED)
    key = "id" if "id" in frame.columns else "refid" if "refid" in frame.columns else None
    if key is None:
        raise SchemaError(f"{path.name!r} has neither an 'id' nor a 'refid' column to group counterfactuals.",
                          fix="pass a BTC-SAM release file.")
    name = name or path.stem.removesuffix("_output")
    if valid_only:
        if "isValid" in frame.columns:
            valid = pd.to_numeric(frame["isValid"], errors="coerce") == 1
        else:
            valid = pd.to_numeric(frame.get("flagged", "0"), errors="coerce").fillna(0) == 0
        frame = frame[valid & (frame["sentence"].str.strip() != "")]
    case_id = f"{name}:" + frame["bias_type"] + ":" + frame[key]
    frame = frame[case_id.map(case_id.value_counts()) >= 2] if valid_only else frame
    case_id = f"{name}:" + frame["bias_type"] + ":" + frame[key]
    first = ~case_id.duplicated()
    stage = BTCSAM_STAGES.get(name.removeprefix("llama3_"), "")
    source = "refid" if key == "id" and "refid" in frame.columns else "reflink" if "reflink" in frame.columns else ""
    return _table(pd.DataFrame({
        "case_id": case_id, "text": frame["sentence"], "attribute": frame["bias_type"], "group": frame["id_term"],
        "fill": frame["id_term"], "generator": f"external:btcsam-{name}", "template": "", "is_original": first,
        "bias_type": frame["bias_type"], "stage": stage,
        "concept_term": frame["concept_term"] if "concept_term" in frame.columns else "", "test_set": name,
        "release_id": frame[key], "source_id": frame[source] if source and stage != "etsg" else ""}))


def load_eec_csv(path: str | Path, *, name: str = "eec") -> pd.DataFrame:
    """The official EEC CSV as a case table (``attribute`` gender, ``group`` e.g. "African-American female")."""
    frame = _read(path, kind="EEC", required=_EEC_REQUIRED)
    frame = frame[frame["Sentence"].str.strip() != ""]
    race = frame["Race"].str.strip()
    return _table(pd.DataFrame({
        "case_id": f"{name}:" + frame["Template"] + ":" + frame["Emotion word"], "text": frame["Sentence"],
        "attribute": race.map(lambda r: "gender+race" if r else "gender"),
        "group": (race + " " + frame["Gender"]).str.strip(), "fill": frame["Person"], "generator": "external:eec",
        "template": frame["Template"], "is_original": False, "bias_type": "gender", "stage": "",
        "concept_term": frame["Emotion word"], "test_set": name, "release_id": "", "source_id": ""}))


def load_crows_pairs(path: str | Path, *, name: str = "crows_pairs") -> pd.DataFrame:
    """CrowS-Pairs as a case table: each pair is a case of its ``bias_type``."""
    frame = _read(path, kind="CrowS-Pairs", required=_CROWS_REQUIRED).reset_index(drop=True)
    pairs = [(f"{name}:{i}", text, group, bias) for i, (more, less, bias) in
             enumerate(zip(frame["sent_more"], frame["sent_less"], frame["bias_type"]))
             for text, group in ((more, "more_stereotypical"), (less, "less_stereotypical"))]
    rows = pd.DataFrame(pairs, columns=["case_id", "text", "group", "bias_type"])
    return _table(rows.assign(attribute=rows["bias_type"], fill="", generator="external:crows_pairs", template="",
                              is_original=rows["group"] == "more_stereotypical", stage="", concept_term="",
                              test_set=name, release_id="", source_id=""))
