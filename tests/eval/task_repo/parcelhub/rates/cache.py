"""Rate quote cache."""

TTL_SECONDS = 15 * 60
