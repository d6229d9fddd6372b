"""ipywidgets apps: pickers wired to the package's study functions, nothing more.

One small runner (:mod:`toolkit.apps.runner`: thread, Run/Cancel, progress, status line, export, drill-down) and a
thin app per study (:mod:`~toolkit.studies.eec.app`, :mod:`~toolkit.studies.psa.app`, :mod:`~toolkit.studies.biasfinder.app`,
:mod:`~toolkit.studies.btcsam.app`, :mod:`~toolkit.studies.multilingual.app`) that says which arguments its fields give the study function and what to show of the
result. The study function is injected (``study=``; default the study's ``run``), so the UI logic is tested with a
fake study and each app with one real run. Every app that runs models takes the same model field
(:class:`~toolkit.apps.fields.ModelField`); tables carry a caption (what, n, the correction family and its size) and
one number format (:func:`~toolkit.apps.tables.table`). Figures are drawn on figures pyplot does not manage
(:mod:`toolkit.plots`) and appended to the app's own ``Output`` explicitly.
"""
from toolkit.apps.fields import ModelField, split_specs
from toolkit.apps.messages import widget_message
from toolkit.apps.runner import Runner
from toolkit.apps.tables import table

__all__ = ["ModelField", "Runner", "split_specs", "table", "widget_message"]
