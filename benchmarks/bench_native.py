"""What the native view (top_label, top_score, class_probs JSON) costs per scored text, next to the forward pass of
the offline neural default on the same texts. Prints both and their ratio.

    PYTHONPATH=. python benchmarks/bench_native.py
"""
from __future__ import annotations

import time

import numpy as np

from toolkit import corpora
from toolkit.models import load, valence


def main() -> None:
    texts = corpora.load("sample")["text"].tolist()[:256]
    model = load("minilm-imdb")
    model.predict(texts[:8])
    start = time.perf_counter()
    for i in range(0, len(texts), 32):
        model.predict(texts[i:i + 32])
    forward = (time.perf_counter() - start) / len(texts)
    rng = np.random.default_rng(0)
    for k, names in ((3, ["negative", "neutral", "positive"]), (28, [f"emotion{i}" for i in range(28)])):
        probs = rng.dirichlet(np.ones(k), size=10_000)
        start = time.perf_counter()
        valence.native(probs, names)
        native = (time.perf_counter() - start) / len(probs)
        print(f"{k:2d} classes: native view {native * 1e6:7.1f} µs/text; minilm-imdb forward {forward * 1e6:8.1f} "
              f"µs/text; native/forward = {native / forward:.4f}")


if __name__ == "__main__":
    main()
