"""A run's outputs: ``files`` (the leaf: staging, locks, disk-full, tables on disk), the pure renderers ``report``
(HTML) and ``latex`` (TeX), and ``runs`` composing them (a study's results folder, reports and LaTeX of runs).
Import the submodules: ``from toolkit.outputs import runs``."""
