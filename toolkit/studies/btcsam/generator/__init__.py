"""BTC-SAM test-case generation (Kardkovács et al. 2025): prompts (:mod:`.prompts`), reply parsing
(:mod:`.parse`), the pipeline (:mod:`.stages`) and the counterfactual filter (:mod:`.filter`); the LLM client and
its backends are infrastructure, :mod:`toolkit.llm`."""
from toolkit.studies.btcsam.generator.filter import FILTER_COLUMNS, REASONS, filter_counterfactuals
from toolkit.studies.btcsam.generator.stages import AUGMENTATIONS, generate
