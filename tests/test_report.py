"""toolkit.outputs.report / runs: one self-contained, escaped HTML file per run; from a run's folder; two runs side by side; and the
report and LaTeX tables as planned outputs of toolkit.outputs.runs.write (issues 26, 33, 35)."""
from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from toolkit import formatting, studies
from toolkit.errors import InputError, ToolkitError
from toolkit.outputs import report, runs

EVIL = "<script>alert('x')</script>"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class _Page(HTMLParser):
    """Every start tag with its attributes, and the text of each table cell and caption."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.cells: list[str] = []
        self.captions: list[str] = []
        self.rows: list[dict] = []  # each <tr>: its class and its cells' text
        self._into: list | None = None
        self._buffer = ""
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "tr":
            self.rows.append({"class": dict(attrs).get("class", ""), "cells": []})
        if tag in ("td", "th", "caption"):
            self._into, self._buffer = (self.captions if tag == "caption" else self.cells), ""

    def handle_endtag(self, tag):
        if tag in ("td", "th", "caption") and self._into is not None:
            self._into.append(self._buffer)
            if tag != "caption" and self.rows:
                self.rows[-1]["cells"].append(self._buffer)
            self._into = None

    def handle_data(self, data):
        if self._into is not None:
            self._buffer += data

    def count(self, tag: str) -> int:
        return sum(1 for t, _ in self.tags if t == tag)


def _axes(color: str = "C0"):
    fig = Figure(figsize=(3, 2))
    ax = fig.subplots()
    ax.bar(["a", "b"], [1.0, 2.0], color=color)
    return ax


def _run_folder(tmp_path, name: str, *, setting: int = 1, value: float = 0.5, report_on: bool | None = None,
                latex_on: bool | None = None):
    """A study's outputs written by results.write (no model is loaded: the fingerprints ride on the scored table)."""
    scored = pd.DataFrame({"model": ["m"], "text": ["t"]})
    scored.attrs["fingerprints"] = {"m": "f" * 32}
    tables = {"demo_table": pd.DataFrame({"text": ["=cmd", EVIL, "plain"], "value": [value, -0.25, np.nan],
                                          "n": [1, 20_000, 3]}),
              "demo_same": pd.DataFrame({"k": ["x"], "v": [1.5]})}
    out = tmp_path / name
    written = runs.write(study="demo", tables=tables, axes={"demo_bars": _axes()}, scored=scored, fingerprints=scored.attrs.get("fingerprints"), models=["m"],
                            settings={"study": "demo", "setting": setting}, out_dir=out, figures_dir=out,
                            report=report_on, latex=latex_on)
    return out, written


def test_report_write_html_escapes_every_text_and_embeds_figures_without_external_resources(tmp_path):
    frame = pd.DataFrame({EVIL: [EVIL, "a & b"], "x": [0.1, 2.0]})
    path = runs.write_html(title=f"run {EVIL}", tables={f"t{EVIL}": frame}, figures={f"f{EVIL}": _axes()},
                             provenance={"settings": {"note": EVIL}, "models": [{"spec": EVIL, "fingerprint": "1"}]},
                             path=tmp_path / "r.html")
    text = path.read_text(encoding="utf-8")
    page = _Page(text)
    assert page.count("script") == 0 and "<script" not in text.lower()
    assert text.count("&lt;script&gt;") >= 6  # title (2×), table name, column, cell, figure name, provenance
    assert EVIL in page.cells and "a & b" in page.cells  # shown as text, unchanged
    images = [attrs for tag, attrs in page.tags if tag == "img"]
    assert len(images) == 1 and images[0]["alt"] == f"f{EVIL}"
    data = images[0]["src"].removeprefix("data:image/png;base64,")
    assert base64.b64decode(data).startswith(PNG_MAGIC)
    for tag, attrs in page.tags:  # nothing is fetched: no link, no external src/href
        assert tag not in ("link", "iframe", "object", "embed")
        for key in ("src", "href"):
            assert not attrs.get(key, "").startswith(("http:", "https:", "//", "file:"))
    meta = [a for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert meta and "default-src 'none'" in meta[0]["content"]


def test_report_uses_one_number_format_in_every_cell():
    assert formatting.format_value(1234567) == "1,234,567"
    assert formatting.format_value(np.int64(7)) == "7"
    assert formatting.format_value(0.0123456) == "0.01235"
    assert formatting.format_value(-2.5e-7) == "-2.5e-07"
    assert formatting.format_value(123456.7) == "123,456.7"
    assert formatting.format_value(float("nan")) == formatting.format_value(None) == formatting.format_value(pd.NA) == "—"
    assert formatting.format_value(True) == "True"
    page = _Page(report.table_html(pd.DataFrame({"a": [0.333333, 12.0], "b": ["x", "y"]}), caption="c"))
    assert page.cells[2:] == ["0.3333", "x", "12", "y"]  # after the two headers


def test_report_table_shows_its_first_rows_and_says_how_many_it_has():
    frame = pd.DataFrame({"i": range(250)})
    page = _Page(report.table_html(frame, caption="big", source="big.csv"))
    assert page.count("tr") == 1 + report.MAX_ROWS
    assert "250 rows" in page.captions[0] and "first 200" in page.captions[0] and "big.csv" in page.captions[0]


def test_report_write_html_rejects_what_is_not_a_frame_or_a_figure(tmp_path):
    with pytest.raises(InputError) as excinfo:
        runs.write_html(title="t", tables={"x": [1, 2]}, figures={}, provenance={}, path=tmp_path / "r.html")
    assert excinfo.value.code == "TK102" and "DataFrame" in str(excinfo.value)
    with pytest.raises(InputError):
        runs.write_html(title="t", tables={}, figures={"f": "figure.png"}, provenance={}, path=tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


def test_report_from_run_reads_tables_unguarded_figures_and_provenance(tmp_path):
    out, _ = _run_folder(tmp_path, "run")
    path = runs.from_run(out_dir=out)
    assert path == out / "report.html"
    page = _Page(path.read_text(encoding="utf-8"))
    assert "=cmd" in page.cells and "'=cmd" not in page.cells  # the CSV formula guard taken off
    assert EVIL in page.cells and page.count("script") == 0
    assert "-0.25" in page.cells and "20,000" in page.cells and "—" in page.cells  # numbers back from the CSV
    assert [c.split(" (")[0] for c in page.captions if c.startswith("demo_")] == ["demo_table", "demo_same"]
    assert page.count("img") == 1
    assert ["settings.setting", "1"] in [r["cells"] for r in page.rows]


def test_report_from_run_names_a_listed_file_that_is_missing(tmp_path):
    out, _ = _run_folder(tmp_path, "run")
    (out / "demo_same.csv").unlink()
    text = runs.from_run(out_dir=out).read_text(encoding="utf-8")
    assert "missing: demo_same.csv" in text


def test_report_from_run_of_a_folder_that_is_not_a_run_is_tk102(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError) as excinfo:
        runs.from_run(out_dir=tmp_path / "empty")
    assert excinfo.value.code == "TK102" and "provenance.json" in str(excinfo.value)
    with pytest.raises(InputError):
        runs.from_run(out_dir=tmp_path / "nowhere")


def test_report_compare_aligns_tables_and_figures_and_marks_provenance_differences(tmp_path):
    left, _ = _run_folder(tmp_path, "a", setting=1, value=0.5)
    right, _ = _run_folder(tmp_path, "b", setting=2, value=0.75)
    text = runs.compare(left=left, right=right, path=tmp_path / "cmp.html").read_text(encoding="utf-8")
    page = _Page(text)
    assert page.count("img") == 2  # demo_bars from A and from B
    differ = {r["cells"][1]: r["cells"][2:] for r in page.rows if r["class"] == "differ"}
    assert differ["settings.setting"] == ["1", "2"]
    same = {r["cells"][1] for r in page.rows if r["class"] == "same"}
    assert "models[m].fingerprint" in same and "settings.setting" not in same
    assert "demo_table (differs)" in " ".join(text.split()).replace("<span class=\"note\">", "").replace(
        "</span>", "")
    assert "demo_same" in text and "(same in both runs)" in text
    assert sum(1 for c in page.captions if c.startswith(("A: demo_table", "B: demo_table"))) == 2
    assert page.count("script") == 0 and EVIL in page.cells


def test_results_write_report_and_latex_are_listed_outputs_that_a_later_run_removes(tmp_path):
    out, written = _run_folder(tmp_path, "run", report_on=True)
    assert out / "report.html" in written
    listed = json.loads((out / "provenance.json").read_text())["outputs"]
    assert "report.html" in listed
    page = _Page((out / "report.html").read_text(encoding="utf-8"))
    image = next(a for t, a in page.tags if t == "img")
    embedded = base64.b64decode(image["src"].removeprefix("data:image/png;base64,"))
    assert embedded == (out / "demo_bars.png").read_bytes()  # the PNG the run wrote, not a second drawing
    assert any(r["cells"][:1] == ["outputs"] and "report.html" in r["cells"][1] for r in page.rows)
    _run_folder(tmp_path, "run")  # the next run into the folder, without a report
    assert not (out / "report.html").exists()
    assert "report.html" not in json.loads((out / "provenance.json").read_text())["outputs"]


def test_runs_write_adds_the_report_only_to_the_call_that_asks_for_it(tmp_path):
    out, _ = _run_folder(tmp_path, "run", report_on=True)
    assert (out / "report.html").is_file()
    other, _ = _run_folder(tmp_path, "after")
    assert not (other / "report.html").exists()  # nothing set from a distance carries over


def test_results_write_leaves_a_foreign_report_html_alone_when_no_run_listed_it(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "report.html").write_text("mine")
    _run_folder(tmp_path, "run")
    assert (out / "report.html").read_text() == "mine"


def test_results_write_report_into_a_folder_where_report_html_is_a_folder_is_tk105(tmp_path):
    out = tmp_path / "run"
    (out / "report.html").mkdir(parents=True)
    with pytest.raises(ToolkitError) as excinfo:
        _run_folder(tmp_path, "run", report_on=True)
    assert excinfo.value.code == "TK105"
    assert not (out / "provenance.json").exists()


def test_a_planted_provenance_cannot_copy_other_files_into_a_report(tmp_path):
    out, _ = _run_folder(tmp_path, "run")
    secret = tmp_path / "secret.csv"
    secret.write_text("key\nAKIA-SECRET\n")
    (out / "demo_link.csv").symlink_to(secret)
    record = json.loads((out / "provenance.json").read_text())
    record["outputs"] += [str(secret), "demo_link.csv", "../secret.csv"]
    (out / "provenance.json").write_text(json.dumps(record))
    page = runs.from_run(out_dir=out).read_text(encoding="utf-8")
    assert "AKIA-SECRET" not in page and "demo_table" in page  # the run's own tables are still there


def test_a_column_read_back_empty_is_missing_numbers_and_zero_padded_codes_stay_text():
    frame = pd.DataFrame({"avg_diff": ["", ""], "code": ["007", "012"], "x": ["1.5", ""]})
    back = runs.numbers_back(frame)
    assert back["avg_diff"].dtype == float and back["avg_diff"].isna().all()
    assert back["code"].tolist() == ["007", "012"]
    assert back["x"].iloc[0] == 1.5 and np.isnan(back["x"].iloc[1])


def test_compare_does_not_call_partly_read_tables_the_same(tmp_path, monkeypatch):
    left, _ = _run_folder(tmp_path, "a")
    right, _ = _run_folder(tmp_path, "b")
    monkeypatch.setattr(runs, "LARGE_FILE", 10)  # every table counts as large: only its first rows are read
    text = runs.compare(left=left, right=right, path=tmp_path / "both.html").read_text(encoding="utf-8")
    assert "same in both runs" not in text and "not compared" in text


# --- issue 37: a run folder is untrusted input ------------------------------------------------------------------

def _plant(out, *extra_outputs):
    record = json.loads((out / "provenance.json").read_text())
    record["outputs"] += list(extra_outputs)
    (out / "provenance.json").write_text(json.dumps(record))


def test_a_planted_provenance_cannot_embed_a_png_named_file_from_elsewhere(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLKIT_FIGURES", str(tmp_path / "figures"))
    out, _ = _run_folder(tmp_path, "run")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "demo_secret.png").write_text("TOP SECRET TEXT")
    real_png = (out / "demo_bars.png").read_bytes()
    (elsewhere / "demo_real.png").write_bytes(real_png + b"ELSEWHERE")  # a true PNG, but outside
    (out / "demo_text.png").write_text("NOT AN IMAGE")  # inside the run folder, but not a PNG
    _plant(out, str(elsewhere / "demo_secret.png"), str(elsewhere / "demo_real.png"), "demo_text.png")
    page = runs.from_run(out_dir=out).read_text(encoding="utf-8")
    for secret in (b"TOP SECRET TEXT", real_png + b"ELSEWHERE", b"NOT AN IMAGE"):
        assert base64.b64encode(secret).decode() not in page
    assert base64.b64encode(real_png).decode() in page  # the run's own figure is still embedded
    assert "demo_secret.png (outside the run folder and the figures folder)" in page
    assert "demo_text.png (not a PNG image)" in page


def test_a_figure_the_run_wrote_into_the_figures_folder_is_still_embedded(tmp_path, monkeypatch):
    figures = tmp_path / "figures"
    monkeypatch.setenv("TOOLKIT_FIGURES", str(figures))
    scored = pd.DataFrame({"model": ["m"], "text": ["t"]})
    scored.attrs["fingerprints"] = {"m": "f" * 32}
    out = tmp_path / "run"
    runs.write(study="demo", tables={"demo_t": pd.DataFrame({"k": [1]})}, axes={"demo_bars": _axes()},
                  scored=scored, fingerprints=scored.attrs.get("fingerprints"), models=["m"], settings={"study": "demo"}, out_dir=out, figures_dir=figures)
    page = runs.from_run(out_dir=out).read_text(encoding="utf-8")
    assert base64.b64encode((figures / "demo_bars.png").read_bytes()).decode() in page


@pytest.mark.parametrize("nested", ["[" * 100_000 + "]" * 100_000, '{"a":' * 100 + "1" + "}" * 100])
def test_a_deeply_nested_provenance_is_tk102_not_a_recursion_error(tmp_path, nested):
    out, _ = _run_folder(tmp_path, "run")
    text = (out / "provenance.json").read_text()
    (out / "provenance.json").write_text(text.rstrip().rstrip("}") + f', "deep": {nested}}}')
    for call in (lambda: runs.from_run(out_dir=out),
                 lambda: runs.compare(left=out, right=out, path=tmp_path / "c.html")):
        with pytest.raises(InputError, match=r"provenance\.json' is nested") as excinfo:
            call()
        assert excinfo.value.code == "TK102"


def test_a_provenance_too_large_or_not_utf8_is_tk102_naming_it(tmp_path, monkeypatch):
    out, _ = _run_folder(tmp_path, "run")
    monkeypatch.setattr(runs, "MAX_PROVENANCE_BYTES", 100)
    with pytest.raises(InputError, match=r"provenance\.json' is larger than 100 bytes"):
        runs.from_run(out_dir=out)
    monkeypatch.undo()
    (out / "provenance.json").write_bytes(b'{"settings": {"study": "caf\xe9"}}')
    with pytest.raises(InputError, match=r"cannot read .*provenance\.json"):
        runs.from_run(out_dir=out)


@pytest.mark.parametrize("name, content, pattern", [
    ("demo_bad.csv", b'"a","b"\n"x\n', r"ParserError"),
    ("demo_latin.csv", b'"a"\n"caf\xe9"\n', r"not UTF-8 text \(byte 0xe9 on line 2\)"),
    ("demo_garbage.csv", bytes(range(256)) * 4, r"cannot read the CSV table"),
    ("demo_empty.csv", b"", r"EmptyDataError"),
    ("demo_bad.parquet", b"PAR1garbagePAR1", r"cannot read the Parquet table"),
])
def test_a_malformed_table_is_tk102_naming_the_file(tmp_path, name, content, pattern):
    out, _ = _run_folder(tmp_path, "run")
    (out / name).write_bytes(content)
    _plant(out, name)
    for call in (lambda: runs.from_run(out_dir=out), lambda: runs.export_latex(layouts=studies.latex_layouts(), out_dir=out)):
        with pytest.raises(InputError, match=pattern) as excinfo:
            call()
        assert name in str(excinfo.value) and excinfo.value.fix


def test_report_shows_bidi_controls_instead_of_letting_them_reorder_the_page(tmp_path):
    frame = pd.DataFrame({"name": ["evil\u202eredro", "a\u2066b\u2069c"], "x": [1, 2]})
    text = runs.write_html(title="t\u202e", tables={"names": frame}, figures={}, provenance={"k": "v\u200f"},
                             path=tmp_path / "r.html").read_text(encoding="utf-8")
    assert not any(ch in text for ch in "\u202e\u2066\u2069\u200f")
    assert "evil[U+202E]redro" in text and "a[U+2066]b[U+2069]c" in text and "v[U+200F]" in text


# --- issue 35: headers, captions, wrapping, every table, full provenance in app exports ---------------------------

def test_report_headers_of_a_pivot_are_plain_text_not_python_tuples():
    frame = pd.DataFrame([[0.1, 0.2]], columns=pd.MultiIndex.from_tuples([("score_dev", "imdb"),
                                                                          ("score_range", "imdb")]))
    page = _Page(report.table_html(frame, caption="PSA"))
    assert "score_dev imdb" in page.cells and not any("(" in c and "'" in c for c in page.cells)


def test_report_figures_are_numbered_with_their_caption_and_never_figure_figure(tmp_path):
    figures = {"eec_gender_box": _axes(), "figure 2": _axes()}
    known = studies.get("eec").paper_figures  # a study's figures caption themselves from its registry entry
    text = runs.write_html(title="t", tables={}, figures=figures, provenance={"k": "v"}, path=tmp_path / "r.html",
                           captions={"eec_gender_box": report.figure_caption("eec_gender_box", known)}
                           ).read_text(encoding="utf-8")
    page = _Page(text)
    assert "figure figure" not in text.lower()
    captions = [t for t in re.findall(r"<figcaption>(.*?)</figcaption>", text)]
    assert captions[0].startswith("<b>Figure 1. eec_gender_box</b> EEC Figure 1: ")  # the paper figure it reproduces
    assert captions[1].startswith("<b>figure 2</b>")
    assert page.count("figure") == 2


def test_report_cells_wrap_only_at_word_boundaries():
    css = report._CSS if hasattr(report, "_CSS") else ""
    assert "anywhere" not in css and "break-all" not in css
    assert "td{max-width:32em;overflow-wrap:normal;word-break:normal" in css


def test_report_of_a_run_lists_its_latex_tables_and_every_table(tmp_path):
    out, _ = _run_folder(tmp_path, "run", report_on=True)
    text = (out / "report.html").read_text(encoding="utf-8")
    assert "demo_table" in text and "demo_same" in text  # every table the run wrote
    from_folder = runs.from_run(out_dir=out, path=tmp_path / "again.html").read_text(encoding="utf-8")
    assert "demo_table" in from_folder and "demo_same" in from_folder


def test_write_report_records_versions_fingerprints_and_settings_and_refuses_empty_settings(tmp_path):
    scored = pd.DataFrame({"model": ["m"], "text": ["t"]})
    scored.attrs["fingerprints"] = {"m": "f" * 32}
    path = runs.write_report(title="app", tables={"t": pd.DataFrame({"x": [1]})}, figures={}, models=["m"],
                             settings={"study": "demo", "theta": 0.2}, fingerprints=scored.attrs["fingerprints"],
                             notes=["a note"],
                             path=tmp_path / "app.html")
    keys = [r["cells"][0] for r in _Page(path.read_text(encoding="utf-8")).rows if r["cells"]]
    assert "settings.theta" in keys and "settings.study" in keys
    assert any(k.startswith("packages.") for k in keys) and "models[m].fingerprint" in keys
    with pytest.raises(InputError) as excinfo:
        runs.write_report(title="app", tables={}, figures={}, models=["m"], settings={}, path=tmp_path / "x.html")
    assert excinfo.value.code == "TK102" and "settings=result.provenance.settings" in excinfo.value.fix


def test_report_shim_keeps_the_old_names_and_warns_naming_the_new_home():
    import importlib

    from toolkit import report as shim
    from toolkit import results as results_shim

    for module, home in ((shim, "toolkit.outputs"), (results_shim, "toolkit.outputs")):
        with pytest.warns(DeprecationWarning, match=f"moved to {home}.*goes in toolkit 0.2.0"):
            importlib.reload(module)

    assert shim.write_html is runs.write_html and shim.from_run is runs.from_run and shim.compare is runs.compare
    assert shim.format_value is formatting.format_value and shim.table_html is report.table_html
    assert results_shim.write is runs.write and not hasattr(results_shim, "also_write")


def test_export_latex_finds_a_studys_default_folder_and_names_the_fix_without_one(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA", str(tmp_path / "data"))
    with pytest.raises(InputError, match="needs the run's folder") as excinfo:
        runs.export_latex(layouts=studies.latex_layouts(), out_dir=None)
    assert "study=" in excinfo.value.fix
    out, _ = _run_folder(tmp_path / "data" / "results", "demo")  # where a run of study "demo" writes by default
    assert out == tmp_path / "data" / "results" / "demo"
    with pytest.raises(InputError, match="does not exist"):  # the folder of a study that never ran here
        runs.export_latex(layouts=studies.latex_layouts(), study="never-ran")
    written = runs.export_latex(layouts=studies.latex_layouts(), out_dir=None, study="demo", folder=tmp_path / "tex")
    assert written == runs.export_latex(layouts=studies.latex_layouts(), out_dir=out, folder=tmp_path / "tex")  # the same run's tables
