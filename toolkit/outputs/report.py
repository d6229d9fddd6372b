"""The HTML renderer of :mod:`toolkit.outputs`: a run's tables, figures and provenance as one self-contained HTML
page, and two runs side by side. Pure: data in, text out (writing and reading folders is :mod:`toolkit.outputs.runs`).

The page opens offline in any browser — figures embedded as base64 PNG, the CSS inline, no script, no external font,
style sheet or image (a Content-Security-Policy meta tag forbids loading any), every text HTML-escaped (a review text
holding ``<script>`` shows as text). Headers are plain text (:func:`toolkit.formatting.header_text`: a pivot's tuple
columns joined by spaces); numbers in the one format (:func:`toolkit.formatting.format_value`); cells wrap only at
word boundaries; each figure numbered with its caption ("Figure 2. eec_race_box: …"). A table shows its first
:data:`MAX_ROWS` rows; its caption says how many it has and which file holds all of them.

- :func:`render` — one :class:`Run`; :func:`render_comparison` — two runs: tables and figures of the same name next
  to each other (each captioned "same in both runs" or "differs"), and the provenance as one table of keys with the
  differing ones first and marked.
"""
from __future__ import annotations

import base64
import html
import io
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from toolkit import plots
from toolkit.errors import InputError
from toolkit.formatting import MISSING, format_value, header_text, is_number

MAX_ROWS = 200  # rows shown per table; the caption gives the full count
REPORT_DPI = 300  # a figure drawn for a report: twice the files' 150 dpi, shown at their size, full size on a click
FILE_DPI = 150  # the PNG files' resolution (toolkit.plots.write_figure): the size a figure is shown at

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:1.5em auto;
max-width:1400px;padding:0 1em;color:#1a1a1a;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0 1.5em}
caption{caption-side:top;text-align:left;font-weight:600;padding:.3em 0}
th,td{border:1px solid #d0d0d0;padding:.2em .5em;vertical-align:top}
th{background:#f2f2f2;text-align:left;overflow-wrap:normal;word-break:normal}td{max-width:32em;overflow-wrap:normal;word-break:normal;hyphens:manual}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.scroll{overflow-x:auto}
figure{margin:0 0 1.5em}figure img{max-width:100%;height:auto;border:1px solid #eee;cursor:zoom-in}
figcaption{font-weight:600;margin:.3em 0}
.figures{display:block}
figure .close{display:none}
figure:target{position:fixed;inset:0;z-index:9;margin:0;padding:1em;background:#fff;overflow:auto}
figure:target img{max-width:none;width:auto!important;cursor:auto}
figure:target .close{display:inline-block;margin:0 0 .5em;font-weight:600}
table .legend{display:block;font-weight:400;color:#555}
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
               source: str | None = None, partial: bool = False, legend: str = "") -> str:
    """``frame`` as an HTML ``<table>`` with ``caption`` (escaped): its first ``max_rows`` rows, numbers in the one
    format and right-aligned; ``total_rows`` (default ``len(frame)``), ``source`` (the file holding every row) and
    ``partial`` (only the start of a larger file was read) go into the caption, ``legend`` (what its verdict words
    mean) below it."""
    total = len(frame) if total_rows is None else total_rows
    shown = frame.iloc[:max_rows]
    size = (f"the first {len(shown):,} rows of a larger file" if partial
            else f"{total:,} rows × {frame.shape[1]:,} columns")
    if len(shown) < total and not partial:
        size += f"; the first {len(shown):,} shown"
    if source:
        size += f"; all in {source}" if partial or len(shown) < total else f"; from {source}"
    head = "".join(f"<th scope=\"col\">{esc(header_text(column))}</th>" for column in frame.columns)
    body = []
    for row in shown.itertuples(index=False, name=None):
        cells = "".join(f"<td class=\"num\">{esc(format_value(v))}</td>" if is_number(v)
                        else f"<td>{esc(format_value(v))}</td>" for v in row)
        body.append(f"<tr>{cells}</tr>")
    note = f"<span class=\"legend\">{esc(legend)}</span>" if legend else ""
    return (f"<div class=\"scroll\"><table><caption>{esc(caption)} <span class=\"note\">({esc(size)})</span>{note}"
            f"</caption><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def figure_png(item: Axes | Figure | bytes, *, dpi: int = REPORT_DPI) -> bytes:
    """PNG bytes of ``item``: an Axes or Figure drawn at ``dpi`` (default :data:`REPORT_DPI`, for a report's full
    size view), or PNG bytes as they are."""
    if isinstance(item, (bytes, bytearray)):
        return bytes(item)
    if not isinstance(item, (Axes, Figure)):
        raise InputError(f"a figure must be a matplotlib Axes, Figure or PNG bytes; got {type(item).__name__}.",
                         fix="pass the Axes a toolkit.plots function returned (or its .figure).")
    return plots.png(item, dpi=dpi)


def png_size(png: bytes) -> tuple[int, float]:
    """A PNG's width in pixels and its resolution in dpi (its ``pHYs`` chunk; :data:`FILE_DPI` without one)."""
    if len(png) < 24 or not png.startswith(b"\x89PNG"):
        return 0, float(FILE_DPI)
    width = int.from_bytes(png[16:20], "big")
    found = png.find(b"pHYs", 8, 4096)
    if found > 0 and png[found + 12:found + 13] == b"\x01":  # pixels per metre
        return width, int.from_bytes(png[found + 4:found + 8], "big") * 0.0254
    return width, float(FILE_DPI)


def figure_entry(name: str, known: Mapping[str, tuple]) -> tuple | None:
    """``known``'s entry for the figure file stem ``name``: its own, else that of a stem with a placeholder
    (``psa_score_sens_<model>``, ``multilingual_gaps_<task>``) whose fixed start ``name`` begins with; None if
    none."""
    return known.get(name) or next((value for key, value in known.items()
                                     if "<" in key and name.startswith(key.split("<")[0])), None)


def figure_caption(name: str, known: Mapping[str, tuple] | None = None) -> str:
    """The caption of a toolkit figure from its file stem: what it reproduces and how, from ``known`` (a study's
    :attr:`~toolkit.studies.base.Study.paper_figures`) or :data:`toolkit.plots.PAPER_FIGURES`
    (:func:`figure_entry`); "" for a figure the toolkit does not know."""
    entry = figure_entry(name, {**plots.PAPER_FIGURES, **dict(known or {})})
    if entry is None:
        return ""
    _, paper, how = entry[:3]
    known = paper and not paper.lower().startswith("none")
    return (f"{paper}: {how}" if known else f"{how[:1].upper()}{how[1:]}") + "."


def figure_html(name: str, png: bytes, *, number: int | None = None, caption: str = "", anchor: str = "") -> str:
    """A ``<figure>`` with the PNG embedded as a data URI, shown at the size of the figure files (:data:`FILE_DPI`)
    and, with ``anchor`` (a unique id), opened full size over the page by a click (CSS ``:target``, no script; a
    "close" link or Back returns); its caption "Figure N. name: caption" (escaped; a name that already says
    "figure …" is not repeated) and ``name`` as alt text."""
    data = base64.b64encode(png).decode("ascii")
    title = str(name)
    if number is not None:
        title = title if title.lower().startswith(("figure", "fig.")) else f"Figure {number}. {title}"
    text = f"<b>{esc(title)}</b>" + (f" {esc(caption)}" if caption else "")
    pixels, dpi = png_size(png)
    shown = f" width=\"{round(pixels * FILE_DPI / dpi)}\"" if pixels and dpi > FILE_DPI else ""
    image = f"<img alt=\"{esc(name)}\"{shown} src=\"data:image/png;base64,{data}\">"
    if not anchor:
        return f"<figure><figcaption>{text}</figcaption>{image}</figure>"
    return (f"<figure id=\"{esc(anchor)}\"><a class=\"close\" href=\"#top\">× close the full-size view</a>"
            f"<figcaption>{text}</figcaption><a href=\"#{esc(anchor)}\" title=\"open full size\">{image}</a>"
            "</figure>")


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


SETTINGS_SHOWN = {"alpha": "α (significance level)", "correction": "correction for multiple tests",
                  "family": "correction family", "family_size": "family size", "margin": "equivalence margin (±)",
                  "n_boot": "bootstrap replicates", "seed": "seed", "method": "interval method",
                  "interval": "interval", "weighting": "template weighting", "theta": "θ (failure threshold)",
                  "rule": "failure rule", "n_null": "placebo replicates"}
"""The statistics settings a report lists first (key in provenance.json's settings → what it is)."""


def settings_html(settings: Mapping) -> str:
    """The statistics settings of a run (:data:`SETTINGS_SHOWN`, those it has) as a table; "" for none."""
    rows = "".join(f"<tr><th scope=\"row\">{esc(label)}</th><td>{esc(format_value(settings[key]))}</td></tr>"
                   for key, label in SETTINGS_SHOWN.items() if key in settings and settings[key] not in (None, ""))
    return (f"<div class=\"scroll\"><table id=\"settings\"><caption>settings (all in provenance.json below)"
            f"</caption><tbody>{rows}</tbody></table></div>") if rows else ""


def provenance_html(provenance: Mapping) -> str:
    """The provenance as a two-column table (key, value), escaped."""
    rows = "".join(f"<tr><th scope=\"row\">{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in flatten(provenance).items())
    return (f"<div class=\"scroll\"><table><caption>provenance.json</caption><thead><tr><th>key</th><th>value</th>"
            f"</tr></thead><tbody>{rows}</tbody></table></div>")


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{_CSS}</style></head>\n<body>\n<h1 id=\"top\">{esc(title)}</h1>\n{body}\n"
            "</body></html>\n")


def check_names(kind: str, mapping: Any) -> None:
    if not isinstance(mapping, Mapping):
        raise InputError(f"{kind} must be a mapping of name → item; got {type(mapping).__name__}.",
                         fix=f"pass {kind}={{'name': item, …}} (an empty dict for none).")


# --- one run ----------------------------------------------------------------------------------------------------

@dataclass
class Table:
    """A table of a report: the frame shown, its full row count, the file holding every row, and whether only the
    start of that file was read."""

    frame: pd.DataFrame
    total: int
    source: str | None = None
    partial: bool = False
    legend: str = ""  # what the verdict words of the table mean (toolkit.verdicts)


@dataclass
class Run:
    """What a report shows of one run: tables (name → frame), figures (name → PNG bytes), the provenance, the
    files its provenance lists that are missing, and where it came from."""

    title: str
    tables: dict[str, Table]
    figures: dict[str, bytes]
    provenance: dict
    missing: list[str] = field(default_factory=list)
    folder: str = ""
    refused: list[str] = field(default_factory=list)  # listed files not read, each with the reason
    captions: dict[str, str] = field(default_factory=dict)  # figure name -> caption (default: figure_caption)
    others: list[str] = field(default_factory=list)  # other files the run wrote (LaTeX tables, vector figures)


def tables_of(tables: Mapping[str, pd.DataFrame], *, sources: Mapping[str, str] | None = None,
              display: Callable[[pd.DataFrame], tuple[pd.DataFrame, str]] | None = None) -> dict[str, Table]:
    """``tables`` (name → DataFrame, a named index becoming columns) as report tables; ``sources``: name → the
    file holding the table; ``display``: frame → (the frame as shown, its legend), e.g. a study's verdict words
    (:meth:`toolkit.studies.base.Study.display`). A value that is not a DataFrame is InputError (TK102)."""
    check_names("tables", tables)
    out = {}
    for name, frame in tables.items():
        if not isinstance(frame, pd.DataFrame):
            raise InputError(f"table {str(name)!r} is a {type(frame).__name__}, not a pandas DataFrame.",
                             fix="pass tables={'name': DataFrame, …}.")
        shown, legend = display(frame) if display is not None else (frame, "")
        out[str(name)] = Table(shown.reset_index() if named_index(shown) else shown, len(frame),
                               source=(sources or {}).get(name), legend=legend)
    return out


def named_index(frame: pd.DataFrame) -> bool:
    return any(name is not None for name in frame.index.names)


def _table_of(table: Table, caption: str) -> str:
    return table_html(table.frame, caption=caption, total_rows=table.total, source=table.source,
                      partial=table.partial, legend=table.legend)


def _figure_title(name: str, number: int) -> str:
    return name if name.lower().startswith(("figure", "fig.")) else f"Figure {number}. {name}"


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
    shown_settings = settings_html(settings if isinstance(settings, Mapping) else {})
    if shown_settings:
        parts.append(shown_settings)
    toc = [f"<li><a href=\"#{figure_ids[n]}\">{esc(_figure_title(n, i))}</a></li>"
           for i, n in enumerate(run.figures, start=1)]
    toc += [f"<li><a href=\"#{table_ids[n]}\">table {esc(n)}</a></li>" for n in run.tables]
    toc.append("<li><a href=\"#provenance\">provenance</a></li>")
    parts.append(f"<nav><ul>{''.join(toc)}</ul></nav>")
    shown = "".join(f"<section id=\"{figure_ids[n]}\">"
                    f"{figure_html(n, png, number=i, caption=run.captions.get(n, figure_caption(n)), anchor=f'{figure_ids[n]}-full')}"
                    "</section>" for i, (n, png) in enumerate(run.figures.items(), start=1))
    parts.append("<h2>Figures</h2>" + (f"<div class=\"figures\">{shown}</div>" if shown else
                                      "<p class=\"absent\">no figures</p>"))
    tables = "".join(f"<section id=\"{table_ids[n]}\">{_table_of(t, n)}</section>" for n, t in run.tables.items())
    parts.append("<h2>Tables</h2>" + (tables or "<p class=\"absent\">no tables</p>"))
    if run.others:
        parts.append("<p class=\"note\">Also written by the run: " + esc(", ".join(run.others)) + "</p>")
    parts.append(f"<h2 id=\"provenance\">Provenance</h2>{provenance_html(run.provenance)}")
    return _page(run.title, "\n".join(parts))


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
    header = ("<table><caption>the two runs</caption><thead><tr><th></th><th>folder</th><th>created</th>"
              "<th>models</th></tr></thead><tbody>")
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
        pair = [_side(figure_html(f"{label}: {name}", run.figures[name], caption=figure_caption(name))
                      if name in run.figures else None, label)
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


