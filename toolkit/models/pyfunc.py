"""``py:<module>:<callable>[?version=…]``: any importable function ``list[str] -> sequence of scores in [0, 1]``.

``py:`` imports and runs arbitrary code: only use modules you trust. A target in the standard library
(:data:`UNSAFE_MODULES`: ``subprocess``, ``os``, ``builtins``, ``timeit``, …) is refused unless the spec adds
``?unsafe=1``.

The fingerprint (the score cache's key) covers, and only covers:

- the spec, including ``version=`` (bump it by hand to invalidate cached scores for any change below);
- the callable's own ``fingerprint`` attribute when it has one (then nothing else is hashed but the spec);
- otherwise the source of the callable's module (wherever it is installed) and of every module it reaches through its globals (imports,
  ``from x import y``) that lives in the same project folder (the folder of its top-level package, or its own folder
  for a top-level module), outside the standard library and site-packages; a function defined in a notebook or
  ``__main__`` hashes its own code.

Not covered: data files, model weights or settings it reads at run time, installed packages it uses (their
versions), environment variables, randomness. When any of those change, pass ``?version=…`` (or set
``callable.fingerprint``).

The score is a valence unless the callable declares another task as an attribute (``fn.task = "anger"``: an
emotion intensity, one of :data:`toolkit.cases.TASKS`). A CPU-bound callable that is safe to run in forked
processes (no threads, GPU or open connections) may set ``fn.fork_safe = True``: the engine then spreads it over
every core (:func:`toolkit.executors.for_model`).
"""
from __future__ import annotations

import importlib
import inspect
import marshal
import sys
import sysconfig
import types
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np

from toolkit.cases import TASKS
from toolkit.errors import ModelOutputError, ModelSpecError, ToolkitError
from toolkit.models import valence
from toolkit.models.base import Predictions, SentimentModel, digest
from toolkit.models.registry import scheme

_OPTIONS = ("version", "unsafe")
UNSAFE_MODULES = frozenset(sys.stdlib_module_names)
"""The standard library: a ``py:`` target in it (named, or a callable defined there and re-exported elsewhere) is
refused unless the spec says ``?unsafe=1``. Much of it runs processes or shells (``subprocess``, ``os``), evaluates
code (``builtins.eval``, ``timeit.main``, ``runpy``) or reads and writes files named by its argument
(``tarfile.main``), and every corpus text would reach it; none of it scores sentiment."""


def _unsafe_home(module_name: str, func: object) -> str | None:
    """The standard-library module (:data:`UNSAFE_MODULES`) the target belongs to, else None."""
    for name in (module_name, getattr(func, "__module__", None) or ""):
        top = name.split(".")[0]
        if top in UNSAFE_MODULES or top.lstrip("_") in UNSAFE_MODULES:
            return name
    return None


def _outside_project(path: Path) -> bool:
    roots = {Path(p).resolve() for key in ("stdlib", "platstdlib", "purelib", "platlib")
             if (p := sysconfig.get_paths().get(key))}
    return any(root in path.parents for root in roots)


def _module_file(module: types.ModuleType) -> Path | None:
    file = getattr(module, "__file__", None)
    return Path(file).resolve() if file and file.endswith(".py") else None


def source_digest(module: types.ModuleType) -> str:
    """A digest of ``module``'s source and of the project modules it reaches through its globals (see the module
    docstring for the project folder)."""
    file = _module_file(module)
    if file is None:
        return ""
    top = sys.modules.get(module.__name__.split(".")[0])
    top_file = _module_file(top) if top is not None else None
    root = (top_file.parent if top_file is not None and top_file.name == "__init__.py" and top is not module
            else file.parent)
    seen: dict[str, bytes] = {}
    todo = [module]
    while todo:
        current = todo.pop()
        path = _module_file(current)
        if path is None or str(path) in seen or (current is not module and (root not in path.parents
                                                                               or _outside_project(path))):
            continue
        seen[str(path)] = path.read_bytes()
        for value in vars(current).values():
            owner = value if isinstance(value, types.ModuleType) else sys.modules.get(getattr(value, "__module__", "")
                                                                                       or "")
            if isinstance(owner, types.ModuleType):
                todo.append(owner)
    return digest(*(f"{Path(p).relative_to(root) if root in Path(p).parents else Path(p).name}:{src!r}"
                    for p, src in sorted(seen.items())))


@scheme("py:", patterns={"py:<module>:<callable>": ()})
class PyCallableModel(SentimentModel):
    def __init__(self, spec: str) -> None:
        _, _, body = spec.partition(":")
        target, _, query = body.partition("?")
        module_name, sep, attr = target.partition(":")
        if not (module_name and sep and attr):
            raise ModelSpecError(f"model spec {spec!r} is not of the form 'py:<module>:<callable>'.",
                                 fix="e.g. 'py:mypackage.scorers:score' for a function list[str] -> scores.")
        options = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise ModelSpecError(f"unknown option {unknown[0]!r} in model spec {spec!r}; available: "
                                 f"{', '.join(_OPTIONS)}.", fix="e.g. py:mod:fn?version=2.")
        try:
            module = importlib.import_module(module_name)
        except SystemExit as exc:
            raise ModelSpecError(f"importing {module_name!r} for model spec {spec!r} called sys.exit({exc.code!r}).",
                                 fix="guard the module's script code with if __name__ == '__main__':.") from None
        except ImportError as exc:
            raise ModelSpecError(f"cannot import module {module_name!r} for model spec {spec!r}: {exc}.",
                                 fix="make the module importable (install it, or add its folder to sys.path).") from exc
        func = module
        for part in attr.split("."):
            func = getattr(func, part, None)
            if func is None:
                raise ModelSpecError(f"module {module_name!r} has no attribute {attr!r} (model spec {spec!r}).",
                                     fix="check the callable's name after the second ':'.")
        if not callable(func):
            raise ModelSpecError(f"{attr!r} in {module_name!r} is not callable.", fix="point at a function.")
        home = _unsafe_home(module_name, func)
        if home is not None and options.get("unsafe", "0").lower() not in ("1", "true", "yes"):
            raise ModelSpecError(f"model spec {spec!r} points into the standard library ({home!r}), which can run "
                                 "processes, shell commands or code, or read and write files: every text scored "
                                 "would reach it.", fix=f"point at your own scoring function, or, if you mean it, add "
                                                  f"?unsafe=1 ({spec.split('?')[0]}?unsafe=1).")
        try:
            inspect.signature(func).bind(["text"])
        except TypeError:
            raise ModelSpecError(f"{spec!r} cannot be called with one argument, a list of texts (its signature: "
                                 f"{inspect.signature(func)}).",
                                 fix="point at a function list[str] -> scores in [0, 1].") from None
        except ValueError:  # no signature to inspect (some builtins): checked when called
            pass
        self.spec = spec
        self._func = func
        self.fork_safe = bool(getattr(func, "fork_safe", False))
        self.task = str(getattr(func, "task", "valence"))
        if self.task not in TASKS:
            raise ModelSpecError(f"{spec} declares the task {self.task!r}; available: {', '.join(TASKS)}.",
                                 fix="set the callable's task attribute to one of the listed tasks.")
        own = getattr(func, "fingerprint", None)
        if own is not None:
            covered = ("attribute", str(own))
        else:
            code = getattr(func, "__code__", None)
            own_code = marshal.dumps(code) if module.__name__ == "__main__" and code is not None else b""
            covered = ("source", source_digest(module), own_code)
        self._fingerprint = digest("py", target, options.get("version", ""), covered, self.task)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def predict(self, texts: list[str]) -> Predictions:
        try:
            out = self._func(list(texts))
        except ToolkitError:
            raise
        except SystemExit as exc:  # sys.exit() inside a model must not end the run as if it had succeeded
            raise ModelOutputError(f"{self.spec} called sys.exit({exc.code!r}) instead of returning scores.",
                                   fix="return one score per text; raise an exception to signal a failure.") from None
        except Exception as exc:
            raise ModelOutputError(f"{self.spec} raised {type(exc).__name__}: {exc}",
                                   fix="fix the function (it is called with a list of texts).") from exc
        if out is None or isinstance(out, (Mapping, str, bytes)) or np.ndim(out) == 0:
            kind = "None" if out is None else type(out).__name__
            raise ModelOutputError(f"{self.spec} returned {kind}, not a sequence of scores.",
                                   fix="return a list (or array) of floats, one per input text, in order.")
        try:
            raw = np.asarray(list(out), dtype=float).reshape(-1)
        except (TypeError, ValueError) as exc:
            raise ModelOutputError(f"{self.spec} returned values that are not numbers: {exc}.",
                                   fix="return one float in [0, 1] per text.") from None
        if raw.shape[0] != len(texts):
            raise ModelOutputError(f"{self.spec} returned {raw.shape[0]} scores for {len(texts)} texts.",
                                   fix="return exactly one score per input text, in order.")
        nan = np.isnan(raw)
        if nan.any():
            raise ModelOutputError(f"{self.spec} returned NaN in {int(nan.sum())} of {len(raw)} scores.",
                                   fix="return a number in [0, 1] for every text (0.5 for no opinion).")
        raw = valence.clip_unit(raw)  # float rounding (1 + 1e-12) is clipped, within valence.UNIT_TOLERANCE
        if not np.isfinite(raw).all() or (raw < 0).any() or (raw > 1).any():
            raise ModelOutputError(f"{self.spec} returned scores outside [0, 1] ({valence.describe_range(raw)}; "
                                   f"up to {valence.UNIT_TOLERANCE:g} outside is clipped as float rounding).",
                                   fix="return valences in [0, 1], higher = positive.")
        score, label = valence.from_unit_scores(raw)
        return Predictions(score, label, np.zeros(len(texts), dtype=bool))
