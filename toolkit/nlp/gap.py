"""Coreference quality on GAP (Webster et al. 2018): ``python -m toolkit.nlp.gap --gap FILE --backend rules``.

GAP gives, per example, a snippet of Wikipedia text, an ambiguous pronoun and two candidate names A and B with gold
labels "does the candidate corefer with the pronoun". We resolve the snippet alone (the snippet-context setting; the
URL is never used) with a :mod:`toolkit.nlp.coref` backend, find the cluster holding the pronoun (character overlap)
and predict A (B) coreferent when a mention of that cluster overlaps A's (B's) span.

Scoring follows GAP's official scorer: every example gives two binary decisions; precision, recall and F1 of the
TRUE class, overall and per masculine / feminine pronoun, and the bias factor B = F1(feminine) / F1(masculine).
The last printed line is ``F1=<overall> M=<masc> F=<fem> B=<bias>`` (F1 in percent).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from toolkit.errors import InputError, SchemaError, ToolkitError
from toolkit.nlp.coref import resolve

GAP_COLUMNS = ("ID", "Text", "Pronoun", "Pronoun-offset", "A", "A-offset", "A-coref", "B", "B-offset", "B-coref")
SCORE_COLUMNS = ("subset", "tp", "fp", "fn", "precision", "recall", "f1")
MASCULINE = {"he", "him", "his", "himself"}
FEMININE = {"she", "her", "hers", "herself"}


def load_gap(path: str | Path) -> pd.DataFrame:
    """A GAP TSV, checked: every column present and every offset pointing at its pronoun or name."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"GAP file {str(path)!r} not found.", fix="pass e.g. gap-development.tsv.")
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    missing = [c for c in GAP_COLUMNS if c not in frame.columns]
    if missing:
        raise SchemaError(f"{path.name!r} is not a GAP file: it lacks {', '.join(missing)}.",
                          fix=f"a GAP TSV has the columns {', '.join(GAP_COLUMNS)}.")
    for column in ("Pronoun-offset", "A-offset", "B-offset"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
        if frame[column].isna().any():
            bad = frame.loc[frame[column].isna(), "ID"].iloc[0]
            raise SchemaError(f"{column} of example {bad!r} is not a number.", fix="fix the offset column.")
        frame[column] = frame[column].astype(int)
    for name, offset in (("Pronoun", "Pronoun-offset"), ("A", "A-offset"), ("B", "B-offset")):
        found = [text[o:o + len(word)] == word for text, word, o in zip(frame["Text"], frame[name], frame[offset])]
        if not all(found):
            row = frame.loc[[not f for f in found]].iloc[0]
            raise SchemaError(f"example {row['ID']!r}: {offset} {row[offset]} does not point at {row[name]!r} in "
                              f"its Text.", fix="offsets are 0-based character positions into Text.")
    for column in ("A-coref", "B-coref"):
        frame[column] = frame[column].str.upper().map({"TRUE": True, "FALSE": False})
        if frame[column].isna().any():
            raise SchemaError(f"{column} must be TRUE or FALSE.", fix="use the GAP file as released.")
    return frame


def _overlaps(span: tuple[int, int], start: int, end: int) -> bool:
    return span[0] < end and span[1] > start


def predict(gap: pd.DataFrame, *, backend: str = "rules") -> pd.DataFrame:
    """Predicted ``A-pred``, ``B-pred`` per example (columns ``ID, A-pred, B-pred``)."""
    clusters = resolve(gap["Text"].tolist(), backend=backend)
    rows = []
    columns = ("ID", "Pronoun", "Pronoun-offset", "A", "A-offset", "B", "B-offset")
    for (example, pronoun, p, a, a_at, b, b_at), found in zip(gap[list(columns)].itertuples(index=False, name=None),
                                                             clusters):
        cluster = next((c for c in found if any(_overlaps(m, p, p + len(pronoun)) for m in c)), [])
        rows.append({"ID": example, "A-pred": any(_overlaps(m, a_at, a_at + len(a)) for m in cluster),
                     "B-pred": any(_overlaps(m, b_at, b_at + len(b)) for m in cluster)})
    return pd.DataFrame(rows, columns=["ID", "A-pred", "B-pred"])


def score(gap: pd.DataFrame, predictions: pd.DataFrame) -> pd.DataFrame:
    """GAP's scores: rows overall, masculine, feminine (columns :data:`SCORE_COLUMNS`; F1 etc. in [0, 1])."""
    merged = gap.merge(predictions, on="ID", how="left", validate="one_to_one")
    if merged[["A-pred", "B-pred"]].isna().any().any():
        raise SchemaError("some GAP examples have no prediction.", fix="predict every example.")
    pronoun = merged["Pronoun"].str.lower()
    rows = []
    for subset, mask in (("overall", pronoun == pronoun), ("masculine", pronoun.isin(MASCULINE)),
                         ("feminine", pronoun.isin(FEMININE))):
        part = merged[mask]
        gold = pd.concat([part["A-coref"], part["B-coref"]]).astype(bool).to_numpy()
        pred = pd.concat([part["A-pred"], part["B-pred"]]).astype(bool).to_numpy()
        tp, fp, fn = int((gold & pred).sum()), int((~gold & pred).sum()), int((gold & ~pred).sum())
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        rows.append({"subset": subset, "tp": tp, "fp": fp, "fn": fn, "precision": precision, "recall": recall,
                     "f1": f1})
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


def bias(scores: pd.DataFrame) -> float:
    """B = F1(feminine) / F1(masculine)."""
    f1 = scores.set_index("subset")["f1"]
    return float(f1["feminine"] / f1["masculine"]) if f1["masculine"] else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolkit.nlp.gap", description=__doc__.split("\n")[0])
    parser.add_argument("--gap", type=Path, required=True, help="a GAP TSV (e.g. gap-development.tsv)")
    parser.add_argument("--backend", default="rules", help="coreference backend: rules (offline) or fastcoref")
    args = parser.parse_args(argv)
    try:
        gap = load_gap(args.gap)
        started = time.perf_counter()
        predictions = predict(gap, backend=args.backend)
        seconds = time.perf_counter() - started
        scores = score(gap, predictions)
    except ToolkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    table = scores.assign(**{c: (scores[c] * 100).round(1) for c in ("precision", "recall", "f1")})
    print(table.to_string(index=False))
    print(f"{len(gap)} examples in {seconds:.1f} s ({len(gap) / seconds:.1f} examples/s), backend {args.backend}")
    f1 = scores.set_index("subset")["f1"] * 100
    print(f"F1={f1['overall']:.1f} M={f1['masculine']:.1f} F={f1['feminine']:.1f} B={bias(scores):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
