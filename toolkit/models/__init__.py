"""Models by spec string: one registry for notebooks, widgets and the CLI.

Specs: ``vader``, ``textblob``, ``afinn``, ``minilm-imdb`` (the offline neural default, :mod:`toolkit.models.minilm`),
``hf:<hub-id-or-local-path>[?options]`` (see :mod:`toolkit.models.hf`),
``py:<module>:<callable>`` (see :mod:`toolkit.models.pyfunc`), ``llm:hf:<id-or-path>`` and
``llm:openai:<model>@<base_url>`` (LLMs as models under test, :mod:`toolkit.models.llm`).
``ait:<system>/<task>`` (SemEval-2018 Task 1 systems trained here, one per emotion-intensity or
valence task: :mod:`toolkit.models.ait`). Valence mappings: :mod:`toolkit.models.valence`. A model's ``task`` says
what its score measures (``valence`` unless stated).

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
"""
from __future__ import annotations

import difflib
from collections.abc import Iterable
from urllib.parse import parse_qs

from toolkit.errors import UnknownNameError, warn
from toolkit.models import registry
from toolkit.models.base import Predictions, SentimentModel
from toolkit.models.registry import named, parse_named, register, scheme  # the decorators, importable here too

# each family registers itself (@named / @scheme) when its module is imported (the listing: registry.listing)
from toolkit.models import ait, hf, pyfunc, llm  # noqa: F401,I001  schemes: ait:, hf:, py:, llm:
from toolkit.models import lexicon, minilm  # noqa: F401  named: vader, textblob, afinn, minilm-imdb

_LOADED: dict[str, SentimentModel] = {}

OFFLINE_DEFAULTS: tuple[str, ...] = ("vader", "textblob", "afinn", "minilm-imdb")
"""The model zoo every notebook and test can run with no network."""


def available() -> list[str]:
    """Spec names usable on this machine: installed named models, the trained ``ait:`` systems, then the ``hf:`` /
    ``py:`` / ``llm:`` patterns (:func:`toolkit.models.registry.listing`)."""
    return registry.listing()


def task_of(spec: str) -> str:
    """What a spec's score measures: an ``ait:`` system's task (parsed, not loaded), an ``hf:`` spec's ``task=``
    option, a ``py:`` callable's declared task (imported), ``any`` for the listing's patterns, else ``valence``."""
    if spec in registry.patterns():
        return "any"
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


def load(spec: str | SentimentModel, *, device: str | None = None) -> SentimentModel:
    """The model behind ``spec`` (loaded once per process). Unknown names raise TK103 listing the valid ones."""
    if isinstance(spec, SentimentModel):
        return spec
    spec = str(spec).strip()
    key = f"{spec}@{device}" if device else spec
    if key in _LOADED:
        return _LOADED[key]
    family = registry.family_of(spec)
    if family is None:
        raise _unknown_model(spec)
    model = registry.build(family, spec, device=device)
    _LOADED[key] = model
    return model


def load_all(specs: str | SentimentModel | Iterable[str | SentimentModel], *,
             device: str | None = None) -> list[SentimentModel]:
    """``load`` for one spec or many; a single string is one spec."""
    if isinstance(specs, (str, SentimentModel)):
        specs = [specs]
    return [load(s, device=device) for s in specs]


__all__ = ["OFFLINE_DEFAULTS", "Predictions", "SentimentModel", "available", "load", "load_all", "named",
           "parse_named", "register", "scheme", "split_specs", "task_of"]
