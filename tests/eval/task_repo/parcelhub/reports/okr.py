"""Quarterly reports."""
