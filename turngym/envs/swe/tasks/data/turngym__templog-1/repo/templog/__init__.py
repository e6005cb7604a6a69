"""Parse temperature logs and summarise them."""
from templog.parse import Reading, parse_log
from templog.stats import daily_summaries, summary

__all__ = ["Reading", "parse_log", "daily_summaries", "summary"]
