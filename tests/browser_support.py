"""Plumbing shared by the browser tests (``tests/test_browser*.py``): headless Chromium driven by Selenium, and a
JupyterLab server on loopback over a folder the test prepares.

Needs Debian's ``chromium`` and ``chromium-driver`` (``apt-get install chromium chromium-driver``) and the ``browser``
extra (``pip install -e .[browser]``: jupyterlab, selenium); :func:`skip_without_browser` skips a test module with
the reason otherwise. Nothing is downloaded at run time; ``BROWSER_SCREENSHOTS=DIR`` keeps the screenshots.
"""
from __future__ import annotations

import base64
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
ROOT = Path(__file__).resolve().parents[1]

NOTEBOOK_JS = "const nb = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
ALL_RUN_JS = NOTEBOOK_JS + """
    if (!nb || !nb.content) return false;
    const kernel = nb.sessionContext.session && nb.sessionContext.session.kernel;
    const cells = nb.content.widgets.filter(c => c.model.type === 'code');
    return kernel && kernel.status === 'idle' && cells.every(c => c.model.executionCount !== null
        && !c.node.querySelector('.jp-InputPrompt').textContent.includes('*'));"""
"""JavaScript: true once the current notebook's kernel is idle and every code cell has run."""


def skip_without_browser(*, lab: bool) -> None:
    """Skip the calling test module (at import) when Chromium, chromedriver, selenium or — with ``lab`` —
    JupyterLab is missing, saying which and how to install it."""
    if not CHROMIUM or not CHROMEDRIVER:
        pytest.skip("browser test needs Debian's chromium and chromium-driver (apt-get install chromium "
                    "chromium-driver)", allow_module_level=True)
    for module in ("selenium",) + (("jupyterlab",) if lab else ()):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"browser test needs {module} (pip install -e .[browser])", allow_module_level=True)


def chrome(profile: Path):
    """Headless Chromium with its own profile folder, no background network, a 1400×1000 window, and the page
    treated as focused (a headless window never holds the OS focus, so JupyterLab's focus-tracked ``currentWidget``
    would stay null and key presses would go nowhere)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1400,1000", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_script_timeout(60)
    driver.execute_cdp_cmd("Emulation.setFocusEmulationEnabled", {"enabled": True})
    return driver


def screenshots(tmp_path_factory) -> Path:
    """``$BROWSER_SCREENSHOTS`` (created), else a temporary folder."""
    folder = Path(os.environ.get("BROWSER_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def wait(driver, script: str, *, timeout: float, what: str):
    """Poll ``script`` until it returns something truthy (returned), or fail after ``timeout`` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.5)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def jupyter_lab(work: Path) -> Iterator[dict]:
    """JupyterLab on 127.0.0.1 (a free port, a random token) with ``work`` as its root and its own config, runtime,
    settings and home folders inside it (no news pop-up, no update check, no network); this checkout's toolkit on
    the kernel's path. Yields ``{"url", "token", "work"}``; the server is stopped on exit."""
    port, token = free_port(), "browser-test-" + base64.b32encode(os.urandom(10)).decode().lower()
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}  # the kernel uses Jupyter's inline backend
    env.update(PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""), TOOLKIT_DATA=str(work / "data"),
               TOOLKIT_FIGURES=str(work / "figures"), JUPYTER_CONFIG_DIR=str(work / "config"),
               JUPYTER_RUNTIME_DIR=str(work / "runtime"), JUPYTERLAB_SETTINGS_DIR=str(work / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(work / "workspaces"), HOME=str(work))
    news = work / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True)
    news.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    log = (work / "lab.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}", "--LabApp.expose_app_in_browser=True",
         "--ServerApp.open_browser=False", "--LabApp.news_url=", "--LabApp.check_for_updates_class="
         "jupyterlab.NeverCheckForUpdate", "--LabApp.extension_manager=readonly"]
        + (["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []), cwd=work, env=env,
        stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if server.poll() is not None:
                pytest.fail(f"JupyterLab exited: {(work / 'lab.log').read_text()[-2000:]}")
            time.sleep(0.5)
        yield {"url": f"http://127.0.0.1:{port}", "token": token, "work": work}
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
