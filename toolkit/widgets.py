"""Moved: the apps live in each study's package (``toolkit.studies.<study>.app``; one runner in
:mod:`toolkit.apps`), the annotation app in :mod:`toolkit.studies.biasfinder.annotation`. These names stay importable
from here for one release and warn."""
from toolkit.errors import moved

moved("toolkit.widgets", "toolkit.studies.<study>.app (and toolkit.apps)")

from toolkit.apps import ModelField, table, widget_message
from toolkit.apps.fields import split_specs as _split_specs
from toolkit.apps.runner import _RUN_LOCK
from toolkit.apps.tables import _number_format
from toolkit.studies.biasfinder.annotation import (
    ANNOTATION_LOCK_TIMEOUT_S,
    AnnotationApp,
    _lock_path,
    _read_rows,
    _replace_rows,
    annotation_app,
    upsert_annotation,
)
from toolkit.studies.biasfinder.app import BiasFinderApp, biasfinder_app
from toolkit.studies.biasfinder.captions import biasfinder_family as _biasfinder_family
from toolkit.studies.btcsam.app import BTCSAMApp, btcsam_app
from toolkit.studies.eec.app import EECApp, eec_app
from toolkit.studies.eec.captions import eec_family as _caption_family
from toolkit.studies.psa.app import PSAApp, psa_app
