import json

from toolkit import provenance
from toolkit.models import load


def test_provenance_records_models_versions_and_settings(tmp_path):
    path = provenance.write(tmp_path, models=["vader", "afinn"], settings={"seed": 3})
    record = json.loads(path.read_text())
    assert record["models"] == [{"spec": "vader", "fingerprint": load("vader").fingerprint},
                                {"spec": "afinn", "fingerprint": load("afinn").fingerprint}]
    assert record["settings"] == {"seed": 3}
    assert "vaderSentiment" in record["packages"] and record["python"]


def test_provenance_takes_fingerprints_from_a_scored_table_without_loading(tmp_path, eec_cases):
    from test_scoring import Bare  # a model object behind no registered spec

    from toolkit.scoring import score

    scored = score(eec_cases.head(4), models=Bare(), cache=False)
    path = provenance.write(tmp_path, models=["bare"], settings={}, fingerprints=scored.attrs["fingerprints"])
    assert json.loads(path.read_text())["models"] == [{"spec": "bare", "fingerprint": "bare-0.0"}]
