"""Argument checks shared by the studies, the generators, the CLI and the notebooks' papermill parameters.

A count, a seed or a model list of the wrong kind or out of range is a TK102 error that names the valid range and
both spellings of the option (``--n-names`` on the command line, ``n_names=`` in Python), raised before any slow
work. Whole numbers given as floats (``1e3`` from a YAML file) are accepted; booleans, strings (``N="ten"`` from
papermill) and fractions are not.

The statistics options have one validated range each, checked at the entry of every function that takes them (the
estimators of :mod:`toolkit.stats`, the study functions, the CLI flags and notebook parameters through them;
``docs/statistics.md``):

- ``alpha``: a number in (0, 0.5) (:func:`alpha`): a two-sided ``1 − alpha`` interval and TOST's ``1 − 2·alpha``
  interval both need alpha below 0.5.
- ``n_boot``: a whole number from :data:`N_BOOT_MIN` to :data:`N_BOOT_MAX` (:func:`n_boot`); ``0`` only where a
  function documents that it skips the intervals (PSA's ``summary``/``label_dist``); studies whose p-value is a
  bootstrap p (EEC, BiasFinder) ask for at least 100. With fewer than 10 replicates a percentile interval can
  exclude its own estimate; above 100,000 the replicate arrays outgrow memory. :func:`bootstrap_size` bounds
  replicates × cells of one bootstrap (:data:`BOOT_CELLS_MAX`).
- p-values: numbers in [0, 1] or NaN (:func:`p_values`); counts of successes: ``0 ≤ k ≤ n`` (:func:`successes`);
  paired samples: equal lengths (:func:`same_length`).

This module imports only :mod:`toolkit.errors` from the toolkit (it is a leaf).
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

import numpy as np

from toolkit.errors import InputError, unknown

SEED_MAX = 2**32 - 1
"""The largest seed: numpy's generators take seeds in [0, 2**32 - 1]."""
MAX_PROCESSES = 256
"""The most worker processes a count option (``n_process``, ``n_jobs``) accepts."""
N_BOOT_MIN = 10
"""The fewest bootstrap replicates any estimator accepts (a smoke-test floor; use ≥ 1,000 for published intervals)."""
N_BOOT_MAX = 100_000
"""The most bootstrap replicates any estimator accepts."""
BOOT_CELLS_MAX = 500_000_000
"""The most replicates × cells one bootstrap may hold at once (4 GB as float64; its working copies need about
three times that)."""
CORRECTIONS = ("bonferroni", "holm", "fdr_bh")
"""The multiple-comparison corrections (the same as :data:`toolkit.stats.METHODS`)."""
CORRECTION_NAMES = {"bonferroni": "Bonferroni", "holm": "Holm", "fdr_bh": "Benjamini–Hochberg"}
"""How a figure's note names each correction (``"p_adj: Holm correction over …"``)."""


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


def alpha(value: object, *, name: str = "alpha") -> float:
    """A significance level in (0, 0.5): a two-sided interval and TOST need alpha below 0.5."""
    return fraction(value, name=name, high=0.5)


def n_boot(value: object, *, name: str = "n_boot", minimum: int = N_BOOT_MIN, allow_zero: bool = False) -> int:
    """Bootstrap replicates (or placebo splits, ``name="n_null"``): a whole number from ``minimum`` (default
    :data:`N_BOOT_MIN`) to :data:`N_BOOT_MAX`; 0 as well with ``allow_zero`` (a function that then skips its
    intervals)."""
    if allow_zero and not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Real) and value == 0:
        return 0
    valid = f"a whole number from {minimum:,} to {N_BOOT_MAX:,}" + (" (or 0: no intervals)" if allow_zero else "")
    try:
        return count(value, name=name, minimum=minimum, maximum=N_BOOT_MAX)  # type: ignore[return-value]
    except InputError as error:
        raise InputError(f"{name} must be {valid}; {error.message.split('; ', 1)[-1]}",
                         fix=f"pass {valid} ({_spellings(name)}); {max(minimum, N_BOOT_MIN):,} is a smoke test, "
                             "1,000 or more "
                             "for published intervals, 10,000+ for small corrected p-values.") from None


def bootstrap_size(*, n_boot: int, cells: int, name: str = "n_boot") -> None:
    """TK102 when ``n_boot`` replicates of ``cells`` values each would exceed :data:`BOOT_CELLS_MAX` (a design too
    large to resample that often in memory); the message names the largest ``n_boot`` that fits."""
    if n_boot * max(cells, 1) > BOOT_CELLS_MAX:
        most = max(BOOT_CELLS_MAX // max(cells, 1), 0)
        raise InputError(f"{name}={n_boot:,} replicates of {cells:,} cells each need {n_boot * cells * 8 / 2**30:,.1f} "
                         f"GiB per copy (limit {BOOT_CELLS_MAX:,} values).",
                         fix=f"pass {name} of at most {most:,} ({_spellings(name)}), or a smaller design.")


def same_length(a: object, b: object, *, names: tuple[str, str] = ("a", "b")) -> None:
    """TK102 unless the paired samples ``a`` and ``b`` have the same length."""
    if len(a) != len(b):  # type: ignore[arg-type]
        raise InputError(f"{names[0]} and {names[1]} are paired but have {len(a):,} and {len(b):,} items.",  # type: ignore[arg-type]
                         fix=f"pass one value of {names[0]} and one of {names[1]} per item, in the same order.")


def finite(values: object, *, name: str) -> np.ndarray:
    """``values`` as a float array when every one is finite; TK102 naming how many are NaN or infinite otherwise."""
    array = np.asarray(values, dtype=float)
    bad = ~np.isfinite(array)
    if bad.any():
        raise InputError(f"{name} holds {int(np.isnan(array).sum()):,} NaN and {int(np.isinf(array).sum()):,} "
                         f"infinite value(s) of {array.size:,}.",
                         fix=f"drop or fill the missing items of {name} before the statistic (and report how many).")
    return array


def p_values(values: object, *, name: str = "p_values") -> np.ndarray:
    """``values`` as a float array of p-values: each in [0, 1] or NaN (not tested); TK102 otherwise."""
    array = np.asarray(values, dtype=float)
    bad = ~np.isnan(array) & ~((array >= 0) & (array <= 1))
    if bad.any():
        raise InputError(f"{name} must lie in [0, 1] (NaN: not tested); got {float(array[bad][0])!r} "
                         f"({int(bad.sum()):,} outside).", fix="pass the raw p-values of one family.")
    return array


def successes(k: object, n: object, *, name: str = "k") -> tuple[float, float]:
    """A count of successes ``k`` out of ``n``: both finite numbers, ``0 ≤ k ≤ n`` (whole-number noise of 1e-9
    tolerated: rates times totals); TK102 otherwise."""
    if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not np.isfinite(v) for v in (k, n)):
        raise InputError(f"{name} and its total must be finite numbers; got {k!r} of {n!r}.",
                         fix="pass counts: successes and the total they are out of.")
    k, n = float(k), float(n)  # type: ignore[arg-type]
    slack = 1e-9 * max(n, 1.0)
    if n < 0 or k < -slack or k > n + slack:
        raise InputError(f"{name} must lie in [0, n]; got {k:g} of {n:g}.",
                         fix="count the successes within their total (k ≤ n).")
    return min(max(k, 0.0), n), n


def statistics(*, correction: str, margin: object, alpha: object, n_boot: object = None, min_boot: int = N_BOOT_MIN,
               corrections: tuple[str, ...] = CORRECTIONS) -> tuple[float, float, int | None]:
    """The statistics options every study takes (``docs/statistics.md``), checked before any work: ``correction``
    one of ``corrections`` (default :data:`CORRECTIONS`; TK103), ``alpha`` in (0, 0.5), ``margin`` in (0, 1),
    ``n_boot`` from ``min_boot``
    to :data:`N_BOOT_MAX` (None: not checked). Returns ``alpha, margin, n_boot``."""
    if correction not in corrections:
        raise unknown("correction method", correction, corrections)
    level = _alpha(alpha)
    margin = fraction(margin, name="margin")
    return level, margin, None if n_boot is None else _n_boot(n_boot, minimum=min_boot)


_alpha, _n_boot = alpha, n_boot  # for statistics(), whose arguments share their names


def _is_model(value: object) -> bool:
    """``isinstance(value, toolkit.models.SentimentModel)`` without importing the models layer (this module is a
    leaf): the class is recognised by its defining module and name in ``value``'s MRO."""
    return any(cls.__module__ == "toolkit.models.base" and cls.__name__ == "SentimentModel"
               for cls in type(value).__mro__)


def _of_transformers(value: object, name: str) -> bool:
    return any(cls.__name__ == name and cls.__module__.startswith("transformers.") for cls in type(value).__mro__)


def is_model_object(value: object) -> bool:
    """A model given as an object (:mod:`toolkit.models.inmemory`), recognised without importing the models layer:
    a loaded model, a callable (a function, a pipeline), a classifier with ``predict_proba``, or a transformers
    (model, tokenizer) pair. Whether it scores is checked when it is loaded."""
    if _is_model(value) or (callable(value) and not isinstance(value, type)):
        return True
    if callable(getattr(value, "predict_proba", None)) and not isinstance(value, type):
        return True
    return (isinstance(value, (tuple, list)) and len(value) == 2
            and any(_of_transformers(a, "PreTrainedModel") and _of_transformers(b, "PreTrainedTokenizerBase")
                    for a, b in (value, value[::-1])))


_OBJECT_KINDS = ("functions list[str] -> scores in [0, 1], transformers pipelines, (model, tokenizer) pairs, "
                 "classifiers with predict_proba")


def model_list(models: object, *, name: str = "models") -> list:
    """Model specs or model objects as a list: one spec string (``MODELS="vader"``), one loaded model or one model
    object (a function, a pipeline, a ``(model, tokenizer)`` pair, a classifier with ``predict_proba``) is a list of
    one, never iterated letter by letter; an empty list, a non-list or an item of another kind is TK102."""
    if isinstance(models, str) or is_model_object(models):
        return [models]
    if not isinstance(models, Iterable) or isinstance(models, (bytes, dict)):
        raise InputError(f"{name} must be a list of model specs or models; got {models!r} ({type(models).__name__}).",
                         fix=f"pass e.g. {name}=['vader', 'minilm-imdb'] (one spec string or model is also "
                             f"accepted; models: {_OBJECT_KINDS}).")
    out = list(models)
    bad = [m for m in out if not (isinstance(m, str) or is_model_object(m))]
    if bad:
        shown = repr(bad[0]) if len(repr(bad[0])) <= 80 else repr(bad[0])[:77] + "..."
        hint = (" (it has predict but no predict_proba: use a probabilistic classifier, or CalibratedClassifierCV "
                "around it)" if callable(getattr(bad[0], "predict", None)) else "")
        raise InputError(f"{name} must hold model spec strings or models; got {shown} ({type(bad[0]).__name__})"
                         f"{hint}.", fix=f"pass e.g. {name}=['vader', 'minilm-imdb', my_function]; accepted models: "
                                         f"{_OBJECT_KINDS} (docs/models.md#your-own-model); spec strings: "
                                         "toolkit.models.available().")
    if not out:
        raise InputError(f"{name} is empty.", fix=f"pass e.g. {name}=['vader']; see toolkit.models.available().")
    specs = [m.strip() for m in out if isinstance(m, str)]
    twice = next((m for m in specs if specs.count(m) > 1), None)
    if twice is not None:  # checked again on the loaded models by the scoring engine
        raise InputError(f"{name} lists the model {twice!r} {specs.count(twice)} times; its rows would be counted "
                         "twice.", fix="list each model once.")
    return out


def options_given_once(parser) -> None:
    """Make every single-valued option of the ``argparse`` ``parser`` (and of its sub-commands) refuse to be given
    twice: argparse would keep the last silently (``--n 10 … --n 20``), so the repeat is InputError (TK102) naming
    the option; repeatable options (``action="append"``) are left as they are."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                options_given_once(sub)
        elif action.option_strings and type(action) is argparse._StoreAction:
            action.__class__ = _once(type(action))


_ONCE: dict[type, type] = {}


def _once(kind: type) -> type:
    """``kind`` (an argparse action class) that raises TK102 when its option is given a second time."""
    if kind not in _ONCE:
        def __call__(self, parser, namespace, values, option_string=None):
            given = namespace.__dict__.setdefault("_options_given", {})
            if self.dest in given:
                twice = (f"the option {option_string} was given twice" if given[self.dest] == option_string else
                         f"{given[self.dest]} and {option_string} (one option) were both given")
                raise InputError(f"{twice}; one value would silently replace the other.",
                                 fix=f"give {self.option_strings[-1]} once, with the value you mean.")
            given[self.dest] = option_string
            kind.__call__(self, parser, namespace, values, option_string)

        _ONCE[kind] = type(f"Once{kind.__name__}", (kind,), {"__call__": __call__})
    return _ONCE[kind]


def text_list(value: object, *, name: str, what: str = "names") -> list[str]:
    """``value`` (a list, tuple, Series or other iterable of strings) as a list of strings. A bare string is TK102
    (iterated, ``"John"`` would be four one-letter names); a missing (None, NaN) or blank entry is TK102 naming
    its position (``str(nan)`` would be the name "nan")."""
    if isinstance(value, (str, bytes)):
        raise InputError(f"{name} must be a list of {what}; got the single string {value!r}, which would be read "
                         "character by character.", fix=f"pass a list: {name}=[{value!r}].")
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        raise InputError(f"{name} must be a list of {what}; got {type(value).__name__}.",
                         fix=f"pass a list of strings as {name}=.") from None
    blank = [i for i, v in enumerate(items) if v is None or (isinstance(v, float) and math.isnan(v))
             or (isinstance(v, str) and not v.strip())]
    if blank:
        shown = ", ".join(map(str, blank[:10])) + (f" and {len(blank) - 10} more" if len(blank) > 10 else "")
        raise InputError(f"{name} holds {len(blank)} missing or blank {what} (at position {shown}, counting from "
                         "0); a missing one would be looked up as the text 'nan'.",
                         fix=f"remove the blank entries (rows) or fill them in before passing {name}.")
    wrong = next((v for v in items if not isinstance(v, str)), None)
    if wrong is not None:
        raise InputError(f"{name} must hold strings; got {wrong!r} ({type(wrong).__name__}).",
                         fix=f"pass {what} as text.")
    return items


def count_list(value: object, *, name: str, minimum: int = 1, maximum: int | None = None) -> list[int]:
    """``value`` as a non-empty list of whole numbers (:func:`count` each); a single whole number is one count
    (``11`` → ``[11]``); a string is TK102 (``"11"`` would be read digit by digit)."""
    if isinstance(value, (str, bytes)):
        raise InputError(f"{name} must be whole numbers; got the string {value!r}.",
                         fix=f"pass numbers, e.g. {name}=(11, 20) or {name}=11.")
    if isinstance(value, numbers.Number):
        return [count(value, name=name, minimum=minimum, maximum=maximum)]  # type: ignore[list-item]
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        raise InputError(f"{name} must be one or more whole numbers; got {type(value).__name__}.",
                         fix=f"pass e.g. {name}=(11, 20).") from None
    if not items:
        raise InputError(f"{name} must list at least one count; got none.", fix=f"pass e.g. {name}=(11,).")
    return [count(v, name=name, minimum=minimum, maximum=maximum) for v in items]  # type: ignore[misc]
