"""BiasFinder's coherence rules as registered functions (issues 33/34): each catalogue entry names functions that
are registered under it, a registered check is gated by the active set, the catalogue is read off the registry, and
no generator module tests a rule by its name any more."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import toolkit.studies.biasfinder.generator
from toolkit.errors import UnknownNameError
from toolkit.studies.biasfinder.generator import rules as registry
from toolkit.studies.biasfinder.generator.rules import RULES, active, rule

PACKAGE = Path(registry.__file__).parent


@pytest.mark.parametrize("name", sorted(RULES))
def test_each_rule_names_functions_registered_under_it(name):
    for where in RULES[name].where.split(", "):
        module, function = where.split(".")
        check = getattr(importlib.import_module(f"toolkit.studies.biasfinder.generator.{module}"), function)
        assert check.rule == name


def test_a_registered_check_answers_false_when_off_and_a_repair_returns_its_input():
    from toolkit.studies.biasfinder.generator import articles, gender

    assert gender._stray_pronoun("and he said", rules=frozenset({"stray_pronoun"})) is True
    assert gender._stray_pronoun("and he said", rules=frozenset()) is False
    assert articles.agree("an <occupation>", rules=frozenset({"article_agreement"})) == "<a> <occupation>"
    assert articles.agree("an <occupation>", rules=frozenset()) == "an <occupation>"


def test_a_new_rule_joins_the_catalogue_and_the_valid_names():
    @rule("test_only_rule", instances=("occupation",), rejects="nothing", example="an example",
          test="tests/test_biasfinder_rule_registry.py::{}")
    def _check(text: str) -> bool:
        return "x" in text

    try:
        assert list(registry.RULES)[-1] == "test_only_rule"
        assert registry.RULES["test_only_rule"].test.endswith("::test_only_rule")
        assert active(["test_only_rule"]) == frozenset({"test_only_rule"})
        assert _check("x", rules=active("default")) is True
    finally:
        del registry._REGISTERED["test_only_rule"]
    with pytest.raises(UnknownNameError, match="test_only_rule"):
        active(["test_only_rule"])


def test_a_rule_is_described_once():
    with pytest.raises(ValueError, match="already described"):
        rule("deity", instances=("gender",), rejects="x", example="y", test="z")(lambda: None)
    with pytest.raises(ValueError, match="needs instances"):
        rule("undescribed_rule")(lambda: None)


def test_no_generator_module_tests_a_rule_by_its_name():
    pattern = re.compile(r"""["'](\w+)["']\s+(?:not\s+)?in\s+rules\b""")
    found = {path.name: pattern.findall(path.read_text()) for path in PACKAGE.glob("*.py")}
    assert {name: hits for name, hits in found.items() if set(hits) & set(RULES)} == {}
