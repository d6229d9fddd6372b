"""The multilingual EEC study: loaders (with ../shared, skipped without), the block inference of the
Goldfarb-Tarrant lists on a hand-made corpus, the defect rules on hand-made sentences, the statistics on a scored
table with a known gap, and the ait: systems in Spanish and Arabic."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_DATA

from toolkit.errors import InputError, UnknownNameError
from toolkit.models import ait, load
from toolkit.studies.multilingual import analysis, corpora, defects

ML = SHARED_DATA / "multilingual_eec"
_absent = pytest.mark.skipif(not (ML / "camara2022" / "es.csv").is_file(),
                             reason="the multilingual EEC corpora are not in ../shared/data/multilingual_eec")


def needs_corpora(test):
    """Marks a test that reads the corpora from ../shared (skipped when they are absent)."""
    return pytest.mark.shared_data(_absent(test))


@pytest.fixture(scope="module")
def table():
    if not (ML / "camara2022" / "es.csv").is_file():
        pytest.skip("the multilingual EEC corpora are not in ../shared/data/multilingual_eec")
    return corpora.load(root=ML)


def test_corpora_missing_files_name_the_repository_and_the_folders(tmp_path):
    with pytest.raises(InputError, match="ascamara/ml-intersectionality") as caught:
        corpora.find(source="camara2022", root=tmp_path)
    assert caught.value.code == "TK102" and str(tmp_path) in str(caught.value)
    assert f"put them in {tmp_path / 'camara2022'}/ (the folder you named is the only place looked)" in \
        caught.value.fix  # not data/multilingual_eec/, which is not looked in when a folder is named
    with pytest.raises(InputError, match="seraphinatarrant/multilingual_sentiment_analysis"):
        corpora.find(source="goldfarb_tarrant2023", root=tmp_path)
    with pytest.raises(UnknownNameError, match="available: ar, en_ar, en_es, es"):
        corpora.find(source="camara2022", languages=["de"], root=tmp_path)


def test_corpora_search_order_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLKIT_MULTILINGUAL_DIR", str(tmp_path))
    folder = tmp_path / "goldfarb_tarrant2023"
    folder.mkdir()
    for language in ("de", "es", "ja", "zh"):
        (folder / f"EEC_{language}.json").write_text("{}")
    assert corpora.find(source="goldfarb_tarrant2023") == folder


def _gt_corpus(path):
    """Three frames × three person pairs, in the release's layout: frame-major, persons in a fixed order (two
    frames with the subject forms, one with the accusative), and a race list of three frames × two pairs."""
    persons = [("sie", "er"), ("meine Mutter", "mein Vater"), ("diese Frau", "dieser Mann")]
    frames = ["{p} ist wütend.", "{p} ist zornig.", "Ich habe {p} wütend gemacht."]
    objects = {"er": "ihn", "mein Vater": "meinen Vater", "dieser Mann": "diesen Mann"}
    female, male = [], []
    for frame in frames:
        for f, m in persons:
            female.append(frame.format(p=f))
            male.append(frame.format(p=m if frame.startswith("{p}") else objects[m]))
    race_pairs = [("der Türke", "er"), ("die Türkin", "sie")]
    minor, privileged = [], []
    for frame in frames:
        for a, b in race_pairs:
            minor.append(frame.format(p=a if frame.startswith("{p}") else a.replace("der ", "den ") + "n"
                                      if a.startswith("der") else a))
            privileged.append(frame.format(p=b if frame.startswith("{p}") else objects.get(b, b)))
    data = {"anger": {"female": female, "male": male, "race: privileged": privileged, "race: minoritized": minor}}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_corpora_goldfarb_tarrant_blocks_become_frames_and_person_pairs(tmp_path):
    rows = corpora.load_goldfarb_tarrant(_gt_corpus(tmp_path / "EEC_de.json"), language="de")
    gender = rows[rows["attribute"] == "gender"]
    assert gender["case_id"].nunique() == 3 and gender["pair"].nunique() == 3
    assert set(gender.loc[gender["side"] == "a", "person"]) == {"sie", "meine Mutter", "diese Frau"}
    # the male member of a pair is one person in both cases (er / ihn), read from its position
    assert set(gender.loc[gender["side"] == "b", "person"]) == {"er", "mein Vater", "dieser Mann"}
    assert gender.groupby(["case_id", "pair"]).size().eq(2).all()
    first = gender[(gender["pair"] == "p001") & (gender["side"] == "a")].sort_values("case_id")
    assert first["text"].tolist() == ["meine Mutter ist wütend.", "meine Mutter ist zornig.",
                                      "Ich habe meine Mutter wütend gemacht."]
    assert first["template"].tolist() == ["<p> ist wütend.", "<p> ist zornig.", "Ich habe <p> wütend gemacht."]
    race = rows[rows["attribute"] == "race"]
    assert race["pair"].nunique() == 2 and set(race["race"]) == {"minoritized", "privileged"}
    # the gender of a race pair: its privileged member is a pronoun of the gender lists
    assert race.groupby("pair")["gender"].first().to_dict() == {"p000": "male", "p001": "female"}


def test_goldfarb_tarrant_emotion_word_is_the_same_word_at_the_end_of_a_sentence_and_inside_one():
    frames = {f"<p> ist {w}." for w in ("wütend", "zornig", "froh")} | {f"Ich habe <p> {w} gemacht."
                                                                        for w in ("wütend", "zornig", "froh")}
    out = corpora._templates(frames, "de")
    assert out["<p> ist wütend."] == ("<p> ist <e>", "wütend")  # the slot is the whole token, the word is not
    assert out["Ich habe <p> wütend gemacht."] == ("Ich habe <p> <e> gemacht.", "wütend")
    assert len({template for template, _ in out.values()}) == 2


@needs_corpora
def test_corpora_camara_keeps_every_pair_and_cell(table):
    es = table[(table["source"] == "camara2022") & (table["language"] == "es")]
    assert len(es) == 8460 and es["case_id"].nunique() == 141 and es["template_id"].nunique() == 11
    names = es[es["race"] != ""]
    assert names.groupby(["race", "gender"])["person_en"].nunique().to_dict() == {
        ("Anglo", "female"): 10, ("Anglo", "male"): 10, ("Latino", "female"): 10, ("Latino", "male"): 10}
    phrases = es[es["np_pair"] != ""]
    assert phrases["np_pair"].nunique() == 10
    # each noun-phrase pair has its female and its male sentence in every case (él and el are one person)
    assert phrases.groupby(["case_id", "np_pair"])["gender"].nunique().eq(2).all()
    # a pair shares the English emotion word although Spanish inflects it (enojada / enojado)
    pair = phrases[(phrases["np_pair"] == "my sister/my brother") & (phrases["case_id"].str.endswith("t01:angry"))]
    assert set(pair["emotion_word"]) == {"enojada", "enojado"}
    ar = table[(table["source"] == "camara2022") & (table["language"] == "ar")]
    assert len(ar) == 8038 and set(ar.loc[ar["race"] != "", "race"]) == {"Anglo", "Arab"}


@needs_corpora
def test_corpora_goldfarb_tarrant_sizes_match_the_release(table):
    gt = table[table["source"] == "goldfarb_tarrant2023"]
    assert gt.groupby("language").size().to_dict() == {"de": 24960, "es": 10600, "ja": 5678, "zh": 4928}
    de = gt[(gt["language"] == "de") & (gt["attribute"] == "gender")]
    assert de["pair"].nunique() == 10 and de.groupby("case_id").size().eq(20).all()
    assert gt[(gt["language"] == "de") & (gt["attribute"] == "race")]["pair"].nunique() == 68


def _rows(texts, *, language, fills=None, pairs=None, sides=None):
    n = len(texts)
    return pd.DataFrame({"source": "goldfarb_tarrant2023", "language": language, "emotion": "anger",
                         "attribute": "gender", "race": "", "gender": ["female", "male"] * (n // 2),
                         "text": texts, "fill": fills or [""] * n, "case_id": "c1",
                         "pair": pairs or [f"p{i // 2}" for i in range(n)],
                         "side": sides or ["a", "b"] * (n // 2), "emotion_word": "", "emotion_word_en": "",
                         "person": [f"x{i}" for i in range(n)], "person_en": [f"x{i}" for i in range(n)]})


def test_defects_rules_count_rows_and_whether_a_pair_shares_them():
    rows = _rows(["sie ist in eine irritierend Situation geraten.", "er ist in eine irritierend Situation geraten.",
                  "sie ist in eine irritierende Situation geraten.", "er ist in eine irritierend Situation geraten.",
                  "sie hat uns über die neuesten lästigen Ereignisse erzählt.",
                  "er hat uns über die neuesten lästigen Ereignisse erzählt.",
                  "sie ist empört,.", "er ist empört,."], language="de")
    found = defects.report(rows).set_index("check")
    adjective = found.loc["uninflected attributive adjective"]
    assert (adjective["n_rows"], adjective["n_units"], adjective["n_shared"], adjective["n_split"]) == (3, 2, 1, 1)
    comma = found.loc["comma before the final punctuation"]
    assert (comma["n_rows"], comma["n_shared"], comma["n_split"]) == (2, 1, 0)
    assert "double space" not in found.index


def test_defects_count_decomposed_letters_and_whether_they_split_a_pair():
    import unicodedata

    decomposed = unicodedata.normalize("NFD", "sie ist glücklich.")
    assert decomposed != "sie ist glücklich."
    rows = _rows([decomposed, unicodedata.normalize("NFD", "er ist glücklich."),  # both members: shared
                  decomposed, "er ist glücklich."], language="de")  # one member only: split
    found = defects.report(rows).set_index("check").loc["not in Unicode NFC"]
    assert (found["kind"], found["n_rows"], found["n_shared"], found["n_split"]) == ("encoding", 3, 1, 1)
    assert defects.report(_rows(["sie ist glücklich.", "er ist glücklich."], language="de"))[
        lambda f: f["kind"] == "encoding"].empty


@pytest.mark.parametrize("language, text, fill, check", [
    ("ar", "إيلين تشعر بال عصبيه", "", "detached article"),
    ("es", "Carlos va a el colegio", "", "missing contraction"),
    ("es", "el se siente triste", "el", "pronoun without its accent"),
    ("es", "my tio está enfadado.", "", "English word in the sentence"),
    ("ja", "彼女は私を嬉しがらせるせた。", "", "causative after a dictionary form"),
    ("zh", "她 感到 气恼.", "", "spaces between Chinese words"),
])
def test_defects_each_rule_fires_on_its_example(language, text, fill, check):
    rows = _rows([text, text + " "], language=language, fills=[fill, fill])
    assert check in set(defects.report(rows)["check"])


@pytest.mark.parametrize("language, text", [("de", "Das Gespräch mit meiner Mutter war lästig."),
                                            ("es", "Ella va al colegio."), ("ja", "彼女は私をむかつかせた。")])
def test_defects_rules_leave_grammatical_sentences_alone(language, text):
    rows = _rows([text, text], language=language)
    assert defects.report(rows)[lambda f: f["kind"] == "grammar"].empty


def test_ait_spanish_and_arabic_systems_score_their_language():
    assert ait.parse_language("ait:ridge-chars/joy@es") == ("ridge-chars", "joy", "es")
    with pytest.raises(UnknownNameError, match="trained in 'ar'"):
        load("ait:lexicon-ridge/joy@ar")
    with pytest.raises(UnknownNameError, match="unknown ait language 'de'"):
        load("ait:ridge-chars/joy@de")
    model = load("ait:ridge-chars/valence@es")
    out = model.predict(["¡Qué alegría, estoy feliz y contenta!", "Qué tristeza, odio todo, estoy deprimido."])
    assert out.score[0] > out.score[1] and model.language == "es" and 0.5 < model.pearson < 1
    table = ait.pearson_table(language="all")
    assert set(table["language"]) == {"en", "es", "ar"}
    assert len(table[table["language"] == "ar"]) == 5 * len(ait.NGRAM_SYSTEMS)


@needs_corpora
def test_analysis_finds_a_planted_gender_gap_and_no_race_gap(table):
    es = table[(table["source"] == "camara2022") & (table["language"] == "es")]
    rng = np.random.default_rng(0)
    names = pd.Series(rng.normal(0, 0.01, es["person_en"].nunique()), index=es["person_en"].unique())
    templates = pd.Series(rng.normal(0, 0.05, 12), index=range(12))
    score = (0.5 + 0.06 * (es["gender"] == "female") + es["person_en"].map(names)
             + es["template_id"].map(templates) + rng.normal(0, 0.01, len(es)))
    scored = es.assign(model="synthetic", task="valence", score=score.clip(0, 1), label="", truncated=False)
    stats = analysis.statistics(scored, subsets=("all",)).set_index("attribute")
    assert stats.loc["gender", "verdict"] == "a higher"
    assert stats.loc["gender", "ci_low"] < 0.06 < stats.loc["gender", "ci_high"]
    assert stats.loc["race", "verdict"] != "a higher" and stats.loc["race", "ci_low"] < 0 < stats.loc["race", "ci_high"]
    crossed = analysis.intersections(scored, n_boot=200)
    assert len(crossed) == 7 and crossed["reason"].eq("").all()


def test_the_family_names_the_tests_its_intervals_are_simultaneous_over(table):
    """The family's size is the tests with a p (a system with one template has none and is not in the Bonferroni
    level), and it spans every task of the run: the figure's legend reads it."""
    es = table[(table["source"] == "camara2022") & (table["language"] == "es")]
    rng = np.random.default_rng(0)
    score = (0.5 + 0.06 * (es["gender"] == "female") + rng.normal(0, 0.01, len(es))).clip(0, 1)
    planted = es.assign(model="synthetic", task="valence", score=score, label="", truncated=False)
    one_template = planted[planted["template_id"] == planted["template_id"].iloc[0]].assign(model="one-template")
    stats = analysis.statistics(pd.concat([planted, planted.assign(task="anger"), one_template]), subsets=("all",))
    assert len(stats) == 6 and stats["p_value"].isna().sum() == 2
    assert set(stats["family"]) == {"multilingual:all: 4 tests (1 language × models × 2 tasks × attributes), holm"}
    alone = analysis.statistics(planted, subsets=("all",))
    assert set(alone["family"]) == {"multilingual:all: 2 tests (1 language × models × attributes), holm"}


def test_a_system_none_of_whose_sentences_has_its_pair_scored_is_a_recorded_skip(table):
    es = table[(table["source"] == "camara2022") & (table["language"] == "es")]
    planted = es.assign(model="synthetic", task="valence", score=0.5, label="", truncated=False)
    female = planted[planted["gender"] == "female"].head(6).assign(model="half")  # no male partner scored
    with pytest.warns(UserWarning, match=r"no gap for half \(valence\) in es \(camara2022\)"):
        stats = analysis.statistics(pd.concat([planted, female]), subsets=("all",))
    assert set(stats["model"]) == {"synthetic"}


def test_multilingual_run_without_the_corpora_is_a_coded_error_before_any_scoring(tmp_path):
    from toolkit.studies import multilingual

    with pytest.raises(InputError, match="not shipped|does not ship") as caught:
        multilingual.run(root=tmp_path, languages=["es"], sources=["camara2022"], cache=False)
    assert caught.value.code == "TK102"
    assert multilingual.missing(root=tmp_path).startswith("the camara2022 corpus")
    assert multilingual.default_models("fr") == [] and "ait:ridge-chars/valence@es" in multilingual.default_models("es")


@needs_corpora
def test_multilingual_run_scores_a_language_without_ait_systems_with_a_given_model(tmp_path):
    """German has no ait: system; a py: model given for it runs through loading, scoring, the crossed estimate and
    the race × gender cells (the gender of a German race pair comes from its pronoun)."""
    from toolkit.studies import multilingual

    result = multilingual.run(models={"de": ["py:synthetic_models:blind"]}, languages=["de"],
                              sources=["goldfarb_tarrant2023"], root=ML, subsets=("all",), max_templates=3,
                              n_boot=200, cache=False)
    stats = result.gaps.set_index("attribute")
    assert set(stats.index) == {"gender", "race"} and stats["estimate"].notna().all()
    assert not stats["verdict"].isin(["a higher", "b higher"]).any()  # the model ignores who the sentence is about
    assert result.intersections["reason"].eq("").all() and len(result.intersections) == 7
    assert result.skipped == {} and result.regression["method"].eq("paper").any()


def test_multilingual_is_registered_and_checks_its_settings():
    from toolkit import studies
    from toolkit.errors import UnknownNameError as Unknown

    study = studies.get("multilingual")
    assert "multilingual" in [s.name for s in studies.all_studies()]
    assert study.settings(size="quick").languages == ("es",)
    with pytest.raises(Unknown, match="unknown cluster 'both'"):
        study.settings(cluster="both")


@needs_corpora
def test_multilingual_quick_run_through_the_registry_gives_the_statistics_frame(tmp_path):
    from toolkit import studies

    result = studies.get("multilingual").run(size="quick", cache=False, n_boot=200, root=str(ML))
    stats = result.stats
    assert len(stats) and stats["study"].eq("multilingual").all() and (stats["verdict"] != "").all()
    assert not stats["unit"].str.contains(r"\s−\s*$|difference\s+−", regex=True).any()  # no empty group names
    interaction = stats[stats["attribute"] == "race × gender: interaction"]
    assert len(interaction) and interaction["unit"].str.startswith("score difference of differences").all()
    assert {"gaps", "intersections", "regression", "defects"} <= set(result.frames)
    assert (tmp_path / "multilingual_gaps.csv") in result.write(tmp_path)


def test_per_language_specs_become_a_mapping_and_unprefixed_ones_score_every_language():
    from toolkit.studies.multilingual import per_language

    assert per_language(["vader", "afinn"], languages=["es", "de"]) == ["vader", "afinn"]  # no prefix: unchanged
    assert per_language(None) is None and per_language({"de": ["gersent"]}) == {"de": ["gersent"]}
    assert per_language(["de=gersent", "es=ait:svr-ngrams/valence@es"], languages=["es", "de"]) == {
        "de": ["gersent"], "es": ["ait:svr-ngrams/valence@es"]}
    model = load("vader")  # an object is an unprefixed model: every language
    mixed = per_language([model, "de=gersent", "de=py:m:f?labels=a,b"], languages=["es", "de"])
    assert mixed == {"es": [model], "de": [model, "gersent", "py:m:f?labels=a,b"]}
    assert per_language(["hf:org/model?labels=neg,pos"], languages=["es"]) == ["hf:org/model?labels=neg,pos"]
    with pytest.raises(UnknownNameError, match="unknown language 'fr'; available: .*de.*zh"):
        per_language(["fr=vader"], languages=["es"])
    with pytest.raises(InputError, match="'ja=mlask' is for 'ja', which this run does not load") as caught:
        per_language(["ja=mlask"], languages=["es", "de"])
    assert "--languages" in caught.value.fix


def test_multilingual_command_line_options_and_prefixed_default_models():
    from toolkit import studies
    from toolkit.__main__ import _parser

    study = studies.get("multilingual")
    args = _parser("multilingual").parse_args(["multilingual", "--out", "x", "--languages", "es,de,es", "--sources",
                                               "goldfarb_tarrant2023", "--tasks", "valence", "--max-templates", "2"])
    settings = study.settings(**study.arguments(args))
    assert settings.languages == ("es", "de") and settings.sources == ("goldfarb_tarrant2023",)
    assert settings.tasks == ("valence",) and settings.max_templates == 2
    defaults = study.default_models(settings)
    assert "es=ait:ridge-chars/valence@es" in defaults and not any(s.startswith("de=") and "ait:" in s
                                                                     for s in defaults)
    assert all(spec.split("=", 1)[0] in ("es", "de") for spec in defaults)
    assert study.default_models(study.settings(languages=("de",), tasks=("anger",))) == []  # none: --model asked
    unset = study.arguments(_parser("multilingual").parse_args(["multilingual", "--out", "x"]))
    assert unset == {}  # nothing given: the settings' own defaults
    for bad, error, match in [("--languages=es,fr", UnknownNameError, "unknown language 'fr'"),
                              ("--languages=es,", InputError, "empty item"),
                              ("--tasks=valence,joyful", UnknownNameError, "unknown task 'joyful'"),
                              ("--sources=camara", UnknownNameError, "unknown source 'camara'")]:
        with pytest.raises(error, match=match):
            study.arguments(_parser("multilingual").parse_args(["multilingual", "--out", "x", bad]))
    for bad in (0, -1, 2.5, True):
        with pytest.raises(InputError, match="max_templates"):
            study.settings(max_templates=bad)


def test_multilingual_run_scores_each_language_with_its_prefixed_model(tmp_path):
    """Two languages of a hand-made Goldfarb-Tarrant corpus: ``de=`` and ``es=`` models score only their language,
    an unprefixed one both."""
    from toolkit.studies import multilingual

    folder = tmp_path / "goldfarb_tarrant2023"
    folder.mkdir()
    for language in ("de", "es"):
        _gt_corpus(folder / f"EEC_{language}.json")
    result = multilingual.run(models=["de=py:synthetic_models:blind", "es=py:synthetic_models:female_plus",
                                      "py:synthetic_models:counting"],
                              languages=["de", "es"], sources=["goldfarb_tarrant2023"], root=tmp_path,
                              subsets=("all",), n_boot=100, cache=False)
    by_language = result.scored.groupby("language")["model"].unique().map(set).to_dict()
    assert by_language == {"de": {"py:synthetic_models:blind", "py:synthetic_models:counting"},
                           "es": {"py:synthetic_models:female_plus", "py:synthetic_models:counting"}}
    regression = result.regression  # 4 names: too few for the sound fit's clusters, a recorded row, not a crash
    sound, paper = regression[regression["method"] == "sound"], regression[regression["method"] == "paper"]
    assert len(sound) and sound["estimate"].isna().all()
    assert sound["reason"].str.fullmatch(r"not fitted: the sound regression needs at least 2 templates and 5 "
                                         r"names; got 3 and 4\.").all()
    assert paper["estimate"].notna().any() and paper["reason"].eq("").all()
    with pytest.raises(InputError, match="which this run does not load"):
        multilingual.run(models=["ja=py:synthetic_models:blind"], languages=["de"], sources=["goldfarb_tarrant2023"],
                         root=tmp_path, cache=False)


def test_per_language_refuses_what_would_score_the_wrong_language_or_be_silently_dropped():
    from toolkit.studies.multilingual import per_language

    with pytest.raises(InputError, match="system built for 'en'") as caught:  # ait: without @es is English
        per_language(["es=ait:svr-ngrams/valence"], languages=["es"])
    assert "es=ait:svr-ngrams/valence@es" in caught.value.fix
    with pytest.raises(InputError, match="'es' sentences with a system built for 'de'"):
        per_language(["es=gersent"], languages=["es"])
    assert per_language(["es=ait:svr-ngrams/valence@es"], languages=["es"]) == {"es": ["ait:svr-ngrams/valence@es"]}
    assert per_language(["en_es=ait:svr-ngrams/valence"], languages=["en_es"]) == {  # English sentences
        "en_es": ["ait:svr-ngrams/valence"]}
    with pytest.raises(InputError, match="built for 'es'"):
        per_language(["en_es=ait:svr-ngrams/valence@es"], languages=["en_es"])
    for malformed in ("DE=gersent", "de =gersent", "=gersent", "de="):
        with pytest.raises((InputError, UnknownNameError)):
            per_language([malformed], languages=["de"])
    with pytest.raises(InputError, match="one string"):
        per_language("gersent")
    with pytest.raises(UnknownNameError, match="unknown language 'DE'"):
        per_language({"DE": ["vader"]}, languages=["de"])
    with pytest.raises(InputError, match="does not load"):
        per_language({"ja": ["mlask"]}, languages=["de"])
    with pytest.raises(InputError, match="one string"):
        per_language({"de": "gersent"}, languages=["de"])


def test_multilingual_settings_refuse_strings_and_empty_lists_and_count_a_repeat_once():
    from toolkit import studies

    study = studies.get("multilingual")
    for field, value in (("languages", "de"), ("tasks", "valence"), ("sources", "camara2022")):
        with pytest.raises(InputError, match=f"{field}='.*' is one string"):
            study.settings(**{field: value})
    with pytest.raises(InputError, match="languages is empty"):
        study.settings(languages=[])
    assert study.settings(languages=["de", "de"], tasks=["valence", "valence"]).languages == ("de",)
    with pytest.raises(UnknownNameError, match="unknown task 'joyful'"):
        study.settings(tasks=["joyful"])


def test_multilingual_run_reads_a_generator_of_models_once(tmp_path):
    from toolkit.studies import multilingual

    folder = tmp_path / "goldfarb_tarrant2023"
    folder.mkdir()
    _gt_corpus(folder / "EEC_de.json")
    result = multilingual.run(models=(m for m in ["de=py:synthetic_models:blind"]), languages=["de"],
                              sources=["goldfarb_tarrant2023"], root=tmp_path, subsets=("all",), n_boot=100,
                              cache=False)
    assert set(result.scored["model"]) == {"py:synthetic_models:blind"}


@pytest.mark.parametrize("content, match", [
    ("[1, 2]", "not an object of emotions"), ('"hello"', "not an object of emotions"),
    ('{"anger": null}', "not an object of emotions"), ("{}", "holds no pair of co-indexed"),
    ('{"anger": {"female": [1, 2], "male": [3, 4]}}', "'female' is not a list of sentences"),
    ('{"anger": {"female": ["a", null], "male": ["b", "c"]}}', "'female' is not a list of sentences")])
def test_goldfarb_tarrant_loader_names_a_malformed_file(tmp_path, content, match):
    from toolkit.errors import CorpusError

    (tmp_path / "EEC_de.json").write_text(content, encoding="utf-8")
    with pytest.raises(CorpusError, match=match) as caught:
        corpora.load_goldfarb_tarrant(tmp_path / "EEC_de.json", language="de")
    assert "seraphinatarrant" in caught.value.fix


def test_camara_loader_refuses_a_header_only_file_and_analysis_survives_one_gender(tmp_path):
    from toolkit.errors import CorpusError

    header = "sentence,template,person,gender,race,emotion,emotion word,sentence_en\n"
    (tmp_path / "es.csv").write_text(header, encoding="utf-8")
    with pytest.raises(CorpusError, match="holds no sentences"):
        corpora.load_camara(tmp_path / "es.csv", language="es")
    rows = pd.DataFrame({"language": "es", "source": "camara2022", "model": "m", "task": "valence", "case_id": "c",
                         "template_id": 1, "emotion": "anger", "np_pair": ["she/he", ""], "race": ["", "Latino"],
                         "gender": "female", "person_en": ["she", "Maria"], "score": [0.4, 0.5]})
    assert analysis._camara(rows)[0].empty  # one gender only: no pair, and no KeyError


def test_conclusions_say_where_the_system_does_not_read_the_sentences_affect():
    """A system whose validity check does not separate its task's emotion (an English lexicon on Spanish, say)
    gets a caveat in the statistics frame's reason, whatever its verdict ("identical scores" read as "no bias"
    before); a system that separates keeps its reason as it was."""
    from toolkit.studies.multilingual import _with_validity

    rows = pd.DataFrame({"language": ["es", "es", "de"], "source": ["camara2022"] * 2 + ["gt"],
                         "model": ["vader", "ait:es", "vader"], "task": ["valence"] * 3,
                         "reason": ["every paired score is equal: nothing to test", "", None]})
    checks = pd.DataFrame({"language": ["es", "es"], "source": ["camara2022"] * 2, "model": ["vader", "ait:es"],
                           "task": ["valence"] * 2, "auc": [0.533, 0.91], "ci_low": [0.39, 0.85],
                           "ci_high": [0.67, 0.95], "verdict": ["does not separate", "separates"]})
    reason = _with_validity(rows, checks)
    assert reason[0] == ("every paired score is equal: nothing to test; validity: does not separate (AUC 0.53 "
                         "[0.39, 0.67]): the system may not read these sentences' affect, so this row may measure "
                         "nothing")
    assert reason[1] == "" and reason[2] == ""  # separates; no check for that language
    assert list(_with_validity(rows, None)) == ["every paired score is equal: nothing to test", "", ""]
    # "no test" (nothing to separate, no variance) says nothing about the system; "reversed" does, NaN as n/a
    checks["verdict"] = ["no test", "reversed"]
    checks.loc[1, ["auc", "ci_low", "ci_high"]] = [0.2, 0.1, float("nan")]
    reason = _with_validity(rows, checks)
    assert reason[0] == "every paired score is equal: nothing to test"
    assert reason[1].startswith("validity: reversed (AUC 0.20 [0.10, n/a])")
