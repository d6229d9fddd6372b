"""Argument checks shared by the studies, the generators, the CLI and the notebooks' papermill parameters.

A count, a seed or a model list of the wrong kind or out of range is a TK102 error that names the valid range and
both spellings of the option (``--n-names`` on the command line, ``n_names=`` in Python), raised before any slow
work. Whole numbers given as floats (``1e3`` from a YAML file) are accepted; booleans, strings (``N="ten"`` from
papermill) and fractions are not.
"""
from __future__ import annotations

import numbers
from collections.abc import Iterable

import numpy as np

from toolkit.errors import InputError

SEED_MAX = 2**32 - 1
"""The largest seed: numpy's generators take seeds in [0, 2**32 - 1]."""
MAX_PROCESSES = 256
"""The most worker processes a count option (``n_process``, ``n_jobs``) accepts."""


def _spellings(name: str) -> str:
    return f"{name}= in Python, --{name.replace('_', '-')} on the command line"


def _range_text(minimum: int, maximum: int | None) -> str:
    return f"from {minimum:,} to {maximum:,}" if maximum is not None else f"of at least {minimum:,}"


def count(value: object, *, name: str, minimum: int = 1, maximum: int | None = None,
          allow_none: bool = False) -> int | None:
    """``value`` as an int when it is a whole number in [``minimum``, ``maximum``] (None when ``allow_none``);
    otherwise TK102 with the valid range."""
    if value is None and allow_none:
        return None
    whole = (isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))) or (
        isinstance(value, (float, np.floating)) and float(value).is_integer())
    valid = f"a whole number {_range_text(minimum, maximum)}" + (" or None" if allow_none else "")
    if not whole:
        raise InputError(f"{name} must be {valid}; got {value!r} ({type(value).__name__}).",
                         fix=f"pass {valid} ({_spellings(name)}).")
    number = int(value)  # type: ignore[arg-type]
    if number < minimum or (maximum is not None and number > maximum):
        raise InputError(f"{name} must be {valid}; got {number:,}.", fix=f"pass {valid} ({_spellings(name)}).")
    return number


def seed(value: object, *, name: str = "seed") -> int:
    """A random seed: a whole number in [0, :data:`SEED_MAX`]."""
    return count(value, name=name, minimum=0, maximum=SEED_MAX)  # type: ignore[return-value]


def fraction(value: object, *, name: str, low: float = 0.0, high: float = 1.0) -> float:
    """A number strictly between ``low`` and ``high`` (a significance level, a margin)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not low < float(value) < high:
        raise InputError(f"{name} must be a number strictly between {low:g} and {high:g}; got {value!r}.",
                         fix=f"pass e.g. {name}=0.05 ({_spellings(name)}).")
    return float(value)


def statistics(*, correction: str, margin: object, alpha: object, n_boot: object = None,
               min_boot: int = 1) -> tuple[float, float, int | None]:
    """The statistics options every study takes (``docs/statistics.md``), checked before any work: ``correction``
    one of :data:`toolkit.stats.METHODS` (TK103), ``alpha`` in (0, 0.5), ``margin`` in (0, 1), ``n_boot`` at
    least ``min_boot`` (None: not checked). Returns ``alpha, margin, n_boot``."""
    from toolkit.errors import unknown
    from toolkit.stats import METHODS

    if correction not in METHODS:
        raise unknown("correction method", correction, METHODS)
    alpha = fraction(alpha, name="alpha", high=0.5)  # a two-sided interval and TOST need alpha < 0.5
    margin = fraction(margin, name="margin")
    return alpha, margin, count(n_boot, name="n_boot", minimum=min_boot, allow_none=True)


def model_list(models: object, *, name: str = "models") -> list:
    """Model specs as a list: one spec string (``MODELS="vader"``) or one loaded model is a list of one, never
    iterated letter by letter; an empty list or a non-list is TK102."""
    from toolkit.models import SentimentModel

    if isinstance(models, (str, SentimentModel)):
        return [models]
    if not isinstance(models, Iterable) or isinstance(models, (bytes, dict)):
        raise InputError(f"{name} must be a list of model specs; got {models!r} ({type(models).__name__}).",
                         fix=f"pass e.g. {name}=['vader', 'minilm-imdb'] (one spec string is also accepted).")
    out = list(models)
    bad = [m for m in out if not isinstance(m, (str, SentimentModel))]
    if bad:
        raise InputError(f"{name} must hold model spec strings; got {bad[0]!r} ({type(bad[0]).__name__}).",
                         fix=f"pass e.g. {name}=['vader', 'minilm-imdb']; see toolkit.models.available().")
    if not out:
        raise InputError(f"{name} is empty.", fix=f"pass e.g. {name}=['vader']; see toolkit.models.available().")
    specs = [m.strip() for m in out if isinstance(m, str)]
    twice = next((m for m in specs if specs.count(m) > 1), None)
    if twice is not None:  # checked again on the loaded models by the scoring engine
        raise InputError(f"{name} lists the model {twice!r} {specs.count(twice)} times; its rows would be counted "
                         "twice.", fix="list each model once.")
    return out
