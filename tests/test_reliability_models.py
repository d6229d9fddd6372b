"""Round three, models: a Hugging Face folder without a tokenizer, malformed ``hf:`` folders, texts over the length
guard with the transformer models, ``sys.exit``/``KeyboardInterrupt`` inside a model, scores a rounding error outside
[0, 1]."""
from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from toolkit.errors import ModelOutputError, ModelSpecError

TESTS_DIR = Path(__file__).resolve().parent
GOOD, BAD = "A wonderful, brilliant film.", "Awful, terrible, boring."


def _cases(texts: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"case_id": [f"c{i}" for i in range(len(texts))],
                         "variant_id": [f"v{i}" for i in range(len(texts))], "text": texts, "attribute": "name",
                         "group": "", "fill": "", "generator": "external:test", "template": "", "is_original": True})


def _copy(folder: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(folder, target)
    return target


def _edit_config(folder: Path, **changes) -> None:
    config = json.loads((folder / "config.json").read_text())
    config.update(changes)
    (folder / "config.json").write_text(json.dumps(config))


# -- Wrong 1: a folder saved with model.save_pretrained() alone ---------------------------------------------------

def test_hf_folder_without_tokenizer_files_is_refused_naming_them_and_the_fix(tiny_bert_dir, tmp_path):
    from transformers import AutoModelForSequenceClassification

    from toolkit.models import load

    folder = tmp_path / "weights_only"
    AutoModelForSequenceClassification.from_pretrained(tiny_bert_dir).save_pretrained(folder)
    assert not (folder / "tokenizer.json").exists() and not (folder / "vocab.txt").exists()
    with pytest.raises(ModelSpecError, match=r"\[TK201\] .*has no tokenizer files \(none of tokenizer.json, "
                                             r"vocab.txt.*every text would get the same score.*save_pretrained"):
        load(f"hf:{folder}")


def test_hf_tokenizer_that_reads_english_as_unknowns_only_is_refused(tiny_bert_dir, tmp_path):
    from transformers import BertTokenizer

    from toolkit.models import load

    folder = _copy(tiny_bert_dir, tmp_path, "unk_only")
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        (folder / name).unlink(missing_ok=True)
    # a vocabulary of the special tokens and non-English words: a tokenizer file is there, but reads nothing
    words = "[PAD] [UNK] [CLS] [SEP] [MASK] xq zzv".split() + [f"w{i}" for i in range(23)]
    BertTokenizer(vocab={w: i for i, w in enumerate(words)}).save_pretrained(folder)
    with pytest.raises(ModelSpecError, match=r"\[TK201\] .*reads the English probe sentence .* as unknown tokens "
                                             r"only.*tokenizer.save_pretrained"):
        load(f"hf:{folder}")


def test_minilm_guards_its_tokenizer_with_the_same_probe(monkeypatch):
    from toolkit.models import hf, minilm

    calls = []
    real = hf.check_tokenizer
    monkeypatch.setattr(minilm, "check_tokenizer", lambda tok, **kw: calls.append(kw["spec"]) or real(tok, **kw))
    minilm.MiniLMEncoder()
    assert calls == ["minilm-encoder"]


def test_the_probe_guard_passes_every_working_tokenizer(tiny_bert_dir):
    from toolkit.models import load

    # the tiny BERT knows a few English words: it is not refused and scores two texts differently
    model = load(f"hf:{tiny_bert_dir}")
    scores = model.predict(["the good movie", "the bad movie"]).score
    assert scores[0] != scores[1]


# -- Wrong 3 (regression): texts over the length guard with transformer models -------------------------------------

@pytest.mark.parametrize("spec", ["hf", "minilm-imdb"])
@pytest.mark.parametrize("texts", [["x" * 200], ["x" * 200, "y" * 300], ["a good movie", "x" * 200]],
                         ids=["one-long", "all-long", "one-of-two"])
def test_texts_over_the_length_guard_are_skipped_and_recorded_by_transformer_models(tiny_bert_dir, spec, texts):
    from toolkit.scoring import TOO_LONG, score

    spec = f"hf:{tiny_bert_dir}" if spec == "hf" else spec
    long_ = sum(len(t) > 100 for t in texts)
    with pytest.warns(UserWarning, match=rf"skipped {long_} of {len(texts)} distinct texts longer than 100"):
        scored = score(_cases(texts), models=spec, cache=False, max_text_chars=100)
    skipped = scored["text"].astype(str).str.len() > 100
    assert scored.loc[skipped, "score"].isna().all() and (scored.loc[skipped, "top_label"] == TOO_LONG).all()
    assert scored.loc[~skipped, "score"].between(0, 1).all() and scored.loc[~skipped, "score"].notna().all()
    assert scored.attrs["inputs"][spec]["too_long_skipped"] == long_


@pytest.mark.parametrize("spec", ["hf", "minilm-imdb"])
def test_transformer_predict_of_no_texts_is_empty_as_the_lexicons_are(tiny_bert_dir, spec):
    from toolkit.models import load

    model = load(f"hf:{tiny_bert_dir}" if spec == "hf" else spec)
    out = model.predict([])
    assert len(out.score) == 0 and list(out.label) == []
    ids, lengths = model.encode([])
    assert ids == [] and len(lengths) == 0


# -- malformed hf: folders ---------------------------------------------------------------------------------------

def _nan_weights(folder: Path) -> None:
    from safetensors.torch import load_file, save_file

    weights = load_file(folder / "model.safetensors")
    save_file({k: v.float().fill_(float("nan")) for k, v in weights.items()}, folder / "model.safetensors")


@pytest.mark.parametrize("name, edit, pattern", [
    ("label_count", lambda d: _edit_config(d, id2label={"0": "negative", "1": "neutral", "2": "positive"},
                                           label2id={"negative": 0, "neutral": 1, "positive": 2}),
     r"2 weight\(s\) do not match the sizes its config.json gives \(classifier.bias: weights \(2,\), config \(3,\)"),
    ("tiny_vocab", lambda d: _edit_config(d, vocab_size=5), r"word_embeddings.weight: weights \(30, 32\), config "
                                                            r"\(5, 32\)"),
    ("hidden_0", lambda d: _edit_config(d, hidden_size=0), r"sets hidden_size=0: sizes must be positive"),
    ("layers_negative", lambda d: _edit_config(d, num_hidden_layers=-1), r"sets num_hidden_layers=-1"),
    ("config_list", lambda d: (d / "config.json").write_text("[1, 2]"), r"holds a JSON list"),
    ("config_garbage", lambda d: (d / "config.json").write_bytes(b"\xff\x00{"), r"not a readable JSON file"),
    ("garbage_weights", lambda d: (d / "model.safetensors").write_bytes(b"\x00garbage" * 100),
     r"the model folder is malformed \(SafetensorError"),
    ("empty_weights", lambda d: (d / "model.safetensors").write_bytes(b""), r"malformed \(SafetensorError"),
    ("nan_weights", _nan_weights, r"non-finite outputs \(NaN or inf\) on the probe sentence"),
])
def test_malformed_hf_folders_are_tk201_naming_what_is_wrong(tiny_bert_dir, tmp_path, name, edit, pattern):
    from toolkit.models import load

    folder = _copy(tiny_bert_dir, tmp_path, name)
    edit(folder)
    with pytest.raises(ModelSpecError, match=r"\[TK201\] .*" + pattern):
        load(f"hf:{folder}")


def test_hf_base_encoder_without_a_classifier_head_is_refused(tmp_path):
    """Its head would be initialised at random: every score noise."""
    from transformers import AutoModel, AutoTokenizer

    from toolkit.models import load
    from toolkit.models.minilm import encoder_path

    folder = tmp_path / "encoder_only"
    AutoModel.from_pretrained(encoder_path()).save_pretrained(folder)
    AutoTokenizer.from_pretrained(encoder_path()).save_pretrained(folder)
    with pytest.raises(ModelSpecError, match=r"\[TK201\] .*2 layer\(s\) are not in its weights and would be random "
                                             r"\(classifier.bias, classifier.weight\)"):
        load(f"hf:{folder}")


# -- py: models: sys.exit, KeyboardInterrupt, scores a rounding error outside [0, 1] -------------------------------

@pytest.fixture
def exiters(tmp_path, monkeypatch):
    (tmp_path / "exiters_r3.py").write_text(
        "import sys\n"
        "def exit0(texts):\n    sys.exit(0)\n"
        "def interrupt(texts):\n    raise KeyboardInterrupt\n"
        "def just_over(texts):\n    return [1 + 1e-12] * len(texts)\n"
        "def just_under(texts):\n    return [-1e-12] * len(texts)\n"
        "def over(texts):\n    return [1.0000001] * len(texts)\n")
    (tmp_path / "exits_on_import_r3.py").write_text("import sys\nsys.exit(3)\ndef f(texts):\n    return texts\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_py_model_calling_sys_exit_is_tk203(exiters):
    from toolkit.scoring import score

    with pytest.raises(ModelOutputError, match=r"\[TK203\] py:exiters_r3:exit0 called sys.exit\(0\) instead of "
                                               r"returning scores"):
        score(_cases(["a", "b"]), models="py:exiters_r3:exit0", cache=False)


def test_py_module_calling_sys_exit_on_import_is_tk201(exiters):
    from toolkit.models import load

    with pytest.raises(ModelSpecError, match=r"called sys.exit\(3\).*if __name__ == '__main__'"):
        load("py:exits_on_import_r3:f")


def test_cli_with_a_py_model_calling_sys_exit_fails_and_writes_nothing(exiters, tmp_path, capsys):
    from toolkit.__main__ import main

    out = tmp_path / "out"
    code = main(["eec", "--model", "py:exiters_r3:exit0", "--out", str(out), "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and "[TK203]" in err and "sys.exit(0)" in err
    assert not out.exists() or not any(out.iterdir())


def test_cli_sys_exit_from_anywhere_in_the_run_is_an_error_not_success(tmp_path, capsys, monkeypatch):
    from toolkit import __main__ as cli

    monkeypatch.setattr(cli, "_study", lambda args, cache: sys.exit(0))
    code = cli.main(["eec", "--model", "vader", "--out", str(tmp_path / "o"), "--no-cache"])
    assert code == 2 and "ended by sys.exit(0)" in capsys.readouterr().err


@pytest.mark.parametrize("fn, expected", [("just_over", 1.0), ("just_under", 0.0)])
def test_scores_a_rounding_error_outside_the_unit_interval_are_clipped(exiters, fn, expected):
    from toolkit.scoring import score

    scored = score(_cases(["a", "b"]), models=f"py:exiters_r3:{fn}", cache=False)
    assert (scored["score"] == expected).all()


def test_scores_further_outside_are_refused_with_enough_digits_to_see_why(exiters):
    from toolkit.scoring import score

    with pytest.raises(ModelOutputError, match=r"outside \[0, 1\] \(min 1\.0000001, max 1\.0000001; up to 1e-10 "
                                               r"outside is clipped"):
        score(_cases(["a", "b"]), models="py:exiters_r3:over", cache=False)


def test_engine_clips_any_adapter_within_the_tolerance_and_names_the_digits_beyond():
    from toolkit.models.base import Predictions, SentimentModel
    from toolkit.scoring import score

    class Near(SentimentModel):
        spec, fingerprint = "near-one", "near-one"

        def __init__(self, value):
            self.value = value

        def predict(self, texts):
            return Predictions(np.full(len(texts), self.value), ["positive"] * len(texts), np.zeros(len(texts), bool))

    assert (score(_cases(["a"]), models=Near(1 + 1e-12), cache=False)["score"] == 1.0).all()
    with pytest.raises(ModelOutputError, match=r"min 1\.000001, max 1\.000001"):
        score(_cases(["a"]), models=Near(1.000001), cache=False)
    with pytest.raises(ModelOutputError, match=r"min 1\.000000001, max 1\.000000001"):
        score(_cases(["a"]), models=Near(1 + 1e-9), cache=False)


def test_app_whose_model_raises_keyboardinterrupt_reports_failure_not_success(exiters):
    from toolkit.studies.eec.app import eec_app

    app = eec_app(models=[], cache=False)
    app.extra.value = "py:exiters_r3:interrupt"
    assert app.run(block=True) is False
    assert app.error and "KeyboardInterrupt" in app.error and "✖" in app.status.value
    assert "scoring" not in app.status.value and not app.running and not app.button.disabled


def test_app_whose_task_raises_sys_exit_reports_failure_not_success():
    from toolkit.studies.eec.app import eec_app

    app = eec_app(models=["afinn"], cache=False)
    assert app._work("EEC", lambda: sys.exit(0), block=True) is False
    assert "sys.exit(0)" in app.error and "✖" in app.status.value and app.result is None


def test_app_whose_py_model_calls_sys_exit_shows_the_coded_error(exiters):
    from toolkit.studies.eec.app import eec_app

    app = eec_app(models=[], cache=False)
    app.extra.value = "py:exiters_r3:exit0"
    assert app.run(block=True) is False
    assert "TK203" in app.error and "sys.exit(0)" in app.error


# -- hostile LLM replies: deep JSON, wrong types, log-probabilities out of range -----------------------------------

def _choice(content="positive", logprobs=None) -> dict:
    choice = {"message": {"role": "assistant", "content": content}}
    if logprobs is not None:
        choice["logprobs"] = logprobs
    return {"choices": [choice]}


DEEP = b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"


@pytest.mark.parametrize("payload, says", [
    (DEEP, "RecursionError"),
    ({"choices": ["positive"]}, "TypeError"),
    ({"choices": [{"message": "positive"}]}, "TypeError"),
    (_choice(logprobs="x"), "logprobs is str"),
    (_choice(logprobs={"content": 5}), "logprobs.content is int"),
    (_choice(logprobs={"content": ["positive"]}), "not an object with a string token"),
    (_choice(logprobs={"content": [{"token": 5, "logprob": 0}]}), "not an object with a string token"),
    (_choice(logprobs={"content": [{"token": "positive", "logprob": 1e308}]}), "logprob 1e\\+308"),
    (_choice(logprobs={"content": [{"token": "positive", "logprob": "high"}]}), "logprob 'high'"),
    (_choice(logprobs={"content": [{"token": "positive"}]}), "logprob None"),
    (_choice(logprobs={"content": [{"token": "positive", "logprob": 0, "top_logprobs": 3}]}), "top_logprobs is int"),
], ids=["deep-json", "choice-str", "message-str", "logprobs-str", "content-int", "item-str", "token-int",
        "logprob-1e308", "logprob-str", "logprob-missing", "top-int"])
def test_hostile_chat_replies_are_malformed_replies_tk501_not_raw_errors(monkeypatch, payload, says):
    from loopback_chat import LoopbackChat

    from toolkit.errors import LLMError
    from toolkit.llm import OpenAIBackend

    monkeypatch.setenv("R3_LLM_KEY", "k")
    with LoopbackChat(reply=lambda request: (200, payload)) as chat:
        client = OpenAIBackend(base_url=chat.url, model="m", api_key_env="R3_LLM_KEY", retries=1, backoff=0.01)
        with pytest.raises(LLMError, match=r"\[TK501\] .*not a chat completion.*" + says):
            client.chat([{"role": "user", "content": "hi"}], logprobs=True, top_logprobs=5)
        assert len(chat.requests) == 2  # retried once, as any malformed reply


def test_llm_model_under_hostile_logprobs_fails_with_a_coded_error(monkeypatch):
    from loopback_chat import LoopbackChat

    from toolkit.errors import LLMError
    from toolkit.scoring import score

    monkeypatch.setenv("R3_LLM_KEY", "k")
    bad = _choice(logprobs={"content": [{"token": "positive", "logprob": 1e308}]})
    with LoopbackChat(reply=lambda request: (200, bad)) as chat:
        with pytest.raises(LLMError, match=r"\[TK501\]"):
            score(_cases(["a film"]), models=f"llm:openai:m@{chat.url}?key_env=R3_LLM_KEY&retries=0", cache=False)


def test_a_valid_reply_with_logprobs_still_gives_the_distribution(monkeypatch):
    from loopback_chat import LoopbackChat

    from toolkit.scoring import score

    monkeypatch.setenv("R3_LLM_KEY", "k")
    alternatives = [{"token": "positive", "logprob": math.log(0.6)}, {"token": "negative", "logprob": math.log(0.3)},
                    {"token": "neutral", "logprob": math.log(0.1)}]
    good = _choice(logprobs={"content": [{"token": "positive", "logprob": math.log(0.6),
                                          "top_logprobs": alternatives}]})
    with LoopbackChat(reply=lambda request: (200, good)) as chat:
        scored = score(_cases(["a film"]), models=f"llm:openai:m@{chat.url}?key_env=R3_LLM_KEY", cache=False)
    assert scored["score"].iloc[0] == pytest.approx(0.6 + 0.1 / 2)


@pytest.mark.parametrize("content", [
    ["positive"], [{"token": 5, "logprob": 0}], [{"token": "positive", "logprob": 1e308}],
    [{"token": "positive", "logprob": "x"}], [{"token": "positive"}], [{"token": "positive", "logprob": 0,
                                                                       "top_logprobs": 3}],
])
def test_distribution_from_malformed_logprobs_is_none_so_the_answer_is_parsed(content):
    from toolkit.models.llm import distribution_from_logprobs

    assert distribution_from_logprobs(content, ["negative", "neutral", "positive"]) is None


@pytest.mark.parametrize("reply", [
    "[" * 100_000 + "]" * 100_000,
    '[{"topic": ' + "[" * 5_000 + "]" * 5_000 + ', "identity_term": "a", "concept_term": "b"}]',
    '{"a": ' + "[" * 50_000 + "]" * 50_000 + "}",
])
def test_btcsam_reply_parsers_ignore_json_nested_past_any_answer(reply):
    from toolkit.studies.btcsam.generator import parse

    assert parse.json_value(reply) is None
    assert parse.triplets(reply) == [] and parse.mapping(reply) == {}


def test_btcsam_reply_parsers_still_read_ordinary_json():
    from toolkit.studies.btcsam.generator import parse

    assert parse.triplets('[{"topic": "t", "identity_term": "a", "concept_term": "b"}]') == [
        {"topic": "t", "identity_term": "a", "concept_term": "b"}]
    assert parse.mapping('{"Muslim": "A Muslim man", "Hindu": "A Hindu man"}') == {"Muslim": "A Muslim man",
                                                                                  "Hindu": "A Hindu man"}


# -- found while probing: custom adapters that return the wrong kind of thing -------------------------------------

def _adapter(output):
    from toolkit.models.base import SentimentModel

    class Custom(SentimentModel):
        spec, fingerprint = "custom", "custom"

        def predict(self, texts):
            return output(texts)

    return Custom()


@pytest.mark.parametrize("output, pattern", [
    (lambda t: None, r"predict returned NoneType, not Predictions"),
    (lambda t: (np.full(len(t), 0.5), ["x"] * len(t)), r"predict returned tuple, not Predictions"),
    (lambda t: __import__("toolkit.models.base", fromlist=["Predictions"]).Predictions(
        np.array(["a"] * len(t)), ["x"] * len(t), np.zeros(len(t), bool)), r"scores that are not numbers"),
    (lambda t: __import__("toolkit.models.base", fromlist=["Predictions"]).Predictions(
        np.full(len(t), 0.5), None, np.zeros(len(t), bool)), r"labels that are not a list"),
], ids=["none", "tuple", "string-scores", "no-labels"])
def test_custom_adapter_returning_the_wrong_kind_is_tk203(output, pattern):
    from toolkit.scoring import score

    with pytest.raises(ModelOutputError, match=r"\[TK203\] custom.*" + pattern):
        score(_cases(["a", "b"]), models=_adapter(output), cache=False)


@pytest.mark.parametrize("content, pattern", [
    ("{not json", r"is not a head file \(JSONDecodeError"), ("{}", r"is not a head file \(KeyError: 'weights'\)"),
    ('{"weights": [0.1, 0.2], "bias": 0, "max_length": 256}', r"has 2 weights \(384 needed\)"),
    ('{"weights": [0.1], "bias": 0, "max_length": "256"}', r"max_length '256'"),
])
def test_minilm_head_file_that_is_not_a_head_is_tk201(tmp_path, content, pattern):
    from toolkit.models.minilm import MiniLMSentimentModel

    (tmp_path / "head.json").write_text(content)
    with pytest.raises(ModelSpecError, match=r"\[TK201\] the MiniLM head .*" + pattern):
        MiniLMSentimentModel(head=tmp_path / "head.json")


@pytest.mark.parametrize("kind", ["missing", "binary", "folder"])
def test_llm_prompt_file_that_cannot_be_read_is_tk201(tmp_path, monkeypatch, kind):
    from toolkit.models import load

    monkeypatch.setenv("R3_LLM_KEY", "k")
    path = {"missing": tmp_path / "none.txt", "binary": tmp_path / "bin.txt", "folder": tmp_path}[kind]
    if kind == "binary":
        path.write_bytes(b"\xff\xfe\x00{text}")
    with pytest.raises(ModelSpecError, match=r"\[TK201\] the prompt_file .* cannot be read as UTF-8 text"):
        load(f"llm:openai:m@http://127.0.0.1:9/v1?key_env=R3_LLM_KEY&prompt_file={path}")


# -- found while probing: one model listed twice ------------------------------------------------------------------

@pytest.mark.parametrize("models", [["vader", "vader"], ["vader", " vader"], ["afinn", "vader", "afinn\n"]])
def test_a_model_listed_twice_is_tk102_not_doubled_rows(models):
    from toolkit.errors import InputError
    from toolkit.scoring import score

    with pytest.raises(InputError, match=r"\[TK102\] model '(vader|afinn)' is listed 2 times"):
        score(_cases(["good", "bad"]), models=models, cache=False)


def test_a_study_refuses_a_model_listed_twice_before_generating(monkeypatch):
    from toolkit.errors import InputError
    from toolkit.studies import biasfinder

    monkeypatch.setattr(biasfinder, "generate", lambda *a, **k: pytest.fail("generated before the check"))
    with pytest.raises(InputError, match=r"models lists the model 'vader' 2 times"):
        biasfinder.run(models=["vader", "vader "], cache=False)
