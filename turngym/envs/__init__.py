"""Environments: text tasks, classic-control bridges, games, web, GUI and SWE."""
