"""The model registry: each family registers itself where it is defined, with a decorator.

Three kinds of entry:

- a **named** model (``vader``, ``minilm-imdb``): ``@named("vader", requires="vaderSentiment")`` on a class or
  factory called with no arguments, or with the ``?key=value`` options its spec carries (``options=``);
- a **scheme** (``hf:``, ``py:``, ``llm:``, ``ait:``): ``@scheme("hf:", patterns={...})`` on a class or factory
  called with the whole spec (and ``device=`` when it takes one). ``patterns`` maps what :func:`listing` shows
  (``hf:<hub-id-or-local-path>``) to the packages it needs; ``listing=`` instead names the concrete specs this
  machine can run (the trained ``ait:`` systems);
- an **object kind** (a Python function, a transformers pipeline, an object with ``predict_proba``):
  ``@adapts("callable", accepts=callable, describe=...)`` on a factory called as ``factory(obj, label=, device=,
  options=)``; :func:`adapter_of` finds the first registered kind that accepts an object (register the most specific
  kinds first: a pipeline is callable too).

:func:`family_of` finds the entry a spec belongs to (a named model by its name, a scheme by its longest prefix);
:func:`unknown_model` is the TK103 error listing every valid name and pattern. :mod:`toolkit.models` loads through
this registry; nothing here imports a family (they import it).
"""
from __future__ import annotations

import importlib.util
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qs

from toolkit.errors import MissingDependencyError, ModelSpecError
from toolkit.models.base import SentimentModel

Factory = Callable[..., SentimentModel]


@dataclass(frozen=True)
class Named:
    """A named model: its name, factory, the import name it needs, the ``?key=value`` options it takes, and what its
    score measures (``task``: valence or an emotion's intensity, known without loading it)."""

    name: str
    factory: Factory
    requires: str = ""
    options: tuple[str, ...] = ()
    task: str = "valence"


@dataclass(frozen=True)
class Scheme:
    """A spec scheme: its prefix, factory (called with the spec), the patterns it lists with the packages each
    needs, and optionally the concrete specs it lists instead (:attr:`listing`)."""

    prefix: str
    factory: Factory
    patterns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    listing: Callable[[], list[str]] | None = None


@dataclass(frozen=True)
class ObjectKind:
    """A kind of in-memory model: its name, the test an object passes to be of it (``accepts``), the factory that
    wraps such an object, what the error for an unaccepted object shows (``describe``) and the options it takes."""

    name: str
    accepts: Callable[[object], bool]
    factory: Factory
    describe: str
    options: tuple[str, ...] = ()


NAMED: dict[str, Named] = {}
SCHEMES: dict[str, Scheme] = {}
OBJECTS: dict[str, ObjectKind] = {}


def installed(*modules: str) -> bool:
    """Whether every import name in ``modules`` can be found on this machine (nothing is imported)."""
    return all(importlib.util.find_spec(m) is not None for m in modules if m)


def register(name: str, factory: Factory, *, requires: str = "", options: tuple[str, ...] = (),
             task: str = "valence") -> None:
    """Register a named model; ``requires`` is the import name that must be installed for it to be available;
    ``options``: the ``?key=value`` options its spec may carry (``minilm-imdb?dtype=bfloat16``), passed to
    ``factory`` as keyword arguments; ``task``: what its score measures."""
    NAMED[name] = Named(name, factory, requires, tuple(options), task)


def named(name: str, *, requires: str = "", options: tuple[str, ...] = (),
          task: str = "valence") -> Callable[[Factory], Factory]:
    """Decorator: register the class or factory below as the named model ``name`` (see :func:`register`)."""
    def decorate(factory: Factory) -> Factory:
        register(name, factory, requires=requires, options=options, task=task)
        return factory

    return decorate


def scheme(prefix: str, *, patterns: Mapping[str, Iterable[str]] | None = None,
           listing: Callable[[], list[str]] | None = None) -> Callable[[Factory], Factory]:
    """Decorator: register the class or factory below for specs that start with ``prefix`` (``"hf:"``).
    ``patterns``: what the listing shows for the scheme, each with the import names it needs; ``listing``: a
    function returning the concrete specs to list instead. The factory is called as ``factory(spec)``, with
    ``device=`` too when its signature takes it."""
    if not prefix.endswith(":"):
        raise ValueError(f"a scheme prefix ends with ':' ({prefix!r})")

    def decorate(factory: Factory) -> Factory:
        SCHEMES[prefix] = Scheme(prefix, factory, {p: tuple(r) for p, r in (patterns or {}).items()}, listing)
        return factory

    return decorate


def adapts(name: str, *, accepts: Callable[[object], bool], describe: str,
           options: Iterable[str] = ()) -> Callable[[Factory], Factory]:
    """Decorator: register the factory below for in-memory objects that ``accepts`` returns True for, called as
    ``factory(obj, label=..., device=..., options={...})``. Kinds are tried in registration order."""
    def decorate(factory: Factory) -> Factory:
        OBJECTS[name] = ObjectKind(name, accepts, factory, describe, tuple(options))
        return factory

    return decorate


def adapter_of(obj: object) -> ObjectKind | None:
    """The first registered object kind that accepts ``obj``; None when none does."""
    return next((kind for kind in OBJECTS.values() if kind.accepts(obj)), None)


def patterns() -> list[str]:
    """Every scheme's patterns, in registration order (``hf:<hub-id-or-local-path>``, ...)."""
    return [p for s in SCHEMES.values() for p in s.patterns]


def listing() -> list[str]:
    """What this machine can run: named models whose package is installed (sorted), the concrete specs of schemes
    that list them (the trained ``ait:`` systems), then the other schemes' patterns whose packages are installed, in
    registration order."""
    out = [n for n, entry in sorted(NAMED.items()) if installed(entry.requires)]
    out += [spec for entry in SCHEMES.values() if entry.listing is not None for spec in entry.listing()]
    return out + [p for entry in SCHEMES.values() if entry.listing is None
                  for p, needs in entry.patterns.items() if installed(*needs)]


def family_of(spec: str) -> Named | Scheme | None:
    """The registry entry ``spec`` belongs to: a named model by its name (before ``?``), else the scheme with the
    longest matching prefix; None when no family claims it."""
    if spec.partition("?")[0] in NAMED:
        return NAMED[spec.partition("?")[0]]
    found = [s for p, s in SCHEMES.items() if spec.startswith(p)]
    return max(found, key=lambda s: len(s.prefix)) if found else None


def parse_named(spec: str) -> tuple[str, dict[str, str]]:
    """Split a named model's spec ``name?key=value&…`` into the name and its options (the ``hf:`` query syntax);
    an option the model does not take is ModelSpecError (TK201) listing those it does."""
    name, _, query = spec.partition("?")
    options = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    valid = NAMED[name].options if name in NAMED else ()
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ModelSpecError(f"unknown option {unknown[0]!r} in model spec {spec!r}; {name} takes "
                             + (", ".join(valid) if valid else "no options") + ".",
                             fix=f"remove it{' or use one of the listed options' if valid else ''} (e.g. "
                                 f"{name}{'?' + valid[0] + '=…' if valid else ''}).")
    return name, options


def build(entry: Named | Scheme, spec: str, *, device: str | None = None) -> SentimentModel:
    """Call ``entry``'s factory for ``spec``: a named model with its options (its spec set to the whole spec when it
    carries options, so runs with different options stay apart), a scheme with the spec (and ``device``)."""
    if isinstance(entry, Named):
        _, options = parse_named(spec)
        if entry.requires and not installed(entry.requires):
            raise MissingDependencyError(f"model {spec!r} needs the package {entry.requires!r}.",
                                         fix=f"pip install {entry.requires}")
        if "?" not in spec:
            return entry.factory()
        model = entry.factory(**options)
        model.spec = spec  # the options stay in the spec: the model column and provenance tell the runs apart
        return model
    takes_device = "device" in inspect.signature(entry.factory).parameters
    return entry.factory(spec, device=device) if takes_device else entry.factory(spec)


__all__ = ["NAMED", "OBJECTS", "SCHEMES", "Named", "ObjectKind", "Scheme", "adapter_of", "adapts", "build",
           "family_of", "installed", "listing", "named", "parse_named", "patterns", "register", "scheme"]
