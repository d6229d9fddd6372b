"""``corpora.load`` on the aclImdb layout (Maas et al. 2011): the unpacked folder and the tarball, built here from
hand-written reviews; every expected value is written out by hand."""
from __future__ import annotations

import hashlib
import io
import tarfile
import warnings

import pytest

from toolkit import corpora
from toolkit.errors import CorpusError, InputError

REVIEWS = {  # path under aclImdb/ -> the file's text
    "train/pos/200_8.txt": "A warm, funny film.<br /><br />She was superb.",
    "train/pos/13_10.txt": "The best film of the year. I loved <i>every</i> minute.",
    "train/pos/9_7.txt": "Pleasant enough, if <b>slight</b>.",
    "train/neg/7_2.txt": "Dull &amp; far too long.",
    "train/neg/45_1.txt": "   \n",  # whitespace only: dropped, counted, warned about
    "train/unsup/9_0.txt": "Nobody rated this one.",
    "test/pos/3_9.txt": "He gave a wonderful performance.",
    "test/neg/11_4.txt": "Ce film était ennuyeux et les acteurs étaient vraiment très mauvais.",
    "test/neg/0_3.txt": "It was not good. The plot made no sense.",
}
# sorted by split, label folder (neg before pos) and numeric ID (9 < 13 < 200, unlike the names' string order)
DOC_IDS = ["test/neg/0_3", "test/neg/11_4", "test/pos/3_9", "train/neg/7_2", "train/pos/9_7", "train/pos/13_10",
           "train/pos/200_8"]
TEXTS = ["It was not good. The plot made no sense.",
         "Ce film était ennuyeux et les acteurs étaient vraiment très mauvais.",
         "He gave a wonderful performance.",
         "Dull & far too long.",
         "Pleasant enough, if slight.",
         "The best film of the year. I loved every minute.",
         "A warm, funny film. She was superb."]
LABELS = ["negative", "negative", "positive", "negative", "positive", "positive", "positive"]
RATINGS = [3, 4, 9, 2, 7, 10, 8]


def _tree(root, reviews=REVIEWS, *, encoding="utf-8"):
    for relative, text in reviews.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode(encoding))
    return root


def _tarball(path, reviews=REVIEWS, *, top="aclImdb", encoding="utf-8", mode="w:gz"):
    """A gzipped tar of ``reviews`` under ``top/``, members in reverse order (the loader must sort), no folder
    entries; plus the extra files the real archive holds."""
    members = {f"{top}/{relative}": text.encode(encoding) for relative, text in reversed(reviews.items())}
    members.update({f"{top}/imdb.vocab": b"the\nand\n", f"{top}/train/urls_pos.txt": b"http://example.org\n"})
    with tarfile.open(path, mode) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _load(source, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return corpora.load(source, **kwargs)


def _report_of(source, **kwargs):
    report = {}
    _load(source, report=report, **kwargs)
    return report


def test_aclimdb_folder_loads_with_doc_id_rating_label_in_order(tmp_path):
    with pytest.warns(UserWarning) as caught:
        corpus = corpora.load(_tree(tmp_path / "aclImdb"), report=(corpus_report := {}))
    assert list(corpus.columns) == ["doc_id", "text", "label", "corpus", "rating"]
    assert corpus["doc_id"].tolist() == DOC_IDS
    assert corpus["text"].tolist() == TEXTS
    assert corpus["label"].tolist() == LABELS
    assert corpus["rating"].tolist() == RATINGS and str(corpus["rating"].dtype) == "int64"
    assert corpus["corpus"].eq("aclImdb").all() and corpus.index.tolist() == list(range(7))
    report = corpus_report
    assert {k: report[k] for k in ("rows_read", "empty_texts_dropped", "html_stripped", "non_english", "rows",
                                   "unsup_skipped", "hidden_skipped", "splits", "layout")} == {
        "rows_read": 8, "empty_texts_dropped": 1, "html_stripped": 3, "non_english": 1, "rows": 7,
        "unsup_skipped": 1, "hidden_skipped": 0, "splits": ["test", "train"], "layout": "aclImdb folder"}
    assert report["source"] == str((tmp_path / "aclImdb").resolve())
    messages = [str(w.message) for w in caught]
    assert any("1 of 8 rows have a missing, empty or whitespace-only text" in m for m in messages)
    assert any("1 of 7 texts do not look English" in m for m in messages)


@pytest.mark.parametrize("file_name, mode", [("aclImdb_v1.tar.gz", "w:gz"), ("aclImdb.tgz", "w:gz"),
                                             ("aclImdb.tar", "w"), ("aclImdb.tar.xz", "w:xz")])
def test_aclimdb_tarball_gives_exactly_the_folders_frame(tmp_path, file_name, mode):
    folder = _load(_tree(tmp_path / "aclImdb"), report=(folder_report := {}))
    archive = _tarball(tmp_path / file_name, mode=mode)
    streamed = _load(archive, report=(streamed_report := {}))
    assert streamed.equals(folder) and streamed["doc_id"].tolist() == DOC_IDS
    tar_report, folder_report = streamed_report, folder_report
    assert tar_report["sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest()  # the archive's own digest
    assert tar_report["layout"] == "aclImdb tarball" and tar_report["source"] == str(archive.resolve())
    assert tar_report["content_sha256"] == folder_report["content_sha256"] == folder_report["sha256"]
    same = ("rows_read", "empty_texts_dropped", "html_stripped", "non_english", "rows", "unsup_skipped", "splits")
    assert {k: tar_report[k] for k in same} == {k: folder_report[k] for k in same}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["aclImdb", file_name])  # nothing unpacked


def test_aclimdb_content_digest_is_sha256sum_of_the_reviews_in_row_order(tmp_path):
    _load(_tree(tmp_path / "aclImdb"), report=(corpus_report := {}))
    read = ["test/neg/0_3.txt", "test/neg/11_4.txt", "test/pos/3_9.txt", "train/neg/7_2.txt", "train/neg/45_1.txt",
            "train/pos/9_7.txt", "train/pos/13_10.txt", "train/pos/200_8.txt"]  # the empty review is read too
    lines = "".join(f"{hashlib.sha256(REVIEWS[r].encode()).hexdigest()}  {r}\n" for r in read)
    assert corpus_report["content_sha256"] == hashlib.sha256(lines.encode()).hexdigest()


def test_top_folder_and_split_folder_share_doc_ids(tmp_path):
    root = _tree(tmp_path / "aclImdb")
    train = _load(root / "train", report=(train_report := {}))
    assert train["doc_id"].tolist() == ["train/neg/7_2", "train/pos/9_7", "train/pos/13_10", "train/pos/200_8"]
    assert train["rating"].tolist() == [2, 7, 10, 8] and train["corpus"].eq("aclImdb").all()
    assert train_report["splits"] == ["train"]
    test = _load(f"{root / 'test'}/", report=(test_report := {}))  # a trailing slash, as typed in a shell
    assert test["doc_id"].tolist() == ["test/neg/0_3", "test/neg/11_4", "test/pos/3_9"]
    assert test_report["unsup_skipped"] == 0
    whole = _load(root)
    assert whole.iloc[3:].reset_index(drop=True).equals(train)
    assert whole.iloc[:3].reset_index(drop=True).equals(test)


def test_unsup_is_skipped_by_default_and_kept_unlabelled_on_request(tmp_path):
    root = _tree(tmp_path / "aclImdb")
    assert "train/unsup/9_0" not in _load(root)["doc_id"].tolist()
    for source in (root, _tarball(tmp_path / "aclImdb_v1.tar.gz")):
        corpus = _load(source, unsup=True, report=(corpus_report := {}))
        assert corpus["doc_id"].tolist() == DOC_IDS + ["train/unsup/9_0"]
        last = corpus.iloc[-1]
        assert (last["text"], last["label"], last["rating"]) == ("Nobody rated this one.", "", 0)
        assert corpus_report["unsup_skipped"] == 0
    assert _report_of(tmp_path / "aclImdb_v1.tar.gz")["unsup_skipped"] == 1


def test_limit_takes_the_first_reviews_after_empty_ones_are_dropped(tmp_path):
    root = _tree(tmp_path / "aclImdb")
    for source in (root / "train", _tarball(tmp_path / "aclImdb_v1.tar.gz", {
            k: v for k, v in REVIEWS.items() if k.startswith("train/")})):
        corpus = _load(source, limit=2, report=(corpus_report := {}))
        assert corpus["doc_id"].tolist() == ["train/neg/7_2", "train/pos/9_7"]  # 45_1 (empty) does not count
        assert corpus["rating"].tolist() == [2, 7]
        report = corpus_report
        assert (report["rows"], report["rows_read"], report["empty_texts_dropped"]) == (2, 5, 1)


@pytest.mark.parametrize("bad", ["train/pos/200.txt", "train/neg/7_2.text", "test/pos/notes.md", "test/neg/x_3.txt"])
def test_a_misnamed_review_is_a_coded_error_naming_the_file(tmp_path, bad):
    reviews = {**REVIEWS, bad: "A review with a bad file name."}
    with pytest.raises(CorpusError, match="not a review named ID_RATING.txt") as info:
        _load(_tree(tmp_path / "aclImdb", reviews))
    assert info.value.code == "TK104" and bad in str(info.value)
    with pytest.raises(CorpusError, match="not a review named ID_RATING.txt") as info:
        _load(_tarball(tmp_path / "aclImdb_v1.tar.gz", reviews))
    assert f"aclImdb/{bad}" in str(info.value) and "aclImdb_v1.tar.gz" in str(info.value)


def test_a_misnamed_unsup_file_is_checked_only_when_unsup_is_kept(tmp_path):
    root = _tree(tmp_path / "aclImdb", {**REVIEWS, "train/unsup/readme.txt": "not a review"})
    assert _load(root)["doc_id"].tolist() == DOC_IDS
    with pytest.raises(CorpusError, match="readme.txt"):
        _load(root, unsup=True)


def test_hidden_files_are_skipped_and_counted(tmp_path):
    extra = {"train/pos/.DS_Store": "\x00", "train/neg/._7_2.txt": "\x00\x05",  # Finder and AppleDouble files
             "train/unsup/._9_0.txt": "\x00"}  # in a folder not read: not counted
    for source in (_tree(tmp_path / "aclImdb", {**REVIEWS, **extra}),
                   _tarball(tmp_path / "aclImdb_v1.tar.gz", {**REVIEWS, **extra})):
        corpus = _load(source, report=(corpus_report := {}))
        assert corpus["doc_id"].tolist() == DOC_IDS
        report = corpus_report
        assert (report["hidden_skipped"], report["unsup_skipped"]) == (2, 1)
        assert _report_of(source, unsup=True)["hidden_skipped"] == 3


def test_a_folder_that_is_not_aclimdb_is_tk102_naming_the_accepted_layouts(tmp_path):
    plain = tmp_path / "reviews"
    (plain / "pos_reviews").mkdir(parents=True)
    (plain / "reviews.csv").write_text("text\nfine\n")
    with pytest.raises(InputError, match="unknown format") as info:
        corpora.load(plain)
    assert info.value.code == "TK102"
    assert "aclImdb/" in info.value.fix and "pos/ and neg/" in info.value.fix and "ID_RATING.txt" in info.value.fix
    assert "CSV/TSV/JSONL" in info.value.fix and "aclImdb_v1.tar.gz" in info.value.fix
    with pytest.raises(InputError, match="unknown format"):
        corpora.load(_tree(tmp_path / "aclImdb", REVIEWS) / "train" / "pos")  # one level too deep


def test_a_tarball_without_reviews_is_tk102_and_a_broken_one_tk104(tmp_path):
    archive = tmp_path / "other.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("data/reviews.csv")
        info.size = 10
        tar.addfile(info, io.BytesIO(b"text\nfine\n"))
    with pytest.raises(InputError, match="unknown format") as info:
        corpora.load(archive)
    assert info.value.code == "TK102" and "ID_RATING.txt" in info.value.fix
    truncated = tmp_path / "aclImdb_v1.tar.gz"
    truncated.write_bytes(_tarball(tmp_path / "full.tar.gz").read_bytes()[:300])
    with pytest.raises(CorpusError, match="cannot be read") as info:
        corpora.load(truncated)
    assert info.value.code == "TK104"


def test_aclimdb_reviews_are_decoded_with_the_encoding_given(tmp_path):
    reviews = {"test/pos/1_8.txt": "A café scene he adored.", "test/neg/2_3.txt": "Dull."}
    root = _tree(tmp_path / "aclImdb", reviews, encoding="cp1252")
    archive = _tarball(tmp_path / "aclImdb_v1.tar.gz", reviews, encoding="cp1252")
    with pytest.raises(CorpusError, match=r"not valid utf-8 \(line 1") as info:
        corpora.load(root)
    assert "1_8.txt" in str(info.value) and info.value.code == "TK104"
    with pytest.raises(CorpusError, match="aclImdb/test/pos/1_8.txt"):
        corpora.load(archive)
    for source in (root, archive):
        corpus = corpora.load(source, encoding="cp1252", report=(corpus_report := {}))
        assert corpus["text"].tolist() == ["Dull.", "A café scene he adored."]
        assert corpus_report["encoding"] == "cp1252"


def test_name_overrides_the_corpus_name(tmp_path):
    corpus = _load(_tree(tmp_path / "aclImdb") / "test", name="imdb-test")
    assert corpus["corpus"].eq("imdb-test").all() and corpus["doc_id"].iloc[0] == "test/neg/0_3"
