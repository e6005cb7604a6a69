"""A bash-only SWE agent in the style of mini-swe-agent: one shell command per turn.

The model sees the issue and the output of its previous command, thinks briefly, and
answers with exactly one fenced ``bash`` block; ``parse_bash`` turns that block into the
env's ``bash("...")`` tool call, and the command ``submit`` into ``submit()``. Editing is
done with shell tools (``sed -i``, ``cat <<'EOF' > file``, ``python - <<'EOF'``), so the
agent needs nothing but a shell: the simplest baseline for SWE RL.
"""

from __future__ import annotations

import json
import re
from typing import Any

from turngym.sdk.agents.llm import LLMAgent
from turngym.sdk.policy import Policy, SamplingParams

__all__ = ["MINI_SWE_SYSTEM_PROMPT", "MiniSWEAgent", "parse_bash"]

MINI_SWE_SYSTEM_PROMPT = """\
You are a careful software engineer fixing an issue in a Python repository.
You work through a shell. Each of your replies has two parts:
1. THOUGHT: a few sentences on what you learned and what you will do next.
2. Exactly ONE command in a fenced block:

```bash
<one shell command, or several joined with && >
```

Rules:
- Every command runs in a fresh shell in the repository root; `cd` and variables do not
  persist between replies. There is no network.
- Read code with `grep -n`, `sed -n 'START,ENDp' FILE` or `cat`. Edit files with
  `sed -i`, `python - <<'EOF' ... EOF` or `cat <<'EOF' > FILE ... EOF`.
- Reproduce the issue first, then fix the source code (do not change the tests), then run
  the tests (`python -m pytest -q`).
- When the fix is done and tested, reply with the command `submit` alone.
"""

_BLOCK = re.compile(r"```(?:bash|sh|shell)?[ \t]*\n(.*?)```", re.DOTALL)


def parse_bash(text: str, info: dict[str, Any]) -> str:
    r"""The env action of a reply: its last ``bash`` block as ``bash("...")``.

    ``submit`` becomes ``submit()``; a reply without a block is passed on as it is, so the
    env reports it as an invalid action and the model sees why.

    >>> parse_bash("THOUGHT: look.\n```bash\nls -la\n```", {})
    'bash("ls -la")'
    >>> parse_bash("Done.\n```bash\nsubmit\n```", {})
    'submit()'
    """
    blocks = _BLOCK.findall(text)
    if not blocks:
        return text.strip()
    command = blocks[-1].strip()
    if command in ("submit", "submit()"):
        return "submit()"
    return f"bash({json.dumps(command)})"


class MiniSWEAgent(LLMAgent):
    """``LLMAgent`` with the bash-only prompt and parser (``MINI_SWE_SYSTEM_PROMPT``).

    Args:
        policy: the model (HF, vLLM or OpenAI-compatible backend).
        sampling: how to sample (default: ``SamplingParams()``).
        system_prompt: replaces the default prompt.

    """

    def __init__(
        self,
        policy: Policy,
        sampling: SamplingParams | None = None,
        system_prompt: str = MINI_SWE_SYSTEM_PROMPT,
    ) -> None:
        super().__init__(policy, system_prompt=system_prompt, parse=parse_bash, sampling=sampling)
