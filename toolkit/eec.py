"""Moved to :mod:`toolkit.studies.eec` (each study is one package there); this name stays importable for
one release and warns."""
from toolkit.errors import moved

moved("toolkit.eec", "toolkit.studies.eec")

from toolkit.studies.eec import *
from toolkit.studies.eec import __doc__
