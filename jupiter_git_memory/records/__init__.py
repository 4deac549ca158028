"""Knowledge records: the Markdown + YAML frontmatter format and its parser (pure)."""
