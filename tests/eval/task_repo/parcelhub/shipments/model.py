"""Shipment model."""
