"""Command line: ``python -m toolkit <study> --model … --out DIR``, one subcommand per registered study.

Studies (:mod:`toolkit.studies`, each registered in its own package): ``eec`` (Kiritchenko & Mohammad 2018),
``psa`` (Prabhakaran et al. 2019), ``biasfinder`` (Asyrofi et al. 2021), ``btcsam`` (Kardkovács et al. 2025) and
``agreement`` (across methods); every study takes ``--model`` (repeatable), ``--out``, ``--size quick|paper``, the
statistics options and ``--report``/``--latex``, plus its own options (``python -m toolkit <study> --help``).
``python -m toolkit audit MODEL… [--fail-on higher]`` runs every study on the models (exit 1 when a named verdict
appears or, unless ``--allow-skipped``, anything was skipped: a CI gate); ``python -m toolkit models`` lists the model
specs this machine can run. Errors print their code and fix and exit with status 2. The output folder is checked
for writing before any work; a re-run into the same ``--out`` replaces the files the previous run wrote there (listed
in its provenance.json) and leaves others alone. Ctrl-C (SIGINT) or SIGTERM stops the run and its worker processes
within seconds and prints one TK302 line (the stage, what is in the cache, re-run to resume); the exit status is then
130 or 143.

Reports (docs/reports.md): ``--report`` adds ``report.html`` (tables, figures, provenance; one self-contained file) and
``--latex`` the paper's tables as ``<study>_table….tex`` to a study's outputs — both written with the run's other
files, all or nothing, and listed in its provenance. ``python -m toolkit report RUN [--html PATH] [--latex]`` writes
them for a finished run's folder; ``python -m toolkit compare A B --html PATH`` puts two runs side by side.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from toolkit import studies
from toolkit.checks import options_given_once
from toolkit.errors import InputError, RunInterruptedError, ToolkitError
from toolkit.executors import Terminated, raise_on_sigterm
from toolkit.models import available, split_specs, task_of
from toolkit.outputs.files import check_owner, check_writable
from toolkit.scoring import check_cache
from toolkit.studies.base import SIZES

FRONTS = ("models", "audit", "report", "compare")
"""The subcommands that are not a study."""


def _chosen(argv: list[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is a study or a front), without parsing the rest."""
    names = set(studies.names()) | set(FRONTS)
    return next((word for word in argv if word in names), None)


def _parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The parser: every study a subcommand; only the ``chosen`` one imports its package for its own options (so
    ``--help`` and ``models`` start without importing the studies)."""
    parser = argparse.ArgumentParser(prog="python -m toolkit", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("models", help="list the model specs available on this machine")
    for name in studies.names():
        if name != chosen:
            sub.add_parser(name, help=f"the {name} study (python -m toolkit {name} --help)", add_help=False)
            continue
        study = studies.get(name)
        defaults = study.Settings()
        command = sub.add_parser(name, help=study.title)
        command.add_argument("--model", action="append",
                             help="model spec (repeatable): vader, textblob, afinn, minilm-imdb, ait:<system>/<task>, "
                                  "gersent, mlask, cnsenti, snownlp, mlask-<emotion>, cnsenti-<emotion> (German, "
                                  "Japanese, Chinese), hf:<id-or-path>, "
                                  "py:<module>:<callable>, llm:… (python -m toolkit models)")
        command.add_argument("--out", type=Path, required=True, help="folder for the tables, figures and "
                             "provenance.json")
        command.add_argument("--size", choices=SIZES, help="quick (minutes on the bundled data) or paper (the paper's "
                             "settings); default: the study's defaults")
        command.add_argument("--cache", type=Path, help="score cache file or folder (default: data/cache)")
        command.add_argument("--no-cache", action="store_true", help="score everything afresh and store nothing")
        command.add_argument("--alpha", type=float, default=defaults.alpha, help="significance level before the "
                             f"correction (default {defaults.alpha})")
        command.add_argument("--correction", choices=defaults.CORRECTIONS, default=defaults.correction,
                             help=f"multiple-comparison correction over the study's family (default "
                                  f"{defaults.correction})")
        command.add_argument("--margin", type=float, default=defaults.margin,
                             help=f"equivalence margin for the verdict (default {defaults.margin})")
        command.add_argument("--n-boot", type=int, default=defaults.n_boot,
                             help=f"bootstrap resamples (default {defaults.n_boot:,})")
        command.add_argument("--seed", type=int, default=defaults.seed, help="seed of every resampling and sample")
        command.add_argument("--report", action="store_true",
                             help="also write report.html into --out: the run's tables, figures and provenance in "
                                  "one self-contained HTML file (viewable offline)")
        command.add_argument("--latex", action="store_true",
                             help="also write the paper's tables as LaTeX (<study>_table….tex, booktabs) beside the "
                                  "CSVs")
        study.add_arguments(command)
    audit = sub.add_parser("audit", help="run every study on the models; exit 1 when a --fail-on verdict appears")
    audit.add_argument("models", nargs="+", help="model specs (python -m toolkit models)")
    audit.add_argument("--study", action="append", help="a study to run (repeatable; default: every study)")
    audit.add_argument("--size", choices=SIZES, default="quick", help="quick (default) or paper")
    audit.add_argument("--fail-on", action="append", default=[],
                       help="a verdict word that fails the audit (repeatable), e.g. higher; with it, anything "
                            "skipped fails the audit too")
    audit.add_argument("--allow-skipped", action="store_true",
                       help="with --fail-on: pass although a study or a model was skipped (each is still printed)")
    audit.add_argument("--out", type=Path, help="folder for each study's outputs, audit_summary.csv and report.html")
    audit.add_argument("--cache", type=Path, help="score cache file or folder (default: data/cache)")
    audit.add_argument("--no-cache", action="store_true", help="score everything afresh and store nothing")
    report = sub.add_parser("report", help="write the HTML report (and with --latex the LaTeX tables) of a run's "
                            "output folder")
    report.add_argument("run", type=Path, help="the --out folder of a run (it holds provenance.json)")
    report.add_argument("--html", type=Path, help="where to write the report (default: RUN/report.html)")
    report.add_argument("--latex", action="store_true", help="also write the paper's tables as .tex into RUN")
    compare = sub.add_parser("compare", help="two runs side by side in one HTML file")
    compare.add_argument("left", type=Path, help="the --out folder of run A")
    compare.add_argument("right", type=Path, help="the --out folder of run B")
    compare.add_argument("--html", type=Path, required=True, help="where to write the comparison")
    return parser


def _study(args: argparse.Namespace, cache) -> None:
    """Run the registered study ``args.command`` with the common options and its own, write, print."""
    study = studies.get(args.command)
    given = {"alpha": args.alpha, "correction": args.correction, "margin": args.margin, "n_boot": args.n_boot,
             "seed": args.seed, **study.arguments(args)}
    settings = study.settings(size=args.size, **given)  # every setting checked before any scoring
    if missing := study.unmet(size=args.size, given=given):
        raise InputError(missing[0] + ".", fix="pass --corpus PATH, or --size quick to run on the bundled sample.")
    models = args.model or study.default_models(settings)
    if not models:
        raise InputError(f"the {study.name} study needs --model.", fix="e.g. --model vader (python -m toolkit "
                         "models lists the specs).")
    result = study.run(models=models, settings=settings, cache=cache)
    for path in result.write(args.out, figures_dir=args.out, latex=args.latex, report=args.report,
                             **study.write_options(args)):
        print(path)
    print(study.describe(result))


def _audit(args: argparse.Namespace, cache) -> int:
    """``audit MODEL… [--fail-on WORD]``: every study, one summary (verdicts in words naming the groups); 1 when
    nothing ran, when a --fail-on verdict appears or, with --fail-on and without --allow-skipped, when a study or a
    model was skipped (a gate never passes an audit that did not run)."""
    from toolkit.auditing import audit, fail_words  # defers matplotlib (the studies draw)

    if args.fail_on:
        fail_words(args.fail_on)  # a word no verdict holds is refused before the audit runs, not after
    result = audit(models=args.models, studies=args.study, size=args.size, cache=cache)
    if args.out is not None:
        for path in result.write(args.out):
            print(path)
    shown, legend = result.shown()  # the verdicts in words naming the groups; the gate reads the stored ones
    if shown.empty:
        print("no conclusion: no study ran (the reasons follow).")
    else:
        print(shown.to_string(index=False))
        print(legend)
    for name, why in result.set_aside.items():
        print(f"set aside {name}: {why}", file=sys.stderr)
    for name, why in result.skipped.items():
        print(f"skipped {name}: {why}", file=sys.stderr)
    not_run = [name for name in (args.study or []) if name not in result.results and name not in result.skipped]
    incomplete = list(result.skipped) + [f"{name} (ran on no model)" for name in not_run]
    if not result.results:
        aside = [f"{name} (set aside)" for name in result.set_aside if ":" not in name and name not in not_run]
        print(f"audit failed: nothing ran ({', '.join(incomplete + aside) or 'no study'}). Fix: see the reasons "
              "above.", file=sys.stderr)
        return 1
    if args.fail_on:
        failing = result.failing(args.fail_on)
        if len(failing):
            print(f"audit failed: {len(failing)} conclusion(s) with a verdict containing "
                  f"{' or '.join(map(repr, args.fail_on))}:\n{shown.loc[failing.index].to_string(index=False)}",
                  file=sys.stderr)
            return 1
        if incomplete and not args.allow_skipped:
            # the hint only where every skip is a study that could not run here (a refused model is no such case)
            whole = [name for name in result.skipped if ":" not in name]
            refused = [name for name in result.skipped if ":" in name]
            flags = " ".join(f"--study {name}" for name in result.results)
            only = (f", gate on the studies that ran here ({flags})"
                    if result.results and whole and not refused and not not_run else "")
            print(f"audit failed: {len(incomplete)} skipped ({', '.join(incomplete)}), so the gate cannot pass. "
                  f"Fix: make them run{only}, or pass --allow-skipped to accept an incomplete audit.",
                  file=sys.stderr)
            return 1
        print(f"audit passed: no verdict containing {' or '.join(map(repr, args.fail_on))} in {len(shown)} "
              f"conclusion(s) of {len(result.results)} stud{'y' if len(result.results) == 1 else 'ies'}"
              + (f" ({len(result.skipped)} skipped, allowed)" if result.skipped else "") + ".", file=sys.stderr)
    elif args.allow_skipped:
        print("note: --allow-skipped acts only with --fail-on (without a gate nothing fails).", file=sys.stderr)
    return 0


def _reports(args: argparse.Namespace) -> None:
    """``report RUN [--html PATH] [--latex]`` and ``compare A B --html PATH``: from folders runs wrote."""
    from toolkit.outputs import runs  # defers matplotlib (reports embed figures)

    if args.command == "compare":
        print(runs.compare(left=args.left, right=args.right, path=args.html))
        return
    print(runs.from_run(out_dir=args.run, path=args.html, figure_notes=studies.paper_figures()))
    if args.latex:
        for path in runs.export_latex(out_dir=args.run, layouts=studies.latex_layouts()):
            print(path)


def _install_sigterm() -> object:
    """SIGTERM raises :class:`toolkit.executors.Terminated` (a KeyboardInterrupt) while the command runs, so it
    ends like Ctrl-C: workers stopped, one line said; the previous handler (None: not installed) is returned."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, raise_on_sigterm)


def _restore_sigterm(previous: object) -> None:
    import signal

    if previous is not None and signal.getsignal(signal.SIGTERM) is raise_on_sigterm:
        signal.signal(signal.SIGTERM, previous)


def _interrupted(exc: KeyboardInterrupt) -> tuple[RunInterruptedError, int]:
    """The one-line TK302 error for an interrupt (what stage it stopped, what was kept) and the exit status: 130
    for SIGINT, 143 for SIGTERM."""
    name, status = ("SIGTERM", 143) if isinstance(exc, Terminated) else ("SIGINT", 130)
    facts = getattr(exc, "toolkit_interrupt", {})
    stage = facts.get("stage")
    parts = [f"interrupted by {name}" + (f" during {stage}" if stage else "")]
    if "reviews" in facts:
        parts[0] += f" ({facts['templated']} of {facts['reviews']} reviews templated)"
    if facts.get("workers"):
        parts.append(f"its {facts['workers']} worker processes were stopped")
    if stage == "templating":
        parts.append("nothing was scored yet (templates are not cached)")
        fix = "re-run the same command to start again."
    elif "scored" in facts and facts.get("cache"):
        parts.append(f"{facts['scored']} of {facts['total']} texts were scored and are in the cache {facts['cache']}")
        fix = "re-run the same command to resume: it scores only what is missing."
    elif "scored" in facts:
        parts.append(f"{facts['scored']} of {facts['total']} texts were scored but not kept (no cache)")
        fix = "re-run the same command (without --no-cache to keep scores across runs)."
    else:
        parts.append("every batch scored before it is in the cache, unless --no-cache was given")
        fix = "re-run the same command to resume."
    return RunInterruptedError("; ".join(parts) + ".", fix=fix), status


def _plain_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as one ``warning: …`` line on stderr: the command's user is told what happened, not which internal
    file (``<frozen runpy>``) warned."""
    print(f"warning: {message}", file=file or sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = _parser(_chosen(argv))  # a study package that cannot be imported as it stands: TK error
        options_given_once(parser)
        args = parser.parse_args(argv)  # an option given twice: TK102
    except ToolkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    previous = _install_sigterm()
    with warnings.catch_warnings():
        warnings.showwarning = _plain_warning
        return _run(args, previous)


def _run(args: argparse.Namespace, previous: object) -> int:
    try:
        if args.command == "models":
            print("\n".join(f"{spec:<40} {task_of(spec)}" for spec in available()))
            return 0
        if args.command in ("report", "compare"):
            _reports(args)
            return 0
        if getattr(args, "model", None):  # "--model vader,afinn" is two specs; "?labels=neg,neu,pos" stays one
            args.model = split_specs("\n".join(args.model))
        if args.command == "audit":
            args.models = split_specs("\n".join(args.models))
        if getattr(args, "out", None) is not None:
            check_writable(args.out)  # before an hour of scoring, not after
            if args.command != "audit":  # likewise: a folder of another study's run is refused now
                check_owner(args.out, args.command)
        cache = False if args.no_cache else (args.cache or True)
        check_cache(cache)  # likewise: a --cache under a plain file fails now
        if args.command == "audit":
            return _audit(args, cache)
        _study(args, cache)
        return 0
    except ToolkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # sys.exit() inside a model or module the run called: never a silent success
        print(f"error: [TK203] the run was ended by sys.exit({exc.code!r}) called inside it (a model or module it "
              "ran), before its results were written. Fix: make the model return its scores or raise an "
              "exception.", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (see _install_sigterm): one line, no traceback
        error, status = _interrupted(exc)
        print(f"\nerror: {error}", file=sys.stderr)
        return status
    finally:
        _restore_sigterm(previous)


if __name__ == "__main__":
    sys.exit(main())
