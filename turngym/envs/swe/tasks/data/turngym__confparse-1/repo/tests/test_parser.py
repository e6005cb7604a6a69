import pytest

from confparse import ConfigError, get_bool, get_int, parse

TEXT = """
# service settings
name = demo

[server]
port = 8080
debug = yes
"""


def test_sections_and_default():
    assert parse(TEXT) == {"default": {"name": "demo"}, "server": {"port": "8080", "debug": "yes"}}


def test_bad_line_raises():
    with pytest.raises(ConfigError, match="line 2"):
        parse("[a]\njust words")


def test_typed_lookups():
    config = parse(TEXT)
    assert get_int(config, "server", "port") == 8080
    assert get_bool(config, "server", "debug") is True
    assert get_int(config, "server", "workers", default=4) == 4


def test_empty_value():
    assert parse("key =")["default"] == {"key": ""}
