"""Moved to :mod:`toolkit.studies.agreement` (each study is one package there); this name stays importable for
one release and warns."""
from toolkit.errors import moved

moved("toolkit.agreement", "toolkit.studies.agreement")

from toolkit.studies.agreement import *
from toolkit.studies.agreement import __doc__
