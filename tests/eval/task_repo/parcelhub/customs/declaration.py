"""Customs declarations."""
