"""A small template engine: {{ var|filter }}, {% for %} and {% if %}."""
from minitmpl.context import Context
from minitmpl.render import TemplateError, render

__all__ = ["Context", "TemplateError", "render"]
