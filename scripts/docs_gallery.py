"""The env gallery of the docs site: record real episodes, and write one page per env id.

``record`` plays, for every registered id (or those ``--ids`` names), one episode with a
fixed seed by the id's scripted expert (a random legal agent where there is none) and
writes what happened to ``docs/gallery/<family>/<slug>.json``: the transcript (first and
last turns, long observations cut with a marker), the return and success, the first
legal actions, the spaces, all actions played (so tests can replay the episode) and the
expert's success measured over up to 10 seeds. Web, GUI and ScreenGraph episodes also
keep a few screenshots as small PNGs beside the JSON. Each id runs in its own process
under a time limit; an id that cannot run here is recorded with the reason. This is the
slow part, run by hand, and its output is committed, but for the native envs of the cheap
families (``gallery_pages.recorded_on_build``): ``pages`` records those with the site,
so their episodes are always today's and nothing of theirs is committed.

``pages`` (seconds; ``make docs`` runs it) writes the Markdown pages under ``docs/envs/``
from the registry and that data (``scripts/gallery_pages.py``).

Usage::

    python scripts/docs_gallery.py record [--ids GLOB] [--seed 0] [--jobs 2]
    python scripts/docs_gallery.py pages [--out docs/envs]
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import json
import multiprocessing as mp
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere: import this checkout's turngym
    sys.path.insert(0, str(ROOT))

GALLERY = ROOT / "docs" / "gallery"
OBS_LIMIT = 1500
"""Characters of one observation kept in the transcript; the rest is cut with a marker."""
HEAD_TURNS, TAIL_TURNS = 12, 4
"""The transcript keeps the first and last turns of an episode; the middle is counted."""
MAX_STEPS = 300
"""The recorded episode stops here (nethack and long games run to thousands of steps)."""
MAX_ACTION_CHARS = 20_000
"""All actions are kept for replay while they fit; longer action lists are left out."""
MEASURE_EPISODES, MEASURE_SECONDS = 10, 30.0
"""The expert's success is measured on up to 10 seeds, fewer when they take over 30 s."""
IMAGE_WIDTH, IMAGE_BYTES = 480, 60_000
"""Screenshots are scaled down to this width and kept under about this many bytes."""
PICTURED_FAMILIES = ("web", "gui")


def slug(env_id: str) -> str:
    """The file name of an id: without ``turngym/`` and ``-v0``, safe characters only.

    >>> slug("turngym/miniwob.click-test-v0"), slug("turngym/Foo/Bar-v2")
    ('miniwob.click-test', 'Foo-Bar-v2')
    """
    name = env_id.removeprefix("turngym/").removesuffix("-v0")
    return re.sub(r"[^A-Za-z0-9._-]", "-", name)


def data_path(row: Any, root: Path = GALLERY) -> Path:
    """Where the recorded data of registry row ``row`` lives."""
    return root / row.group / f"{slug(row.id)}.json"


def cut(text: str, limit: int = OBS_LIMIT) -> str:
    """``text`` up to ``limit`` characters, with a marker saying how much was cut.

    >>> cut("abcdef", 4)
    'abcd\\n[... 2 more characters cut]'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} more characters cut]"


def obs_text(obs: Any) -> str:
    """The text of an observation: itself, or a dict's ``text``."""
    if isinstance(obs, str):
        return obs
    if isinstance(obs, dict) and isinstance(obs.get("text"), str):
        return str(obs["text"])
    return repr(obs)


def _short_list(items: list[Any], keep: int = 40) -> dict[str, Any]:
    """The first ``keep`` of ``items`` and how many there are."""
    return {"first": [str(a) for a in items[:keep]], "count": len(items)}


def _png(image: Any) -> bytes:
    """A screenshot as a palette PNG: blank margin cut, scaled to ``IMAGE_WIDTH``."""
    import numpy as np
    from PIL import Image, ImageChops

    picture = Image.fromarray(np.ascontiguousarray(image)).convert("RGB")
    # A MiniWoB task fills a small corner of a blank page: the blank margin is cut off
    # (the bottom-right pixel's colour), so the task stays legible at a small size.
    corner = picture.getpixel((picture.width - 1, picture.height - 1))
    blank = Image.new("RGB", picture.size, corner)
    box = ImageChops.difference(picture, blank).getbbox()
    if box is not None:
        right, bottom = min(picture.width, box[2] + 8), min(picture.height, box[3] + 8)
        picture = picture.crop((0, 0, right, bottom))
    if picture.width > IMAGE_WIDTH:
        height = round(picture.height * IMAGE_WIDTH / picture.width)
        picture = picture.resize((IMAGE_WIDTH, height), Image.Resampling.LANCZOS)
    for colors in (256, 64, 16):  # a palette halves a screenshot's PNG; fewer if still large
        shown = picture.quantize(colors)
        out = io.BytesIO()
        shown.save(out, format="PNG", optimize=True)
        if out.tell() <= IMAGE_BYTES:
            break
    return out.getvalue()


def _screenshot(env: Any, obs: Any) -> Any:
    """This turn's screenshot: the observation's, or the env's ``rgb_array`` render."""
    if isinstance(obs, dict) and obs.get("screenshot") is not None:
        return obs["screenshot"]
    if getattr(env, "render_mode", None) == "rgb_array":
        return env.render()
    return None


def _make(row: Any) -> Any:
    """The env of ``row``, taking screenshots where the family has them."""
    import gymnasium as gym

    if row.family == "web":  # text observations for the expert; pictures from render()
        return gym.make(row.id, render_mode="rgb_array")
    return gym.make(row.id)


def _play(row: Any, env: Any, agent: Any, seed: int, out: Path) -> dict[str, Any]:
    """Play and record one episode from ``env.reset(seed=seed)``; its part of the JSON."""
    agent.reset(seed=seed)
    obs, info = env.reset(seed=seed)
    pictures: list[tuple[int, Any]] = []
    pictured = row.family in PICTURED_FAMILIES or "ScreenGraph" in row.id
    if pictured:
        pictures.append((0, _screenshot(env, obs)))
    legal = info.get("legal_actions")
    turns: list[dict[str, Any]] = [{"turn": 0, "obs": cut(obs_text(obs))}]
    actions: list[str] = []
    total, terminated, truncated = 0.0, False, False
    while not (terminated or truncated) and len(actions) < MAX_STEPS:
        action = str(agent.act(obs, info))
        obs, reward, terminated, truncated, info = env.step(action)
        actions.append(action)
        total += float(reward)
        turns.append(
            {
                "turn": len(actions),
                "action": cut(action, 500),
                "obs": cut(obs_text(obs)),
                "reward": float(reward),
                "terminated": bool(terminated),
                "truncated": bool(truncated),
                "invalid_action": bool(info.get("invalid_action", False)),
                **({"success": bool(info["success"])} if "success" in info else {}),
            }
        )
        if pictured:
            pictures.append((len(actions), _screenshot(env, obs)))
    kept = turns
    left_out = 0
    if len(turns) > HEAD_TURNS + TAIL_TURNS:
        left_out = len(turns) - HEAD_TURNS - TAIL_TURNS
        kept = turns[:HEAD_TURNS] + turns[-TAIL_TURNS:]
    images = _write_images(row, pictures, out)
    for turn in kept:
        if turn["turn"] in images:
            turn["image"] = images[turn["turn"]]
    joined = sum(len(a) for a in actions)
    return {
        "legal_actions": _short_list(list(legal)) if legal else None,
        "turns": kept,
        "turns_left_out": left_out,
        "steps": len(actions),
        "stopped_at_max_steps": not (terminated or truncated),
        "return": total,
        "success": bool(info.get("success", False)),
        "actions": actions if joined <= MAX_ACTION_CHARS else None,
        "images": sorted(images.values()),
    }


def _write_images(row: Any, pictures: list[tuple[int, Any]], out: Path) -> dict[int, str]:
    """PNGs of the first, a middle and the last screenshot: turn -> file name."""
    pictures = [(t, p) for t, p in pictures if p is not None]
    if not pictures:
        return {}
    chosen = sorted({0, len(pictures) // 2, len(pictures) - 1})
    names: dict[int, str] = {}
    for k in chosen:
        turn, image = pictures[k]
        name = f"{slug(row.id)}-{turn}.png"
        (out.parent / name).write_bytes(_png(image))
        names[turn] = name
    return names


def _measure(row: Any, env: Any, seed: int, first_success: bool) -> dict[str, Any]:
    """The expert's success over seeds ``seed..``: up to 10 episodes, within a time budget."""
    from turngym.agents import make_expert
    from turngym.sdk.evaluation import play_episode

    start = time.monotonic()
    successes, n = int(first_success), 1
    agent = make_expert(env, row.id)
    while n < MEASURE_EPISODES and time.monotonic() - start < MEASURE_SECONDS:
        successes += play_episode(env, agent, seed + n).success
        n += 1
    return {"agent": "expert", "episodes": n, "successes": successes, "seeds": [seed, seed + n - 1]}


def record_one(env_id: str, seed: int, root: Path) -> dict[str, Any]:
    """Record ``env_id``'s gallery data under ``root`` (also on failure, with the reason)."""
    from turngym.registry import entry

    row = entry(env_id)
    out = data_path(row, root)
    out.parent.mkdir(parents=True, exist_ok=True)
    mine = re.compile(re.escape(slug(row.id)) + r"-\d+\.png")  # not choose-date-easy's
    for old in out.parent.glob(f"{slug(row.id)}-*.png"):
        if mine.fullmatch(old.name):
            old.unlink()
    data: dict[str, Any] = {"id": row.id, "family": row.group, "seed": seed}
    reason = row.unavailable()
    if reason is not None:
        data.update(status="not recorded", reason=reason.splitlines()[0])
        _write_json(out, data)
        return data
    try:
        from turngym.agents import RandomAgent, make_expert

        env = _make(row)
        try:
            if row.expert is not None:
                agent, kind = make_expert(env, row.id), "expert"
            else:
                agent, kind = RandomAgent(env, seed=seed), "random"
            data.update(
                status="recorded",
                agent=kind,
                agent_class=type(agent).__name__,
                observation_space=cut(repr(env.observation_space), 300),
                action_space=cut(repr(env.action_space), 300),
            )
            data.update(_play(row, env, agent, seed, out))
            if kind == "expert" and not data["stopped_at_max_steps"]:
                data["measured"] = _measure(row, env, seed, data["success"])
        finally:
            env.close()
    except Exception as error:  # any env's failure becomes the page's reason
        first = f"{type(error).__name__}: {error}".splitlines()[0]
        data = {**data, "status": "not recorded", "reason": cut(first, 300)}
        data.pop("agent", None)
    _write_json(out, data)
    return data


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` atomically (a killed worker leaves no half file)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _child(env_id: str, seed: int, root: str) -> None:
    """A worker process: record one id, quietly."""
    import warnings

    warnings.simplefilter("ignore")
    record_one(env_id, seed, Path(root))


def cmd_record(args: argparse.Namespace) -> int:
    """Record every selected id, ``--jobs`` processes at a time, each under ``--timeout``."""
    from turngym.registry import ENVS

    if args.jobs < 1:
        raise SystemExit(f"--jobs must be >= 1, got {args.jobs}")
    rows = [
        e
        for e in ENVS
        if any(fnmatch.fnmatchcase(e.id, g) or fnmatch.fnmatchcase(e.name, g) for g in args.ids)
    ]
    if not rows:
        raise SystemExit(f"--ids {' '.join(args.ids)} matches no registered id")
    root = Path(args.root)
    if root.resolve() == GALLERY.resolve():
        from gallery_pages import recorded_on_build

        built = [e.id for e in rows if recorded_on_build(e)]
        rows = [e for e in rows if not recorded_on_build(e)]
        if built:
            print(
                f"{len(built)} ids ({built[0]}, ...) are recorded by `pages` with the docs "
                "and never committed: left out"
            )
        if not rows:
            return 0
    ctx = mp.get_context("fork")
    pending = list(rows)
    running: dict[str, tuple[Any, float, Any]] = {}
    start = time.monotonic()
    done = 0
    while pending or running:
        while pending and len(running) < args.jobs:
            row = pending.pop(0)
            proc = ctx.Process(target=_child, args=(row.id, args.seed, str(root)), daemon=True)
            proc.start()
            running[row.id] = (proc, time.monotonic(), row)
        time.sleep(0.05)
        for env_id, (proc, began, row) in list(running.items()):
            late = time.monotonic() - began > args.timeout
            if proc.is_alive() and not late:
                continue
            if proc.is_alive():
                proc.kill()
            proc.join()
            del running[env_id]
            path = data_path(row, root)
            if late:
                why = f"timed out after {args.timeout:.0f} s on this machine"
                _write_json(
                    path,
                    {
                        "id": env_id,
                        "family": row.group,
                        "seed": args.seed,
                        "status": "not recorded",
                        "reason": why,
                    },
                )
            elif not path.is_file() or proc.exitcode:
                why = f"the recording process died (exit code {proc.exitcode})"
                _write_json(
                    path,
                    {
                        "id": env_id,
                        "family": row.group,
                        "seed": args.seed,
                        "status": "not recorded",
                        "reason": why,
                    },
                )
            done += 1
            data = json.loads(path.read_text(encoding="utf-8"))
            said = data.get("reason") or f"{data['agent']} success={data['success']}"
            print(
                f"[{done}/{len(rows)} {time.monotonic() - start:6.0f}s] {env_id} "
                f"{time.monotonic() - began:.1f}s {data['status']}: {said}",
                flush=True,
            )
    print(f"recorded {len(rows)} ids in {time.monotonic() - start:.0f} s", flush=True)
    return 0


def cmd_pages(args: argparse.Namespace) -> int:
    """Write the gallery's Markdown pages."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gallery_pages import write_pages

    start = time.monotonic()
    count = write_pages(Path(args.out), Path(args.gallery))
    print(f"wrote {count} pages under {args.out} in {time.monotonic() - start:.1f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command line: ``record`` or ``pages``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="play and record episodes into docs/gallery (slow)")
    rec.add_argument("--ids", nargs="+", default=["*"], help="id globs (default: every id)")
    rec.add_argument("--seed", type=int, default=0, help="the recorded episode's seed")
    rec.add_argument("--jobs", type=int, default=2, help="ids recorded at once (processes)")
    rec.add_argument("--timeout", type=float, default=120.0, help="seconds per id")
    rec.add_argument("--root", default=str(GALLERY), help="where the data goes")
    rec.set_defaults(fn=cmd_record)
    pages = sub.add_parser("pages", help="write the Markdown pages into docs/envs (fast)")
    pages.add_argument("--out", default=str(ROOT / "docs" / "envs"), help="where pages go")
    pages.add_argument("--gallery", default=str(GALLERY), help="the recorded data")
    pages.set_defaults(fn=cmd_pages)
    args = parser.parse_args(argv)
    result: int = args.fn(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
