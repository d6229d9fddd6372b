"""Robust parsing of LLM replies: numbered/bulleted lists, JSON(-ish) lists and objects, ``key: value`` lines."""
from __future__ import annotations

import json
import re

_ITEM = re.compile(r"^\s*(?:\d+\s*[.):]|[-*•]|\(\d+\))\s+(.*\S)\s*$")
_FENCE = re.compile(r"```(?:json)?")
_KEY_VALUE = re.compile(r"^\s*(?:\d+\s*[.):]\s*|[-*•]\s*)?\**\"?([^\":*]+?)\"?\**\s*[:=\-–]\s+(.*\S)\s*$")


def _unquote(text: str) -> str:
    text = text.strip().strip(",")
    return text[1:-1].strip() if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'" else text


def numbered(reply: str) -> list[str]:
    """Items of a numbered or bulleted list; with no list markers, the non-empty lines. Quotes are stripped."""
    lines = [line for line in _FENCE.sub("", reply).splitlines() if line.strip()]
    items = [m.group(1) for m in map(_ITEM.match, lines) if m]
    return [_unquote(item) for item in (items or lines)]


def json_value(reply: str) -> object | None:
    """The first JSON list or object in ``reply`` (code fences, prose around it, trailing commas and single quotes
    tolerated), or None."""
    text = _FENCE.sub("", reply)
    for opening, closing in (("[", "]"), ("{", "}")):
        start, end = text.find(opening), text.rfind(closing)
        if start == -1 or end <= start:
            continue
        chunk = text[start:end + 1]
        for candidate in (chunk, re.sub(r",\s*([\]}])", r"\1", chunk).replace("'", '"')):
            try:
                value = json.loads(candidate)
            except (json.JSONDecodeError, RecursionError):  # nested past Python's recursion limit: not an answer
                continue
            return value if _depth(value) <= MAX_DEPTH else None
    return None


MAX_DEPTH = 16
"""JSON in a reply nested deeper than this is no answer the prompts ask for (a list of objects of strings): ignored,
so reading it (``str()`` of a nested value) cannot exceed the recursion limit."""


def _depth(value: object) -> int:
    """The nesting depth of a parsed JSON value (a scalar is 0), found without recursion."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth + 1)
            if deepest > MAX_DEPTH:
                return deepest
            todo += [(v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)]
    return deepest


def triplets(reply: str) -> list[dict[str, str]]:
    """BTS triplets from a JSON list of objects, or from ``topic | identity term | concept term`` lines."""
    value = json_value(reply)
    keys = ("topic", "identity_term", "concept_term")
    if isinstance(value, list):
        return [{k: str(item[k]).strip() for k in keys} for item in value
                if isinstance(item, dict) and all(item.get(k) for k in keys)]
    parts = [[p.strip() for p in re.split(r"\s*[|;]\s*", item)] for item in numbered(reply)]
    return [dict(zip(keys, p)) for p in parts if len(p) == 3 and all(p)]


def mapping(reply: str) -> dict[str, str]:
    """A ``{key: text}`` mapping from a JSON object or from ``key: text`` lines."""
    value = json_value(reply)
    if isinstance(value, dict):
        return {str(k).strip(): str(v).strip() for k, v in value.items() if str(v).strip()}
    found = (_KEY_VALUE.match(line) for line in _FENCE.sub("", reply).splitlines())
    return {m.group(1).strip(): _unquote(m.group(2)) for m in found if m}
