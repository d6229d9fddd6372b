"""What a run writes: result folders, reports, LaTeX tables and annotation files."""
