"""The apps' Export report on real small runs (tests/small_runs.py): every table of the run (EEC's per-system table,
BTC-SAM's failure-% table, PSA's Table 2 with its intervals), each figure captioned and opening full size, and the
statistics settings (α, correction, margin, bootstrap replicates, seed) from the run's provenance."""
from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from small_runs import btcsam_cases

from toolkit.outputs import report

APPS = {
    "eec": lambda study: __import__("toolkit.studies.eec.app", fromlist=["eec_app"]).eec_app(
        models=["afinn"], cache=False, study=study),
    "psa": lambda study: __import__("toolkit.studies.psa.app", fromlist=["psa_app"]).psa_app(
        models=["vader"], cache=False, study=study),
    "biasfinder": lambda study: __import__("toolkit.studies.biasfinder.app", fromlist=["biasfinder_app"]).biasfinder_app(
        models=["afinn"], cache=False, study=study),
    "btcsam": lambda study: __import__("toolkit.studies.btcsam.app", fromlist=["btcsam_app"]).btcsam_app(
        sets={"mini": btcsam_cases()}, models=["vader"], cache=False, study=study),
}


def _export(study: str, result, tmp_path):
    app = APPS[study](lambda **_: result)
    assert app.run(), app.status.value
    return app, app.export_report(tmp_path / f"{study}.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("study", sorted(APPS))
def test_apps_export_holds_every_table_captioned_full_size_figures_and_the_statistics_settings(study, small_runs,
                                                                                               tmp_path):
    result = small_runs[study]
    app, page = _export(study, result, tmp_path)
    captions = re.findall(r"<caption>(.*?)</caption>", page, flags=re.S)
    for name in [f"{study}_stats", *result.tables()]:  # every table of the run, not only those the app showed
        assert any(c.startswith(name + " ") for c in captions), name
    settings = dict(re.findall(r'<tr><th scope="row">(.*?)</th><td>(.*?)</td></tr>',
                               page.split('<table id="settings">')[1].split("</table>")[0]))
    recorded = result.provenance.settings
    assert settings["α (significance level)"] == str(recorded["alpha"])
    assert settings["correction for multiple tests"] == str(recorded["correction"])
    assert settings["equivalence margin (±)"] == str(recorded["margin"])
    if "n_boot" in recorded:
        assert settings["bootstrap replicates"] == f"{recorded['n_boot']:,}"
    assert settings.get("seed", "0") == str(recorded.get("seed", 0))
    figures = re.findall(r'<figure id="([^"]+)">.*?<figcaption><b>(.*?)</b>(.*?)</figcaption>'
                         r'<a href="#([^"]+)" title="open full size"><img alt="[^"]*"(?: width="(\d+)")? '
                         r'src="data:image/png;base64,([^"]+)"', page, flags=re.S)
    assert len(figures) == len(app._report_figures) == page.count("<img") > 0
    for anchor, title, caption, target, width, data in figures:
        assert target == anchor and caption.strip(), title  # a caption, and a click opens it full size
        pixels, dpi = report.png_size(base64.b64decode(data))
        assert dpi == pytest.approx(report.REPORT_DPI, rel=0.01)  # drawn at twice the files' resolution
        assert int(width) == round(pixels * report.FILE_DPI / dpi)  # shown at the files' size, not a thumbnail
    assert "figure:target" in page and 'href="#top"' in page  # the full-size view over the page and its way back


def test_apps_export_shows_the_tables_the_issue_names(small_runs, tmp_path):
    _, eec_page = _export("eec", small_runs["eec"], tmp_path)
    assert "EEC per system, subset all" in eec_page and "F higher = " in eec_page
    _, psa_page = _export("psa", small_runs["psa"], tmp_path)
    table2 = psa_page.split("<caption>PSA Table 2:")[1].split("</table>")[0]
    assert "ScoreDev 95% CI" in table2 and "ScoreRange 95% CI" in table2 and re.search(r"\[[\d.]+, [\d.]+\]", table2)
    _, btcsam_page = _export("btcsam", small_runs["btcsam"], tmp_path)
    failure = btcsam_page.split("<caption>BTC-SAM Table 5:")[1].split("</table>")[0]
    assert "failure_pct" in failure and "verdict" in failure


def test_two_exports_in_one_second_never_share_a_default_name(small_runs, tmp_path, monkeypatch):
    """Two apps' Export report (or Export LaTeX) in the same second wrote one file, the second over the first."""
    import time
    from types import SimpleNamespace

    from toolkit.apps import runner

    monkeypatch.setenv("TOOLKIT_DATA", str(tmp_path))
    frozen = {"%Y%m%d-%H%M%S": "20261129-120000", "%Y-%m-%d %H:%M:%S %Z": "2026-11-29 12:00:00 UTC"}
    monkeypatch.setattr(runner, "time", SimpleNamespace(strftime=lambda fmt, *_: frozen[fmt],  # one second for both
                                                        perf_counter=time.perf_counter))
    first, second = APPS["eec"](lambda **_: small_runs["eec"]), APPS["eec"](lambda **_: small_runs["eec"])
    assert first.run() and second.run()
    paths = [first.export_report(), second.export_report()]
    assert [p.name for p in paths] == ["eec-20261129-120000.html", "eec-20261129-120000-2.html"]
    assert all(p.is_file() and p.stat().st_size for p in paths)
    folders = {Path(first.export_latex()[0]).parent, Path(second.export_latex()[0]).parent}
    assert {f.name for f in folders} == {"eec-20261129-120000", "eec-20261129-120000-2"}
