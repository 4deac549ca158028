"""Recall under the memory contract: floor, weights, default filters, hybrid evidence, receipts."""
