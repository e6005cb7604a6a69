"""Sales reports from CSV exports."""

from csvreport.loader import load
from csvreport.report import by_region, render, summary

__all__ = ["by_region", "load", "render", "summary"]
