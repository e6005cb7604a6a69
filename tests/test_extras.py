"""A missing optional package gives one line naming the extra (issue 28, item 1).

Missing packages are simulated with ``sys.modules[name] = None``: in this process for
code that imports lazily (the LLM SDK, OpenAIPolicy, serve), in a fresh interpreter for
the env families, whose modules import their packages when they are first imported.
tests/test_packaging.py checks the same from a real base-only install.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from turngym.extras import EXTRAS, MissingExtra, missing, needs_extra, unavailable

ROOT = Path(__file__).resolve().parents[1]


def block(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make ``import name`` fail here as it does where the package is not installed."""
    for name in names:
        monkeypatch.setitem(sys.modules, name, None)


def assert_one_line(error: BaseException, extra: str) -> None:
    text = str(error)
    assert "\n" not in text
    assert f"needs the {extra} extra: pip install 'turngym[{extra}]'" in text, text


# -- the helper --------------------------------------------------------------------


def test_a_missing_module_of_the_extra_becomes_one_line_that_names_it(monkeypatch):
    block(monkeypatch, "werkzeug")
    with pytest.raises(MissingExtra) as caught, needs_extra("web", "WebShop-v0"):
        # the top package: a submodule another test imported stays in sys.modules
        import werkzeug  # noqa: F401
    assert str(caught.value) == (
        "WebShop-v0 needs the web extra: pip install 'turngym[web]' (and apt-get install chromium)"
    )
    assert caught.value.extra == "web" and caught.value.name.startswith("werkzeug")
    assert caught.value.__suppress_context__  # no "During handling..." chain under it
    assert isinstance(caught.value, ModuleNotFoundError)  # `except ImportError` still works


def test_a_module_of_another_extra_or_none_is_raised_as_it_was(monkeypatch):
    block(monkeypatch, "torch")
    with pytest.raises(ModuleNotFoundError) as caught, needs_extra("web", "a web env"):
        import torch  # noqa: F401
    assert not isinstance(caught.value, MissingExtra)
    with pytest.raises(ValueError, match="extra must be one of"), needs_extra("nope", "x"):
        pass


def test_missing_and_unavailable_look_modules_up_without_importing(monkeypatch):
    block(monkeypatch, "chess")
    assert missing("chess") == ["chess"]
    assert unavailable("chess") == "pip install 'turngym[chess]' (missing chess)"
    assert unavailable(None) is None
    assert set(EXTRAS) >= {"chess", "llm", "serve", "web", "gui", "swe", "memory", "ray"}


# -- the LLM SDK and the HTTP pieces (they import lazily) ------------------------------


def test_hf_policy_tiny_model_and_trainers_name_the_llm_extra(monkeypatch, tmp_path):
    from turngym.sdk.backends.hf import HFPolicy
    from turngym.sdk.models import build_tiny_model
    from turngym.sdk.trainers.grpo import GRPOConfig, GRPOTrainer

    block(monkeypatch, "torch")
    for make in (
        lambda: HFPolicy(tmp_path),
        lambda: build_tiny_model(tmp_path / "tiny"),
        lambda: GRPOTrainer(GRPOConfig(env="Bandit-v0", output_dir=str(tmp_path / "run"))),
    ):
        with pytest.raises(MissingExtra) as caught:
            make()
        assert_one_line(caught.value, "llm")
    assert not (tmp_path / "run").exists()  # refused before a folder was made


def test_openai_policy_serve_and_memory_backends_name_their_extra(monkeypatch, tmp_path):
    from turngym.sdk.backends.openai import OpenAIPolicy
    from turngym.sdk.serve import serve
    from turngym.wrappers.memory_store import MemoryStore

    block(monkeypatch, "httpx", "fastapi", "faiss")
    with pytest.raises(MissingExtra) as caught:
        OpenAIPolicy("http://127.0.0.1:9/v1")
    assert_one_line(caught.value, "serve")
    with pytest.raises(MissingExtra) as caught:
        serve(tmp_path, port=0)
    assert_one_line(caught.value, "serve")
    with pytest.raises(MissingExtra) as caught:
        MemoryStore(backend="faiss")
    assert_one_line(caught.value, "memory")


# -- the env families and the CLI (a fresh interpreter without the extras) -------------

WITHOUT_EXTRAS = """
import contextlib, io, json, sys
for name in sys.argv[1:]:
    sys.modules[name] = None  # what `import name` finds where it is not installed
import gymnasium as gym
from turngym.cli import main
from turngym.extras import MissingExtra

made = {}
for env_id in %s:
    try:
        gym.make(env_id).close()
        made[env_id] = "made"
    except MissingExtra as error:
        made[env_id] = str(error)
    except Exception as error:
        made[env_id] = f"{type(error).__name__}: {error}"
err = io.StringIO()
with contextlib.redirect_stderr(err):
    status = main(["play", "Chess-v0", "--agent", "random"])
print(json.dumps({"made": made, "play": [status, err.getvalue()]}))
"""

FAMILIES = {
    "turngym/Chess-v0": "chess",
    "turngym/WebShop-v0": "web",
    "turngym/WebForum-v0": "web",
    "turngym/miniwob.click-test-v0": "web",
    "turngym/gui.notes-create-v0": "gui",
    "turngym/ScreenGraph-v0": "gui",
}


def test_making_a_chess_web_or_gui_env_without_its_extra_says_which_to_install():
    blocked = sorted({m.partition(".")[0] for e in EXTRAS.values() for m in e.modules + e.also})
    blocked.remove("pytest")  # the SWE extra's: this interpreter is not pytest's
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRAS % sorted(FAMILIES), *blocked],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    for env_id, extra in FAMILIES.items():
        text = result["made"][env_id]
        assert f"needs the {extra} extra: pip install 'turngym[{extra}]'" in text, (env_id, text)
        assert "\n" not in text and "No module named" not in text
    assert "apt-get install chromium" in result["made"]["turngym/WebShop-v0"]
    assert "apt-get install xvfb" in result["made"]["turngym/gui.notes-create-v0"]
    assert "apt-get" not in result["made"]["turngym/ScreenGraph-v0"]  # drawn, no X server
    status, err = result["play"]
    assert status == 2
    assert err == "turngym: Chess-v0 needs the chess extra: pip install 'turngym[chess]'\n"


def test_list_shows_each_envs_extra_and_whether_it_is_installed(monkeypatch, capsys):
    from turngym.cli import main

    block(monkeypatch, "chess")
    assert main(["list", "--json"]) == 0
    rows = {r["id"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows["turngym/Chess-v0"]["extra"] == "chess"
    assert rows["turngym/Chess-v0"]["installed"] is False
    assert "pip install 'turngym[chess]'" in rows["turngym/Chess-v0"]["missing"]
    assert rows["turngym/Wordle-v0"]["extra"] is None and rows["turngym/Wordle-v0"]["installed"]
    assert rows["turngym/WebShop-v0"]["extra"] == "web"
    assert rows["turngym/WebShop-v0"]["system"] == ["chromium"]
    assert main(["list", "--family", "text"]) == 0
    out = capsys.readouterr().out
    assert "installed" in out.splitlines()[0]
    assert "chess envs need: pip install 'turngym[chess]' (missing chess)" in out


def test_check_all_skips_what_is_not_installed_and_a_named_one_is_an_error(monkeypatch, capsys):
    from turngym import registry
    from turngym.cli import main

    block(monkeypatch, "chess")
    monkeypatch.setattr(registry, "ENVS", (registry.entry("Bandit-v0"), registry.entry("Chess-v0")))
    assert main(["check", "--all", "--n-fuzz", "20", "--reset-episodes", "2"]) == 0
    out = capsys.readouterr().out
    assert "skipped turngym/Chess-v0: pip install 'turngym[chess]' (missing chess)" in out
    assert "Traceback" not in out
    assert "1/1 envs pass (1 skipped: extras not installed)" in out
    assert main(["check", "Chess-v0"]) == 2
    assert "Chess-v0 cannot run here: pip install 'turngym[chess]'" in capsys.readouterr().err
