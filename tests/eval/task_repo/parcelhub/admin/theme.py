"""Admin dashboard colours."""

PRIMARY = "#1d4ed8"
