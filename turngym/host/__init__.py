"""What protects the host from the agent, on the ground floor.

SWE envs, the GUI terminal, ``turngym serve`` and the viewer look down to it:

- ``confined``: files the host reads and writes for an agent, inside one folder, never
  through a link (``Folder``, ``PathRefused``);
- ``reaper``: child processes and temp folders that never outlive this process;
- ``cgroups``, ``quota``, ``seccomp``: a sandbox's process, memory and CPU caps, its
  workspace's disk quota, and the filter that keeps a write from escaping it;
- ``system_view``: what of the host's system a sandbox is shown (the ``/etc`` allowlist,
  root-only files covered, turngym's own package hidden);
- ``sandbox``: the bubblewrap, Docker and local sandboxes and ``make_sandbox``.

Nothing here imports the rest of turngym.
"""
