"""Moved: the LLM client is infrastructure now, :mod:`toolkit.llm`. This name stays importable for one release."""
from toolkit.llm import (APPLICATION_ID, BACKENDS, LIMITS, LLM, Backend, HFBackend, Messages,  # noqa: F401
                         OpenAIBackend, PromptStore, backend, check_logprobs, check_setting, retry_after)

__all__ = ["APPLICATION_ID", "BACKENDS", "LIMITS", "LLM", "Backend", "HFBackend", "Messages", "OpenAIBackend",
           "PromptStore", "backend", "check_logprobs", "check_setting", "retry_after"]
