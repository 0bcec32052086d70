"""Derivative rules for ``scipy.linalg`` (work in progress)."""
