import warnings

from toolkit.studies import btcsam


def test_toolkit_warnings_point_at_the_callers_line_not_inside_the_package():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # PSA's "asked for 1000 sentences" is raised in toolkit/studies/psa/generator.py, called from toolkit/studies/btcsam/__init__.py
        btcsam.toolkit_sets(psa_n=1000, btcsam_dir=None, released=[])
    messages = {str(w.message).split(":")[0]: w.filename for w in caught}
    assert "PSA" in messages and any("skipped" in str(w.message) for w in caught)
    assert set(messages.values()) == {__file__}
