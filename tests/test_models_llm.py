"""LLMs as models under test: ``llm:hf:`` on a tiny local causal LM, ``llm:openai:`` on a loopback server."""
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import torch
from loopback_chat import LoopbackChat
from model_zoo import build_causal_lm

from toolkit import cases as case_schema
from toolkit.errors import ModelSpecError
from toolkit.models import load
from toolkit.models.llm import PROMPT
from toolkit.scoring import ScoreRecord, score

TEXTS = ["the good movie was great", "a bad film", "she feels angry about the long and awful film"]


def _cases(texts):
    return pd.DataFrame({"case_id": "c", "variant_id": [f"v{i}" for i in range(len(texts))], "text": texts,
                         "attribute": "gender", "group": "", "fill": "", "generator": "test", "template": "",
                         "is_original": False})


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    return build_causal_lm(tmp_path_factory.mktemp("tiny_lm"))


def _reference(folder, text):
    """Next-token probabilities after the plain transcript prompt, by hand: ' negative', ' neutral', ' positive'
    are single tokens; without a space 'negative'/'neutral' share 'n' (left out) and 'positive' starts with 'p'."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    content = PROMPT.replace("{labels}", "negative, neutral, positive").replace("{text}", text)
    ids = tokenizer(f"user: {content}\nassistant:", return_tensors="pt")["input_ids"]
    with torch.no_grad():
        p = torch.softmax(model(ids).logits[0, -1], -1).numpy()
    tok = tokenizer.convert_tokens_to_ids
    mass = np.array([p[tok("Ġnegative")], p[tok("Ġneutral")], p[tok("Ġpositive")] + p[tok("p")]])
    return mass / mass.sum()


def test_llm_hf_reads_label_word_probabilities_end_to_end(tiny_lm):
    spec = f"llm:hf:{tiny_lm}"
    scored = score(_cases(TEXTS), models=[spec], cache=False)
    case_schema.validate(scored, scored=True)
    expected = np.array([_reference(tiny_lm, t) for t in TEXTS])
    probs = np.array([list(json.loads(v).values()) for v in scored["class_probs"]])
    assert list(json.loads(scored["class_probs"].iloc[0])) == ["negative", "neutral", "positive"]
    np.testing.assert_allclose(probs, expected, atol=1e-5)
    np.testing.assert_allclose(scored["score"], expected[:, 2] + expected[:, 1] / 2, atol=1e-5)
    assert scored["top_label"].tolist() == [["negative", "neutral", "positive"][i] for i in expected.argmax(1)]
    assert not scored["truncated"].any()


def test_llm_hf_batched_equals_one_by_one_and_truncation_is_flagged(tiny_lm):
    model = load(f"llm:hf:{tiny_lm}")
    together = model.predict(TEXTS)
    alone = np.concatenate([model.predict([t]).score for t in TEXTS])
    assert np.max(np.abs(together.score - alone)) <= 1e-5
    short = load(f"llm:hf:{tiny_lm}?max_length={model._overhead + 20}")
    assert short.predict(TEXTS).truncated.tolist() == [True, False, True]
    assert short.fingerprint != model.fingerprint


def test_llm_hf_closes_an_opened_think_section_before_reading_the_answer(tmp_path):
    template = ("{% for m in messages %}<|user|>{{ m['content'] }}{% endfor %}"
                "{% if add_generation_prompt %}<|assistant|><think>\n{% endif %}")
    model = load(f"llm:hf:{build_causal_lm(tmp_path / 'r1', chat_template=template)}")
    assert model._prompt("a bad film").endswith("<|assistant|><think>\n\n</think>\n\n")
    assert len(model.predict(["a bad film"]).class_probs) == 1


def test_llm_spec_errors_are_clear(tiny_lm):
    from toolkit.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="llm:hf:"):
        load("llm:vllm:model")
    with pytest.raises(ModelSpecError, match="unknown option 'temperature'"):
        load(f"llm:hf:{tiny_lm}?temperature=1")
    with pytest.raises(ModelSpecError, match="<model>@<base_url>"):
        load("llm:openai:gpt-4o-mini")


# ---- an OpenAI-compatible endpoint on loopback ----------------------------------------------------------------------

def _lp(token, p, alternatives=()):
    return {"token": token, "logprob": math.log(p),
            "top_logprobs": [{"token": t, "logprob": math.log(q)} for t, q in ((token, p), *alternatives)]}


# reply text and its token log-probabilities, by the text asked about
REPLIES = {
    "great film": ("Positive", [_lp("Positive", 0.7, [("Neutral", 0.2), ("Negative", 0.1)])]),
    # a reasoning model: "positive" inside the think section must be ignored; "Ne" is ambiguous (left out)
    "awful film": ("<think>Is it positive? No.</think>\n\nNegative",
                   [_lp("<think>", 0.9), _lp("Is", 0.9), _lp(" it", 0.9), _lp(" positive", 0.9, [(" negative", 0.1)]),
                    _lp("? No.", 0.9), _lp("</think>", 0.9), _lp("\n\n", 0.9),
                    _lp("Negative", 0.6, [("Neutral", 0.3), ("Ne", 0.1)])]),
    "odd film": ("I cannot tell.", [_lp("I", 0.9), _lp(" cannot", 0.9), _lp(" tell.", 0.9)]),
    "cut film": ("<think>This needs a long thought about", [_lp("<think>", 0.9), _lp("This", 0.9)]),
}


def _replies(*, logprobs: bool):
    """Reply function: the REPLIES entry for the text asked about, with its log-probabilities when ``logprobs`` and
    the request asks for them."""

    def reply(request):
        asked = request.body["messages"][-1]["content"]
        text, lps = next(v for k, v in REPLIES.items() if k in asked)
        choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        if logprobs and request.body.get("logprobs"):
            choice["logprobs"] = {"content": lps}
        return 200, {"choices": [choice]}

    return reply


@pytest.fixture(params=[True, False], ids=["with-logprobs", "without-logprobs"])
def server(request, monkeypatch):
    monkeypatch.setenv("TEST_LLM_KEY", "sekret")
    srv = LoopbackChat(reply=_replies(logprobs=request.param))
    yield srv, request.param
    srv.close()


def test_llm_openai_endpoint_with_and_without_logprobs(server):
    srv, has_logprobs = server
    spec = f"llm:openai:tiny@{srv.url}?key_env=TEST_LLM_KEY"
    texts = ["a great film", "an awful film", "an odd film", "a cut film"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scored = score(_cases(texts), models=[spec], cache=False, record=(scored_record := ScoreRecord()))
    case_schema.validate(scored, scored=True)
    rows = scored.set_index("text")
    headers, body = srv.requests[0].headers, srv.requests[0].body
    assert headers["Authorization"] == "Bearer sekret" and "sekret" not in load(spec).fingerprint
    assert body["temperature"] == 0.0 and body["logprobs"] is True and body["model"] == "tiny"
    if has_logprobs:
        assert json.loads(rows.loc["a great film", "class_probs"]) == {"negative": 0.1, "neutral": 0.2,
                                                                       "positive": 0.7}
        assert rows.loc["a great film", "score"] == pytest.approx(0.8)
        assert json.loads(rows.loc["an awful film", "class_probs"]) == pytest.approx(
            {"negative": 2 / 3, "neutral": 1 / 3, "positive": 0.0}, abs=1e-6)
        assert rows.loc["an awful film", "top_score"] == pytest.approx(2 / 3, abs=1e-6)
    else:  # parsed answers: label only, recorded by an empty class_probs and no top score
        assert rows.loc["a great film", "score"] == 1.0 and rows.loc["an awful film", "score"] == 0.0
        assert (rows.loc[["a great film", "an awful film"], "class_probs"] == "").all()
        assert rows.loc[["a great film", "an awful film"], "top_score"].isna().all()
    assert rows.loc["a great film", "top_label"] == "positive" and rows.loc["an awful film", "label"] == "negative"
    # no answer, or a think section that never closes: counted and kept, never dropped
    assert rows.loc[["an odd film", "a cut film"], "top_label"].tolist() == ["unparseable", "unparseable"]
    assert rows.loc[["an odd film", "a cut film"], "score"].isna().all()
    assert scored_record.no_score == {spec: 2}
    assert any("2 of 4 rows have no score" in str(w.message) and "unparseable" in str(w.message) for w in caught)


def test_llm_openai_missing_key_is_a_clear_error(monkeypatch):
    from toolkit.errors import InputError

    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    model = load("llm:openai:tiny@http://127.0.0.1:9/v1?key_env=NO_SUCH_KEY_VAR")
    with pytest.raises(InputError, match="NO_SUCH_KEY_VAR"):
        model.predict(["a text"])


def test_llm_endpoint_spec_splits_before_the_url_and_refuses_credentials_in_it():
    """``gpt-x@https://u:KEY@host/v1`` was split at its last '@' ("needs <model>@<base_url>"); a model name may hold
    an '@', and a key belongs in key_env=, never in the spec (it would be kept in provenance and the cache key)."""
    from toolkit.models.llm import endpoint

    assert endpoint("s", "org/model@v2@https://host.example/v1") == ("org/model@v2", "https://host.example/v1")
    assert endpoint("s", "gpt-x@http://127.0.0.1:8000/v1") == ("gpt-x", "http://127.0.0.1:8000/v1")
    with pytest.raises(ModelSpecError, match="holds credentials") as caught:
        load("llm:openai:gpt-x@https://u:s3cretKEY@host.example/v1")
    assert "key_env=" in caught.value.fix and "s3cretKEY" not in str(caught.value)
    for target in ("gpt-x", "gpt-x@ftp://host", "@https://host/v1"):
        with pytest.raises(ModelSpecError, match="<model>@<base_url>"):
            endpoint("s", target)
