"""The bottom layer: where the store lives (paths, the one-writer lock, the log) and the root error.

Everything may import this; it imports nothing of ours. See the `layers` contract in pyproject.toml.
"""
