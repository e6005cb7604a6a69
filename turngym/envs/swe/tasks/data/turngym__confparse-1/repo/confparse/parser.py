"""Parse config text into {section: {key: value}}."""


class ConfigError(ValueError):
    """A line that is neither a section, a comment nor key = value."""


def parse(text: str) -> dict[str, dict[str, str]]:
    """Sections of ``text``; keys before any section go to "default"."""
    config: dict[str, dict[str, str]] = {}
    section = config.setdefault("default", {})
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1].strip()
            if not name:
                raise ConfigError(f"line {number}: empty section name")
            section = config.setdefault(name, {})
            continue
        if "=" not in line:
            raise ConfigError(f"line {number}: expected key = value, got {line!r}")
        key, value = line.split("=")
        section[key.strip()] = value.strip()
    return config
