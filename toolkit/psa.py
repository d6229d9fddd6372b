"""Moved to :mod:`toolkit.studies.psa` (each study is one package there); this name stays importable for
one release and warns."""
from toolkit.errors import moved

moved("toolkit.psa", "toolkit.studies.psa")

from toolkit.studies.psa import *
from toolkit.studies.psa import __doc__
