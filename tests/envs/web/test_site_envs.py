"""The site envs (WebShop, WebForum, WebAdmin) in Chromium: conformance, every template's
oracle on 20 seeds, and a random agent that almost never succeeds."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import gymnasium as gym
import pytest

import turngym  # noqa: F401  (registers the ids)
from tests import system_deps
from tests.envs.web.random_web_agent import RandomWebAgent
from tests.sampling import sample_values
from turngym.agents import make_expert
from turngym.registry import ENVS
from turngym.testing import check_text_env

pytestmark = [pytest.mark.browser, system_deps.chromium()]

# the site envs (MiniWoB, also in the web family, has its own tests)
SITE_ENVS = [e.id for e in ENVS if e.family == "web" and not e.name.startswith("miniwob.")]
SEEDS = range(20)
WORKERS = 3  # envs played at once: a page loads while another is parsed


def _play(env: gym.Env, agent, seed: int) -> dict:
    if hasattr(agent, "reset"):
        agent.reset(seed)
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        done = terminated or truncated
    return info


def _play_all(env_id: str, jobs: list[tuple[str | None, int]], agent_for, **kwargs) -> list:
    """Play (template, seed) jobs on WORKERS envs of one browser; the final infos in order."""
    envs = [gym.make(env_id, **kwargs) for _ in range(WORKERS)]
    agents = [agent_for(env) for env in envs]

    def work(k: int) -> list[tuple[int, dict]]:
        out = []
        for i in range(k, len(jobs), WORKERS):
            template, seed = jobs[i]
            envs[k].unwrapped.template = template
            out.append((i, _play(envs[k], agents[k], seed)))
        return out

    try:
        with ThreadPoolExecutor(WORKERS) as pool:
            results = [r for part in pool.map(work, range(WORKERS)) for r in part]
    finally:
        for env in envs:
            env.close()
    return [info for _, info in sorted(results, key=lambda r: r[0])]


@pytest.mark.parametrize("env_id", SITE_ENVS)
def test_conformance(env_id):
    check_text_env(env_id, n_fuzz=1000, reset_episodes=5, expert_episodes=3)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", SITE_ENVS)
def test_every_template_is_solved_by_its_oracle_on_sampled_seeds(env_id):
    # Measured on all of seeds 0-19 when written; each run plays 8 of them, drawn with
    # the run's sample seed (printed at the end of the run), to keep the suite's time.
    templates = gym.make(env_id).unwrapped.site.templates
    seeds = sample_values(SEEDS, 8, f"oracle:{env_id}")
    jobs = [(t, s) for t in templates for s in seeds]
    infos = _play_all(env_id, jobs, make_expert)
    failed = [
        (job, info.get("score"), info.get("last_action_error"))
        for job, info in zip(jobs, infos, strict=True)
        if not (info["success"] and info.get("score") == 1.0 and not info["invalid_action"])
    ]
    assert not failed, failed[:5]


@pytest.mark.parametrize("env_id", SITE_ENVS)
def test_a_random_agent_almost_never_succeeds(env_id):
    jobs = [(None, s) for s in SEEDS]
    infos = _play_all(env_id, jobs, lambda env: RandomWebAgent(seed=0), max_turns=15)
    successes = sum(bool(info["success"]) for info in infos)
    assert successes <= 1, successes
