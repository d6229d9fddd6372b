"""The multilingual app (languages, tasks, each language's systems; Run; tables, a figure per task, a drill-down)
and the study's drill-down pairs, checked against the analysis's own units."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_DATA
from test_studies_multilingual import _gt_corpus

from toolkit.errors import InputError, UnknownNameError
from toolkit.studies import multilingual
from toolkit.studies.multilingual import analysis
from toolkit.studies.multilingual.app import multilingual_app

ES_VALENCE = [f"es=ait:{s}/valence@es" for s in ("svm-unigrams", "svr-ngrams", "ridge-chars", "ensemble")]


def _recording(into: list):
    def study(**arguments):
        into.append(arguments)
        raise InputError("recorded.", fix="none needed.")

    return study


def test_app_offers_each_languages_systems_for_its_tasks_and_keeps_what_was_typed():
    app = multilingual_app(languages=["es"], cache=False, study=_recording([]))
    assert list(app.models.options) == ES_VALENCE and list(app.models.value) == ES_VALENCE  # offered and ticked
    app.extra.value = "py:synthetic_models:blind"
    app.tasks.value = ("valence", "anger")
    assert len(app.models.options) == 8 and all(o.startswith("es=ait:") for o in app.models.options)
    assert {o.split("/")[1] for o in app.models.value} == {"valence@es", "anger@es"}
    assert app.extra.value == "py:synthetic_models:blind"  # typed specs stay
    # as run() reads models: a language they do not name gets its defaults (the notebook's run and app agree)
    for models in ({"de": ["py:synthetic_models:blind"]}, ["de=py:synthetic_models:blind"]):
        explicit = multilingual_app(languages=["es", "de"], models=models, cache=False)
        assert list(explicit.models.value) == ES_VALENCE and explicit.extra.value == "de=py:synthetic_models:blind"
    common = multilingual_app(languages=["es", "de"], models=["py:synthetic_models:blind"], cache=False)
    assert list(common.models.value) == [] and common.extra.value == "py:synthetic_models:blind"  # every language
    camara = multilingual_app(sources=["camara2022"], cache=False)  # the corpus's own languages, as run() loads
    assert camara.languages.options == ("es", "ar")
    outside = multilingual_app(languages=["es", "de"], sources=["camara2022"], cache=False)
    assert outside.languages.options == ("es",) and not any(o.startswith("de=") for o in outside.models.options)
    assert "de is in none of the corpora camara2022: not offered" in outside.status.value
    with pytest.raises(InputError, match="sources='camara2022' is one string"):
        multilingual_app(sources="camara2022")
    with pytest.raises(InputError, match="max_templates is set by the app's fields"):
        multilingual_app(max_templates=3)
    with pytest.raises(InputError, match="is one string"):
        multilingual_app(languages="es")
    with pytest.raises(UnknownNameError, match="unknown task 'valance'"):
        multilingual_app(tasks=["valance"])
    with pytest.raises(UnknownNameError, match="unknown language 'xx'"):
        multilingual_app(languages=["es", "xx"])
    # the study's settings check the options at construction, as run() would at the first Run
    with pytest.raises(UnknownNameError, match="unknown multilingual corpus 'cammara2022'"):
        multilingual_app(sources=["cammara2022"])
    with pytest.raises(InputError, match="subsets='all' is one string"):
        multilingual_app(subsets="all")
    with pytest.raises(InputError, match="languages is empty"):
        multilingual_app(languages=[])
    with pytest.raises(InputError, match="tasks is None"):
        multilingual_app(tasks=None)
    with pytest.raises(UnknownNameError, match="unknown option 'foo'; available: alpha, cluster"):
        multilingual_app(foo=1)  # a TypeError at the first Run
    for given, match in (({"languages": 5}, "languages=5 is not a list"), ({"sources": None}, "sources is None"),
                         ({"subsets": None}, "subsets is None")):
        with pytest.raises(InputError, match=match):
            multilingual_app(**given)
    assert multilingual_app(cache=False).languages.options == ("es", "ar", "de", "ja", "zh")  # Spanish once


def test_run_with_an_unknown_corpus_is_a_coded_error_before_loading():
    """It was a KeyError from the default languages' lookup."""
    for languages in (None, ["es"]):
        with pytest.raises(UnknownNameError, match="unknown multilingual corpus 'foo'"):
            multilingual.run(models=["vader"], sources=["foo"], languages=languages, cache=False)


def test_app_hands_its_fields_to_the_study_and_scores_no_language_whose_systems_are_all_unticked(tmp_path):
    seen: list = []
    app = multilingual_app(languages=["es", "de"], sources=["goldfarb_tarrant2023"], root=tmp_path, n_boot=200,
                           cache=False, study=_recording(seen))
    app.models.value = ES_VALENCE[:1]  # de's systems (if installed) unticked, nothing typed for it
    app.quick.value = True
    assert app.run() is False and "recorded" in app.error
    de_offered = any(o.startswith("de=") for o in app.models.options)
    assert seen[-1] == {"sources": ["goldfarb_tarrant2023"], "root": tmp_path, "n_boot": 200,
                        "models": ES_VALENCE[:1], "languages": ["es"] if de_offered else ["es", "de"],
                        "tasks": ("valence",), "max_templates": 3, "cache": False, "progress": False}
    assert ("no system ticked for de: not scored" in app.field.notes) == de_offered  # a note after a run
    app.models.value = ()
    calls = len(seen)
    assert app.run() is False and len(seen) == calls  # nothing ticked or typed: said before any run
    assert app.error.startswith("no system is ticked or typed. Fix: tick a system")
    app.models.value = ES_VALENCE[:1]
    app.extra.value = "de=py:synthetic_models:blind"  # a typed system for de: de is scored
    app.quick.value = False
    app.run()
    assert seen[-1]["languages"] == ["es", "de"] and seen[-1]["max_templates"] is None
    assert seen[-1]["models"] == [ES_VALENCE[0], "de=py:synthetic_models:blind"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("multilingual")
    (root / "goldfarb_tarrant2023").mkdir()
    for language in ("de", "es"):
        _gt_corpus(root / "goldfarb_tarrant2023" / f"EEC_{language}.json")
    return root


def test_app_run_shows_validity_gaps_a_figure_per_task_and_pairs_behind_a_gap(corpus, tmp_path):
    app = multilingual_app(languages=["de", "es"], tasks=["valence", "anger"], sources=["goldfarb_tarrant2023"],
                           root=corpus, subsets=("all",), n_boot=100, cache=False,
                           models=["de=py:synthetic_models:female_plus", "es=ait:ridge-chars/anger@es"])
    assert app.run(), app.status.value
    tables = list(app._report_tables)
    assert [t.split(":")[0] for t in tables[:2]] == ["Validity", "Gaps per language (Δ = first group − second, score "
                                                                  "scale) with simultaneous 95 % intervals. Family"]
    assert all("Family: " in t for t in tables[:2])
    assert list(app._report_figures) == ["multilingual_gaps", "multilingual_gaps_anger"]
    drill = app.drill.children
    assert "Drill down" in drill[0].value
    system, attribute = drill[1].children
    assert list(system.options) == ["de (GT): py:synthetic_models:female_plus", "es (GT): ait:ridge-chars/anger@es"]
    assert list(attribute.options) == ["gender", "race"]
    assert "(9 pairs)" in drill[2].children[0].children[0].value  # 3 frames × 3 person pairs of the corpus
    paths = app.export_latex(tmp_path / "latex")
    assert any(p.name == "multilingual_gaps_table.tex" for p in paths)


def _units(result, *, language: str, model: str, attribute: str) -> pd.DataFrame:
    d = analysis.deltas(result.scored)
    return d[(d["language"] == language) & (d["model"] == model) & (d["attribute"] == attribute)]


def test_pairs_of_a_goldfarb_tarrant_language_are_the_analysis_units(corpus):
    result = multilingual.run(models=["py:synthetic_models:female_plus"], languages=["de"],
                              sources=["goldfarb_tarrant2023"], root=corpus, subsets=("all",), n_boot=100,
                              cache=False)
    for attribute, n in (("gender", 9), ("race", 6)):  # 3 frames × 3 person pairs; × 2 race pairs
        pairs = result.pairs(model="py:synthetic_models:female_plus", language="de", attribute=attribute)
        units = _units(result, language="de", model="py:synthetic_models:female_plus", attribute=attribute)
        assert len(pairs) == len(units) == n
        by_key = dict(zip(units["case_id"] + "|" + units["unit"].astype(str), units["delta"]))
        assert pairs["delta"].to_numpy() == pytest.approx([by_key[k] for k in pairs["key"]])
    gender = result.pairs(model="py:synthetic_models:female_plus", language="de", attribute="gender")
    assert (gender["group_a"] == "female").all() and gender["text_a"].str.contains("sie|Mutter|Frau").all()
    with pytest.raises(UnknownNameError, match="unknown language 'es'"):
        result.pairs(model="py:synthetic_models:female_plus", language="es", attribute="gender")
    with pytest.raises(UnknownNameError, match="unknown attribute 'age'"):
        result.pairs(model="py:synthetic_models:female_plus", language="de", attribute="age")


@pytest.mark.shared_data
def test_pairs_of_the_camara_corpus_average_to_the_analysis_units():
    if not (SHARED_DATA / "multilingual_eec" / "camara2022" / "es.csv").is_file():
        pytest.skip("the multilingual EEC corpora are not in ../shared/data/multilingual_eec")
    model = "py:synthetic_models:counting"
    result = multilingual.run(models=[model], languages=["es"], root=SHARED_DATA / "multilingual_eec",
                              subsets=("all",), n_boot=100, max_templates=2, cache=False)
    with pytest.raises(InputError, match="'es' is in 2 corpora of this run"):  # each corpus has its own gap
        result.pairs(model=model, language="es", attribute="gender")
    theirs = result.pairs(model=model, language="es", attribute="gender", source="goldfarb_tarrant2023")
    spanish_gt = _units(result, language="es", model=model, attribute="gender")
    spanish_gt = spanish_gt[spanish_gt["source"] == "goldfarb_tarrant2023"]
    by_key = dict(zip(spanish_gt["case_id"] + "|" + spanish_gt["unit"].astype(str), spanish_gt["delta"]))
    assert len(theirs) == len(by_key) > 0 and theirs["key"].str.startswith("goldfarb_tarrant2023:").all()
    assert theirs["delta"].to_numpy() == pytest.approx([by_key[k] for k in theirs["key"]])
    gender = result.pairs(model=model, language="es", attribute="gender", source="camara2022")
    units = _units(result, language="es", model=model, attribute="gender")
    units = units[units["source"] == "camara2022"]
    phrases = units[units["unit"] != analysis.NAMES_PAIR]
    by_key = dict(zip(phrases["case_id"] + "|" + phrases["unit"], phrases["delta"]))
    named = gender["key"].isin(by_key)
    assert named.sum() == len(phrases) > 0  # every noun-phrase unit, pair for pair
    assert gender.loc[named, "delta"].to_numpy() == pytest.approx([by_key[k] for k in gender.loc[named, "key"]])
    names = gender[~named].assign(case_id=lambda f: f["key"].str.split("|").str[0])
    means = units[units["unit"] == analysis.NAMES_PAIR].set_index("case_id")["delta"]
    per_case = names.groupby("case_id")["delta"].mean()  # equal names per race and gender: the mean of the means
    assert per_case.to_numpy() == pytest.approx(means.reindex(per_case.index).to_numpy())
    assert names["key"].map(lambda k: re.fullmatch(r".+\|names \(mean\): [^/]+/[^/]+", k) is not None).all()
    race = result.pairs(model=model, language="es", attribute="race", source="camara2022")
    units = _units(result, language="es", model=model, attribute="race")
    units = units[units["source"] == "camara2022"]
    by_key = dict(zip(units["case_id"] + "|" + units["unit"].str.replace("−", "/"), units["delta"]))
    assert len(race) == len(units) > 0 and set(race["key"]) == set(by_key)
    assert race["delta"].to_numpy() == pytest.approx([by_key[k] for k in race["key"]])
    assert np.isfinite(race["delta"]).all() and (race["group_a"] == "minoritized").all()


def test_a_language_given_no_system_is_skipped_with_the_right_reason():
    """Spanish has the ait: zoo and en_es takes English systems: neither is "no data" (the message said so)."""
    es = multilingual._no_system("es", ("valence",))
    assert "none was given" in es and "the ait: zoo, 4 systems" in es and "no 'es' data" not in es
    assert "its sentences are English" in multilingual._no_system("en_es", ("valence",))


def test_figures_and_app_tables_show_the_runs_first_subset_when_it_has_no_all():
    from types import SimpleNamespace

    from toolkit import studies

    row = {"source": "goldfarb_tarrant2023", "language": "de", "model": "gersent", "task": "valence",
           "attribute": "gender", "group_a": "female", "group_b": "male", "verdict": "inconclusive", "reason": "",
           "estimate": 0.01, "ci_low": -0.02, "ci_high": 0.04}
    gaps = pd.DataFrame([{**row, "subset": "emotion:joy"}, {**row, "subset": "emotion:fear", "estimate": 0.03}])
    assert multilingual.shown_subset(gaps) == "emotion:joy"
    drawn = studies.get("multilingual").figures(SimpleNamespace(frames={"gaps": gaps},
                                                                settings=SimpleNamespace(alpha=0.05)))
    assert list(drawn) == ["multilingual_gaps"] and drawn["multilingual_gaps"].get_title() == \
        "gender (valence, emotion:joy)"


def test_a_task_figure_keeps_a_row_for_a_language_without_a_system_for_that_task():
    """German scored for valence only (GerSent) is a row of the anger figure saying so, not silently left out."""
    from toolkit.studies.multilingual import figures

    row = {"source": "goldfarb_tarrant2023", "subset": "all", "attribute": "gender", "group_a": "female",
           "group_b": "male", "verdict": "inconclusive", "reason": "", "estimate": 0.01, "ci_low": -0.02,
           "ci_high": 0.04}
    stats = pd.DataFrame([{**row, "language": "de", "model": "gersent", "task": "valence"},
                          {**row, "language": "es", "model": "ait:ridge-chars/anger@es", "task": "anger"},
                          {**row, "language": "es", "model": "ait:ridge-chars/valence@es", "task": "valence"}])
    drawn = figures.by_task(stats)
    assert list(drawn) == ["multilingual_gaps", "multilingual_gaps_anger"]
    anger = drawn["multilingual_gaps_anger"][0]
    rows = ["German (Goldfarb-Tarrant)", "Spanish (Goldfarb-Tarrant)"]
    assert [t.get_text() for t in anger.get_yticklabels()] == rows
    assert [t.get_text() for t in anger.texts] == ["no anger system"]
    valence = drawn["multilingual_gaps"][0]
    assert [t.get_text() for t in valence.get_yticklabels()] == rows and not valence.texts


def test_pairs_of_an_attribute_the_languages_corpus_lacks_is_a_coded_error_naming_what_it_holds(tmp_path):
    """Chinese has gender pairs only: its race pairs are an error naming gender, never an empty list."""
    import json

    folder = tmp_path / "goldfarb_tarrant2023"
    folder.mkdir()
    data = json.loads(_gt_corpus(tmp_path / "full.json").read_text(encoding="utf-8"))
    data["anger"] = {k: v for k, v in data["anger"].items() if not k.startswith("race")}
    (folder / "EEC_zh.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    model = "py:synthetic_models:female_plus"
    result = multilingual.run(models=[model], languages=["zh"], sources=["goldfarb_tarrant2023"], root=tmp_path,
                              subsets=("all",), n_boot=100, cache=False)
    assert len(result.pairs(model=model, language="zh", attribute="gender")) == 9
    with pytest.raises(InputError, match="'zh' \\(goldfarb_tarrant2023\\) has no race pairs: its corpus holds "
                                         "gender") as caught:
        result.pairs(model=model, language="zh", attribute="race")
    assert "pick attribute 'gender'" in str(caught.value)
