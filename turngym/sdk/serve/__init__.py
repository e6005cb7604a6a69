"""``turngym serve``: a local policy behind an OpenAI-compatible HTTP API.

One module per concern: ``app`` (the FastAPI app, its endpoints, and ``serve``, which
starts it), ``auth`` (the API key and when a server must have one), ``batcher`` (requests
merged into model calls, fairly between clients), ``connections`` (deadlines, the cap on
waiting connections, the fd limit), ``limits`` (what one request may ask) and
``weights`` (weight updates from one folder).
"""

from turngym.sdk.serve.app import build_app, serve
from turngym.sdk.serve.batcher import Batcher, BatchStats, prompt_logprobs
from turngym.sdk.serve.connections import ServeConnections
from turngym.sdk.serve.limits import BadRequest, ServeLimits

__all__ = [
    "BadRequest",
    "BatchStats",
    "Batcher",
    "ServeConnections",
    "ServeLimits",
    "build_app",
    "prompt_logprobs",
    "serve",
]
