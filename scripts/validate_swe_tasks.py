#!/usr/bin/env python3
"""Check the SWE tasks' FAIL_TO_PASS / PASS_TO_PASS as SWE-bench computes them.

A thin entry to ``turngym.envs.swe.validate`` (same flags; ``--help`` lists them):

    python scripts/validate_swe_tasks.py            # every bundled task
    python scripts/validate_swe_tasks.py --write    # and fix their task.toml files
    python scripts/validate_swe_tasks.py --jsonl tasks.jsonl --repo owner/name=path/to/clone
"""

import sys

from turngym.envs.swe.validate import main

if __name__ == "__main__":
    sys.exit(main())
