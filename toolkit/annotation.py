"""Moved to :mod:`toolkit.studies.biasfinder.annotation` (BiasFinder's annotation app); this name stays
importable for one release and warns."""
from toolkit.errors import moved

moved("toolkit.annotation", "toolkit.studies.biasfinder.annotation")

from toolkit.studies.biasfinder.annotation import *
