"""The notebooks as a researcher uses them: JupyterLab 4 in headless Chromium (Selenium), Run All on each notebook
with small parameters, each app's Run button pressed twice, its figures checked for pixels, the Log Console checked
for stray figures, the annotation app clicked and its file read back.

Needs Debian's ``chromium`` and ``chromium-driver`` (``apt-get install chromium chromium-driver``) and the ``browser``
extra (``pip install -e .[browser]``: jupyterlab, selenium); skipped with the reason otherwise. Nothing is
downloaded at run time (plumbing: ``tests/browser_support.py``). ``make test-browser`` runs every browser test;
``BROWSER_SCREENSHOTS=DIR`` keeps the screenshots (default: the test's temporary folder).
"""
from __future__ import annotations

import base64
import io
import json
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.notebook]

import browser_support as support
from conftest import SHARED_DATA

support.skip_without_browser(lab=True)
ROOT = support.ROOT

# Small parameters: the whole file runs in a few minutes on two shared cores (lexicon models find no BiasFinder
# BTC in 3 templates of the bundled sample; minilm-imdb finds some, for the annotation app).
PARAMETERS = {
    "01_eec.ipynb": {"MODELS": ["vader", "afinn"], "SUBSETS": ["all"], "CACHE": False},
    "02_psa.ipynb": {"MODELS": ["vader", "textblob"], "N": 10, "N_BOOT": 20, "CACHE": False},
    "03_biasfinder.ipynb": {"MODELS": ["vader", "minilm-imdb"], "N_NAMES": 3, "MAX_TEMPLATES": 3, "CACHE": False,
                            "ANNOTATOR": "browser"},
    "04_btc_sam.ipynb": {"MODELS": ["vader", "afinn"], "SETS": [], "BTCSAM_DIR": None, "PSA_N": 10,
                         "CACHE": False},
}
MULTILINGUAL = SHARED_DATA / "multilingual_eec"  # not shipped: notebook 06's app runs only where the corpora are
if (MULTILINGUAL / "camara2022" / "es.csv").is_file():
    PARAMETERS["06_multilingual.ipynb"] = {"LANGUAGES": ["es", "de"], "CORPUS_DIR": str(MULTILINGUAL),
                                           "SUBSETS": ["all"], "N_BOOT": 200, "SMOKE": True, "CACHE": False}
APPS_WITH_RUN = ("01_eec.ipynb", "02_psa.ipynb", "03_biasfinder.ipynb", "04_btc_sam.ipynb",
                 pytest.param("06_multilingual.ipynb", marks=pytest.mark.skipif(
                     "06_multilingual.ipynb" not in PARAMETERS,
                     reason="the multilingual EEC corpora are not in ../shared/data/multilingual_eec")))
SLOW_MODEL = '''"""A valence function slow enough to cancel by hand (the browser test's Cancel)."""
import time


def slow(texts):
    time.sleep(0.5)
    return [0.5] * len(texts)


slow.fingerprint = "slow-browser-model-v1"  # the cache key, the same in the kernel and in the test
'''


def _with_parameters(source: Path, target: Path, parameters: dict) -> None:
    """Copy a notebook, adding a cell after its ``parameters`` cell that sets ``parameters`` (as papermill does)."""
    notebook = json.loads(source.read_text())
    cells = notebook["cells"]
    index = next(i for i, c in enumerate(cells) if "parameters" in c.get("metadata", {}).get("tags", []))
    lines = [f"{key} = {value!r}\n" for key, value in parameters.items()]
    cells.insert(index + 1, {"cell_type": "code", "id": "browser-test-parameters", "metadata": {},
                             "execution_count": None, "outputs": [], "source": ["# injected by the browser test\n"] + lines})
    target.write_text(json.dumps(notebook, indent=1))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on 127.0.0.1 (free port, token) over a copy of the notebooks with small parameters."""
    work = tmp_path_factory.mktemp("lab")
    (work / "notebooks").mkdir()
    for name, parameters in PARAMETERS.items():
        extra = {"ANNOTATIONS": str(work / "annotations.csv")} if name.startswith("03") else {}
        _with_parameters(ROOT / "notebooks" / name, work / "notebooks" / name, {**parameters, **extra,
                         "OUT_DIR": str(work / "results" / name[:2]), "FIGURES_DIR": str(work / "figures")})
    (work / "notebooks" / "slow_browser_model.py").write_text(SLOW_MODEL)  # importable from the kernel's folder
    with support.jupyter_lab(work) as server:
        yield server


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = support.chrome(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    return support.screenshots(tmp_path_factory)


_wait = support.wait
_NOTEBOOK = support.NOTEBOOK_JS
_IDLE = _NOTEBOOK + """
    const kernel = nb && nb.sessionContext && nb.sessionContext.session && nb.sessionContext.session.kernel;
    return !!kernel && kernel.status === 'idle';"""
_ALL_RUN = support.ALL_RUN_JS
_ERRORS = _NOTEBOOK + """
    return nb.content.widgets.filter(c => c.model.type === 'code').flatMap(
        c => c.model.outputs.toJSON().filter(o => o.output_type === 'error').map(o => o.ename + ': ' + o.evalue));"""


def _open(driver, lab, name: str) -> None:
    driver.get(f"{lab['url']}/lab/tree/notebooks/{name}?token={lab['token']}&reset")
    _wait(driver, _NOTEBOOK + "return !!(nb && nb.content && nb.context && nb.context.path.endsWith("
          f"{json.dumps(name)}));", timeout=120, what=f"{name} to open")
    _wait(driver, _IDLE, timeout=120, what="the kernel to start")


def _run_all(driver, name: str, shots: Path) -> None:
    driver.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells');")
    time.sleep(2)
    _wait(driver, _ALL_RUN, timeout=600, what=f"Run All of {name}")
    driver.save_screenshot(str(shots / f"{name[:2]}_run_all.png"))
    assert driver.execute_script(_ERRORS) == [], f"{name}: a cell raised"


def _app(driver, *, showing: str = "Run"):
    """The notebook's first app whose text includes ``showing`` (a Run app by default; "BTC" for annotation)."""
    return driver.execute_script(_NOTEBOOK + """
        const boxes = [...nb.content.node.querySelectorAll('.jp-OutputArea-output .widget-vbox')]
            .map(b => b.closest('.jp-OutputArea-output')).filter(o => o.innerText.includes(arguments[0]));
        return boxes.length ? boxes[0] : null;""", showing)


def _pixels_std(data_uri: str) -> tuple[int, int, float]:
    import matplotlib.image as mpimg

    image = mpimg.imread(io.BytesIO(base64.b64decode(data_uri.split(",", 1)[1])), format="png")
    return image.shape[1], image.shape[0], float(image[..., :3].std())


def _press_run(driver, app, name: str, attempt: int, shots: Path) -> list[tuple[int, int, float]]:
    button = next(b for b in app.find_elements("css selector", "button") if b.text.strip() in ("Run", "Running…"))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    button.click()
    time.sleep(0.3)
    status = app.find_element("css selector", ".widget-html")
    deadline = time.time() + 300
    while time.time() < deadline:
        text = status.text
        if ("✔" in text or "✖" in text) and button.is_enabled():
            break
        time.sleep(0.5)
    assert "✔" in status.text, f"{name} Run #{attempt}: {status.text}"
    time.sleep(1.5)  # let the figures render
    images = app.find_elements("css selector", ".widget-output img")
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", app)
    app.screenshot(str(shots / f"{name[:2]}_app_run{attempt}.png"))
    return [_pixels_std(img.get_attribute("src")) for img in images]


def _log_console_figures(driver, name: str, shots: Path) -> int:
    driver.execute_script("window.jupyterapp.commands.execute('logconsole:open', {insertMode: 'split-bottom'});")
    time.sleep(2)
    driver.save_screenshot(str(shots / f"{name[:2]}_log_console.png"))
    return driver.execute_script("""
        const panel = document.querySelector('.jp-LogConsolePanel');
        if (!panel) return -1;
        return panel.querySelectorAll('img, [data-mime-type^="image/"]').length;""")


@pytest.mark.parametrize("name", APPS_WITH_RUN)
def test_notebook_runs_and_its_app_redraws_figures(browser, lab, shots, name):
    _open(browser, lab, name)
    _run_all(browser, name, shots)
    app = _app(browser)
    assert app is not None, f"{name}: no app rendered"
    expected = {"01_eec.ipynb": 2, "03_biasfinder.ipynb": 2, "04_btc_sam.ipynb": 2, "06_multilingual.ipynb": 1,
                "02_psa.ipynb": 2}[name]  # psa: vader's ScoreSens + LabelDist; textblob's one bar said in words
    for attempt in (1, 2):
        images = _press_run(browser, app, name, attempt, shots)
        assert len(images) >= expected, f"{name} Run #{attempt}: {len(images)} figures"
        if name == "02_psa.ipynb":
            assert "textblob gives every name the same score" in app.text and "No figure" in app.text, app.text
        for width, height, spread in images:
            assert width > 200 and height > 150 and spread > 0.05, (name, attempt, width, height, spread)
    if name != "02_psa.ipynb":  # drill-down: the first pair behind the number, its changed words marked
        marks = app.find_elements("css selector", "mark")
        assert "Drill down" in app.text and marks and all(m.text.strip() for m in marks), name
    assert _log_console_figures(browser, name, shots) == 0, f"{name}: figures reached the Log Console"


def test_annotation_app_saves_one_row_per_text(browser, lab, shots):
    name = "03_biasfinder.ipynb"
    _open(browser, lab, name)
    _run_all(browser, name, shots)
    app = _app(browser, showing="BTC 1 of")
    assert app is not None and "BTC 1 of" in app.text, app.text if app is not None else "no app"

    def press(label: str, index: int = 0) -> None:
        buttons = [b for b in app.find_elements("css selector", "button") if b.text.strip() == label]
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", buttons[index])
        buttons[index].click()
        time.sleep(0.8)

    press("no")         # text a: coherent no
    press("yes")        # text a: changed to yes (the row is replaced, not appended)
    press("positive")   # text a: sentiment
    press("Skip")
    assert "BTC 2 of" in app.text
    press("Back")
    assert "BTC 1 of" in app.text
    app.screenshot(str(shots / "03_annotation_app.png"))
    rows = (lab["work"] / "annotations.csv").read_text().splitlines()
    assert rows[0] == "btc_id,variant,annotator,coherent,sentiment"
    assert len(rows) == 2 and rows[1].endswith(",a,browser,yes,positive"), rows
    assert _log_console_figures(browser, name, shots) == 0


def _bar_percent(driver, app) -> float:
    """How far the app's progress bar is drawn (its width in percent; 0 while hidden)."""
    return driver.execute_script("""
        const bar = arguments[0].querySelector('.progress-bar');
        const box = bar && bar.closest('.widget-hprogress');
        if (!bar || !box || getComputedStyle(box).visibility === 'hidden') return 0;
        return parseFloat(bar.style.width) || 0;""", app)


def test_cancel_stops_a_run_within_seconds_and_the_cache_keeps_what_the_status_says(browser, lab, shots):
    import re

    from toolkit.cache import ScoreCache

    name = "01_eec.ipynb"
    _open(browser, lab, name)
    _run_all(browser, name, shots)
    app = _app(browser)
    assert app is not None, "no app rendered"
    spec = "py:slow_browser_model:slow"
    field = next(i for i in app.find_elements("css selector", "input[type=text]")
                 if (i.get_attribute("placeholder") or "").startswith("hf:"))
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", field)
    field.clear()
    field.send_keys(spec)
    time.sleep(1.0)
    run = next(b for b in app.find_elements("css selector", "button") if b.text.strip() == "Run")
    cancel = next(b for b in app.find_elements("css selector", "button") if b.text.strip() == "Cancel")
    assert not cancel.is_enabled()
    run.click()
    status = app.find_element("css selector", ".widget-html")
    deadline, seen = time.time() + 120, []
    while time.time() < deadline and not (f"scoring with {spec}" in status.text and _bar_percent(browser, app) > 0):
        seen.append((round(time.time() - deadline + 120, 1), status.text, _bar_percent(browser, app)))
        if "✔" in seen[-1][1] or "✖" in seen[-1][1]:
            break
        time.sleep(0.2)
    first = _bar_percent(browser, app)
    app.screenshot(str(shots / "01_app_progress_first.png"))
    (shots / "01_app_progress_seen.json").write_text(json.dumps(seen, indent=1, ensure_ascii=False))
    assert first > 0, seen
    time.sleep(2.0)
    second = _bar_percent(browser, app)
    assert second > first, (first, second, status.text)  # the bar moves during the run
    app.screenshot(str(shots / "01_app_progress.png"))
    assert cancel.is_enabled() and not run.is_enabled()
    clicked = time.time()
    cancel.click()
    while time.time() < clicked + 10 and "cancelled" not in status.text:
        time.sleep(0.2)
    assert "cancelled" in status.text, f"no cancel within 10 s: {status.text}"
    app.screenshot(str(shots / "01_app_cancelled.png"))
    text = status.text
    kept = re.search(r"([\d,]+) of 8,640 texts scored", text)
    cache = lab["work"] / "data" / "cache" / "scores.sqlite"
    assert kept and f"kept in the cache {cache}" in text, text
    kept = int(kept.group(1).replace(",", ""))
    assert 0 < kept < 8640, text
    import sys

    sys.path.insert(0, str(lab["work"] / "notebooks"))
    try:
        from toolkit.models import load

        fingerprint = load(spec).fingerprint
    finally:
        sys.path.remove(str(lab["work"] / "notebooks"))
    with ScoreCache(cache) as store:
        assert store.count(fingerprint) == kept
    assert run.is_enabled() and not cancel.is_enabled()
