"""Seeding: read records from the working tree or a commit, diff against the catalog, write the index."""
