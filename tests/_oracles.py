"""Naive reference implementations: slow, obviously correct, for testing the kernels.

Every fast kernel has an oracle here and a test that they agree.
"""
