"""The scoring engine: the only place that batches.

``score(cases, models=...)`` deduplicates texts, looks them up in the on-disk cache, sorts what is missing by token
length and packs it into batches under a token budget (each batch padded only to its own longest text), runs each
batch, and commits it to the cache before the next one, so an interrupted run resumes where it stopped (Ctrl-C stays
a KeyboardInterrupt, its workers stopped, carrying how many texts were kept:
:func:`toolkit.executors.note_interrupt`). Output is the long scored table: every case-table column plus ``model,
task, score, label, truncated`` (one row per case row and model; ``task`` is what the score measures, valence unless
the model predicts an emotion intensity; ``truncated`` is True where the text was cut at the model's maximum
length), then the model's native view ``top_label, top_score, class_probs`` (:data:`toolkit.cases.NATIVE_COLUMNS`).
A NaN ``score`` (no valence: an emotion head without a valence mapping, an unparseable LLM answer) is kept, counted
in :attr:`ScoreRecord.no_score` and warned about, never dropped. A score within
:data:`toolkit.models.valence.UNIT_TOLERANCE` of [0, 1] is clipped into it (float rounding); anything else outside
is TK203. Texts not in Unicode NFC are warned about and counted (:attr:`ScoreRecord.not_nfc`); a text holding a lone
surrogate, or a model listed twice, is refused.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit import cases as case_schema
from toolkit import checks, device, executors, monitor, paths
from toolkit.batching import plan_batches  # the planner lives in the leaf toolkit.batching; kept importable here
from toolkit.cache import ScoreCache, check_location
from toolkit.errors import InputError, ModelOutputError, SchemaError, WorkerError, warn
from toolkit.executors import LocalExecutor, RayExecutor
from toolkit.models import SentimentModel, check_labels, load, valence
from toolkit.models.base import Predictions
from toolkit.telemetry import Telemetry

CPU_BATCH_TOKENS = 4_096  # measured best on 2 CPU cores (benchmarks/bench_scoring.py); larger batches slow down
GPU_BATCH_TOKENS = 32_768
TOKENISE_THREADS: int | None = None
"""Worker threads that tokenise ahead of the model (:meth:`toolkit.models.hf.TransformerModel.encode`); None: one
per core this process may use (up to 32). Each drives the Rust tokenizer with the GIL released, so the cores are
used also where the tokenizer's own parallelism is off (``TOKENIZERS_PARALLELISM=false``, which
``transformers.pipeline`` sets for the whole process on its first call)."""
TOKENISE_PREFIX = True
"""Tokenise a long text from a character prefix where that provably gives its ids (``encode(..., prefix=True)``):
the same ids and ``truncated`` flags, less text read."""
TELEMETRY = True
"""Record each run's telemetry (:mod:`toolkit.telemetry`); False only to measure its own cost (benchmarks)."""
_PROGRESS_MIN_TEXTS = 2_000
TOO_LONG = "too_long"
"""``top_label`` of a text skipped for being longer than the model's ``max_text_chars``."""
_RESULT_COLUMNS = (("score", float), ("label", str), ("truncated", bool), ("top_label", str), ("top_score", float),
                   ("class_probs", str))


def tokenise_threads() -> int:
    """The tokenise-ahead worker threads: :data:`TOKENISE_THREADS`, else one per usable core (2 to 32)."""
    if TOKENISE_THREADS is not None:
        return int(TOKENISE_THREADS)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 2)
    return max(2, min(32, cores))


def _cache_file(cache: bool | str | Path | None) -> Path | None:
    """The score cache file that ``cache`` (True, a folder or a file path) names; None for no cache."""
    if cache is None or cache is False:
        return None
    path = paths.cache_dir() / "scores.sqlite" if cache is True else Path(cache).expanduser()
    # decide by what the path is (an existing folder or file), and by its suffix only when it does not exist yet
    is_dir = path.is_dir() if path.exists() else path.suffix == ""
    return path / "scores.sqlite" if is_dir else path


def check_cache(cache: bool | str | Path | ScoreCache | None) -> None:
    """Fail now, creating nothing, if the cache ``cache`` names cannot be made because a plain file stands where
    one of its folders must be (CacheError TK301 naming it); for callers about to do long work before scoring."""
    path = None if isinstance(cache, ScoreCache) else _cache_file(cache)
    if path is not None:
        check_location(path)


def _open_cache(cache: bool | str | Path | ScoreCache | None) -> ScoreCache | None:
    if isinstance(cache, ScoreCache):
        return cache
    path = _cache_file(cache)
    return None if path is None else ScoreCache(path)


def _checked(model: SentimentModel, batch: list[str], predictions: Predictions) -> Predictions:
    """One prediction per text, every score a valence in [0, 1] or NaN (no valence), truncation flags and the native
    view filled in."""
    if not isinstance(predictions, Predictions):
        raise ModelOutputError(f"{model.spec}'s predict returned {type(predictions).__name__}, not Predictions.",
                               fix="return toolkit.models.base.Predictions(score, label, truncated).")
    try:
        scores = np.asarray(predictions.score, dtype=float).reshape(-1)
        labels = list(predictions.label)
    except (TypeError, ValueError) as exc:
        raise ModelOutputError(f"{model.spec} returned scores that are not numbers or labels that are not a list "
                               f"({type(exc).__name__}: {exc}).",
                               fix="return one float score and one label string per text.") from None
    scores = valence.clip_unit(scores)  # 1 + 1e-12 is float rounding
    if len(scores) != len(batch) or len(labels) != len(batch):
        raise ModelOutputError(f"{model.spec} returned {len(scores)} predictions for {len(batch)} texts.",
                               fix="an adapter must return one prediction per text.")
    nan = np.isnan(scores)
    if nan.any() and not getattr(model, "no_score_reason", ""):
        raise ModelOutputError(f"{model.spec} returned NaN in {int(nan.sum())} of {len(scores)} scores.",
                               fix="map the model's output to a valence in [0, 1] for every text.")
    known = scores[~nan]
    if not (np.isfinite(known).all() and ((known >= 0.0) & (known <= 1.0)).all()):
        raise ModelOutputError(f"{model.spec} returned a score outside [0, 1] or not a number "
                               f"({valence.describe_range(known)}; up to {valence.UNIT_TOLERANCE:g} outside is "
                               "clipped as float rounding).",
                               fix="map the model's output to a valence in [0, 1] (see toolkit.models.valence); "
                                   "only a model that declares texts without a valence may return NaN.")
    truncated = np.asarray(predictions.truncated, dtype=bool).reshape(-1)
    if len(truncated) == 0:
        truncated = np.zeros(len(batch), dtype=bool)
    elif len(truncated) != len(batch):
        raise ModelOutputError(f"{model.spec} returned {len(truncated)} truncation flags for {len(batch)} texts.",
                               fix="return one flag per text, or none.")
    native = predictions.filled()
    top_score = np.asarray(native.top_score, dtype=float).reshape(-1)
    if len(native.top_label) != len(batch) or len(top_score) != len(batch) or len(native.class_probs) != len(batch):
        raise ModelOutputError(f"{model.spec} returned a native view (top_label, top_score, class_probs) of another "
                               f"length than its {len(batch)} texts.", fix="return one entry per text, or none.")
    return Predictions(scores, [str(label) for label in labels], truncated,
                       [str(v) for v in native.top_label], top_score, [str(v) for v in native.class_probs])


_INPUT_GROUPS: dict[tuple, tuple] = {}  # (fingerprint, max_length, texts digest) -> (group, own_truncated)
_INPUT_GROUPS_KEPT = 8  # text lists remembered per process (the most recent)


def _texts_key(model: SentimentModel, texts: list[str]) -> tuple:
    digest = hashlib.blake2b("\x00".join(texts).encode("utf-8", "surrogatepass"), digest_size=16).digest()
    return model.fingerprint, getattr(model, "max_length", None), len(texts), digest


def _cached_groups(model: SentimentModel, texts: list[str], *, input_dedup: bool, all_cached: bool,
                   threads: int = 0):
    """:func:`_group_by_input`, remembered per model fingerprint and text list: a run whose every text is in the
    score cache (a warm app run) then does not tokenise again. The token ids are returned only when computed (they
    are needed only for texts still to score)."""
    if not (input_dedup and callable(getattr(model, "encode", None))):
        return _group_by_input(model, texts, input_dedup=input_dedup)
    key = _texts_key(model, texts)
    if all_cached and key in _INPUT_GROUPS:
        group, own_truncated = _INPUT_GROUPS[key]
        return group, None, own_truncated
    group, ids, own_truncated = _group_by_input(model, texts, input_dedup=input_dedup, threads=threads)
    _INPUT_GROUPS.pop(key, None)
    _INPUT_GROUPS[key] = (group, own_truncated)
    while len(_INPUT_GROUPS) > _INPUT_GROUPS_KEPT:
        _INPUT_GROUPS.pop(next(iter(_INPUT_GROUPS)))
    return group, ids, own_truncated


def _group_by_input(model: SentimentModel, texts: list[str], *, input_dedup: bool, threads: int = 0):
    """``(group, ids, own_truncated)``: per distinct text the index of its model input (texts with the same token ids
    after tokenisation and truncation share one), the ids per text (None for models without a tokenizer: every
    distinct text is its own input) and each text's own truncation flag (None: the model reports it). ``threads``
    (the tokenise-ahead path): tokenise in that many worker threads, each text once
    (:meth:`toolkit.models.hf.TransformerModel.encode`); 0: in this thread, a cut text tokenised twice."""
    if not (input_dedup and callable(getattr(model, "encode", None))):
        return np.arange(len(texts)), None, None
    ids, full_lengths = (model.encode(texts, threads=threads, one_pass=True, prefix=TOKENISE_PREFIX) if threads
                         else model.encode(texts))
    index: dict[bytes, int] = {}
    group = np.fromiter((index.setdefault(hashlib.blake2b(x.tobytes(), digest_size=16).digest(), len(index))
                         for x in ids), dtype=np.int64, count=len(texts))
    return group, ids, full_lengths > model.max_length


def _members(group: np.ndarray) -> list[np.ndarray]:
    """The text indices of each group, in text order."""
    order = np.argsort(group, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(group[order])) + 1) if len(group) else []


def _score_texts(model: SentimentModel, texts: list[str], *, cache: ScoreCache | None, batch_tokens: int | None,
                 progress: bool | None, executor, input_dedup: bool = True, n_jobs: int | None = None,
                 tokenise_ahead: bool = True, telemetry: Telemetry | None = None
                 ) -> tuple[dict[str, tuple], np.ndarray, dict]:
    """Results per distinct text, its model-input group, and the run's counts (see :func:`score`); the time of each
    phase goes to ``telemetry``."""
    from tqdm.auto import tqdm

    tel = telemetry if telemetry is not None else Telemetry(enabled=False)
    if not texts:  # every text skipped (too long): nothing reaches the model or its tokenizer
        return {}, np.zeros(0, dtype=np.int64), {"texts": 0, "model_inputs": 0, "cached_texts": 0,
                                                 "from_same_input": 0, "computed_inputs": 0}
    with tel.phase("cache"):
        results = cache.get(model.fingerprint, texts) if cache is not None else {}
    ahead = (tokenise_ahead and input_dedup and isinstance(executor, LocalExecutor)
             and callable(getattr(model, "input_layout", None)) and getattr(model, "reuses_ids", False))
    threads = tokenise_threads() if ahead else 0
    tel.note(tokenise_ahead=bool(ahead), tokenise_threads=threads,
             prefetch_depth=device.PREFETCH_DEPTH if ahead else 0)
    with tel.phase("tokenise"):
        group, ids, own_truncated = _cached_groups(model, texts, input_dedup=input_dedup,
                                                   all_cached=len(results) == len(texts), threads=threads)
    members = _members(group)
    cached_texts = len(results)
    copied: list[tuple[int, int]] = []  # (text, cached text with the same model input)
    reps: list[int] = []  # one text per model input that must be computed
    for block in members:
        missing = [int(i) for i in block if texts[i] not in results]
        if not missing:
            continue
        done = next((int(i) for i in block if texts[i] in results), None)
        if done is not None:  # a cached text with the same model input stands for the others
            copied += [(i, done) for i in missing]
        else:
            reps.append(missing[0])
    stats = {"texts": len(texts), "model_inputs": len(members), "cached_texts": cached_texts,
             "from_same_input": len(copied), "computed_inputs": len(reps)}
    if copied:
        rows = []
        for i, done in copied:
            row = results[texts[done]]
            rows.append((texts[i], (row[0], row[1], bool(own_truncated[i]), *row[3:])))
        with tel.phase("cache"):
            _store(model, rows, results, cache)
    if not reps:
        return results, group, stats
    todo = [texts[i] for i in reps]
    monitor.progress(done=len(results), total=len(texts))
    show = progress if progress is not None else len(todo) >= _PROGRESS_MIN_TEXTS
    on_gpu = str(getattr(model, "device", "cpu")).startswith("cuda")
    budget = batch_tokens or (GPU_BATCH_TOKENS if on_gpu else CPU_BATCH_TOKENS)
    by_group = {int(group[b[0]]): b for b in members}
    with tqdm(total=len(todo), desc=model.spec, unit="text", disable=not show) as bar:
        with tel.phase("batch"):
            if ids is not None:
                lengths = [len(ids[i]) for i in reps]  # already truncated: the batch's real width
            else:
                lengths = model.lengths(todo)
            plan = list(plan_batches(lengths, n=len(todo), batch_size=model.batch_size, batch_tokens=budget,
                                     max_length=getattr(model, "max_length", None)))
        if ids is not None and isinstance(executor, LocalExecutor) and getattr(model, "reuses_ids", False):
            rep_ids = [ids[i] for i in reps]
            del ids  # keep only the inputs still to compute
            flags = [own_truncated[[reps[i] for i in b]] for b in plan]
            batches = ([rep_ids[i] for i in b] for b in plan)
            stream = (_ahead(model, plan, batches, flags, todo, tel) if ahead
                      else _serial(model, plan, batches, flags, todo, tel))
        else:
            pool = executors.for_model(model, executor, n_jobs=n_jobs, n_texts=len(todo))
            stream = _timed(pool.run(model, ([todo[i] for i in b] for b in plan)), tel)
        position = {text: k for k, text in enumerate(todo)}
        kept = len(results)  # texts whose rows are in the cache (or, without one, in memory)
        try:
            executors.check_interrupted()
            for batch, predictions in stream:
                with tel.phase("post"):
                    checked = _checked(model, batch, predictions)
                    rows = []
                    for k, row in enumerate(zip(checked.score, checked.label, checked.truncated, checked.top_label,
                                                checked.top_score, checked.class_probs)):
                        rep = reps[position[batch[k]]]
                        for i in by_group[int(group[rep])]:
                            flag = bool(row[2]) if own_truncated is None else bool(own_truncated[i])
                            rows.append((texts[i], (float(row[0]), row[1], flag, row[3], float(row[4]), row[5])))
                with executors.signals_deferred():  # the count said on an interrupt is what the cache holds
                    with tel.phase("cache"):
                        _store(model, rows, results, cache)
                    kept += len(rows)
                bar.update(len(batch))
                detail = tel.describe()
                if detail and show:
                    bar.set_postfix_str(detail, refresh=False)
                monitor.progress(done=kept, total=len(texts), detail=detail)
                monitor.check()  # a Cancel (toolkit.monitor) stops here, after the batch is committed
                executors.check_interrupted()  # likewise a Ctrl-C Python could only print (module executors)
        except ModelOutputError as exc:  # the model's output was refused: say which model, for callers that go on
            if exc.model is None:
                exc.model = model.spec
            raise
        except WorkerError as exc:  # a worker died: say what the cache keeps, as for an interrupt
            where = f" and are in the cache {cache.path}" if cache is not None else " but not kept (no cache)"
            raise WorkerError(f"{exc.message} {kept} of {len(texts)} texts were scored{where}.", fix=exc.fix) from None
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM under the command line: say what was kept
            executors.note_interrupt(exc, stage=f"scoring with {model.spec}", scored=kept, total=len(texts),
                                     cache=str(cache.path) if cache is not None else None)
            raise
        finally:
            getattr(stream, "close", lambda: None)()  # stop its workers now, not when the traceback is freed
    return results, group, stats


def _serial(model: SentimentModel, plan: list[list[int]], batches, flags: list[np.ndarray], todo: list[str],
            tel: Telemetry):
    """Each batch padded, run and answered in turn in this thread (``tokenise_ahead=False``): what
    ``model.predict_ids`` does, its steps timed."""
    for b, ids, truncated in zip(plan, batches, flags):
        with tel.phase("batch"):
            encoded = model.inputs_from_ids(ids)
        if tel.enabled:
            tel.batch(rows=len(ids), width=max((len(x) for x in ids), default=0), real=sum(len(x) for x in ids))
        with tel.phase("forward"):
            probs = model.probabilities(encoded)
        del encoded
        with tel.phase("post"):
            predictions = model.predictions(probs, truncated)
        yield [todo[i] for i in b], predictions


def _ahead(model: SentimentModel, plan: list[list[int]], batches, flags: list[np.ndarray], todo: list[str],
           tel: Telemetry):
    """The batches padded ahead of the model by a :class:`toolkit.device.Prefetcher` (a worker thread, reused
    buffers, on CUDA pinned memory and copies on a side stream), run and answered in this thread; the worker is
    stopped and joined when this generator ends or is closed (an interrupt included)."""
    timer = device.DeviceTimer(str(model.device))
    prefetch = device.Prefetcher(batches, layout=model.input_layout(), device=str(model.device), telemetry=tel)
    try:
        for b, truncated, ready in zip(plan, flags, prefetch):
            with tel.phase("forward"):
                started = timer.start()
                probs = model.probabilities(ready.inputs)
                timer.stop(started)
            ready.release()
            with tel.phase("post"):
                predictions = model.predictions(probs, truncated)
            yield [todo[i] for i in b], predictions
    finally:
        prefetch.close()
        busy = timer.total()
        if busy is not None:
            tel.device_busy(busy)


def _timed(stream, tel: Telemetry):
    """``stream``'s items, the time spent getting each (the model's call, in process or in workers) as the forward
    pass; closing this closes ``stream``."""
    iterator = iter(stream)
    try:
        while True:
            with tel.phase("forward"):
                try:
                    item = next(iterator)
                except StopIteration:
                    return
            yield item
    finally:
        getattr(stream, "close", lambda: None)()


def _split_by_length(texts: list[str], limit: int) -> tuple[list[str], list[str]]:
    """The texts of at most ``limit`` characters, and the longer ones."""
    long_ = [t for t in texts if len(t) > limit]
    return (texts, []) if not long_ else ([t for t in texts if len(t) <= limit], long_)


def _skip_too_long(model: SentimentModel, texts: list[str], short: list[str], long_: list[str], *, results: dict,
                   group: np.ndarray, limit: int) -> np.ndarray:
    """Record the ``long_`` texts as skipped (score NaN, top_label :data:`TOO_LONG`; not cached), warn with the count,
    and return the model-input group of every text in ``texts`` order (each skipped text its own group)."""
    row = (float("nan"), "", False, TOO_LONG, float("nan"), "")
    for text in long_:
        results[text] = row
    of_short = dict(zip(short, group.tolist()))
    fresh = iter(range(int(group.max()) + 1 if len(group) else 0, len(texts) + len(group) + 1))
    longest = max(len(t) for t in long_)
    warn(f"{model.spec}: skipped {len(long_)} of {len(texts)} distinct texts longer than {limit:,} characters (the "
         f"longest has {longest:,}): score NaN, top_label {TOO_LONG!r}; they are kept and counted, not cached. Pass "
         "score(..., max_text_chars=N) to score them (VADER slows down with the square of a text's length).")
    return np.fromiter((of_short[t] if t in of_short else next(fresh) for t in texts), dtype=np.int64,
                       count=len(texts))


def _store(model: SentimentModel, rows: list[tuple[str, tuple]], results: dict, cache: ScoreCache | None) -> None:
    """Record ``(text, row)`` pairs in ``results`` and commit them to the cache in one transaction."""
    for text, row in rows:
        results[text] = row
    if cache is not None and rows:
        columns = list(zip(*(row for _, row in rows)))
        cache.put(model.fingerprint, [text for text, _ in rows],
                  Predictions(np.asarray(columns[0], dtype=float), list(columns[1]), np.asarray(columns[2], dtype=bool),
                              list(columns[3]), np.asarray(columns[4], dtype=float), list(columns[5])))


def _load_announced(models: object, *, device: str | None) -> list[SentimentModel]:
    """Load each model (spec strings or model objects), telling a watching app (:mod:`toolkit.monitor`) which one is
    loading: a hub download or retry is "loading", not "scoring"."""
    specs = [models] if isinstance(models, str) or checks.is_model_object(models) else list(models)
    loaded = []
    for position, spec in enumerate(specs, start=1):
        if not isinstance(spec, SentimentModel):
            shown = str(spec).strip() if isinstance(spec, str) else f"a {type(spec).__name__}"
            monitor.stage(f"loading model {shown}" + (f" ({position} of {len(specs)})"
                                                                   if len(specs) > 1 else ""))
        loaded.append(load(spec, device=device))
    check_labels(loaded)  # two different models under one label: the fix names wrap(..., label=)
    refuse_repeats(given=specs, loaded=loaded)
    return loaded


def refuse_repeats(*, given: list, loaded: list[SentimentModel]) -> None:
    """InputError (TK102) when one model is listed twice (``given``: as the caller listed them, ``loaded``: what
    each loaded as): each would add the same rows again under one model name, and every study would count them
    twice."""
    if len(given) != len(loaded):
        raise InputError(f"{len(given)} models given but {len(loaded)} loaded.", fix="pass each model's loaded form.")
    names = [model.spec for model in loaded]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        shown = [repr(str(s).strip() if isinstance(s, str) else m.spec) for s, m in zip(given, loaded, strict=True)]
        raise InputError(f"model {twice[0]!r} is listed {names.count(twice[0])} times (as given: "
                         f"{', '.join(shown)}).",
                         fix="list each model once.")


def _truncation_warning(model: SentimentModel, cut: int, rows: int) -> str:
    """The warning for ``cut`` of ``rows`` rows cut at the model's maximum length."""
    limit = getattr(model, "max_length", None)
    at = f" at max_length={limit} tokens" if limit else " at the model's maximum length"
    return (f"{model.spec}: {cut:,} of {rows:,} rows ({cut / rows:.1%}) were truncated{at}: the model read only the "
            "start of those texts (column 'truncated'; count in the score record's inputs[spec]['truncated_rows']).")


@dataclasses.dataclass
class ScoreRecord:
    """What one :func:`score` call did, for provenance: ``fingerprints`` spec → model fingerprint, ``no_score`` spec
    → rows without a score, ``inputs`` spec → the engine's counts (see :func:`score`), ``not_nfc`` the distinct texts
    not in Unicode NFC. Pass one as ``score(..., record=...)``; the call fills it."""

    fingerprints: dict[str, str] = dataclasses.field(default_factory=dict)
    no_score: dict[str, int] = dataclasses.field(default_factory=dict)
    inputs: dict[str, dict] = dataclasses.field(default_factory=dict)
    not_nfc: int = 0

    def add(self, other: "ScoreRecord", *, suffix: str = "") -> "ScoreRecord":
        """Fold ``other`` (another call's record) into this one, its specs keyed ``<spec><suffix>``; returns self."""
        self.fingerprints.update(other.fingerprints)
        self.no_score.update({f"{k}{suffix}": v for k, v in other.no_score.items()})
        self.inputs.update({f"{k}{suffix}": v for k, v in other.inputs.items()})
        self.not_nfc += other.not_nfc
        return self


def score(cases: pd.DataFrame, *, models: str | SentimentModel | object | Iterable[str | SentimentModel | object],
          cache: bool | str | Path | ScoreCache | None = True, batch_tokens: int | None = None,
          device: str | None = None, progress: bool | None = None,
          executor: str | LocalExecutor | RayExecutor = "local", n_jobs: int | None = None,
          input_dedup: bool = True, max_text_chars: int | None = None, tokenise_ahead: bool = True,
          record: ScoreRecord | None = None) -> pd.DataFrame:
    """Score a case table with one or more models and return the long scored table.

    Args:
        cases: a case table (validated with :func:`toolkit.cases.validate`).
        models: spec strings (``"vader"``, ``"hf:…"``, ``"py:mod:fn"``), loaded models or model objects (a function,
            a transformers pipeline or (model, tokenizer) pair, a classifier with ``predict_proba``:
            :func:`toolkit.models.wrap`).
        cache: True for ``data/cache/scores.sqlite``, a folder or file path, a :class:`ScoreCache`, or False/None.
        batch_tokens: token budget per batch for length-aware (transformer) models; default 4,096 on CPU and
            32,768 on a GPU.
        device: device for ``hf:`` models (default: cuda, mps, then cpu).
        progress: show a progress bar; default: when more than 2,000 texts need scoring.
        executor: ``"local"`` (in process) or ``"ray"`` / a :class:`toolkit.executors.RayExecutor` (sharded).
        n_jobs: worker processes for CPU-bound models that declare themselves fork-safe (the lexicons; a ``py:``
            callable with ``fn.fork_safe = True``): None uses every core once enough texts need scoring, 1 scores
            in process. Results are identical either way; only this process writes the cache.
        input_dedup: score each distinct model input once (texts with the same token ids after the model's
            tokenisation and truncation, e.g. mutants that differ only past the maximum length); False scores every
            distinct text. Results are identical; each row keeps its own ``truncated`` flag.
        max_text_chars: texts longer than this many characters are skipped, not scored (score NaN, ``top_label``
            :data:`TOO_LONG`), warned about and counted (``record.inputs[spec]["too_long_skipped"]``); None uses
            each model's own maximum (:attr:`SentimentModel.max_text_chars`, 100,000 characters).
        tokenise_ahead: for transformer models scored in process, tokenise in worker threads and pad each batch in a
            worker thread ahead of the model, into reused buffers (pinned, with copies on a side stream, on CUDA)
            (:class:`toolkit.device.Prefetcher`); False pads and runs each batch in turn in this thread. The answers
            are the same bit for bit (the same batches, the same padded tensors).
        record: a :class:`ScoreRecord` this call fills with what it did (fingerprints, rows without a score, the
            engine's counts) — what a study writes to provenance.

    Returns:
        ``cases``' columns (``text`` and ``template`` as categoricals: each string is held once) + ``model`` (the
        spec), ``task``, ``score`` (in [0, 1], NaN: no valence), ``label``, ``truncated``, ``top_label``,
        ``top_score``, ``class_probs``, ``input_id`` (rows of one model with the same ``input_id`` reached it as the
        same input). ``record.inputs`` holds each spec's counts: ``rows``,
        ``texts`` (distinct), ``model_inputs`` (distinct), ``cached_texts``, ``from_same_input`` (texts answered by
        a cached text with the same input), ``computed_inputs``, ``truncated_rows`` (rows cut at the model's
        maximum length; warned about with their share whenever there are any), ``telemetry`` (where the time went:
        :meth:`toolkit.telemetry.Telemetry.record`, also shown on the progress line).

    Under :func:`toolkit.monitor.watching` it reports its stage (loading, scoring with each model, then "computing
    statistics"), its progress after each committed batch, and stops there when cancelled
    (:class:`toolkit.monitor.Cancelled`, a KeyboardInterrupt carrying what was kept).
    """
    case_schema.validate(cases)
    batch_tokens = checks.count(batch_tokens, name="batch_tokens", allow_none=True)
    if max_text_chars is not None:
        max_text_chars = checks.count(max_text_chars, name="max_text_chars")
    n_jobs = checks.count(n_jobs, name="n_jobs", maximum=checks.MAX_PROCESSES, allow_none=True)
    loaded = _load_announced(models, device=device)
    if not loaded:
        raise InputError("no models given.", fix="pass models=['vader', …]; see toolkit.models.available().")
    runner = executors.get(executor)
    codes, uniques = pd.factorize(cases["text"], sort=False)
    texts = [str(t) for t in uniques]
    _check_encodable(texts, cases)
    not_nfc = _warn_not_nfc(texts)
    base = cases.copy()
    base["text"] = pd.Categorical.from_codes(codes, categories=pd.Index(texts, dtype=object))
    if "template" in base.columns and not isinstance(base["template"].dtype, pd.CategoricalDtype):
        base["template"] = base["template"].astype("category")
    store = _open_cache(cache)
    frames = []
    no_score: dict[str, int] = {}
    inputs: dict[str, dict] = {}
    truncated_note: list[str] = []
    try:
        for position, model in enumerate(loaded, start=1):
            monitor.stage(f"scoring with {model.spec}" + (f" (model {position} of {len(loaded)})"
                                                          if len(loaded) > 1 else ""))
            limit = max_text_chars if max_text_chars is not None else model.max_text_chars
            short, long_ = _split_by_length(texts, limit)
            tel = Telemetry(device=str(getattr(model, "device", "cpu")), enabled=TELEMETRY)
            results, group, stats = _score_texts(model, short, cache=store, batch_tokens=batch_tokens,
                                                 progress=progress, executor=runner, input_dedup=input_dedup,
                                                 n_jobs=n_jobs, tokenise_ahead=tokenise_ahead, telemetry=tel)
            tel.finish()
            if long_:
                group = _skip_too_long(model, texts, short, long_, results=results, group=group, limit=limit)
            stats = {**stats, "texts": len(texts), "too_long_skipped": len(long_), "max_text_chars": limit}
            inputs[model.spec] = {"rows": int(len(cases)), **stats}
            per_text = [results[t] for t in texts]
            frame = base.copy()
            frame["model"] = model.spec
            frame["task"] = model.task
            for i, (column, dtype) in enumerate(_RESULT_COLUMNS):
                values = np.asarray([r[i] for r in per_text], dtype=object if dtype is str else dtype)
                frame[column] = values[codes]
            frame["input_id"] = group[codes]
            frames.append(frame)
            cut = int(frame["truncated"].sum())
            inputs[model.spec]["truncated_rows"] = cut
            inputs[model.spec]["telemetry"] = tel.record()
            if cut:
                truncated_note.append(_truncation_warning(model, cut, len(frame)))
            missing = int(frame["score"].isna().sum())
            no_score[model.spec] = missing
            missing -= int((frame["top_label"] == TOO_LONG).sum())  # warned about on their own
            if missing:
                warn(f"{model.spec}: {missing} of {len(frame)} rows have no score (NaN): "
                     f"{getattr(model, 'no_score_reason', 'the model gave no valence')}. They are kept; "
                     "studies skip them with a warning.")
    finally:
        if store is not None and store is not cache:
            store.close()
    for message in truncated_note:
        warn(message)
    monitor.stage("computing statistics")  # what a study does once its texts are scored
    scored = pd.concat(frames, ignore_index=True)
    if record is not None:
        record.add(ScoreRecord(fingerprints={model.spec: model.fingerprint for model in loaded}, no_score=no_score,
                               inputs=inputs, not_nfc=not_nfc))
    return scored


def _check_encodable(texts: list[str], cases: pd.DataFrame) -> None:
    """A text holding a lone surrogate (``"\\ud800"``, from a broken JSON escape or a bytes decode with
    ``surrogateescape``) is not valid Unicode: no tokenizer or cache can encode it. TK101 naming its row."""
    for text in texts:
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                row = cases.index[cases["text"].to_numpy(dtype=object) == text][0]
                raise SchemaError(
                    f"the text of row {row!r} (variant {cases.loc[row, 'variant_id']!r}) holds "
                    f"U+{ord(text[exc.start]):04X}, a lone surrogate, at position {exc.start}: not a character, so "
                    "no model or cache can read it.",
                    fix="repair the text (decode its source with the right encoding; write both halves of a JSON "
                        "surrogate pair), or drop the row.") from None


def _warn_not_nfc(texts: list[str]) -> int:
    """Warn about texts not in Unicode NFC (a letter and a combining accent where one composed letter is usual):
    models may score them otherwise than the same text composed; scored as given, counted in
    :attr:`ScoreRecord.not_nfc`."""
    odd = [t for t in texts if not t.isascii() and not unicodedata.is_normalized("NFC", t)]
    if odd:
        warn(f"{len(odd)} of {len(texts)} distinct texts are not in Unicode normal form NFC (e.g. {odd[0][:40]!r}): a "
             "model may score them otherwise than the same text with composed letters. They are scored as given; "
             "toolkit.corpora.load puts texts in NFC by default, toolkit.corpora.normalise(text) does it for one.")
    return len(odd)
