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
  ``__main__`` (``py:__main__:fn``) also hashes its own code (:func:`code_digest`: not its file name or line numbers,
  which change with each kernel), and the plain values (numbers, strings) and notebook functions it reads.

Not covered: data files, model weights or settings it reads at run time, installed packages it uses (their
versions), environment variables, randomness, and the objects a notebook function reads from the notebook (a
trained classifier, a dict: warned about when wrapped). When any of those change, pass ``?version=…`` (or set
``callable.fingerprint``).

A function object is wrapped by :meth:`PyCallableModel.from_callable` (:func:`toolkit.models.wrap`): one reachable
as ``<module>.<name>`` gets the fingerprint of the spec ``py:<module>:<name>``; a lambda or nested function also
hashes its own code; a callable object, bound method or ``functools.partial`` also hashes its state (pickled).

The score is a valence unless the callable declares another task as an attribute (``fn.task = "anger"``: an
emotion intensity, one of :data:`toolkit.cases.TASKS`). A CPU-bound callable that is safe to run in forked
processes (no threads, GPU or open connections) may set ``fn.fork_safe = True``: the engine then spreads it over
every core (:func:`toolkit.executors.for_model`).
"""
from __future__ import annotations

import difflib
import functools
import hashlib
import importlib
import inspect
import pickle
import sys
import sysconfig
import types
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np

from toolkit.cases import TASKS
from toolkit.errors import ModelOutputError, ModelSpecError, ToolkitError, warn
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


_PLAIN = (int, float, complex, str, bytes, bool, type(None))


def _const(value: object) -> object:
    """A code constant as the digest sees it: nested code by its own parts, a frozenset in sorted order (its repr
    follows string hashing, which changes per process)."""
    if isinstance(value, types.CodeType):
        return _code_parts(value)
    if isinstance(value, (frozenset, set)):
        return ("frozenset", sorted(repr(_const(v)) for v in value))
    if isinstance(value, tuple):
        return tuple(_const(v) for v in value)
    return repr(value)


def _code_parts(code: types.CodeType) -> tuple:
    """What a code object computes: bytecode, constants, names and argument layout; not its file name, line numbers
    or positions."""
    return (code.co_name, code.co_code, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
            code.co_flags, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
            getattr(code, "co_exceptiontable", b""), tuple(_const(c) for c in code.co_consts))


def _names_read(code: types.CodeType) -> set[str]:
    """The global names ``code`` and the functions nested in it may read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_read(const)
    return names


def _value_part(name: str, value: object, home: dict, seen: set[int], uncovered: list[str]) -> object:
    """A value a function reads (a global, a closure cell, a default) as the digest sees it: plain values by repr,
    functions of the same namespace by their code, modules, classes and other functions by name; anything else by
    its type only, its name added to ``uncovered``."""
    if isinstance(value, _PLAIN):
        return repr(value)
    if isinstance(value, (tuple, frozenset)) and all(isinstance(v, _PLAIN) for v in value):
        return _const(value)
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}"
    if isinstance(value, types.FunctionType) and value.__globals__ is home:
        return _function_parts(value, home, seen, uncovered)
    if isinstance(value, type) and _namespace(value) is home:
        return _class_parts(value, home, seen, uncovered)
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type, np.ufunc)):
        return f"{type(value).__name__}:{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', name)}"
    uncovered.append(f"{name} ({type(value).__name__})")
    return f"object:{type(value).__module__}.{type(value).__qualname__}"


def _function_parts(func: types.FunctionType, home: dict, seen: set[int], uncovered: list[str]) -> object:
    if id(func) in seen:
        return f"seen:{func.__qualname__}"
    seen.add(id(func))
    code = func.__code__
    cells = [(n, c.cell_contents if _filled(c) else "<empty>")
             for n, c in zip(code.co_freevars, func.__closure__ or (), strict=False)]
    defaults = list(func.__defaults__ or ()) + sorted((func.__kwdefaults__ or {}).items())
    builtins = home.get("__builtins__")
    builtin_names = set(vars(builtins) if isinstance(builtins, types.ModuleType) else builtins or ())
    reads = sorted(n for n in _names_read(code) if n in home and n not in builtin_names)
    return (_code_parts(code),
            [(n, _value_part(n, v, home, seen, uncovered)) for n, v in cells],
            [_value_part(f"default {i}", v, home, seen, uncovered) for i, v in enumerate(defaults)],
            [(n, _value_part(n, home[n], home, seen, uncovered)) for n in reads])


def _namespace(cls: type) -> dict | None:
    """The globals of the module ``cls`` was defined in (None when that module is gone)."""
    module = sys.modules.get(cls.__module__)
    return vars(module) if module is not None else None


def _class_parts(cls: type, home: dict, seen: set[int], uncovered: list[str]) -> object:
    """A class of the function's own namespace: its methods' code and plain class attributes, and its bases."""
    if id(cls) in seen:
        return f"seen:{cls.__qualname__}"
    seen.add(id(cls))
    members = []
    for name, value in sorted(vars(cls).items()):
        inner = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
        inner = inner.fget if isinstance(inner, property) else inner
        if isinstance(inner, (types.FunctionType, *_PLAIN)):
            members.append((name, _value_part(name, inner, home, seen, uncovered)))
    return (cls.__qualname__, members, [_value_part(b.__name__, b, home, seen, uncovered) for b in cls.__bases__])


def _filled(cell: types.CellType) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:
        return False
    return True


def code_digest(func: types.FunctionType | type) -> tuple[str, list[str]]:
    """A digest of what ``func`` computes that the same code reproduces in a new process or kernel: its bytecode,
    constants and argument layout (nested functions and lambdas alike), and the values it reads through its
    closure, defaults and globals where they are plain (numbers, strings, tuples of them) or functions of the same
    namespace (digested alike); not its file name or line numbers (a notebook cell's file name changes with each
    kernel). A class (a callable object's) is digested by its methods. Returns the digest and the names it reads
    whose value is another object (``clf (Pipeline)``): their contents are not covered."""
    uncovered: list[str] = []
    if isinstance(func, type):
        parts = _class_parts(func, _namespace(func) or {}, set(), uncovered)
    else:
        parts = _function_parts(func, func.__globals__, set(), uncovered)
    return digest("code", parts), list(dict.fromkeys(uncovered))


def state_digest(obj: object, *, spec: str) -> str:
    """A digest of an object's state (its pickle; through ``joblib.hash`` where installed, which orders dicts and
    sets and hashes arrays by content); an instance whose class cannot be pickled (defined inside a function) by its
    attributes. One that cannot be hashed either way is TK201 naming the ``fingerprint`` attribute as the fix."""
    try:
        return _pickle_digest(obj)
    except Exception as exc:  # pickling raises many kinds
        if not isinstance(getattr(obj, "__dict__", None), dict) or isinstance(obj, type):
            raise _unpicklable(obj, spec, exc) from exc
        try:  # an instance of a class pickle cannot find (defined in a function): its attributes
            return _pickle_digest(("attributes", vars(obj)))
        except Exception as inner:
            raise _unpicklable(obj, spec, inner) from inner


def _pickle_digest(obj: object) -> str:
    try:
        import joblib
    except ImportError:
        return hashlib.sha256(pickle.dumps(obj, protocol=4)).hexdigest()[:32]
    return joblib.hash(obj)


def _unpicklable(obj: object, spec: str, exc: Exception) -> ModelSpecError:
    return ModelSpecError(f"{spec}: the state of the {type(obj).__name__} object cannot be hashed for the score cache "
                          f"({type(exc).__name__}: {str(exc)[:200]}).",
                          fix="give it a fingerprint attribute that changes whenever its scores would "
                              "(obj.fingerprint = 'my-model-v1').")


def importable_name(obj: object) -> tuple[str, str | None]:
    """``obj``'s module name and the name it is reachable by in that module (its qualified name, else a module
    global bound to it), or None when it is not (a lambda kept in a list, a nested function)."""
    module_name = getattr(obj, "__module__", None) or type(obj).__module__
    module = sys.modules.get(module_name)
    if module is None:
        return module_name, None
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(qualname, str) and "<" not in qualname:
        found: object = module
        for part in qualname.split("."):
            found = getattr(found, part, None)
        if found is obj:
            return module_name, qualname
    bound = sorted(n for n, v in vars(module).items() if v is obj and not n.startswith("_"))
    return module_name, (bound[0] if bound else None)


def _code_and_state(func: object, *, spec: str) -> tuple[object, str]:
    """The function whose code a callable runs and a digest of the state it carries: none for a function; the bound
    object for a method; the arguments for a ``functools.partial``; the object itself for a callable instance."""
    if isinstance(func, types.FunctionType):
        return func, ""
    if isinstance(func, types.MethodType):
        return func.__func__, state_digest(func.__self__, spec=spec)
    if isinstance(func, functools.partial):
        inner, state = _code_and_state(func.func, spec=spec)
        return inner, digest(state, state_digest((func.args, func.keywords), spec=spec))
    if isinstance(func, types.BuiltinFunctionType):
        return func, ""
    return type(func), state_digest(func, spec=spec)


def _is_number(value: str | bytes) -> bool:
    """Whether a string spells a number ("0.5"), so that its fix says "return floats", not "labels are not scores"."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _scalar(out: object) -> bool:
    """Whether a model's output is one value (a number, a 0-d array, a generator numpy cannot size); ragged rows
    are a sequence (:meth:`PyCallableModel.predict` names them)."""
    try:
        return np.ndim(out) == 0
    except ValueError:  # numpy refuses ragged nested lists
        return False


@scheme("py:", patterns={"py:<module>:<callable>": ()})
class PyCallableModel(SentimentModel):
    def __init__(self, spec: str) -> None:
        _, _, body = spec.partition(":")
        target, _, query = body.partition("?")
        module_name, sep, attr = target.partition(":")
        if not (module_name and sep and attr):
            raise ModelSpecError(f"model spec {spec!r} is not of the form 'py:<module>:<callable>'.",
                                 fix="e.g. 'py:mypackage.scorers:score' for a function list[str] -> scores.")
        if not all(part.isidentifier() for part in module_name.split(".")):
            pathlike = "/" in module_name or "\\" in module_name or module_name.endswith(".py")
            raise ModelSpecError(
                f"model spec {spec!r} names the module {module_name!r}, which is not a module name (dotted Python "
                "names, as in an import statement)" + ("; it reads as a file path" if pathlike else "") + ".",
                fix="put the module's folder on sys.path (PYTHONPATH) and write its import name, e.g. "
                    "'py:myscorers:score' for myscorers.py; a relative name ('.mod') is not accepted.")
        if not all(part.isidentifier() for part in attr.split(".")):
            raise ModelSpecError(f"model spec {spec!r} names the callable {attr!r}, which is not a Python name.",
                                 fix="write the function's (or class's) name after the second ':', e.g. "
                                     "'py:myscorers:score'.")
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
            owner, func = func, getattr(func, part, None)
            if func is None:
                near = difflib.get_close_matches(part, [n for n in dir(owner) if not n.startswith("_")], n=1,
                                                 cutoff=0.75)
                raise ModelSpecError(f"module {module_name!r} has no attribute {attr!r} (model spec {spec!r}).",
                                     fix=(f"did you mean {near[0]!r}? " if near else "")
                                     + "Check the callable's name after the second ':'.")
        if not callable(func):
            raise ModelSpecError(f"{attr!r} in {module_name!r} is not callable.", fix="point at a function.")
        home = _unsafe_home(module_name, func)
        if home is not None and options.get("unsafe", "0").lower() not in ("1", "true", "yes"):
            raise ModelSpecError(f"model spec {spec!r} points into the standard library ({home!r}), which can run "
                                 "processes, shell commands or code, or read and write files: every text scored "
                                 "would reach it.", fix=f"point at your own scoring function, or, if you mean it, add "
                                                  f"?unsafe=1 ({spec.split('?')[0]}?unsafe=1).")
        self._adopt(func, spec=spec, target=target, module=module, version=options.get("version", ""),
                    own_code=module.__name__ == "__main__")

    @classmethod
    def from_callable(cls, func: object, *, spec: str, version: str = "", unsafe: bool = False) -> PyCallableModel:
        """The model over a callable object ``func`` (``list[str] -> scores``), labelled ``spec``: the checks,
        output checks, task and fingerprint of a ``py:`` spec. A function reachable as ``<module>.<name>`` gets the
        fingerprint of ``py:<module>:<name>``; one that is not (a lambda in a list, a nested function) also hashes
        its own code (:func:`code_digest`); a callable object, bound method or ``functools.partial`` also hashes its
        state (:func:`state_digest`). A standard-library callable is refused unless ``unsafe``."""
        if not callable(func):
            raise ModelSpecError(f"{spec}: a {type(func).__name__} is not callable.",
                                 fix="pass a function list[str] -> scores in [0, 1] (or a spec string).")
        code_of, state = _code_and_state(func, spec=spec)  # what runs: a partial's function, a method's, a class
        home = _unsafe_home(getattr(code_of, "__module__", None) or "", code_of)
        if home is not None and not unsafe:
            raise ModelSpecError(f"{spec}: the callable comes from the standard library ({home!r}), which can run "
                                 "processes, shell commands or code, or read and write files: every text scored "
                                 "would reach it.", fix="pass your own scoring function, or, if you mean it, "
                                                        "wrap(fn, unsafe=True).")
        module_name, name = importable_name(func)
        module = sys.modules.get(module_name)
        if module is not None and getattr(code_of, "__globals__", vars(module)) is not vars(module):
            module = None  # defined in a namespace of its own (exec'd code): its own code is all there is
        self = cls.__new__(cls)
        self._adopt(func, spec=spec, target=f"{module_name}:{name or getattr(func, '__qualname__', '')}",
                    module=module, version=version, own_code=name is None or module is None
                    or module_name == "__main__", state=state, code_of=code_of)
        return self

    def _adopt(self, func: object, *, spec: str, target: str, module: types.ModuleType | None, version: str,
               own_code: bool, state: str = "", code_of: object = None) -> None:
        """The checks and fingerprint shared by a spec and an object: one argument, the task, ``fork_safe``; the
        fingerprint over ``target``, ``version`` and the callable's ``fingerprint`` attribute or else its module's
        source, its own code (``own_code``: of ``code_of``, default ``func``) and its ``state``."""
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
            covered: tuple = ("attribute", str(own))
        else:
            code_of = func if code_of is None else code_of
            own_digest = b""
            if own_code and isinstance(code_of, (types.FunctionType, type)):
                code, uncovered = code_digest(code_of)
                own_digest = code.encode()
                if uncovered and not version:
                    warn(f"{spec} reads {', '.join(uncovered)} from its namespace; the score cache's fingerprint "
                         "covers the function's code and plain values, not the contents of such objects: when they "
                         "change (a retrained classifier), cached scores would be reused; pass version= (or set "
                         "fn.fingerprint) when they do.")
            covered = ("source", source_digest(module) if module is not None else "", own_digest)
            if state:
                covered += (state,)
        self._fingerprint = digest("py", target, version, covered, self.task)

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
        if out is None or isinstance(out, (Mapping, str, bytes)) or _scalar(out):
            kind = "None" if out is None else type(out).__name__
            raise ModelOutputError(f"{self.spec} returned {kind}, not a sequence of scores.",
                                   fix="return a list (or array) of floats, one per input text, in order.")
        if getattr(out, "ndim", 1) == 2 and hasattr(out, "to_numpy"):  # a DataFrame: its rows, not its columns
            out = out.to_numpy()
        values = list(out)
        nested = [item for v in values if isinstance(v, (list, tuple)) for item in v]
        mappings = [v for v in (*values, *nested) if isinstance(v, Mapping)]
        if mappings:  # a pipeline's [{label, score}] per text, or a list of them per text (top_k=None)
            raise ModelOutputError(f"{self.spec} returned dicts (e.g. {mappings[0]!r}) rather than one score per "
                                   "text, as a transformers pipeline does.",
                                   fix="pass the pipeline itself (toolkit.models.wrap(pipe)), or return each text's "
                                       "probability of the positive class as a float.")
        try:
            shape = np.shape(values)  # an array's rows, or a list of rows
        except ValueError:  # numpy refuses ragged rows
            lengths = sorted({len(v) for v in values if np.ndim(v) == 1})
            raise ModelOutputError(f"{self.spec} returned rows of different lengths ({', '.join(map(str, lengths))}) "
                                   "rather than one score per text.",
                                   fix="return one float in [0, 1] per text.") from None
        if len(shape) == 2 and shape[0] == len(texts) and shape[1] > 1:
            raise ModelOutputError(f"{self.spec} returned {'an array' if isinstance(out, np.ndarray) else 'rows'} "
                                   f"of shape {shape}, one row per text: class probabilities rather than one score "
                                   "per text.",
                                   fix="return the positive class's column (e.g. predict_proba(texts)[:, 1]), or "
                                       "pass the classifier itself (toolkit.models.wrap(clf)).")
        try:
            flat = np.asarray(values, dtype=object).reshape(-1)  # nested lists too ([["0.5"]] per text)
            strings = [v for v in flat if isinstance(v, (str, bytes, np.str_, np.bytes_))]
            if strings:  # numpy would read "0.5" as 0.5: a string is not a score, whatever it spells
                first = strings[0].item() if isinstance(strings[0], np.generic) else strings[0]
                raise ValueError(f"{len(strings)} of {len(values)} are strings, e.g. {first!r}")
            raw = np.asarray(values, dtype=float).reshape(-1)
        except (TypeError, ValueError) as exc:
            words = [v for v in values[:len(texts)] if isinstance(v, (str, bytes, np.str_))
                     and not _is_number(v)]
            raise ModelOutputError(f"{self.spec} returned values that are not numbers: {exc}.",
                                   fix="return one float in [0, 1] per text" + (
                                       f" (labels such as {words[0]!r} are not scores: return the probability of "
                                       "the positive class, or 1.0 / 0.0 per label)." if words else ".")) from None
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
