"""Command line: ``python -m toolkit <study> --model … --out DIR``.

Studies: ``eec`` (Kiritchenko & Mohammad 2018), ``psa`` (Prabhakaran et al. 2019), ``biasfinder`` (Asyrofi et al.
2021). ``python -m toolkit models`` lists the model specs this machine can run. Errors print their code and fix and
exit with status 2. The output folder is checked for writing before any work; a re-run into the same ``--out``
replaces the files the previous run wrote there (listed in its provenance.json) and leaves others alone. Ctrl-C
(SIGINT) or SIGTERM stops the run and its worker processes within seconds and prints one TK302 line (the stage, what
is in the cache, re-run to resume); the exit status is then 130 or 143.

Reports (docs/reports.md): ``--report`` adds ``report.html`` (tables, figures, provenance; one self-contained file) and
``--latex`` the paper's tables as ``<study>_table….tex`` to a study's outputs — both written with the run's other
files, all or nothing, and listed in its provenance. ``python -m toolkit report RUN [--html PATH] [--latex]`` writes
them for a finished run's folder; ``python -m toolkit compare A B --html PATH`` puts two runs side by side.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolkit.errors import InputError, RunInterruptedError, ToolkitError
from toolkit.executors import Terminated, raise_on_sigterm
from toolkit.generators.biasfinder.lists import PRESETS
from toolkit.studies.biasfinder import RATE_INTERVALS
from toolkit.generators.eec import SPELLINGS
from toolkit.models import available, split_specs, task_of
from toolkit.outputs.files import check_formats, check_writable
from toolkit.scoring import check_cache
from toolkit.stats import MARGIN, METHODS


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m toolkit", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="study", required=True)
    sub.add_parser("models", help="list the model specs available on this machine")
    eec = sub.add_parser("eec", help="Equity Evaluation Corpus: gender and race t-tests, tables, box plots")
    eec.add_argument("--model", action="append",
                     help="model spec (repeatable): vader, textblob, afinn, ait:<system>/<task>, hf:<id-or-path>, "
                          "py:<module>:<callable> (default: the --task's systems)")
    eec.add_argument("--task", help="valence, anger, fear, joy, sadness or all: the trained SemEval-2018 systems "
                     "of that task (all: the five tasks' zoo) when no --model is given; with --model, checks each "
                     "model predicts it")
    eec.add_argument("--out", type=Path, required=True, help="folder for the CSVs, figures and provenance.json")
    eec.add_argument("--subset", action="append", help="subset(s) to test (default: all of them)")
    eec.add_argument("--order", nargs="+", help="left-to-right order of the models in the box plots")
    eec.add_argument("--alpha", type=float, default=0.05, help="significance level before Bonferroni")
    eec.add_argument("--cache", type=Path, help="score cache file or folder (default: data/cache)")
    eec.add_argument("--no-cache", action="store_true", help="score everything afresh and store nothing")
    eec.add_argument("--spelling", choices=SPELLINGS, default="published",
                     help="published: the released sentences as they are, 'dissapointed' (sic) included; corrected: "
                          "'disappointed' in those 240 sentences (recorded in provenance.json)")
    _statistics_options(eec, default="bonferroni")
    _output_options(eec)
    eec.add_argument("--n-boot", type=int, default=2000,
                     help="bootstrap resamples (100 to 100,000), where --two-way is a bootstrap "
                          "(bootstrap-t, percentile)")
    eec.add_argument("--two-way", choices=("satterthwaite", "bootstrap-t", "percentile"), default="satterthwaite",
                     help="reference distribution of the two-way interval, p and equivalence test "
                          "(default satterthwaite: a t with Satterthwaite's df, p not floored)")
    eec.add_argument("--weighting", choices=("sentences", "templates"), default="sentences",
                     help="how templates weigh in the two-way estimate (default sentences: the paper's mean Δ)")
    eec.add_argument("--family-size", type=int,
                     help="correct over this many tests when the run is part of a larger family (the paper's 438)")
    eec.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the null baseline")
    psa = sub.add_parser("psa", help="Perturbation Sensitivity Analysis: ScoreSens, ScoreDev/Range, LabelDist")
    psa.add_argument("--model", action="append", required=True, help="model spec (repeatable)")
    psa.add_argument("--corpus", default="sample", help="'sample' or a CSV/TSV/JSONL file with a text column")
    psa.add_argument("--names", type=Path, help="CSV with name,gender,category (default: 48 public figures)")
    psa.add_argument("--n", type=int, default=1000, help="sentences to sample (half female-, half male-anchored)")
    psa.add_argument("--seed", type=int, default=0)
    psa.add_argument("--max-words", type=int, default=50)
    psa.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for the confidence intervals (10 to 100,000)")
    psa.add_argument("--encoding", default="utf-8", help="the corpus file's text encoding (e.g. cp1252, latin-1)")
    psa.add_argument("--out", type=Path, required=True, help="folder for the CSVs, figures and provenance.json")
    psa.add_argument("--cache", type=Path, help="score cache file or folder (default: data/cache)")
    psa.add_argument("--no-cache", action="store_true", help="score everything afresh and store nothing")
    _statistics_options(psa, default="bonferroni")
    _output_options(psa)
    bf = sub.add_parser("biasfinder", help="BiasFinder: gender, occupation, country templates, BTCs (Table 4)")
    bf.add_argument("--model", action="append", required=True, help="model spec (repeatable)")
    bf.add_argument("--corpus", default="sample", help="'sample' or a CSV/TSV/JSONL file with a text column")
    bf.add_argument("--instance", action="append", help="gender, occupation or country (repeatable; default: all)")
    bf.add_argument("--n-names", type=int, default=30, help="names per gender for the gender instance")
    bf.add_argument("--max-templates", type=int, help="score a seeded sample of this many templates per "
                    "characteristic (default: all)")
    bf.add_argument("--seed", type=int, default=0)
    bf.add_argument("--n-process", type=int, default=1, help="parsing processes")
    bf.add_argument("--encoding", default="utf-8", help="the corpus file's text encoding (e.g. cp1252, latin-1)")
    bf.add_argument("--max-chars", type=int, default=20_000,
                    help="skip (and count) reviews longer than this many characters (default 20000)")
    bf.add_argument("--coherence", default="default",
                    help="coherence rules: default (all), paper (none: BiasFinder's generator) or comma-separated "
                         "rule names (docs/biasfinder_rules.md)")
    bf.add_argument("--backend", choices=("rules", "neuralcoref", "fastcoref"), default="rules",
                    help="coreference: rules (default, offline), neuralcoref (BiasFinder's model; its weights come "
                         "with `make`: python -m toolkit.nlp.neuralcoref fetch) or fastcoref (online users)")
    bf.add_argument("--acceptance", choices=("toolkit", "biasfinder"),
                    help="which reviews give gender/country templates: biasfinder (its own rules; the default "
                         "under --coherence paper) or toolkit. The paper preset: --coherence paper --backend "
                         "neuralcoref --lists paper")
    for flag, choices, about in (  # BiasFinder's own acceptance only (toolkit.generators.biasfinder.PAPER_OPTIONS)
            ("--parser", None, "the spaCy pipeline that parses the reviews (default the small English one; "
                               "en_core_web_md after `make parser-md`)"),
            ("--person-names", ("entities", "cluster"), "person names are the PERSON entities (default) or also the "
                                                        "proper-noun mentions of a cluster holding a gendered pronoun"),
            ("--titles", ("extended", "paper"), "the occupation method's TITLE vocabulary: the word list's occupations "
                                                "with permissively licensed job and story titles (default) or alone"),
            ("--occupation-templates", ("first", "each"), "a review's first occupation only (default) or each")):
        bf.add_argument(flag, choices=choices, help=f"under BiasFinder's acceptance: {about}")
    bf.add_argument("--people", choices=("mutate", "skip-named", "skip-real", "skip-known"), default="mutate",
                    help="persons the review identifies: mutate (BiasFinder, default), skip-named, skip-real, "
                         "skip-known (also persons many reviews of the corpus name)")
    bf.add_argument("--occupation-fit", help="fill occupation templates only with occupations that fit the story: "
                    "family, embedding or an llm: spec (default: every occupation, as BiasFinder)")
    bf.add_argument("--out", type=Path, required=True, help="folder for the CSVs, figure and provenance.json")
    bf.add_argument("--cache", type=Path, help="score cache file or folder (default: data/cache)")
    bf.add_argument("--no-cache", action="store_true", help="score everything afresh and store nothing")
    bf.add_argument("--format", action="append", choices=("csv", "parquet"),
                    help="table format (repeatable; default csv; parquet needs pyarrow: pip install -e .[parquet])")
    bf.add_argument("--scored", action="store_true", help="also write the scored mutants (biasfinder_scored.*)")
    bf.add_argument("--executor", choices=("local", "ray"), default="local",
                    help="templating in process or on Ray workers (a running cluster via RAY_ADDRESS, else local)")
    bf.add_argument("--n-jobs", type=int, help="worker processes for the lexicon models (default: every core)")
    bf.add_argument("--lists", choices=PRESETS, default="curated",
                    help="word lists: this project's curated ones (default) or the ones BiasFinder released (paper)")
    _statistics_options(bf, default="holm")
    _output_options(bf)
    bf.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples for the template-clustered "
                    "intervals (100 to 100,000)")
    bf.add_argument("--n-country-names", type=int, default=1,
                    help="names per country and gender (default 1, as the paper; 2 or more gives the country "
                         "instance its within-country null)")
    bf.add_argument("--duplicates", choices=("keep", "drop"), default="keep",
                    help="reviews repeated word for word: templated again, as BiasFinder's generator (keep, default), "
                         "or once (drop); counted in provenance either way")
    bf.add_argument("--interval", choices=RATE_INTERVALS, default="cluster",
                    help="BTC-rate intervals: two-way bootstrap over templates and names, p by permuting names "
                         "between classes (cluster, default); templates only, names fixed (templates, for "
                         "comparison); or Wilson/Newcombe over pairs taken as independent (pairs)")
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


def _output_options(parser: argparse.ArgumentParser) -> None:
    """--report and --latex (docs/reports.md), the same in every study."""
    parser.add_argument("--report", action="store_true",
                        help="also write report.html into --out: the run's tables, figures and provenance in one "
                             "self-contained HTML file (viewable offline)")
    parser.add_argument("--latex", action="store_true",
                        help="also write the paper's tables as LaTeX (<study>_table….tex, booktabs) beside the CSVs")


def _statistics_options(parser: argparse.ArgumentParser, *, default: str) -> None:
    """--correction and --margin (docs/statistics.md), the same in every study."""
    parser.add_argument("--correction", choices=METHODS, default=default,
                        help=f"multiple-comparison correction over the study's family (default {default})")
    parser.add_argument("--margin", type=float, default=MARGIN,
                        help=f"equivalence margin on the [0, 1] score scale for the verdict (default {MARGIN})")


def _check_order(order: list[str], models: list[str]) -> None:
    """TK102 unless ``--order`` lists each model of the run once (the box plots' left-to-right order)."""
    unknown_models = [m for m in order if m not in models]
    if unknown_models or len(set(order)) != len(order) or set(models) - set(order):
        what = (f"{', '.join(map(repr, unknown_models))} {'is' if len(unknown_models) == 1 else 'are'} not among the "
                f"run's models" if unknown_models else "it must name each of the run's models once")
        raise InputError(f"--order {' '.join(order)}: {what} ({', '.join(models)}).",
                         fix=f"pass --order as a permutation of the models: {' '.join(models)}.")


def _eec(args: argparse.Namespace, cache) -> None:
    from toolkit import eec  # defers matplotlib (the study fronts draw): --help and `models` start without it

    if not args.model and not args.task:
        raise InputError("give --model and/or --task.", fix="e.g. --model vader, or --task anger, or --task all.")
    if args.order is not None:  # before scoring 8,640 sentences per model
        _check_order(args.order, args.model or eec.default_models(args.task))
    result = eec.run(models=args.model, task=args.task, subsets=args.subset or eec.SUBSETS, alpha=args.alpha,
                     cache=cache, spelling=args.spelling, correction=args.correction, margin=args.margin,
                     n_boot=args.n_boot, seed=args.seed, method=args.two_way, weighting=args.weighting,
                     family_size=args.family_size)
    for path in eec.write(result, args.out, order=args.order, figures_dir=args.out, latex=args.latex,
                          report=args.report):
        print(path)
    print(result.tests[result.tests["subset"] == "all"].to_string(index=False))


def _psa(args: argparse.Namespace, cache) -> None:
    from toolkit import psa  # defers matplotlib (the study fronts draw)

    result = psa.run(corpus=args.corpus, models=args.model, names=args.names, n=args.n, seed=args.seed,
                     max_words=args.max_words, n_boot=args.n_boot, cache=cache, encoding=args.encoding,
                     correction=args.correction, margin=args.margin)
    for path in psa.write(result, args.out, figures_dir=args.out, latex=args.latex, report=args.report):
        print(path)
    print(result.summary.to_string(index=False))


def _biasfinder(args: argparse.Namespace, cache) -> None:
    from toolkit import biasfinder  # defers matplotlib (the study fronts draw)

    check_formats(tuple(args.format or ("csv",)))  # pyarrow for --format parquet: before templating and scoring

    result = biasfinder.run(corpus=args.corpus, models=args.model, instances=args.instance or biasfinder.INSTANCES,
                            n_names=args.n_names, max_templates=args.max_templates, seed=args.seed,
                            n_process=args.n_process, cache=cache, encoding=args.encoding,
                            max_chars=args.max_chars, n_jobs=args.n_jobs, executor=args.executor,
                            lists=args.lists, correction=args.correction, margin=args.margin,
                            n_boot=args.n_boot, n_country_names=args.n_country_names, interval=args.interval,
                            duplicates=args.duplicates, people=args.people, occupation_fit=args.occupation_fit,
                            coherence=_coherence(args.coherence), backend=args.backend, acceptance=args.acceptance,
                            parser=args.parser, person_names=args.person_names, titles=args.titles,
                            occupation_templates=args.occupation_templates)
    for path in biasfinder.write(result, args.out, figures_dir=args.out, formats=tuple(args.format or ("csv",)),
                                 with_scored=args.scored, latex=args.latex, report=args.report):
        print(path)
    print(result.table4.to_string(index=False))


def _coherence(text: str) -> str | list[str]:
    """``--coherence``: a preset or one rule name as given (an empty one is an unknown name, TK103), or a comma list."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    return names if len(names) > 1 else (names[0] if names else text.strip())


def _reports(args: argparse.Namespace) -> None:
    """``report RUN [--html PATH] [--latex]`` and ``compare A B --html PATH``: from folders runs wrote."""
    from toolkit.outputs import runs  # defers matplotlib (reports embed figures)

    if args.study == "compare":
        print(runs.compare(left=args.left, right=args.right, path=args.html))
        return
    print(runs.from_run(out_dir=args.run, path=args.html))
    if args.latex:
        for path in runs.export_latex(out_dir=args.run):
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


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    previous = _install_sigterm()
    try:
        if args.study == "models":
            print("\n".join(f"{spec:<40} {task_of(spec)}" for spec in available()))
            return 0
        if args.study in ("report", "compare"):
            _reports(args)
            return 0
        if getattr(args, "model", None):  # "--model vader,afinn" is two specs; "?labels=neg,neu,pos" stays one
            args.model = split_specs("\n".join(args.model))

        check_writable(args.out)  # before an hour of scoring, not after
        cache = False if args.no_cache else (args.cache or True)
        check_cache(cache)  # likewise: a --cache under a plain file fails now
        {"eec": _eec, "psa": _psa, "biasfinder": _biasfinder}[args.study](args, cache)
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
