import os
from pathlib import Path

import pandas as pd
import pytest
from conftest import local_ray

from toolkit.cache import ScoreCache
from toolkit.errors import UnknownNameError
from toolkit.scoring import score

TESTS_DIR = Path(__file__).resolve().parent


def _cases(n):
    texts = [f"review number {i} was {'good' if i % 3 else 'awful'}" for i in range(n)]
    return pd.DataFrame({"case_id": [f"c{i // 4}" for i in range(n)], "variant_id": [f"v{i}" for i in range(n)],
                         "text": texts, "attribute": "name", "group": "x", "fill": "", "generator": "test",
                         "template": "", "is_original": False})


def test_unknown_executor_lists_the_valid_ones():
    with pytest.raises(UnknownNameError, match="available: local, processes, ray"):
        score(_cases(2), models="vader", executor="dask", cache=False)


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    pythonpath = os.pathsep.join(filter(None, [str(TESTS_DIR), os.environ.get("PYTHONPATH")]))
    with local_ray(tmp_path_factory, num_cpus=2, runtime_env={"env_vars": {"PYTHONPATH": pythonpath}}) as ray:
        yield ray


@pytest.mark.slow
def test_ray_executor_on_a_local_cluster_matches_in_process_scoring(ray_cluster, tmp_path):
    from toolkit.executors import RayExecutor

    cases = _cases(300)
    models = ["py:synthetic_models:counting", "vader"]
    local = score(cases, models=models, cache=False)
    executor = RayExecutor(workers=2)
    sharded = score(cases, models=models, cache=tmp_path, executor=executor, batch_tokens=64)
    pd.testing.assert_frame_equal(local, sharded)
    with ScoreCache(tmp_path / "scores.sqlite") as cache:
        assert cache.count() == 600  # the driver committed every sharded batch
    assert list(executor._actors) == ["vader"] and len(executor._actors["vader"]) == 2
    executor.shutdown()
