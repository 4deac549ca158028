"""Webhook delivery."""

SIGNATURE_HEADER = "X-Parcelhub-Signature"
