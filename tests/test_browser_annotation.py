"""Issue 27 in a real browser: the annotation app annotated by keyboard alone, and the drill-down browser showing a
pair with its changed words highlighted — JupyterLab 4 in headless Chromium (Selenium), a small notebook written to
a temporary folder, the annotation file read back.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``browser`` extra (jupyterlab, selenium), as
``tests/test_browser.py``; skipped with the reason otherwise. Nothing is downloaded at run time.
``BROWSER_SCREENSHOTS=DIR`` keeps the screenshots.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.notebook]

import browser_support as support

support.skip_without_browser(lab=True)

NAME = "annotation_by_keys.ipynb"
BTCS = [("Anna is great and she wins.", "Tom is great and he wins."), ("She is dull.", "He is dull."),
        ("My sister liked the film.", "My brother liked the film.")]


def _cells(annotations: Path) -> list[str]:
    rows = [{"btc_id": f"b{i + 1}", "model": "m", "attribute": "gender", "case_id": f"c{i + 1}", "text_a": a,
             "text_b": b, "group_a": "female", "group_b": "male"} for i, (a, b) in enumerate(BTCS)]
    pairs = [{"key": "t1|Ebony/Alonzo", "model": "vader", "text_a": "Ebony feels <angry>.",
              "text_b": "Alonzo feels <angry>.", "group_a": "female", "group_b": "male", "score_a": 0.3,
              "score_b": 0.2},
             {"key": "t2|she/he", "model": "vader", "text_a": "She made me feel sad.",
              "text_b": "He made me feel sad!", "group_a": "female", "group_b": "male", "score_a": 0.1,
              "score_b": 0.6}]
    return ["import pandas as pd\nfrom toolkit import drilldown\nfrom toolkit.studies.biasfinder.annotation import annotation_app\n",
            f"app = annotation_app(pd.DataFrame({rows!r}), annotator='keys', path={str(annotations)!r}, n_boot=50)\n"
            "app.widget",
            f"drill = drilldown.browser(pairs=drilldown.pairs_frame({pairs!r}), title='drill-down')\ndrill"]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on 127.0.0.1 (free port, token) over a folder holding the small notebook."""
    work = tmp_path_factory.mktemp("lab_annotation")
    annotations = work / "annotations.csv"
    notebook = {"cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "execution_count": None,
                           "outputs": [], "source": source} for i, source in enumerate(_cells(annotations))],
                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    (work / NAME).write_text(json.dumps(notebook, indent=1))
    with support.jupyter_lab(work) as server:
        yield {**server, "annotations": annotations}


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    chrome = support.chrome(tmp_path_factory.mktemp("chromium-profile"))
    yield chrome
    chrome.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    return support.screenshots(tmp_path_factory)


_wait = support.wait
_NOTEBOOK = support.NOTEBOOK_JS
_ALL_RUN = support.ALL_RUN_JS
_ERRORS = _NOTEBOOK + """
    return nb.content.widgets.filter(c => c.model.type === 'code').flatMap(
        c => c.model.outputs.toJSON().filter(o => o.output_type === 'error').map(o => o.ename + ': ' + o.evalue));"""


@pytest.fixture(scope="module")
def notebook(driver, lab, shots):
    """The notebook opened and run (Run All), its two widgets rendered."""
    driver.get(f"{lab['url']}/lab/tree/{NAME}?token={lab['token']}&reset")
    _wait(driver, _NOTEBOOK + "return !!(nb && nb.content && nb.context && nb.context.path.endsWith("
          f"{json.dumps(NAME)}));", timeout=120, what="the notebook to open")
    _wait(driver, _NOTEBOOK + """const k = nb && nb.sessionContext && nb.sessionContext.session
          && nb.sessionContext.session.kernel; return !!k && k.status === 'idle';""", timeout=120,
          what="the kernel to start")
    driver.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells');")
    time.sleep(2)
    _wait(driver, _ALL_RUN, timeout=300, what="Run All")
    _wait(driver, "return document.querySelectorAll('.tk-annotation-app').length === 1", timeout=60,
          what="the annotation app to render")
    driver.save_screenshot(str(shots / "annotation_keys_run_all.png"))
    assert driver.execute_script(_ERRORS) == [], "a cell raised"
    return driver


def _app_text(driver) -> str:
    return driver.execute_script("return document.querySelector('.tk-annotation-app').innerText;")


def _type(driver, keys: str) -> None:
    field = driver.find_element("css selector", ".tk-annotation-keys input")
    for key in keys:
        field.send_keys(key)
        time.sleep(0.4)  # as a person types; the app handles keys that arrive together as well


def test_annotation_by_keyboard_alone(notebook, lab, shots):
    driver = notebook
    assert "BTC 1 of 3" in _app_text(driver) and "0 of 3 annotated" in _app_text(driver)
    field = driver.find_element("css selector", ".tk-annotation-keys input")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus();", field)
    _type(driver, "ypyn")  # BTC 1: a coherent yes, positive; b coherent yes, negative → BTC 2
    _wait(driver, "return document.querySelector('.tk-annotation-app').innerText.includes('BTC 2 of 3');",
          timeout=30, what="the app to move to BTC 2")
    _type(driver, "j")  # skip BTC 2
    _wait(driver, "return document.querySelector('.tk-annotation-app').innerText.includes('BTC 3 of 3');",
          timeout=30, what="j to move to BTC 3")
    _type(driver, "k")  # back to BTC 2
    _wait(driver, "return document.querySelector('.tk-annotation-app').innerText.includes('BTC 2 of 3');",
          timeout=30, what="k to move back to BTC 2")
    field.send_keys("y0u0")  # BTC 2 at once: a yes, neutral; b unsure, neutral
    _wait(driver, "return document.querySelector('.tk-annotation-app').innerText.includes('2 of 3 annotated');",
          timeout=30, what="the progress count to read 2 of 3")
    # neither BTC is a true positive (b1: the sentiments differ; b2: text b not coherent)
    _wait(driver, "return document.querySelector('.tk-annotation-app').innerText.includes('TPR keys: 0 of 2');",
          timeout=30, what="the TPR line to count both BTCs")
    text = _app_text(driver)
    assert "BTC 3 of 3" in text and "0 of 2 = 0.00 [0.00, 0.66] (Wilson 95 %)" in text, text
    marks = driver.execute_script("return Array.from(document.querySelectorAll('.tk-annotation-app mark'))"
                                  ".map(m => m.textContent);")
    assert marks == ["sister", "brother"], marks
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'});",
                          driver.find_element("css selector", ".tk-annotation-app"))
    driver.find_element("css selector", ".tk-annotation-app").screenshot(str(shots / "annotation_keys_app.png"))
    rows = lab["annotations"].read_text().splitlines()
    assert rows == ["btc_id,variant,annotator,coherent,sentiment", "b1,a,keys,yes,positive",
                    "b1,b,keys,yes,negative", "b2,a,keys,yes,neutral", "b2,b,keys,unsure,neutral"], rows
    cells = driver.execute_script(_NOTEBOOK + "return nb.content.widgets.length;")
    assert cells == 3  # JupyterLab's own j/k (select cell) and y/m (cell type) shortcuts did not fire
    assert driver.execute_script(_NOTEBOOK + "return nb.content.widgets.map(c => c.model.type);") == ["code"] * 3


def test_drilldown_shows_the_pair_with_its_changed_words_marked(notebook, shots):
    driver = notebook
    view = driver.execute_script("""
        const marks = Array.from(document.querySelectorAll('.tk-pair mark')).map(m => m.textContent);
        const pair = document.querySelector('.tk-pair');
        return pair && {marks: marks, text: pair.innerText};""")
    assert view, "no drill-down pair rendered"
    # |Δ| largest first: the she/he pair (Δ = −0.5) before Ebony/Alonzo (+0.1); the texts' "<angry>" stays text
    assert view["marks"] == ["She", ".", "He", "!"], view
    assert "Δ = -0.500" in view["text"] and "1 of 2 pairs" in driver.execute_script(
        "return document.querySelector('.tk-pair').closest('.widget-vbox').innerText;")
    buttons = [b for b in driver.find_elements("css selector", "button") if b.text.strip() == "Next"]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", buttons[-1])
    buttons[-1].click()
    _wait(driver, "return document.querySelector('.tk-pair').innerText.includes('Ebony/Alonzo');", timeout=30,
          what="Next to show the second pair")
    marks = driver.execute_script("return Array.from(document.querySelectorAll('.tk-pair mark'))"
                                  ".map(m => m.textContent);")
    assert marks == ["Ebony", "Alonzo"], marks
    assert "<angry>" in driver.execute_script("return document.querySelector('.tk-pair').innerText;")
    driver.execute_script("return document.querySelector('.tk-pair').scrollIntoView({block: 'center'});")
    driver.save_screenshot(str(shots / "drilldown_pair.png"))
