"""BiasFinder test cases (Asyrofi et al., IEEE TSE 2021): templates mined from real reviews, filled per class.

Instances: :mod:`.gender` (Algorithm 1). Occupation and country of origin follow in later work.
"""
from toolkit.generators.biasfinder.gender import fill_names, gender_templates, generate_gender  # noqa: F401
