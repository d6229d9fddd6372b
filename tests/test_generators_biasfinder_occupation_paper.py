"""BiasFinder's own occupation method (toolkit.studies.biasfinder.generator.occupation_paper): a listed occupation in a
sentence with a person mention (CoreNLP's pronominal mentions included), its left modifiers replaced, one template per
distinct occupation; the wiring under coherence="paper"."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import corpus_of

from toolkit.studies.biasfinder.generator import generate
from toolkit.studies.biasfinder.generator.occupation_paper import (
    generate_occupation_paper,
    occupation_templates_paper,
    title_forms,
)


def _templates(*texts: str):
    return occupation_templates_paper(corpus_of(list(texts)), lists="paper")


def test_title_forms_take_one_word_occupations_and_their_plurals():
    forms = title_forms(["lawyer", "secretary", "construction worker"])
    assert forms["lawyers"] == "lawyer" and forms["secretaries"] == "secretary" and forms["lawyer"] == "lawyer"
    assert "construction worker" not in forms and "worker" not in forms


def test_a_sentence_with_a_name_and_an_occupation_gives_a_template_and_other_sentences_stay():
    found = _templates("John Smith plays a lawyer who loves the job. The lawyer wins.")
    assert found["template"].tolist() == ["John Smith plays <a> <occupation> who loves the job. The lawyer wins."]
    assert found["occupation"].tolist() == ["lawyer"]


def test_no_person_in_the_sentence_gives_no_template():
    found = _templates("The lawyer was fine. Nobody else mattered.")
    assert found.empty
    assert found.attrs["rejected"] == {"biasfinder:no_person_in_sentence": 1}


@pytest.mark.parametrize(("text", "kept"), [("She is a lawyer.", True), ("His wife is a lawyer.", True),
                                            ("He is a lawyer.", False), ("They said it to her lawyer.", False)])
def test_pronouns_count_as_persons_as_biasfinders_exclusion_list_lets_them(text, kept):
    # CoreNLP's entity mentions hold he/him/his/she/her/hers as PERSON; BiasFinder excludes he, him, her (and
    # "hisshe" for a missing comma), so "she" and "his" make a sentence a candidate and "he" and "her" do not
    assert (len(_templates(text)) == 1) is kept


def test_left_modifiers_are_removed_and_the_article_agrees_with_the_fill():
    found = _templates("Tom met a very talented lawyer yesterday.")
    assert found["template"].tolist() == ["Tom met <a> <occupation> yesterday."]
    cases = generate_occupation_paper(corpus_of([]), templates=found, lists="paper")
    texts = dict(zip(cases["fill"], cases["text"]))
    assert texts["accountant"] == "Tom met an accountant yesterday."
    assert texts["nurse"] == "Tom met a nurse yesterday."


def test_spacing_before_punctuation_follows_biasfinders_join():
    # BiasFinder joins the kept left part, the slot and the rest with single spaces: "<OCC> ."
    assert _templates("Tom met a lawyer.")["template"].tolist() == ["Tom met <a> <occupation> ."]


def test_each_distinct_occupation_gives_its_own_template_and_case():
    found = _templates("Tom Hanks is a doctor and a farmer in this film.")
    assert sorted(found["occupation"]) == ["doctor", "farmer"]
    cases = generate_occupation_paper(corpus_of([]), templates=found, lists="paper")
    assert cases["case_id"].nunique() == 2 and cases["variant_id"].is_unique


def test_a_verb_is_not_an_occupation():
    assert _templates("She cooks for Tom every day.").empty


def test_paper_coherence_runs_biasfinders_occupation_method_and_toolkit_acceptance_does_not():
    corpus = corpus_of(["Tom met a very talented lawyer yesterday, and she was kind.",
                        "She is a lawyer and a lawyer is what she is."])
    paper = generate(corpus, instances=["occupation"], coherence="paper", lists="paper")
    assert any(t.startswith("Tom met <a> <occupation> yesterday") for t in paper["template"])
    ours = generate(corpus, instances=["occupation"], coherence="paper", lists="paper", acceptance="toolkit")
    assert not any(t.startswith("Tom met <a> <occupation> yesterday") for t in ours["template"])
    assert paper.attrs["coherence"]["acceptance"] == "biasfinder"


def test_occupation_paper_keeps_a_possessive_before_the_slot_as_spacy2_tagged_it_det():
    # spaCy 2 (BiasFinder's parse) gave "his"/"their" the part of speech DET, so its generatePlaceholder kept them
    assert _templates("Meryl Streep hired his expensive lawyer.")["template"].tolist() == [
        "Meryl Streep hired his <occupation> ."]


def test_occupation_paper_reads_the_review_after_biasfinders_clean_up():
    found = _templates("Tom Hanks is a lawyer in this sci-fi film, 10-20 minutes long.")
    assert found["template"].tolist() == ["Tom Hanks is <a> <occupation> in this scifi film, 1020 minutes long."]
    assert found["text"].tolist() == ["Tom Hanks is a lawyer in this scifi film, 1020 minutes long."]
    kept = occupation_templates_paper(corpus_of(["Tom Hanks is a lawyer in this sci-fi film."]), lists="paper",
                                      cleanup="tags")
    assert kept["text"].tolist() == ["Tom Hanks is a lawyer in this sci-fi film."]


def test_occupation_paper_extended_titles_add_film_and_job_titles_to_the_list():
    from toolkit.errors import UnknownNameError
    from toolkit.studies.biasfinder.generator.lists import word_lists
    from toolkit.studies.biasfinder.generator.occupation_paper import title_vocabulary

    extended = title_vocabulary("extended", "paper")
    assert set(word_lists("paper").occupations) <= set(extended)
    assert {"director", "actress", "villain", "producer"} <= set(extended)
    assert "director" not in title_vocabulary("paper", "paper")
    with pytest.raises(UnknownNameError):
        title_vocabulary("corenlp", "paper")
    text = "Steven Spielberg is the director, and the villain is a shark."
    assert _templates(text).empty
    found = occupation_templates_paper(corpus_of([text]), lists="paper", titles="extended")
    assert sorted(found["occupation"]) == ["director", "villain"]
    cases = generate_occupation_paper(corpus_of([]), templates=found, lists="paper")
    assert set(cases.loc[~cases["is_original"].astype(bool), "fill"]) == set(word_lists("paper").occupations)


def test_occupation_paper_title_resource_is_what_its_build_script_writes():
    import json
    import runpy
    from importlib import resources

    import faker

    shipped = json.loads(resources.files("toolkit.resources").joinpath("biasfinder_titles.json").read_text())
    if shipped["sources"]["faker"]["version"] != faker.VERSION:
        pytest.skip(f"built with Faker {shipped['sources']['faker']['version']}, {faker.VERSION} installed")
    script = Path(__file__).resolve().parents[1] / "scripts" / "build_biasfinder_titles.py"
    built = runpy.run_path(str(script))["build"]()
    assert built == shipped


def test_occupation_paper_first_keeps_a_reviews_first_occupation_only_and_is_the_presets_default():
    text = "Tom Hanks is a doctor and a farmer in this film."
    first = occupation_templates_paper(corpus_of([text]), lists="paper", per_review="first")
    assert first["occupation"].tolist() == ["doctor"] and first["k"].tolist() == [0]
    cases = generate(corpus_of([text]), instances=["occupation"], coherence="paper", lists="paper")
    assert cases["case_id"].nunique() == 1 and cases.attrs["coherence"]["paper"]["occupation_templates"] == "first"
    each = generate(corpus_of([text]), instances=["occupation"], coherence="paper", lists="paper",
                    occupation_templates="each")
    assert each["case_id"].nunique() == 2


def test_occupation_paper_a_title_without_job_family_keeps_every_fill_under_family_fit_and_is_counted():
    from toolkit.studies.biasfinder.generator.lists import word_lists

    corpus = corpus_of(["Steven Spielberg says the villain is a shark.", "Tom Hanks is a lawyer here."])
    with pytest.warns(UserWarning, match="no job family"):
        cases = generate(corpus, instances=["occupation"], coherence="paper", lists="paper", occupation_fit="family")
    mutants = cases[~cases["is_original"].astype(bool)].groupby("case_id")["fill"].nunique()
    originals = cases[cases["is_original"].astype(bool)].set_index("case_id")["occupation"]
    assert mutants[originals[originals == "villain"].index[0]] == len(word_lists("paper").occupations)
    assert mutants[originals[originals == "lawyer"].index[0]] < len(word_lists("paper").occupations)
    assert cases.attrs["generation_report"]["occupation_fit"]["templates_without_family"] == 1
