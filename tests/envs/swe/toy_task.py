"""A tiny SWE task built in a test's folder: a two-file package with an off-by-one bug."""

from __future__ import annotations

import subprocess
from pathlib import Path

from turngym.envs.swe.tasks import SWETask

BASE = {
    "mathy/__init__.py": "from mathy.ops import total\n",
    "mathy/ops.py": (
        "def total(values):\n"
        '    """The sum of the first len(values) values."""\n'
        "    result = 0\n"
        "    for i in range(len(values) - 1):\n"
        "        result += values[i]\n"
        "    return result\n"
        "\n"
        "\n"
        "def double(x):\n"
        "    return 2 * x\n"
    ),
    "tests/test_ops.py": (
        "from mathy.ops import double, total\n"
        "\n"
        "\n"
        "def test_double():\n"
        "    assert double(2) == 4\n"
        "\n"
        "\n"
        "def test_total_of_nothing():\n"
        "    assert total([]) == 0\n"
    ),
}
FIXED = {"mathy/ops.py": BASE["mathy/ops.py"].replace("len(values) - 1", "len(values)")}
TESTS = {
    "tests/test_ops.py": BASE["tests/test_ops.py"]
    + "\n\ndef test_total_counts_every_value():\n    assert total([1, 2, 3]) == 6\n"
}


def _diff(folder: Path, files: dict[str, str]) -> str:
    """The git diff that turns the base files of ``folder`` into ``files``."""
    run = lambda *a: subprocess.run(["git", *a], cwd=folder, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    run("add", "-A")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    for name, text in files.items():
        (folder / name).write_text(text)
    patch = subprocess.run(
        ["git", "diff"], cwd=folder, check=True, capture_output=True, text=True
    ).stdout
    subprocess.run(["rm", "-rf", str(folder)], check=True)
    return patch


def write(folder: Path, files: dict[str, str]) -> Path:
    """Write ``files`` under ``folder`` and return it."""
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def toy_task(root: Path, instance_id: str = "toy__mathy-1") -> SWETask:
    """The toy task, its repo files under ``root/repo``."""
    source = write(root / "repo", BASE)
    patch = _diff(write(root / "scratch-fix", BASE), FIXED)
    test_patch = _diff(write(root / "scratch-tests", BASE), TESTS)
    return SWETask(
        instance_id=instance_id,
        repo="toy/mathy",
        base_commit="",
        problem_statement="total([1, 2, 3]) returns 3 instead of 6.",
        patch=patch,
        test_patch=test_patch,
        fail_to_pass=("tests/test_ops.py::test_total_counts_every_value",),
        pass_to_pass=("tests/test_ops.py::test_double", "tests/test_ops.py::test_total_of_nothing"),
        source=source,
        difficulty=1,
        kind="off-by-one",
    )
