"""Exported HTML reports as a reader opens them: headless Chromium (Selenium) loads a run's ``report.html`` and a
``compare`` report from ``file://`` — no JupyterLab, no server — and finds their figures (images decoded, natural
width > 0) and tables; a ``<script>`` in a text cell stays text.

Needs Debian's ``chromium`` and ``chromium-driver`` and ``selenium`` (the ``browser`` extra); skipped with the
reason otherwise. Nothing is downloaded at run time.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

pytestmark = [pytest.mark.browser]

import browser_support as support

support.skip_without_browser(lab=False)

EVIL = "<script>document.title='injected'</script>"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = support.chrome(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


def _run(folder, *, shift: float):
    """A run's outputs as results.write writes them: two tables (one with an injected text), two figures."""
    from toolkit.outputs import runs as results

    scored = pd.DataFrame({"model": ["vader"], "text": ["t"]})
    scored.attrs["fingerprints"] = {"vader": "0" * 32}
    axes = {}
    for stem in ("demo_bars", "demo_line"):
        fig = Figure(figsize=(4, 3))
        ax = fig.subplots()
        ax.plot(np.arange(5), np.arange(5) * shift) if stem == "demo_line" else ax.bar(["a", "b"], [1, 1 + shift])
        axes[stem] = ax
    tables = {"demo_scores": pd.DataFrame({"text": [EVIL, "fine"], "score": [0.25 + shift, 0.75]}),
              "demo_counts": pd.DataFrame({"group": ["f", "m"], "n": [10, 12]})}
    results.write(study="demo", tables=tables, axes=axes, scored=scored, fingerprints=scored.attrs.get("fingerprints"), models=["vader"],
                  settings={"study": "demo", "shift": shift}, out_dir=folder, figures_dir=folder, report=True)
    return folder


def _page(browser, path) -> dict:
    browser.get(path.resolve().as_uri())
    return browser.execute_script("""
        const images = Array.from(document.querySelectorAll('img'));
        return {
          title: document.title,
          scripts: document.querySelectorAll('script').length,
          images: images.map(i => ({complete: i.complete, width: i.naturalWidth, height: i.naturalHeight,
                                    alt: i.alt})),
          tables: Array.from(document.querySelectorAll('table')).map(t => ({
              caption: t.caption ? t.caption.textContent : '', rows: t.tBodies[0] ? t.tBodies[0].rows.length : 0})),
          cells: Array.from(document.querySelectorAll('td')).map(c => c.textContent),
          differ: Array.from(document.querySelectorAll('tr.differ th')).map(c => c.textContent),
        };""")


def test_browser_report_of_a_run_shows_its_figures_and_tables(browser, tmp_path):
    run = _run(tmp_path / "run", shift=0.0)
    page = _page(browser, run / "report.html")
    assert page["title"] == "demo run: run"  # the injected script did not run
    assert page["scripts"] == 0 and EVIL in page["cells"]
    assert sorted(i["alt"] for i in page["images"]) == ["demo_bars", "demo_line"]
    assert all(i["complete"] and i["width"] > 0 and i["height"] > 0 for i in page["images"])
    captions = [t["caption"] for t in page["tables"]]
    assert any(c.startswith("demo_scores") for c in captions) and any(c.startswith("demo_counts") for c in captions)
    assert any(c.startswith("provenance.json") for c in captions)
    assert {t["rows"] for t in page["tables"] if t["caption"].startswith("demo_")} == {2}


def test_browser_compare_report_shows_both_runs_side_by_side(browser, tmp_path):
    from toolkit import report

    left, right = _run(tmp_path / "a", shift=0.0), _run(tmp_path / "b", shift=0.5)
    path = report.compare(left=left, right=right, path=tmp_path / "compare.html")
    page = _page(browser, path)
    assert page["scripts"] == 0
    assert len(page["images"]) == 4 and all(i["width"] > 0 for i in page["images"])
    assert sorted(i["alt"] for i in page["images"]) == ["A: demo_bars", "A: demo_line", "B: demo_bars",
                                                        "B: demo_line"]
    captions = [t["caption"] for t in page["tables"]]
    assert sum(c.startswith(("A: demo_scores", "B: demo_scores")) for c in captions) == 2
    assert "settings.shift" in page["differ"]
    boxes = browser.execute_script("""
        return Array.from(document.querySelectorAll('img')).map(i => {
            const r = i.getBoundingClientRect(); return [i.alt, r.left, r.top]; });""")
    where = {alt: (x, y) for alt, x, y in boxes}
    assert where["A: demo_bars"][1] == pytest.approx(where["B: demo_bars"][1], abs=2)  # next to each other
    assert where["A: demo_bars"][0] < where["B: demo_bars"][0]
