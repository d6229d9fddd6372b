"""Moved to :mod:`toolkit.studies.btcsam` (each study is one package there); this name stays importable for
one release and warns."""
from toolkit.errors import moved

moved("toolkit.btcsam", "toolkit.studies.btcsam")

from toolkit.studies.btcsam import *
from toolkit.studies.btcsam import __doc__
