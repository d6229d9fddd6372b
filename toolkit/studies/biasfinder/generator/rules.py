"""BiasFinder coherence rules: every filter or repair this project added to BiasFinder's generator, named, in one
registry (their history and readings: ``docs/biasfinder_imdb_train.md``; the table:
``docs/biasfinder_rules.md``).

``generate(..., coherence=...)`` picks the active set (:func:`active`): ``"default"`` (every rule: the generator as
it was before the rules had names, byte for byte), ``"paper"`` (none: BiasFinder's generator as this toolkit runs
it) or an iterable of rule names. An unknown name is TK103 listing the valid ones.

What is *not* a rule (BiasFinder's generator itself, always on): coreference with exactly one person cluster per
review (under ``coherence="paper"`` BiasFinder's own test, :mod:`.paper`, with ``backend="neuralcoref"`` the model
it ran; otherwise this project's acceptance on the ``rules`` backend, where reviews holding both genders' pronouns
never give one),
the slots of names, pronouns (typed by the parse) and the preset's gender nouns (a noun the preset cannot swap
rejects the review), the country template reproducing the review around the names with no word of a replaced name
left, and the occupation instance's one listed occupation per review, as a singular common noun outside a named
entity, with its adjectival and compound modifiers removed.

Each rule is a function registered with :func:`rule` (``@rule("name", instances=..., kind=..., rejects=...,
example=..., test=...)``) in the module that implements it; the catalogue (:data:`RULES`, :func:`table`) is read off
that registry: its ``where`` names the registered functions, its order is the stage's (gender and country, country,
every instance, occupation) then the order of registration. A registered check is called with the active set
(``check(..., rules=rules)``): off, a reject check answers False and a repair returns its input unchanged. Each
:class:`Rule` has a name, the instances (stages) it acts in, what it rejects (or, for a ``repair``, what it
changes), the example that motivated it and the test that holds it. A ``reject`` rule removes a review's template;
the generation report counts, per stage and rule, the reviews each rejected (the first active rule that rejects,
in the order below). A ``repair`` rule rewrites the template instead and is not counted.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from toolkit.errors import unknown

PRESETS = ("default", "paper")
GC, COUNTRY, ALL, OCC = ("gender", "country"), ("country",), ("gender", "country", "occupation"), ("occupation",)
_STAGE_ORDER = {GC: 0, COUNTRY: 1, ALL: 2, OCC: 3}
# each rule's test in tests/test_biasfinder_rules.py (the readings' cases: test_generators_biasfinder_coherence.py)
_FILE = "tests/test_biasfinder_rules.py::"
GENDER_TEST = _FILE + "test_a_gender_rule_rejects_its_example_and_lets_it_through_when_off[{}]"
OCCUPATION_TEST = _FILE + "test_an_occupation_rule_rejects_its_example_and_lets_it_through_when_off[{}]"
CLUSTER_TEST = _FILE + "test_a_rule_for_a_cluster_a_neural_backend_may_give[{}]"


@dataclass(frozen=True)
class Rule:
    """One coherence rule: ``kind`` is 'reject' (the review yields no template in ``instances``) or 'repair' (the
    template is rewritten); ``where`` names the registered functions that implement it."""

    name: str
    instances: tuple[str, ...]
    kind: str
    rejects: str
    example: str
    test: str
    where: str


_REGISTERED: dict[str, dict] = {}  # name → its metadata and the functions registered under it


def rule(name: str, *, instances: tuple[str, ...] | None = None, kind: str = "reject", rejects: str = "",
         example: str = "", test: str = "", unchanged: Callable | None = None) -> Callable:
    """Register the decorated check as (a part of) the coherence rule ``name``. The first registration of a name
    carries its catalogue entry (``instances``, ``kind``, ``rejects``, ``example``, ``test``: ``{}`` in it becomes
    the name); later ones only add a function. The returned function takes the active set as ``rules=``: when
    ``name`` is off it returns ``unchanged(*args)`` (a repair: its input) or False (a reject check)."""

    def register(check: Callable) -> Callable:
        entry = _REGISTERED.get(name)
        if entry is None:
            if instances is None or kind not in ("reject", "repair") or not (rejects and example and test):
                raise ValueError(f"the first registration of coherence rule {name!r} needs instances, kind, rejects, "
                                 "example and test.")
            entry = _REGISTERED[name] = {"instances": tuple(instances), "kind": kind, "rejects": rejects,
                                         "example": example, "test": test.format(name), "where": []}
        elif instances is not None or rejects or example or test:
            raise ValueError(f"coherence rule {name!r} is already described; register further functions with "
                             f"@rule({name!r}) alone.")
        where = f"{check.__module__.rsplit('.', 1)[-1]}.{check.__qualname__}"
        if where not in entry["where"]:
            entry["where"].append(where)

        @functools.wraps(check)
        def gated(*args, rules: frozenset[str], **kwargs):
            if name in rules:
                return check(*args, **kwargs)
            return unchanged(*args, **kwargs) if unchanged is not None else False

        gated.rule = name
        return gated

    return register


def catalogue() -> dict[str, Rule]:
    """Every registered rule by name, in catalogue order (module docstring)."""
    order = sorted(enumerate(_REGISTERED.items()), key=lambda item: (_STAGE_ORDER.get(item[1][1]["instances"], 4),
                                                                     item[0]))
    return {name: Rule(name, e["instances"], e["kind"], e["rejects"], e["example"], e["test"], ", ".join(e["where"]))
            for _, (name, e) in order}


def __getattr__(name: str):
    """:data:`RULES` (the catalogue) and :data:`DEFAULT` (every rule's name), read off the registry when asked."""
    if name == "RULES":
        return catalogue()
    if name == "DEFAULT":
        return frozenset(_REGISTERED)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def active(coherence: str | Iterable[str] = "default") -> frozenset[str]:
    """The active rule names: ``"default"`` (every registered rule), ``"paper"`` (none) or an iterable of names
    (TK103 for an unknown one, listing the valid names and presets)."""
    names_known = catalogue()
    if isinstance(coherence, str):
        if coherence == "default":
            return frozenset(names_known)
        if coherence == "paper":
            return frozenset()
        if coherence in names_known:
            return frozenset({coherence})
        raise unknown("coherence rule or preset", coherence, (*PRESETS, *names_known))
    names = frozenset(coherence)
    for name in sorted(names, key=str):
        if not isinstance(name, str) or name not in names_known:
            raise unknown("coherence rule", str(name), names_known)
    return names


def label(rules: frozenset[str]) -> str:
    """'default', 'paper' or 'custom' for an active set."""
    return "default" if rules == frozenset(_REGISTERED) else "paper" if not rules else "custom"


def record(rules: frozenset[str]) -> dict:
    """What provenance stores: the preset label and the active rules in catalogue order."""
    names = list(catalogue())
    return {"preset": label(rules), "rules": [name for name in names if name in rules],
            "off": [name for name in names if name not in rules]}


def table() -> list[dict]:
    """The catalogue as rows (name, instances, kind, rejects, example, test, where), for docs and notebooks."""
    return [{"name": r.name, "instances": ", ".join(r.instances), "kind": r.kind, "rejects": r.rejects,
             "example": r.example, "test": r.test, "where": r.where} for r in catalogue().values()]
