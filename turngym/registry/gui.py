"""The GUI rows: a drawn app, and the desktop tasks.

``SCREEN_GRAPH`` is drawn with Pillow (no X server); ``GUI`` are the desktop tasks (Tk
apps and a sandboxed xterm on a private Xvfb).
"""

from __future__ import annotations

from types import MappingProxyType

from turngym.envs.gui.tasks import TASKS as GUI_TASKS
from turngym.registry.base import EnvEntry, env_row

SCREEN_GRAPH: tuple[EnvEntry, ...] = (
    env_row(
        "ScreenGraph-v0",
        "turngym.envs.gui.screen_graph:ScreenGraphEnv",
        "gui",
        20,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.screen_graph:ScreenGraphExpert",
        system=(),  # drawn with Pillow: no X server
        description="open a named screen of a drawn app by clicking icons (GUI Exploration "
        "Lab style); text + screenshot observations, click(x, y) or click(index)",
    ),
)

# desktop tasks (Tk apps and a sandboxed xterm on a private Xvfb)
GUI: tuple[EnvEntry, ...] = tuple(
    env_row(
        f"gui.{task}-v0",
        "turngym.envs.gui.env:DesktopEnv",
        "gui",
        50,
        finite_actions=False,
        stochastic=False,
        expert="turngym.agents.experts.gui:GUIOracle",
        kwargs=MappingProxyType({"task": task}),
        description=f"desktop task {task}: bundled apps on Xvfb, computer-use actions",
    )
    for task in GUI_TASKS
)
