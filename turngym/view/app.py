"""The viewer's FastAPI app: ``create_app(roots)`` and its pages.

Pages (server-side Jinja2 templates, autoescaped): ``/`` the runs, ``/run/<id>`` one
run's config and metrics charts (uPlot, vendored in ``static/``), ``/episodes`` the
paginated, filterable table of every episode, ``/episode?file=...&n=...`` one episode
turn by turn, ``/compare?a=...&b=...`` two runs or steps side by side, and
``/file/<name>`` the pictures the episodes refer to. Everything is read-only (GET
only, besides what ``turngym.view.play``'s router adds) and only regular files inside
the roots are read (``turngym.view.files``): anything else is a 404.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from turngym.http_guards import HostGuard
from turngym.view.catalog import (
    Catalog,
    CatalogCache,
    Run,
    last_value,
    read_config,
    read_metrics,
    series,
    trainer_of,
)
from turngym.view.episode_index import IndexCache, Row, read_line
from turngym.view.episode_view import diff_css, episode_view
from turngym.view.files import NotInside, Where, display, parse_name, read_inside

__all__ = ["create_app"]

_HERE = Path(__file__).parent
_PICTURES = {
    ".png": "image/png",
    ".webp": "image/webp",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
}
_MAX_PICTURE_BYTES = 64 << 20
_PER_PAGE = (10, 25, 50, 100, 200, 500)


def _roots(paths: Sequence[Path]) -> tuple[list[Path], list[str | None]]:
    """Resolved root folders, and for a root given as a file, that file's name."""
    roots: list[Path] = []
    only: list[str | None] = []
    for path in paths:
        path = Path(path).expanduser().resolve()
        if path.is_file():
            roots.append(path.parent)
            only.append(path.name)
        elif path.is_dir():
            roots.append(path)
            only.append(None)
        else:
            raise ValueError(f"PATH {str(path)!r} is not a folder or a file")
    return roots, only


class BadQuery(ValueError):
    """A query parameter the page cannot use (answered with 400 and the reason)."""


def _int(value: str | None, name: str) -> int | None:
    if value is None or value.strip() == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise BadQuery(f"{name} must be an integer, got {value[:40]!r}") from None


def create_app(
    roots: Sequence[Path],
    *,
    play_dir: Path | None = None,
    allowed_hosts: Sequence[str] | None = None,
) -> FastAPI:
    """The viewer over ``roots`` (run folders, folders of runs, episode files).

    Args:
        roots: the folders (or single episode files) whose contents may be shown.
        play_dir: where the play page saves its episodes (None: play saves nothing).
        allowed_hosts: Host headers to accept (DNS-rebinding guard); None: any.

    """
    if not roots:
        raise ValueError("roots must name at least one folder or episode file")
    resolved, only = _roots(roots)
    app = FastAPI(title="turngym view", docs_url=None, redoc_url=None, openapi_url=None)
    if allowed_hosts is not None:
        app.add_middleware(HostGuard, names=allowed_hosts)
    templates = Jinja2Templates(directory=str(_HERE / "templates"))
    templates.env.autoescape = True
    templates.env.globals["fmt"] = _fmt
    app.state.templates = templates
    app.state.roots = resolved
    app.state.play_dir = Path(play_dir).resolve() if play_dir is not None else None
    app.state.catalog = CatalogCache(resolved, only)
    app.state.only = only
    app.state.index = IndexCache(resolved)
    app.mount("/static", StaticFiles(directory=str(_HERE / "static")), name="static")
    _routes(app)
    from turngym.view.play import router as play_router

    app.include_router(play_router)
    return app


def _fmt(value: Any) -> str:
    """A number for a table cell: 3 decimals, ``-`` for none."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}" if math.isfinite(value) else str(value)
    return str(value)


def _page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, name, context, status_code=status)


def _not_found(request: Request, what: str) -> HTMLResponse:
    return _page(request, "error.html", 404, title="Not found", message=what)


def _summary(app: FastAPI, run: Run) -> dict[str, Any]:
    rows = read_metrics(app.state.roots, run)
    config, _ = read_config(app.state.roots, run)
    config = config if isinstance(config, dict) else {}
    last = rows[-1] if rows else {}
    shown = {
        k: v
        for k, v in last.items()
        if k != "step" and isinstance(v, (int, float)) and not k.startswith("eval_")
    }
    return {
        "run": run,
        "env": str(config.get("env_id") or config.get("env") or ""),
        "trainer": trainer_of(config),
        "steps": last.get("step"),
        "last": dict(list(shown.items())[:4]),
        "eval_success": last_value(rows, "eval_success"),
        "episodes": len(run.episode_files),
    }


def _side_rows(app: FastAPI, run: Run, step: int | None) -> list[tuple[Where, Row]]:
    """The episodes of one side of a comparison: the run's file at ``step`` (or its last)."""
    steps = run.steps()
    if step is not None:
        files = [steps[step]] if step in steps else []
    elif steps:
        files = [steps[max(steps)]]
    else:
        files = run.episode_files
    out: list[tuple[Where, Row]] = []
    for file in files:
        try:
            index = app.state.index.get(file)
        except NotInside:
            continue
        out.extend((file, row) for row in index.rows if not row.error)
    return out


def _routes(app: FastAPI) -> None:
    @app.exception_handler(NotInside)
    async def not_inside(request: Request, error: NotInside) -> HTMLResponse:
        return _not_found(request, "No such file, run or episode inside the viewer's folders.")

    @app.exception_handler(BadQuery)
    async def bad_query(request: Request, error: BadQuery) -> HTMLResponse:
        return _page(request, "error.html", 400, title="Bad request", message=str(error))

    @app.get("/", response_class=HTMLResponse)
    def runs_page(request: Request) -> HTMLResponse:
        catalog: Catalog = app.state.catalog.get()
        runs = [_summary(app, run) for run in catalog.runs]
        loose = [f for f in catalog.files if f.name not in catalog.run_of]
        return _page(
            request,
            "runs.html",
            runs=runs,
            loose=[(f.name, display(app.state.roots, f)) for f in loose],
            roots=[str(r) for r in app.state.roots],
        )

    @app.get("/run/{rid:path}", response_class=HTMLResponse)
    def run_page(request: Request, rid: str) -> HTMLResponse:
        catalog: Catalog = app.state.catalog.get()
        run = catalog.run(rid)
        if run is None:
            raise NotInside(rid)
        others = [catalog.run(o) for o in request.query_params.getlist("with")]
        shown = [run, *[o for o in others if o is not None and o is not run]]
        data = series([(r.name, read_metrics(app.state.roots, r)) for r in shown])
        config, config_text = read_config(app.state.roots, run)
        evals = {
            step: (file.name, app.state.index.get(file).rows) for step, file in run.steps().items()
        }
        eval_rows = [
            {
                "step": step,
                "file": name,
                "episodes": len(rows),
                "success": _mean([r.success for r in rows if r.success is not None]),
            }
            for step, (name, rows) in evals.items()
        ]
        keys = list(data["series"])
        train = [k for k in keys if "eval_" not in k]
        first = [k for k in train if k.endswith("reward")][:1] or train[:1] or keys[:1]
        first += [k for k in train if k.endswith("reward") and k not in first][: len(shown) - 1]
        return _page(
            request,
            "run.html",
            run=run,
            data=data,
            first=first,
            evals=[k for k in keys if k.endswith("eval_success")],
            config_text=config_text,
            config=config,
            eval_rows=eval_rows,
            others=[r for r in catalog.runs if r is not run],
            overlaid={r.id for r in shown[1:]},
            curve=run.where.child("curve.png").name if run.has_curve else None,
        )

    @app.get("/episodes", response_class=HTMLResponse)
    def episodes_page(
        request: Request,
        run: str = "",
        source: str = "",
        env: str = "",
        seed: str = "",
        step: str = "",
        success: str = "",
        page: str = "1",
        per: str = "50",
    ) -> HTMLResponse:
        catalog: Catalog = app.state.catalog.get()
        seed_n, step_n = _int(seed, "seed"), _int(step, "step")
        page_n = max(_int(page, "page") or 1, 1)
        per_n = _int(per, "per") or 50
        per_n = per_n if per_n in _PER_PAGE else 50
        files = catalog.files
        if run:
            files = [f for f in files if getattr(catalog.run_of.get(f.name), "id", None) == run]
        if source:
            files = [f for f in files if source in f.name]
        rows: list[tuple[Where, Row]] = []
        errors = []
        for file in files:
            try:
                index = app.state.index.get(file)
            except NotInside:
                continue
            for row in index.rows:
                if row.error:
                    errors.append((file, row))
                    continue
                if env and env not in row.env_id:
                    continue
                if seed_n is not None and row.seed != seed_n:
                    continue
                if step_n is not None and row.step != step_n:
                    continue
                if success in ("yes", "no") and row.success is not (success == "yes"):
                    continue
                rows.append((file, row))
        shown = rows + errors  # error rows last, so they never hide the episodes
        total = len(rows)
        pages = max(math.ceil(len(shown) / per_n), 1)
        page_n = min(page_n, pages)
        chunk = shown[(page_n - 1) * per_n : page_n * per_n]
        names = {f.name: display(app.state.roots, f) for f, _ in chunk}
        query = {k: v for k, v in request.query_params.items() if k != "page"}
        return _page(
            request,
            "episodes.html",
            rows=chunk,
            names=names,
            total=total,
            page=page_n,
            pages=pages,
            per=per_n,
            per_choices=_PER_PAGE,
            query=query,
            errors=len(errors),
            filters={
                "run": run,
                "source": source,
                "env": env,
                "seed": seed,
                "step": step,
                "success": success,
            },
            runs=catalog.runs,
        )

    @app.get("/episode", response_class=HTMLResponse)
    def episode_page(request: Request, file: str = "", n: str = "0") -> HTMLResponse:
        where = parse_name(file, app.state.roots, app.state.only)
        number = _int(n, "n")
        index = app.state.index.get(where)
        if number is None or not 0 <= number < len(index.rows):
            raise NotInside(f"{file}#{n}")
        row = index.rows[number]
        view, error = None, ""
        try:
            view = episode_view(read_line(app.state.roots, row, where), where, number)
        except ValueError as problem:
            error = str(problem)
        return _page(
            request,
            "episode.html",
            view=view,
            error=error,
            row=row,
            file=where.name,
            source=display(app.state.roots, where),
            count=len(index.rows),
            diff_css=diff_css(),
        )

    @app.get("/compare", response_class=HTMLResponse)
    def compare_page(
        request: Request, a: str = "", b: str = "", a_step: str = "", b_step: str = ""
    ) -> HTMLResponse:
        catalog: Catalog = app.state.catalog.get()
        run_a, run_b = catalog.run(a), catalog.run(b)
        asked: dict[str, Any] = {
            "runs": catalog.runs,
            "a": a,
            "b": b,
            "a_step": a_step,
            "b_step": b_step,
        }
        if not (run_a and run_b):
            return _page(request, "compare.html", ready=False, **asked)
        step_a, step_b = _int(a_step, "a_step"), _int(b_step, "b_step")
        label_a = run_a.name + (f" @ {step_a}" if step_a is not None else "")
        label_b = run_b.name + (f" @ {step_b}" if step_b is not None else "")
        shown = [(label_a, run_a)] if run_a is run_b else [(label_a, run_a), (label_b, run_b)]
        data = series([(label, read_metrics(app.state.roots, r)) for label, r in shown])
        sides = [_side_rows(app, run_a, step_a), _side_rows(app, run_b, step_b)]
        # A game's evaluation plays each seat on the same seeds: the seat is part of the key.
        matched: dict[tuple[str, Any, str, str], list[Any]] = {}
        for k, side in enumerate(sides):
            for file, row in side:
                key = (row.env_id, row.seed, row.seat, row.mode)
                slot = matched.setdefault(key, [None, None])
                if slot[k] is None:
                    slot[k] = (file.name, row)
        table = sorted(
            matched.items(), key=lambda kv: (kv[0][0], kv[0][1] is None, kv[0][1] or 0, kv[0][2:])
        )
        both = [s for _, s in table if s[0] and s[1]]
        totals = [
            _mean([s[k][1].success for s in both if s[k][1].success is not None]) for k in (0, 1)
        ]
        keys = list(data["series"])
        initial = (
            [k for k in keys if k.endswith("eval_success")]
            or [k for k in keys if k.endswith("reward")]
            or keys[:1]
        )
        return _page(
            request,
            "compare.html",
            **asked,
            ready=True,
            initial=initial,
            label_a=label_a,
            label_b=label_b,
            data=data,
            table=table,
            both=len(both),
            totals=totals,
            steps_a=list(run_a.steps()),
            steps_b=list(run_b.steps()),
        )

    @app.get("/picture")
    def picture(file: str = "", n: str = "0", i: str = "0") -> Response:
        """A picture embedded in a Parquet row (its ``images[i].bytes``), if it is a PNG."""
        where = parse_name(file, app.state.roots, app.state.only)
        number, k = _int(n, "n"), _int(i, "i")
        index = app.state.index.get(where)
        if number is None or k is None or not 0 <= number < len(index.rows):
            raise NotInside(file)
        try:
            row = read_line(app.state.roots, index.rows[number], where)
        except ValueError:
            raise NotInside(file) from None
        images = row.get("images") if isinstance(row, dict) else None
        entry = images[k] if isinstance(images, list) and 0 <= k < len(images) else None
        data = entry.get("bytes") if isinstance(entry, dict) else None
        if not isinstance(data, bytes) or not data.startswith(b"\x89PNG\r\n\x1a\n"):
            raise NotInside(file)
        headers = {"X-Content-Type-Options": "nosniff", "Cache-Control": "max-age=3600"}
        return Response(data, media_type="image/png", headers=headers)

    @app.get("/file/{name:path}")
    def file(name: str) -> Response:
        where = parse_name(name, app.state.roots, app.state.only)
        kind = _PICTURES.get(Path(where.parts[-1] if where.parts else "").suffix.lower())
        if kind is None:
            raise NotInside(name)
        data = read_inside(app.state.roots, where, _MAX_PICTURE_BYTES)
        headers = {"X-Content-Type-Options": "nosniff", "Cache-Control": "max-age=3600"}
        return Response(data, media_type=kind, headers=headers)


def _mean(values: Sequence[Any]) -> float | None:
    return sum(map(float, values)) / len(values) if values else None
