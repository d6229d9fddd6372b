"""Issue 11's cases, one test (or parametrised case) each: stale scores, merged or lost rows, coded errors for bad
input, paths and names, inputs that stall or mislead, provenance. Every input is a small file written here."""
from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import corpus_of
from loopback_chat import LoopbackChat

from toolkit import corpora
from toolkit.errors import (
    CacheError,
    CorpusError,
    InputError,
    LLMError,
    ModelOutputError,
    ModelSpecError,
    OutputDirError,
)
from toolkit.outputs import runs as results

TESTS_DIR = Path(__file__).resolve().parent


def _cli(*args, cwd, pythonpath=()):
    path = [str(TESTS_DIR.parent), str(TESTS_DIR), *map(str, pythonpath)]  # this checkout first
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run([sys.executable, "-m", "toolkit", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def _write_module(folder: Path, name: str, source: str) -> None:
    (folder / f"{name}.py").write_text(source)
    sys.modules.pop(name, None)
    importlib.invalidate_caches()


# --- wrong results: stale scores ------------------------------------------------------------------------------

def test_hf_fingerprint_changes_when_only_the_tokenizer_files_change(tiny_bert_dir, tmp_path):
    from transformers import BertTokenizer

    from toolkit.models.hf import HFClassifierModel

    folder = tmp_path / "model"
    shutil.copytree(tiny_bert_dir, folder)
    before = HFClassifierModel(f"hf:{folder}")
    words = ("[PAD] [UNK] [CLS] [SEP] [MASK] the a bad good movie great awful film i it was not very is and "
             "she he her him my sister brother feels angry happy").split()  # 'good' and 'bad' swapped
    for f in folder.glob("tokenizer*"):
        f.unlink()
    BertTokenizer(vocab={w: i for i, w in enumerate(words)}).save_pretrained(folder)
    after = HFClassifierModel(f"hf:{folder}")
    assert before.fingerprint != after.fingerprint
    assert not np.allclose(before.predict(["a good film"]).score, after.predict(["a good film"]).score)


def test_hf_fingerprint_covers_special_tokens_and_lowercasing(tiny_bert_dir, tmp_path):
    from toolkit.models.hf import HFClassifierModel

    folder = tmp_path / "model"
    shutil.copytree(tiny_bert_dir, folder)
    before = HFClassifierModel(f"hf:{folder}").fingerprint
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["do_lower_case"] = not config.get("do_lower_case", True)
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    assert HFClassifierModel(f"hf:{folder}").fingerprint != before
    moved = tmp_path / "moved"
    shutil.copytree(folder, moved)  # the same files elsewhere: the same fingerprint (paths are not hashed)
    assert HFClassifierModel(f"hf:{moved}").fingerprint == HFClassifierModel(f"hf:{folder}").fingerprint


def test_py_fingerprint_follows_a_helper_module_and_the_cache_returns_new_scores(tmp_path, monkeypatch):
    from toolkit.models.pyfunc import PyCallableModel
    from toolkit.scoring import score

    monkeypatch.syspath_prepend(str(tmp_path))
    _write_module(tmp_path, "stale_helper", "LEVEL = 0.25\n")
    _write_module(tmp_path, "stale_scorer", "import stale_helper\n\n\ndef score(texts):\n"
                                            "    return [stale_helper.LEVEL for _ in texts]\n")
    cases = pd.DataFrame({"case_id": ["c"], "variant_id": ["v"], "text": ["a text"], "attribute": ["gender"],
                          "group": ["female"], "fill": [""], "generator": ["test"], "template": [""],
                          "is_original": [False]})
    first = score(cases, models=[PyCallableModel("py:stale_scorer:score")], cache=tmp_path / "cache")
    _write_module(tmp_path, "stale_helper", "LEVEL = 0.75\n")
    sys.modules.pop("stale_scorer", None)
    second = score(cases, models=[PyCallableModel("py:stale_scorer:score")], cache=tmp_path / "cache")
    assert first["score"].tolist() == [0.25] and second["score"].tolist() == [0.75]


def test_py_version_option_and_fingerprint_attribute_cover_what_source_cannot(tmp_path, monkeypatch):
    from toolkit.models.pyfunc import PyCallableModel

    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "level.txt").write_text("0.3")
    _write_module(tmp_path, "file_scorer", "from pathlib import Path\n\n\ndef score(texts):\n"
                                           "    level = float((Path(__file__).parent / 'level.txt').read_text())\n"
                                           "    return [level] * len(texts)\n")
    plain = PyCallableModel("py:file_scorer:score")
    assert PyCallableModel("py:file_scorer:score").fingerprint == plain.fingerprint  # a data file is not covered
    v1, v2 = PyCallableModel("py:file_scorer:score?version=1"), PyCallableModel("py:file_scorer:score?version=2")
    assert len({plain.fingerprint, v1.fingerprint, v2.fingerprint}) == 3
    with pytest.raises(ModelSpecError, match="unknown option 'verison'"):
        PyCallableModel("py:file_scorer:score?verison=1")
    _write_module(tmp_path, "attr_scorer", "def score(texts):\n    return [0.5] * len(texts)\n\n\n"
                                           "score.fingerprint = 'weights-v7'\n")
    tagged = PyCallableModel("py:attr_scorer:score")
    _write_module(tmp_path, "attr_scorer", "def score(texts):\n    return [0.6] * len(texts)\n\n\n"
                                           "score.fingerprint = 'weights-v7'\n")
    assert PyCallableModel("py:attr_scorer:score").fingerprint == tagged.fingerprint  # the attribute decides


# --- wrong results: merged and lost rows ------------------------------------------------------------------------

def test_csv_with_an_unbalanced_quote_is_a_coded_error_naming_the_line(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_text('text,label\n"Good film, loved it",positive\n"Bad film,negative\n"Fine one",positive\n'
                    "Last one,negative\n")
    with pytest.raises(CorpusError, match="record starting at line 3") as info:
        corpora.load(path)
    assert info.value.code == "TK104"


def test_csv_row_with_an_extra_field_names_its_line(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_text("text,label\nfine,positive\nbad, really bad,negative\n")
    with pytest.raises(CorpusError, match="line 3: 3 fields where the header has 2"):
        corpora.load(path)


def test_jsonl_with_a_broken_line_names_its_number(tmp_path):
    path = tmp_path / "reviews.jsonl"
    path.write_text('{"text": "one"}\n{"text": "two"\n{"text": "three"}\n')
    with pytest.raises(CorpusError, match="line 2 is not valid JSON"):
        corpora.load(path)


def test_nan_empty_and_whitespace_texts_are_dropped_counted_and_warned(tmp_path):
    path = tmp_path / "reviews.csv"
    texts = ["one", "", "two", "   ", "three", "four", None, "five", "six", "seven"]
    pd.DataFrame({"text": texts, "label": ["positive"] * 10}).to_csv(path, index=False)
    with pytest.warns(UserWarning, match="3 of 10 rows have a missing, empty or whitespace-only text"):
        corpus = corpora.load(path)
    assert corpus["text"].tolist() == ["one", "two", "three", "four", "five", "six", "seven"]
    assert corpus.attrs["corpus_report"]["empty_texts_dropped"] == 3 and "" not in corpus["text"].tolist()
    assert corpus["doc_id"].tolist()[1] == "reviews:2"  # ids keep the file's row numbers


def test_texts_spelled_like_missing_values_are_kept(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_text("text,label\nNA,positive\nnull,negative\nNone,\n")
    corpus = corpora.load(path)
    assert corpus["text"].tolist() == ["NA", "null", "None"]
    assert corpus["label"].tolist() == ["positive", "negative", ""]


# --- crashes instead of coded errors ----------------------------------------------------------------------------

@pytest.mark.parametrize("texts, reason", [
    ([], "reviews: 0"),
    (["这部电影非常好看，演员表演出色，他很棒。", "这部电影很无聊，她很失望。"], "non english skipped: 2"),
    (["He loved her and she loved him.", "She told him his film was bad."], "both genders skipped: 2"),
])
def test_biasfinder_with_nothing_surviving_is_tk102_with_counts_per_filter(texts, reason):
    from toolkit.studies import biasfinder

    with pytest.raises(InputError, match="no review survived") as info:
        biasfinder.run(corpus=corpus_of(texts), models=["vader"], cache=False)
    assert reason in str(info.value) and info.value.code == "TK102"


def test_biasfinder_header_only_csv_is_tk102(tmp_path):
    from toolkit.studies import biasfinder

    path = tmp_path / "reviews.csv"
    path.write_text("text,label\n")
    with pytest.raises(InputError, match="no review survived"):
        biasfinder.run(corpus=path, models=["vader"], cache=False)


def test_empty_file_is_a_coded_error(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_text("")
    with pytest.raises(CorpusError, match="is empty"):
        corpora.load(path)
    proc = _cli("psa", "--model", "vader", "--corpus", str(path), "--out", str(tmp_path / "out"), "--no-cache",
                cwd=tmp_path)
    assert proc.returncode == 2 and "TK104" in proc.stderr and "Traceback" not in proc.stderr


def test_latin1_file_names_the_encoding_to_pass_and_loads_with_it(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_bytes("text,label\nfine,positive\nA café he liked a lot,positive\n".encode("latin-1"))
    with pytest.raises(CorpusError, match=r"not valid utf-8 \(line 3") as info:
        corpora.load(path)
    assert "--encoding cp1252" in str(info.value)
    assert corpora.load(path, encoding="latin-1")["text"].tolist()[1] == "A café he liked a lot"
    with pytest.raises(InputError, match="unknown encoding"):
        corpora.load(path, encoding="klingon")


def test_cli_encoding_option_reaches_the_loader(tmp_path):
    path = tmp_path / "reviews.csv"
    rows = [f"Review {i}: he said the café was {'good' if i % 2 else 'bad'}." for i in range(6)]
    rows += [f"Review {i}: she said the café was {'good' if i % 2 else 'bad'}." for i in range(6)]
    path.write_bytes(("text\n" + "\n".join(rows) + "\n").encode("latin-1"))
    args = ("psa", "--model", "vader", "--corpus", str(path), "--n", "4", "--n-boot", "10", "--no-cache")
    failed = _cli(*args, "--out", str(tmp_path / "a"), cwd=tmp_path)
    assert failed.returncode == 2 and "--encoding" in failed.stderr
    done = _cli(*args, "--encoding", "latin-1", "--out", str(tmp_path / "b"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "b" / "provenance.json").read_text())["settings"]["corpus_report"]["encoding"] \
        == "latin-1"


@pytest.mark.parametrize("option, pattern", [("max_length=abc", "not a whole number"),
                                             ("max_length=0", r"outside this model's range \[3, 64\]"),
                                             ("max_length=2", r"outside this model's range \[3, 64\]"),
                                             ("max_length=65", r"outside this model's range \[3, 64\]")])
def test_hf_bad_max_length_is_a_coded_error(tiny_bert_dir, option, pattern):
    from toolkit.models.hf import HFClassifierModel

    with pytest.raises(ModelSpecError, match=pattern):
        HFClassifierModel(f"hf:{tiny_bert_dir}?{option}")
    assert HFClassifierModel(f"hf:{tiny_bert_dir}?max_length=3").max_length == 3


def test_hf_device_cuda_without_cuda_is_a_coded_error_before_loading(tiny_bert_dir, monkeypatch):
    import torch
    import transformers

    from toolkit.models.hf import HFClassifierModel

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(transformers.AutoModelForSequenceClassification, "from_pretrained",
                        lambda *a, **k: pytest.fail("weights loaded before the device check"))
    with pytest.raises(InputError, match="device='cuda' asked for, but this machine has 0 CUDA"):
        HFClassifierModel(f"hf:{tiny_bert_dir}?device=cuda")


_BAD_SCORERS = '''
def returns_none(texts):
    return None


def returns_dict(texts):
    return {t: 0.5 for t in texts}


def returns_words(texts):
    return ["high" for _ in texts]


def returns_nan(texts):
    return [0.5] + [float("nan")] * (len(texts) - 1)


def raises(texts):
    raise RuntimeError("boom")


NOT_CALLABLE = 3


def takes_nothing():
    return 0.5
'''


@pytest.mark.parametrize("name, error, pattern", [
    ("returns_none", ModelOutputError, "returned None, not a sequence of scores"),
    ("returns_dict", ModelOutputError, "returned dict, not a sequence of scores"),
    ("returns_words", ModelOutputError, "not numbers"),
    ("returns_nan", ModelOutputError, "returned NaN in 2 of 3 scores"),
    ("raises", ModelOutputError, "raised RuntimeError: boom"),
])
def test_py_callable_bad_outputs_are_coded_errors(tmp_path, monkeypatch, name, error, pattern):
    from toolkit.models.pyfunc import PyCallableModel

    monkeypatch.syspath_prepend(str(tmp_path))
    _write_module(tmp_path, "bad_scorers", _BAD_SCORERS)
    with pytest.raises(error, match=pattern):
        PyCallableModel(f"py:bad_scorers:{name}").predict(["a", "b", "c"])


@pytest.mark.parametrize("spec, pattern", [("py:bad_scorers:takes_nothing", "cannot be called with one argument"),
                                           ("py:bad_scorers:NOT_CALLABLE", "is not callable")])
def test_py_targets_that_cannot_score_are_refused_at_load(tmp_path, monkeypatch, spec, pattern):
    from toolkit.models.pyfunc import PyCallableModel

    monkeypatch.syspath_prepend(str(tmp_path))
    _write_module(tmp_path, "bad_scorers", _BAD_SCORERS)
    with pytest.raises(ModelSpecError, match=pattern):
        PyCallableModel(spec)


def test_engine_reports_nan_from_any_adapter_as_a_count():
    from toolkit.models.base import Predictions, SentimentModel
    from toolkit.scoring import _checked

    class Half(SentimentModel):
        spec, fingerprint = "half-nan", "x"

        def predict(self, texts):
            return Predictions(np.array([0.5, np.nan, np.nan, 0.1]), ["x"] * 4)

    model = Half()
    with pytest.raises(ModelOutputError, match="returned NaN in 2 of 4 scores"):
        _checked(model, ["a", "b", "c", "d"], model.predict(["a", "b", "c", "d"]))


def test_cache_path_is_decided_by_what_it_is(tmp_path):
    from toolkit.cache import ScoreCache
    from toolkit.scoring import _open_cache

    no_suffix_file = tmp_path / "mycache"
    ScoreCache(no_suffix_file).close()  # an existing cache file without a suffix
    with _open_cache(no_suffix_file) as cache:
        assert cache.path == no_suffix_file
    dotted = tmp_path / "my.cache.d"
    dotted.mkdir()  # an existing folder with a dot
    with _open_cache(dotted) as cache:
        assert cache.path == dotted / "scores.sqlite"
    with _open_cache(tmp_path / "fresh") as cache:  # new paths: by suffix, as before
        assert cache.path == tmp_path / "fresh" / "scores.sqlite"
    text_file = tmp_path / "notes"
    text_file.write_text("not a cache")
    with pytest.raises(CacheError):
        _open_cache(text_file)


def test_cli_cache_pointing_at_a_plain_file_is_a_coded_error(tmp_path):
    notes = tmp_path / "notes"
    notes.write_text("hello")
    proc = _cli("eec", "--model", "vader", "--subset", "all", "--cache", str(notes), "--out", str(tmp_path / "o"),
                cwd=tmp_path)
    assert proc.returncode == 2 and "TK301" in proc.stderr and "Traceback" not in proc.stderr


def test_unwritable_output_folder_fails_before_any_scoring(tmp_path):
    marker = tmp_path / "scored.txt"
    _write_module(tmp_path, "marking_scorer", f"def score(texts):\n    open({str(marker)!r}, 'a').write('x')\n"
                                              "    return [0.5] * len(texts)\n")
    blocker = tmp_path / "file.txt"
    blocker.write_text("a file, not a folder")
    proc = _cli("eec", "--model", "py:marking_scorer:score", "--subset", "all", "--out", str(blocker / "out"),
                "--no-cache", cwd=tmp_path, pythonpath=[tmp_path])
    assert proc.returncode == 2 and "TK105" in proc.stderr and "cannot write to the output folder" in proc.stderr
    assert not marker.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through read-only permissions")
def test_read_only_output_folder_is_detected(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(OutputDirError):
            results.check_writable(folder)
    finally:
        folder.chmod(0o700)


def _bodies_then_ok(bodies):
    """Reply function: the given bodies in turn (status 200), then a valid chat completion."""
    pending = list(bodies)
    return lambda request: (200, pending.pop(0) if pending else b'{"choices": [{"message": {"content": "ok"}}]}')


@pytest.mark.parametrize("body", [b"<html>Bad gateway</html>", b'{"error": "overloaded"}', b'{"choices": []}'])
def test_llm_reply_without_json_or_choices_is_retried_then_tk501(monkeypatch, body):
    from toolkit.llm import OpenAIBackend

    monkeypatch.setenv("RELIABILITY_KEY", "k")
    with LoopbackChat(reply=_bodies_then_ok([body, body])) as flaky:
        backend = OpenAIBackend(base_url=flaky.url, model="m", api_key_env="RELIABILITY_KEY", backoff=0.01)
        assert backend.complete([{"role": "user", "content": "hi"}]) == "ok" and len(flaky.requests) == 3
    with LoopbackChat(reply=_bodies_then_ok([body] * 10)) as broken:
        backend = OpenAIBackend(base_url=broken.url, model="m", api_key_env="RELIABILITY_KEY", backoff=0.01,
                                retries=2)
        with pytest.raises(LLMError, match="not a chat completion") as info:
            backend.complete([{"role": "user", "content": "hi"}])
        assert info.value.code == "TK501" and len(broken.requests) == 3


# --- paths and names --------------------------------------------------------------------------------------------

@pytest.fixture
def no_hub(monkeypatch):
    """Fail the test if anything asks transformers to load (i.e. the hub would be contacted)."""
    import transformers

    for cls in (transformers.AutoTokenizer, transformers.AutoModelForSequenceClassification,
                transformers.AutoModelForCausalLM):
        monkeypatch.setattr(cls, "from_pretrained", lambda *a, **k: pytest.fail("asked transformers to load"))


@pytest.mark.parametrize("target", ["my-modle", "./my-model-2", "~/no/such/model", "models/a/b"])
def test_hf_missing_local_looking_folder_fails_at_once(tmp_path, monkeypatch, no_hub, target):
    from toolkit.models.hf import HFClassifierModel

    (tmp_path / "my-model").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelSpecError, match="not found") as info:
        HFClassifierModel(f"hf:{target}")
    assert "?hub=1" in str(info.value)
    if target == "my-modle":
        assert "did you mean 'my-model'" in str(info.value)


def test_hf_hub_offline_searches_only_the_cache(tmp_path, monkeypatch):
    import transformers

    from toolkit.models.hf import HFClassifierModel

    seen = {}

    def fake(target, **kwargs):
        seen.update(kwargs)
        raise OSError("not in the cache")

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", fake)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelSpecError, match="HF_HUB_OFFLINE is set"):
        HFClassifierModel("hf:some-org/some-model")
    assert seen.get("local_files_only") is True


def test_btcsam_local_llm_backend_fails_at_once_on_a_missing_folder(tmp_path, monkeypatch, no_hub):
    from toolkit.llm import HFBackend

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelSpecError, match="not found"):
        HFBackend(model=str(tmp_path / "no-such-llm"))


def test_rerun_into_the_same_out_removes_only_the_previous_runs_own_files(tmp_path):
    from toolkit.plots import new_axes

    out = tmp_path / "out"
    out.mkdir()
    (out / "my_notes.txt").write_text("mine")
    (out / "psa_mine.csv").write_text("mine")  # a study-like name the toolkit did not write
    scored = pd.DataFrame()

    def write(models):
        scored.attrs["fingerprints"] = {m: "f" * 32 for m in models}
        axes = {f"psa_score_sens_{m}": new_axes() for m in models}
        return results.write(study="psa", tables={"psa_summary": pd.DataFrame({"model": models})}, axes=axes,
                             scored=scored, fingerprints=scored.attrs.get("fingerprints"), models=models, settings={}, out_dir=out, figures_dir=out)

    write(["a", "b"])
    assert (out / "psa_score_sens_a.png").exists() and (out / "psa_score_sens_b.png").exists()
    write(["b"])
    assert not (out / "psa_score_sens_a.png").exists() and (out / "psa_score_sens_b.png").exists()
    assert not (out / "psa_score_sens_a.pdf").exists() and (out / "psa_score_sens_b.pdf").exists()
    assert (out / "my_notes.txt").read_text() == "mine" and (out / "psa_mine.csv").read_text() == "mine"
    provenance = json.loads((out / "provenance.json").read_text())
    (out / "provenance.json").write_text(json.dumps({**provenance, "outputs": ["my_notes.txt", str(out / "x.py")]}))
    (out / "x.py").write_text("kept")
    write(["b"])  # a hand-edited list: only the study's own csv/png names are ever deleted
    assert (out / "my_notes.txt").exists() and (out / "x.py").exists()
    provenance = json.loads((out / "provenance.json").read_text())
    assert sorted(provenance["outputs"]) == ["psa_score_sens_b.pdf", "psa_score_sens_b.png", "psa_summary.csv"]


# --- inputs that stall or mislead -------------------------------------------------------------------------------

def test_biasfinder_skips_and_counts_an_overlong_review_and_shows_progress(capsys):
    from toolkit.studies.biasfinder.generator import generate

    corpus = corpus_of(["The actor was great and he made me laugh. I loved him.",
                        "He was awful. " * 15_000])  # 210,000 characters
    cases = generate(corpus, instances=["gender"], progress=True)
    report = cases.attrs["generation_report"]
    assert report["too_long_skipped"] == 1 and report["max_chars"] == 20_000 and report["gender_templates"] == 1
    assert set(cases["doc_id"]) == {"d0"}
    assert "biasfinder templates" in capsys.readouterr().err
    with pytest.raises(InputError, match="too long skipped: 2"):
        generate(corpus, instances=["gender"], max_chars=10)


def test_html_markup_is_stripped_on_load_and_recorded(tmp_path):
    path = tmp_path / "reviews.csv"
    pd.DataFrame({"text": ["<p>A <b>great</b> film.</p><p>He shone.</p>", "Plain.<br />Fine.",
                           "Tom &amp; Jerry <i>rocks</i>"]}).to_csv(path, index=False)
    corpus = corpora.load(path)
    assert corpus["text"].tolist() == ["A great film. He shone.", "Plain. Fine.", "Tom & Jerry rocks"]
    assert corpus.attrs["corpus_report"]["html_stripped"] == 2  # <br /> alone is the long-standing cleaning
    kept = corpora.load(path, strip_markup=False)
    assert kept["text"].iloc[0].startswith("<p>A <b>great</b>")


def test_non_english_texts_are_counted_warned_and_skipped_by_psa(tmp_path):
    from toolkit.studies import psa

    english = [f"Review {i}: he said the film was {'good' if i % 2 else 'bad'}." for i in range(6)]
    english += [f"Review {i}: she said the film was {'good' if i % 2 else 'bad'}." for i in range(6)]
    foreign = ["他说这部电影很好看。", "Er sagte, der Film sei gut und die Schauspieler seien toll gewesen.",
               "Elle a dit que le film était bon et que les acteurs étaient formidables."]
    path = tmp_path / "reviews.csv"
    pd.DataFrame({"text": english + foreign}).to_csv(path, index=False)
    with pytest.warns(UserWarning, match="3 of 15 texts do not look English"):
        corpus = corpora.load(path)
    assert corpus.attrs["corpus_report"]["non_english"] == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = psa.run(corpus=path, models=["vader"], n=4, n_boot=10, cache=False)
    assert result.provenance.settings["corpus_report"]["non_english_skipped"] == 3
    assert not result.scored["text"].str.contains("他|Film sei|film était").any()


def test_looks_english_on_short_and_mixed_texts():
    assert corpora.looks_english("Great!") and corpora.looks_english("I loved the café scene in Paris.")
    assert not corpora.looks_english("这部电影非常好看") and not corpora.looks_english("!!! 10/10")


# --- provenance -------------------------------------------------------------------------------------------------

def test_provenance_records_corpus_path_hash_versions_and_dirty_tree(tmp_path):
    from toolkit.studies import psa

    path = tmp_path / "reviews.csv"
    rows = [f"Review {i}: {'he' if i % 2 else 'she'} said the film was good." for i in range(12)]
    pd.DataFrame({"text": rows}).to_csv(path, index=False)
    result = psa.run(corpus=path, models=["vader"], n=4, n_boot=10, cache=False)
    psa.write(result, tmp_path / "out", figures_dir=tmp_path / "out")
    record = json.loads((tmp_path / "out" / "provenance.json").read_text())
    report = record["settings"]["corpus_report"]
    assert report["source"] == str(path.resolve())
    assert report["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert "git_dirty" in record and record["git_dirty"] in (True, False, None)
    assert {"spacy", "faker"} <= set(record["packages"]) and record["spacy_pipelines"]


def test_provenance_records_eec_alpha():
    from toolkit.studies import eec

    result = eec.run(models=["py:synthetic_models:blind"], subsets=["all"], alpha=0.01, cache=False, n_boot=100)
    written = eec.write(result, Path(os.environ["TOOLKIT_DATA"]) / "eec_alpha", figures_dir=None)
    record = json.loads(next(p for p in written if p.name == "provenance.json").read_text())
    assert record["settings"]["alpha"] == 0.01


def test_btcsam_settings_name_the_llm_that_generated_a_set():
    from toolkit.studies import btcsam

    cases = pd.DataFrame({"case_id": ["c1", "c1"], "variant_id": ["v1", "v2"], "text": ["A Muslim man.",
                                                                                        "A Jewish man."],
                          "attribute": ["religion"] * 2, "group": ["Muslim", "Jewish"], "fill": ["Muslim", "Jewish"],
                          "generator": ["btcsam"] * 2, "template": [""] * 2, "is_original": [True, False],
                          "bias_type": ["religion"] * 2, "test_set": ["gen"] * 2,
                          "llm": ["openai:gpt-x@http://localhost/v1?temperature=0.7&max_tokens=1024"] * 2})
    result = btcsam.run(sets={"gen": cases}, models=["vader"], cache=False)
    assert result.provenance.settings["generated_by"] == {"gen": [cases["llm"].iloc[0]]}
