"""Execute the numbered notebooks with papermill: ``python -m toolkit.notebooks [options] [NAME …]`` (``make figures``).

Options: ``--task TASK`` (the EEC task of notebook 01: valence, anger, fear, joy, sadness, or ``all`` for the five),
``--preset NAME`` (figure preset, exported as ``TOOLKIT_FIGURE_PRESET`` to the kernels; :mod:`toolkit.plots` reads
it), ``-p NAME=VALUE`` (any parameter; VALUE is read as a Python literal — ``20``, ``False``, ``None``,
``["vader","afinn"]`` — else kept as text), ``--list`` (each notebook's parameters). NAME picks notebooks by file name,
stem, number or short name (``01_eec.ipynb``, ``01_eec``, ``01``, ``eec``); none: all. A parameter is injected only into
the chosen notebooks whose ``parameters`` cell defines it (:func:`papermill.inspect_notebook`); a parameter no chosen
notebook defines, an unknown notebook, task or preset is a coded error listing the valid names, before anything runs.

``--from-make`` (what ``make figures`` runs) adds the options ``make figures TASK=… PRESET=… NOTEBOOKS=… PARAMS=…``
passed in the environment (:data:`MAKE_ENV`; :func:`make_arguments`): PARAMS and NOTEBOOKS split at whitespace, no
value ever read by a shell, so a ``'`` or ``$(…)`` in a value is kept as written and runs nothing.

Executed copies land in ``data/executed/`` (gitignored); the notebooks write their figures to ``figures/``.
The test suite calls :func:`execute` with small parameters.
"""
from __future__ import annotations

import argparse
import ast
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolkit import paths
from toolkit.cases import TASKS
from toolkit.errors import InputError, ToolkitError, UnknownNameError, unknown

EEC_TASKS: tuple[str, ...] = (*TASKS, "all")
"""Values of ``--task``: notebook 01's ``TASK`` (``all``: the trained zoo on the five tasks)."""
FIGURE_PRESETS: tuple[str, ...] = ("acl-single", "acl-double", "acm-single", "acm-double")
"""Values of ``--preset`` unless :mod:`toolkit.plots` lists its own (``plots.PRESETS``)."""
PRESET_ENV = "TOOLKIT_FIGURE_PRESET"
MAKE_ENV = {"TASK": "TOOLKIT_MAKE_TASK", "PRESET": "TOOLKIT_MAKE_PRESET", "NOTEBOOKS": "TOOLKIT_MAKE_NOTEBOOKS",
            "PARAMS": "TOOLKIT_MAKE_PARAMS"}
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


def parse_assignment(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` → (NAME, value): VALUE as a Python literal (``20``, ``False``, ``None``, ``["a","b"]``), else the
    text itself (``all``, ``acl-single``, ``../data/x.csv``)."""
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier():
        raise InputError(f"-p {text!r} is not NAME=VALUE.", fix="write -p NAME=VALUE, e.g. -p N=20 or "
                                                                 "-p MODELS='[\"vader\",\"afinn\"]'.")
    try:
        return name, ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        return name, raw


def figure_presets() -> tuple[str, ...]:
    """The figure presets ``--preset`` accepts: ``toolkit.plots.PRESETS`` when it exists, else
    :data:`FIGURE_PRESETS`."""
    from toolkit import plots

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
    papermill.execute_notebook(str(source), str(target), parameters=parameters or {}, kernel_name=kernel_name,
                               cwd=str(source.parent), execution_timeout=timeout, progress_bar=False)
    return target


def make_arguments(environ: Mapping[str, str]) -> list[str]:
    """The command-line arguments ``make figures`` means, from its variables in ``environ`` (:data:`MAKE_ENV`):
    ``--task TASK``, ``--preset PRESET``, ``-p NAME=VALUE`` per whitespace-separated PARAMS item, then the NOTEBOOKS
    names. Values are taken as written (no shell, no quoting rules)."""
    out: list[str] = []
    for name, option in (("TASK", "--task"), ("PRESET", "--preset")):
        value = environ.get(MAKE_ENV[name], "").strip()
        if value:
            out += [option, value]
    for item in environ.get(MAKE_ENV["PARAMS"], "").split():
        out += ["-p", item]
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
    parser.add_argument("-p", "--parameter", action="append", default=[], metavar="NAME=VALUE",
                        help="any parameter of the notebooks' parameters cells (repeatable)")
    parser.add_argument("--dir", help="the folder of numbered notebooks (default notebooks/)")
    parser.add_argument("--output-dir", help="where the executed copies go (default data/executed/)")
    parser.add_argument("--list", action="store_true", help="list the chosen notebooks' parameters and exit")
    parser.add_argument("--from-make", action="store_true",
                        help=f"also read make figures' variables from the environment ({', '.join(MAKE_ENV.values())})")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(argv if argv is not None else sys.argv[1:])
    if "--from-make" in argv:
        argv += make_arguments(os.environ)
    args = _parser().parse_args(argv)
    try:
        chosen = resolve(args.notebooks, folder=args.dir)
        if args.list:
            for notebook in chosen:
                print(notebook.name)
                for name, default in parameters_of(notebook).items():
                    print(f"  {name} = {default}")
            return 0
        parameters = dict(parse_assignment(p) for p in args.parameter)
        if args.task is not None:
            if args.task not in EEC_TASKS:
                raise unknown("EEC task", args.task, EEC_TASKS)
            parameters["TASK"] = args.task
        if args.preset is not None:
            if args.preset not in figure_presets():
                raise unknown("figure preset", args.preset, figure_presets())
            os.environ[PRESET_ENV] = args.preset  # the kernels papermill starts inherit it
        injected = plan(chosen, parameters)
    except ToolkitError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if os.environ.get(PRESET_ENV):
        print(f"figure preset: {os.environ[PRESET_ENV]}")
    for notebook, values in injected.items():
        shown = ", ".join(f"{k}={v!r}" for k, v in values.items())
        print(f"executing {notebook.name}" + (f" with {shown}" if shown else "") + " …", flush=True)
        print(f"  → {execute(notebook, parameters=values, output_dir=args.output_dir)}")
    from toolkit import plots

    print(f"figures in {paths.figures_dir()} (preset {plots.preset().name}; docs/figures.md):")
    for name, paper, function in figure_index(paths.figures_dir()):
        print(f"  {name}: {paper} ({function})")
    return 0


def figure_index(folder: str | Path) -> list[tuple[str, str, str]]:
    """``(file, paper figure or table, plots function)`` for each PDF in ``folder``, from
    :data:`toolkit.plots.PAPER_FIGURES` (a ``<model>`` stem matches any model's file); unknown files say so."""
    from toolkit import plots

    rows = []
    for pdf in sorted(Path(folder).glob("*.pdf")):
        entry = plots.PAPER_FIGURES.get(pdf.stem) or next(
            (value for key, value in plots.PAPER_FIGURES.items()
             if "<model>" in key and pdf.stem.startswith(key.split("<model>")[0])), None)
        function, paper = (entry[0], entry[1]) if entry else ("?", "not a paper figure of the toolkit")
        rows.append((pdf.name, paper, function))
    return rows


if __name__ == "__main__":
    sys.exit(main())
