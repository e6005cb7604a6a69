"""X11 desktop envs (Xvfb, Tk apps with a side channel) and the simulated ScreenGraph env."""
