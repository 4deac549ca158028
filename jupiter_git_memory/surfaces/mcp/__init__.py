"""The MCP surface: tools and prompts over the application layer (stdio or streamable HTTP)."""
