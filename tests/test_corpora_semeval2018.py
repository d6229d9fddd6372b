import math

import pytest

from toolkit.corpora import semeval2018
from toolkit.errors import InputError, SchemaError, UnknownNameError

OFFICIAL = ("ID\tTweet\tAffect Dimension\tIntensity Score\n"
            "2017-En-10264\t@xandraaa5 @amayaallyn6 shut up hashtags are cool #offended\tanger\t0.562\n"
            "2017-En-10072\tit makes me so fucking irate jesus. nobody is calling ppl who like hajime abusive stop with "
            "the strawmen lmao\tanger\t0.750\n")
HEADERLESS = ("10941\tAt least I don't have a \"sad\" face, and I'm \"happy\".\tsadness\t0.271\n"
              "10942\tI'm so down today\tsadness\t0.80\n")


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_official_file_with_header_becomes_the_tidy_frame(tmp_path):
    frame = semeval2018.load(_write(tmp_path, "EI-reg-En-anger-train.txt", OFFICIAL))
    assert list(frame.columns) == ["id", "text", "task", "intensity", "split"]
    assert frame["id"].tolist() == ["2017-En-10264", "2017-En-10072"]
    assert frame["intensity"].tolist() == [0.562, 0.75]
    assert set(frame["task"]) == {"anger"} and set(frame["split"]) == {"train"}
    assert frame["text"].iloc[0] == "@xandraaa5 @amayaallyn6 shut up hashtags are cool #offended"


def test_headerless_file_with_bare_numeric_ids_and_quotes(tmp_path):
    frame = semeval2018.load(_write(tmp_path, "EI-reg-En-sadness-dev.txt", HEADERLESS))
    assert frame["id"].tolist() == ["10941", "10942"] and frame["split"].tolist() == ["dev", "dev"]
    assert frame["text"].iloc[0] == 'At least I don\'t have a "sad" face, and I\'m "happy".'
    assert frame["task"].tolist() == ["sadness", "sadness"] and frame["intensity"].tolist() == [0.271, 0.8]


def test_valence_file_and_unscored_test_rows(tmp_path):
    text = OFFICIAL.replace("\tanger\t0.562", "\tvalence\tNONE").replace("\tanger\t0.750", "\tvalence\t0.1")
    frame = semeval2018.load(_write(tmp_path, "Valence-reg-En-test.txt", text), split="test")
    assert set(frame["task"]) == {"valence"} and math.isnan(frame["intensity"].iloc[0])
    assert frame["intensity"].iloc[1] == 0.1


def test_load_dir_reads_every_task_and_split_by_official_name(tmp_path):
    for split in semeval2018.SPLITS:
        _write(tmp_path, semeval2018.file_name("anger", split), OFFICIAL)
    frame = semeval2018.load_dir(tmp_path, tasks=["anger"])
    assert frame.groupby("split").size().to_dict() == {"dev": 2, "test-gold": 2, "train": 2}
    with pytest.raises(InputError, match="EI-reg-En-fear-train.txt is missing"):
        semeval2018.load_dir(tmp_path, tasks=["fear"])


@pytest.mark.parametrize("text, message", [
    ("ID\tTweet\tIntensity\n1\thi\t0.5\n", "not the official"),
    ("1\thi there\tanger\n", "3 tab-separated fields, expected 4"),
    ("1\thi\tanger\thigh\n", "'high' is not a number in"),
    ("1\thi\tanger\t1.5\n", "'1.5' is not a number in"),
    ("1\thi\tsurprise\t0.5\n", "unknown affect dimension 'surprise'"),
    ("1\thi\tanger\t0.5\n2\tho\tjoy\t0.5\n", "mixes affect dimensions"),
    ("1\thi\tanger\t0.5\n1\tho\tanger\t0.5\n", "'1' occurs twice"),
    ("", "is empty"),
])
def test_wrong_files_get_coded_errors(tmp_path, text, message):
    with pytest.raises(SchemaError, match=message) as info:
        semeval2018.load(_write(tmp_path, "x.txt", text))
    assert info.value.code == "TK101" and "SemEval-2018" in str(info.value)


def test_missing_file_and_unknown_task(tmp_path):
    with pytest.raises(InputError, match="not found") as info:
        semeval2018.load(tmp_path / "nope.txt")
    assert info.value.code == "TK102"
    with pytest.raises(UnknownNameError, match="unknown task 'anger2'"):
        semeval2018.file_name("anger2", "train")


@pytest.mark.skipif(not (semeval2018.Path(__file__).parents[2] / "shared" / "data" / "semeval2018").is_dir(),
                    reason="../shared/data/semeval2018 is not on this machine")
def test_the_released_files_have_the_documented_sizes():
    root = semeval2018.Path(__file__).parents[2] / "shared" / "data" / "semeval2018"
    sizes = semeval2018.load_dir(root).groupby(["task", "split"]).size()
    assert sizes[("anger", "train")] == 1701 and sizes[("valence", "test-gold")] == 937 and len(sizes) == 15
