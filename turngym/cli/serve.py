"""`turngym serve`: the flags of the OpenAI-compatible server (``turngym.sdk.serve``), checked."""

from __future__ import annotations

import argparse
from typing import Any

from turngym.cli.args import CliError

__all__ = ["add_serve_parser", "cmd_serve"]


def add_serve_parser(sub: Any) -> None:
    """Add ``serve`` to the ``turngym`` command's subparsers."""
    p = sub.add_parser("serve", help="serve a local model through an OpenAI-compatible HTTP API")
    p.add_argument("--model", required=True, help="a Hugging Face model dir (save_pretrained)")
    p.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    p.add_argument(
        "--host", default="127.0.0.1", help="0.0.0.0 to accept remote workers (needs a key)"
    )
    p.add_argument("--device", help="cpu, cuda, cuda:1, ... (default: the backend's choice)")
    p.add_argument("--max-batch-size", type=int, default=32, help="most prompts per model call")
    p.add_argument(
        "--batch-wait-ms", type=float, default=5.0, help="how long to gather requests into a batch"
    )
    p.add_argument("--name", help="the model id clients see (default: the dir's name)")
    p.add_argument(
        "--api-key",
        help="require Authorization: Bearer KEY on every request (default: $TURNGYM_API_KEY; "
        "needed beyond 127.0.0.1 and with --accept-weight-updates)",
    )
    p.add_argument(
        "--accept-weight-updates",
        action="store_true",
        help="let a trainer push new weights (POST /v1/update_weights with a file path)",
    )
    p.add_argument(
        "--weights-dir",
        help="the only folder weight updates load from (default: a private temp folder)",
    )
    p.add_argument(
        "--max-model-len",
        type=int,
        help="tokens of prompt plus completion (default: the model's context length)",
    )
    p.add_argument("--max-prompts", type=int, default=256, help="most prompts in one request")
    p.add_argument("--max-body-mb", type=float, default=16.0, help="largest request body, MiB")
    p.add_argument(
        "--max-choices",
        type=int,
        default=8192,
        help="guided choice: most choices in one request (structured_outputs.choice)",
    )
    p.add_argument(
        "--max-choice-chars",
        type=int,
        default=1 << 18,
        help="guided choice: most characters of one request's choices together",
    )
    p.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        help="seconds a client has to send a request's headers (then it is disconnected)",
    )
    p.add_argument(
        "--body-timeout",
        type=float,
        default=60.0,
        help="seconds a client has to send a request's body, once its headers came",
    )
    p.add_argument(
        "--keep-alive-timeout",
        type=float,
        default=5.0,
        help="seconds an idle connection stays open between requests",
    )
    p.add_argument(
        "--max-connections",
        type=int,
        default=1024,
        help="most connections waiting on their client (one more closes the longest waiting)",
    )
    p.set_defaults(fn=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Run ``turngym serve`` until interrupted; returns the exit status."""
    from pathlib import Path

    if not Path(args.model).is_dir():
        raise CliError(
            f"--model {args.model}: no such directory (pass a model dir saved with save_pretrained)"
        )
    if not 0 <= args.port <= 65535:
        raise CliError(f"--port must be in 0..65535 (0: any free port), got {args.port}")
    if args.max_batch_size < 1:
        raise CliError(f"--max-batch-size must be >= 1, got {args.max_batch_size}")
    for flag, value in [
        ("--max-prompts", args.max_prompts),
        ("--max-model-len", args.max_model_len),
        ("--max-choices", args.max_choices),
        ("--max-choice-chars", args.max_choice_chars),
    ]:
        if value is not None and value < 1:
            raise CliError(f"{flag} must be >= 1, got {value}")
    if not args.max_body_mb > 0:
        raise CliError(f"--max-body-mb must be > 0, got {args.max_body_mb}")
    for flag, seconds in [
        ("--header-timeout", args.header_timeout),
        ("--body-timeout", args.body_timeout),
        ("--keep-alive-timeout", args.keep_alive_timeout),
    ]:
        if not 0 < seconds < float("inf"):
            raise CliError(f"{flag} must be a number of seconds > 0, got {seconds}")
    if args.max_connections < 1:
        raise CliError(f"--max-connections must be >= 1, got {args.max_connections}")
    from turngym.sdk.policy import PolicyError
    from turngym.sdk.serve import ServeConnections, ServeLimits, serve

    try:
        limits = ServeLimits(
            max_model_len=args.max_model_len,
            max_prompts=args.max_prompts,
            max_body_bytes=max(int(args.max_body_mb * (1 << 20)), 1),
            max_choices=args.max_choices,
            max_choice_chars=args.max_choice_chars,
        )
        serve(
            args.model,
            port=args.port,
            host=args.host,
            device=args.device,
            max_batch_size=args.max_batch_size,
            batch_wait_ms=args.batch_wait_ms,
            model_name=args.name,
            announce=lambda line: print(line, flush=True),
            accept_weight_updates=args.accept_weight_updates,
            api_key=args.api_key,
            weights_dir=args.weights_dir,
            limits=limits,
            connections=ServeConnections(
                header_timeout=args.header_timeout,
                body_timeout=args.body_timeout,
                keep_alive_timeout=args.keep_alive_timeout,
                max_connections=args.max_connections,
            ),
        )
    except (PolicyError, ValueError) as error:
        raise CliError(str(error)) from None
    except KeyboardInterrupt:
        pass
    return 0
