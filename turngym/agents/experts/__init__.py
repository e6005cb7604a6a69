"""Scripted expert agents, one module per env; each is built as ``Expert(env)``."""
