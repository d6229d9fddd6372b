"""The multilingual EEC corpora as case tables: Câmara et al. 2022 (Spanish, Arabic) and Goldfarb-Tarrant et al. 2023
(German, Spanish, Japanese, Chinese).

Neither corpus ships with the toolkit (no licence; the original EEC asks not to be redistributed): :func:`find`
looks for them where the user puts them (:func:`toolkit.paths.multilingual_dirs`) and says where to get them.

**Câmara, Taneja, Azad, Allaway & Zemel 2022** ("Mapping the Multilingual Margins", LT-EDI; repository
``ascamara/ml-intersectionality``, folder ``eec/``): one CSV per language (``es.csv``, ``ar.csv``; also ``en_es.csv``,
``en_ar.csv``, the English EEC with Latino / Arab names) holding ``sentence, template, person, gender, race, emotion,
emotion word`` and the English source sentence. Each row is parsed against the English EEC's templates
(``toolkit/resources/eec.json``) to recover the template id, the English person and the English emotion word, so a
female sentence pairs with the male one of the same template and English word although Spanish and Arabic inflect
the word (``enojada``/``enojado``). One case is one template × English emotion word, as in the English EEC;
``np_pair`` names the noun-phrase pair (``she/he``), names carry ``race`` (Anglo / Latino / Arab).

**Goldfarb-Tarrant, Ross & Lopez 2023** ("Cross-lingual transfer can worsen bias in sentiment analysis", EMNLP;
repository ``seraphinatarrant/multilingual_sentiment_analysis``, ``evaluation/corpora/EEC_<language>.json``): per
emotion, co-indexed lists of minimal pairs (``female``/``male``, ``race: privileged``/``race: minoritized``, Japanese
also ``rank: …``). The release has no template or person ids; the lists are blocks of one frame (a template with
its emotion word) × P person pairs in a fixed order, so P is the greatest common divisor of the gaps between
repeats of a pair's differing words, position ``i mod P`` is the person pair and ``i // P`` the frame. One case is one
frame × attribute; ``pair`` (``p003``) is the minimal pair within it; ``template_id`` numbers the frames (the template
with its emotion word: the release does not say which word of a frame is the emotion word); ``person`` is the most
common surface form of the position (German case forms ``er``/``ihn``/``ihm`` are one person). The gender of a race
pair is read from the gender lists (the privileged member is a pronoun or noun of one gender) or from agreement
(the sentence's frame occurs in one gender's list only), else left empty.

Columns: the case schema (:data:`toolkit.cases.CASE_COLUMNS`, ``generator`` = ``multilingual:<source>``) plus
:data:`EXTRA_COLUMNS`.
"""
from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from toolkit import cases
from toolkit.errors import CorpusError, InputError, unknown
from toolkit.paths import multilingual_dirs
from toolkit.resources import load_json

SOURCES: dict[str, tuple[str, ...]] = {"camara2022": ("es", "ar", "en_es", "en_ar"),
                                       "goldfarb_tarrant2023": ("de", "es", "ja", "zh")}
"""Each corpus and the languages it holds (Câmara's ``en_es``/``en_ar``: the English EEC with Latino / Arab names)."""
DEFAULT_LANGUAGES: dict[str, tuple[str, ...]] = {"camara2022": ("es", "ar"),
                                                 "goldfarb_tarrant2023": ("de", "es", "ja", "zh")}
FOLDERS = {"camara2022": "camara2022", "goldfarb_tarrant2023": "goldfarb_tarrant2023"}
FILES = {"camara2022": "{language}.csv", "goldfarb_tarrant2023": "EEC_{language}.json"}
ALL_LANGUAGES = tuple(dict.fromkeys(lang for held in SOURCES.values() for lang in held))
SOURCE_NAMES = {"camara2022": "Câmara", "goldfarb_tarrant2023": "Goldfarb-Tarrant"}
SOURCE_SHORT = {"camara2022": "C", "goldfarb_tarrant2023": "GT"}
"""At a column's width (a figure's row, a LaTeX table's cell) a corpus is "C" or "GT", spelled out beside it."""
REPOSITORIES = {"camara2022": "https://github.com/ascamara/ml-intersectionality (folder eec/)",
                "goldfarb_tarrant2023": "https://github.com/seraphinatarrant/multilingual_sentiment_analysis "
                                        "(folder evaluation/corpora/)"}
EXTRA_COLUMNS: tuple[str, ...] = ("language", "source", "template_id", "person", "person_en", "gender", "race",
                                  "emotion", "emotion_word", "emotion_word_en", "np_pair", "pair", "side")
"""Columns after the case schema: ``person_en`` (Câmara: the English person, the same across languages; GT: the
person's position id), ``emotion_word_en`` (Câmara: the English word both members of a pair share), ``pair`` (GT:
the minimal pair within the case), ``side`` (GT: ``a``/``b``, the list of the pair)."""
MINORITIZED = {"Latino", "Arab", "African-American", "minoritized"}
PRIVILEGED = {"Anglo", "European", "privileged"}
GT_PAIRS: tuple[tuple[str, str, str], ...] = (("gender", "female", "male"),
                                              ("race", "race: minoritized", "race: privileged"),
                                              ("rank", "rank: minoritized", "rank: privileged"))
"""The co-indexed lists of Goldfarb-Tarrant et al.: (attribute, list a, list b); a is the group a Δ = a − b favours."""
_SPACED = {"de", "es", "zh", "en"}  # languages whose persons and words are separated by spaces in the release


def find(*, source: str, root: str | Path | None = None, languages: Sequence[str] | None = None) -> Path:
    """The folder holding ``source``'s files for ``languages`` (default: the corpus's :data:`DEFAULT_LANGUAGES`):
    ``root`` (the corpus folder itself or the folder above it) when given, else the first of
    :func:`toolkit.paths.multilingual_dirs` that holds them. Missing files are TK102 naming the public repository,
    the files and every folder searched."""
    if source not in SOURCES:
        raise unknown("multilingual corpus", source, SOURCES)
    languages = tuple(languages or DEFAULT_LANGUAGES[source])
    bad = [lang for lang in languages if lang not in SOURCES[source]]
    if bad:
        raise unknown(f"{source} language", bad[0], SOURCES[source])
    names = [FILES[source].format(language=lang) for lang in languages]
    roots = [Path(root).expanduser()] if root is not None else multilingual_dirs()
    searched = []
    for base in roots:
        for folder in (base, base / FOLDERS[source]):
            searched.append(str(folder))
            if all((folder / name).is_file() for name in names):
                return folder
    raise InputError(
        f"the {source} corpus ({', '.join(names)}) was not found; looked in: {'; '.join(dict.fromkeys(searched))}.",
        fix=f"the toolkit does not ship it (no licence; the EEC asks not to be redistributed): get the files from "
            f"{REPOSITORIES[source]} and put them in "
            + (f"{roots[0] / FOLDERS[source]}/ (the folder you named is the only place looked)" if root is not None
               or os.environ.get("TOOLKIT_MULTILINGUAL_DIR") else
               f"data/multilingual_eec/{FOLDERS[source]}/, or set TOOLKIT_MULTILINGUAL_DIR to the folder above "
               f"{FOLDERS[source]}/, or pass root= (--root on the command line)") + ".")


def missing(*, sources: Sequence[str] = tuple(SOURCES), languages: Sequence[str] | None = None,
            root: str | Path | None = None) -> str:
    """Why the corpora cannot be loaded (the first missing corpus's message, with where to get it and where to put
    it), or "" when every requested file is there: a notebook prints it and skips instead of failing. An unknown
    corpus or language, or a string where a list belongs, is a coded error (never "" and a failing run after)."""
    for name, given, valid in (("sources", sources, SOURCES), ("languages", languages, ALL_LANGUAGES)):
        if isinstance(given, str):
            raise InputError(f"{name}={given!r} is one string; {name} takes a list.", fix=f"{name}=[{given!r}].")
        if given is None and name == "languages":
            continue
        if not isinstance(given, Iterable) or not len(given := tuple(given)):
            raise InputError(f"{name}={given!r} is not a list of names.", fix=f"give {name} as a non-empty list, or "
                                                                             "leave it out for the default.")
        for item in given:
            if item not in valid:
                raise unknown("multilingual corpus" if name == "sources" else "language", item, list(valid))
    for source in sources:
        wanted = [lang for lang in (languages or DEFAULT_LANGUAGES[source]) if lang in SOURCES[source]]
        if not wanted:
            continue
        try:
            find(source=source, root=root, languages=wanted)
        except InputError as exc:
            return f"{exc.message} {exc.fix}"
    return ""


def load(*, sources: Sequence[str] = tuple(SOURCES), languages: Sequence[str] | None = None,
         root: str | Path | None = None) -> pd.DataFrame:
    """Every requested corpus and language as one case table (see the module docstring). ``languages`` filters
    each corpus's languages (default: :data:`DEFAULT_LANGUAGES`); ``root`` as :func:`find`."""
    frames = []
    for source in sources:
        if source not in SOURCES:
            raise unknown("multilingual corpus", source, SOURCES)
        wanted = [lang for lang in (languages or DEFAULT_LANGUAGES[source]) if lang in SOURCES[source]]
        if not wanted:
            continue
        folder = find(source=source, root=root, languages=wanted)
        for language in wanted:
            path = folder / FILES[source].format(language=language)
            frames.append(load_camara(path, language=language) if source == "camara2022"
                          else load_goldfarb_tarrant(path, language=language))
    if not frames:
        raise InputError(f"no corpus of the sources {list(sources)} holds the languages {list(languages or [])}.",
                         fix=f"choose among {', '.join(f'{s}: {list(v)}' for s, v in SOURCES.items())} (a size such "
                             "as quick picks its sources; name them with sources= / --sources).")
    return cases.frame(pd.concat(frames, ignore_index=True), extra=EXTRA_COLUMNS)


# ---- Câmara et al. 2022 -------------------------------------------------------------------------------------------

def _english_templates() -> list[tuple[int, re.Pattern, str]]:
    """The English EEC's 11 templates as patterns catching the person and the emotion word (case, the final
    period, a/an and himself/herself as the Câmara release writes them)."""
    out = []
    for entry in load_json("eec")["templates"]:
        text = entry["template"].rstrip(".")
        pattern = re.escape(text)
        pattern = pattern.replace(re.escape("<person subject>"), r"(?P<person>.+?)")
        pattern = pattern.replace(re.escape("<person object>"), r"(?P<person>.+?)")
        pattern = pattern.replace(re.escape("himself/herself"), r"(?:himself|herself)")
        pattern = pattern.replace(re.escape("a/an"), r"(?:a|an)")
        for slot in ("<emotion word>", "<emotional situation word>"):
            pattern = pattern.replace(re.escape(slot), r"(?P<word>.+?)")
        out.append((int(entry["id"]), re.compile(rf"^{pattern}\.?$", re.IGNORECASE), entry["words"]))
    return out


def _noun_phrase_pairs() -> dict[str, str]:
    """English noun phrase (subject and object forms) → its pair key ``female/male`` (``she/he``)."""
    out = {}
    for pair in load_json("eec")["noun_phrases"]:
        forms = {g: f if isinstance(f, dict) else {"subject": f, "object": f} for g, f in pair.items()}
        key = f"{forms['female']['subject']}/{forms['male']['subject']}"
        for gender in ("female", "male"):
            for form in forms[gender].values():
                out[form.lower()] = key
    return out


def load_camara(path: str | Path, *, language: str) -> pd.DataFrame:
    """One Câmara et al. CSV as case rows (see the module docstring); a row whose English sentence fits no EEC
    template is CorpusError naming it."""
    path = Path(path)
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise CorpusError(f"{path.name} cannot be read as a CSV: {exc}.",
                          fix=f"use the file as released in {REPOSITORIES['camara2022']}.") from exc
    english = ("sentence_en" if "sentence_en" in raw.columns else "sentence.1" if "sentence.1" in raw.columns
               else "sentence")
    need = {"sentence", "template", "person", "gender", "race", "emotion", "emotion word", english}
    if missing := sorted(need - set(raw.columns)):
        raise CorpusError(f"{path.name} lacks the column(s) {missing}.",
                          fix=f"use the file as released in {REPOSITORIES['camara2022']}.")
    if raw.empty:
        raise CorpusError(f"{path.name} holds no sentences (a header only).",
                          fix=f"use the file as released in {REPOSITORIES['camara2022']}.")
    templates, pairs = _english_templates(), _noun_phrase_pairs()
    rows = []
    for index, row in enumerate(raw.itertuples(index=False, name=None)):
        values = dict(zip(raw.columns, row))
        sentence_en = values[english].strip()
        found = next(((tid, m, kind) for tid, pattern, kind in templates if (m := pattern.match(sentence_en))), None)
        if found is None:
            raise CorpusError(f"{path.name}, row {index + 1}: the English sentence {sentence_en!r} fits none of the "
                              "EEC's 11 templates.", fix="use the file as released; report the row if it is so.")
        template_id, match, kind = found
        person_en = match.group("person").strip()
        word_en = match.groupdict().get("word") or ""
        race = values["race"].strip()
        gender = values["gender"].strip()
        emotion = values["emotion"].strip()
        if gender not in ("female", "male") or race not in ("", *sorted(MINORITIZED | PRIVILEGED)):
            bad, column = (gender, "gender") if gender not in ("female", "male") else (race, "race")
            valid = ["female", "male"] if column == "gender" else ["", *sorted(MINORITIZED | PRIVILEGED)]
            raise CorpusError(f"{path.name}, row {index + 1}: {column} {bad!r} is none of {valid} (a label "
                              "rewritten?).", fix=f"use the file as released in {REPOSITORIES['camara2022']}.")
        case_id = f"camara2022:{language}:t{template_id:02d}:{word_en or 'neutral'}"
        person = values["person"].strip()
        np_pair = "" if race else pairs.get(person_en.lower(), "")
        if not race and not np_pair:
            raise CorpusError(f"{path.name}, row {index + 1}: person {person_en!r} has no race and is no EEC noun "
                              "phrase.", fix="use the file as released.")
        rows.append({
            "case_id": case_id, "variant_id": f"camara2022:{language}:{index:05d}",
            "text": values["sentence"].strip(), "attribute": "gender+race" if race else "gender",
            "group": f"{race} {gender}" if race else gender, "fill": person,
            "generator": "multilingual:camara2022", "template": values["template"].strip(), "is_original": False,
            "language": language, "source": "camara2022", "template_id": template_id, "person": person,
            "person_en": person_en if race else person_en.lower(), "gender": gender, "race": race,
            "emotion": emotion, "emotion_word": values["emotion word"].strip(), "emotion_word_en": word_en.lower(),
            "np_pair": np_pair, "pair": np_pair, "side": ""})
    out = pd.DataFrame(rows)
    # she/he are 'her'/'him' in object templates: one person id per noun-phrase member
    is_np = out["race"] == ""
    out.loc[is_np, "person_en"] = [
        key.split("/")[0] if gender == "female" else key.split("/")[1]
        for key, gender in zip(out.loc[is_np, "np_pair"], out.loc[is_np, "gender"])]
    return out


# ---- Goldfarb-Tarrant et al. 2023 ----------------------------------------------------------------------------------

def _tokens(text: str, language: str) -> list[str]:
    return text.split(" ") if language in _SPACED else list(text)


def _join(tokens: Sequence[str], language: str) -> str:
    return (" " if language in _SPACED else "").join(tokens)


def _first_difference(a: Sequence[str], b: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The first region where two token sequences differ (difflib), as (a's tokens, b's tokens)."""
    i1, i2, j1, j2 = _first_span(a, b)
    return tuple(a[i1:i2]), tuple(b[j1:j2])


def _first_span(a: Sequence[str], b: Sequence[str]) -> tuple[int, int, int, int]:
    """Where the first region of difference lies in ``a`` and ``b`` (difflib opcodes); all 0 when they are equal."""
    import difflib

    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            return i1, i2, j1, j2
    return 0, 0, 0, 0


def _period(keys: list[tuple]) -> int:
    """The block size P: the greatest common divisor of the gaps between repeats of each pair's differing words."""
    last, period = {}, 0
    for i, key in enumerate(keys):
        if key in last:
            period = math.gcd(period, i - last[key])
        last[key] = i
    return period


def _middles(block: list[list[str]]) -> tuple[int, int, list[list[str]]]:
    """Common prefix and suffix lengths of a block's token lists and what lies between them."""
    p = 0
    while all(len(x) > p for x in block) and len({x[p] for x in block}) == 1:
        p += 1
    s = 0
    while all(len(x) - p > s for x in block) and len({x[len(x) - 1 - s] for x in block}) == 1:
        s += 1
    return p, s, [x[p:len(x) - s] for x in block]


def _persons(side: list[str], other: list[str], period: int, language: str) -> list[tuple[str, str]]:
    """Per sentence of ``side``: (person surface, frame with ``<p>``). A block whose sentences share everything but
    the person gives the persons as what differs between them (``mi hermana``, not only ``hermana``); in a language
    written with spaces that span ends where the first difference from the co-indexed sentence of ``other`` ends (where
    agreement makes the block's sentences differ after the person too, ``Shirley está efurecida`` /
    ``Byron está enfurecido``). Otherwise the first region differing from ``other`` is the person."""
    longest = 4 if language in _SPACED else 10
    out = []
    for start in range(0, len(side), period):
        block = [_tokens(x, language) for x in side[start:start + period]]
        p, s, middles = _middles(block) if period > 1 else (0, 0, [[]])
        if period > 1 and p + s > 0 and all(0 < len(m) <= longest for m in middles):
            for offset, tokens in enumerate(block):
                end = len(tokens) - s
                if language in _SPACED:
                    end = min(end, max(_first_span(tokens, _tokens(other[start + offset], language))[1], p + 1))
                out.append((_join(tokens[p:end], language), _join(tokens[:p] + ["<p>"] + tokens[end:], language)))
            continue
        for offset, tokens in enumerate(block):
            mine, _ = _first_difference(tokens, _tokens(other[start + offset], language))
            surface = _join(mine, language)
            text = _join(tokens, language)
            out.append((surface, text.replace(surface, "<p>", 1) if surface else text))
    return out


def load_goldfarb_tarrant(path: str | Path, *, language: str) -> pd.DataFrame:
    """One Goldfarb-Tarrant et al. JSON as case rows (see the module docstring); lists of unequal length or without
    a block structure are CorpusError naming the emotion and lists."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(f"{path.name} cannot be read as JSON: {exc}.",
                          fix=f"use the file as released in {REPOSITORIES['goldfarb_tarrant2023']}.") from exc
    fix = f"use the file as released in {REPOSITORIES['goldfarb_tarrant2023']}."
    if not isinstance(data, dict) or not all(isinstance(lists, dict) for lists in data.values()):
        raise CorpusError(f"{path.name} is not an object of emotions, each an object of sentence lists "
                          '({"anger": {"female": [...], "male": [...]}, ...}).', fix=fix)
    for emotion_key, lists in data.items():
        for key, sentences in lists.items():
            if not isinstance(sentences, list) or not all(isinstance(x, str) for x in sentences):
                raise CorpusError(f"{path.name}: {emotion_key!r} {key!r} is not a list of sentences (strings).",
                                  fix=fix)
    gender_surfaces: dict[str, Counter] = {"female": Counter(), "male": Counter()}
    gender_frames: dict[tuple[str, str], set] = {}
    blocks = []
    for emotion_key, lists in data.items():
        emotion = "" if emotion_key == "no_emotion" else emotion_key
        for attribute, key_a, key_b in GT_PAIRS:
            if key_a not in lists and key_b not in lists:
                continue
            a, b = lists.get(key_a), lists.get(key_b)
            if a is None or b is None or len(a) != len(b) or not a:
                raise CorpusError(f"{path.name}: {emotion_key!r} lists {key_a!r} and {key_b!r} are not co-indexed "
                                  "(missing or of unequal length).", fix=fix)
            keys = [_first_difference(_tokens(x, language), _tokens(y, language)) for x, y in zip(a, b)]
            period = _period(keys) or len(a)
            if len(a) % period or any(len(set(keys[i:i + period])) != period for i in range(0, len(a), period)):
                raise CorpusError(f"{path.name}: {emotion_key!r} {key_a!r}/{key_b!r} is not a sequence of blocks of "
                                  f"one frame × {period} person pairs.", fix=fix)
            persons_a, persons_b = _persons(a, b, period, language), _persons(b, a, period, language)
            blocks.append((emotion, attribute, key_a, key_b, a, b, period, persons_a, persons_b))
            if attribute == "gender":
                for (surface, frame), group in [(x, "female") for x in persons_a] + [(x, "male") for x in persons_b]:
                    gender_surfaces[group][surface] += 1
                    gender_frames.setdefault((emotion, group), set()).add(frame)
    if not blocks:
        raise CorpusError(f"{path.name} holds no pair of co-indexed sentence lists "
                          f"({', '.join(f'{a!r}/{b!r}' for _, a, b in GT_PAIRS)}).", fix=fix)
    frames = {frame for block in blocks for persons in block[7:9] for _, frame in persons}
    templates = _templates(frames, language)
    for emotion, attribute, key_a, key_b, a, b, period, persons_a, persons_b in blocks:
        apart = [i for i, ((_, x), (_, y)) in enumerate(zip(persons_a, persons_b))
                 if templates[x][0] != templates[y][0]]
        if apart:  # a minimal pair shares its template (every pair of the released files does)
            i = apart[0]
            raise CorpusError(f"{path.name}: {emotion or 'no_emotion'!r} {key_a!r}/{key_b!r}: {len(apart)} co-indexed "
                              f"sentences are not one template with two persons, e.g. item {i}: {a[i]!r} against "
                              f"{b[i]!r} (a list shifted or reordered?).", fix=fix)
    template_ids: dict[str, int] = {}
    rows = []
    for emotion, attribute, key_a, key_b, a, b, period, persons_a, persons_b in blocks:
        group_a, group_b = key_a.split(": ")[-1], key_b.split(": ")[-1]
        position_names = {}
        for side, persons in (("a", persons_a), ("b", persons_b)):
            counts = [Counter() for _ in range(period)]
            for i, (surface, _) in enumerate(persons):
                counts[i % period][surface] += 1
            position_names[side] = [c.most_common(1)[0][0] for c in counts]
        genders = _race_genders(attribute, persons_a + persons_b, period, emotion, gender_surfaces, gender_frames)
        for i, (x, y) in enumerate(zip(a, b)):
            block, position = divmod(i, period)
            frame_a = persons_a[block * period][1]
            template = templates[frame_a][0] if language in _SPACED else f"{emotion}|{frame_a}"
            template_id = template_ids.setdefault(template, len(template_ids) + 1)
            case_id = f"goldfarb_tarrant2023:{language}:{attribute}:{emotion or 'neutral'}:f{block:03d}"
            for side, text, group, (surface, frame) in (("a", x, group_a, persons_a[i]), ("b", y, group_b, persons_b[i])):
                gender = (group if attribute == "gender" else genders[position])
                race = group if attribute == "race" else ""
                rows.append({
                    "case_id": case_id, "variant_id": f"{case_id}:{side}{position:03d}", "text": text,
                    "attribute": attribute, "group": group, "fill": surface,
                    "generator": "multilingual:goldfarb_tarrant2023", "template": templates[frame][0],
                    "is_original": False,
                    "language": language, "source": "goldfarb_tarrant2023", "template_id": template_id,
                    "person": position_names[side][position], "person_en": f"{attribute}:{side}{position:03d}",
                    "gender": gender, "race": race, "emotion": emotion, "emotion_word": templates[frame][1],
                    "emotion_word_en": "", "np_pair": "", "pair": f"p{position:03d}", "side": side})
    return pd.DataFrame(rows)


def _templates(frames: set[str], language: str) -> dict[str, tuple[str, str]]:
    """Each frame (a sentence with ``<p>``) → (its template with ``<e>``, its emotion word). In a language written
    with spaces, the emotion word is the one word whose replacement by ``<e>`` gives the template most frames share
    (at least 3: a template meets several emotion words), without the punctuation that follows it; a frame without
    such a word (a neutral template) is its own template. Japanese is written without spaces: every frame is its own template, its word unknown."""
    if language not in _SPACED:
        return {frame: (frame, "") for frame in frames}
    candidates = {}
    support: Counter = Counter()
    for frame in frames:
        tokens = frame.split(" ")
        options = [(" ".join(tokens[:j] + ["<e>"] + tokens[j + 1:]), _word(token)) for j, token in enumerate(tokens)
                   if "<p>" not in token]
        candidates[frame] = options
        support.update({template for template, _ in options})
    out = {}
    for frame, options in candidates.items():
        best = max(options, key=lambda option: support[option[0]], default=(frame, ""))
        out[frame] = best if support[best[0]] >= 3 else (frame, "")
    return out


def _word(token: str) -> str:
    """A token without the punctuation that ends its sentence or clause ("glücklich." → "glücklich"): the emotion
    word is the same word at the end of a sentence and inside one (the template's slot stays the whole token)."""
    return token.rstrip(".,!?;:。，！？")


def _race_genders(attribute: str, persons: list[tuple[str, str]], period: int, emotion: str,
                  surfaces: dict[str, Counter], frames: dict[tuple[str, str], set]) -> list[str]:
    """The gender of each position of a race (or rank) list, from both members' (surface, frame) in list order: the
    gender whose list holds a member's surface, or whose frames hold its sentence (agreement); "" when neither
    tells, or when the votes tie."""
    if attribute == "gender":
        return [""] * period
    votes = [Counter() for _ in range(period)]
    for i, (surface, frame) in enumerate(persons):
        for gender in ("female", "male"):
            if surfaces[gender][surface] and not surfaces[_other(gender)][surface]:
                votes[i % period][gender] += 1
            elif frame in frames.get((emotion, gender), ()) and frame not in frames.get((emotion, _other(gender)), ()):
                votes[i % period][gender] += 1
    return [v.most_common(1)[0][0] if v and (len(v) == 1 or v.most_common(2)[0][1] > v.most_common(2)[1][1]) else ""
            for v in votes]


def _other(gender: str) -> str:
    return "male" if gender == "female" else "female"


def design(table: pd.DataFrame) -> pd.DataFrame:
    """Per corpus × language × attribute: cases, rows, templates (frames), persons and minimal pairs — the design a
    study runs on. Columns ``source, language, attribute, n_cases, n_rows, n_templates, n_persons``."""
    rows = []
    for (source, language, attribute), block in table.groupby(["source", "language", "attribute"], sort=False):
        rows.append({"source": source, "language": language, "attribute": attribute,
                     "n_cases": int(block["case_id"].nunique()), "n_rows": int(len(block)),
                     "n_templates": int(block["template_id"].nunique()),
                     "n_persons": int(block["person_en"].nunique())})
    return pd.DataFrame(rows, columns=["source", "language", "attribute", "n_cases", "n_rows", "n_templates",
                                       "n_persons"])


__all__ = ["DEFAULT_LANGUAGES", "EXTRA_COLUMNS", "SOURCES", "design", "find", "load", "load_camara",
           "load_goldfarb_tarrant", "missing"]
