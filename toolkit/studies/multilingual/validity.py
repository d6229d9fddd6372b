"""The multilingual study's validity check: :mod:`toolkit.validity`, where it lives beside the English EEC's use of
it (each system's clustered AUC for its task's emotion, per language × source × model × task)."""
from toolkit.validity import COLUMNS, EMOTIONS, FAMILY, WEAK, caveats, clustered_auc, validity

__all__ = ["COLUMNS", "EMOTIONS", "FAMILY", "WEAK", "caveats", "clustered_auc", "validity"]
