"""Software-engineering environments: an agent edits a repository and its tests grade it.

- ``sandbox``: where the agent's shell commands and the tests run: ``BwrapSandbox``
  (bubblewrap: no network, a read-only system, the repository at ``/testbed``, cgroup
  limits), ``DockerSandbox`` (SWE-bench/SWE-Gym images) and ``LocalSandbox`` (no isolation,
  for trusted code only); ``make_sandbox`` picks the best one available;
- ``cgroups``: the cgroups (v1) a bwrap sandbox's calls run in; ``docker_sandbox``: the
  ``DockerSandbox`` class (also found as ``sandbox.DockerSandbox``).

Nothing here imports the docker SDK until a ``DockerSandbox`` is made.
"""
