"""Candidates: what agents observe, kept out of the project's rules until a reviewer promotes it.

validate (pure checks) → service (record, dedup, idempotent save-then-index, review states) →
propose (a branch with the record file, by Git plumbing); promotion is a lifecycle step
(lifecycle/promote.py) the seeder applies on the post-merge reseed.
"""
