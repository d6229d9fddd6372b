"""Parsing and coreference: spaCy pipelines by name (:mod:`toolkit.nlp.pipeline`), coreference backends
(:mod:`toolkit.nlp.coref`, with BiasFinder's neuralcoref in :mod:`toolkit.nlp.neuralcoref`) and the GAP benchmark
(:mod:`toolkit.nlp.gap`)."""
from toolkit.nlp.coref import resolve
from toolkit.nlp.pipeline import DEFAULT_PIPELINE, GLUED_QUOTE, load_pipeline
