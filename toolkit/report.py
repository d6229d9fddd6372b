"""HTML reports: one self-contained file per run, and two runs side by side (issue 26).

What: a run's tables, figures and provenance as one HTML file that opens offline in any browser — figures embedded
as base64 PNG, the CSS inline, no script, no external font, style sheet or image (a Content-Security-Policy meta
tag forbids loading any), every text HTML-escaped (a review text holding ``<script>`` shows as text).

- :func:`write_html` — from frames and Axes/Figures in memory (the apps' Export button; :func:`toolkit.results.write`
  with ``report=True`` or the CLI's ``--report``).
- :func:`from_run` — from a folder a run wrote (:func:`toolkit.results.write`: the CSV/Parquet tables, the figure
  PNGs and ``provenance.json``, whose ``outputs`` list says which files belong to the run). Tables are read with
  :func:`toolkit.results.read_table`, so the CSV formula guard is taken off.
- :func:`compare` — two such folders side by side: tables of the same name next to each other (each captioned
  "same in both runs" or "differs"), figures of the same name next to each other, and the provenance as one table
  of keys with the differing ones first and marked.

A run folder is read as untrusted input (a ``provenance.json`` may be planted or damaged): only the files its
``outputs`` list names directly inside the folder (never through a link), and figures (``<study>_*.png``) listed by
absolute path only when they lie in the run folder or the toolkit's figures folder (:func:`toolkit.paths.figures_dir`);
a figure must be a PNG (its first bytes) of at most :data:`MAX_FIGURE_BYTES`. Whatever is refused is named in the
report ("not read: …"). ``provenance.json`` is read up to :data:`MAX_PROVENANCE_BYTES` and :data:`MAX_DEPTH` levels
of nesting; a larger, deeper, non-UTF-8 or malformed one, and a table file that cannot be parsed, are InputError
(TK102) naming the file.

One number format everywhere (:func:`format_value`): whole numbers with thousands separators, other numbers to
4 significant digits, missing values as an em dash. A table shows its first :data:`MAX_ROWS` rows; its caption
says how many it has and which file holds all of them.
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
import numbers
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from toolkit.errors import InputError

MAX_ROWS = 200  # rows shown per table; the caption gives the full count
LARGE_FILE = 20_000_000  # bytes: a table file larger than this is read only up to MAX_ROWS rows
REPORT_NAME = "report.html"
TABLE_SUFFIXES = (".csv", ".parquet")
MISSING = "—"
MAX_PROVENANCE_BYTES = 50_000_000  # a provenance.json larger than this is refused
MAX_DEPTH = 64  # levels of nesting a provenance.json may have (the toolkit writes about 5)
MAX_FIGURE_BYTES = 50_000_000  # a figure PNG larger than this is not embedded
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:1.5em auto;
max-width:1400px;padding:0 1em;color:#1a1a1a;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0 1.5em}
caption{caption-side:top;text-align:left;font-weight:600;padding:.3em 0}
th,td{border:1px solid #d0d0d0;padding:.2em .5em;vertical-align:top}
th{background:#f2f2f2;text-align:left}td{max-width:32em;overflow-wrap:anywhere}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.scroll{overflow-x:auto}
figure{margin:0 0 1.5em}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-weight:600;margin:.3em 0}
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(440px,1fr));gap:1em}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1.5em;align-items:start}
.pair>div{min-width:0}
.absent{color:#777;font-style:italic}
tr.differ td{background:#fff2cc}tr.differ td.mark{font-weight:700}
.note{color:#555;font-size:.9em}
nav ul{columns:2;font-size:.9em}
"""
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


# --- values and pieces ------------------------------------------------------------------------------------------

_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def esc(text: Any) -> str:
    """``text`` as HTML text (``& < > " '`` escaped), bidirectional controls (U+202E …, which would reorder what a
    reader sees) shown as ``[U+202E]``."""
    return _BIDI.sub(lambda m: f"[U+{ord(m.group()):04X}]", html.escape(str(text), quote=True))


def format_value(value: Any) -> str:
    """The report's one number format: whole numbers with thousands separators, other numbers to 4 significant
    digits (no exponent between 10⁻⁴ and 10¹⁵), missing values (None, NaN, NA) as an em dash, anything else as
    ``str``."""
    if value is None or value is pd.NA or value is pd.NaT:
        return MISSING
    if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return MISSING
        if math.isinf(number):
            return "∞" if number > 0 else "−∞"
        if number != 0 and 1e4 <= abs(number) < 1e15:
            return f"{number:,.0f}" if number.is_integer() else f"{number:,.1f}"
        return f"{number:.4g}"
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool) and type(value).__name__ != "bool_"


def _slug(text: str, used: set[str]) -> str:
    """An HTML id for ``text``, unique among ``used``."""
    base = "".join(ch if ch.isalnum() else "-" for ch in str(text)).strip("-").lower() or "item"
    slug, n = base, 1
    while slug in used:
        n += 1
        slug = f"{base}-{n}"
    used.add(slug)
    return slug


def table_html(frame: pd.DataFrame, *, caption: str, max_rows: int = MAX_ROWS, total_rows: int | None = None,
               source: str | None = None, partial: bool = False) -> str:
    """``frame`` as an HTML ``<table>`` with ``caption`` (escaped): its first ``max_rows`` rows, numbers in the one
    format and right-aligned; ``total_rows`` (default ``len(frame)``), ``source`` (the file holding every row) and
    ``partial`` (only the start of a larger file was read) go into the caption."""
    total = len(frame) if total_rows is None else total_rows
    shown = frame.iloc[:max_rows]
    size = (f"the first {len(shown):,} rows of a larger file" if partial
            else f"{total:,} rows × {frame.shape[1]:,} columns")
    if len(shown) < total and not partial:
        size += f"; the first {len(shown):,} shown"
    if source:
        size += f"; all in {source}" if partial or len(shown) < total else f"; from {source}"
    head = "".join(f"<th scope=\"col\">{esc(column)}</th>" for column in frame.columns)
    body = []
    for row in shown.itertuples(index=False, name=None):
        cells = "".join(f"<td class=\"num\">{esc(format_value(v))}</td>" if _is_number(v)
                        else f"<td>{esc(format_value(v))}</td>" for v in row)
        body.append(f"<tr>{cells}</tr>")
    return (f"<div class=\"scroll\"><table><caption>{esc(caption)} <span class=\"note\">({esc(size)})</span>"
            f"</caption><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def figure_png(item: Axes | Figure | bytes) -> bytes:
    """PNG bytes of ``item``: an Axes or Figure drawn as :func:`toolkit.plots.write_figure` saves it (150 dpi), or
    PNG bytes as they are."""
    if isinstance(item, (bytes, bytearray)):
        return bytes(item)
    if not isinstance(item, (Axes, Figure)):
        raise InputError(f"a figure must be a matplotlib Axes, Figure or PNG bytes; got {type(item).__name__}.",
                         fix="pass the Axes a toolkit.plots function returned (or its .figure).")
    from toolkit import plots

    buffer = io.BytesIO()
    plots.write_figure(item, buffer, fmt="png")
    return buffer.getvalue()


def figure_html(name: str, png: bytes) -> str:
    """A ``<figure>`` with the PNG embedded as a data URI and ``name`` (escaped) as caption and alt text."""
    data = base64.b64encode(png).decode("ascii")
    return (f"<figure><figcaption>{esc(name)}</figcaption><img alt=\"{esc(name)}\" "
            f"src=\"data:image/png;base64,{data}\"></figure>")


def flatten(provenance: Mapping, prefix: str = "") -> dict[str, str]:
    """``provenance`` as ``{dotted key: text}``: nested mappings joined with ``.``, a list of ``{"spec": …}``
    records (the models) keyed by spec, other lists and values as compact JSON (strings as they are)."""
    flat: dict[str, str] = {}
    for key, value in provenance.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            flat.update(flatten(value, f"{name}."))
        elif (isinstance(value, list) and value and all(isinstance(v, Mapping) and "spec" in v for v in value)):
            for record in value:
                rest = {k: v for k, v in record.items() if k != "spec"}
                flat.update(flatten(rest, f"{name}[{record['spec']}].") if rest else {f"{name}[{record['spec']}]": ""})
        else:
            flat[name] = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return flat


def provenance_html(provenance: Mapping) -> str:
    """The provenance as a two-column table (key, value), escaped."""
    rows = "".join(f"<tr><th scope=\"row\">{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in flatten(provenance).items())
    return (f"<div class=\"scroll\"><table><caption>provenance.json</caption><thead><tr><th>key</th><th>value</th>"
            f"</tr></thead><tbody>{rows}</tbody></table></div>")


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{_CSS}</style></head>\n<body>\n<h1>{esc(title)}</h1>\n{body}\n"
            "</body></html>\n")


def _write_text(path: Path, text: str) -> Path:
    from toolkit import results

    return results.write_file(path, lambda handle: handle.write(text.encode("utf-8")))


def _check_names(kind: str, mapping: Any) -> None:
    if not isinstance(mapping, Mapping):
        raise InputError(f"{kind} must be a mapping of name → item; got {type(mapping).__name__}.",
                         fix=f"pass {kind}={{'name': item, …}} (an empty dict for none).")


# --- one run ----------------------------------------------------------------------------------------------------

@dataclass
class _Table:
    frame: pd.DataFrame
    total: int
    source: str | None = None
    partial: bool = False


@dataclass
class Run:
    """What a report shows of one run: tables (name → frame), figures (name → PNG bytes), the provenance, the
    files its provenance lists that are missing, and where it came from."""

    title: str
    tables: dict[str, _Table]
    figures: dict[str, bytes]
    provenance: dict
    missing: list[str] = field(default_factory=list)
    folder: str = ""
    refused: list[str] = field(default_factory=list)  # listed files not read, each with the reason


def _tables(tables: Mapping[str, pd.DataFrame]) -> dict[str, _Table]:
    out = {}
    for name, frame in tables.items():
        if not isinstance(frame, pd.DataFrame):
            raise InputError(f"table {str(name)!r} is a {type(frame).__name__}, not a pandas DataFrame.",
                             fix="pass tables={'name': DataFrame, …}.")
        out[str(name)] = _Table(frame.reset_index() if _named_index(frame) else frame, len(frame))
    return out


def _named_index(frame: pd.DataFrame) -> bool:
    return any(name is not None for name in frame.index.names)


def _table_of(table: _Table, caption: str) -> str:
    return table_html(table.frame, caption=caption, total_rows=table.total, source=table.source,
                      partial=table.partial)


def render(run: Run) -> str:
    """The HTML text of one run's report (see the module docstring)."""
    used: set[str] = set()
    table_ids = {name: _slug(f"table-{name}", used) for name in run.tables}
    figure_ids = {name: _slug(f"figure-{name}", used) for name in run.figures}
    settings = run.provenance.get("settings", {}) if isinstance(run.provenance, Mapping) else {}
    models = [m.get("spec", "") for m in run.provenance.get("models", []) if isinstance(m, Mapping)] \
        if isinstance(run.provenance.get("models"), list) else []
    facts = [("study", settings.get("study") if isinstance(settings, Mapping) else None),
             ("created", run.provenance.get("created")), ("models", ", ".join(models) or None),
             ("toolkit", run.provenance.get("toolkit")), ("git commit", run.provenance.get("git_commit")),
             ("folder", run.folder or None)]
    parts = ["<p class=\"note\">" + " · ".join(f"{esc(k)}: {esc(v)}" for k, v in facts if v) + "</p>"]
    if run.missing:
        parts.append("<p class=\"absent\">Listed in provenance.json but missing: "
                     + esc(", ".join(run.missing)) + "</p>")
    if run.refused:
        parts.append("<p class=\"absent\">Listed in provenance.json but not read: "
                     + esc("; ".join(run.refused)) + "</p>")
    toc = [f"<li><a href=\"#{figure_ids[n]}\">figure {esc(n)}</a></li>" for n in run.figures]
    toc += [f"<li><a href=\"#{table_ids[n]}\">table {esc(n)}</a></li>" for n in run.tables]
    toc.append("<li><a href=\"#provenance\">provenance</a></li>")
    parts.append(f"<nav><ul>{''.join(toc)}</ul></nav>")
    shown = "".join(f"<section id=\"{figure_ids[n]}\">{figure_html(n, png)}</section>"
                    for n, png in run.figures.items())
    parts.append("<h2>Figures</h2>" + (f"<div class=\"figures\">{shown}</div>" if shown else
                                      "<p class=\"absent\">no figures</p>"))
    tables = "".join(f"<section id=\"{table_ids[n]}\">{_table_of(t, n)}</section>" for n, t in run.tables.items())
    parts.append("<h2>Tables</h2>" + (tables or "<p class=\"absent\">no tables</p>"))
    parts.append(f"<h2 id=\"provenance\">Provenance</h2>{provenance_html(run.provenance)}")
    return _page(run.title, "\n".join(parts))


def write_html(*, title: str, tables: Mapping[str, pd.DataFrame], figures: Mapping[str, Axes | Figure],
               provenance: Mapping, path: str | Path) -> Path:
    """Write one self-contained HTML report to ``path`` (replaced atomically) and return it.

    ``tables``: name → DataFrame (a named index becomes columns); ``figures``: name → Axes, Figure or PNG bytes
    (embedded as base64 PNG); ``provenance``: a mapping such as :func:`toolkit.provenance.record`'s, shown as a
    key/value table. Every text is escaped. Bad input is InputError (TK102); an unwritable path OutputDirError
    (TK105)."""
    _check_names("tables", tables)
    _check_names("figures", figures)
    if not isinstance(provenance, Mapping):
        raise InputError(f"provenance must be a mapping; got {type(provenance).__name__}.",
                         fix="pass the run's provenance record (a dict), or {} for none.")
    run = Run(title=str(title), tables=_tables(tables),
              figures={str(n): figure_png(item) for n, item in figures.items()}, provenance=dict(provenance))
    return _write_text(Path(path), render(run))


def _read_provenance(folder: Path) -> dict:
    path = folder / "provenance.json"
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


def _numbers_back(frame: pd.DataFrame) -> pd.DataFrame:
    """A table read from CSV with empty cells as "" (:func:`toolkit.results.read_table`): a text column whose
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
    from toolkit import paths

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


def load_run(*, out_dir: str | Path) -> Run:
    """The tables, figure PNGs and provenance of the run that wrote ``out_dir`` (the files its provenance lists;
    CSV preferred to Parquet when both exist; a table file over :data:`LARGE_FILE` bytes read up to
    :data:`MAX_ROWS` rows)."""
    from toolkit import results

    folder = Path(out_dir).expanduser()
    record = _read_provenance(folder)
    listed = record.get("outputs", [])
    names = [n for n in listed if isinstance(n, str)] if isinstance(listed, list) else []
    guard = (record.get("settings") or {}).get("csv_formula_guard") if isinstance(record.get("settings"), dict) \
        else None
    tables: dict[str, _Table] = {}
    figures: dict[str, bytes] = {}
    missing: list[str] = []
    refused: list[str] = []
    settings = record.get("settings") if isinstance(record.get("settings"), dict) else {}
    for name in names:
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
            frame = results.read_table(path, csv_formula_guard=guard, **({"nrows": MAX_ROWS} if partial else {}))
        else:
            frame = results.read_table(path)
        tables[path.stem] = _Table(_numbers_back(frame), len(frame), source=path.name, partial=partial)
    study = (record.get("settings") or {}).get("study") if isinstance(record.get("settings"), dict) else None
    title = f"{study or 'toolkit'} run: {folder.resolve().name}"
    return Run(title=title, tables=tables, figures=figures, provenance=record, missing=missing,
               folder=str(folder.resolve()), refused=refused)


def from_run(*, out_dir: str | Path, path: str | Path | None = None) -> Path:
    """Write the report of the run in ``out_dir`` (see :func:`load_run`) to ``path`` (default
    ``out_dir/report.html``) and return it. A folder without ``provenance.json`` is InputError (TK102)."""
    run = load_run(out_dir=out_dir)
    target = Path(path) if path is not None else Path(out_dir).expanduser() / REPORT_NAME
    return _write_text(target, render(run))


# --- two runs ---------------------------------------------------------------------------------------------------

def _same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    try:
        return a.shape == b.shape and list(a.columns) == list(b.columns) and a.reset_index(drop=True).equals(
            b.reset_index(drop=True))
    except (TypeError, ValueError):
        return False


def _side(content: str | None, label: str) -> str:
    return f"<div>{content}</div>" if content is not None else \
        f"<div><p class=\"absent\">not in run {esc(label)}</p></div>"


def render_comparison(left: Run, right: Run) -> str:
    """The HTML text of :func:`compare`."""
    a, b = "A", "B"
    used: set[str] = set()
    header = (f"<table><caption>the two runs</caption><thead><tr><th></th><th>folder</th><th>created</th>"
              f"<th>models</th></tr></thead><tbody>")
    for label, run in ((a, left), (b, right)):
        models = ", ".join(m.get("spec", "") for m in run.provenance.get("models", []) if isinstance(m, Mapping)) \
            if isinstance(run.provenance.get("models"), list) else ""
        header += (f"<tr><th scope=\"row\">{label}</th><td>{esc(run.folder)}</td>"
                   f"<td>{esc(run.provenance.get('created', ''))}</td><td>{esc(models)}</td></tr>")
    parts = [header + "</tbody></table>"]
    flat_a, flat_b = flatten(left.provenance), flatten(right.provenance)
    keys = list(dict.fromkeys([*flat_a, *flat_b]))
    differ = [k for k in keys if flat_a.get(k) != flat_b.get(k)]
    same = [k for k in keys if flat_a.get(k) == flat_b.get(k)]

    def rows(selected: list[str], mark: bool) -> str:
        return "".join(
            f"<tr class=\"{'differ' if mark else 'same'}\"><td class=\"mark\">{'≠' if mark else '='}</td>"
            f"<th scope=\"row\">{esc(k)}</th><td>{esc(flat_a.get(k, MISSING))}</td>"
            f"<td>{esc(flat_b.get(k, MISSING))}</td></tr>" for k in selected)

    head = f"<thead><tr><th></th><th>key</th><th>{a}</th><th>{b}</th></tr></thead>"
    parts.append(f"<nav><ul><li><a href=\"#provenance\">provenance ({len(differ)} differences)</a></li>"
                 "<li><a href=\"#figures\">figures</a></li><li><a href=\"#tables\">tables</a></li></ul></nav>")
    parts.append(f"<h2 id=\"provenance\">Provenance: {len(differ)} of {len(keys)} keys differ</h2>"
                 f"<div class=\"scroll\"><table><caption>keys that differ (≠)</caption>{head}<tbody>"
                 f"{rows(differ, True)}</tbody></table></div>"
                 f"<details><summary>the {len(same)} keys that are the same</summary><div class=\"scroll\"><table>"
                 f"<caption>keys that are the same (=)</caption>{head}<tbody>{rows(same, False)}</tbody></table>"
                 "</div></details>")
    figure_names = list(dict.fromkeys([*left.figures, *right.figures]))
    blocks = []
    for name in figure_names:
        pair = [_side(figure_html(f"{label}: {name}", run.figures[name]) if name in run.figures else None, label)
                for label, run in ((a, left), (b, right))]
        blocks.append(f"<section id=\"{_slug('figure-' + name, used)}\"><h3>{esc(name)}</h3>"
                      f"<div class=\"pair\">{''.join(pair)}</div></section>")
    parts.append("<h2 id=\"figures\">Figures</h2>" + ("".join(blocks) or "<p class=\"absent\">no figures</p>"))
    table_names = list(dict.fromkeys([*left.tables, *right.tables]))
    blocks = []
    for name in table_names:
        both = name in left.tables and name in right.tables
        partial = both and (left.tables[name].partial or right.tables[name].partial)
        state = ("not compared: only the first rows of a large table were read" if partial else
                 "same in both runs" if _same(left.tables[name].frame, right.tables[name].frame) else "differs") \
            if both else "in one run only"
        pair = [_side(_table_of(run.tables[name], f"{label}: {name}") if name in run.tables else None, label)
                for label, run in ((a, left), (b, right))]
        blocks.append(f"<section id=\"{_slug('table-' + name, used)}\"><h3>{esc(name)} "
                      f"<span class=\"note\">({esc(state)})</span></h3><div class=\"pair\">{''.join(pair)}</div>"
                      "</section>")
    parts.append("<h2 id=\"tables\">Tables</h2>" + ("".join(blocks) or "<p class=\"absent\">no tables</p>"))
    return _page(f"Two runs compared: {left.title} | {right.title}", "\n".join(parts))


def compare(*, left: str | Path, right: str | Path, path: str | Path) -> Path:
    """Write one HTML file comparing the runs in the folders ``left`` (A) and ``right`` (B) side by side: tables and
    figures of the same name next to each other, the provenance keys that differ first and marked ≠; return
    ``path``. A folder without ``provenance.json`` is InputError (TK102)."""
    return _write_text(Path(path), render_comparison(load_run(out_dir=left), load_run(out_dir=right)))
