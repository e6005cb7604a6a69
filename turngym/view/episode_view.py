"""One episode line, made ready for the episode page: turns, pictures, events, diffs.

``episode_view`` takes a parsed line of any of the formats ``episode_index`` reads and
returns plain dicts for the template. Pictures become URLs of PNG files inside the
roots (schema v1's ``{"__turngym__": "image", "index": i}`` through the row's
``images``, and ``RecordEpisodes``' ``{"__turngym__": "image", "path": ...}``), with
the widget boxes that came with them (``info["widgets"]``) as set-of-marks boxes in
percent of the picture. What the wrappers report in info (ARCHITECTURE.md section 5:
``context_event``, ``segment``, ``wrapper_turn``, ``summary_request``; ParseAction's
``format_error``; memory and SWE tool calls) becomes the turn's events. SWE patches are
highlighted with Pygments; everything else is text the template escapes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from turngym.view.files import NotInside, Where

__all__ = ["diff_css", "episode_view"]

_MAX_SHOWN = 200_000  # characters of one value's JSON shown (the rest is cut, and said so)
_LONG_REPLY = 200
_MEMORY_CALL = re.compile(r'\s*(?:\{\s*"tool"\s*:\s*")?((?:core_)?memory_[a-z]+)\b')


def _json_text(value: Any) -> Any:
    """Schema v1 stores obs/info/meta as JSON text: parse it (a bad one stays text)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


class _Pictures:
    """Turns picture markers into URL dicts, given where the episode file is."""

    def __init__(self, file: Where, images: Any, n: int) -> None:
        self.file, self.n = file, n
        self.folder = file.parent()
        self.images = images if isinstance(images, list) else []
        self.embedded = file.parts[-1].endswith(".parquet")

    def url(self, path: Any) -> str | None:
        if not isinstance(path, str):
            return None
        try:
            return "/file/" + self.folder.child(path).name
        except NotInside:
            return None

    def decode(self, value: Any, depth: int = 0) -> Any:
        if depth > 60:
            return "…"
        if isinstance(value, list):
            return [self.decode(v, depth + 1) for v in value]
        if not isinstance(value, dict):
            return value
        kind = value.get("__turngym__")
        if kind == "image":
            path = value.get("path")
            index = value.get("index")
            shape = value.get("shape") if isinstance(value.get("shape"), list) else []
            if path is None and isinstance(index, int) and 0 <= index < len(self.images):
                if self.embedded:  # Parquet holds the PNG's bytes: served by /picture
                    url = f"/picture?file={quote(self.file.name)}&n={self.n}&i={index}"
                    return {"__picture__": url, "shape": shape}
                entry = self.images[index]
                path = entry.get("path") if isinstance(entry, dict) else None
            return {"__picture__": self.url(path), "shape": shape}
        if kind == "ndarray":
            data = value.get("data")
            return self.decode(data, depth + 1) if isinstance(data, list) else data
        if kind == "tuple":
            return self.decode(value.get("items"), depth + 1)
        if kind == "bytes":
            return f"<{len(str(value.get('base64', ''))) * 3 // 4} bytes>"
        if kind == "dict" and isinstance(value.get("items"), list):
            pairs = [p for p in value["items"] if isinstance(p, list) and len(p) == 2]
            return {str(k): self.decode(v, depth + 1) for k, v in pairs}
        return {str(k): self.decode(v, depth + 1) for k, v in value.items()}


def _pretty(value: Any) -> str:
    try:
        text = json.dumps(value, indent=1, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):
        text = repr(value)
    if len(text) > _MAX_SHOWN:
        text = text[:_MAX_SHOWN] + f"\n… ({len(text) - _MAX_SHOWN} more characters not shown)"
    return text


def _marks(info: Any, shape: Sequence[Any]) -> list[dict[str, Any]]:
    """Widget boxes (``info["widgets"]``, ``info["marks"]``) in percent of the picture."""
    if not isinstance(info, dict) or len(shape) < 2:
        return []
    height, width = shape[0], shape[1]
    if not all(isinstance(v, (int, float)) and v > 0 for v in (height, width)):
        return []
    boxes = []
    for k, w in enumerate(info.get("widgets") or []):
        if isinstance(w, dict) and all(isinstance(w.get(c), (int, float)) for c in "xywh"):
            boxes.append((w.get("index", k), w["x"], w["y"], w["w"], w["h"]))
    marks = info.get("marks")
    if isinstance(marks, dict):  # BrowserEnv.marks: {n: (tag rect, (x, y, w, h))}
        for n, mark in marks.items():
            box = mark[1] if isinstance(mark, list) and len(mark) == 2 else None
            if (
                isinstance(box, list)
                and len(box) == 4
                and all(isinstance(v, (int, float)) for v in box)
            ):
                boxes.append((n, box[0], box[1], box[2], box[3]))
    return [
        {
            "n": str(n),
            "left": 100 * x / width,
            "top": 100 * y / height,
            "width": 100 * w / width,
            "height": 100 * h / height,
        }
        for n, x, y, w, h in boxes[:2000]
    ]


def _show(obs: Any, info: Any) -> dict[str, Any]:
    """An observation as {text, messages, pictures, rest} for the template."""
    out: dict[str, Any] = {"text": None, "messages": [], "pictures": [], "rest": None}
    if isinstance(obs, str):
        out["text"] = obs
        return out
    if isinstance(obs, list) and all(isinstance(m, dict) and "role" in m for m in obs):
        out["messages"] = [{"role": str(m["role"]), "content": m.get("content")} for m in obs]
        return out
    if isinstance(obs, dict):
        rest = {}
        for key, value in obs.items():
            if key == "text" and isinstance(value, str):
                out["text"] = value
            elif key == "messages" and isinstance(value, list):
                out["messages"] = _show(value, None)["messages"]
            elif isinstance(value, dict) and "__picture__" in value:
                shape = value["shape"]
                out["pictures"].append(
                    {
                        "key": key,
                        "url": value["__picture__"],
                        "shape": shape,
                        "marks": _marks(info, shape),
                    }
                )
            elif key != "action_mask":
                rest[key] = value
        out["rest"] = _pretty(rest) if rest else None
        return out
    out["rest"] = _pretty(obs)
    return out


def _events(info: Any, action: Any, segment: Any) -> list[dict[str, str]]:
    """What the wrappers (and tools) did at this turn, as labelled events."""
    if not isinstance(info, dict):
        return []
    events = []
    if info.get("context_event"):
        where = f", segment {info['segment']}" if "segment" in info else ""
        events.append({"kind": "context", "text": f"context: {info['context_event']}{where}"})
    if info.get("summary_request"):
        events.append({"kind": "context", "text": "summary requested"})
    if info.get("wrapper_turn") is True:
        events.append({"kind": "wrapper", "text": "wrapper turn (not sent to the env)"})
    if segment is not None:
        events.append({"kind": "context", "text": f"segment {segment}"})
    if info.get("format_error") is True:
        events.append({"kind": "invalid", "text": "format error: no action found in the reply"})
    memory = _MEMORY_CALL.match(action) if isinstance(action, str) else None
    if memory:  # MemoryTools' calls: "memory_insert: ..." or {"tool": "memory_search", ...}
        events.append({"kind": "memory", "text": f"memory: {memory.group(1)}"})
    if "memory_size" in info:
        events.append({"kind": "memory", "text": f"memory size {info['memory_size']}"})
    if isinstance(info.get("tool"), str):
        error = " (error)" if info.get("tool_error") else ""
        events.append({"kind": "tool", "text": f"tool: {info['tool']}{error}"})
    for key in ("horizon_truncated", "overlong", "gated"):
        if info.get(key) is True:
            events.append({"kind": "wrapper", "text": key.replace("_", " ")})
    return events


def diff_css() -> str:
    """The Pygments style sheet of highlighted diffs."""
    from pygments.formatters import HtmlFormatter

    return str(HtmlFormatter(style="default").get_style_defs(".diff"))


def _diff_html(patch: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import DiffLexer

    return str(highlight(patch[:_MAX_SHOWN], DiffLexer(), HtmlFormatter(cssclass="diff")))


def _swe(info: Any) -> dict[str, Any] | None:
    if not isinstance(info, dict):
        return None
    patch, tests = info.get("patch"), info.get("tests")
    if not isinstance(patch, str) and not isinstance(tests, dict):
        return None
    return {
        "diff": _diff_html(patch) if isinstance(patch, str) and patch else None,
        "tests": sorted((str(k), str(v)) for k, v in tests.items())
        if isinstance(tests, dict)
        else [],
        "resolved": info.get("resolved"),
        "problem": info.get("grade_problem"),
    }


def _turn(
    n: int,
    agent: Any,
    obs: Any,
    obs_info: Any,
    action: Any,
    reward: Any,
    info: Any,
    end: tuple[Any, Any],
    segment: Any = None,
) -> dict[str, Any]:
    reply = action if isinstance(action, str) else _pretty(action)
    info_d = info if isinstance(info, dict) else {}
    widgets = info_d.get("widgets") if isinstance(info_d.get("widgets"), list) else None
    return {
        "n": n,
        "agent": str(agent) if agent is not None else "",
        "obs": _show(obs, obs_info),
        "action": reply,
        "long_reply": len(reply) > _LONG_REPLY or "\n" in reply.strip(),
        "parsed": isinstance(info_d.get("format_error"), bool),
        "reward": reward,
        "terminated": end[0],
        "truncated": end[1],
        "invalid": info_d.get("invalid_action") is True or info_d.get("format_error") is True,
        "events": _events(info_d, action, segment),
        "info": _pretty({k: v for k, v in info_d.items() if k not in ("widgets", "patch")}),
        "widgets": widgets,
        "swe": _swe(info_d),
        "legal": info_d.get("legal_actions")
        if isinstance(info_d.get("legal_actions"), list)
        else None,
    }


def episode_view(line: Any, file: Where, n: int = 0) -> dict[str, Any]:
    """The episode page's data for the parsed line (or Parquet row) ``n`` of ``file``."""
    if not isinstance(line, dict):
        raise ValueError("not an episode (a JSON object)")
    pictures = _Pictures(file, line.get("images"), n)
    decode = pictures.decode
    view: dict[str, Any] = {
        "env_id": line.get("env_id"),
        "seed": line.get("seed"),
        "turns": [],
        "final": [],
    }
    if isinstance(line.get("steps"), list):  # RecordEpisodes
        obs, obs_info = decode(line.get("observation")), decode(line.get("info"))
        for k, step in enumerate(s for s in line["steps"] if isinstance(s, dict)):
            info = decode(step.get("info"))
            end = (step.get("terminated"), step.get("truncated"))
            view["turns"].append(
                _turn(k, "", obs, obs_info, step.get("action"), step.get("reward"), info, end)
            )
            obs, obs_info = decode(step.get("observation")), info
        view["final"] = [{"agent": "", "obs": _show(obs, obs_info)}]
        view["success"] = obs_info.get("success") if isinstance(obs_info, dict) else None
        view["returns"] = {"agent": line.get("return")}
        view["meta"] = _pretty({"options": line.get("options")}) if line.get("options") else None
        return view
    turns = line.get("turns")
    if not isinstance(turns, list):
        raise ValueError("not an episode (no turns or steps)")
    last_info: dict[str, Any] = {}
    last_segment: dict[str, Any] = {}
    for k, raw in enumerate(turns):
        if not isinstance(raw, dict):
            continue
        agent = raw.get("agent", "agent")
        info = decode(_json_text(raw.get("info")))
        segment = raw.get("segment")
        shown_segment = segment if segment != last_segment.get(agent, segment) else None
        end = (raw.get("terminated"), raw.get("truncated"))
        view["turns"].append(
            _turn(
                # The widgets of the screen the agent saw came with the previous turn's
                # info; the first turn's reset info is not stored, so its own stands in.
                k,
                agent,
                decode(_json_text(raw.get("obs"))),
                last_info.get(agent, info),
                raw.get("action"),
                raw.get("reward"),
                info,
                end,
                shown_segment,
            )
        )
        last_info[agent], last_segment[agent] = info, segment
    final = decode(_json_text(line.get("final_obs")))
    if isinstance(final, dict):
        view["final"] = [
            {"agent": str(a), "obs": _show(o, last_info.get(a))} for a, o in final.items()
        ]
    view["success"] = line.get("success")
    returns = decode(_json_text(line.get("returns")))
    view["returns"] = returns if isinstance(returns, dict) else {}
    meta = decode(_json_text(line.get("meta")))
    view["meta"] = _pretty(meta) if meta else None
    return view
