#!/usr/bin/env bash
# System packages the toolkit and its tests use: Tesseract and poppler for the CPU OCR endpoint,
# Debian's Chromium for olmOCR-bench math tests and the Label Studio browser test.
# Installs only what is missing; needs root (or sudo) the first time.
set -euo pipefail
need=()
command -v tesseract >/dev/null 2>&1 || need+=(tesseract-ocr)
command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing system packages: ${need[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
