"""The composer of :mod:`toolkit.outputs`: one results folder per run, and the reports and LaTeX tables made from
runs. It joins the files leaf (:mod:`toolkit.outputs.files`: staging, locks, disk-full) to the pure renderers
(:mod:`toolkit.outputs.report` for HTML, :mod:`toolkit.outputs.latex` for TeX); every choice is an argument.

- :func:`write` — a study's run: ``<name>.<format>`` per table (CSV and/or Parquet), ``<stem>.png`` and a PDF copy
  per figure, with ``latex=True`` the paper tables as ``<study>_table….tex`` for ``preset``, with ``report=True``
  ``report.html``, and ``provenance.json`` last, all or nothing (:func:`toolkit.outputs.files.commit`). The figures'
  folder keeps a manifest (:data:`FIGURE_MANIFEST`) of which run wrote each figure with which preset, read by
  :func:`figures_written` (``make figures`` lists only the figures of its own run).
- :func:`export_latex` — the paper tables of a finished run's folder as ``.tex`` (notebooks and the CLI's
  ``report --latex``); :func:`latex_tables` — the same from frames in memory (the apps).
- :func:`write_html` / :func:`write_report` — an HTML report from frames and figures in memory; ``write_report``
  composes the full provenance (package versions, model fingerprints, settings) the way :func:`write` does (the
  apps' Export button).
- :func:`load_run`, :func:`from_run`, :func:`compare` — reports of folders runs wrote. A run folder is read as
  untrusted input: only the files its ``outputs`` list names directly inside the folder (never through a link), and
  figures (``<study>_*.png``) listed by absolute path only when they lie in the run folder or the toolkit's figures
  folder; a figure must be a PNG of at most :data:`MAX_FIGURE_BYTES`; ``provenance.json`` is read up to
  :data:`MAX_PROVENANCE_BYTES` and :data:`MAX_DEPTH` levels of nesting (larger, deeper, non-UTF-8 or malformed:
  InputError, TK102). Whatever is refused is named in the report ("not read: …").
"""
from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from toolkit import paths, plots, provenance
from toolkit.errors import InputError, redact
from toolkit.outputs import files, latex, report
from toolkit.plots.style import drawn_for

LARGE_FILE = 20_000_000  # bytes: a table file larger than this is read only up to report.MAX_ROWS rows
TABLE_SUFFIXES = (".csv", ".parquet")
MAX_PROVENANCE_BYTES = 50_000_000  # a provenance.json larger than this is refused
MAX_DEPTH = 64  # levels of nesting a provenance.json may have (the toolkit writes about 5)
MAX_FIGURE_BYTES = 50_000_000  # a figure PNG larger than this is not embedded
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FIGURE_MANIFEST = ".toolkit-figures.json"  # in the figures folder: file name -> the run and preset that wrote it
MAX_ROWS = report.MAX_ROWS


# --- figures ------------------------------------------------------------------------------------------------------

def figure_renderer(ax: Axes | Figure, fmt: str) -> files.Render:
    """A renderer of the figure holding ``ax`` as ``fmt`` (as :func:`toolkit.plots.write_figure` saves it; a PNG
    renders once and keeps its bytes, which the report embeds)."""
    render = lambda handle: plots.write_figure(ax, handle, fmt=fmt)
    return files.Rendered(render) if fmt == "png" else render


def figure_preset(ax: Axes | Figure) -> str:
    """The preset the figure holding ``ax`` was drawn for (recorded on it by the styled figure functions,
    :func:`toolkit.plots.style.drawn_for`), with its own width where it is narrower than the preset (``acl-double,
    5.35 in wide``: a small figure, included at its size); for a figure drawn another way the preset of its width,
    else ``own width 5.35 in``."""
    figure = ax if isinstance(ax, Figure) else ax.figure
    width = float(figure.get_size_inches()[0])
    presets = getattr(plots, "PRESETS", {})
    recorded = drawn_for(figure)
    if recorded in presets:
        full = float(presets[recorded].width)
        return recorded if abs(full - width) < 0.01 else f"{recorded}, {width:.2f} in wide"
    for name, preset in presets.items():
        if abs(float(getattr(preset, "width", -1)) - width) < 0.01:
            return name
    return f"own width {width:.2f} in"


def table_preset(preset: str | None) -> str:
    """The LaTeX width preset: ``preset``, else the active figure preset (:func:`toolkit.plots.preset`) when
    :data:`toolkit.outputs.latex.WIDTHS` knows it, else its default."""
    if preset is not None:
        return latex.check_preset(preset)
    active = getattr(plots.preset(), "name", None) if hasattr(plots, "preset") else None
    return active if active in latex.WIDTHS else latex.DEFAULT_PRESET


def _update_manifest(figures: Path, entries: Mapping[str, dict]) -> None:
    """Record in the figures folder's manifest which run wrote each figure file, with its preset."""
    path = figures / FIGURE_MANIFEST
    with files.lock(figures / files.LOCK_NAME, timeout=files.LOCK_TIMEOUT_S, what=f"into {str(figures)!r}"):
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
            manifest = manifest if isinstance(manifest, dict) else {}
        except (OSError, ValueError):
            manifest = {}
        manifest.update(entries)
        text = json.dumps(manifest, indent=1, sort_keys=True).encode("utf-8")
        files.write_file(path, lambda handle: handle.write(text))


def figures_written(folder: str | Path, *, since: float) -> list[tuple[str, str, str]]:
    """``(file name, preset, study)`` of the figures in ``folder`` a run wrote at or after ``since`` (a
    ``time.time()``), from the folder's manifest; a figure file newer than ``since`` that the manifest does not
    know, or whose entry is not one the toolkit wrote (``written`` not a number of seconds), is listed with preset
    ``unknown``."""
    folder = Path(folder)
    try:
        manifest = json.loads((folder / FIGURE_MANIFEST).read_text(encoding="utf-8"))
        manifest = manifest if isinstance(manifest, dict) else {}
    except (OSError, ValueError):
        manifest = {}
    rows = []
    for path in sorted(folder.glob("*.pdf")) + sorted(folder.glob("*.png")):
        try:
            if path.stat().st_mtime < since - 1.0:
                continue
        except OSError:
            continue
        entry = manifest.get(path.name) if isinstance(manifest.get(path.name), dict) else {}
        written = entry.get("written")
        if not (isinstance(written, (int, float)) and not isinstance(written, bool) and math.isfinite(written)):
            entry = {}  # an entry edited by hand or by another tool: the file's time decides, its preset is unknown
        elif written < since - 1.0:
            continue
        rows.append((path.name, str(entry.get("preset", "unknown")), str(entry.get("study", ""))))
    return rows


# --- a study's run ------------------------------------------------------------------------------------------------

def _planned(*, tables: Mapping[str, pd.DataFrame], axes: Mapping[str, Axes], formats: tuple[str, ...], out: Path,
             figures: Path, guard: bool, tex: Mapping[str, str]) -> list[tuple[Path, files.Render]]:
    planned = [(out / f"{name}.{fmt}", files.table_renderer(frame, fmt, guard=guard))
               for name, frame in tables.items() for fmt in formats]
    captions = plots.figure_captions()  # TITLES=caption: the words each figure left out, beside it
    for stem, ax in axes.items():
        planned += [(figures / f"{stem}.{fmt}", figure_renderer(ax, fmt)) for fmt in ("png", plots.VECTOR_FORMAT)]
        if captions:
            planned.append((figures / f"{stem}.caption.txt",
                            files.bytes_renderer(plots.caption_text(ax).encode("utf-8"))))
    for stem, text in tex.items():
        planned.append((out / f"{stem}.tex", files.bytes_renderer(text.encode("utf-8"))))
    return planned


def write(*, study: str, tables: Mapping[str, pd.DataFrame], axes: Mapping[str, Axes], scored: pd.DataFrame,
          models: list[str], settings: dict, fingerprints: Mapping[str, str] | None = None,
          inputs: Mapping[str, Any] | None = None, layouts: Mapping[str, latex.PaperTable] | None = None,
          figure_notes: Mapping[str, tuple] | None = None, out_dir: str | Path | None = None, figures_dir: str | Path | None = None, formats: tuple[str, ...] = ("csv",),
          with_scored: bool = False, csv_formula_guard: bool | None = None, latex_tables: bool = False,
          report_html: bool = False, preset: str | None = None,
          display: Callable[[pd.DataFrame], tuple[pd.DataFrame, str]] | None = None, **legacy: Any) -> list[Path]:
    """Write a study's run and return the paths written, ``provenance.json`` last.

    ``<name>.<format>`` per table and format (``formats`` from :data:`toolkit.outputs.files.FORMATS`), with
    ``with_scored`` the scored table as ``<study>_scored.<format>`` too, and ``provenance.json`` (models with the
    fingerprints that scored them, package versions, settings, the texts / distinct texts / distinct model inputs
    per model, the files written, each figure's preset) to ``out_dir`` (default ``data/results/<study>``);
    ``<stem>.png`` and a PDF copy per Axes to ``figures_dir`` (default ``figures/``). With ``latex_tables`` the
    paper's tables as ``<study>_table….tex`` laid out by ``layouts`` (the study's) for ``preset``
    (:data:`toolkit.outputs.latex.WIDTHS`; default the active figure preset), with ``report_html`` the run's
    ``report.html`` (tables as ``display`` shows them, e.g. the study's verdict words with their legend; captioned
    figures; provenance), both in ``out_dir``. All or nothing, one run per folder at a time, the previous run's files replaced, CSV text
    cells formula-guarded unless ``csv_formula_guard=False`` (:mod:`toolkit.outputs.files`). ``latex=``/``report=``
    are accepted as the old names of ``latex_tables``/``report_html``."""
    unknown_keys = set(legacy) - {"latex", "report"}
    if unknown_keys:
        raise TypeError(f"write() got unexpected keyword argument(s) {', '.join(sorted(unknown_keys))}")
    latex_tables = bool(legacy.get("latex", latex_tables))
    report_html = bool(legacy.get("report", report_html))
    files.check_formats(formats)
    guard = files.CSV_FORMULA_GUARD if csv_formula_guard is None else csv_formula_guard
    out = Path(out_dir) if out_dir is not None else paths.results_dir(study)
    figures = Path(figures_dir) if figures_dir is not None else paths.figures_dir()
    files.probe(out)
    files.check_owner(out, study)  # before rendering: a folder of another study's run is never written into
    files.probe(figures, option="a figures_dir= folder (the figures' folder; the command line writes them in --out)")
    if with_scored:
        tables = {**tables, f"{study}_scored": scored}
    presets = {stem: figure_preset(ax) for stem, ax in axes.items()}
    width = table_preset(preset) if latex_tables else None
    tex = latex.paper_tables(tables=tables, layouts=layouts or {}, preset=width, settings=settings) if latex_tables else {}
    planned = _planned(tables=tables, axes=axes, formats=formats, out=out, figures=figures, guard=guard, tex=tex)
    outputs = [files.output_name(target, out) for target, _ in planned]
    if report_html:
        outputs.append(files.REPORT_NAME)
    record = provenance.record(models=models, settings={**settings, "csv_formula_guard": guard,
                                                         "figure_presets": presets,
                                                         **({"table_preset": width} if width else {})},
                               fingerprints=fingerprints, outputs=outputs, inputs=inputs)
    if report_html:
        planned.append((out / files.REPORT_NAME, _report_renderer(
            study=study, out=out, tables=tables, axes=axes, planned=planned, fmt=formats[0], record=record,
            others=sorted(tex), figure_notes=figure_notes, display=display)))
    written = files.commit(study=study, planned=planned, provenance=provenance.dumps(record).encode("utf-8"),
                           out=out, figures=figures)
    record_figures(figures, axes, study=study, out=out)
    return written


def record_figures(folder: str | Path, axes: Mapping[str, Axes | Figure], *, study: str,
                   out: str | Path | None = None) -> None:
    """Note in ``folder``'s figure manifest that ``study`` just wrote ``<stem>.png`` and its vector copy for each
    ``{stem: Axes}``, with the figure's preset (:func:`figure_preset`), so that :func:`figures_written` (the
    ``make figures`` listing) names it; ``out`` is the run's result folder, where it has one. Figures written by
    :func:`write` are recorded already; call this after saving figures another way (:func:`toolkit.plots.save`)."""
    if not axes:
        return
    now = time.time()
    _update_manifest(Path(folder), {f"{stem}.{fmt}": {"preset": figure_preset(ax), "study": study, "written": now,
                                                      **({"out": str(Path(out).resolve())} if out else {})}
                                    for stem, ax in axes.items() for fmt in ("png", plots.VECTOR_FORMAT)})


def _report_renderer(*, study: str, out: Path, tables: Mapping[str, pd.DataFrame], axes: Mapping[str, Axes],
                     planned: list[tuple[Path, files.Render]], fmt: str, record: dict,
                     others: list[str], figure_notes: Mapping[str, tuple] | None = None,
                     display: Callable[[pd.DataFrame], tuple[pd.DataFrame, str]] | None = None) -> files.Render:
    """The run's report from the tables and figures in memory; the figures' PNGs are the ones the run writes."""
    rendered = {target.name: r for target, r in planned if isinstance(r, files.Rendered)}
    pngs = {stem: (rendered[f"{stem}.png"].bytes() if f"{stem}.png" in rendered else report.figure_png(ax))
            for stem, ax in axes.items()}
    run = report.Run(title=f"{study} run: {out.resolve().name}",
                     tables=report.tables_of(tables, sources={name: f"{name}.{fmt}" for name in tables},
                                             display=display),
                     figures=pngs, provenance=record, folder=str(out.resolve()),
                     others=[f"{name}.tex" for name in others],
                     captions={stem: report.figure_caption(stem, figure_notes) for stem in pngs})
    return lambda handle: handle.write(redact(report.render(run)).encode("utf-8"))


# --- reports from memory ------------------------------------------------------------------------------------------

def _write_text(path: Path, text: str) -> Path:
    """Write an HTML report (credentials in any URL it shows redacted: :func:`toolkit.errors.redact`), creating its
    folder (``report("data/results/audit.html")`` on a fresh clone)."""
    files.probe(path.expanduser().parent, option="another path")
    return files.write_file(path.expanduser(), files.bytes_renderer(redact(text).encode("utf-8")))


def write_html(*, title: str, tables: Mapping[str, pd.DataFrame], figures: Mapping[str, Axes | Figure | bytes],
               provenance: Mapping, path: str | Path, captions: Mapping[str, str] | None = None,
               display: Callable[[pd.DataFrame], tuple[pd.DataFrame, str]] | None = None,
               legends: Mapping[str, str] | None = None) -> Path:
    """Write one self-contained HTML report to ``path`` (replaced atomically) and return it.

    ``tables``: name → DataFrame (a named index becomes columns); ``figures``: name → Axes, Figure or PNG bytes;
    ``captions``: figure name → caption (default: the toolkit's caption of a known figure); ``provenance``: a
    mapping such as :func:`toolkit.provenance.record`'s; ``display``: frame → (the frame as shown, its legend), for
    every table, and ``legends``: table name → a legend of its own (a table an app showed already in words). Bad
    input is InputError (TK102); an unwritable path OutputDirError (TK105)."""
    report.check_names("tables", tables)
    report.check_names("figures", figures)
    if not isinstance(provenance, Mapping):
        raise InputError(f"provenance must be a mapping; got {type(provenance).__name__}.",
                         fix="pass the run's provenance record (a dict), or {} for none.")
    shown = report.tables_of(tables, display=display)
    for name, legend in (legends or {}).items():
        if str(name) in shown and legend:
            shown[str(name)].legend = legend
    run = report.Run(title=str(title), tables=shown,
                     figures={str(n): report.figure_png(item) for n, item in figures.items()},
                     provenance=dict(provenance), captions=dict(captions or {}))
    return _write_text(Path(path), report.render(run))


def write_report(*, title: str, tables: Mapping[str, pd.DataFrame], figures: Mapping[str, Axes | Figure | bytes],
                 models: list[str], settings: Mapping, path: str | Path,
                 fingerprints: Mapping[str, str] | None = None, inputs: Mapping[str, Any] | None = None,
                 notes: list[str] | None = None, captions: Mapping[str, str] | None = None,
                 extra: Mapping | None = None, display: Callable[[pd.DataFrame], tuple[pd.DataFrame, str]] | None = None,
                 legends: Mapping[str, str] | None = None) -> Path:
    """An app's export: :func:`write_html` with the full provenance :func:`write` records — package versions,
    git commit, each model's fingerprint (``fingerprints``, else computed), the texts each model saw (``inputs``),
    ``settings`` (a run's settings; an empty mapping is InputError, TK102: an export must say what ran), ``notes``
    and ``extra`` keys; ``display`` and ``legends`` as :func:`write_html`."""
    if not isinstance(settings, Mapping) or not settings:
        raise InputError("an exported report needs the run's settings; got none.",
                         fix="pass settings=result.provenance.settings (the study result's settings).")
    record = provenance.record(models=list(models), settings=dict(settings), fingerprints=fingerprints,
                               inputs=inputs)
    record.update({"notes": list(notes or []), **dict(extra or {})})
    return write_html(title=title, tables=tables, figures=figures, provenance=record, path=path, captions=captions,
                      display=display, legends=legends)


# --- reports and LaTeX of run folders -----------------------------------------------------------------------------

def _read_provenance(folder: Path) -> dict:
    path = folder / files.PROVENANCE_NAME
    if not folder.is_dir():
        raise InputError(f"{str(folder)!r} is not a folder" + ("" if folder.exists() else " (it does not exist)")
                         + ".", fix="pass the --out folder a run wrote (it holds provenance.json).")
    if not path.is_file():
        raise InputError(f"{str(folder)!r} holds no provenance.json, so it is not a run's output folder.",
                         fix="pass the --out folder a run wrote (python -m toolkit <study> … --out DIR).")
    try:
        if path.stat().st_size > MAX_PROVENANCE_BYTES:
            raise InputError(f"{str(path)!r} is larger than {MAX_PROVENANCE_BYTES:,} bytes: not a provenance record "
                             "the toolkit wrote.", fix="re-run the study into that folder.")
        record = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise InputError(f"{str(path)!r} is nested deeper than Python can read: not a provenance record the toolkit "
                         "wrote.", fix="re-run the study into that folder.") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {str(path)!r}: {exc}.", fix="re-run the study into that folder.") from None
    if not isinstance(record, dict):
        raise InputError(f"{str(path)!r} is not a provenance record (a JSON object).",
                         fix="re-run the study into that folder.")
    if _depth(record) > MAX_DEPTH:
        raise InputError(f"{str(path)!r} is nested more than {MAX_DEPTH} levels deep: not a provenance record the "
                         "toolkit wrote.", fix="re-run the study into that folder.")
    return record


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and mappings (counted without recursion; stops past :data:`MAX_DEPTH`)."""
    deepest, stack = 0, [(value, 1)]
    while stack and deepest <= MAX_DEPTH:
        item, depth = stack.pop()
        if isinstance(item, (Mapping, list)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, Mapping) else item))
    return deepest


def numbers_back(frame: pd.DataFrame) -> pd.DataFrame:
    """A table read from CSV with empty cells as "" (:func:`toolkit.files.read_table`): a text column whose
    non-empty cells are all numbers becomes numeric again, its empty cells NaN."""
    out = frame.copy()
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        if not (column.dtype == object or pd.api.types.is_string_dtype(column.dtype)):
            continue
        filled = column[column.astype(str).str.strip() != ""]
        if filled.empty:  # every cell empty (e.g. EEC's avg_diff when no system is significant): missing numbers
            out.isetitem(position, pd.Series(np.nan, index=column.index, dtype=float))
            continue
        if not filled.map(lambda v: isinstance(v, (str, int, float))).all():
            continue
        if filled.astype(str).str.strip().str.match(r"^[+-]?0\d").any():  # zero-padded codes ("007") stay text
            continue
        converted = pd.to_numeric(filled, errors="coerce")
        if converted.notna().all():
            out.isetitem(position, pd.to_numeric(column.where(column.astype(str).str.strip() != ""),
                                                 errors="coerce"))
    return out


def _listed(folder: Path, name: str, *, study: str | None = None) -> Path | str:
    """The path of an ``outputs`` entry, or why a report must not read it: a bare name of a file inside ``folder``;
    an absolute path only for a figure (``.png``) named after the run's ``study`` lying directly in ``folder`` or in
    the toolkit's figures folder (figures written there are listed so). Never a symlink, never anything outside
    those folders — a planted provenance.json cannot copy other files into a report."""
    listed = Path(name)
    if listed.is_absolute():
        if listed.suffix != ".png" or not study or not listed.name.startswith(f"{study}_"):
            return "not a figure of this run"
        path = listed
        inside = {os.path.realpath(folder), os.path.realpath(paths.figures_dir())}
        if os.path.realpath(path.parent) not in inside:
            return "outside the run folder and the figures folder"
    elif listed.name == name and name not in ("", ".", ".."):
        path = folder / name
    else:
        return "a path that leaves the run folder"
    return "a link" if path.is_symlink() else path


def _png(path: Path) -> bytes | str:
    """The bytes of the figure at ``path``, or why it is not embedded (not a PNG, too large)."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_FIGURE_BYTES + 1)
    if len(data) > MAX_FIGURE_BYTES:
        return f"larger than {MAX_FIGURE_BYTES:,} bytes"
    return data if data.startswith(PNG_MAGIC) else "not a PNG image"


def load_run(*, out_dir: str | Path) -> report.Run:
    """The tables, figure PNGs and provenance of the run that wrote ``out_dir`` (the files its provenance lists;
    CSV preferred to Parquet when both exist; a table file over :data:`LARGE_FILE` bytes read up to
    :data:`MAX_ROWS` rows)."""
    folder = Path(out_dir).expanduser()
    record = _read_provenance(folder)
    listed = record.get("outputs", [])
    names = [n for n in listed if isinstance(n, str)] if isinstance(listed, list) else []
    guard = (record.get("settings") or {}).get("csv_formula_guard") if isinstance(record.get("settings"), dict) \
        else None
    tables: dict[str, report.Table] = {}
    figures: dict[str, bytes] = {}
    missing: list[str] = []
    refused: list[str] = []
    others: list[str] = []
    settings = record.get("settings") if isinstance(record.get("settings"), dict) else {}
    for name in names:
        if Path(name).suffix == ".tex" and Path(name).name == name:
            others.append(name)
            continue
        if Path(name).suffix not in (*TABLE_SUFFIXES, ".png"):
            continue
        path = _listed(folder, name, study=settings.get("study"))
        if isinstance(path, str):
            refused.append(f"{name} ({path})")
            continue
        if not path.exists():
            missing.append(name)
            continue
        if not path.is_file():
            refused.append(f"{name} (not a regular file)")
            continue
        if path.suffix == ".png":
            png = _png(path)
            if isinstance(png, str):
                refused.append(f"{name} ({png})")
            else:
                figures[path.stem] = png
            continue
        if path.stem in tables and path.suffix == ".parquet":
            continue
        partial = path.stat().st_size > LARGE_FILE
        if path.suffix == ".csv":
            frame = files.read_table(path, csv_formula_guard=guard, **({"nrows": MAX_ROWS} if partial else {}))
        else:
            frame = files.read_table(path)
        tables[path.stem] = report.Table(numbers_back(frame), len(frame), source=path.name, partial=partial)
    study = (record.get("settings") or {}).get("study") if isinstance(record.get("settings"), dict) else None
    title = f"{study or 'toolkit'} run: {folder.resolve().name}"
    return report.Run(title=title, tables=tables, figures=figures, provenance=record, missing=missing,
               folder=str(folder.resolve()), refused=refused, others=others)




def from_run(*, out_dir: str | Path, path: str | Path | None = None,
             figure_notes: Mapping[str, tuple] | None = None) -> Path:
    """Write the report of the run in ``out_dir`` (see :func:`load_run`) to ``path`` (default
    ``out_dir/report.html``) and return it, each figure captioned from ``figure_notes`` (the studies'
    ``paper_figures``). A folder without ``provenance.json`` is InputError (TK102)."""
    run = load_run(out_dir=out_dir)
    run.captions.update({stem: report.figure_caption(stem, figure_notes) for stem in run.figures})
    target = Path(path) if path is not None else Path(out_dir).expanduser() / files.REPORT_NAME
    return _write_text(target, report.render(run))


def compare(*, left: str | Path, right: str | Path, path: str | Path) -> Path:
    """Write one HTML file comparing the runs in the folders ``left`` (A) and ``right`` (B) side by side: tables and
    figures of the same name next to each other, the provenance keys that differ first and marked ≠; return
    ``path``. A folder without ``provenance.json`` is InputError (TK102)."""
    return _write_text(Path(path), report.render_comparison(load_run(out_dir=left), load_run(out_dir=right)))


def latex_tables(*, tables: Mapping[str, pd.DataFrame], folder: str | Path, layouts: Mapping[str, latex.PaperTable],
                 settings: Mapping | None = None, preset: str | None = None) -> list[Path]:
    """Write ``<name>.tex`` into ``folder`` for every paper table of ``layouts`` (a study's) whose source is among
    ``tables`` (name → frame as a study's ``write`` names them: ``eec_summary``, ``btcsam_failure_pct`` …), for
    ``preset`` (default the active figure preset); ``settings``: the run's (BTC-SAM's θ). Returns the paths."""
    target = Path(folder).expanduser()
    files.probe(target)
    rendered = latex.paper_tables(tables=tables, layouts=layouts, preset=table_preset(preset), settings=settings)
    return [files.write_file(target / f"{name}.tex", files.bytes_renderer(text.encode("utf-8")))
            for name, text in rendered.items()]


def export_latex(*, layouts: Mapping[str, latex.PaperTable], out_dir: str | Path | None = None,
                 study: str | None = None, folder: str | Path | None = None, preset: str | None = None) -> list[Path]:
    """Write ``<name>.tex`` for every paper table of the finished run in ``out_dir`` (None: the ``study``'s default
    folder, ``data/results/<study>``, where its run wrote without an ``out_dir``; its tables read back with the
    formula guard taken off, its settings from ``provenance.json``) into ``folder`` (default ``out_dir``), for
    ``preset`` (default the active figure preset; :data:`toolkit.outputs.latex.WIDTHS`), laid out by ``layouts``
    (the run's study's; :func:`toolkit.studies.latex_layouts`); return the paths. Files written here are not listed
    in the run's provenance."""
    if out_dir is None:
        if study is None:
            raise InputError("export_latex needs the run's folder.",
                             fix="pass out_dir=the folder the run wrote, or study='eec' (psa, biasfinder, btcsam) for "
                                 "its default folder data/results/<study>.")
        out_dir = paths.results_dir(study)
    run = load_run(out_dir=out_dir)
    settings = run.provenance.get("settings") if isinstance(run.provenance.get("settings"), dict) else None
    return latex_tables(tables={n: t.frame for n, t in run.tables.items()}, layouts=layouts,
                        folder=folder if folder is not None else Path(out_dir).expanduser(), settings=settings,
                        preset=preset)
