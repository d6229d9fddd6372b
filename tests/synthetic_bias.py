"""Scorers with a known, graded gender bias for the agreement tests: ``py:synthetic_bias:female_<k>`` adds k/100 to
every text about a woman (EEC's female names and words, PSA's female public figures) on top of a fair, noisy base."""
from __future__ import annotations

import re

from synthetic_models import _FEMALE, _PERSON_WORDS, _noise

from toolkit.studies.psa.generator import load_names

_NAMES = load_names(None)
_FEMALE_ALL = _FEMALE | {w for n in _NAMES[_NAMES["gender"] == "female"]["name"] for w in re.findall(r"[a-z]+",
                                                                                                       n.lower())}
_ANY_PERSON = _PERSON_WORDS | {w for n in _NAMES["name"] for w in re.findall(r"[a-z]+", n.lower())}


def _biased(texts: list[str], delta: float) -> list[float]:
    """A fair base (noise from the words that do not name a person) plus ``delta`` for a text about a woman."""
    out = []
    for text in texts:
        words = re.findall(r"[a-z]+", text.lower())
        base = 0.3 + 0.4 * _noise(" ".join(w for w in words if w not in _ANY_PERSON))
        out.append(base + (delta if set(words) & _FEMALE_ALL else 0.0))
    return out


def female_1(texts: list[str]) -> list[float]:
    return _biased(texts, 0.01)


def female_4(texts: list[str]) -> list[float]:
    return _biased(texts, 0.04)


def female_9(texts: list[str]) -> list[float]:
    return _biased(texts, 0.09)


def female_15(texts: list[str]) -> list[float]:
    return _biased(texts, 0.15)


def biasfinder_same_names(*, n_templates: int = 60, n_names: int = 10, delta: float = 0.0, name_sd: float = 0.15,
                          template_sd: float = 0.15, residual_sd: float = 0.05, seed: int = 0,
                          model: str = "m") -> "pd.DataFrame":
    """A scored BiasFinder gender table in BiasFinder's own design: every template filled with the SAME
    ``n_names`` female and ``n_names`` male names. score = 0.5 + template effect + name effect (each name its own,
    the same in every template) + residual, + ``delta`` for female names; label = score ≥ 0.5. ``delta`` = 0: a
    name-sensitive but unbiased model (names exchangeable between the classes)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    template = rng.normal(0, template_sd, n_templates)
    names = [(f"{g}{i}", g) for g in ("female", "male") for i in range(n_names)]
    effect = rng.normal(0, name_sd, len(names)) + np.array([delta if g == "female" else 0.0 for _, g in names])
    score = 0.5 + template[:, None] + effect[None, :] + rng.normal(0, residual_sd, (n_templates, len(names)))
    t, n = np.meshgrid(np.arange(n_templates), np.arange(len(names)), indexing="ij")
    frame = pd.DataFrame({"case_id": [f"t{i}" for i in t.ravel()], "fill": [names[j][0] for j in n.ravel()],
                          "group": [names[j][1] for j in n.ravel()], "score": score.ravel()})
    frame["variant_id"] = frame["case_id"] + ":" + frame["fill"]
    frame["label"] = np.where(frame["score"] >= 0.5, "positive", "negative")
    return frame.assign(model=model, attribute="gender", is_original=False, score=frame["score"].clip(0, 1))


def biasfinder_names_and_nouns(*, n_plain: int = 80, n_noun_only: int = 11, n_crossed: int = 1, n_names: int = 30,
                               n_nouns: int = 11, delta: float = 0.0, name_sd: float = 0.15, noun_sd: float = 0.0,
                               template_sd: float = 0.15, residual_sd: float = 0.05, seed: int = 0,
                               model: str = "m") -> "pd.DataFrame":
    """A scored BiasFinder gender table in the paper preset's design (``noun_fills="all"``; on 1,000 IMDB train
    reviews 80 templates with a name and no noun, 11 with a noun and no name, 1 with both): ``n_plain`` templates
    filled with the SAME ``n_names`` names per class; ``n_noun_only`` with the class's ``n_nouns`` nouns (fill the
    noun; ``noun_fill`` "own" for noun 0, the template noun's own pair, else "other"); ``n_crossed`` with every name
    times every noun (``noun_fill`` "own" and fill the name alone for noun 0, else "crossed" and fill "name, noun").
    score = 0.5 + template + name (+ noun: its own per class and index) + residual, + ``delta`` for the female class;
    label = score ≥ 0.5."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    names = {g: rng.normal(0, name_sd, n_names) for g in ("female", "male")}
    nouns = {g: rng.normal(0, noun_sd, n_nouns) for g in ("female", "male")}
    kinds = ["plain"] * n_plain + ["noun"] * n_noun_only + ["crossed"] * n_crossed
    template = rng.normal(0, template_sd, len(kinds))
    parts = []
    for t, kind in enumerate(kinds):
        for g in ("female", "male"):
            base = 0.5 + template[t] + (delta if g == "female" else 0.0)
            if kind == "plain":
                score = base + names[g] + rng.normal(0, residual_sd, n_names)
                fills, marks = [f"{g}{i}" for i in range(n_names)], [""] * n_names
            elif kind == "noun":
                score = base + nouns[g] + rng.normal(0, residual_sd, n_nouns)
                fills = [f"{g}-noun{j}" for j in range(n_nouns)]
                marks = ["own"] + ["other"] * (n_nouns - 1)
            else:
                score = (base + names[g][:, None] + nouns[g][None, :]
                         + rng.normal(0, residual_sd, (n_names, n_nouns))).ravel()
                fills = [f"{g}{i}" if j == 0 else f"{g}{i}, {g}-noun{j}" for i in range(n_names)
                         for j in range(n_nouns)]
                marks = ["own" if j == 0 else "crossed" for _ in range(n_names) for j in range(n_nouns)]
            parts.append(pd.DataFrame({"case_id": f"t{t}", "fill": fills, "group": g, "score": score,
                                       "noun_fill": marks}))
    frame = pd.concat(parts, ignore_index=True)
    frame["variant_id"] = frame["case_id"] + ":" + frame["fill"]
    frame["label"] = np.where(frame["score"] >= 0.5, "positive", "negative")
    return frame.assign(model=model, attribute="gender", is_original=False, score=frame["score"].clip(0, 1))
