"""Simulated PSA-derived BTC-SAM sets whose truth is known: each case a sentence (an original and one text per
identity term), the SAME identity terms in every case (as the PSA-derived set fills every sentence with the same
names), each term moving the score by its own amount (a sample of terms), optionally a group gap."""
from __future__ import annotations

import numpy as np
import pandas as pd

COLUMNS = ["model", "test_set", "bias_type", "case_id", "score", "label", "group", "gender", "is_original",
           "generator", "fill"]


def scores(rng: np.random.Generator, *, n_cases: int, terms: tuple[int, int] = (4, 4), term_sd: float = 0.15,
           gap: float = 0.0, noise_sd: float = 0.05) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(originals (cases,), term texts (cases × terms), is_male (terms,)): base ~ U(0.1, 0.9) per case, each
    term's effect ~ N(0, term_sd) shared by every case, male terms + ``gap``, per-text noise."""
    male = np.r_[np.zeros(terms[0], bool), np.ones(terms[1], bool)]
    base = rng.uniform(0.1, 0.9, n_cases)
    effect = rng.normal(0.0, term_sd, len(male)) + gap * male
    texts = np.clip(base[:, None] + effect[None, :] + rng.normal(0.0, noise_sd, (n_cases, len(male))), 0, 1)
    return base, texts, male


def failure(base: np.ndarray, texts: np.ndarray, theta: float) -> np.ndarray:
    """Per case: any two texts (original included) with different binary labels or scores more than θ apart."""
    every = np.column_stack([base, texts])
    labels = every >= 0.5
    return (labels.any(axis=1) & ~labels.all(axis=1)) | (np.ptp(every, axis=1) > theta + 1e-12)


def population_failure(*, terms: tuple[int, int] = (4, 4), term_sd: float = 0.15, gap: float = 0.0,
                       noise_sd: float = 0.05, theta: float = 0.2, n: int = 200_000, seed: int = 0) -> float:
    """The failure rate over cases AND identity terms: every case with freshly drawn terms (Monte Carlo)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n // 1000):
        base, texts, _ = scores(rng, n_cases=1000, terms=terms, term_sd=0.0, gap=gap, noise_sd=noise_sd)
        male = np.r_[np.zeros(terms[0], bool), np.ones(terms[1], bool)]
        texts = np.clip(texts + rng.normal(0.0, term_sd, texts.shape) + 0 * male, 0, 1)
        out.append(failure(base, texts, theta))
    return float(np.concatenate(out).mean())


def scored(rng: np.random.Generator, *, n_cases: int, model: str = "sim", **kwargs) -> pd.DataFrame:
    """A scored PSA-derived set (rule ``valence``: ``score`` and a binary ``label``)."""
    base, texts, male = scores(rng, n_cases=n_cases, **kwargs)
    names = [f"F{i}" for i in range(int((~male).sum()))] + [f"M{i}" for i in range(int(male.sum()))]
    rows = []
    for c in range(n_cases):
        rows.append((model, "psa", "name", f"x{c}", base[c], "positive" if base[c] >= 0.5 else "negative", "", "",
                     True, "psa", ""))
        for k, name in enumerate(names):
            value = texts[c, k]
            rows.append((model, "psa", "name", f"x{c}", value, "positive" if value >= 0.5 else "negative", name,
                         "male" if male[k] else "female", False, "psa", name))
    return pd.DataFrame(rows, columns=COLUMNS)
