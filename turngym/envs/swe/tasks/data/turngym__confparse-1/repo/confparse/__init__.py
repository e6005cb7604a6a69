"""An INI-like config reader: [sections], key = value lines and # comments."""

from confparse.parser import ConfigError, parse
from confparse.typed import get_bool, get_int

__all__ = ["ConfigError", "get_bool", "get_int", "parse"]
