import numpy as np
import pytest
import torch

from toolkit.errors import LabelMappingError, ModelSpecError
from toolkit.models import load
from toolkit.models.hf import HFClassifierModel

TEXTS = ["the good movie was great", "a bad film", "it was not very good and the movie was awful and bad"]


def _reference(folder, texts):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    out = []
    for text in texts:
        with torch.no_grad():
            logits = model(**tokenizer(text, return_tensors="pt")).logits
        out.append(torch.softmax(logits, -1)[0].numpy())
    return np.array(out)


def test_hf_binary_model_from_a_local_folder_matches_a_plain_forward(tiny_bert_dir):
    model = load(f"hf:{tiny_bert_dir}")
    out = model.predict(TEXTS)
    probs = _reference(tiny_bert_dir, TEXTS)
    np.testing.assert_allclose(out.score, probs[:, 1], atol=1e-5)
    assert out.label == ["positive" if p[1] > p[0] else "negative" for p in probs]
    assert not out.truncated.any()


def test_hf_three_class_model_maps_neutral_to_half(tiny_bert_3class_dir):
    out = load(f"hf:{tiny_bert_3class_dir}").predict(TEXTS)
    probs = _reference(tiny_bert_3class_dir, TEXTS)
    np.testing.assert_allclose(out.score, probs[:, 2] + probs[:, 1] / 2, atol=1e-5)


def test_hf_scores_do_not_depend_on_batch_composition(tiny_bert_dir):
    model = load(f"hf:{tiny_bert_dir}")
    together = model.predict(TEXTS).score
    alone = np.concatenate([model.predict([t]).score for t in TEXTS])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_hf_truncation_is_flagged_per_row(tiny_bert_dir):
    model = HFClassifierModel(f"hf:{tiny_bert_dir}?max_length=8")
    out = model.predict(TEXTS)
    assert out.truncated.tolist() == [False, False, True]
    assert model.fingerprint != load(f"hf:{tiny_bert_dir}").fingerprint


def test_hf_generic_labels_need_an_explicit_mapping(tiny_bert_generic_dir):
    with pytest.raises(LabelMappingError, match="labels="):
        HFClassifierModel(f"hf:{tiny_bert_generic_dir}")
    model = HFClassifierModel(f"hf:{tiny_bert_generic_dir}?labels=negative,positive")
    assert model.roles == ["negative", "positive"]


def test_hf_unknown_option_and_missing_model_are_clear(tiny_bert_dir, monkeypatch):
    with pytest.raises(ModelSpecError, match="unknown option 'batch'"):
        HFClassifierModel(f"hf:{tiny_bert_dir}?batch=3")
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # fail fast instead of retrying
    with pytest.raises(ModelSpecError, match="cannot load") as info:
        HFClassifierModel("hf:no-such-org/no-such-model-xyz")
    assert "local folder" in str(info.value)


def test_hf_labels_option_tolerates_spaces_after_commas(tiny_bert_generic_dir):
    model = HFClassifierModel(f"hf:{tiny_bert_generic_dir}?labels=negative, positive")
    assert model.roles == ["negative", "positive"]
