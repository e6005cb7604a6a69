"""Every desktop task template: its oracle solves 10 seeds, random play does not, conformance."""

from __future__ import annotations

import os

import gymnasium as gym
import pytest

import turngym  # noqa: F401  (registers the ids)
from tests import system_deps
from turngym.agents import RandomAgent
from turngym.agents.experts.gui import SOLVERS, GUIOracle
from turngym.agents.experts.gui.screen import Screen, key, type_text
from turngym.envs.gui.tasks import TASKS
from turngym.testing import check_text_env

pytestmark = [pytest.mark.x11, system_deps.x11()]

SEEDS = range(int(os.environ.get("TURNGYM_GUI_ORACLE_SEEDS", "10")))


def test_every_template_has_an_oracle():
    assert sorted(SOLVERS) == sorted(TASKS)
    assert len(TASKS) >= 15


@pytest.fixture(scope="module")
def envs():
    made: dict[str, gym.Env] = {}
    yield made
    for env in made.values():
        env.close()


def _env(envs, task):
    if task not in envs:
        envs[task] = gym.make(f"turngym/gui.{task}-v0")
    return envs[task]


def play(env, agent, seed):
    obs, info = env.reset(seed=seed)
    agent.reset(seed)
    total, invalid = 0.0, 0
    for _ in range(60):
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        total += reward
        invalid += info["invalid_action"]
        if terminated or truncated:
            break
    return total, info["success"], invalid, obs


@pytest.mark.parametrize("task", sorted(TASKS))
def test_oracle_solves_every_seed(envs, task):
    env = _env(envs, task)
    oracle = GUIOracle(env)
    for seed in SEEDS:
        total, success, invalid, obs = play(env, oracle, seed)
        assert success and total == 1.0 and invalid == 0, (
            task,
            seed,
            env.unwrapped.params,
            obs["text"][-1500:],
        )


@pytest.mark.parametrize("task", sorted(TASKS))
def test_random_play_rarely_solves(envs, task):
    env = _env(envs, task)
    agent = RandomAgent(seed=0)
    wins = sum(play(env, agent, 100 + seed)[1] for seed in range(5))
    assert wins == 0


@pytest.mark.parametrize("task", sorted(TASKS))
def test_conformance(task):
    # Reset safety compares a reused env with fresh ones (a new X server each): 3 will do.
    # The terminal templates restart xterm at every reset; longer fuzzed episodes (more
    # turns and invalid actions before truncation) keep their 1,000 actions to ~10 resets.
    kwargs = {"max_turns": 200, "max_invalid_actions": 100} if task.startswith("terminal") else {}
    check_text_env(f"turngym/gui.{task}-v0", reset_episodes=3, make_kwargs=kwargs)


# -- hybrid templates: each app the instruction names must be used ----------------------


class Desk:
    """Drives a desktop env as an agent would: widgets by name, shell lines, keys."""

    def __init__(self, env: gym.Env, seed: int) -> None:
        self.env = env
        _, self.info = env.reset(seed=seed)
        self.params = env.unwrapped.params
        self.workdir = env.unwrapped.workdir
        self.success = False

    def __call__(self, action: str) -> bool:
        """One step; whether the episode ended."""
        _, _, terminated, truncated, self.info = self.env.step(action)
        self.success = self.info["success"] if terminated or truncated else False
        return terminated or truncated

    def click(self, role: str, name: str, **fields) -> bool:
        return self(Screen(self.info["widgets"]).click(role, name, **fields))

    def shell(self, command: str, made: str, text: str) -> bool:
        """Run ``command`` in the terminal and wait until the file ``made`` holds ``text``."""
        self.click("terminal", None)
        ended = self(type_text(command + "\n"))
        path = self.workdir / made
        for _ in range(100):  # the shell runs on its own: poll the file, not the clock
            if ended or (path.is_file() and path.read_text() == text):
                break
            ended = self("wait()")
        assert ended or path.read_text() == text
        return ended

    def note(self, title: str, body: str) -> bool:
        """A new note in the Notes app, saved."""
        self.click("button", "New", app="notes")
        self.click("entry", "Title")
        self(type_text(title))
        self.click("text", "Body")
        self(type_text(body))
        return self(key("ctrl+s"))


@pytest.mark.parametrize("task", ["terminal-count", "terminal-notes"])
def test_the_terminal_alone_does_not_solve_a_task_that_names_the_notes_app(envs, task):
    desk = Desk(_env(envs, task), seed=0)
    p = desk.params
    if task == "terminal-count":
        made, text = f"notes/{p['title']}.txt", f"{p['rows']}\n"
        command = f"wc -l < data/records.csv > 'notes/{p['title']}.txt'"
    else:
        made, text = f"notes/{p['title']}.txt", f"{p['first']}\n{p['second']}\n"
        command = f"printf '%s\\n' '{p['first']}' '{p['second']}' > notes/{p['title']}.txt"
    ended = desk.shell(command, made, text)
    ended = ended or desk("done")
    assert ended and not desk.success, desk.info


@pytest.mark.parametrize("task", ["terminal-count", "terminal-notes"])
def test_a_note_opened_from_the_terminal_and_saved_unchanged_does_not_count(envs, task):
    """Notes must do the part of the work the instruction gives it, not just re-save."""
    desk = Desk(_env(envs, task), seed=1)
    p = desk.params
    if task == "terminal-count":
        made, text = f"notes/{p['title']}.txt", str(p["rows"])
    else:
        made, text = f"notes/{p['title']}.txt", f"{p['first']}\n{p['second']}"
    ended = desk.shell(f"printf '%s' '{text}' > '{made}'", made, text)
    assert not ended
    desk.click("button", "Refresh", app="notes")
    desk.click("listitem", p["title"])
    ended = desk(key("ctrl+s"))
    assert (desk.workdir / made).read_text() == text
    ended = ended or desk("done")
    assert ended and not desk.success, desk.info


def test_terminal_notes_needs_the_terminal_for_the_first_line(envs):
    desk = Desk(_env(envs, "terminal-notes"), seed=2)
    p = desk.params
    ended = desk.note(p["title"], f"{p['first']}\n{p['second']}")
    assert (desk.workdir / f"notes/{p['title']}.txt").read_text() == f"{p['first']}\n{p['second']}"
    ended = ended or desk("done")
    assert ended and not desk.success, desk.info
