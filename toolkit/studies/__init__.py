"""The study registry: every study is one package here (``toolkit/studies/<name>/``) that registers one
:class:`~toolkit.studies.base.Study` by name, and every study returns one result type
(:class:`~toolkit.studies.result.StudyResult`).

>>> from toolkit import studies
>>> studies.names()                  # ['biasfinder', 'btcsam', 'eec', 'psa', …]: every study package found here
>>> eec = studies.get("eec")         # the registered Study: its Settings, sizes, figures, paper tables, app
>>> result = eec.run(models=["vader"], size="quick")

Fronts (the command line, the apps, :func:`toolkit.audit.audit`, reports, agreement) iterate over :func:`names` and
:func:`get`; adding a study means adding its package and nothing else. A package is imported when it is first
asked for (:func:`get`), so importing this registry stays light.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING

from toolkit.errors import unknown

if TYPE_CHECKING:  # the registry's own types, for annotations only (base imports this module's ``register``)
    from toolkit.studies.base import Study

_REGISTRY: dict[str, "Study"] = {}
_CORE = frozenset({"base", "result", "stats_frame"})  # modules of the registry itself, not study packages


def register(cls: type) -> type:
    """Class decorator: register one instance of the :class:`~toolkit.studies.base.Study` subclass ``cls`` under
    ``cls.name`` (a second study of the same name is a coded error)."""
    name = getattr(cls, "name", "")
    if not name:
        raise TypeError(f"{cls.__name__} has no study name (set name = '…').")
    if name in _REGISTRY and type(_REGISTRY[name]) is not cls:
        raise ValueError(f"a study named {name!r} is registered already ({type(_REGISTRY[name]).__name__}).")
    _REGISTRY[name] = cls()
    return cls


def names() -> list[str]:
    """Every study package in ``toolkit/studies/``, sorted (found on disk; not imported)."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__) if info.ispkg and info.name not in _CORE)


def get(name: str) -> "Study":
    """The registered study ``name``, importing its package the first time; an unknown name is UnknownNameError
    (TK103) listing the studies."""
    if name not in _REGISTRY:
        if name not in names():
            raise unknown("study", name, names())
        importlib.import_module(f"{__name__}.{name}")
        if name not in _REGISTRY:
            raise unknown("study", name, sorted(_REGISTRY))
    return _REGISTRY[name]


def all_studies(*, with_models: bool | None = None) -> list["Study"]:
    """Every registered study (each package imported), in :func:`names` order; ``with_models=True``: only those
    that score models (not :mod:`~toolkit.studies.agreement`, which reads other studies' results)."""
    found = [get(n) for n in names()]
    return [s for s in found if with_models is None or s.takes_models == with_models]


def latex_layouts() -> dict:
    """Every registered study's LaTeX layouts, table name → :class:`toolkit.outputs.latex.PaperTable`."""
    return {name: entry for study in all_studies() for name, entry in study.latex_layouts.items()}


def paper_figures() -> dict[str, tuple[str, str, str]]:
    """Every registered study's figures: file stem → (the function in its ``figures`` module that draws it, the
    paper figure or table it reproduces, how it compares)."""
    return {stem: entry for study in all_studies() for stem, entry in study.paper_figures.items()}
