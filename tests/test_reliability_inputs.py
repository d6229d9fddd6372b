"""Inputs that are not what they seem: counts out of range, a spec string where a list is expected, papermill
parameters of the wrong type, broken .gz corpora, ``py:`` targets that reach a shell, texts too long to score."""
from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import corpus_of

from toolkit.errors import CorpusError, InputError, ModelSpecError

TESTS_DIR = Path(__file__).resolve().parent


def _cli(*args: str, capsys) -> tuple[int, str]:
    from toolkit.__main__ import main

    code = main(list(args))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("args, pattern", [
    (["biasfinder", "--model", "vader", "--n-names", "-2"], r"\[TK102\] n_names must be a whole number of at least 1; "
                                                             r"got -2.*--n-names"),
    (["biasfinder", "--model", "vader", "--max-templates", "0"], r"\[TK102\] max_templates .* got 0"),
    (["biasfinder", "--model", "vader", "--n-process", "0"], r"\[TK102\] n_process must be a whole number from 1 to"),
    (["biasfinder", "--model", "vader", "--seed", "-1"], r"\[TK102\] seed must be a whole number from 0 to "
                                                          r"4,294,967,295; got -1"),
    (["biasfinder", "--model", "vader", "--n-jobs", "0"], r"\[TK102\] n_jobs .* got 0"),
    (["biasfinder", "--model", "vader", "--max-chars", "-5"], r"\[TK102\] max_chars .* got -5"),
    (["psa", "--model", "vader", "--n", "-10"], r"\[TK102\] n must be a whole number of at least 2; got -10"),
    (["psa", "--model", "vader", "--seed", "-1"], r"\[TK102\] seed must be"),
    (["psa", "--model", "vader", "--n-boot", "0"], r"\[TK102\] n_boot .* got 0"),
    (["psa", "--model", "vader", "--max-words", "0"], r"\[TK102\] max_words .* got 0"),
    (["eec", "--model", "vader", "--alpha", "0.6"], r"\[TK102\] alpha must be a number strictly between 0 and 0.5"),
])
def test_cli_count_options_out_of_range_are_tk102_with_the_valid_range(tmp_path, capsys, args, pattern):
    import re

    code, err = _cli(*args, "--out", str(tmp_path / "out"), "--no-cache", capsys=capsys)
    assert code == 2
    assert re.search(pattern, err), err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["ten", 2.5, True, None])
def test_papermill_style_wrong_types_are_tk102_naming_the_type(value):
    from toolkit.studies import psa

    with pytest.raises(InputError, match=rf"n must be a whole number of at least 2; got {value!r}"):
        psa.generate(corpus_of(["She is great."]), n=value)


def test_whole_floats_are_accepted_as_counts():
    from toolkit import checks

    assert checks.count(1e3, name="n") == 1000 and isinstance(checks.count(1e3, name="n"), int)
    assert checks.count(None, name="max_templates", allow_none=True) is None


def test_notebook_with_a_string_count_fails_in_its_cell_with_the_coded_error(tmp_path):
    papermill = pytest.importorskip("papermill")
    from toolkit import paths

    notebook = paths.project_root() / "notebooks" / "02_psa.ipynb"
    with pytest.raises(papermill.PapermillExecutionError) as info:
        papermill.execute_notebook(str(notebook), str(tmp_path / "out.ipynb"), parameters={"N": "ten"},
                                   kernel_name="python3", cwd=str(notebook.parent), progress_bar=False)
    assert "TK102" in str(info.value) and "n must be a whole number" in str(info.value)


@pytest.mark.parametrize("study", ["eec", "psa", "biasfinder", "btcsam"])
def test_one_spec_string_is_a_list_of_one_model_in_every_study(study):
    from toolkit.studies import biasfinder, btcsam, eec, psa

    if study == "eec":
        result = eec.run(models="vader", subsets=["all"], cache=False, n_boot=100)
    elif study == "psa":
        result = psa.run(corpus="sample", models="vader", n=4, n_boot=10, cache=False)
    elif study == "biasfinder":
        result = biasfinder.run(corpus="sample", models="vader", instances=["gender"], n_names=2, max_templates=2,
                                cache=False)
    else:
        cases = psa.generate(corpus_of(["She is great.", "He is awful."]), n=2)
        result = btcsam.run(sets={"psa": cases}, models="vader", cache=False)
    assert result.models == ["vader"]


@pytest.mark.parametrize("models, pattern", [([], "models is empty"), (42, "got 42 \\(int\\)"),
                                             (["vader", 3], "got 3 \\(int\\)")])
def test_model_lists_of_the_wrong_kind_are_tk102(models, pattern):
    from toolkit.studies import psa

    with pytest.raises(InputError, match=pattern):
        psa.run(corpus="sample", models=models, n=4)


def _write_csv_gz(path: Path) -> bytes:
    raw = gzip.compress(pd.DataFrame({"text": ["A fine film. " * 40] * 50}).to_csv(index=False).encode())
    path.write_bytes(raw)
    return raw


def test_truncated_csv_gz_is_tk104_saying_truncated(tmp_path):
    from toolkit import corpora

    path = tmp_path / "reviews.csv.gz"
    raw = _write_csv_gz(path)
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(CorpusError, match=r"'reviews.csv.gz' is truncated or corrupt"):
        corpora.load(path)


def test_plain_csv_named_gz_is_tk104_saying_not_gzip(tmp_path):
    from toolkit import corpora

    path = tmp_path / "reviews.csv.gz"
    path.write_text("text\nA fine film.\n")
    with pytest.raises(CorpusError, match=r"is not gzip-compressed.*drop the .gz suffix"):
        corpora.load(path)


def test_cli_truncated_gz_corpus_prints_the_coded_error(tmp_path, capsys):
    path = tmp_path / "reviews.csv.gz"
    raw = _write_csv_gz(path)
    path.write_bytes(raw[:100])
    code, err = _cli("psa", "--model", "vader", "--corpus", str(path), "--out", str(tmp_path / "o"), "--no-cache",
                     capsys=capsys)
    assert code == 2 and "[TK104]" in err and "Traceback" not in err


@pytest.mark.parametrize("spec", ["py:subprocess:getoutput", "py:os:system", "py:builtins:eval",
                                  "py:shutil:rmtree", "py:os.path:basename", "py:timeit:main", "py:tarfile:main"])
def test_py_targets_in_process_and_shell_modules_are_refused(spec):
    from toolkit.models import load

    with pytest.raises(ModelSpecError, match=r"\[TK201\].*standard library.*\?unsafe=1"):
        load(spec)


def test_py_reexported_shell_function_is_refused_by_where_it_is_defined(tmp_path, monkeypatch):
    from toolkit.models import load

    (tmp_path / "sneaky_scorer.py").write_text("from subprocess import getoutput as score\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModelSpecError, match="'subprocess'"):
        load("py:sneaky_scorer:score")


def test_py_unsafe_opt_in_loads_the_target(monkeypatch):
    from toolkit.models.pyfunc import PyCallableModel

    model = PyCallableModel("py:os.path:basename?unsafe=1")
    assert model.spec == "py:os.path:basename?unsafe=1"


def test_py_own_functions_are_not_refused():
    from toolkit.models import load

    sys.path.insert(0, str(TESTS_DIR))
    assert load("py:synthetic_models:female_plus").spec == "py:synthetic_models:female_plus"


def _cases(texts: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"case_id": [f"c{i}" for i in range(len(texts))], "variant_id": [f"v{i}" for i in
                                                                                         range(len(texts))],
                         "text": texts, "attribute": "name", "group": "", "fill": "", "generator": "external:test",
                         "template": "", "is_original": True})


def test_a_text_over_the_models_maximum_is_skipped_counted_and_not_cached(tmp_path):
    from toolkit.cache import ScoreCache
    from toolkit.models import load
    from toolkit.scoring import TOO_LONG, score

    long_text = "a good film " * 2_000  # 24,000 characters: over VADER's 20,000
    cases = _cases(["a good film", long_text, "a bad film"])
    cache = tmp_path / "scores.sqlite"
    with pytest.warns(UserWarning, match=r"vader: skipped 1 of 3 distinct texts longer than 20,000 characters \(the "
                                         r"longest has 24,000\)"):
        scored = score(cases, models="vader", cache=cache)
    row = scored.set_index("variant_id").loc["v1"]
    assert pd.isna(row["score"]) and row["top_label"] == TOO_LONG
    assert scored.set_index("variant_id").loc[["v0", "v2"], "score"].notna().all()
    assert scored.attrs["inputs"]["vader"]["too_long_skipped"] == 1
    assert scored.attrs["no_score"]["vader"] == 1
    assert scored["input_id"].nunique() == 3
    with ScoreCache(cache) as store:
        assert set(store.get(load("vader").fingerprint, [long_text, "a good film"])) == {"a good film"}
    rescored = score(cases, models="vader", cache=cache, max_text_chars=30_000)
    assert rescored.set_index("variant_id").loc["v1", "score"] > 0.5


def test_max_text_chars_applies_to_every_model_family_and_is_checked():
    from toolkit.scoring import score

    cases = _cases(["short", "a much longer text here"])
    with pytest.warns(UserWarning, match="textblob: skipped 1 of 2"):
        scored = score(cases, models=["textblob"], cache=False, max_text_chars=10)
    assert scored["score"].isna().sum() == 1
    with pytest.raises(InputError, match="max_text_chars"):
        score(cases, models="textblob", cache=False, max_text_chars=0)


def test_utf16_corpus_error_names_utf16_and_loads_with_it(tmp_path):
    from toolkit import corpora

    path = tmp_path / "excel.csv"
    path.write_bytes("text\nShe is great.\n".encode("utf-16"))
    with pytest.raises(CorpusError, match=r"utf-16 byte-order mark: encoding='utf-16'"):
        corpora.load(path)
    assert corpora.load(path, encoding="utf-16")["text"].tolist() == ["She is great."]


@pytest.mark.parametrize("value, kind", [("123", "int"), ('["a"]', "list"), ('{"x": 1}', "dict")])
def test_jsonl_text_that_is_not_a_string_is_tk104_naming_the_line(tmp_path, value, kind):
    from toolkit import corpora

    path = tmp_path / "odd.jsonl"
    path.write_text('{"text": "She is great."}\n{"text": ' + value + '}\n')
    with pytest.raises(CorpusError, match=rf"line 2: 'text' is a JSON {kind}"):
        corpora.load(path)


def test_tab_separated_file_named_csv_says_so(tmp_path):
    from toolkit import corpora
    from toolkit.errors import SchemaError

    path = tmp_path / "tabs.csv"
    path.write_text("text\tlabel\nShe is great.\tpos\n")
    with pytest.raises(SchemaError, match=r"a tab-separated header read as one column.*\.tsv"):
        corpora.load(path)


def test_eec_unknown_subset_fails_before_scoring(monkeypatch):
    from toolkit.errors import UnknownNameError
    from toolkit.studies import eec

    def never(*args, **kwargs):
        raise AssertionError("scored before the subsets were checked")

    monkeypatch.setattr(eec, "score", never)
    with pytest.raises(UnknownNameError, match="unknown subset 'nope'"):
        eec.run(models=["vader"], subsets=["all", "nope"], cache=False)


@pytest.mark.parametrize("kwargs", [{"theta": "0.2"}, {"thetas": ["a"]}, {"thetas": [0.1, 1.5]}, {"theta": True}])
def test_btcsam_thresholds_of_the_wrong_kind_are_tk102(kwargs):
    from toolkit.studies import btcsam, psa

    cases = psa.generate(corpus_of(["She is great.", "He is awful."]), n=2)
    with pytest.raises(InputError, match="theta must be a score difference in"):
        btcsam.run(sets={"psa": cases}, models="vader", cache=False, **kwargs)


@pytest.mark.parametrize("thresholds", [[1.5], ["x"], [-0.1, 0.5], []])
def test_psa_label_dist_thresholds_outside_the_valence_scale_are_tk102(thresholds):
    from toolkit.studies import psa

    cases = psa.generate(corpus_of(["She is great.", "He is awful."]), n=2)
    with pytest.raises(InputError, match=r"thresholds must be numbers in \[0, 1\]"):
        psa.run(cases=cases, models="vader", cache=False, n_boot=10, thresholds=thresholds)


def test_notebook_annotation_reader_gives_a_coded_error_and_takes_the_formula_guard_off(tmp_path):
    from toolkit.errors import SchemaError
    from toolkit.studies import biasfinder
    from toolkit.studies.biasfinder.annotation import upsert_annotation

    bad = tmp_path / "bad.csv"
    bad.write_text("id,who,ok\n1,a,yes\n")
    with pytest.raises(SchemaError, match="lacks columns"):
        biasfinder.read_annotations(bad)
    good = tmp_path / "good.csv"
    for variant in ("a", "b"):
        upsert_annotation(good, {"btc_id": "1", "variant": variant, "annotator": "=cmd", "coherent": "yes",
                                 "sentiment": "positive"})
    assert biasfinder.read_annotations(good)["annotator"].tolist() == ["=cmd", "=cmd"]


def test_biasfinder_templates_a_repeated_review_once_with_duplicates_drop():
    from toolkit import corpora
    from toolkit.studies import biasfinder

    sample = corpora.load("sample")
    review = sample["text"].iloc[0]
    once = biasfinder.generate(corpus_of([review]), instances=["gender"], n_names=2)
    with pytest.warns(UserWarning, match="19 of 20 reviews repeat an earlier one word for word"):
        copies = biasfinder.generate(corpus_of([review] * 20), instances=["gender"], n_names=2, duplicates="drop")
    assert len(copies) == len(once) > 0
    assert copies.attrs["generation_report"]["duplicates_skipped"] == 19


def test_biasfinder_keeps_repeated_reviews_by_default_as_its_generator_does_and_says_so():
    from toolkit import corpora
    from toolkit.studies import biasfinder

    review = corpora.load("sample")["text"].iloc[0]
    once = biasfinder.generate(corpus_of([review]), instances=["gender"], n_names=2)
    with pytest.warns(UserWarning, match="3 of 4 reviews repeat.*duplicates='drop'"):
        copies = biasfinder.generate(corpus_of([review] * 4), instances=["gender"], n_names=2)
    assert len(copies) == 4 * len(once)
    report = copies.attrs["generation_report"]
    assert (report["duplicates"], report["duplicate_reviews"], report["duplicates_skipped"]) == ("keep", 3, 0)


@pytest.mark.parametrize("kwargs, pattern", [({"n_names": "ten"}, "n_names must be a whole number"),
                                             ({"n_process": 0}, "n_process must be a whole number from 1"),
                                             ({"n_country_names": -1}, "n_country_names must be")])
def test_biasfinder_generate_checks_its_counts_before_parsing(kwargs, pattern):
    from toolkit.studies import biasfinder

    with pytest.raises(InputError, match=pattern):
        biasfinder.generate(corpus_of(["She is a fine actor."]), **kwargs)


def test_numpy_numbers_are_accepted_as_counts_and_as_engine_options():
    import numpy as np

    from toolkit import checks
    from toolkit.scoring import score

    assert checks.count(np.int64(3), name="n") == 3 and checks.count(np.float32(3.0), name="n") == 3
    with pytest.raises(InputError):
        checks.count(np.bool_(True), name="n")
    scored = score(_cases(["good", "bad"]), models="vader", cache=False, n_jobs=np.int64(1),
                   batch_tokens=np.int32(64))
    assert len(scored) == 2
