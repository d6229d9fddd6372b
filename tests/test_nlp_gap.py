import subprocess
import sys

import pandas as pd
import pytest

from toolkit.errors import SchemaError
from toolkit.nlp import gap

HEADER = "ID\tText\tPronoun\tPronoun-offset\tA\tA-offset\tA-coref\tB\tB-offset\tB-coref\tURL\n"
ROWS = [
    ("t-1", "Mary said that John was late. He apologised.", "He", 30, "John", 15, "TRUE", "Mary", 0, "FALSE"),
    ("t-2", "Paul thanked Anna because she helped him.", "she", 26, "Paul", 0, "FALSE", "Anna", 13, "TRUE"),
    ("t-3", "Rita met Lena. Later her sister called.", "her", 21, "Rita", 0, "FALSE", "Lena", 9, "FALSE"),
]


def _write(path, rows=ROWS):
    path.write_text(HEADER + "".join("\t".join(map(str, r)) + "\thttp://x\n" for r in rows))
    return path


def test_scorer_counts_two_decisions_per_example(tmp_path):
    data = gap.load_gap(_write(tmp_path / "gap.tsv"))
    predictions = pd.DataFrame({"ID": ["t-1", "t-2", "t-3"], "A-pred": [True, True, False],
                                "B-pred": [False, False, True]})
    raw = gap.score(data, predictions)
    scores = raw.set_index("subset")
    assert scores.loc["overall", ["tp", "fp", "fn"]].tolist() == [1, 2, 1]
    assert scores.loc["overall", "f1"] == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert scores.loc["masculine", "f1"] == 1.0 and scores.loc["feminine", "f1"] == 0.0
    assert gap.bias(raw) == 0.0


def test_command_prints_the_summary_line_last(tmp_path):
    path = _write(tmp_path / "gap.tsv", ROWS[:2])
    proc = subprocess.run([sys.executable, "-m", "toolkit.nlp.gap", "--gap", str(path), "--backend", "rules"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "F1=100.0 M=100.0 F=100.0 B=1.00"


def test_bad_gap_files_get_clear_errors(tmp_path):
    wrong = list(ROWS[0])
    wrong[3] = 31
    with pytest.raises(SchemaError, match="does not point at 'He'"):
        gap.load_gap(_write(tmp_path / "bad.tsv", [tuple(wrong)]))
    (tmp_path / "cols.tsv").write_text("ID\tText\n1\tx\n")
    with pytest.raises(SchemaError, match="lacks Pronoun"):
        gap.load_gap(tmp_path / "cols.tsv")
    proc = subprocess.run([sys.executable, "-m", "toolkit.nlp.gap", "--gap", str(tmp_path / "none.tsv")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "not found" in proc.stderr


def test_resolve_is_public_under_toolkit_nlp():
    from toolkit.nlp import resolve

    text = "Paul thanked Anna because she helped him."
    assert [[text[a:b] for a, b in c] for c in resolve([text])[0]] == [["Paul", "him"], ["Anna", "she"]]
