"""BiasFinder (Asyrofi et al., IEEE TSE 2021): templates mined from reviews, mutants, BTCs and the TPR study.

>>> from toolkit import biasfinder, corpora, scoring
>>> cases = biasfinder.generate_gender(corpora.load("sample"))
>>> scored = scoring.score(cases, models=["vader", "minilm-imdb"])
>>> biasfinder.table4(biasfinder.btcs(scored))
>>> biasfinder.sample_size(14916)   # 375

Generators: :mod:`toolkit.generators.biasfinder`; measurements: :mod:`toolkit.studies.biasfinder`.
Status: the gender instance is implemented; occupation and country of origin are not yet.
"""
from toolkit.generators.biasfinder import fill_names, gender_templates, generate_gender  # noqa: F401
from toolkit.studies.biasfinder import btcs, kappa, sample_size, table4, tpr  # noqa: F401
