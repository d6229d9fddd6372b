"""The scoring telemetry: phase times, shares of the wall time, padding share, the host-bound verdict, the progress
line's part, and the record the engine puts into ``attrs["inputs"][spec]["telemetry"]`` and provenance."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from toolkit import monitor, provenance
from toolkit.scoring import score
from toolkit.telemetry import HOST_BOUND_BELOW, PHASES, Telemetry


class Clock:
    """A seconds clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _run(phases: dict[str, float], *, wall: float) -> Telemetry:
    clock = Clock()
    tel = Telemetry(clock=clock)
    for name, seconds in phases.items():
        with tel.phase(name):
            clock.now += seconds
    clock.now = 100.0 + wall
    return tel.finish()


def test_telemetry_adds_each_phase_and_gives_shares_of_the_wall_time():
    tel = _run({"tokenise": 2.0, "forward": 6.0, "cache": 0.5}, wall=10.0)
    tel.batch(rows=4, width=10, real=30)
    tel.batch(rows=2, width=5, real=10)
    record = tel.record()
    assert record["wall_s"] == 10.0
    assert record["seconds"] == {"cache": 0.5, "tokenise": 2.0, "batch": 0.0, "copy": 0.0, "forward": 6.0, "post": 0.0}
    assert record["shares"]["forward"] == 0.6 and record["shares"]["tokenise"] == 0.2
    assert record["batches"] == 2 and record["real_tokens"] == 40 and record["padded_tokens"] == 10
    assert record["padding_share"] == 0.2  # 10 padded of 50 tokens
    assert record["device_busy_share"] == 0.6 and record["host_bound"] is False
    assert record["verdict"].startswith("device-bound")
    json.dumps(record)  # JSON-ready, as provenance.json needs


@pytest.mark.parametrize("forward, host_bound", [(4.9, True), (5.0, False), (9.0, False), (1.0, True)])
def test_telemetry_says_host_bound_when_the_device_was_busy_less_than_half_the_time(forward, host_bound):
    tel = _run({"tokenise": 10.0 - forward - 0.5, "forward": forward, "post": 0.5}, wall=10.0)
    assert HOST_BOUND_BELOW == 0.5
    assert tel.host_bound() is host_bound
    assert ("host-bound" in tel.describe()) is host_bound
    if host_bound:  # it names the largest host phase
        assert tel.verdict().startswith("host-bound") and "tokenisation" in tel.verdict()


def test_telemetry_reads_the_cuda_busy_time_where_there_is_one():
    tel = _run({"forward": 8.0, "batch": 1.0}, wall=10.0)
    tel.device_busy(2.0)  # the forward pass waited on the device, which computed only 2 s of it
    assert tel.busy_share() == pytest.approx(0.2) and tel.host_bound()
    assert tel.record()["device_busy_s"] == 2.0 and "the device was busy 20%" in tel.verdict()


def test_telemetry_of_a_run_answered_from_the_cache_is_neither_bound():
    tel = _run({"cache": 0.2}, wall=0.5)
    assert tel.busy_share() is None and tel.host_bound() is False and tel.verdict() == ""


def test_telemetry_disabled_records_nothing():
    tel = Telemetry(enabled=False)
    with tel.phase("forward"):
        pass
    tel.batch(rows=2, width=3, real=4)
    tel.add("cache", 1.0)
    assert tel.record() is None and tel.describe() == "" and tel.seconds["cache"] == 0.0


def test_telemetry_describe_names_the_three_largest_phases_and_the_padding():
    tel = _run({"forward": 6.0, "tokenise": 2.0, "batch": 1.0, "post": 0.5}, wall=10.0)
    tel.batch(rows=10, width=10, real=97)
    assert tel.describe() == "forward 60% · tokenise 20% · batch 10% · padding 3%"


def _cases(texts):
    return pd.DataFrame({"case_id": [f"c{i}" for i in range(len(texts))],
                         "variant_id": [f"v{i}" for i in range(len(texts))], "text": texts, "attribute": "gender",
                         "group": "", "fill": "", "generator": "test", "template": "", "is_original": True})


WORDS = ["the", "a", "good", "bad", "movie", "great", "awful", "film", "i", "it", "was", "not", "very", "is", "and", "she", "he", "her", "him", "my", "sister", "brother"]
TEXTS = [" ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(3 + i % 11)) for i in range(120)]


@pytest.mark.parametrize("ahead", [True, False])
def test_telemetry_of_a_transformer_run_is_in_its_attrs_and_provenance(tiny_bert_dir, ahead):
    spec = f"hf:{tiny_bert_dir}?max_length=12"
    scored = score(_cases(TEXTS), models=spec, cache=False, batch_tokens=96, tokenise_ahead=ahead)
    tel = scored.attrs["inputs"][spec]["telemetry"]
    assert set(tel["seconds"]) == set(PHASES)
    assert tel["seconds"]["forward"] > 0 and tel["seconds"]["tokenise"] > 0 and tel["seconds"]["batch"] > 0
    assert tel["tokenise_ahead"] is ahead and tel["device"] == "cpu" and tel["device_busy_s"] is None
    # the batches' real tokens: those of each distinct model input, as the tokenizer itself gives them
    from transformers import AutoTokenizer

    inputs = {tuple(x) for x in AutoTokenizer.from_pretrained(tiny_bert_dir)(TEXTS, truncation=True,
                                                                              max_length=12)["input_ids"]}
    assert tel["real_tokens"] == sum(len(x) for x in inputs)
    assert tel["batches"] >= sum(len(x) for x in inputs) / 96 and 0.0 <= tel["padding_share"] < 1.0
    main_thread = sum(tel["seconds"][name] for name in ("cache", "tokenise", "forward", "post"))
    assert main_thread <= tel["wall_s"] * 1.001  # the main thread's phases are disjoint parts of the wall time
    record = provenance.record(models=[spec], settings={"x": 1}, fingerprints=scored.attrs["fingerprints"],
                               inputs=scored.attrs["inputs"])
    assert json.loads(provenance.dumps(record))["inputs"][spec]["telemetry"]["verdict"] == tel["verdict"] != ""


def test_telemetry_of_a_lexicon_run_times_its_model_calls():
    scored = score(_cases(TEXTS), models="vader", cache=False)
    tel = scored.attrs["inputs"]["vader"]["telemetry"]
    assert tel["seconds"]["forward"] > 0 and tel["tokenise_ahead"] is False and tel["padding_share"] is None


def test_telemetry_is_on_the_progress_line(tiny_bert_dir):
    reports: list[monitor.Progress] = []
    spec = f"hf:{tiny_bert_dir}"
    with monitor.watching(on_progress=reports.append):
        score(_cases(TEXTS), models=spec, cache=False, batch_tokens=64)
    last = reports[-1]
    assert last.done == last.total == len(set(TEXTS))
    assert "forward" in last.detail and "padding" in last.detail
    assert last.describe().endswith(last.detail)
