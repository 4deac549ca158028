"""Heading/paragraph-aware chunking of record bodies within a model's token limit (pure)."""
