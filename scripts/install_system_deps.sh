#!/usr/bin/env bash
# Install the Debian packages that tests use for real components. As root it
# installs what is missing; otherwise it names what is missing (those tests skip).
set -euo pipefail
packages=(
  wamerican   # /usr/share/dict/american-english: source of the bundled Wordle lists
  stockfish   # /usr/games/stockfish: the chess engine behind Chess-v0 / ChessEndgame-v0
  chromium    # /usr/bin/chromium: the browser of the web envs (driven by Playwright)
  bubblewrap  # /usr/bin/bwrap: the sandbox of the SWE envs (agent commands, repo tests)
  xvfb        # /usr/bin/Xvfb: the X server of the desktop envs
  xterm       # the desktop envs' terminal (its shell runs in bubblewrap)
  xdotool     # the desktop envs' input fallback where XTEST is missing
  fonts-dejavu-core  # the fonts the desktop apps and the terminal draw with
  libtk8.6    # Tk, which the desktop apps (tkinter) are written in
  twm         # a minimal window manager, for Display(window_manager="twm")
  xfonts-base xfonts-75dpi  # the core X fonts twm needs (without them it exits at start)
)
# Debian's own Python keeps tkinter in a package of its own.
if ! python3 -c "import tkinter" >/dev/null 2>&1 && [ -x /usr/bin/python3 ] \
  && [ "$(command -v python3)" = /usr/bin/python3 ]; then
  packages+=(python3-tk)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  echo "installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "note: missing system packages (tests that need them will skip): ${missing[*]}" >&2
fi
