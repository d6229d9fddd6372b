"""BTC-SAM prompts, reply parsing on recorded replies, the pipeline with a scripted backend, the filter."""
import pandas as pd
import pytest

from toolkit.cases import validate
from toolkit.errors import UnknownNameError
from toolkit.llm import LLM
from toolkit.studies.btcsam.generator import filter_counterfactuals, generate, parse, prompts

BTS_REPLY = """Sure! Here are the triplets:
```json
[{"topic": "Food", "identity_term": "jewish", "concept_term": "bagel"},
 {"topic": "Food", "identity_term": "Jewish", "concept_term": "bagel"},
 {"topic": "Travel", "identity_term": "Atheist", "concept_term": "plane"},]
```"""
ETSG_REPLY = "1. The Jewish baker sold a fresh bagel.\n2) \"My Jewish neighbour loves a bagel.\""
CSPG_REPLY = '{"Muslim": "The Muslim baker sold a fresh bagel.", "christian": "The Christian baker sold a fresh bagel."}'
LDA_REPLY = ("1. The Jewish baker sold a new bagel.\n2. The Jewish bakery owner sold a fresh bagel.\n"
             "3. The Jewish baker sold a stale bagel.\n4. The Jewish baker sold a burnt bagel.")


def test_parse_numbered_lists_in_several_styles():
    assert parse.numbered(ETSG_REPLY) == ["The Jewish baker sold a fresh bagel.", "My Jewish neighbour loves a bagel."]
    assert parse.numbered("- one\n* two\n• three") == ["one", "two", "three"]
    assert parse.numbered("only a line") == ["only a line"]


def test_parse_triplets_from_fenced_json_with_trailing_comma_and_from_lines():
    assert parse.triplets(BTS_REPLY)[2] == {"topic": "Travel", "identity_term": "Atheist", "concept_term": "plane"}
    assert parse.triplets("1. Food | Jewish | bagel\n2. broken line") == [
        {"topic": "Food", "identity_term": "Jewish", "concept_term": "bagel"}]


def test_parse_mapping_from_json_or_key_value_lines():
    assert parse.mapping(CSPG_REPLY)["christian"] == "The Christian baker sold a fresh bagel."
    assert parse.mapping("Muslim: The Muslim baker left.\n- **Christian**: The Christian baker left.") == {
        "Muslim": "The Muslim baker left.", "Christian": "The Christian baker left."}


@pytest.mark.parametrize("build, needles", [
    (lambda: prompts.bts_messages(bias_type="religion", identity_terms=["Jewish", "Muslim"], n=3),
     ["Bias type: religion", "Identity terms: Jewish, Muslim", "Number of triplets: 3"]),
    (lambda: prompts.etsg_messages(identity_term="Jewish", concept_term="bagel", topic="Food", n=2),
     ["Identity term: Jewish", "Concept term: bagel", "Topic: Food", "Number of sentences: 2"]),
    (lambda: prompts.cspg_messages(sentence="S.", identity_term="Jewish", other_terms=["Muslim", "Christian"]),
     ["Sentence: S.", "Source identity term: Jewish", "Target identity terms: Muslim, Christian"]),
    (lambda: prompts.lda_messages(sentence="S.", identity_term="Jewish"), ["Sentence: S.", "Identity term: Jewish"]),
    (lambda: prompts.syda_messages(sentence="S.", identity_term="Jewish"), ["Number of rewrites: 1"]),
    (lambda: prompts.seda_messages(bias_type="religion", identity_term="Jewish", seen_topics=["Food"], n=1),
     ["Topics already used: Food", "Identity term: Jewish"]),
])
def test_prompts_are_few_shot_chats_ending_with_the_user_input(build, needles):
    messages = build()
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert all(n in messages[-1]["content"] for n in needles)


class Scripted:
    """Replies by stage (recognised from the system prompt); CSPG rewrites the source sentence's term."""

    identity = "scripted"

    def __init__(self):
        self.calls = []

    def complete(self, messages):
        system, user = messages[0]["content"], messages[-1]["content"]
        self.calls.append(user)
        if "JSON list of objects" in system:
            return BTS_REPLY
        if "JSON object mapping" in system:
            sentence = user.split("\n")[0].removeprefix("Sentence: ")
            if "neighbour" in sentence:  # a broken counterfactual: the Muslim version is a copy
                return '{"Muslim": "%s", "Christian": "%s"}' % (sentence, sentence.replace("Jewish", "Christian"))
            return "\n".join(f"{t}: {sentence.replace('Jewish', t)}" for t in ("Muslim", "Christian"))
        if "four times" in system:
            return LDA_REPLY
        return ETSG_REPLY


TERMS = {"religion": ["Jewish", "Muslim", "Christian"]}


def test_generate_builds_counterfactual_groups_and_resumes(tmp_path):
    fake = Scripted()
    cases = generate(LLM(fake, store=tmp_path / "p.sqlite"), identity_terms=TERMS, augmentations=("lda",))
    validate(cases)
    # one BTS triplet kept (Atheist is no term; the duplicate is dropped) → 2 ETSG groups + 4 LDA rewrites each
    assert cases.groupby("stage")["case_id"].nunique().to_dict() == {"etsg": 2, "lda": 8}
    first = cases[cases["case_id"] == cases["case_id"].iloc[0]]
    assert first["group"].tolist() == ["Jewish", "Muslim", "Christian"]
    assert first["text"].tolist()[1] == "The Muslim baker sold a fresh bagel."
    assert first["is_original"].tolist() == [True, False, False]
    lda_row = cases[(cases["stage"] == "lda") & (cases["group"] == "Muslim")].iloc[0]
    assert lda_row["source_text"] == "The Muslim baker sold a fresh bagel."
    n_calls = len(fake.calls)  # 1 BTS + 1 ETSG + 2 CSPG + 2 LDA + 8 CSPG (LDA rewrites; some identical prompts)
    again = Scripted()
    assert generate(LLM(again, store=tmp_path / "p.sqlite"), identity_terms=TERMS,
                    augmentations=("lda",)).equals(cases)
    assert n_calls > 0 and again.calls == []


def test_unknown_augmentation_lists_valid_ones(tmp_path):
    with pytest.raises(UnknownNameError, match="lda, seda, syda"):
        generate(LLM(Scripted(), store=tmp_path / "p.sqlite"), identity_terms=TERMS, augmentations=("xyz",))


def _group(case_id, stage, texts, terms=("Jewish", "Muslim")):
    return [{"case_id": case_id, "stage": stage, "text": t, "fill": f, "is_original": i == 0}
            for i, (t, f) in enumerate(zip(texts, terms))]


def test_filter_drops_groups_and_counts_reasons():
    cases = pd.DataFrame(
        _group("ok", "etsg", ["A Jewish chef.", "A Muslim chef."])
        + _group("same", "etsg", ["A Jewish chef.", "A Jewish chef."])
        + _group("lacks", "lda", ["A Jewish cook.", "A cook."])
        + _group("lower", "lda", ["A jewish cook.", "A MUSLIM cook."])      # case-insensitive match is kept
        + _group("partial", "lda", ["The Jewishness.", "The Muslim."])       # the term only inside a word
        + _group("missing", "lda", ["A Jewish cook.", ""]))
    kept, counts = filter_counterfactuals(cases)
    assert sorted(kept["case_id"].unique()) == ["lower", "ok"]
    assert tuple(counts.columns) == ("stage", "reason", "groups")
    assert {(r.stage, r.reason): r.groups for r in counts.itertuples()} == {
        ("etsg", "kept"): 1, ("etsg", "same_as_source"): 1, ("lda", "missing_identity_term"): 2,
        ("lda", "kept"): 1, ("lda", "missing_counterfactual"): 1}


def test_no_backend_skips_generation_with_a_warning_not_a_silent_drop():
    from toolkit.studies import btcsam

    with pytest.warns(UserWarning, match="No LLM backend configured: generation skipped"):
        assert btcsam.generate_with(None) == (None, None)
