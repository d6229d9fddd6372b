"""A Jupyter-first toolkit for testing sentiment-analysis systems for demographic bias.

Every study is a generator of counterfactual cases (:mod:`toolkit.generators`), one scoring engine
(:mod:`toolkit.scoring`), and a study that reads the scored cases (:mod:`toolkit.studies`). See README.md.
"""
__version__ = "0.1.0"
