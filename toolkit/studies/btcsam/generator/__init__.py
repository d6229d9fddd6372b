"""BTC-SAM test-case generation (Kardkovács et al. 2025): LLM backends and prompt store (:mod:`.llm`), prompts
(:mod:`.prompts`), reply parsing (:mod:`.parse`), the pipeline (:mod:`.stages`) and the counterfactual filter
(:mod:`.filter`)."""
from toolkit.studies.btcsam.generator.filter import FILTER_COLUMNS, REASONS, filter_counterfactuals  # noqa: F401
from toolkit.llm import BACKENDS, LLM, PromptStore, backend  # noqa: F401
from toolkit.studies.btcsam.generator.stages import AUGMENTATIONS, generate  # noqa: F401
