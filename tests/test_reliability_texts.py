"""Round three, inputs: Unicode forms of one text, duplicate text headers, CSV fields over 128 KiB, ``max_chars``
above spaCy's limit, names that look alike, frames as corpora, malformed BTC-SAM files and test sets."""
from __future__ import annotations

import unicodedata
from pathlib import Path

import pandas as pd
import pytest

from toolkit.errors import CorpusError, InputError, SchemaError

COMPOSED = "Café crème was naïve but the señor's piñata was great"
DECOMPOSED = unicodedata.normalize("NFD", COMPOSED)


def _cases(texts: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"case_id": [f"c{i}" for i in range(len(texts))],
                         "variant_id": [f"v{i}" for i in range(len(texts))], "text": texts, "attribute": "name",
                         "group": "", "fill": "", "generator": "external:test", "template": "", "is_original": True})


# -- NFC vs NFD ---------------------------------------------------------------------------------------------------

def test_the_two_unicode_forms_of_one_text_load_as_one_text_and_score_alike(tmp_path):
    from toolkit import corpora
    from toolkit.models import load

    assert DECOMPOSED != COMPOSED
    (tmp_path / "nfd.csv").write_text(f"text\n{DECOMPOSED}\n", encoding="utf-8")
    (tmp_path / "nfc.csv").write_text(f"text\n{COMPOSED}\n", encoding="utf-8")
    nfd, nfc = corpora.load(tmp_path / "nfd.csv"), corpora.load(tmp_path / "nfc.csv")
    assert nfd["text"].tolist() == [COMPOSED] == nfc["text"].tolist()
    assert nfd.attrs["corpus_report"]["unicode_normalised"] == 1
    assert nfc.attrs["corpus_report"]["unicode_normalised"] == 0
    assert nfd.attrs["corpus_report"]["unicode_form"] == "NFC"
    afinn = load("afinn")
    assert afinn.predict(nfd["text"].tolist()).score[0] == afinn.predict(nfc["text"].tolist()).score[0]
    # the same model reads the raw forms differently: what normalising prevents
    raw = afinn.predict([COMPOSED, DECOMPOSED]).score
    assert raw[0] != raw[1]


def test_unicode_form_none_keeps_texts_as_read_and_bad_forms_are_tk102(tmp_path):
    from toolkit import corpora

    (tmp_path / "nfd.csv").write_text(f"text\n{DECOMPOSED}\n", encoding="utf-8")
    kept = corpora.load(tmp_path / "nfd.csv", unicode_form=None)
    assert kept["text"].tolist() == [DECOMPOSED] and kept.attrs["corpus_report"]["unicode_normalised"] == 0
    with pytest.raises(InputError, match=r"unicode_form must be one of"):
        corpora.load(tmp_path / "nfd.csv", unicode_form="NFX")


def test_engine_warns_and_counts_texts_not_in_nfc():
    from toolkit.scoring import score

    with pytest.warns(UserWarning, match=r"1 of 2 distinct texts are not in Unicode normal form NFC"):
        scored = score(_cases([COMPOSED, DECOMPOSED]), models="afinn", cache=False)
    assert scored.attrs["not_nfc"] == 1


# -- headers and field sizes --------------------------------------------------------------------------------------

@pytest.mark.parametrize("header", ["text,text", "review,text,text", "text,label,label"])
def test_duplicate_text_or_label_header_is_tk104_naming_the_column(tmp_path, header):
    from toolkit import corpora

    width = header.count(",") + 1
    (tmp_path / "dup.csv").write_text(header + "\n" + ",".join(f"v{i}" for i in range(width)) + "\n")
    twice = "label" if header.endswith("label,label") else "text"
    with pytest.raises(CorpusError, match=rf"\[TK104\] .*names the column '{twice}' 2 times in its header"):
        corpora.load(tmp_path / "dup.csv")


def test_duplicate_text_key_in_a_jsonl_object_is_tk104(tmp_path):
    from toolkit import corpora

    (tmp_path / "dup.jsonl").write_text('{"text": "first", "text": "second"}\n')
    with pytest.raises(CorpusError, match=r"line 1 is not valid JSON: the key 'text' is given twice"):
        corpora.load(tmp_path / "dup.jsonl")


def test_unrelated_duplicate_columns_are_left_alone(tmp_path):
    from toolkit import corpora

    (tmp_path / "ok.csv").write_text("note,note,text\na,b,a good film\n")
    assert corpora.load(tmp_path / "ok.csv")["text"].tolist() == ["a good film"]


def test_a_well_formed_csv_field_over_128_kib_loads_whole(tmp_path):
    import csv

    from toolkit import corpora

    long_text = "a good film " * 14_000  # 168,000 characters: over csv's default 131,072
    (tmp_path / "big.csv").write_text(f'text\n"{long_text}"\nshort one\n')
    before = csv.field_size_limit()
    frame = corpora.load(tmp_path / "big.csv")
    assert frame["text"].tolist() == [long_text.strip(), "short one"]
    assert csv.field_size_limit() == before  # the process-wide limit is put back


def test_an_unbalanced_quote_in_a_big_file_is_still_named_as_such(tmp_path):
    from toolkit import corpora

    (tmp_path / "bad.csv").write_text('text\n"' + "x" * 200_000 + '\nnext"line"\n')
    with pytest.raises(CorpusError, match=r"malformed in the record starting at line 2"):
        corpora.load(tmp_path / "bad.csv")


# -- max_chars above spaCy's limit --------------------------------------------------------------------------------

def test_max_chars_above_spacys_limit_is_tk102_before_parsing():
    from conftest import corpus_of

    from toolkit.studies import biasfinder

    with pytest.raises(InputError, match=r"max_chars must be a whole number from 1 to 1,000,000; got 2,000,000"):
        biasfinder.generate(corpus_of(["He is a nurse. " * 10]), max_chars=2_000_000)
    with pytest.raises(InputError, match=r"max_chars must be a whole number from 1 to 1,000,000"):
        biasfinder.run(corpus=corpus_of(["He is a nurse."]), models=["afinn"], max_chars=1_000_001, cache=False)


def test_cli_max_chars_above_spacys_limit_is_tk102(tmp_path, capsys):
    from toolkit.__main__ import main

    code = main(["biasfinder", "--model", "afinn", "--max-chars", "1500000", "--out", str(tmp_path / "o"),
                 "--no-cache"])
    assert code == 2 and "max_chars must be a whole number from 1 to 1,000,000" in capsys.readouterr().err


def test_a_review_over_spacys_limit_is_skipped_and_counted_at_the_largest_max_chars(monkeypatch):
    from conftest import corpus_of

    from toolkit.studies import biasfinder
    from toolkit.studies.biasfinder import generator as generator

    monkeypatch.setattr(generator, "SPACY_MAX_CHARS", 1_000)  # the same guard at a size a test can parse
    long_review = "He said that he liked the film and his wife did too. " * 40  # 2,160 characters
    with pytest.raises(InputError, match=r"no review survived .*too long skipped: 1"):
        biasfinder.generate(corpus_of([long_review]), instances=["gender"], max_chars=1_000)


# -- names that look alike ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant, says", [
    ("alice", r"'Alice' = 'alice'"), ("Alice ", r"'Alice' = 'Alice '"), (" Alice", r"'Alice' = ' Alice'"),
    ("\u0410lice", r"'Alice' = '\u0410lice'"), ("A\u200blice", r"invisible character\(s\) U\+200B"),
    ("Ａｌｉｃｅ", r"'Alice' = 'Ａｌｉｃｅ'"),
], ids=["case", "trailing-space", "leading-space", "cyrillic-A", "zero-width", "full-width"])
def test_psa_names_that_differ_only_in_form_are_tk101_naming_them(variant, says):
    from toolkit.studies.psa.generator import load_names

    names = pd.DataFrame({"name": ["Alice", variant, "Bob"], "gender": ["female", "female", "male"],
                          "category": "x"})
    with pytest.raises(SchemaError, match=r"\[TK101\] PSA names table: .*" + says):
        load_names(names)


def test_distinct_names_pass_and_the_key_folds_only_what_a_reader_cannot_see():
    from toolkit.lookalike import check_distinct, name_key

    check_distinct(["Alice", "Alicia", "Alec", "Ali", "José", "Jose"], what="names")  # accents are letters
    assert name_key(" Al\u200bice ") == name_key("ALICE") == name_key("\u0410lice") == "alice"
    assert name_key("Bob  Smith") == name_key("bob smith")


def test_btcsam_identity_terms_that_look_alike_are_refused_before_any_llm_call():
    from toolkit.studies.btcsam.generator.stages import generate

    class NoLLM:
        def ask(self, *args, **kwargs):
            raise AssertionError("the LLM must not be asked")

    with pytest.raises(SchemaError, match=r"identity terms of 'religion': .*'Muslim' = 'muslim '"):
        generate(NoLLM(), identity_terms={"religion": ["Muslim", "Christian", "muslim "]})
    with pytest.raises(InputError, match=r"needs at least two identity terms"):
        generate(NoLLM(), identity_terms={"religion": "Muslim"})


# -- frames as corpora --------------------------------------------------------------------------------------------

def test_from_frame_derives_doc_id_label_and_corpus_and_reads_a_review_column():
    from toolkit import corpora

    frame = corpora.from_frame(pd.DataFrame({"review": ["a good film", "a bad one"], "sentiment": ["pos", "neg"]}))
    assert list(frame.columns[:4]) == list(corpora.CORPUS_COLUMNS)
    assert frame["doc_id"].tolist() == ["frame:0", "frame:1"] and frame["text"].tolist() == ["a good film",
                                                                                               "a bad one"]
    assert frame["label"].tolist() == ["pos", "neg"] and (frame["corpus"] == "frame").all()
    loaded = corpora.load("sample")
    assert corpora.from_frame(loaded) is loaded  # a loaded corpus passes as it is


@pytest.mark.parametrize("frame, pattern", [
    (pd.DataFrame({"body": ["x"]}), r"has no text column; its columns: body"),
    (pd.DataFrame({"text": ["x", None]}), r"holds nan \(float\) in row 1, not a string"),
    (pd.DataFrame({"text": ["x", 3]}), r"holds 3 \(int\)"),
    ([{"text": "x"}], r"got list"),
])
def test_from_frame_refuses_what_is_not_a_corpus_with_tk101(frame, pattern):
    from toolkit import corpora

    with pytest.raises(SchemaError, match=r"\[TK101\] .*" + pattern):
        corpora.from_frame(frame)


def test_psa_run_on_a_frame_with_only_texts_derives_doc_ids():
    from toolkit import corpora
    from toolkit.studies import psa

    texts = corpora.load("sample")["text"].tolist()
    result = psa.run(corpus=pd.DataFrame({"text": texts}), models=["afinn"], n=4, n_boot=200, cache=False)
    assert result.scored["doc_id"].astype(str).str.fullmatch(r"frame:\d+").all()


@pytest.mark.parametrize("study", ["psa", "biasfinder"])
def test_study_run_on_a_frame_without_a_text_column_is_tk101(study):
    import importlib

    module = importlib.import_module(f"toolkit.{study}")
    with pytest.raises(SchemaError, match=r"has no text column; its columns: body"):
        module.run(corpus=pd.DataFrame({"body": ["He is a nurse."]}), models=["afinn"], cache=False)


# -- BTC-SAM files and test sets ----------------------------------------------------------------------------------

@pytest.mark.parametrize("content, pattern", [
    (b"", r"is empty"), (b"  \n\n", r"is empty"), (bytes(range(256)) * 4, r"is binary \(it holds NUL bytes\)"),
    (b"id,bias_type,id_term,sentence\n1,religion,Muslim,caf\xe9\n", r"is not valid UTF-8 \(line 2"),
    (b'id,bias_type,id_term,sentence\n1,religion,"Muslim,x\n', r"is not a readable CSV"),
], ids=["empty", "blank", "binary", "latin-1", "open-quote"])
def test_btcsam_load_sets_on_a_broken_file_is_tk104(tmp_path, content, pattern):
    from toolkit.studies.btcsam import load_sets

    (tmp_path / "baseline_output.csv").write_bytes(content)
    with pytest.raises(CorpusError, match=r"\[TK104\] BTC-SAM release file 'baseline_output.csv' " + pattern):
        load_sets(["baseline"], root=tmp_path)


@pytest.mark.parametrize("cases, name, error, pattern", [
    (pd.DataFrame({"x": [1]}), "x", SchemaError, r"missing column 'case_id'"),
    ([1, 2], "x", SchemaError, r"must be a pandas DataFrame, got list"),
    (None, "", InputError, r"needs a name, a non-empty string; got ''"),
    (None, 3, InputError, r"got 3"),
])
def test_as_test_set_on_a_bad_frame_or_name_is_coded(eec_cases, cases, name, error, pattern):
    from toolkit.studies.btcsam import as_test_set

    with pytest.raises(error, match=pattern):
        as_test_set(eec_cases if cases is None else cases, name=name)


# -- found while probing: lone surrogates, blank names ------------------------------------------------------------

def test_jsonl_text_with_a_lone_surrogate_escape_is_tk104_naming_the_line(tmp_path):
    from toolkit import corpora

    (tmp_path / "s.jsonl").write_text('{"text": "fine"}\n{"text": "good \\ud800 film"}\n')
    with pytest.raises(CorpusError, match=r"line 2: 'text' holds a lone surrogate escape \(U\+D800\)"):
        corpora.load(tmp_path / "s.jsonl")
    (tmp_path / "pair.jsonl").write_text('{"text": "good \\ud83d\\ude00 film"}\n')
    assert corpora.load(tmp_path / "pair.jsonl")["text"].tolist() == ["good \U0001F600 film"]


def test_case_table_text_with_a_lone_surrogate_is_tk101_naming_the_row():
    from toolkit.scoring import score

    cases = _cases(["ok", "x"]).astype({"text": object})
    cases.loc[1, "text"] = "good \ud800 film"
    with pytest.raises(SchemaError, match=r"\[TK101\] the text of row 1 \(variant 'v1'\) holds U\+D800, a lone "
                                          r"surrogate, at position 5"):
        score(cases, models="vader", cache=False)


@pytest.mark.parametrize("name, pattern", [(" ", r"entry 1 is empty or blank"), (None, r"row 1 has an empty cell"),
                                           ("\u200b", r"entry 1 is empty or blank")])
def test_psa_blank_or_missing_names_are_tk101(name, pattern):
    from toolkit.studies.psa.generator import load_names

    names = pd.DataFrame({"name": ["Alice", name], "gender": ["female", "male"], "category": "x"})
    with pytest.raises(SchemaError, match=pattern):
        load_names(names)


@pytest.mark.parametrize("content, pattern", [
    (b"name,gender,category\nJos\xe9,male,x\n", r"is not valid utf-8 \(line 2"),
    (b"", r"is empty"),
    (b"name,name,gender,category\nA,B,male,x\n", r"names the column 'name' 2 times"),
    (b'name,gender,category\n"Ann,female,x\nBob,male,x\n', r"malformed in the record starting at line 2"),
    (b"name,gender,category\n,male,x\n", r"entry 0 is empty or blank"),
], ids=["latin-1", "empty", "name-twice", "open-quote", "blank-name"])
def test_psa_names_file_is_read_strictly(tmp_path, content, pattern):
    from toolkit.errors import ToolkitError
    from toolkit.studies.psa.generator import load_names

    (tmp_path / "names.csv").write_bytes(content)
    with pytest.raises(ToolkitError, match=pattern):
        load_names(tmp_path / "names.csv")
