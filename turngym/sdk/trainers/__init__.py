"""Trainers: GRPO family (``grpo``) and the plumbing they share (``common``)."""
