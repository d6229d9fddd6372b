"""Models given as Python objects: a function, a transformers pipeline, a (model, tokenizer) pair, a classifier
with ``predict_proba``. Each kind registers itself here (:func:`toolkit.models.registry.adapts`);
:func:`toolkit.models.load`, ``load_all``, :func:`toolkit.models.wrap` and every study's ``models=`` take such objects
beside spec strings (docs/models.md, "Your own model").

- a function ``f(list[str]) -> scores in [0, 1]``: a ``py:`` model (:meth:`PyCallableModel.from_callable`): its
  output checks, ``fn.task``, ``fn.fork_safe``; the fingerprint hashes its module's source, and its own code where it
  is not importable (a lambda, a notebook function). Label ``py:<module>:<name>`` where the module holds it by that
  name (``py:__main__:fn`` in a notebook), else ``fn:<name>``.
- a ``pipeline("sentiment-analysis")`` (or ``"text-classification"``), or a ``(model, tokenizer)`` pair of an
  ``AutoModelForSequenceClassification`` and its tokenizer: scored by the ``hf:`` adapter
  (:meth:`HFClassifierModel.from_objects`), with the label mapping, batches, truncation, precision and fingerprint of
  ``hf:<the folder it was saved to>``. Label ``hf:<name_or_path>``.
- an object with ``predict_proba(list[str])`` and ``classes_`` (a scikit-learn Pipeline): valence = P(positive class)
  (:class:`ProbaModel`); its fingerprint hashes its fitted state. Label ``sklearn:<ClassName>`` (a Pipeline: its last
  step's).

A pipeline or pair is scored where its model is (its device) in float32, and put in eval mode in place; asking for
another ``device=`` or ``dtype=`` scores a copy. The engine forms the batches (as for every model), so a pipeline's
own ``batch_size`` is not used; texts longer than the model's maximum are truncated and flagged, as with ``hf:``.
A pipeline built with another ``function_to_apply`` than its head's (softmax; sigmoid for a multi-label head) is
refused: the ``hf:`` mapping would not be what the pipeline reports.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

import numpy as np

from toolkit.errors import LabelMappingError, ModelOutputError, ModelSpecError, ToolkitError
from toolkit.hub import PROBE_SENTENCE
from toolkit.models import hf, valence
from toolkit.models.base import Predictions, SentimentModel, digest
from toolkit.models.pyfunc import PyCallableModel, importable_name, state_digest
from toolkit.models.registry import adapts

DOCS = "docs/models.md#your-own-model"
"""Where the object forms are documented (named in error fixes)."""


def _of_class(obj: object, name: str) -> bool:
    """Whether ``obj``'s class is, or derives from, the transformers class ``name`` (nothing is imported)."""
    return any(cls.__name__ == name and cls.__module__.startswith("transformers.") for cls in type(obj).__mro__)


def is_pipeline(obj: object) -> bool:
    """A transformers pipeline of any task."""
    return _of_class(obj, "Pipeline")


def is_pair(obj: object) -> bool:
    """A (model, tokenizer) pair of transformers objects, in either order."""
    return (isinstance(obj, (tuple, list)) and len(obj) == 2
            and any(_of_class(a, "PreTrainedModel") and _of_class(b, "PreTrainedTokenizerBase")
                    for a, b in (obj, obj[::-1])))


def has_predict_proba(obj: object) -> bool:
    """An object with a ``predict_proba`` method (a fitted scikit-learn classifier or Pipeline)."""
    return callable(getattr(obj, "predict_proba", None)) and not isinstance(obj, type)


def _option_text(value: object) -> str:
    """An option given in Python as its spec-string form: a list of labels joined by commas, a flag as 1/0."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def _checked_options(kind: str, options: Mapping[str, object], valid: Sequence[str], *, label: str) -> dict:
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ModelSpecError(f"unknown option {unknown[0]!r} for the {kind} {label!r}; it takes "
                             + (", ".join(valid) if valid else "no options") + ".",
                             fix="remove it or use one of the listed options (toolkit.models.wrap(obj, label=..., "
                                 "<option>=...)).")
    return {k: v for k, v in options.items() if v is not None}


# --- transformers: a pipeline, or a model and its tokenizer --------------------------------------------------------

def _name_or_path(model: object) -> str:
    config = getattr(model, "config", None)
    return str(getattr(config, "_name_or_path", "") or getattr(config, "name_or_path", "") or "")


def _device_of(model: object) -> str | None:
    try:
        return str(next(model.parameters()).device)
    except (AttributeError, StopIteration, TypeError):
        return None


def _device_name(device: str) -> str:
    """``cuda`` and ``cuda:0`` (``mps``, ``mps:0``) as one device."""
    return device if ":" in device or device == "cpu" else f"{device}:0"


def _float_dtype(model: object) -> str:
    try:
        return str(next(model.parameters()).dtype).removeprefix("torch.")
    except (AttributeError, StopIteration, TypeError):
        return "float32"


def transformers_model(model: object, tokenizer: object, *, label: str | None, device: str | None,
                       options: Mapping[str, object]) -> SentimentModel:
    """The ``hf:`` adapter over ``model`` (a sequence classifier) and ``tokenizer`` already in memory (see the module
    docstring for placement and copies)."""
    spec = label or f"hf:{_name_or_path(model) or type(model).__name__}"
    options = {k: _option_text(v) for k, v in _checked_options("model", options, hf._OBJECT_OPTIONS,
                                                                label=spec).items()}
    if not type(model).__name__.endswith("ForSequenceClassification"):
        raise ModelSpecError(f"{spec}: a {type(model).__name__} is not a sequence classifier (it has no "
                             "classification head to read sentiment from).",
                             fix="load it with transformers.AutoModelForSequenceClassification.from_pretrained(...) "
                                 "from a model fine-tuned for sentiment.")
    here = _device_of(model)
    target = options.get("device") or device or here
    if target is not None:
        options["device"] = target
    moved = here is not None and _device_name(hf.pick_device(target)) != _device_name(here)
    if moved or options.get("dtype", "float32") != "float32" or _float_dtype(model) != "float32":
        model = copy.deepcopy(model)  # placement or precision would change the caller's model: score a copy
    return hf.HFClassifierModel.from_objects(model, copy.deepcopy(tokenizer), spec=spec, options=options)


@adapts("transformers pipeline", accepts=is_pipeline, options=hf._OBJECT_OPTIONS,
        describe="a transformers pipeline('sentiment-analysis') or pipeline('text-classification')")
def from_pipeline(pipe: object, *, label: str | None = None, device: str | None = None,
                  options: Mapping[str, object] | None = None) -> SentimentModel:
    """A text-classification pipeline: its model and tokenizer through the ``hf:`` adapter; the pipeline's
    ``max_length`` tokenizer setting is kept unless ``options`` give one."""
    if not _of_class(pipe, "TextClassificationPipeline"):
        raise ModelSpecError(f"a {getattr(pipe, 'task', '') or type(pipe).__name__} pipeline is not a sentiment "
                             "classifier.", fix="pass pipeline('sentiment-analysis', model=...) (or "
                                                "'text-classification'), or a function list[str] -> scores.")
    model, tokenizer = getattr(pipe, "model", None), getattr(pipe, "tokenizer", None)
    if tokenizer is None:
        raise ModelSpecError("the pipeline has no tokenizer.", fix="build it with pipeline(..., tokenizer=...).")
    config = model.config
    function = (getattr(pipe, "_postprocess_params", None) or {}).get("function_to_apply")
    function = str(getattr(function, "value", function) or "default").lower()
    head = "sigmoid" if config.problem_type == "multi_label_classification" or config.num_labels == 1 else "softmax"
    if function not in ("default", head):
        raise ModelSpecError(f"the pipeline applies {function!r} to the logits, but the valence mapping reads its "
                             f"head's {head} probabilities (as the pipeline does by default).",
                             fix="build the pipeline without function_to_apply, or pass a function that maps its "
                                 "output to scores in [0, 1].")
    options = dict(options or {})
    max_length = (getattr(pipe, "_preprocess_params", None) or {}).get("max_length")
    if max_length is not None and "max_length" not in options:
        options["max_length"] = max_length
    return transformers_model(model, tokenizer, label=label, device=device, options=options)


@adapts("(model, tokenizer)", accepts=is_pair, options=hf._OBJECT_OPTIONS,
        describe="a (model, tokenizer) pair: an AutoModelForSequenceClassification and its AutoTokenizer")
def from_pair(pair: Sequence[object], *, label: str | None = None, device: str | None = None,
              options: Mapping[str, object] | None = None) -> SentimentModel:
    """A transformers model and its tokenizer (either order) through the ``hf:`` adapter."""
    model, tokenizer = pair if _of_class(pair[0], "PreTrainedModel") else pair[::-1]
    return transformers_model(model, tokenizer, label=label, device=device, options=options or {})


# --- a classifier with predict_proba -------------------------------------------------------------------------------

_PROBA_OPTIONS = ("labels", "positive", "version")
_POLAR_NUMBERS = ({0, 1}, {-1, 1})
"""Numeric ``classes_`` read without being told: 0/1 (False/True) and -1/1, the larger one positive."""


def default_proba_label(obj: object) -> str:
    """``sklearn:<ClassName>`` (a Pipeline: its last step's class), ``proba:<ClassName>`` outside scikit-learn."""
    steps = getattr(obj, "steps", None)
    final = steps[-1][1] if isinstance(steps, list) and steps and isinstance(steps[-1], tuple) else obj
    prefix = "sklearn" if type(obj).__module__.startswith("sklearn.") else "proba"
    return f"{prefix}:{type(final).__name__}"


class ProbaModel(SentimentModel):
    """A classifier with ``predict_proba(list[str])`` and ``classes_``: valence from the class probabilities, as
    :mod:`toolkit.models.valence` maps an ``hf:`` head whose labels are ``classes_`` (two classes: P(positive)).

    Which class is positive comes from ``classes_``: names such as ``negative``/``positive`` (``neg``/``pos``, 3
    classes with ``neutral``, ``1 star`` … ``5 stars``), or the numbers 0/1 (False/True) or -1/1 (the larger is
    positive). Anything else is TK202 naming ``positive=`` (two classes: the positive one) or ``labels=`` (one role
    name per column, in ``classes_`` order). The native view's ``top_label`` is the object's own ``predict`` where
    it has one (one more call per batch), else the most probable class. The fingerprint covers the fitted object's
    state (its pickle), the mapping and ``version``; an object's own ``fingerprint`` attribute replaces the state.
    """

    def __init__(self, obj: object, *, spec: str, labels: str | Sequence[str] | None = None,
                 positive: object = None, version: str = "") -> None:
        self.spec = spec
        self._obj = obj
        classes = getattr(obj, "classes_", None)
        if classes is None:
            raise ModelSpecError(f"{spec}: the {type(obj).__name__} has no classes_ (not fitted, or not a "
                                 "classifier), so which column of predict_proba is positive is unknown.",
                                 fix="fit it first (clf.fit(texts, labels)), or give it a classes_ attribute.")
        self.classes = [c.item() if isinstance(c, np.generic) else c for c in np.asarray(classes).ravel()]
        self.head = self._head(labels, positive)
        self.roles = self.head.roles
        self.fork_safe = bool(getattr(obj, "fork_safe", False))
        self._check_probe()
        own = getattr(obj, "fingerprint", None)
        state = ("attribute", str(own)) if isinstance(own, str) else ("state", state_digest(obj, spec=spec))
        self._fingerprint = digest("proba", state, self.head.names, self.head.roles, self.head.mapping,
                                   valence.MAPPING_VERSION, str(version))

    def _head(self, labels: str | Sequence[str] | None, positive: object) -> valence.Head:
        names = [str(c) for c in self.classes]
        id2label = dict(enumerate(names))
        fix = (f"say which class is positive: toolkit.models.wrap(clf, positive={self.classes[-1]!r}) for two "
               f"classes, or one role per column in classes_ order: wrap(clf, labels=['negative', 'neutral', "
               "'positive']) (or '1 star' … '5 stars').")
        if positive is not None:
            if len(self.classes) != 2 or positive not in self.classes:
                raise LabelMappingError(f"{self.spec}: positive={positive!r} must be one of two classes; classes_ is "
                                        f"{self.classes}.", fix=fix if len(self.classes) == 2 else
                                        "give one role per column: wrap(clf, labels=[...]) in classes_ order.")
            roles = ["positive" if c == positive else "negative" for c in self.classes]
            return valence.Head(names, roles, False, "polar")
        if labels is not None:
            labels = [x.strip() for x in labels.split(",")] if isinstance(labels, str) else [str(x) for x in labels]
        elif all(isinstance(c, (int, bool)) for c in self.classes) and set(self.classes) in _POLAR_NUMBERS:
            return valence.Head(names, ["positive" if c == max(self.classes) else "negative" for c in self.classes],
                                False, "polar")
        try:
            head = valence.read_head(id2label, labels=labels)
        except LabelMappingError as exc:
            raise LabelMappingError(f"{self.spec}: cannot tell which class is positive from classes_ "
                                    f"{self.classes}" + (f" and labels={labels}" if labels else "") + ".",
                                    fix=fix) from exc
        if head.roles is None:  # an emotion classifier
            raise LabelMappingError(f"{self.spec}: classes_ {self.classes} are emotions, not a polarity.",
                                    fix="give one role per column: wrap(clf, labels=[...]) in classes_ order.")
        return head

    def _check_probe(self) -> None:
        """One probe sentence through ``predict_proba`` at wrap time: a classifier that cannot read texts (fitted on
        numbers, no vectorizer) or answers in another shape fails here, before any scoring."""
        try:
            self._probabilities([PROBE_SENTENCE])
        except ModelOutputError as exc:
            raise ModelSpecError(exc.message, fix=exc.fix) from exc

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def _probabilities(self, texts: list[str]) -> np.ndarray:
        try:
            out = self._obj.predict_proba(list(texts))
        except ToolkitError:
            raise
        except Exception as exc:
            raise ModelOutputError(f"{self.spec}: predict_proba raised {type(exc).__name__}: {str(exc)[:300]}",
                                   fix="pass a classifier that takes a list of texts: the vectorizer and the "
                                       "classifier in one sklearn Pipeline (make_pipeline(TfidfVectorizer(), "
                                       "LogisticRegression())).") from exc
        try:
            probs = np.asarray(out, dtype=float)
        except (TypeError, ValueError):
            probs = np.asarray([], dtype=float)
        if probs.shape != (len(texts), len(self.classes)):
            raise ModelOutputError(f"{self.spec}: predict_proba returned shape {np.shape(out)} for {len(texts)} texts "
                                   f"and {len(self.classes)} classes.",
                                   fix="return one row of class probabilities per text, one column per classes_.")
        probs = valence.clip_unit(probs)
        if not np.isfinite(probs).all() or (probs < 0).any() or (probs > 1).any():
            raise ModelOutputError(f"{self.spec}: predict_proba returned values that are not probabilities "
                                   f"({valence.describe_range(probs)}).",
                                   fix="return class probabilities in [0, 1] (each row summing to 1).")
        if len(probs) and np.abs(probs.sum(axis=1) - 1.0).max() > 1e-6:
            raise ModelOutputError(f"{self.spec}: predict_proba rows sum to {probs.sum(axis=1).min():.6g}–"
                                   f"{probs.sum(axis=1).max():.6g}, not 1.",
                                   fix="return class probabilities (softmax), not scores or decision values.")
        return probs

    def _predicted(self, texts: list[str], probs: np.ndarray) -> tuple[list[str], np.ndarray] | None:
        """The classifier's own answer from ``predict`` (None without one): its class names and their
        probabilities. It can differ from the most probable class on a tie (P = 0.5), where the valence ``label``
        takes the first class, as for an ``hf:`` head."""
        if not callable(getattr(self._obj, "predict", None)):
            return None
        try:
            answer = [c.item() if isinstance(c, np.generic) else c for c in np.asarray(self._obj.predict(list(texts)))]
        except Exception as exc:
            raise ModelOutputError(f"{self.spec}: predict raised {type(exc).__name__}: {str(exc)[:300]}",
                                   fix="pass a classifier whose predict takes a list of texts.") from exc
        if len(answer) != len(texts) or any(a not in self.classes for a in answer):
            raise ModelOutputError(f"{self.spec}: predict returned {len(answer)} answers for {len(texts)} texts, or "
                                   f"classes outside classes_ {self.classes}.",
                                   fix="return one class of classes_ per text.")
        columns = [self.classes.index(a) for a in answer]
        return [self.head.names[i] for i in columns], probs[np.arange(len(probs)), columns]

    def predict(self, texts: list[str]) -> Predictions:
        if not len(texts):
            probs = np.zeros((0, len(self.classes)))
        else:
            probs = self._probabilities(texts)
        score, label = valence.from_head(probs, self.head)
        top_label, top_score, class_probs = valence.native(probs, self.head.names)
        own = self._predicted(texts, probs) if len(texts) else None
        if own is not None:
            top_label, top_score = own
        return Predictions(score, label, np.zeros(len(texts), dtype=bool), top_label, top_score, class_probs)


@adapts("predict_proba", accepts=has_predict_proba, options=_PROBA_OPTIONS,
        describe="a fitted classifier with predict_proba(list[str]) and classes_ (e.g. a scikit-learn Pipeline "
                 "of a vectorizer and a classifier)")
def from_predict_proba(obj: object, *, label: str | None = None, device: str | None = None,
                       options: Mapping[str, object] | None = None) -> SentimentModel:
    """A classifier with ``predict_proba``: :class:`ProbaModel`; ``device`` does not apply."""
    spec = label or default_proba_label(obj)
    options = _checked_options("classifier", options or {}, _PROBA_OPTIONS, label=spec)
    return ProbaModel(obj, spec=spec, labels=options.get("labels"), positive=options.get("positive"),
                      version=_option_text(options.get("version", "")))


# --- a function (registered last: a pipeline is callable too) ------------------------------------------------------

def default_function_label(fn: object) -> str:
    """``py:<module>:<name>`` where ``fn``'s module holds it by that name (the spec that loads it), else
    ``fn:<name>`` (a lambda: ``fn:<lambda>``; a callable object: ``fn:<ClassName>``)."""
    module_name, name = importable_name(fn)
    if name is not None:
        return f"py:{module_name}:{name}"
    inner = getattr(fn, "func", fn)  # a functools.partial: the function it calls
    return f"fn:{getattr(inner, '__name__', None) or type(fn).__name__}"


@adapts("callable", accepts=callable, options=("version", "unsafe"),
        describe="a function f(list[str]) -> a sequence of scores in [0, 1], one per text (fn.task may declare an "
                 "emotion task)")
def from_function(fn: object, *, label: str | None = None, device: str | None = None,
                  options: Mapping[str, object] | None = None) -> SentimentModel:
    """A function: a ``py:`` model (:meth:`toolkit.models.pyfunc.PyCallableModel.from_callable`); ``device`` does
    not apply."""
    if _of_class(fn, "PreTrainedModel") or _of_class(fn, "PreTrainedTokenizerBase"):
        raise ModelSpecError(f"a transformers {type(fn).__name__} alone cannot score texts: a model needs its "
                             "tokenizer, a tokenizer its model.",
                             fix="pass the pair (model, tokenizer), or pipeline('sentiment-analysis', model=model, "
                                 "tokenizer=tokenizer).")
    spec = label or default_function_label(fn)
    options = _checked_options("function", options or {}, ("version", "unsafe"), label=spec)
    unsafe = options.get("unsafe", False)
    return PyCallableModel.from_callable(fn, spec=spec, version=_option_text(options.get("version", "")),
                                         unsafe=unsafe if isinstance(unsafe, bool) else _option_text(unsafe) in
                                         ("1", "true", "yes"))


__all__ = ["DOCS", "ProbaModel", "default_function_label", "default_proba_label", "from_function", "from_pair",
           "from_pipeline", "from_predict_proba", "has_predict_proba", "is_pair", "is_pipeline",
           "transformers_model"]
