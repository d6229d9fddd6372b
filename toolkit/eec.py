"""Moved to :mod:`toolkit.studies.eec` (each study is one package there); this name stays importable for
one release and warns."""
from toolkit.errors import moved

moved("toolkit.eec", "toolkit.studies.eec")

from toolkit.studies.eec import *  # noqa: E402,F401,F403
from toolkit.studies.eec import __doc__  # noqa: E402,F401
