"""Models by spec string: one registry for notebooks, widgets and the CLI.

Specs: ``vader``, ``textblob``, ``afinn``, ``minilm-imdb`` (the offline neural default, :mod:`toolkit.models.minilm`),
``hf:<hub-id-or-local-path>[?options]`` (see :mod:`toolkit.models.hf`),
``py:<module>:<callable>`` (see :mod:`toolkit.models.pyfunc`), ``llm:hf:<id-or-path>`` and
``llm:openai:<model>@<base_url>`` (LLMs as models under test, :mod:`toolkit.models.llm`).
``ait:<system>/<task>`` (SemEval-2018 Task 1 systems trained here, one per emotion-intensity or
valence task: :mod:`toolkit.models.ait`). Valence mappings: :mod:`toolkit.models.valence`. A model's ``task`` says
what its score measures (``valence`` unless stated).

Models given as Python objects (:mod:`toolkit.models.inmemory`) go wherever a spec does: a function
``list[str] -> scores in [0, 1]``, a transformers ``pipeline("sentiment-analysis")``, a ``(model, tokenizer)`` pair,
a fitted classifier with ``predict_proba`` (a scikit-learn Pipeline). :func:`wrap` gives one a label and options
(``wrap(fn, label="my-model")``); two different models under one label in a run are TK102 naming it.

Each family registers itself where it is defined (:mod:`toolkit.models.registry`): ``@named("vader", ...)`` on a
named model, ``@scheme("hf:", patterns=...)`` on a spec scheme; :func:`load` asks the registry, and a spec no family
claims is TK103 listing every valid name and pattern.

Several specs typed as one text (an app's model field, a comma-separated list) are split by :func:`split_specs`,
which keeps the commas inside a spec's query string (``hf:/m?labels=neg,neu,pos``).

>>> from toolkit.models import load, available, split_specs
>>> available()            # what this machine can run
>>> load("vader").predict(["What a lovely day."])
>>> split_specs("vader, hf:/models/m?labels=neg,neu,pos")
['vader', 'hf:/models/m?labels=neg,neu,pos']
>>> load(lambda texts: [0.5] * len(texts)).spec
'fn:<lambda>'
"""
from __future__ import annotations

import copy
import difflib
from collections.abc import Iterable
from urllib.parse import parse_qs

from toolkit.errors import InputError, ModelSpecError, UnknownNameError, warn

# each family registers itself (@named / @scheme) when its module is imported (the listing: registry.listing)
from toolkit.models import (
    ait,
    hf,
    inmemory,  # objects: a pipeline, (model, tokenizer), predict_proba, a callable
    lexicon,
    llm,
    minilm,
    other_languages,  # gersent (de), mlask (ja), cnsenti and snownlp (zh)
    pyfunc,
    registry,
)
from toolkit.models.base import Predictions, SentimentModel
from toolkit.models.registry import named, parse_named, register, scheme  # the decorators, importable here too

_LOADED: dict[str, SentimentModel] = {}
_REDEFINABLE = ("py:__main__:",)
"""Specs loaded afresh each time: a notebook or script may redefine the function between runs."""

OFFLINE_DEFAULTS: tuple[str, ...] = ("vader", "textblob", "afinn", "minilm-imdb")
"""The model zoo every notebook and test can run with no network."""


def available() -> list[str]:
    """Spec names usable on this machine: installed named models, the trained ``ait:`` systems, then the ``hf:`` /
    ``py:`` / ``llm:`` patterns (:func:`toolkit.models.registry.listing`)."""
    return registry.listing()


def task_of(spec: str) -> str:
    """What a spec's score measures: an ``ait:`` system's task (parsed, not loaded), an ``hf:`` spec's ``task=``
    option, a ``py:`` callable's declared task (imported), a named model's registered task, ``any`` for the
    listing's patterns, else ``valence``."""
    if spec in registry.patterns():
        return "any"
    if (entry := registry.NAMED.get(spec.partition("?")[0])) is not None:
        return entry.task
    if spec.startswith("ait:"):
        return ait.parse(spec)[1]
    if spec.startswith("hf:"):
        return parse_qs(spec.partition("?")[2]).get("task", ["valence"])[-1]
    return load(spec).task if spec.startswith("py:") else "valence"


def _schemes() -> tuple[str, ...]:
    """The registered schemes' first parts: ``hf:``, ``py:``, ``llm:``, ``ait:``."""
    return tuple(dict.fromkeys(p.partition(":")[0] + ":" for p in registry.SCHEMES))


def _starts_spec(piece: str) -> bool:
    """Whether ``piece`` (what follows a comma) begins a spec: a scheme prefix, a named model or a listed pattern."""
    return (piece.startswith(_schemes()) or piece.partition("?")[0] in registry.NAMED
            or piece in registry.patterns())


def _split(text: str) -> list[str]:
    """The specs in ``text`` in order, duplicates kept (see :func:`split_specs`)."""
    specs: list[str] = []
    for line in str(text).splitlines():
        current: str | None = None
        for piece in (p.strip() for p in line.split(",")):
            if current is not None and "?" in current and piece and not _starts_spec(piece):
                current += "," + piece          # a comma inside a query value: ?labels=neg,neu,pos
                continue
            if current:
                specs.append(current)
            current = piece
        if current:
            specs.append(current)
    return specs


def split_specs(text: str, *, selected: Iterable[str] = ()) -> list[str]:
    """The model specs in a user's text (an app's model field, a CLI value), after the ``selected`` ones.

    Specs are separated by commas or newlines; whitespace around each is trimmed and empty items are dropped. A comma
    inside a spec's query string stays in it (``hf:/m?labels=neg,neu,pos`` is one spec) unless what follows it
    begins a spec: a scheme (``hf:``, ``py:``, ``llm:``, ``ait:``) or a named model (``vader``, …). So
    ``"hf:/m?labels=neg,neu,pos, vader"`` is two specs; write a spec with a query string last, or on its own line,
    when a label could be read as a model name. A spec given twice (typed twice, or typed and also in ``selected``,
    e.g. ticked in an app) is kept once, at its first place, with one warning naming the repeats: scoring it twice
    would only duplicate rows. ``selected``: specs already chosen (ticked), returned first. Returns a list of
    strings; nothing is loaded or checked here (:func:`load` does that)."""
    out: list[str] = []
    repeats: list[str] = []
    for spec in [str(s).strip() for s in selected] + _split(text):
        if not spec:
            continue
        if spec in out:
            repeats.append(spec)
        else:
            out.append(spec)
    if repeats:
        warn(f"model spec(s) given more than once, scored once: {', '.join(repr(r) for r in dict.fromkeys(repeats))}.")
    return out


def _unknown_model(spec: str) -> UnknownNameError:
    """TK103 for a spec no family claims: the valid names and patterns, the nearest name, and a fix that reads the
    same in Python, in an app's model field and on the command line (the spec strings are the same everywhere)."""
    pieces = _split(spec)
    if len(pieces) > 1:
        return UnknownNameError(
            f"unknown model {spec!r}: it holds {len(pieces)} specs ({', '.join(repr(p) for p in pieces)}), "
            "but one spec was expected here.",
            fix="give the specs separately: a list in Python (models=[...]; split_specs(text) splits such a text), "
                "one --model each on the command line; an app's model field splits them itself.", code="TK103")
    near = _nearest(spec)
    return UnknownNameError(
        f"unknown model {spec!r}; available: {', '.join(sorted(registry.NAMED) + registry.patterns())}.",
        fix=(f"did you mean {near!r}? " if near else "") + "A model spec is one of the names listed or a pattern "
            "filled in (e.g. hf:/path/to/folder), written the same in Python, in an app's model field and on the "
            "command line.", code="TK103")


def _nearest(spec: str) -> str | None:
    """The valid spec ``spec`` most likely meant: a named model in another case or one letter off, or the same
    target under the nearest scheme (``HF:/x``, ``hff:/x`` → ``hf:/x``; ``hf`` → its pattern)."""
    low = spec.lower()
    head, colon, rest = spec.partition(":")
    if colon:
        near = difflib.get_close_matches(head.lower() + ":", _schemes(), n=1, cutoff=0.6)
        return near[0] + rest if near else None
    if low in registry.NAMED:
        return low
    if low + ":" in registry.SCHEMES and registry.SCHEMES[low + ":"].patterns:
        return next(iter(registry.SCHEMES[low + ":"].patterns))
    near = difflib.get_close_matches(low, sorted(registry.NAMED), n=1, cutoff=0.6)
    return near[0] if near else None


def _not_a_model(obj: object) -> ModelSpecError:
    """TK201 for an object no registered kind accepts: the kinds, with a hint for a classifier without
    ``predict_proba``."""
    shown = repr(obj)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    hint = ("it has predict but no predict_proba, so no probability of the positive class: use a probabilistic "
            "classifier (LogisticRegression), or CalibratedClassifierCV around it. " if callable(
                getattr(obj, "predict", None)) else "")
    kinds = "; ".join(kind.describe for kind in registry.OBJECTS.values())
    return ModelSpecError(f"{shown} ({type(obj).__name__}) is neither a model spec string nor a model object; "
                          f"accepted objects: {kinds}.",
                          fix=f"{hint}Pass a spec string (see toolkit.models.available()) or one of the listed "
                              f"objects ({inmemory.DOCS}).")


def wrap(obj: object, *, label: str | None = None, device: str | None = None, **options: object) -> SentimentModel:
    """``obj`` as a model labelled ``label`` (the ``model`` column, the provenance's spec).

    ``obj``: a function ``f(list[str]) -> scores in [0, 1]`` (options ``version``, ``unsafe``), a transformers
    text-classification pipeline or ``(model, tokenizer)`` pair (the ``hf:`` options ``labels``, ``max_length``,
    ``device``, ``dtype``, ``recheck``, ``valence``, ``task``), a fitted classifier with ``predict_proba`` (options
    ``labels``, ``positive``, ``version``), a spec string or a loaded model (relabelled; no options). ``label``:
    default :mod:`toolkit.models.inmemory`'s (``py:<module>:<name>``, ``fn:<name>``, ``hf:<name_or_path>``,
    ``sklearn:<ClassName>``). Returns the model; an object of no accepted kind, an unknown option or an empty label is
    TK201. Wrapping hashes the object (its code, weights or state) for the score cache's fingerprint."""
    if label is not None and (not isinstance(label, str) or not label.strip() or "\n" in label):
        raise ModelSpecError(f"label={label!r} is not a one-line, non-empty string.",
                             fix="pass e.g. wrap(obj, label='my-model').")
    label = label.strip() if label is not None else None
    if isinstance(obj, (str, SentimentModel)):
        if options:
            raise ModelSpecError(f"options {sorted(options)} were given with a spec string or a loaded model.",
                                 fix="write them into the spec (hf:/path?max_length=128), or wrap the object itself.")
        model = load(obj, device=device)
        if label is None or label == model.spec:
            return model
        relabelled = copy.copy(model)  # a shallow copy: the loaded model stays as it is under its own spec
        relabelled.spec = label
        return relabelled
    kind = registry.adapter_of(obj)
    if kind is None:
        raise _not_a_model(obj)
    return kind.factory(obj, label=label, device=device, options=options)


def check_labels(models: Iterable[SentimentModel]) -> None:
    """TK102 when two different models (different fingerprints) carry one label: their rows would merge under one
    ``model`` name. The fix names :func:`wrap`'s ``label=``. The same model twice is left to the callers (scored
    once, or refused as listed twice)."""
    seen: dict[str, SentimentModel] = {}
    for model in models:
        first = seen.setdefault(model.spec, model)
        if first is not model and first.fingerprint != model.fingerprint:
            raise InputError(f"two different models are both labelled {model.spec!r} ({type(first).__name__} and "
                             f"{type(model).__name__}): their rows would merge under one model name.",
                             fix="give each its own label: toolkit.models.wrap(obj, label='my-model') (the "
                                 "label is the model column's name).")


def load(spec: str | SentimentModel | object, *, device: str | None = None) -> SentimentModel:
    """The model behind ``spec``: a spec string (loaded once per process, except ``py:__main__:`` functions, which a
    notebook may redefine; unknown names raise TK103 listing the valid ones), a loaded model (returned as it is), or
    a model object (:func:`wrap`ped with its default label, each time: an object changed in place gets a new
    fingerprint)."""
    if isinstance(spec, SentimentModel):
        return spec
    if not isinstance(spec, str):
        return wrap(spec, device=device)
    spec = str(spec).strip()
    key = f"{spec}@{device}" if device else spec
    if key in _LOADED:
        return _LOADED[key]
    family = registry.family_of(spec)
    if family is None:
        raise _unknown_model(spec)
    model = registry.build(family, spec, device=device)
    if not spec.startswith(_REDEFINABLE):
        _LOADED[key] = model
    return model


def load_all(specs: str | SentimentModel | object | Iterable[str | SentimentModel | object], *,
             device: str | None = None) -> list[SentimentModel]:
    """``load`` for one spec or model object or many; a single string, loaded model or model object (a function, a
    pipeline, a ``(model, tokenizer)`` pair, a classifier) is one. Two different models under one label are TK102
    (:func:`check_labels`)."""
    if isinstance(specs, (str, SentimentModel)) or registry.adapter_of(specs) is not None:
        specs = [specs]
    loaded = [load(s, device=device) for s in specs]
    check_labels(loaded)
    return loaded


__all__ = ["OFFLINE_DEFAULTS", "Predictions", "SentimentModel", "available", "check_labels", "load", "load_all",
           "named", "parse_named", "register", "scheme", "split_specs", "task_of", "wrap"]
