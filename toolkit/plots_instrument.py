"""The names-and-templates figures, now :mod:`toolkit.plots.instrument` (kept so old imports work)."""

from toolkit.errors import moved

moved("toolkit.plots_instrument", "toolkit.plots.instrument")
from toolkit.plots.instrument import ANALYSIS_STYLE, confounds, intersections, wording
