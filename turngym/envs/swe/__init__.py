"""Software-engineering environments: an agent edits a repository and its tests grade it.

- ``env``: ``SWEEnv``, the env (tools, submission, reward);
- ``tools``: the agent's tools over the workspace (bash, view, edit, submit);
- ``workspace``: the repository copied for an episode;
- ``grading``, ``judge``, ``plugin/``: the hidden tests run in the sandbox and judged
  outside it; ``validate``: the task validator; ``tasks``: the bundled tasks.

The sandboxes the commands and the tests run in are the host's (``turngym.host.sandbox``);
the modules that lived here (``sandbox``, ``docker_sandbox``, ``local_sandbox``,
``cgroups``, ``quota``, ``seccomp``, ``host_view``) are aliases of their new homes for one
release. Nothing here imports the docker SDK until a ``DockerSandbox`` is made.
"""
