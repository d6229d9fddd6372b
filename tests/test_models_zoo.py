"""Every head family BTC-SAM tested, as an offline miniature: native columns, the documented valence mappings,
emotion heads scored without a valence, multi-label sigmoids, GPT-2 padding (batched = one by one)."""
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import torch
from model_zoo import BTCSAM_CLASSIFIERS, EKMAN, build_classifier

from toolkit import cases as case_schema
from toolkit.models import load
from toolkit.scoring import ScoreRecord, score

TEXTS = ["the good movie was great", "a bad film", "she feels angry", "it was not very good and the movie was awful",
         "he is happy"]

# The valence each head's classes get (documented in toolkit/models/valence.py), written out by hand per model.
_POLAR = {"negative": 0.0, "neutral": 0.5, "positive": 1.0}
WEIGHTS = {
    "distilbert-base-uncased-finetuned-sst-2-english": {"NEGATIVE": 0.0, "POSITIVE": 1.0},
    "michelecafagna26/gpt2-medium-finetuned-sst2-sentiment": {"LABEL_0": 0.0, "LABEL_1": 1.0},
    "cardiffnlp/twitter-roberta-base-sentiment-latest": _POLAR,
    "lxyuan/distilbert-base-multilingual-cased-sentiments-student": _POLAR,
    "finiteautomata/bertweet-base-sentiment-analysis": {"NEG": 0.0, "NEU": 0.5, "POS": 1.0},
    "pysentimiento/robertuito-sentiment-analysis": {"NEG": 0.0, "NEU": 0.5, "POS": 1.0},
    "ProsusAI/finbert": _POLAR,
    "yiyanghkust/finbert-tone": {"Neutral": 0.5, "Positive": 1.0, "Negative": 0.0},
    "StephanAkkerman/FinTwitBERT-sentiment": {"NEUTRAL": 0.5, "BULLISH": 1.0, "BEARISH": 0.0},
    "nlptown/bert-base-multilingual-uncased-sentiment": {"1 star": 0.0, "2 stars": 0.25, "3 stars": 0.5,
                                                         "4 stars": 0.75, "5 stars": 1.0},
    "j-hartmann/emotion-english-distilroberta-base": None,
    "SamLowe/roberta-base-go_emotions": None,
    "joeddav/distilbert-base-uncased-go-emotions-student": None,
    "dejanseo/sentiment": {"very negative": 0.0, "negative": 0.25, "neutral": 0.5, "positive": 0.75,
                           "very positive": 1.0},
}
# Demszky et al. (2020)'s grouping, written out again here: positive 12, negative 11, the rest neutral/ambiguous.
GO_POSITIVE = {"admiration", "amusement", "approval", "caring", "desire", "excitement", "gratitude", "joy", "love",
               "optimism", "pride", "relief"}
GO_NEGATIVE = {"anger", "annoyance", "disappointment", "disapproval", "disgust", "embarrassment", "fear", "grief",
               "nervousness", "remorse", "sadness"}


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    """hub id → local folder of its miniature."""
    folders = {}
    for seed, (hub_id, (arch, labels, problem_type, _)) in enumerate(BTCSAM_CLASSIFIERS.items()):
        folder = tmp_path_factory.mktemp(hub_id.replace("/", "__"))
        folders[hub_id] = build_classifier(folder, arch=arch, labels=labels, problem_type=problem_type, seed=seed)
    return folders


def _reference(folder, texts, *, sigmoid=False):
    """Class probabilities from a plain transformers forward, one text at a time (no padding)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    rows = []
    for text in texts:
        with torch.no_grad():
            logits = model(**tokenizer(text, return_tensors="pt")).logits[0]
        rows.append((torch.sigmoid(logits) if sigmoid else torch.softmax(logits, -1)).numpy())
    return np.array(rows)


def _cases(texts):
    return pd.DataFrame({"case_id": "c", "variant_id": [f"v{i}" for i in range(len(texts))], "text": texts,
                         "attribute": "gender", "group": "", "fill": "", "generator": "test", "template": "",
                         "is_original": False})


@pytest.mark.parametrize("hub_id", list(BTCSAM_CLASSIFIERS))
def test_every_btcsam_head_gives_native_columns_and_its_documented_valence(zoo, hub_id):
    arch, labels, problem_type, options = BTCSAM_CLASSIFIERS[hub_id]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scored = score(_cases(TEXTS), models=[f"hf:{zoo[hub_id]}{options}"], cache=False, record=(scored_record := ScoreRecord()))
    warned = any("no score" in str(w.message) for w in caught)
    assert warned == (WEIGHTS[hub_id] is None)
    case_schema.validate(scored, scored=True)
    assert set(case_schema.NATIVE_COLUMNS) <= set(scored.columns)
    reference = _reference(zoo[hub_id], TEXTS, sigmoid=problem_type == "multi_label_classification")
    probs = [json.loads(v) for v in scored["class_probs"]]
    assert [list(p) for p in probs] == [labels] * len(TEXTS)  # the native names, in index order
    np.testing.assert_allclose([list(p.values()) for p in probs], reference, atol=2e-6)
    assert scored["top_label"].tolist() == [labels[i] for i in reference.argmax(axis=1)]
    np.testing.assert_allclose(scored["top_score"], reference.max(axis=1), atol=1e-5)
    weights = WEIGHTS[hub_id]
    if weights is None:  # emotion heads: no valence unless asked, and recorded as such
        assert scored["score"].isna().all() and (scored["label"] == "").all()
        assert scored_record.no_score == {f"hf:{zoo[hub_id]}{options}": len(TEXTS)}
    else:
        expected = reference @ np.array([weights[name] for name in labels])
        np.testing.assert_allclose(scored["score"], expected, atol=1e-5)
        assert set(scored["label"]) <= {"negative", "neutral", "positive"}


def test_go_emotions_head_is_multi_label_with_sigmoids_that_need_not_sum_to_one(zoo):
    model = load(f"hf:{zoo['SamLowe/roberta-base-go_emotions']}")
    assert model.head.multi_label
    out = model.predict(TEXTS)
    totals = [sum(json.loads(v).values()) for v in out.class_probs]
    assert all(abs(t - 1.0) > 0.5 for t in totals)  # 28 independent sigmoids around 0.5 each


@pytest.mark.parametrize("hub_id, sigmoid", [("j-hartmann/emotion-english-distilroberta-base", False),
                                             ("SamLowe/roberta-base-go_emotions", True)])
def test_emotion_heads_map_to_valence_only_when_asked(zoo, hub_id, sigmoid):
    labels = BTCSAM_CLASSIFIERS[hub_id][1]
    reference = _reference(zoo[hub_id], TEXTS, sigmoid=sigmoid)
    if sigmoid:
        reference = reference / reference.sum(axis=1, keepdims=True)  # documented: renormalised sigmoids
    weight = np.array([1.0 if n in GO_POSITIVE else 0.0 if n in GO_NEGATIVE else 0.5 for n in labels])
    model = load(f"hf:{zoo[hub_id]}?valence=emotion")
    out = model.predict(TEXTS)
    np.testing.assert_allclose(out.score, reference @ weight, atol=1e-5)
    assert model.fingerprint != load(f"hf:{zoo[hub_id]}").fingerprint  # the mapping is part of the fingerprint


def test_emotion_head_can_serve_an_emotion_intensity_task(zoo):
    folder = zoo["j-hartmann/emotion-english-distilroberta-base"]
    scored = score(_cases(TEXTS), models=[f"hf:{folder}?task=anger"], cache=False)
    assert (scored["task"] == "anger").all()
    np.testing.assert_allclose(scored["score"], _reference(folder, TEXTS)[:, EKMAN.index("anger")], atol=1e-5)


def test_valence_none_and_finance_mapping_are_selectable(zoo):
    folder = zoo["StephanAkkerman/FinTwitBERT-sentiment"]
    assert load(f"hf:{folder}").head.mapping == "finance"
    plain = load(f"hf:{folder}?valence=none")
    assert plain.head.roles is None and np.isnan(plain.predict(TEXTS[:2]).score).all()
    from toolkit.errors import LabelMappingError

    with pytest.raises(LabelMappingError, match="valence=auto"):
        load(f"hf:{folder}?valence=sentiment")


def test_gpt2_classifier_gets_a_pad_token_right_padding_and_batched_equals_one_by_one(zoo):
    folder = zoo["michelecafagna26/gpt2-medium-finetuned-sst2-sentiment"]
    from transformers import AutoTokenizer

    assert AutoTokenizer.from_pretrained(folder).pad_token is None  # like GPT-2's own tokenizer
    model = load(f"hf:{folder}?labels=negative,positive")
    assert model.tokenizer.pad_token == "<|endoftext|>" and model.tokenizer.padding_side == "right"
    texts = TEXTS + ["a", "the good movie was great and she feels happy and he is happy and it was very good"]
    together = model.predict(texts)
    alone = [model.predict([t]) for t in texts]
    assert np.max(np.abs(together.score - np.concatenate([a.score for a in alone]))) <= 1e-5
    assert together.top_label == [a.top_label[0] for a in alone]
    batch = np.array([list(json.loads(v).values()) for v in together.class_probs])
    single = np.array([list(json.loads(a.class_probs[0]).values()) for a in alone])
    assert np.max(np.abs(batch - single)) <= 1e-5
    # and the engine, which packs them into token-budget batches, agrees with one-by-one too
    scored = score(_cases(texts), models=[model], cache=False, batch_tokens=64)
    np.testing.assert_allclose(scored["score"], np.concatenate([a.score for a in alone]), atol=1e-5)


def test_native_view_survives_the_cache_and_class_probs_widen_on_request(zoo, tmp_path):
    spec = f"hf:{zoo['j-hartmann/emotion-english-distilroberta-base']}"
    with pytest.warns(UserWarning, match="no score"):
        first = score(_cases(TEXTS), models=[spec], cache=tmp_path / "c.sqlite")
    from toolkit.cache import ScoreCache

    with ScoreCache(tmp_path / "c.sqlite") as cache:
        assert cache.count() == len(TEXTS)
    with pytest.warns(UserWarning, match="no score"):
        again = score(_cases(TEXTS), models=[spec], cache=tmp_path / "c.sqlite")
    cols = ["score", "label", "top_label", "top_score", "class_probs"]
    pd.testing.assert_frame_equal(first[cols], again[cols])
    wide = case_schema.widen_class_probs(again)
    assert [c for c in wide.columns if c.startswith("p_")] == [f"p_{n}" for n in EKMAN]
    np.testing.assert_allclose(wide[[f"p_{n}" for n in EKMAN]].max(axis=1), again["top_score"], atol=1e-6)


def test_a_schema_1_score_cache_is_migrated_with_a_warning(tmp_path):
    import sqlite3

    from toolkit.cache import APPLICATION_ID, SCHEMA_VERSION, ScoreCache

    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 1")
    db.execute("CREATE TABLE scores (fingerprint TEXT, text_key BLOB, score REAL, label TEXT, truncated INTEGER, "
               "PRIMARY KEY (fingerprint, text_key))")
    db.execute("INSERT INTO scores VALUES ('f', x'00', 0.5, 'neutral', 0)")
    db.commit()
    db.close()
    with pytest.warns(UserWarning, match="schema 1.*1 rows"):
        cache = ScoreCache(path)
    assert cache.count() == 0
    cache.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2


def test_lexicon_rows_fill_the_native_columns_sensibly():
    scored = score(_cases(TEXTS[:2]), models=["vader"], cache=False)
    assert scored["top_label"].tolist() == scored["label"].tolist()
    assert scored["top_score"].isna().all() and (scored["class_probs"] == "").all()
    assert not math.isnan(scored["score"].iloc[0])


def test_encode_in_one_pass_in_threads_gives_the_same_ids_and_lengths_for_every_architecture(zoo):
    """The tokenise-ahead path (one truncating pass, each text's length read from the pieces cut off; chunks in
    worker threads) gives the two-pass path's ids and lengths, and does run in one pass, for each tokenizer of the
    14 miniatures (BERT, RoBERTa, DistilBERT, ALBERT, GPT-2)."""
    from toolkit.models import hf

    texts = ["a good movie", "she was great, he was awful " * 30, "", "Ms. Smith said: \"fine\"" * 12,
             "word " * 14, "word " * 15, "word " * 16] * 200  # several chunks of hf.ENCODE_CHUNK texts
    for hub_id, folder in zoo.items():
        model = load(f"hf:{folder}?max_length=16&valence=none")
        ids, lengths = model.encode(texts)
        ahead, ahead_lengths = model.encode(texts, threads=2, one_pass=True)
        assert model._rust_tokenize().one_pass_agrees, hub_id
        assert len(texts) > 2 * hf.ENCODE_CHUNK
        assert [x.tolist() for x in ahead] == [x.tolist() for x in ids], hub_id
        assert ahead_lengths.tolist() == lengths.tolist(), hub_id


def test_encode_drives_the_rust_tokenizer_and_gives_the_wrappers_ids_for_every_architecture(zoo):
    """The engine's one tokenisation pass (input dedup, batches from ids) goes through each fast tokenizer's Rust
    backend; its ids must be the transformers wrapper's, with and without truncation (BERT, RoBERTa, DistilBERT,
    ALBERT and GPT-2 tokenizers of the 14 miniatures)."""
    texts = ["a good movie", "she was great, he was awful " * 30, "", "Ms. Smith said: \"fine\"" * 12]
    for hub_id, folder in zoo.items():
        model = load(f"hf:{folder}?max_length=16&valence=none")
        assert model._rust_tokenize() != model._wrapper_tokenize, hub_id
        assert model._rust_agrees(texts), hub_id
        ids, lengths = model.encode(texts)
        reference = model.tokenizer(texts, truncation=True, max_length=16)["input_ids"]
        assert [x.tolist() for x in ids] == reference, hub_id
        assert (lengths > 16).tolist() == [False, True, False, True], hub_id


PREFIX_TEXTS = ["she was great, he was awful " * 30,  # ASCII, far past the prefix
                "Zoë's café was naïve — 日本語の映画 😀, ünïcödé " * 20,  # multibyte letters, CJK, an emoji
                "e\u0301t\u0301e\u0301 " * 120,  # combining accents (not NFC)
                "word\u00a0" * 80 + "end",  # no-break spaces
                "a" + " " * 400 + "b " * 100,  # a whitespace run across the prefix's end
                " \t\n ".join(["tab", "and", "newline"] * 60) + "   ",  # mixed whitespace, trailing spaces
                "x" * 900,  # one long word: the prefix cannot decide it
                "Ms. Smith said: \"fine\"" * 12, "word " * 14, "word " * 15, "word " * 16, "", "a good movie"]


def test_encode_with_a_character_prefix_gives_the_same_ids_and_flags_for_every_architecture(zoo):
    """The tokenise-ahead path's character prefix (a long text tokenised from its first characters where that
    decides its ids) gives the two-pass path's ids and truncation flags for each tokenizer of the 14 miniatures,
    on multibyte, combining, whitespace-run and one-word texts, also with the prefix cut inside every text."""
    for hub_id, folder in zoo.items():
        model = load(f"hf:{folder}?max_length=16&valence=none")
        ids, lengths = model.encode(PREFIX_TEXTS)
        ahead, ahead_lengths = model.encode(PREFIX_TEXTS, threads=2, one_pass=True, prefix=True)
        tokenize = model._rust_tokenize()
        assert [x.tolist() for x in ahead] == [x.tolist() for x in ids], hub_id
        assert ((ahead_lengths > 16) == (lengths > 16)).all(), hub_id
        assert ((ahead_lengths == lengths) | (lengths > 16)).all(), hub_id  # a text that fits: its exact length
        assert tokenize.prefix_agrees, hub_id  # each of these tokenizers splits words first: the prefix applies
        assert (ahead_lengths < lengths).any(), hub_id  # the prefix did decide some texts
        for chars in (1, 7, 40, 97, 200):  # cuts inside words, accents, whitespace runs
            cut_ids, cut_lengths = tokenize.one_pass(PREFIX_TEXTS, chars=chars)
            assert cut_ids == [x.tolist() for x in ids], (hub_id, chars)
            assert [n > 16 for n in cut_lengths] == (lengths > 16).tolist(), (hub_id, chars)
