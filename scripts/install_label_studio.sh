#!/usr/bin/env bash
# Install the Label Studio server in its own virtualenv: its pins clash with the toolkit's.
# Usage: scripts/install_label_studio.sh [VENV_DIR]   (default: .venv-labelstudio beside this repo)
# Afterwards the server is at VENV_DIR/bin/label-studio; point LABEL_STUDIO_BIN at it.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV_DIR="${1:-.venv-labelstudio}"
LABEL_STUDIO_VERSION="${LABEL_STUDIO_VERSION:-1.23.2}"
# The WSGI server of `--label-studio-workers N` (several processes, as Label Studio's Docker image runs it).
GUNICORN_VERSION="${GUNICORN_VERSION:-27.0.1}"
STAMP="$VENV_DIR/.installed-$LABEL_STUDIO_VERSION"
PIP=("$VENV_DIR/bin/python" -m pip --disable-pip-version-check)
if [ -f "$STAMP" ] && [ -x "$VENV_DIR/bin/label-studio" ]; then
  if [ ! -x "$VENV_DIR/bin/gunicorn" ]; then
    echo "==> adding gunicorn $GUNICORN_VERSION to $VENV_DIR (for --label-studio-workers)"
    "${PIP[@]}" install "gunicorn==$GUNICORN_VERSION"
  fi
  echo "==> label-studio $LABEL_STUDIO_VERSION already installed in $VENV_DIR"
  exit 0
fi
echo "==> Label Studio $LABEL_STUDIO_VERSION: the annotation server the authoring tests start, in its own"
echo "    virtualenv $VENV_DIR (its pinned libraries clash with the toolkit's; about 1 GB, a few minutes)"
"$PYTHON" -m venv "$VENV_DIR"
"${PIP[@]}" install --upgrade pip
"${PIP[@]}" install "label-studio==$LABEL_STUDIO_VERSION" "gunicorn==$GUNICORN_VERSION"
echo "==> checking that label-studio $LABEL_STUDIO_VERSION imports"
"$VENV_DIR/bin/python" -c "import label_studio; print(label_studio.__version__)" >/dev/null
touch "$STAMP"
echo "==> label-studio $LABEL_STUDIO_VERSION installed: $VENV_DIR/bin/label-studio"
