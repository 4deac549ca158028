"""The index: a SQLite catalog (truth about what is indexed) and a Chroma collection (vectors)."""
