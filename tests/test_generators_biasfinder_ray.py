"""BiasFinder templating on a local 2-CPU Ray cluster equals the in-process run (same templates, order, ids)."""
import pandas as pd
import pytest
from conftest import corpus_of, local_ray

from toolkit.errors import UnknownNameError
from toolkit.studies.biasfinder.generator import generate

SENTENCES = ["Tom Hanks plays a lonely man. He is great and his smile carries the film.",
             "The actress was wonderful. She made me cry, and her voice is haunting.",
             "My brother hated it. He said the plot was thin.",
             "The nurse in this film is the best part; the doctor is wooden.",
             "A film with no people in it at all, only landscapes."]


@pytest.mark.slow
def test_ray_templating_equals_the_in_process_run(tmp_path_factory):
    pytest.importorskip("ray", reason="Ray is not installed (pip install -e .[ray])")
    corpus = corpus_of([f"{SENTENCES[i % len(SENTENCES)]} Scene {i}." for i in range(260)])  # two chunks of 250
    local = generate(corpus, n_names=2, record=(local_record := {}))
    with local_ray(tmp_path_factory, num_cpus=2, ignore_reinit_error=True):
        distributed = generate(corpus, n_names=2, executor="ray", workers=2, record=(distributed_record := {}))
    assert len(local) > 0 and local["doc_id"].nunique() > 250 / len(SENTENCES)
    pd.testing.assert_frame_equal(distributed, local)
    assert distributed_record["generation_report"] == local_record["generation_report"]


def test_unknown_templating_executor_lists_the_valid_ones():
    with pytest.raises(UnknownNameError, match="local, ray"):
        generate(corpus_of(["He is great."]), executor="dask")
