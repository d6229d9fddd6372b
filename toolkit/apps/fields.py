"""The one model field of every app: a list of named models plus a "more specs" text (``hf:``, ``py:``, ``llm:``,
``ait:``; commas inside ``?labels=a,b`` stay in their spec)."""
from __future__ import annotations

import warnings
from collections.abc import Sequence

import ipywidgets as w

from toolkit import models as model_registry


def split_specs(text: str, *, selected: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """The ``selected`` specs then those typed in a "more specs" field, each once
    (:func:`toolkit.models.split_specs`: commas inside ``?labels=a,b`` stay in their spec), and the notes it gave
    (a spec given twice), for the status line rather than the kernel's log."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        specs = model_registry.split_specs(text, selected=selected)
    return specs, [str(c.message) for c in caught]


def named_models() -> list[str]:
    """The registry's named models (no ``family:`` specs): the list an app offers."""
    return [m for m in model_registry.available() if ":" not in m]


class ModelField:
    """The one model field of every app: ``models`` (a list of named models, and a task's systems) and ``extra``
    ("more specs": any ``hf:``/``py:``/``llm:``/``ait:`` spec, comma-separated; commas inside ``?labels=`` stay).
    :meth:`specs` is the ticked models then the typed ones, each once."""

    def __init__(self, *, options: Sequence[str], chosen: Sequence[str]) -> None:
        self.models = w.SelectMultiple(description="models", rows=8)
        self.notes: list[str] = []  # what splitting the field said (a spec given twice)
        self.extra = w.Text(placeholder="hf:<folder or owner/name>?labels=neg,pos, py:module:function",
                            description="more specs")
        self.offer(options=options, chosen=chosen)

    def offer(self, *, options: Sequence[str], chosen: Sequence[str]) -> None:
        """Show ``options``; tick those of ``chosen`` among them and type the rest in "more specs"."""
        self.models.options = list(options)
        self.models.value = [m for m in chosen if m in options]
        self.extra.value = ", ".join(m for m in chosen if m not in options)

    def specs(self) -> list[str]:
        specs, self.notes = split_specs(self.extra.value, selected=self.models.value)
        return specs
