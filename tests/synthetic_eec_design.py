"""Simulated systems on the real EEC design (issue 32): the 8,640 sentences of :func:`toolkit.studies.eec.generator.generate`
with synthetic scores whose truth is known, many systems in one scored table, so that the study's own functions
(:func:`toolkit.studies.eec.analysis.intervals`) decide a whole family at once.

A system's score for a sentence = a base shared by the sentence's counterfactual versions (its case) + its
person's effect (names and noun phrases drawn afresh per system: names are samples) + a template × person
interaction + sentence noise + a group shift. ``bias`` is added to every sentence about a woman (names and noun
phrases), or, with ``attribute="race"``, about an African-American name."""
from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit.studies.eec.generator import generate

_COLUMNS = ["case_id", "variant_id", "template_id", "person", "gender", "race", "emotion", "emotion_word", "np_pair"]
_CASES: pd.DataFrame | None = None


def cases() -> pd.DataFrame:
    """The real EEC case table (generated offline once per process)."""
    global _CASES
    if _CASES is None:
        _CASES = generate()
    return _CASES


def scored(*, n_systems: int, seed: int, bias: float = 0.0, attribute: str = "gender", sd_person: float = 0.02,
           sd_interaction: float = 0.005, sd_noise: float = 0.002, sparse: float | None = None,
           sparse_in_group: bool = False, prefix: str = "sim") -> pd.DataFrame:
    """A scored EEC table of ``n_systems`` synthetic valence systems (model ``<prefix>000`` …).

    ``sd_person``: spread of each person's own effect (normal), or with ``sparse`` = q the lexicon-like case: a
    person moves the score with probability q, by ``bias / q`` (group a's names only when ``sparse_in_group``, so
    the group's mean shift is ``bias`` in the population of names while most sampled names move nothing; then no
    other ``bias`` is added). ``sd_interaction``: template × person; ``sd_noise``: per sentence (0: a lexicon)."""
    base = cases()
    rng = np.random.default_rng(seed)
    person = pd.factorize(base["person"])[0]
    n_person = person.max() + 1
    case = pd.factorize(base["case_id"])[0]
    template = base["template_id"].to_numpy() - 1
    in_group = (base["gender"] == "female").to_numpy() if attribute == "gender" else \
        (base["race"] == "African-American").to_numpy()
    group_person = np.zeros(n_person, dtype=bool)
    group_person[person[in_group]] = True
    frames = []
    for i in range(n_systems):
        if sparse is None:
            effect = rng.normal(0.0, sd_person, n_person)
            shift = bias * in_group
        else:
            hit = rng.random(n_person) < sparse
            if sparse_in_group:
                hit &= group_person
            effect = np.where(hit, bias / sparse, 0.0)
            shift = 0.0
        score = (0.2 + 0.6 * rng.random(case.max() + 1)[case] + effect[person]
                 + rng.normal(0.0, sd_interaction, (11, n_person))[template, person] * (sd_interaction > 0)
                 + rng.normal(0.0, sd_noise, len(base)) * (sd_noise > 0) + shift)
        frames.append(pd.DataFrame({"model": f"{prefix}{i:03d}", "task": "valence", "score": score}))
    out = pd.concat(frames, ignore_index=True)
    design = base.loc[:, _COLUMNS]
    return pd.concat([out, pd.concat([design] * n_systems, ignore_index=True)], axis=1)


def design(attribute: str, subset: str = "all") -> np.ndarray:
    """The sentence pairs per template of the real EEC in ``subset`` (``all``: 20 per emotion template, 1 per
    neutral one; ``neutral``: the 4 neutral templates), the weights the study gives its templates."""
    base = cases()
    if subset == "neutral":
        base = base[base["emotion"] == ""]
    return base.groupby("template_id")["emotion_word"].nunique().to_numpy(dtype=float)


def arrays(rng: np.random.Generator, *, n: int, attribute: str, subset: str = "all", bias: float = 0.0,
           sd_person: float = 0.02, sd_interaction: float = 0.005, sd_noise: float = 0.002,
           sparse: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``n`` templates × units arrays of Δ as :func:`toolkit.studies.eec.analysis.cells` builds them from :func:`scored`'s
    systems (same persons, same units, the real templates and their sentence pairs), drawn directly so that a
    family of 438 can be simulated many times. Gender: 10 noun-phrase pairs + the names-mean pair (20 female − 20
    male names); race: 20 African-American − European name pairs. The population mean Δ is ``bias``. ``sparse`` =
    q: lexicon-like, a person moves the score with probability q only (by N(0, sd_person) / √q, and group a's
    movers carry the bias, ``bias`` / q, instead of every sentence). Returns (arrays ``(n, templates, units)``,
    template weights)."""
    weights = design(attribute, subset)
    r = len(weights)
    pairs, per_unit = (10, 20) if attribute == "gender" else (20, 1)  # single-person units; names in the mean

    def person(shape: tuple[int, ...], group_a: bool) -> np.ndarray:  # effect + template interaction, per template
        if sparse is None:
            effect = rng.normal(0.0, sd_person, shape) + (bias if group_a else 0.0)
        else:
            hit = rng.random(shape) < sparse
            effect = np.where(hit, rng.normal(0.0, sd_person, shape) / np.sqrt(sparse)
                              + (bias / sparse if group_a else 0.0), 0.0)
        return effect[..., None, :] + rng.normal(0.0, sd_interaction, shape[:1] + (r,) + shape[1:])

    noise = sd_noise * np.sqrt(2.0 / weights)[None, :, None]
    y = person((n, pairs), True) - person((n, pairs), False) + noise * rng.normal(size=(n, r, pairs))
    if attribute == "gender":  # the names-mean unit: 20 female minus 20 male names, averaged per template
        names = (person((n, per_unit), True).mean(axis=-1) - person((n, per_unit), False).mean(axis=-1))[..., None]
        y = np.concatenate([y, names + noise / np.sqrt(per_unit) * rng.normal(size=(n, r, 1))], axis=-1)
    return y, weights
