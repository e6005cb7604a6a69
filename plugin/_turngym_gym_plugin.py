"""Make turngym's env ids visible to ``gymnasium.make`` without ``import turngym``.

Gymnasium >= 1.0 no longer loads plugins from the ``gymnasium.envs`` entry-point
group, so the wheel ships ``_turngym_gym_plugin.pth``, which imports this module at
interpreter start. It only puts a finder on ``sys.meta_path``; nothing is imported
until the program itself imports gymnasium. Then, right after gymnasium's package
has finished loading, turngym's registry table (plain strings, no env code) is
registered. Every failure here is swallowed: a plugin must never break Python.
"""

from __future__ import annotations

import sys

# Runs at every interpreter start: import nothing that site.py has not imported
# already (typing alone costs ~10 ms), so the type names below are for mypy only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import Any


def _register_turngym() -> None:
    if "turngym.registry" in sys.modules:
        # turngym is importing gymnasium itself and registers on its own.
        return
    try:
        from turngym.registry import register_envs

        register_envs()
    except Exception as error:  # pragma: no cover - defensive
        import warnings

        warnings.warn(
            f"turngym could not register its envs with gymnasium: {error!r}", stacklevel=2
        )


class _GymnasiumHook:
    """Meta-path finder that wraps the loader of the ``gymnasium`` package once."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        from importlib.util import find_spec

        spec = find_spec("gymnasium")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader: Any = spec.loader
        original = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            original(module)
            _register_turngym()

        loader.exec_module = exec_module
        return spec


def install() -> None:
    """Put the hook on ``sys.meta_path`` unless gymnasium is already imported."""
    if "gymnasium" in sys.modules:
        _register_turngym()
    elif not any(isinstance(finder, _GymnasiumHook) for finder in sys.meta_path):
        sys.meta_path.insert(0, _GymnasiumHook())


# A plugin must never break interpreter start (contextlib would cost an import).
try:  # noqa: SIM105
    install()
except Exception:
    pass
