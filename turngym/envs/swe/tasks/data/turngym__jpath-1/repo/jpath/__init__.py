"""Look values up in nested JSON data with paths such as `users[0].name`."""
from jpath.lookup import PathError, get, has
from jpath.parse import parse_path

__all__ = ["PathError", "get", "has", "parse_path"]
