"""Maintenance: checks and repairs over the whole pipeline (`jgm doctor`). Above seed and recall because a
repair is a normal seed plus what a seed cannot see; below the surfaces that run it."""
