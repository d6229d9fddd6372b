"""The multilingual study used carelessly: a system of one language scoring another, a language no chosen corpus
holds, a shifted or relabelled corpus, strings or None where lists belong, and the LaTeX tables of a run that holds
Spanish twice or no 'all' subset. Each was a silent wrong result or a raw traceback."""
from __future__ import annotations

import json

import pytest
from test_multilingual_app import corpus  # noqa: F401  (the fixture: de and es, Goldfarb-Tarrant's layout)
from test_studies_multilingual import _gt_corpus

from toolkit.errors import CorpusError, InputError, UnknownNameError
from toolkit.studies import multilingual
from toolkit.studies.multilingual import corpora, per_language

QUICK = {"subsets": ("all",), "n_boot": 100, "cache": False}
BLIND = "py:synthetic_models:blind"


def test_a_system_built_for_one_language_never_scores_another():
    with pytest.raises(InputError, match=r"models\['es'\]'s 'gersent' would score 'es' sentences with a system "
                                         "built for 'de'"):
        per_language({"es": ["gersent"]}, languages=["es"])  # the mapping was not checked at all
    with pytest.raises(InputError, match="'ait:svr-ngrams/valence@ar' is built for 'ar' and, unprefixed, would score "
                                         "'es' sentences too") as caught:
        per_language(["ait:svr-ngrams/valence@ar"], languages=["es"])
    assert "ar=ait:svr-ngrams/valence@ar" in caught.value.fix
    with pytest.raises(InputError, match="'gersent' is built for 'de'") as caught:
        per_language(["gersent"], languages=["es", "de"])
    assert "de=gersent" in caught.value.fix
    assert per_language(["gersent"], languages=["de"]) == ["gersent"]  # its own language: as given
    assert per_language(["ait:svr-ngrams/valence"], languages=["en_es", "en_ar"]) == ["ait:svr-ngrams/valence"]
    with pytest.raises(InputError, match="a spec prefixed with a language; in a mapping the key is the language") \
            as caught:
        per_language({"es": ["de=gersent"]}, languages=["es", "de"])
    assert caught.value.fix == "models={'de': ['gersent']}."
    with pytest.raises(InputError, match="built for 'es'") as caught:  # English sentences: an English system
        per_language(["en_es=ait:svr-ngrams/valence@es"], languages=["en_es"])
    assert "en_es=vader" in caught.value.fix
    with pytest.raises(InputError, match="built for 'en'") as caught:  # "en" is no language of the corpora
        per_language(["ait:svr-ngrams/valence"], languages=["es", "ar"])
    assert caught.value.fix == ("give it to a run of 'en_es' or 'en_ar', prefixed (en_es=ait:svr-ngrams/valence or "
                                "en_ar=ait:svr-ngrams/valence).")
    with pytest.raises(InputError, match="give a 'es' system") as caught:  # minilm-ridge has no Spanish model
        per_language(["es=ait:minilm-ridge/valence"], languages=["es"])
    assert "@es" not in caught.value.fix.split("(")[0]


def test_a_model_object_built_for_one_language_never_scores_another():
    from toolkit.models import load

    german = load("gersent")
    with pytest.raises(InputError, match="'gersent' is built for 'de'"):
        per_language([german], languages=["es", "de"])
    with pytest.raises(InputError, match=r"models\['es'\]'s 'ait:svr-ngrams/valence@ar' would score 'es'"):
        per_language({"es": [load("ait:svr-ngrams/valence@ar")]}, languages=["es"])
    assert per_language({"de": [german]}, languages=["de"]) == {"de": [german]}


def test_a_language_no_chosen_corpus_holds_is_a_recorded_skip_or_an_error_naming_the_corpus(tmp_path):
    """German asked of Câmara's corpus alone was dropped with no word; given systems, the fix named the languages."""
    only_es = multilingual.run(models=[BLIND], languages=["de", "es"], sources=["camara2022"],
                               root=_camara_root(tmp_path), **QUICK)
    assert set(only_es.scored["language"]) == {"es"}
    assert "none of the chosen corpora (camara2022) holds 'de'; add goldfarb_tarrant2023" in \
        only_es.extras["skipped"]["de"]
    assert only_es.provenance.settings["skipped"] == {
        "de": "none of the chosen corpora (camara2022) holds 'de'; add goldfarb_tarrant2023 to sources (--sources)"}
    with pytest.raises(InputError, match="systems are given for 'de', which none of the chosen corpora "
                                         r"\(camara2022\) holds") as caught:
        multilingual.run(models=[f"es={BLIND}", f"de={BLIND}"], languages=["es", "de"], sources=["camara2022"],
                         root=_camara_root(tmp_path), **QUICK)
    assert "add goldfarb_tarrant2023 to sources" in caught.value.fix  # not "add 'de' to the languages"
    for models in ({"de": ["gersent"]}, ["de=gersent"]):  # the run's languages left out: the same
        with pytest.raises(InputError, match="systems are given for 'de'") as caught:
            multilingual.run(models=models, sources=["camara2022"], root=_camara_root(tmp_path), **QUICK)
        assert "add goldfarb_tarrant2023 to sources" in caught.value.fix
    with pytest.raises(InputError, match="which this run does not load") as caught:  # held, but not asked for
        multilingual.run(models=[f"en_es={BLIND}"], sources=["camara2022"], root=_camara_root(tmp_path), **QUICK)
    assert "--languages" in caught.value.fix


def test_the_command_lines_default_systems_skip_a_language_no_chosen_corpus_holds(tmp_path):
    """Without --model, de=gersent was made a 'given' system for German, and Câmara's corpus alone refused it."""
    from toolkit import studies

    study = studies.get("multilingual")
    settings = study.settings(languages=["es", "de"], sources=["camara2022"], tasks=["valence"])
    defaults = study.default_models(settings)
    assert defaults and all(spec.startswith("es=") for spec in defaults)
    result = multilingual.run(models=defaults[:1], languages=["es", "de"], sources=["camara2022"],
                              root=_camara_root(tmp_path), **QUICK)
    assert set(result.scored["language"]) == {"es"} and "holds 'de'" in result.extras["skipped"]["de"]


def test_a_mapping_of_generators_keeps_its_systems(corpus):
    """The new checks read a generator and left the language with no system ("none was given")."""
    result = multilingual.run(models={"de": (spec for spec in [BLIND])}, languages=["de"],
                              sources=["goldfarb_tarrant2023"], root=corpus, **QUICK)
    assert set(result.scored["model"]) == {BLIND} and result.extras["skipped"] == {}
    with pytest.raises(InputError, match=r"models\['de'\] is not a list"):
        per_language({"de": 5}, languages=["de"])


CAMARA_HEADER = "sentence,template,person,gender,race,emotion,emotion word,sentence_en\n"


def _camara_rows(*, gender_f="female", race="Latino"):
    rows = []
    for person, gender, race_of in (("Maria", gender_f, race), ("Juan", "male", race), ("Emily", "female", "Anglo"),
                                    ("Adam", "male", "Anglo"), ("ella", "female", ""), ("él", "male", "")):
        english = {"ella": "She", "él": "He"}.get(person, person)
        rows.append(f"{person} se siente enojada.,<person> se siente <emotion word>.,{person},{gender},{race_of},"
                    f"anger,enojada,{english} feels angry.")
    return CAMARA_HEADER + "\n".join(rows) + "\n"


def _camara_root(tmp_path):
    root = tmp_path / "camara_root"
    (root / "camara2022").mkdir(parents=True, exist_ok=True)
    for language in ("es", "ar"):  # the corpus's default languages (the rows are Spanish: the loader reads any)
        (root / "camara2022" / f"{language}.csv").write_text(_camara_rows(), encoding="utf-8")
    return root


@pytest.mark.parametrize("labels, match", [({"gender_f": "Female"}, "gender 'Female' is none of"),
                                           ({"race": "latino"}, "race 'latino' is none of")])
def test_camara_loader_refuses_a_relabelled_gender_or_race(tmp_path, labels, match):
    """A rewritten label dropped the attribute from the gaps with no message."""
    (tmp_path / "es.csv").write_text(_camara_rows(**labels), encoding="utf-8")
    assert len(corpora.load_camara(_camara_root(tmp_path) / "camara2022" / "es.csv", language="es")) == 6
    with pytest.raises(CorpusError, match=match):
        corpora.load_camara(tmp_path / "es.csv", language="es")


def test_goldfarb_tarrant_loader_refuses_a_list_shifted_against_its_partner(tmp_path):
    """A female list rotated by one paired sentences of different frames (32 such pairs in the real German file)."""
    data = json.loads(_gt_corpus(tmp_path / "good.json").read_text(encoding="utf-8"))
    female = data["anger"]["female"]
    data["anger"]["female"] = female[1:] + female[:1]
    (tmp_path / "EEC_de.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CorpusError, match="co-indexed sentences are not one template with two persons"):
        corpora.load_goldfarb_tarrant(tmp_path / "EEC_de.json", language="de")


@pytest.mark.parametrize("given, match", [
    ({"languages": "de"}, "languages='de' is one string"), ({"sources": "goldfarb_tarrant2023"}, "is one string"),
    ({"sources": None}, "sources is None"), ({"tasks": None}, "tasks is None"), ({"languages": 5}, "is not a list"),
    ({"models": 5}, "models=5 is not a list"), ({"sources": ["goldfarb"]}, "unknown multilingual corpus 'goldfarb'"),
    ({"subsets": 5}, "subsets=5 is not a list")])
def test_run_refuses_strings_none_and_numbers_where_lists_belong(corpus, given, match):
    """A string was read letter by letter ('unknown language 'd''), None and numbers gave TypeErrors."""
    with pytest.raises((InputError, UnknownNameError), match=match):
        multilingual.run(**{"models": [BLIND], "root": corpus, **QUICK, **given})


def test_pairs_refuse_a_list_for_the_attribute_and_an_empty_source(corpus):
    result = multilingual.run(models=[BLIND], languages=["de"], sources=["goldfarb_tarrant2023"], root=corpus, **QUICK)
    with pytest.raises(UnknownNameError, match=r"unknown attribute \['gender'\]"):
        result.pairs(model=BLIND, language="de", attribute=["gender"])
    with pytest.raises(UnknownNameError, match="unknown source ''"):  # "" was read as "the only corpus"
        result.pairs(model=BLIND, language="de", attribute="gender", source="")


def test_latex_tables_name_the_corpus_and_show_the_runs_first_subset(corpus):
    result = multilingual.run(models=[BLIND], languages=["de", "es"], sources=["goldfarb_tarrant2023"], root=corpus,
                              subsets=("emotion:anger",), n_boot=100, cache=False)
    tables = result.latex()
    gaps = tables["multilingual_gaps_table"]
    assert "Gaps per language (emotion:anger)" in gaps and gaps.count(r"py:synthetic\_models:blind &") == 4  # empty
    regression = tables["multilingual_regression_table"]
    header = regression.split(r"\midrule")[0]
    assert "source" in header and "de & GT &" in regression and "GT = Goldfarb-Tarrant et al. 2023" in regression


def test_a_run_too_small_for_the_papers_regression_says_so_in_its_rows(tmp_path):
    """Six Câmara sentences (four with names) gave a ZeroDivisionError from the paper's fit."""
    result = multilingual.run(models=[BLIND], languages=["es"], sources=["camara2022"],
                              root=_camara_root(tmp_path), **QUICK)
    paper = result.regression[result.regression["method"] == "paper"]
    assert paper["estimate"].isna().all() and paper["reason"].str.startswith("not fitted: the paper's regression "
                                                                             "needs more than 4 scores").all()


def test_a_named_corpus_folder_is_the_only_place_looked(tmp_path, monkeypatch):
    """TOOLKIT_MULTILINGUAL_DIR holding only es.csv used another copy of the corpus from the next folder, silently."""
    from toolkit import paths

    monkeypatch.setenv("TOOLKIT_MULTILINGUAL_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("TOOLKIT_DATA", str(tmp_path / "data"))
    other = tmp_path / "data" / "multilingual_eec" / "camara2022"
    other.mkdir(parents=True)
    for language in ("es", "ar"):
        (other / f"{language}.csv").write_text(CAMARA_HEADER, encoding="utf-8")
    (tmp_path / "mine" / "camara2022").mkdir(parents=True)
    (tmp_path / "mine" / "camara2022" / "es.csv").write_text(_camara_rows(), encoding="utf-8")
    assert paths.multilingual_dirs() == [tmp_path / "mine"]
    with pytest.raises(InputError, match=r"camara2022 corpus \(es.csv, ar.csv\) was not found; looked in: .*mine") \
            as caught:
        corpora.find(source="camara2022", languages=["es", "ar"])
    assert f"put them in {tmp_path / 'mine' / 'camara2022'}/" in caught.value.fix  # not data/multilingual_eec/
    assert corpora.find(source="camara2022", languages=["es"]) == tmp_path / "mine" / "camara2022"
    monkeypatch.delenv("TOOLKIT_MULTILINGUAL_DIR")
    assert corpora.find(source="camara2022", languages=["es", "ar"]) == other  # unset: the usual search order


@pytest.mark.parametrize("given, match", [({"sources": ["camara"]}, "unknown multilingual corpus 'camara'"),
                                          ({"languages": ["xx"]}, "unknown language 'xx'"),
                                          ({"languages": "es"}, "languages='es' is one string"),
                                          ({"sources": None}, "sources=None is not a list"),
                                          ({"sources": []}, r"sources=\(\) is not a list"),
                                          ({"languages": 5}, "languages=5 is not a list")])
def test_missing_refuses_what_run_would_refuse(tmp_path, given, match):
    """It returned "" (the corpora found), and the notebook's run failed after."""
    with pytest.raises((InputError, UnknownNameError), match=match):
        multilingual.missing(root=tmp_path, **given)
