"""Credentials in a URL (a proxy setting ``http://user:password@host``, ``HF_ENDPOINT`` with a token, an LLM base
URL) never reach what the toolkit prints, logs, records in provenance or lets a notebook capture: errors and
warnings redact them (:func:`toolkit.errors.redact`), as do the apps' status lines, ``provenance.json`` and the
executed notebooks of ``make figures``. Hosts and ports stay, so a message still says where it tried to connect."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit import hub
from toolkit.errors import InputError, ModelSpecError, redact

ROOT = Path(__file__).resolve().parents[1]
SECRET = "s3cretPW"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _no_hub_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k.upper() not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_ENDPOINT")
           and not k.lower().endswith("_proxy")}
    return {**env, "HF_HUB_DISABLE_TELEMETRY": "1", **extra}


@pytest.mark.parametrize("text, expected", [
    (f"through the proxy http://alice:{SECRET}@127.0.0.1:9 cannot", "through the proxy http://***@127.0.0.1:9 cannot"),
    (f"https://hf_token{SECRET}@hub.example.org/api", "https://***@hub.example.org/api"),
    (f"'http://alice:p@ss{SECRET}@proxy:3128/x'", "'http://***@proxy:3128/x'"),  # an @ left unescaped in it
    (f"HTTPS_PROXY=alice:{SECRET}@proxy.corp.example:3128.", "HTTPS_PROXY=***@proxy.corp.example:3128."),
    (f"alice:{SECRET}@[::1]:8080", "***@[::1]:8080"),
])
def test_errors_redact_hides_the_credentials_of_urls_and_keeps_where_they_point(text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize("text", ["write to user@example.com", "openai:gpt-4o@http://localhost:8000/v1",
                                  "https://huggingface.co/org/model@main", "llm:openai:m@https://host/v1",
                                  "git@github.com:org/repo", "no at sign at all"])
def test_errors_redact_leaves_text_without_url_credentials_alone(text):
    assert redact(text) == text


def test_errors_coded_message_and_fix_never_hold_url_credentials():
    error = InputError(f"cannot reach http://alice:{SECRET}@proxy:3128", fix=f"check https://t:{SECRET}@h/x")
    assert SECRET not in str(error) and SECRET not in error.message and SECRET not in error.fix
    assert "http://***@proxy:3128" in error.message and "https://***@h/x" in error.fix


def test_hub_load_error_through_a_proxy_with_a_password_names_the_proxy_without_it(monkeypatch):
    port = _closed_port()
    monkeypatch.setattr(hub, "_PROBES", {})
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.setenv("https_proxy", f"http://alice:{SECRET}@127.0.0.1:{port}")
    reason = hub.probe_hub(endpoint="https://hub.invalid")
    assert f"through the proxy http://***@127.0.0.1:{port}" in reason and SECRET not in reason
    error = hub.hub_load_error("org/model", OSError("not in the cache"), what="a model")
    assert isinstance(error, ModelSpecError) and SECRET not in str(error)


@pytest.mark.slow
@pytest.mark.parametrize("variable", ["https_proxy", "HTTPS_PROXY", "HF_ENDPOINT"])
def test_cli_model_load_error_on_stderr_never_shows_the_proxy_or_endpoint_password(tmp_path, variable):
    """The whole command in a fresh Python (huggingface_hub reads HF_ENDPOINT at import), with the proxy or the
    endpoint at a loopback port that refuses connections."""
    port = _closed_port()
    value = (f"http://tok:{SECRET}@127.0.0.1:{port}" if variable == "HF_ENDPOINT"
             else f"http://alice:{SECRET}@127.0.0.1:{port}")
    done = subprocess.run([sys.executable, "-m", "toolkit", "eec", "--model", "hf:tk-test-org/absent-model",
                           "--subset", "all", "--out", str(tmp_path / "out"), "--no-cache"], cwd=ROOT,
                          env=_no_hub_env(**{variable: value, "HF_HOME": str(tmp_path / "hf")}),
                          check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "[TK201]" in done.stderr, done.stderr[-2000:]
    assert f"127.0.0.1:{port}" in done.stderr  # still says where it tried
    assert SECRET not in done.stderr + done.stdout


def test_apps_status_line_never_shows_the_hub_endpoints_password(tmp_path, monkeypatch):
    import huggingface_hub.constants

    from toolkit.studies.eec.app import eec_app

    port = _closed_port()
    monkeypatch.setattr(hub, "_PROBES", {})
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", f"http://tok:{SECRET}@127.0.0.1:{port}")
    app = eec_app(models=[], cache=tmp_path / "cache.sqlite")
    app.extra.value = "hf:tk-test-org/absent-model"
    assert app.run(block=True) is False
    assert "[TK201]" in app.status.value and f"127.0.0.1:{port}" in app.status.value
    assert SECRET not in app.status.value and SECRET not in (app.error or "")


def test_provenance_and_llm_identity_never_record_url_credentials():
    from toolkit import provenance
    from toolkit.llm import OpenAIBackend

    backend = OpenAIBackend(base_url=f"https://alice:{SECRET}@llm.example.org/v1", model="m")
    assert SECRET not in backend.identity and "https://***@llm.example.org/v1" in backend.identity
    text = provenance.dumps({"settings": {"backend": f"https://alice:{SECRET}@llm.example.org/v1"}})
    assert SECRET not in text and "https://***@llm.example.org/v1" in text


def test_runs_html_report_never_shows_url_credentials_from_the_settings(tmp_path):
    from toolkit.outputs import runs

    path = runs.write_report(title="t", tables={}, figures={}, models=[], path=tmp_path / "r.html",
                             settings={"backend": f"https://alice:{SECRET}@llm.example.org/v1"})
    page = path.read_text(encoding="utf-8")
    assert SECRET not in page and "https://***@llm.example.org/v1" in page


@pytest.mark.slow
def test_notebooks_executed_copy_holds_no_url_credentials_even_when_the_run_fails(tmp_path, monkeypatch):
    """A notebook that prints a proxy setting, receives a URL with a password as a parameter and then fails with
    that URL in its error: the executed copy ``make figures`` keeps holds the host, never the password."""
    import nbformat
    from papermill.exceptions import PapermillExecutionError

    from toolkit import notebooks

    source = nbformat.v4.new_notebook()
    parameters = nbformat.v4.new_code_cell('URL = ""')
    parameters.metadata["tags"] = ["parameters"]
    source.cells = [parameters, nbformat.v4.new_code_cell("import os\nprint(os.environ['https_proxy'])"),
                    nbformat.v4.new_code_cell("raise RuntimeError('cannot reach ' + URL)")]
    source.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "01_secret.ipynb"
    nbformat.write(source, path)
    monkeypatch.setenv("https_proxy", f"http://alice:{SECRET}@proxy.example:3128")
    with pytest.raises(PapermillExecutionError):
        notebooks.execute(path, parameters={"URL": f"https://tok:{SECRET}@llm.example.org/v1"},
                          output_dir=tmp_path / "executed", timeout=120)
    text = (tmp_path / "executed" / path.name).read_text(encoding="utf-8")
    assert SECRET not in text
    assert "http://***@proxy.example:3128" in text and "https://***@llm.example.org/v1" in text
    json.loads(text)  # still a notebook


def test_apps_notes_never_keep_url_credentials_from_a_warning(small_runs):
    """The status line and the report were redacted, but ``app.notes`` kept the warning's password."""
    import warnings

    from toolkit.studies.eec.app import eec_app

    def study(**_):
        warnings.warn(f"retrying http://pxuser:{SECRET}@proxy.example:3128 after a timeout", stacklevel=1)
        return small_runs["eec"]

    app = eec_app(models=["afinn"], cache=False, study=study)
    assert app.run(), app.status.value
    assert any("proxy.example:3128" in note for note in app.notes)
    assert not any(SECRET in note for note in app.notes) and SECRET not in app.status.value
