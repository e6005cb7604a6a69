"""Encode and decode Roman numerals."""
from romancodec.codec import RomanError, from_roman, is_roman, to_roman

__all__ = ["RomanError", "from_roman", "is_roman", "to_roman"]
