"""Small lexicons and word lists this project wrote itself, shipped as package data."""
from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def load_json(name: str) -> dict:
    """The parsed ``toolkit/resources/<name>.json``."""
    return json.loads(resources.files(__package__).joinpath(f"{name}.json").read_text(encoding="utf-8"))
