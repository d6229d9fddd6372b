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
