"""A Jupyter-first toolkit for testing sentiment-analysis systems for demographic bias.

Every study is a generator of counterfactual cases (each study's ``generate`` or ``generator``, :mod:`toolkit.studies`), one scoring engine
(:mod:`toolkit.scoring`), and a study that reads the scored cases (:mod:`toolkit.studies`). See README.md.
"""
__version__ = "0.1.0"


def __getattr__(name: str):
    """``toolkit.audit``: :func:`toolkit.auditing.audit`, imported on first use (it loads every study)."""
    if name == "audit":
        from toolkit.auditing import audit  # defers matplotlib and torch (every study draws and scores)

        return audit
    raise AttributeError(f"module 'toolkit' has no attribute {name!r}")
