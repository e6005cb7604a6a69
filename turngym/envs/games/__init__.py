"""Turn-based multi-agent games as PettingZoo AEC envs, and single-agent views of them."""
