"""Moved to :mod:`toolkit.studies.biasfinder` (each study is one package there); this name stays importable for
one release and warns."""
from toolkit.errors import moved

moved("toolkit.biasfinder", "toolkit.studies.biasfinder")

from toolkit.studies.biasfinder import *
from toolkit.studies.biasfinder import __doc__
