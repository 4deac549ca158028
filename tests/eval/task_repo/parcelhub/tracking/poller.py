"""Tracking poller."""

POLL_MINUTES = 30
