"""Shim: the apps live in :mod:`toolkit.apps` (one runner, a thin app per study); these names stay importable from
here for notebooks and scripts written before the move. The annotation app lives in :mod:`toolkit.studies.biasfinder.annotation`."""

from toolkit.errors import moved

moved("toolkit.widgets", "toolkit.apps and each study's app (toolkit.studies.<study>.app)")
from toolkit.studies.biasfinder.annotation import (  # noqa: F401
                                ANNOTATION_LOCK_TIMEOUT_S,
                                AnnotationApp,
                                _lock_path,
                                _read_rows,
                                _replace_rows,
                                annotation_app,
                                upsert_annotation,
)
from toolkit.apps import (  # noqa: F401
                                BiasFinderApp,
                                BTCSAMApp,
                                EECApp,
                                ModelField,
                                PSAApp,
                                biasfinder_app,
                                btcsam_app,
                                eec_app,
                                psa_app,
                                table,
                                widget_message,
)
from toolkit.studies.biasfinder.captions import biasfinder_family as _biasfinder_family  # noqa: F401
from toolkit.studies.eec.captions import eec_family as _caption_family  # noqa: F401
from toolkit.apps.fields import split_specs as _split_specs  # noqa: F401
from toolkit.apps.runner import _RUN_LOCK  # noqa: F401
from toolkit.apps.tables import _number_format  # noqa: F401
