"""One route module per resource: search, papers, marks (stars, tags, notes)."""
