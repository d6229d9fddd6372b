import pandas as pd
import pytest

from toolkit import corpora
from toolkit.errors import InputError, SchemaError


def test_bundled_sample_corpus_loads():
    corpus = corpora.load("sample")
    assert list(corpus.columns) == list(corpora.CORPUS_COLUMNS)
    assert len(corpus) >= 50 and set(corpus["label"]) == {"positive", "negative"}
    assert corpus["corpus"].eq("sample").all() and corpus["doc_id"].is_unique


def test_imdb_style_csv_is_cleaned(tmp_path):
    path = tmp_path / "reviews.csv.gz"
    pd.DataFrame({"review": ["Great.<br /><br />He was   superb.", "Bad."], "sentiment": ["positive", "negative"],
                  "rating": [9, 2]}).to_csv(path, index=False)
    corpus = corpora.load(path)
    assert corpus["text"].tolist() == ["Great. He was superb.", "Bad."]
    assert corpus["label"].tolist() == ["positive", "negative"] and corpus["corpus"].iloc[0] == "reviews"


def test_jsonl_corpus_with_text_column(tmp_path):
    path = tmp_path / "comments.jsonl"
    pd.DataFrame({"text": ["one", "two", None]}).to_json(path, orient="records", lines=True)
    corpus = corpora.load(path, name="comments")
    assert corpus["text"].tolist() == ["one", "two"] and corpus["label"].eq("").all()


def test_corpus_errors_name_the_fix(tmp_path):
    with pytest.raises(InputError, match="not found"):
        corpora.load(tmp_path / "missing.csv")
    path = tmp_path / "bad.csv"
    pd.DataFrame({"body": ["x"]}).to_csv(path, index=False)
    with pytest.raises(SchemaError, match="its columns: body"):
        corpora.load(path)
    odd = tmp_path / "x.parquet"
    odd.write_text("")
    with pytest.raises(InputError, match="unknown format"):
        corpora.load(odd)


def test_clean_reads_c1_controls_as_cp1252_punctuation():
    assert corpora.clean("Reese\x96she said \x93hi\x94<br />ok") == "Reese–she said “hi” ok"


@pytest.mark.parametrize("source", ["", "   ", None, 5, ["reviews.csv"]])
def test_corpora_a_blank_or_non_path_source_is_a_coded_error(source):
    """``source_path`` (the audit checks every corpus with it before anything runs) and ``load``: a blank string
    (which would name the current folder) or a non-path is TK102 naming what to pass, not a TypeError."""
    from toolkit import corpora

    with pytest.raises(InputError, match="must be named by a path or 'sample'") as info:
        corpora.source_path(source)
    assert info.value.code == "TK102" and "'sample'" in info.value.fix
    with pytest.raises(InputError, match="must be named by a path"):
        corpora.load(source)
