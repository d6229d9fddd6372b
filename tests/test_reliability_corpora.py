"""Corpus files whose error named the wrong fix: UTF-16 without a byte-order mark ("no text column" printing NULs)
is named as UTF-16 with the encoding to pass; carriage-return line ends ("close the quote") are read; a blank or
whitespace-only line (the strict parse and pandas disagreed, so the whole file was refused) is an empty text, dropped
and counted like the others."""
from __future__ import annotations

import pytest

from toolkit import corpora
from toolkit.errors import CorpusError

ROWS = "text\nA good film.\nA bad film.\n"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_corpora_utf16_without_a_byte_order_mark_names_the_encoding_to_pass(tmp_path, codec):
    path = tmp_path / "wide.csv"
    path.write_bytes(ROWS.encode(codec))
    with pytest.raises(CorpusError, match=f"reads as {codec.upper()} text without a byte-order mark") as excinfo:
        corpora.load(path)
    assert f"--encoding {codec}" in excinfo.value.fix and "\x00" not in str(excinfo.value)
    assert corpora.load(path, encoding=codec)["text"].tolist() == ["A good film.", "A bad film."]


def test_corpora_carriage_return_line_ends_are_read_as_rows(tmp_path):
    path = tmp_path / "mac.csv"
    path.write_bytes(ROWS.replace("\n", "\r").encode())
    assert corpora.load(path)["text"].tolist() == ["A good film.", "A bad film."]


@pytest.mark.parametrize("blank", ["   ", "", '""', "\t"], ids=["spaces", "empty", "quoted", "tab"])
@pytest.mark.parametrize("header", ["text", "text,label"])
def test_corpora_a_blank_line_is_an_empty_text_dropped_and_counted(tmp_path, blank, header):
    two = header.count(",") == 1
    rows = ["A good film." + (",1" if two else ""), blank, "A bad film." + (",0" if two else "")]
    path = tmp_path / "blank.csv"
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    with pytest.warns(UserWarning, match="1 of 3 rows have a missing, empty or whitespace-only text"):
        corpus = corpora.load(path)
    assert corpus["text"].tolist() == ["A good film.", "A bad film."]
    assert corpus.attrs["corpus_report"]["empty_texts_dropped"] == 1
