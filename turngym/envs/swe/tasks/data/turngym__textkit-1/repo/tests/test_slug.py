from textkit import slugify


def test_slugify_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_slugify_custom_separator():
    assert slugify("Read me first", sep="_") == "read_me_first"


def test_slugify_strips_edges():
    assert slugify("  --Top 10 tips--  ") == "top-10-tips"
