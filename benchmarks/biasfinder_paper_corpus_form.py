"""Issue 45, the corpus as read: BiasFinder's IMDB files hold each review with every "<br /><br />" as one space and
its whitespace as written (its ``asset/imdb_small/train.csv``: label, tab, text); the toolkit's loader turns every
``<br />`` into a space and collapses whitespace. What that changes in the paper preset's gender and country
templates, review for review.

    python benchmarks/biasfinder_paper_corpus_form.py --corpus ../shared/data/imdb/imdb_train.csv.gz --n 1000

Reads the raw reviews of an IMDB CSV (``review`` column, as the shared copy of aclImdb train holds them), draws
``--n`` of them (seeded, as :func:`toolkit.corpora.load`'s frame is drawn elsewhere), and runs
:func:`toolkit.studies.biasfinder.generator.paper.paper_templates` on both forms: preprocessed texts that differ
(beyond whitespace too), and templates gained, lost or changed (beyond whitespace too).
"""
from __future__ import annotations

import argparse
import difflib
import time

import pandas as pd


def squeeze(text: str) -> str:
    return " ".join(text.split())


def first_difference(a: str, b: str, *, context: int = 40) -> str:
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            return f"{a[max(0, i1 - context):i2 + context]!r} || {b[max(0, j1 - context):j2 + context]!r}"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from toolkit import corpora
    from toolkit.studies.biasfinder.generator.paper import paper_templates, preprocess_all

    raw = pd.read_csv(args.corpus)
    loaded = corpora.load(args.corpus)
    if len(raw) != len(loaded) or "review" not in raw.columns:
        raise SystemExit("the corpus must be an IMDB CSV with a 'review' column and no empty review")
    rows = loaded.sample(n=min(args.n, len(loaded)), random_state=args.seed).index
    ours = loaded.loc[rows].reset_index(drop=True)
    theirs = ours.assign(text=raw.loc[rows, "review"].astype(str).str.replace("<br /><br />", " ", regex=False)
                         .to_numpy())
    breaks = raw.loc[rows, "review"].astype(str)
    print(f"{len(rows)} reviews: {int(breaks.str.contains('<br', regex=False).sum())} hold <br />, "
          f"{int(breaks.map(lambda t: '<br />' in t.replace('<br /><br />', '')).sum())} a lone one")
    a = preprocess_all(ours["text"])
    b = preprocess_all(theirs["text"])
    print(f"preprocessed texts that differ: {int((a != b).sum())}, beyond whitespace: "
          f"{int((a.map(squeeze) != b.map(squeeze)).sum())}")
    made = {}
    for label, frame in (("the loader's", ours), ("BiasFinder's files'", theirs)):
        started = time.perf_counter()
        made[label] = paper_templates(frame)
        print(f"{label} form: {len(made[label][0])} gender, {len(made[label][1])} country templates "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    for k, instance in enumerate(("gender", "country")):
        x, y = (made[label][k].set_index("doc_id")["template"] for label in made)
        both = x.index.intersection(y.index)
        changed = [i for i in both if x[i] != y[i]]
        print(f"{instance}: gained {len(y.index.difference(x.index))}, lost {len(x.index.difference(y.index))}, "
              f"text changed {len(changed)}, beyond whitespace {sum(squeeze(x[i]) != squeeze(y[i]) for i in changed)}")
        for i in changed:
            print("  ", first_difference(x[i], y[i]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
