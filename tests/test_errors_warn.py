import warnings

import pytest

from toolkit.studies import btcsam


def test_toolkit_warnings_point_at_the_callers_line_not_inside_the_package():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # PSA's "asked for 1000 sentences" is raised in toolkit/studies/psa/generator.py, called from toolkit/studies/btcsam/__init__.py
        btcsam.toolkit_sets(psa_n=1000, btcsam_dir=None, released=[])
    messages = {str(w.message).split(":")[0]: w.filename for w in caught}
    assert "PSA" in messages and any("skipped" in str(w.message) for w in caught)
    assert set(messages.values()) == {__file__}


def test_an_unknown_name_suggests_the_nearest_valid_one():
    """A new user's finding: studies=["eeec"] got no "did you mean" where a misspelt model spec did."""
    from toolkit.errors import unknown

    assert "did you mean 'eec'?" in unknown("study", "eeec", ["eec", "psa", "biasfinder"]).fix
    assert "did you mean" not in unknown("study", "zzz", ["eec", "psa"]).fix
    assert "available: eec, psa." in str(unknown("study", "zzz", iter(["psa", "eec"])))  # any iterable, sorted


def test_a_message_without_a_full_stop_still_ends_its_sentence_before_the_fix():
    from toolkit.errors import ModelOutputError

    assert str(ModelOutputError("mine raised RuntimeError: my model crashed", fix="fix it.")) == (
        "[TK203] mine raised RuntimeError: my model crashed. Fix: fix it.")
    assert str(ModelOutputError("done.", fix="x.")) == "[TK203] done. Fix: x."


def test_a_py_spec_with_a_misspelt_callable_suggests_the_nearest(tmp_path, monkeypatch):
    from toolkit.errors import ModelSpecError
    from toolkit.models import load

    (tmp_path / "my_scorers_dym.py").write_text("def biased(texts):\n    return [0.5 for _ in texts]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModelSpecError) as info:
        load("py:my_scorers_dym:biasd")
    assert "did you mean 'biased'?" in str(info.value)
