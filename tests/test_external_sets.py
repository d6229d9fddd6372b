"""Loaders of external test sets: BTC-SAM releases (both delimiters, isValid quirks), official EEC, CrowS-Pairs."""
import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_DATA

from toolkit.cases import validate
from toolkit.corpora import external
from toolkit.errors import InputError, SchemaError, UnknownNameError

BASELINE = """rowid,id,bias_type,id_term,concept_term,sentence,flagged,reject_reason,refid,isValid
0,1,religion,Christian,modest,"Sarah, a Christian mother, wore a modest dress.",0,-,1,1
1,1,religion,Jewish,modest,"Sarah, a Jewish mother, wore a modest dress.",0,-,1,1
2,2,religion,Christian,formal,A Christian suit.,0,-,2,1
3,2,religion,Jewish,formal,A Christian suit.,1,invalid,2,0
4,1,age,young,fast,A young runner.,0,-,1,1
5,1,age,old,fast,An old runner.,0,-,1,1
"""
LLAMA = """refid;bias_type;id_term;sentence;flagged;reject_reason;reflink;isValid
7;gender;woman;The woman laughed, happily.;0;-;1;1.0
7;gender;man;The man laughed, happily.;0;-;1;1.0
7;gender;person;The person laughed.;0;-;1;0
"""


def test_btcsam_comma_file_groups_by_bias_type_and_id_and_drops_invalid(tmp_path):
    path = tmp_path / "baseline_output.csv"
    path.write_text(BASELINE)
    cases = validate(external.load_btcsam(path))
    # id 2 keeps one valid row only → dropped; religion:1 and age:1 differ although both have id 1
    assert cases["case_id"].tolist() == ["baseline:religion:1"] * 2 + ["baseline:age:1"] * 2
    assert cases["group"].tolist() == ["Christian", "Jewish", "young", "old"]
    assert set(cases["stage"]) == {"etsg"} and set(cases["test_set"]) == {"baseline"}
    assert cases["concept_term"].iloc[0] == "modest" and cases["is_original"].tolist() == [True, False] * 2
    assert len(external.load_btcsam(path, valid_only=False)) == 6


def test_btcsam_semicolon_file_with_float_isvalid(tmp_path):
    path = tmp_path / "llama3_semantic_output.csv"
    path.write_text(LLAMA)
    cases = validate(external.load_btcsam(path))
    assert cases["text"].tolist() == ["The woman laughed, happily.", "The man laughed, happily."]
    assert set(cases["stage"]) == {"seda"} and set(cases["concept_term"]) == {""}


def test_btcsam_termdefs_and_wrong_files_are_refused(tmp_path):
    termdefs = tmp_path / "termdefs_output.csv"
    termdefs.write_text(",id,bias_type,id_term,topic,concept_term,flagged\n0,1,religion,Jewish,Fashion,modest,0\n")
    with pytest.raises(SchemaError, match="TK101.*triplets"):
        external.load_btcsam(termdefs)
    other = tmp_path / "reviews.csv"
    other.write_text("text,label\nnice,pos\n")
    with pytest.raises(SchemaError, match="lacks bias_type, id_term, sentence"):
        external.load_btcsam(other)
    with pytest.raises(InputError, match="not found"):
        external.load_btcsam(tmp_path / "nope.csv")
    with pytest.raises(UnknownNameError, match="llama3_baseline"):
        external.btcsam_path("llama3_syntactic", root=tmp_path)


def test_official_eec_csv(tmp_path):
    path = tmp_path / "Equity-Evaluation-Corpus.csv"
    path.write_text("ID,Sentence,Template,Person,Gender,Race,Emotion,Emotion word\n"
                    "2018-En-mystery-05498,Alonzo feels angry.,<person subject> feels <emotion word>.,Alonzo,male,"
                    "African-American,anger,angry\n"
                    "2018-En-mystery-11722,My mom feels angry.,<person subject> feels <emotion word>.,my mom,female,"
                    ",anger,angry\n")
    cases = validate(external.load_eec_csv(path))
    assert cases["case_id"].nunique() == 1
    assert cases["group"].tolist() == ["African-American male", "female"]
    assert cases["attribute"].tolist() == ["gender+race", "gender"]
    with pytest.raises(SchemaError, match="not a EEC file"):
        external.load_eec_csv(tmp_path.joinpath("x.csv").write_text("a,b\n1,2\n") and tmp_path / "x.csv")


def test_crows_pairs_csv(tmp_path):
    path = tmp_path / "crows_pairs_anonymized.csv"
    path.write_text(",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer,anon_annotators\n"
                    "0,Poor people steal.,Rich people steal.,stereo,socioeconomic,[],a,[]\n"
                    "1,Women cry.,Men cry.,stereo,gender,[],a,[]\n")
    cases = validate(external.load_crows_pairs(path))
    assert cases["case_id"].tolist() == ["crows_pairs:0"] * 2 + ["crows_pairs:1"] * 2
    assert cases["bias_type"].tolist() == ["socioeconomic"] * 2 + ["gender"] * 2
    assert cases["group"].tolist() == ["more_stereotypical", "less_stereotypical"] * 2


@pytest.mark.skipif(not (SHARED_DATA / "btcsam").is_dir(), reason="../shared/data/btcsam is absent")
@pytest.mark.parametrize("name", external.BTCSAM_SETS)
def test_released_btcsam_sets_load_as_valid_case_tables(name):
    cases = validate(external.load_btcsam(external.btcsam_path(name, root=SHARED_DATA / "btcsam")))
    assert len(cases) > 500 and cases.groupby("case_id").size().min() >= 2
    assert ("age" in set(cases["bias_type"])) == (not name.startswith("llama3_"))


LEXICAL = """,id,bias_type,id_term,concept_term,sentence,flagged,reject_reason,refid
0,1,religion,Christian,modest,"Sarah, a Christian mother, wore a plain dress.",0,-,1
1,1,religion,Jewish,modest,"Sarah, a Jewish mother, wore a plain simple dress.",0,-,1
"""


def test_released_rewrites_are_linked_to_their_baseline_sentence(tmp_path):
    from toolkit.studies import btcsam

    (tmp_path / "baseline_output.csv").write_text(BASELINE)
    (tmp_path / "lexical_output.csv").write_text(LEXICAL)
    sets = btcsam.load_sets(["baseline", "lexical"], root=tmp_path)
    lexical = sets["lexical"].set_index("fill")
    assert lexical.loc["Jewish", "source_text"] == "Sarah, a Jewish mother, wore a modest dress."
    stages = btcsam.stage_diversity(pd.concat(sets.values(), ignore_index=True)).set_index("stage")
    # word-level edit distances: "modest"→"plain" = 1; "modest"→"plain" plus an inserted "simple" = 2
    assert stages.loc["lda", "mean_edit_distance"] == pytest.approx(1.5)
    assert np.isnan(stages.loc["etsg", "mean_edit_distance"])
