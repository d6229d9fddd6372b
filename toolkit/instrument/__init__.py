"""Names and templates as the instrument, end to end (docs/names_and_templates.md).

>>> from toolkit import eec, instrument
>>> result = eec.run(models=["vader", "minilm-imdb"])
>>> instrument.eec_confounds(result, attribute="race")   # the gap before/after name frequency and subword length
>>> instrument.eec_intersections(result)                # gender × race cells, corrected over their family
>>> plan = instrument.eec_plan(result)                   # half-width and smallest detectable bias per design
>>> print(instrument.plan_lines(plan))
>>> sweep = instrument.wording_sweep(models=["vader", "minilm-imdb"])  # the EEC under 5 template wordings
>>> sweep.stability, sweep.ranking
>>> instrument.psa_confounds(psa_result)                 # PSA's gender gap and name frequency
>>> instrument.names_table()                             # every shipped name with its metadata

Each analysis is an explicit call (the papers' defaults are untouched) and records its settings (years of SSA
births, caliper, correction) in its table's ``attrs["settings"]`` (the sweep: also ``settings``);
:func:`save_tables` and :func:`save_figures` add the files and settings to the run's ``provenance.json``.
Statistics: :mod:`toolkit.instrument.confounds`, :mod:`toolkit.instrument.wording`, :mod:`toolkit.intersections`,
:mod:`toolkit.studies.eec.planning`.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from toolkit import checks, corpora, intersections, paths, planning, provenance
from toolkit import names as name_meta
from toolkit.errors import InputError, SchemaError, unknown
from toolkit.instrument import confounds, wording
from toolkit.instrument.names import shipped_metadata
from toolkit.models import OFFLINE_DEFAULTS, SentimentModel, load_all
from toolkit.outputs import files
from toolkit.scoring import score
from toolkit.studies.eec import generator as eec_generator
from toolkit.studies.eec.planning import plan as _plan
from toolkit.studies.psa.planning import plan as _psa_plan

EEC_FAMILY = 438  # the EEC paper's Bonferroni family: 2 attributes × 219 systems


def tokenizers(models: Iterable[str | SentimentModel]) -> dict[str, object]:
    """``{spec: tokenizer}`` for the models that have a subword tokenizer (transformer models); lexicons have none."""
    out = {}
    for model in load_all(list(models)):
        tokenizer = getattr(model, "tokenizer", None)
        if tokenizer is not None and hasattr(tokenizer, "tokenize"):
            out[model.spec] = tokenizer
    return out


def names_table(*, names: str | Path | pd.DataFrame | Iterable[str] | None = None,
                models: Iterable[str | SentimentModel] = (),
                years: tuple[int, int] = name_meta.SSA_YEARS) -> pd.DataFrame:
    """Name metadata: every name the studies ship (``names`` None: :func:`toolkit.instrument.names.shipped_metadata`)
    or the user's own (a CSV path or frame with a ``name`` column, as PSA's name files, or a list of names), with
    SSA frequency, gender share and race probabilities (``missing`` says what could not be looked up), plus one
    ``n_subwords:<model>`` column per model in ``models`` that has a subword tokenizer."""
    if names is None:
        table = shipped_metadata(years=years)
    else:
        if isinstance(names, (str, Path)):
            path = Path(names).expanduser()
            if not path.is_file():
                raise InputError(f"the names file {str(path)!r} " + ("is a folder" if path.is_dir() else
                                                                      "does not exist") + ".",
                                 fix="pass the path of a CSV with a 'name' column, a DataFrame, or a list of names.")
            names = corpora.read_csv(path)  # strict: encoding, quotes, a column named twice are TK104
        if isinstance(names, pd.DataFrame):
            if "name" not in names.columns:
                raise SchemaError(f"the names table has no 'name' column (its columns: "
                                  f"{', '.join(map(str, names.columns)) or 'none'}).",
                                  fix="name the column of first names 'name', as PSA's name files do.")
            listed = names["name"]
        else:
            listed = names
        table = name_meta.metadata(names=checks.text_list(listed, name="names"), years=years)
    for spec, tokenizer in tokenizers(models).items():
        pieces = name_meta.subword_lengths(names=table["name"].unique().tolist(), tokenizer=tokenizer)
        table[f"n_subwords:{spec}"] = table["name"].map(pieces.set_index("name")["n_subwords"])
    return table


def eec_confounds(result, *, attribute: str = "race", years: tuple[int, int] = name_meta.SSA_YEARS,
                  caliper: float = 0.25, alpha: float = 0.05) -> pd.DataFrame:
    """:func:`toolkit.instrument.confounds.name_confounds` on an EEC run (``eec.run(...)``'s result)."""
    table = confounds.name_confounds(result.scored, attribute=attribute, tokenizers=tokenizers(result.models),
                                     years=years, caliper=caliper, alpha=alpha)
    return _stamped(table, analysis="eec_confounds", attribute=attribute, years=list(years), caliper=caliper,
                    alpha=alpha)


def psa_confounds(result, *, years: tuple[int, int] = name_meta.SSA_YEARS, caliper: float = 0.25,
                  alpha: float = 0.05) -> pd.DataFrame:
    """:func:`toolkit.instrument.confounds.psa_name_confounds` on a PSA run (``psa.run(...)``'s result)."""
    table = confounds.psa_name_confounds(result.scored, tokenizers=tokenizers(result.models), years=years,
                                         caliper=caliper, alpha=alpha)
    return _stamped(table, analysis="psa_confounds", years=list(years), caliper=caliper, alpha=alpha)


def eec_intersections(result, *, correction: str = "holm", n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """:func:`toolkit.intersections.cells` on an EEC run."""
    table = intersections.cells(result.scored, correction=correction, n_boot=n_boot, seed=seed)
    return _stamped(table, analysis="eec_intersections", correction=correction, n_boot=n_boot, seed=seed)


def _stamped(table: pd.DataFrame, **settings) -> pd.DataFrame:
    """``table`` with the analysis's settings in ``attrs["settings"]`` (:func:`save_tables` records them)."""
    table.attrs["settings"] = settings
    return table


def eec_plan(result, *, attribute: str = "race", n_templates: Sequence[int] = (11,),
             n_names: Sequence[int] = (20, 40), family: int = EEC_FAMILY, power: float = 0.8) -> pd.DataFrame:
    """:func:`toolkit.studies.eec.planning.plan` on an EEC run: per system, what a study with ``n_templates`` ×
    ``n_names`` would resolve, corrected over ``family`` tests (default: the paper's 438)."""
    return _plan(result.scored, attribute=attribute, n_templates=n_templates, n_names=n_names, family=family,
                 power=power)


def psa_plan(result, *, n_sentences: Sequence[int] = (100, 1000), n_pairs: Sequence[int] = (24, 48),
             family: int | None = None, power: float = 0.8) -> pd.DataFrame:
    """:func:`toolkit.studies.psa.planning.plan` on a PSA run: per model, what ``n_sentences`` × ``n_pairs``
    female–male name pairs would resolve, corrected over ``family`` tests (default: the run's models × corpora,
    the family :func:`toolkit.studies.psa.analysis.gender_gap` corrects over)."""
    family = family or max(len(result.gender), 1)
    return _psa_plan(result.scored, n_sentences=n_sentences, n_pairs=n_pairs, family=family, power=power)


def plan_lines(plan: pd.DataFrame) -> str:
    """The planning table as one line per system: "minilm-imdb, race, corrected over 438 tests: 11 templates × 20
    names: ±.105, 80 % power at .128; 11 templates × 40 names: …". Race counts names per group (name pairs); gender
    counts the EEC's gender units (noun-phrase pairs and the names-mean pair)."""
    lines = []
    if "attribute" not in plan.columns:  # a PSA plan: sentences × female–male name pairs
        for (model, corpus), block in plan.groupby(["model", "corpus"], sort=False):
            parts = [planning.sentence(row, unit="name pairs").replace("templates", "sentences")
                     for _, row in block.iterrows()]
            lines.append(f"{model} ({corpus}), gender, corrected over {int(block['family'].iloc[0])} tests: "
                         + "; ".join(parts))
        return "\n".join(lines)
    for (model, attribute), block in plan.groupby(["model", "attribute"], sort=False):
        unit = "names per group" if attribute == "race" else "gender pairs"
        parts = [planning.sentence(row, unit=unit) for _, row in block.iterrows()]
        lines.append(f"{model}, {attribute}, corrected over {int(block['family'].iloc[0])} tests: " + "; ".join(parts))
    return "\n".join(lines)


@dataclass(frozen=True)
class WordingResult:
    """The EEC rerun under each template wording set."""

    scored: pd.DataFrame
    sweep: pd.DataFrame
    stability: pd.DataFrame
    ranking: pd.DataFrame
    settings: dict = field(default_factory=dict)


def wording_sweep(*, models: Iterable[str | SentimentModel] | None = None, wordings: Sequence[str] | None = None,
                  attributes: Sequence[str] = ("gender", "race"), cache: bool | str | Path | None = True,
                  n_boot: int = 2000, seed: int = 0, progress: bool | None = None) -> WordingResult:
    """Generate the EEC under each wording set (default: all, :func:`toolkit.studies.eec.generator.wordings`), score it
    with ``models`` (default: the offline models; the cache keeps every set), and compare the sets' conclusions
    (:mod:`toolkit.instrument.wording`)."""
    sets = checks.text_list(wordings, name="wordings", what="wording sets") if wordings is not None \
        else list(eec_generator.wordings())
    twice = sorted({w for w in sets if sets.count(w) > 1})
    if twice:
        raise InputError(f"wordings names {', '.join(map(repr, twice))} more than once; each set is generated "
                         "once.", fix=f"list each wording set once (of {', '.join(eec_generator.wordings())}).")
    unknown_sets = [w for w in sets if w not in eec_generator.wordings()]
    if unknown_sets:
        raise unknown("EEC template wording", unknown_sets[0], eec_generator.wordings())
    if "published" not in sets:
        sets = ["published", *sets]
    loaded = load_all(list(models) if models is not None else list(OFFLINE_DEFAULTS))
    cases = pd.concat([eec_generator.generate(wording=w) for w in sets], ignore_index=True)
    scored = score(cases, models=loaded, cache=cache, progress=progress)
    table = wording.sweep(scored, attributes=attributes, n_boot=n_boot, seed=seed)
    settings = {"wordings": sets, "attributes": list(attributes), "n_boot": n_boot, "seed": seed,
                "source": "toolkit/resources/eec_wordings.json"}
    table = _stamped(table, analysis="wording_sweep", **settings)
    return WordingResult(scored=scored, sweep=table, stability=wording.stability(table),
                         ranking=wording.ranking(table), settings=settings)


def save_tables(tables: dict[str, pd.DataFrame], out_dir: str | Path | None = None, *, study: str = "eec",
                settings: Mapping | None = None) -> list[Path]:
    """Write each ``{stem: frame}`` as ``<out_dir>/<stem>.csv`` (:func:`toolkit.outputs.files.write_table`: whole or
    not at all), the numbers behind the names-and-templates figures; ``out_dir`` None: ``data/results/<study>``.
    The files and ``settings`` are added to the run's ``provenance.json`` there (:func:`_record`)."""
    _check_saved(tables, what="save_tables", study=study, settings=settings)
    wrong = {stem: type(frame).__name__ for stem, frame in tables.items() if not isinstance(frame, pd.DataFrame)}
    if wrong:
        raise InputError(f"save_tables needs a DataFrame per name; got {wrong}.",
                         fix="pass {name: frame}, e.g. {'eec_race_confounds': confounds}.")
    folder = Path(out_dir) if out_dir is not None else paths.results_dir(study)
    files.probe(folder)  # created, or TK105/TK106 naming the folder (read-only, a file, a dangling link, full disk)
    written = [files.write_table(frame, folder / f"{stem}.csv") for stem, frame in tables.items()]
    if settings is None:  # the settings the analyses stamped on their tables
        settings = {stem: frame.attrs["settings"] for stem, frame in tables.items() if "settings" in frame.attrs}
    _record(folder, written, step="tables: " + ", ".join(tables), settings=settings)
    return written


def save_figures(figures: dict[str, object], figures_dir: str | Path | None = None, *,
                 out_dir: str | Path | None = None, study: str = "eec", settings: Mapping | None = None) -> list[Path]:
    """Write each ``{stem: Axes}`` as ``<figures_dir>/<stem>.png`` and its vector copy (:func:`toolkit.plots.save`);
    ``figures_dir`` None: the project's ``figures/``. The files and ``settings`` are added to the run's
    ``provenance.json`` in ``out_dir`` (None: ``data/results/<study>``; :func:`_record`)."""
    from toolkit import plots  # defers matplotlib (figures are drawn only when saved)
    from toolkit.outputs import runs  # defers matplotlib (its figure manifest)

    _check_saved(figures, what="save_figures", study=study, settings=settings)
    folder = Path(figures_dir) if figures_dir is not None else paths.figures_dir()
    folder.mkdir(parents=True, exist_ok=True)
    written = [plots.save(ax, folder / f"{stem}.png") for stem, ax in figures.items()]
    vectors = [path.with_suffix(f".{plots.VECTOR_FORMAT}") for path in written]
    runs.record_figures(folder, figures, study="names and templates")  # the make figures listing names their preset
    _record(Path(out_dir) if out_dir is not None else paths.results_dir(study),
            [p for pair in zip(written, vectors) for p in pair if p.exists()],
            step="figures: " + ", ".join(figures), settings=settings)
    return written


def _check_saved(items, *, what: str, study, settings) -> None:
    """InputError (TK102) for arguments of :func:`save_tables` / :func:`save_figures` they cannot use."""
    if not isinstance(items, Mapping):
        raise InputError(f"{what} needs a mapping of file stem to item; got {type(items).__name__}.",
                         fix="pass {name: item}, e.g. {'eec_race_confounds': confounds}.")
    if not isinstance(study, str) or not study.strip():
        raise InputError(f"study must be a study's name; got {study!r}.", fix="pass e.g. study='eec' or 'psa'.")
    if settings is not None and not isinstance(settings, Mapping):
        raise InputError(f"settings must be a mapping; got {type(settings).__name__}.",
                         fix="pass e.g. settings={'threshold': 0.5}, or leave it out.")


def _record(out_dir: Path, written: list[Path], *, step: str, settings: Mapping | None) -> None:
    """Add ``written`` to the provenance of the run in ``out_dir`` (:func:`toolkit.provenance.add_outputs`); a
    folder with no run's record gets none, and a warning says so (the files are written all the same)."""
    if written and provenance.add_outputs(out_dir, paths_written=written, step=step, settings=settings) is None:
        warnings.warn(f"{str(out_dir)!r} holds no run's provenance.json, so {len(written)} file(s) of '{step}' are "
                      "not recorded in one; write the study's result there first (result.write(out_dir)) to have "
                      "them listed.", stacklevel=3)
