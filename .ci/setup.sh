#!/usr/bin/env bash
# Installs what building and testing VRAM Ledger needs, idempotently: each step checks first and
# says what it does. Usage: .ci/setup.sh [app|test]
#   app  — the wasm target, Trunk, wasm-bindgen-cli (at Cargo.lock's version), npm packages (wasm-opt)
#   test — app + Debian's chromium and chromium-driver (browser tests)
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-test}"
TRUNK_VERSION="0.21.14"

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "rust target wasm32-unknown-unknown: present"
else
  say "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# rustfmt and clippy for `make test`'s lint step.
for component in rustfmt clippy; do
  if rustup component list --installed 2>/dev/null | grep -q "^$component"; then
    say "rust component $component: present"
  else
    say "adding rust component $component"
    rustup component add "$component"
  fi
done

if [ "$(trunk --version 2>/dev/null || true)" = "trunk $TRUNK_VERSION" ]; then
  say "trunk $TRUNK_VERSION: present"
else
  # 0.22 needs a newer rustc than this toolchain's; 0.21.14 is the last that installs (~7 min).
  say "installing trunk $TRUNK_VERSION (takes several minutes)"
  cargo install --locked "trunk@$TRUNK_VERSION"
fi

# Trunk only uses a wasm-bindgen whose version equals Cargo.lock's, and cannot download one here.
WBG_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
if [ -z "$WBG_VERSION" ]; then
  echo "setup: could not read the wasm-bindgen version from Cargo.lock" >&2
  exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null || true)" = "wasm-bindgen $WBG_VERSION" ]; then
  say "wasm-bindgen-cli $WBG_VERSION: present"
else
  # No --locked: its lock file pins a webpki-roots the registry here does not serve.
  say "installing wasm-bindgen-cli $WBG_VERSION (Cargo.lock's wasm-bindgen; takes a few minutes)"
  cargo install --force "wasm-bindgen-cli@$WBG_VERSION"
fi

if ! command -v npm >/dev/null 2>&1; then
  say "installing nodejs and npm (Debian)"
  as_root apt-get update -q
  as_root apt-get install -y -q nodejs npm
fi
if [ -f node_modules/.package-lock.json ] && [ node_modules/.package-lock.json -nt package-lock.json ] \
   && [ -x node_modules/.bin/wasm-opt ]; then
  say "npm packages (binaryen's wasm-opt, terser, playwright-core): present"
else
  say "npm ci (binaryen's wasm-opt, terser, playwright-core)"
  npm ci --no-audit --no-fund
fi

if [ "$what" = "test" ]; then
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    say "chromium and chromedriver: present ($(/usr/bin/chromium --version 2>/dev/null | head -1))"
  else
    say "installing Debian's chromium and chromium-driver"
    as_root apt-get update -q
    as_root apt-get install -y -q chromium chromium-driver
  fi
fi

say "fetching crates (cargo fetch --locked)"
cargo fetch --locked -q
