"""Webhook retry schedule."""

MAX_ATTEMPTS = 8
