"""Fills that carry a sentiment themselves: flagged, left out of the curated lists, counted apart in Table 4."""
import pandas as pd
from conftest import corpus_of

from toolkit.studies.biasfinder import analysis as biasfinder
from toolkit.studies.biasfinder.generator import country_names, gender_templates, generate
from toolkit.studies.biasfinder.generator.lint import fill_flags, gender_clash
from toolkit.studies.biasfinder.generator.lists import word_lists


def test_fill_flags_name_the_lexicons_and_word_names():
    flags = fill_flags(["Mercy", "hero", "Joy", "table", "Michael", "Destiny", "cleaner"])
    assert flags == {"Mercy": "vader,afinn,word-name", "hero": "vader,afinn", "Joy": "vader,textblob,afinn,word-name",
                     "table": "", "Michael": "", "Destiny": "word-name", "cleaner": "vader,afinn"}


def test_gender_clash_knows_the_hand_checked_names():
    assert gender_clash("Wanjiru", "male") and not gender_clash("Wanjiru", "female")
    assert not gender_clash("Michael", "male")


def test_curated_lists_leave_flagged_fills_out_and_record_them():
    lists = word_lists("curated")
    kenya = country_names(3)["Kenya"]
    assert "Mercy" not in kenya["female"] and "Wanjiru" not in kenya["male"]
    assert kenya["female"] and kenya["male"]
    assert {"Mercy", "hero", "heroine", "Wanjiru", "Joy", "Grace"} <= set(lists.excluded)
    assert lists.record()["excluded"]["Wanjiru"] == "usually female"
    assert not {"Joy", "Grace", "Faith", "Destiny"} & set(lists.names["female"])


def test_paper_lists_keep_flagged_fills_and_mark_their_mutants():
    cases = generate(corpus_of(["He hired an experienced lawyer. The lawyer was useless."]), instances=["occupation"],
                     lists="paper")
    flags = dict(zip(cases["fill"], cases["fill_flag"]))
    assert flags["cleaner"] == "vader,afinn" and flags["attendant"] == "textblob" and flags["lawyer"] == ""
    assert cases.loc[cases["is_original"].astype(bool), "fill_flag"].tolist() == [""]


def test_a_flagged_gender_noun_yields_no_curated_template():
    hero = corpus_of(["The hero saves the day and he wins."])
    assert gender_templates(hero).empty  # hero/heroine left out of the curated pairs: no template can swap it
    text = "The mother is awful; she never listens."
    mutants = generate(corpus_of([text]), instances=["gender"], lists="paper").query("group != ''")
    assert mutants["fill_flag"].eq("").all() and len(mutants) == 2


def _scored():
    rows = [("t1", "female", "Mercy", "vader", "positive"), ("t1", "female", "Anna", "", "negative"),
            ("t1", "male", "Tom", "", "positive"), ("t1", "male", "Bob", "", "negative"),
            ("t2", "Kenya", "Mercy", "vader", "positive"), ("t2", "Japan", "Keiko", "", "negative")]
    frame = pd.DataFrame(rows, columns=["case_id", "group", "fill", "fill_flag", "label"])
    frame["attribute"] = frame["case_id"].map({"t1": "gender", "t2": "country"})
    return frame.assign(model="m", is_original=False)


def test_btcs_count_pairs_without_flagged_fills_apart():
    counts = biasfinder.btcs(_scored()).set_index("case_id")
    # t1: Mercy+ × Bob−, Anna− × Tom+ → 2 BTCs; without Mercy only Anna × Tom
    assert counts.loc["t1", ["n_btcs", "n_btcs_unflagged"]].tolist() == [2, 1]
    assert counts.loc["t2", ["n_btcs", "n_btcs_unflagged"]].tolist() == [1, 0]
    table = biasfinder.table4(biasfinder.btcs(_scored())).set_index("attribute")
    assert table.loc["gender", ["btcs", "btcs_unflagged"]].tolist() == [2, 1]
    assert table.loc["country", ["btcs", "btcs_unflagged"]].tolist() == [1, 0]
    unflagged = biasfinder.btcs(_scored().drop(columns="fill_flag"))
    assert unflagged["n_btcs"].tolist() == unflagged["n_btcs_unflagged"].tolist()


def test_rows_without_a_flag_value_count_as_unflagged():
    frame = _scored()
    frame["fill_flag"] = frame["fill_flag"].replace("", None)  # other generators' rows after a concat: NaN
    counts = biasfinder.btcs(frame).set_index("case_id")
    assert counts.loc["t1", ["n_btcs", "n_btcs_unflagged"]].tolist() == [2, 1]
