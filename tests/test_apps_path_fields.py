"""An app's path fields say where a relative path is read from (the kernel's folder: notebooks/ for the project's
notebooks), and a corpus not found names that folder."""
from __future__ import annotations

import pytest

from toolkit import corpora, paths
from toolkit.errors import InputError


def test_apps_path_fields_name_the_folder_relative_paths_are_read_from(monkeypatch):
    from toolkit.studies.biasfinder.app import biasfinder_app
    from toolkit.studies.psa.app import psa_app

    monkeypatch.chdir(paths.project_root() / "notebooks")
    psa, bf = psa_app(models=["afinn"], n=6, cache=False), biasfinder_app(models=["afinn"], cache=False)
    for field in (psa.corpus, psa.names, bf.corpus):
        assert field.placeholder.endswith("(relative to notebooks/)"), field.placeholder
        assert str(paths.project_root() / "notebooks") in field.tooltip


def test_apps_path_fields_a_corpus_not_found_names_the_folder_it_looked_in(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as found:
        corpora.load("reviews.csv")
    assert f"a relative path is read from {tmp_path}" in str(found.value)
