"""Notification e-mail jobs."""
