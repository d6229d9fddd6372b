"""A run's outputs: ``files`` (the leaf: staging, locks, disk-full, tables on disk), the pure renderers ``report``
(HTML) and ``latex`` (TeX), ``runs`` composing them (a study's results folder, reports and LaTeX of runs) and
``annotations`` (the annotation CSVs). Import the submodules: ``from toolkit.outputs import runs``."""
