"""Typed lookups with defaults."""

_TRUE = {"1", "yes", "true", "on"}
_FALSE = {"0", "no", "false", "off"}


def get_int(config: dict[str, dict[str, str]], section: str, key: str, default: int = 0) -> int:
    """``section.key`` as an int, or ``default`` when absent."""
    value = config.get(section, {}).get(key)
    return default if value is None else int(value)


def get_bool(
    config: dict[str, dict[str, str]], section: str, key: str, default: bool = False
) -> bool:
    """``section.key`` as a bool (yes/no, true/false, on/off, 1/0)."""
    value = config.get(section, {}).get(key)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ValueError(f"{section}.{key}: {value!r} is not a boolean")
