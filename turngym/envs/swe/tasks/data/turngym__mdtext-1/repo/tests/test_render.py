from mdtext import to_text
from mdtext.blocks import split_blocks


def test_heading_and_paragraph():
    src = "# Title\n\nSome *nice* text\nwrapped here.\n"
    assert to_text(src) == "TITLE\nSome nice text wrapped here."


def test_links_and_code():
    src = "See [the docs](http://x.y) and `run()`."
    assert to_text(src) == "See the docs and run()."
    assert to_text(src, show_urls=True) == "See the docs (http://x.y) and run()."


def test_list_items():
    src = "Shopping:\n- **milk**\n* eggs\n1. bread"
    assert to_text(src) == "Shopping:\n- milk\n- eggs\n- bread"


def test_nested_emphasis():
    assert to_text("a **_b_** c") == "a b c"


def test_block_kinds():
    kinds = [b.kind for b in split_blocks("## Sub\ntext\n- x")]
    assert kinds == ["heading", "paragraph", "item"]
