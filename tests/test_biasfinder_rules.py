"""BiasFinder's coherence rules as named switches (issue 25): each rule on its hand-written example rejects (or
repairs) it when on and lets it through when switched off; ``coherence="paper"`` lets every example through; the
default set reproduces the case tables of the code before the rules had names (tests/data baseline)."""
import hashlib
import json
from pathlib import Path

import pytest
from conftest import SHARED_DATA, corpus_of

from toolkit.errors import UnknownNameError
from toolkit.studies.biasfinder.generator import (
    COLUMNS,
    country_templates,
    gender_templates,
    generate,
    occupation_templates,
)
from toolkit.studies.biasfinder.generator.rules import DEFAULT, RULES, active, record, table

BASELINE = json.loads((Path(__file__).parent / "data" / "biasfinder_default_baseline.json").read_text())
IMDB = SHARED_DATA / "imdb" / "imdb_train.csv.gz"

# rule → a review it rejects at the gender stage (the motivating examples, shortened)
GENDER_EXAMPLES = {
    "title_quote": 'This one and "Her Pilgrim Soul" are two of my favorite episodes. However, this episode is '
                   'sentimental too.',
    "title_name": "I saw Saving Private Ryan again; he is great in it.",
    "deity": "Jesus walks on water, and he smiles at us.",
    "other_person": "The scenes were good and jessica Simpson is plain hot, i just wish they had used her more.",
    "title_cased_pronoun": "Over His Dead Body was a nice little movie. It was decent and entertaining.",
    "honorific": 'Of course Shahrukh Khan was there yet he was not enough to make this movie "credible". I have read '
                 'that it was based on the novel of Flaubert "Madame Bovary" yet I did not see it.',
    "sex_specific": "She is pregnant in this film, and she plays it beautifully.",
    "own_noun_plural": "The guy is brave, and he is one of the few good guys here.",
    "repeated_slot": "Tom Cruise is the worst in this. I AM A TRUE MOVIE CRITIC...he he.",
    "misspelled_name": "I have seen most of Ryuhei Kitamura's output. He is uneven, and this film of his is dull. Only "
                       "for Kitumura fans.",
}
OCCUPATION_EXAMPLES = {  # rule → (review, word-list preset)
    "occupation_not_person": ("It is a detective story about a murder, and the story is dull.", "curated"),
    "occupation_sense": ("I watched the pilot last night. The series looks promising.", "paper"),
    "occupation_other_name": ("The detective is tired. The cop in him never sleeps, and the detective wins.",
                              "curated"),
    "occupation_in_quotes": ('He had been an "attendant" for years.', "paper"),
    "modifier_phrase": ("Boxing Refree + Parapsychology ka professor is the hero. The professor wins.", "curated"),
}


# the case table's columns when the baseline was recorded; "noun_fill" came later and is "" outside paper mode
BASELINE_COLUMNS = tuple(c for c in COLUMNS if c != "noun_fill")


def _digest(frame) -> str:
    assert frame["noun_fill"].eq("").all()  # the default generator fills a noun with its pair only
    return hashlib.sha256(frame.loc[:, list(BASELINE_COLUMNS)].to_csv(index=False).encode()).hexdigest()


def test_every_rule_is_documented_with_an_example_and_a_test():
    assert len(RULES) >= 20
    for rule in RULES.values():
        assert rule.kind in ("reject", "repair") and rule.rejects and rule.example
        assert set(rule.instances) <= {"gender", "country", "occupation"}
        path, test = rule.test.split("::")
        assert path == "tests/test_biasfinder_rules.py" and test.split("[")[0] in globals(), rule.test
    assert [row["name"] for row in table()] == list(RULES)
    assert set(GENDER_EXAMPLES) | set(OCCUPATION_EXAMPLES) | {"nationality", "stray_pronoun", "merged_names",
                                                              "name_left"} == {
        name for name, rule in RULES.items() if rule.kind == "reject"}


@pytest.mark.parametrize("rule", sorted(GENDER_EXAMPLES))
def test_a_gender_rule_rejects_its_example_and_lets_it_through_when_off(rule):
    corpus = corpus_of([GENDER_EXAMPLES[rule]])
    on = gender_templates(corpus, rejected=(on_rejected := {}))
    assert on.empty and on_rejected == {rule: 1}
    off = gender_templates(corpus, rules=DEFAULT - {rule}, rejected=(off_rejected := {}))
    assert len(off) == 1 and off_rejected == {}
    assert len(gender_templates(corpus, rules=active("paper"))) == 1


@pytest.mark.parametrize("rule", sorted(OCCUPATION_EXAMPLES))
def test_an_occupation_rule_rejects_its_example_and_lets_it_through_when_off(rule):
    text, lists = OCCUPATION_EXAMPLES[rule]
    on = occupation_templates(corpus_of([text]), lists=lists, rejected=(on_rejected := {}))
    assert on.empty and on_rejected == {rule: 1}
    off = occupation_templates(corpus_of([text]), lists=lists, rules=DEFAULT - {rule})
    assert off["template"].str.contains("<occupation>").tolist() == [True]
    assert len(occupation_templates(corpus_of([text]), lists=lists, rules=active("paper"))) == 1


def test_the_nationality_rule_rejects_a_country_template_only_when_on():
    text = "Ahmet Yilmaz is no artist. Turkish cinema deserves better. He only knows how to choose a cast, and he did."
    gendered = gender_templates(corpus_of([text]))
    assert len(gendered) == 1
    assert country_templates(gendered, rejected=(rejected := {})).empty and rejected == {"nationality": 1}
    assert len(country_templates(gendered, rules=DEFAULT - {"nationality"})) == 1
    assert len(country_templates(gendered, rules=active("paper"))) == 1


@pytest.mark.parametrize("rule, text, cluster", [
    # a neural backend may leave a pronoun out of the cluster, merge two people or miss a later surname
    ("stray_pronoun", "Adam Jones is great, and he knows it.", [(0, 10)]),
    ("merged_names", "Brittany directed it. Later Amanda won, and she thanked everyone.", [(0, 8), (28, 34), (44, 47)]),
    ("name_left", "Tom Hanks is great. Hanks knows it, and he shows it.", [(0, 9), (40, 42)]),
])
def test_a_rule_for_a_cluster_a_neural_backend_may_give(rule, text, cluster):
    from toolkit.nlp import coref
    from toolkit.studies.biasfinder.generator.gender import _template, _template_or_reason
    from toolkit.studies.biasfinder.generator.lists import word_lists

    doc = coref.backend("rules").nlp(text)
    pairs = word_lists().noun_pairs
    assert _template(doc, cluster, pairs) is None
    assert _template_or_reason(doc, cluster, pairs, DEFAULT, "mutate") == rule
    assert isinstance(_template_or_reason(doc, cluster, pairs, DEFAULT - {rule}, "mutate"), tuple)
    assert isinstance(_template_or_reason(doc, cluster, pairs, frozenset(), "mutate"), tuple)


def test_whole_name_widens_the_name_and_off_keeps_the_coreference_span():
    text = "Shia LaBeouf is great in this. LaBeouf gives his best performance and he knows it."
    on = gender_templates(corpus_of([text]))["template"].tolist()
    off = gender_templates(corpus_of([text]), rules=DEFAULT - {"whole_name"})["template"].tolist()
    assert on == ["<name> is great in this. <name> gives <pos> best performance and <subj> knows it."]
    assert off == ["Shia <name> is great in this. <name> gives <pos> best performance and <subj> knows it."]


def test_keep_determiner_keeps_an_article_the_parse_hangs_under_a_removed_modifier():
    text = ("One of them, maybe the only one worth redemption enlists the aid of the company pilot to help her keep "
            "the rest of the family at bay.")
    on = occupation_templates(corpus_of([text]))["template"].tolist()
    off = occupation_templates(corpus_of([text]), rules=DEFAULT - {"keep_determiner"})["template"].tolist()
    assert [t.split("aid of ")[1][:16] for t in on] == ["the <occupation>"]
    assert [t.split("aid of ")[1][:12] for t in off] == ["<occupation>"]


@pytest.mark.parametrize("lists", ["curated", "paper"])
def test_article_agreement_off_keeps_the_reviews_article(lists):
    corpus = corpus_of(["He hired an experienced lawyer. The lawyer was useless."])
    on = generate(corpus, instances=["occupation"], lists=lists)
    off = generate(corpus, instances=["occupation"], lists=lists, coherence=DEFAULT - {"article_agreement"})
    baker = "He hired {} baker. The baker was useless."
    assert baker.format("a") in set(on["text"]) and baker.format("an") in set(off["text"])
    assert baker.format("an") in set(generate(corpus, instances=["occupation"], lists=lists,
                                                coherence="paper", acceptance="toolkit")["text"])


def test_paper_coherence_lets_every_example_through_in_one_run():
    # this project's acceptance with every rule off (BiasFinder's own acceptance, the paper preset's default, is
    # tested in test_generators_biasfinder_paper.py)
    texts = [*GENDER_EXAMPLES.values(), *(text for text, lists in OCCUPATION_EXAMPLES.values() if lists == "curated")]
    default = generate(corpus_of(texts), n_names=2, record=(default_record := {}))
    paper = generate(corpus_of(texts), n_names=2, coherence="paper", acceptance="toolkit", record=(paper_record := {}))
    assert default["doc_id"].nunique() < paper["doc_id"].nunique()
    gendered = set(paper.loc[paper["attribute"] == "gender", "doc_id"])
    assert {f"d{i}" for i in range(len(GENDER_EXAMPLES))} <= gendered  # (the detective's "him" gives one more)
    assert not {f"d{i}" for i in range(len(GENDER_EXAMPLES))} & set(default["doc_id"])
    occupation = paper.loc[paper["attribute"] == "occupation", "doc_id"]
    assert occupation.nunique() == sum(lists == "curated" for _, lists in OCCUPATION_EXAMPLES.values())
    report = default_record["generation_report"]
    assert report["coherence"] == "default" and paper_record["generation_report"]["coherence"] == "paper"
    assert {rule: n for rule, n in report["rejected_by_rule"]["gender"].items() if n} == dict.fromkeys(
        GENDER_EXAMPLES, 1)
    assert paper_record["generation_report"]["rejected_by_rule"] == {"gender": {}, "country": {}, "occupation": {}}
    assert paper_record["coherence"]["rules"] == [] and paper_record["word_lists"]["coherence_rules"]["applied"] is False
    assert default_record["coherence"]["rules"] == list(RULES)


def test_unknown_rule_names_are_a_coded_error_listing_the_valid_ones():
    with pytest.raises(UnknownNameError) as info:
        generate(corpus_of(["He is great."]), coherence=["title_name", "no_such_rule"])
    assert info.value.code == "TK103" and "title_name" in str(info.value) and "no_such_rule" in str(info.value)
    with pytest.raises(UnknownNameError) as info:
        generate(corpus_of(["He is great."]), coherence="strict")
    assert "paper" in str(info.value) and "default" in str(info.value)
    assert active("title_name") == frozenset({"title_name"})
    assert record(frozenset({"deity"}))["preset"] == "custom"


@pytest.mark.parametrize("lists", ["curated", "paper"])
def test_the_default_rules_reproduce_the_case_table_of_the_code_before_they_had_names(lists):
    from toolkit import corpora

    cases = generate(corpora.load("sample"), lists=lists, n_names=30)
    expected = BASELINE[f"sample/{lists}"]
    assert len(cases) == expected["rows"] and _digest(cases) == expected["sha256"]


@pytest.mark.shared_data
@pytest.mark.skipif(not IMDB.is_file(), reason="the IMDB train split is not at ../shared/data/imdb")
def test_the_default_rules_reproduce_400_imdb_train_reviews():
    from toolkit import corpora

    corpus = corpora.load(IMDB).sample(n=400, random_state=25).sort_index()
    cases = generate(corpus, lists="curated", n_names=30, progress=False)
    expected = BASELINE["imdb_train_400_seed25/curated"]
    for attribute, part in cases.groupby("attribute"):
        assert part["case_id"].nunique() == expected[attribute]["templates"]
        assert _digest(part) == expected[attribute]["sha256"], attribute


def test_run_records_the_active_rules_and_the_people_option_in_its_settings():
    from toolkit.studies import biasfinder

    result = biasfinder.run(corpus="sample", models=["vader"], instances=["gender"], n_names=2, cache=False,
                            coherence=DEFAULT - {"deity"}, people="skip-named", n_boot=200, progress=False)
    recorded = result.provenance.settings["coherence"]
    assert recorded["preset"] == "custom" and recorded["off"] == ["deity"] and recorded["people"] == "skip-named"
    assert "deity" not in result.provenance.settings["generation_report"]["rejected_by_rule"]["gender"]
    assert result.provenance.settings["word_lists"]["coherence_rules"]["applied"] is True
    with pytest.raises(UnknownNameError):
        biasfinder.run(corpus="sample", models=["vader"], coherence=["no_such_rule"])
