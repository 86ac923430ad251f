#!/usr/bin/env bash
# System packages the toolkit and its tests use: Tesseract and poppler for the CPU OCR endpoint,
# Debian's Chromium for olmOCR-bench math tests and the Label Studio browser test, PostgreSQL's server for the
# Label Studio tests on PostgreSQL (they start their own throwaway cluster: tests/postgres.py).
# Installs only what is missing, saying what and why as it goes; needs root (or sudo) the first time.
set -euo pipefail
need=()
command -v tesseract >/dev/null 2>&1 || need+=(tesseract-ocr)
command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
# Debian keeps initdb and pg_ctl in /usr/lib/postgresql/<version>/bin, off PATH.
command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
if [ ${#need[@]} -eq 0 ]; then
  echo "==> system packages: tesseract, pdftoppm, chromium, chromedriver and PostgreSQL are all installed"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "==> system packages missing: ${need[*]}"
echo "    (Tesseract and poppler: the CPU OCR endpoint; Chromium: math tests and the browser test;"
echo "    PostgreSQL: the Label Studio tests on PostgreSQL)"
echo "==> apt-get update: refreshing the package lists"
$SUDO apt-get update -q
echo "==> apt-get install ${need[*]}"
# -q: one line per package downloaded, unpacked and set up, without the progress bars a log cannot show
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
echo "==> system packages installed: ${need[*]}"
