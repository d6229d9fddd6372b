"""Execute the numbered notebooks with papermill: ``python -m toolkit.notebooks [options] [NAME …]`` (``make figures``).

Options: ``--task TASK`` (the EEC task of notebook 01: valence, anger, fear, joy, sadness, or ``all`` for the five),
``--preset NAME`` (figure preset, exported as ``TOOLKIT_FIGURE_PRESET`` to the kernels; :mod:`toolkit.plots` reads
it), ``-p NAME=VALUE`` (any parameter; VALUE is read as a Python literal — ``20``, ``False``, ``None``,
``["vader","afinn"]`` — else kept as text), ``--list`` (each notebook's parameters). NAME picks notebooks by file name,
stem, number or short name (``01_eec.ipynb``, ``01_eec``, ``01``, ``eec``); none: all. A parameter is injected only into
the chosen notebooks whose ``parameters`` cell defines it (:func:`papermill.inspect_notebook`); a parameter no chosen
notebook defines, an unknown notebook, task or preset is a coded error listing the valid names, before anything runs.

``--from-make`` (what ``make figures`` runs) adds the options
``make figures TASK=… PRESET=… NOTEBOOKS=… PARAMS=… TITLES=…`` passed in the environment (:data:`MAKE_ENV`; :func:`make_arguments`): PARAMS and NOTEBOOKS split at whitespace, no
value ever read by a shell, so a ``'`` or ``$(…)`` in a value is kept as written and runs nothing.

Executed copies land in ``data/executed/`` (gitignored); the notebooks write their figures to ``figures/``.
The test suite calls :func:`execute` with small parameters.

Run hygiene (docs/outputs.md): after the run, only the figures *this* run wrote are listed, each with the preset it
was drawn for (:func:`toolkit.outputs.runs.figures_written`), and the older figures of the folder by name; before it,
a tracked notebook whose code or parameters differ from git's HEAD is named, since the run executes the edited file
(:func:`changed_from_head`; outputs a JupyterLab save wrote are not a change). Outputs never go into git: ``--strip``
is a git clean filter (reads a notebook on stdin, writes it without outputs, execution counts, widget state or the
kernel's version; :func:`strip`), which ``make venv`` sets up (``--install-filter``, :func:`install_filter`) for
``.gitattributes``' line ``notebooks/*.ipynb filter=nbstrip``; ``--check`` lists the tracked notebooks whose
committed version carries outputs (:func:`committed_with_outputs`) and exits 1 when there is one.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolkit import paths, studies
from toolkit.cases import TASKS
from toolkit.checks import options_given_once
from toolkit.errors import InputError, ToolkitError, UnknownNameError, redact, unknown

EEC_TASKS: tuple[str, ...] = (*TASKS, "all")
"""Values of ``--task``: notebook 01's ``TASK`` (``all``: the trained zoo on the five tasks)."""
FIGURE_PRESETS: tuple[str, ...] = ("acl-single", "acl-double", "acm-single", "acm-double")
"""Values of ``--preset`` unless :mod:`toolkit.plots` lists its own (``plots.PRESETS``)."""
PRESET_ENV = "TOOLKIT_FIGURE_PRESET"
MAKE_ENV = {"TASK": "TOOLKIT_MAKE_TASK", "PRESET": "TOOLKIT_MAKE_PRESET", "NOTEBOOKS": "TOOLKIT_MAKE_NOTEBOOKS",
            "PARAMS": "TOOLKIT_MAKE_PARAMS", "TITLES": "TOOLKIT_MAKE_TITLES"}
"""The environment variables the Makefile's ``figures`` target exports its variables in (unexpanded)."""


def notebooks_dir() -> Path:
    return paths.project_root() / "notebooks"


def available(folder: str | Path | None = None) -> dict[str, Path]:
    """The numbered notebooks (``NN_name.ipynb``) of ``folder`` (default ``notebooks/``), keyed by file name."""
    folder = Path(folder) if folder is not None else notebooks_dir()
    return {p.name: p for p in sorted(folder.glob("[0-9][0-9]_*.ipynb"))}


def resolve(names: Sequence[str], *, folder: str | Path | None = None) -> list[Path]:
    """The notebooks ``names`` name (file name, stem, number ``01`` or short name ``eec`` of a notebook in ``folder``,
    default ``notebooks/``; or the path of any ``.ipynb`` file), in the order given; none: every numbered notebook. An unknown name is a coded error (TK103) listing the notebooks."""
    found = available(folder)
    if not names:
        return list(found.values())
    aliases: dict[str, Path] = {}
    for name, path in found.items():
        number, _, short = path.stem.partition("_")
        for alias in (name, path.stem, number, short):
            aliases.setdefault(alias, path)
    chosen = []
    for name in names:
        if name.endswith(".ipynb") and Path(name).is_file():  # a path to a notebook of its own
            chosen.append(Path(name))
            continue
        if name not in aliases:
            raise unknown("notebook", name, list(found) or [f"(none: {folder or notebooks_dir()} has no NN_*.ipynb)"])
        chosen.append(aliases[name])
    return list(dict.fromkeys(chosen))


def parameters_of(notebook: str | Path) -> dict[str, str]:
    """The names a notebook's ``parameters`` cell defines, with their default as written there."""
    import papermill

    return {name: info["default"] for name, info in papermill.inspect_notebook(str(notebook)).items()}


def parse_assignment(text: str, *, source: str = "-p") -> tuple[str, Any]:
    """``NAME=VALUE`` → (NAME, value): VALUE as a Python literal (``20``, ``False``, ``None``, ``["a","b"]``), else the
    text itself (``all``, ``acl-single``, ``../data/x.csv``). ``source`` is where the text came from (``-p`` or
    ``PARAMS``, make figures' variable), so a malformed one is named as the user wrote it."""
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier():
        if source == "PARAMS":
            raise InputError(f"make figures PARAMS holds {text!r}, which is not NAME=VALUE (PARAMS is split at "
                             "spaces, so a value with a space is cut in two).",
                             fix="write PARAMS='NAME=VALUE NAME=VALUE …' with no spaces inside a value, e.g. "
                                 "make figures PARAMS='N=20 MODELS=[\"vader\",\"afinn\"]'.")
        raise InputError(f"-p {text!r} is not NAME=VALUE.", fix="write -p NAME=VALUE, e.g. -p N=20 or "
                                                                 "-p MODELS='[\"vader\",\"afinn\"]'.")
    try:
        return name, ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        return name, raw


def figure_presets() -> tuple[str, ...]:
    """The figure presets ``--preset`` accepts: ``toolkit.plots.PRESETS`` when it exists, else
    :data:`FIGURE_PRESETS`."""
    from toolkit import plots  # defers matplotlib: the runner's options and --strip need no figures

    listed = getattr(plots, "PRESETS", None)
    return tuple(listed) if listed else FIGURE_PRESETS


def plan(notebooks: Sequence[str | Path], parameters: Mapping[str, Any]) -> dict[Path, dict[str, Any]]:
    """Which of ``parameters`` goes into which notebook: each gets those its ``parameters`` cell defines. A parameter
    that no notebook of ``notebooks`` defines is a coded error (TK103) listing the ones they define."""
    defined = {Path(nb): parameters_of(nb) for nb in notebooks}
    everything = {name for names in defined.values() for name in names}
    for name in parameters:
        if name not in everything:
            holders = ", ".join(p.stem for p in defined) or "none"
            raise UnknownNameError(
                f"no chosen notebook ({holders}) has a parameter {name!r}; their parameters: "
                f"{', '.join(sorted(everything)) or 'none'}.",
                fix="check the spelling (parameters are upper case, as in each notebook's parameters cell), or "
                    "choose a notebook that defines it; `python -m toolkit.notebooks --list` shows them all.")
    return {nb: {k: v for k, v in parameters.items() if k in names} for nb, names in defined.items()}


def execute(notebook: str | Path, *, parameters: dict | None = None, output_dir: str | Path | None = None,
            kernel_name: str = "python3", timeout: int = 1800) -> Path:
    """Run one notebook with ``parameters`` injected after its ``parameters`` cell; return the executed copy."""
    import papermill

    source = Path(notebook)
    if not source.exists():
        source = notebooks_dir() / source
    out_dir = Path(output_dir) if output_dir is not None else paths.data_dir() / "executed"
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / source.name
    try:
        papermill.execute_notebook(str(source), str(target), parameters=parameters or {}, kernel_name=kernel_name,
                                   cwd=str(source.parent), execution_timeout=timeout, progress_bar=False)
    finally:  # a failed run leaves its executed copy too
        redact_file(target)
    return target


def redact_notebook(notebook: Any) -> Any:
    """``notebook`` (nbformat JSON, or any part of it) with the credentials of every URL in its strings replaced
    (:func:`toolkit.errors.redact`): sources, outputs, tracebacks and papermill's record of the parameters."""
    if isinstance(notebook, str):
        return redact(notebook)
    if isinstance(notebook, list):
        return [redact_notebook(item) for item in notebook]
    if isinstance(notebook, dict):
        return {key: redact_notebook(value) for key, value in notebook.items()}
    return notebook


def redact_file(path: str | Path) -> bool:
    """Rewrite the executed notebook at ``path`` without URL credentials (:func:`redact_notebook`); whether it
    changed. A missing or unreadable file is left as it is."""
    path = Path(path)
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    clean = redact_notebook(notebook)
    if clean == notebook:
        return False
    path.write_text(dumps(clean), encoding="utf-8")
    return True


# --- run hygiene --------------------------------------------------------------------------------------------------

VOLATILE_CELL_METADATA = ("execution", "scrolled", "collapsed", "jupyter", "ExecuteTime", "papermill", "trusted")
"""Cell metadata a Jupyter front end or runner writes on its own (timings, view state): never stored in git."""
VOLATILE_METADATA = ("widgets", "language_info", "papermill", "toc", "varInspector")
"""Notebook metadata the kernel or an extension writes on a run or a save (the kernel's version, widget state):
never stored in git; the ``kernelspec`` stays."""


def strip(notebook: dict) -> dict:
    """A copy of ``notebook`` (nbformat JSON) without outputs, execution counts, widget state or what a front end
    writes on its own (:data:`VOLATILE_CELL_METADATA`, :data:`VOLATILE_METADATA`): what git holds, so a saved run
    of an unedited notebook strips to its committed bytes."""
    out = json.loads(json.dumps(notebook))
    for cell in out.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
        metadata = cell.get("metadata", {})
        for key in VOLATILE_CELL_METADATA:
            metadata.pop(key, None)
        if metadata.get("tags") == []:  # an emptied tag list is no tag
            metadata.pop("tags")
        if cell.get("cell_type") != "code":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
    for key in VOLATILE_METADATA:
        out.get("metadata", {}).pop(key, None)
    return out


def dumps(notebook: dict) -> str:
    """A notebook as JSON text the way Jupyter writes it (nbformat's writer: one-space indent, keys sorted, a cell's
    source as a list of lines, a final newline): a stripped notebook's bytes are what a JupyterLab save strips to."""
    out = json.loads(json.dumps(notebook))
    for cell in out.get("cells", []):
        if isinstance(cell.get("source"), str):
            cell["source"] = cell["source"].splitlines(True)
    for key in ("orig_nbformat", "orig_nbformat_minor", "signature"):
        out.get("metadata", {}).pop(key, None)
    return json.dumps(out, indent=1, sort_keys=True, ensure_ascii=False, separators=(",", ": ")) + "\n"


def has_outputs(notebook: dict) -> bool:
    """Whether any code cell of ``notebook`` carries outputs or an execution count."""
    return any(c.get("outputs") or c.get("execution_count") for c in notebook.get("cells", [])
               if c.get("cell_type") == "code")


def _git(*args: str, cwd: Path) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None


def _head_version(path: Path) -> dict | None:
    """The notebook at ``path`` as git's HEAD holds it; None when git, the repository or the file is not there."""
    done = _git("show", f"HEAD:./{path.name}", cwd=path.parent)
    if done is None or done.returncode != 0:
        return None
    try:
        return json.loads(done.stdout.decode("utf-8"))
    except ValueError:
        return None


def committed_with_outputs(folder: str | Path | None = None) -> list[str]:
    """The numbered notebooks of ``folder`` (default ``notebooks/``) whose version in git's HEAD carries outputs or
    execution counts (the working file when git does not know it)."""
    bad = []
    for path in available(folder).values():
        committed = _head_version(path)
        notebook = committed if committed is not None else json.loads(path.read_text(encoding="utf-8"))
        if has_outputs(notebook):
            bad.append(path.name)
    return bad


def changed_from_head(notebooks: Sequence[str | Path]) -> list[tuple[str, str]]:
    """``(file name, what differs)`` for each of ``notebooks`` whose file differs from git's HEAD: ``"outputs
    only"`` (JupyterLab saved a run into it: harmless for the run) or ``"code or parameters"`` (the run executes
    the edited cells). Notebooks git does not track, or no git, are skipped."""
    changed = []
    for notebook in notebooks:
        path = Path(notebook)
        committed = _head_version(path)
        if committed is None:
            continue
        try:
            current = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            changed.append((path.name, "unreadable"))
            continue
        if current == committed:
            continue
        changed.append((path.name, "outputs only" if strip(current) == strip(committed) else "code or parameters"))
    return changed


def warn_changed(notebooks: Sequence[str | Path], *, stream=None) -> list[tuple[str, str]]:
    """Print a warning for each notebook :func:`changed_from_head` finds with edited code or parameters (to
    ``stream``, default stderr) and return those; a notebook that differs in outputs only (a JupyterLab save of a
    run: git, through the clean filter, sees no change) is not named."""
    changed = [(name, what) for name, what in changed_from_head(notebooks) if what != "outputs only"]
    for name, what in changed:
        print(f"warning: notebooks/{name} differs from git's HEAD ({what}); this run executes the file as it is now"
              f" — see `git diff notebooks/{name}`, or `git checkout notebooks/{name}` to run the committed one.",
              file=stream or sys.stderr, flush=True)
    return changed


FILTER = "nbstrip"
"""The git filter ``.gitattributes`` names for ``notebooks/*.ipynb``."""
SAVE_HOOK_CONFIG = Path("etc") / "jupyter" / "jupyter_server_config.d" / "toolkit-notebooks.json"
"""Where, under the environment's prefix, :func:`install_filter` names :func:`post_save` as the Jupyter server's
post-save hook (JupyterLab started from that environment reads it)."""


def filter_command(python: str | Path | None = None, *, root: str | Path | None = None) -> str:
    """The clean filter's command line: ``python`` (default: this interpreter) ``-m toolkit.notebooks --strip``,
    the interpreter named relative to ``root`` (the project root) when it lies inside it, so that each checkout
    (a clone, a worktree) runs its own ``.venv``."""
    python = Path(python or sys.executable)
    root = Path(root) if root is not None else paths.project_root()
    try:
        shown = python.absolute().relative_to(root.absolute()).as_posix()
    except ValueError:
        shown = str(python.absolute())
    return f"{shown} -m toolkit.notebooks --strip"


def install_filter(*, root: str | Path | None = None, python: str | Path | None = None,
                   prefix: str | Path | None = None, stream=None) -> bool:
    """Keep notebook outputs out of git with no step from the user (``make venv`` calls this):

    - git's clean filter in the repository holding ``root`` (default: the project root): ``filter.nbstrip.clean`` =
      :func:`filter_command`, ``filter.nbstrip.smudge`` = ``cat``, so ``git diff`` and ``git add`` see a notebook
      without outputs;
    - the Jupyter server's post-save hook :func:`post_save`, named in ``<prefix>/``:data:`SAVE_HOOK_CONFIG`
      (``prefix``: default this environment's, when it is a virtual or conda environment), so that after a
      JupyterLab save of a run ``git status`` stays clean too (git reports a file whose size changed as modified
      without running the filter).

    Returns whether it changed anything; False, and nothing printed, outside a git checkout or without git."""
    root = Path(root) if root is not None else paths.project_root()
    inside = _git("rev-parse", "--is-inside-work-tree", cwd=root)
    if inside is None or inside.returncode != 0 or inside.stdout.strip() != b"true":
        return False
    wanted = {f"filter.{FILTER}.clean": filter_command(python, root=root), f"filter.{FILTER}.smudge": "cat"}
    changed = False
    for key, value in wanted.items():
        current = _git("config", "--get", key, cwd=root)
        if current is not None and current.returncode == 0 and current.stdout.decode("utf-8").strip() == value:
            continue
        done = _git("config", key, value, cwd=root)
        changed |= done is not None and done.returncode == 0
    if prefix is None and (sys.prefix != sys.base_prefix or os.environ.get("CONDA_PREFIX") == sys.prefix):
        prefix = sys.prefix
    if prefix is not None:
        config = Path(prefix) / SAVE_HOOK_CONFIG
        text = json.dumps({"FileContentsManager": {"post_save_hook": "toolkit.notebooks.post_save"}}, indent=1) + "\n"
        try:
            if not config.is_file() or config.read_text(encoding="utf-8") != text:
                config.parent.mkdir(parents=True, exist_ok=True)
                config.write_text(text, encoding="utf-8")
                changed = True
        except OSError:
            pass  # a read-only environment: git diff stays clean, git status may list a saved notebook
    if changed:
        print(f"git: notebooks/*.ipynb are stored without outputs (clean filter {FILTER}: "
              f"{wanted[f'filter.{FILTER}.clean']}; JupyterLab's saves keep git status clean)",
              file=stream or sys.stdout, flush=True)
    return changed


def post_save(*, model: Mapping[str, Any], os_path: str, contents_manager: Any = None, **_: Any) -> bool:
    """The Jupyter server's post-save hook: after a notebook is saved, when git's clean filter applies to it and
    its stripped content equals what git's index holds (a run's outputs saved, nothing edited), ``git add`` it:
    that stores the same stripped content and records the file's new size, so ``git status`` stays clean (git
    takes a file whose size changed for modified without running the filter). An edited notebook, an untracked
    one, or one without the filter is left alone. Returns whether it refreshed git's record."""
    if model.get("type") != "notebook":
        return False
    path = Path(os_path)
    folder = path.parent
    attribute = _git("check-attr", "filter", "--", path.name, cwd=folder)
    configured = _git("config", "--get", f"filter.{FILTER}.clean", cwd=folder)
    if attribute is None or not attribute.stdout.strip().endswith(f": {FILTER}".encode()) or configured is None \
            or configured.returncode != 0:
        return False
    staged = _git("show", f":./{path.name}", cwd=folder)
    if staged is None or staged.returncode != 0:
        return False
    try:
        stripped = dumps(strip(json.loads(path.read_text(encoding="utf-8"))))
    except (OSError, ValueError):
        return False
    if stripped.encode("utf-8") != staged.stdout:
        return False
    listing = _git("ls-files", "--debug", "--", path.name, cwd=folder)
    recorded = re.search(rb"size: (\d+)", listing.stdout) if listing is not None else None
    if recorded is not None and int(recorded.group(1)) == path.stat().st_size:
        return False  # same size: git status compares the content through the filter itself
    done = _git("add", "--", path.name, cwd=folder)
    return done is not None and done.returncode == 0


def _strip_stdin() -> int:
    """``--strip``: the git clean filter (stdin → stdout)."""
    text = sys.stdin.read()
    try:
        notebook = json.loads(text)
    except ValueError:
        sys.stdout.write(text)  # not JSON: pass it through for git to show
        return 0
    sys.stdout.write(dumps(strip(notebook)))
    return 0


def check_text(argv: Sequence[str]) -> None:
    """InputError (TK102) for an argument holding a byte that is not UTF-8 (read from the command line or make's
    variables as a lone surrogate), before anything runs: a notebook stores its parameters as UTF-8 text."""
    names = {value: name for name, value in MAKE_ENV.items()}
    for position, arg in enumerate(argv):
        bad = next((i for i, c in enumerate(arg) if 0xD800 <= ord(c) <= 0xDFFF), None)
        if bad is None:
            continue
        where = next((f"make figures {names[v]}" for v in MAKE_ENV.values() if arg in os.environ.get(v, "")),
                     f"argument {position + 1}")
        shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise InputError(f"{where} holds a byte that is not UTF-8 text ('{shown}', at character {bad + 1}).",
                         fix="write the value in UTF-8 (set the terminal's encoding to UTF-8, or spell the "
                             "character as it is meant, e.g. é rather than a Latin-1 byte).")


def make_arguments(environ: Mapping[str, str]) -> list[str]:
    """The command-line arguments ``make figures`` means, from its variables in ``environ`` (:data:`MAKE_ENV`):
    ``--task TASK``, ``--preset PRESET``, ``--titles TITLES``, ``-p NAME=VALUE`` per whitespace-separated PARAMS item,
    then the NOTEBOOKS
    names. Values are taken as written (no shell, no quoting rules)."""
    out: list[str] = []
    for name, option in (("TASK", "--task"), ("PRESET", "--preset"), ("TITLES", "--titles")):
        value = environ.get(MAKE_ENV[name], "").strip()
        if value:
            out += [option, value]
    for item in environ.get(MAKE_ENV["PARAMS"], "").split():
        out += ["--make-param", item]
    return out + environ.get(MAKE_ENV["NOTEBOOKS"], "").split()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m toolkit.notebooks", description="Execute the numbered notebooks (make figures).",
        epilog="Examples: `--task all 01`, `--preset acl-single`, `-p MODELS='[\"vader\",\"afinn\"]' -p CACHE=False "
               "02 04`. A parameter goes only into the notebooks that define it.")
    parser.add_argument("notebooks", nargs="*", metavar="NAME",
                        help="notebooks to run: 01_eec.ipynb, 01_eec, 01 or eec (default: all)")
    parser.add_argument("--task", help=f"EEC task of notebook 01 (TASK): {', '.join(EEC_TASKS)}")
    parser.add_argument("--preset", help=f"figure preset, exported as {PRESET_ENV}: "
                                         f"{', '.join(FIGURE_PRESETS)}")
    parser.add_argument("--titles", help="on (default), off: save the figures without their titles (the caption "
                                         "says them; their words go in each file's metadata), or caption: also "
                                         "without their notes, both written to <stem>.caption.txt; exported as "
                                         "TOOLKIT_FIGURE_TITLES (toolkit.plots.figure_titles)")
    parser.add_argument("-p", "--parameter", action="append", default=[], metavar="NAME=VALUE",
                        help="any parameter of the notebooks' parameters cells (repeatable)")
    parser.add_argument("--dir", help="the folder of numbered notebooks (default notebooks/)")
    parser.add_argument("--output-dir", help="where the executed copies go (default data/executed/)")
    parser.add_argument("--list", action="store_true", help="list the chosen notebooks' parameters and exit")
    parser.add_argument("--strip", action="store_true",
                        help="git clean filter: read a notebook on stdin, write it without outputs (docs/outputs.md)")
    parser.add_argument("--install-filter", action="store_true",
                        help="set up the git clean filter that keeps outputs out of git (make venv runs it)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a tracked notebook's committed version carries outputs")
    parser.add_argument("--make-param", action="append", default=[], help=argparse.SUPPRESS)  # PARAMS' items
    parser.add_argument("--from-make", action="store_true",
                        help=f"also read make figures' variables from the environment ({', '.join(MAKE_ENV.values())})")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(argv if argv is not None else sys.argv[1:])
    if "--strip" in argv:
        return _strip_stdin()
    if "--install-filter" in argv:
        install_filter()
        return 0
    if "--from-make" in argv:
        argv += make_arguments(os.environ)
    parser = _parser()
    options_given_once(parser)
    try:
        args = parser.parse_args(argv)
        check_text(argv)
        chosen = resolve(args.notebooks, folder=args.dir)
        if args.check:
            bad = committed_with_outputs(args.dir)
            for name in bad:
                print(f"notebooks/{name}: committed with outputs; strip them (docs/outputs.md: the nbstrip filter)")
            return 1 if bad else 0
        if args.list:
            for notebook in chosen:
                print(notebook.name)
                for name, default in parameters_of(notebook).items():
                    print(f"  {name} = {default}")
            return 0
        parameters: dict[str, Any] = {}
        for text, source in [*((p, "-p") for p in args.parameter), *((p, "PARAMS") for p in args.make_param)]:
            name, value = parse_assignment(text, source=source)
            if name in parameters:
                raise InputError(f"the parameter {name} was given twice ({name}={parameters[name]!r} and "
                                 f"{name}={value!r}); one value would silently replace the other.",
                                 fix=f"give {name} once (in PARAMS or with -p, not both).")
            parameters[name] = value
        if args.task is not None:
            if args.task not in EEC_TASKS:
                raise unknown("EEC task", args.task, EEC_TASKS)
            if "TASK" in parameters:
                raise InputError(f"TASK was given twice (--task/TASK={args.task!r} and as a parameter, "
                                 f"TASK={parameters['TASK']!r}); one value would silently replace the other.",
                                 fix="give TASK once.")
            parameters["TASK"] = args.task
        if args.preset is not None:
            if args.preset not in figure_presets():
                raise unknown("figure preset", args.preset, figure_presets())
            os.environ[PRESET_ENV] = args.preset  # the kernels papermill starts inherit it
        if args.titles is not None:
            from toolkit.plots.io import TITLES, TITLES_ENV  # defers matplotlib: --strip and --list need no figures

            if args.titles not in TITLES:
                raise unknown("titles setting", args.titles, TITLES)
            os.environ[TITLES_ENV] = args.titles
        injected = plan(chosen, parameters)
    except ToolkitError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if os.environ.get(PRESET_ENV):
        print(f"figure preset: {os.environ[PRESET_ENV]}")
    titles = os.environ.get("TOOLKIT_FIGURE_TITLES", "").strip().lower()
    if titles == "off":
        print("figure titles: off (their words are in each file's Title metadata)")
    elif titles == "caption":
        print("figure titles and notes: in each figure's <stem>.caption.txt (and the titles in its Title metadata)")
    warn_changed(list(injected))
    started = time.time()
    for notebook, values in injected.items():
        shown = ", ".join(f"{k}={v!r}" for k, v in values.items())
        print(redact(f"executing {notebook.name}" + (f" with {shown}" if shown else "") + " …"), flush=True)
        print(f"  → {execute(notebook, parameters=values, output_dir=args.output_dir)}")
    print_figures(paths.figures_dir(), since=started)
    return 0


def print_figures(folder: str | Path, *, since: float) -> list[tuple[str, str, str, str]]:
    """Print (and return) the figures this run wrote into ``folder`` (at or after ``since``), each with its preset
    and the paper figure it reproduces; the figures of earlier runs are not listed."""
    from toolkit.outputs import runs  # defers matplotlib: --strip runs as a git filter on every `git add`

    written = {name: preset for name, preset, _ in runs.figures_written(folder, since=since)}
    index = {name: (paper, function) for name, paper, function in figure_index(folder)}
    rows = [(name, written[name], *index[name]) for name in index if name in written]
    older = [name for name in index if name not in written]
    print(f"figures this run wrote in {folder} (docs/figures.md):")
    for name, preset, paper, function in rows:
        print(f"  {name} [{preset}]: {paper} ({function})")
    if not rows:
        print("  (none)")
    if older:
        print(f"older figures there, not written by this run ({len(older)}): "
              + textwrap.fill(", ".join(older), 110, subsequent_indent="  "))
    return rows


def figure_index(folder: str | Path) -> list[tuple[str, str, str]]:
    """``(file, paper figure or table, plots function)`` for each PDF in ``folder``, from
    :data:`toolkit.plots.PAPER_FIGURES` and :func:`toolkit.studies.paper_figures`
    (:func:`toolkit.outputs.report.figure_entry`); unknown files say so."""
    from toolkit import plots  # defers matplotlib: the runner's options and --strip need no figures
    from toolkit.outputs import report  # defers matplotlib (report draws figures), as plots above

    known = {**plots.PAPER_FIGURES, **studies.paper_figures()}
    rows = []
    for pdf in sorted(Path(folder).glob("*.pdf")):
        entry = report.figure_entry(pdf.stem, known)
        function, paper = (entry[0], entry[1]) if entry else ("?", "not a paper figure of the toolkit")
        paper = re.sub(r"\s*\(issue \d+\)", "", paper)  # the project's issue numbers mean nothing to a reader
        rows.append((pdf.name, "beyond the papers" if paper.lower() == "none" else paper, function))
    return rows


if __name__ == "__main__":
    sys.exit(main())
