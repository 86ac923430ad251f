# `make demo` and `make test` share one virtual environment, created on first use: `make demo` installs the
# toolkit alone (all the audio demo needs); `make test` adds what the tests need to the same .venv, each
# install with its own stamp, so either order works and nothing is installed twice.
# Sizes and times of each install: docs/install-sizes.md.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
BASE_STAMP := $(VENV)/.base-stamp
STAMP := $(VENV)/.installed-stamp
# The Label Studio server: its own virtualenv (scripts/install_label_studio.sh), its pins clash with ours.
LABEL_STUDIO_VENV ?= .venv-labelstudio

.PHONY: demo test docs system-deps bench clean

$(PY):
	@echo "==> creating the virtual environment $(VENV), with a current pip"
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# The toolkit and its libraries, without the image source's OCR stack (the [image] extra).
$(BASE_STAMP): pyproject.toml | $(PY)
	@echo "==> installing the toolkit (pip install -e .): the libraries every source needs;"
	@echo "    the image source's olmocr stack is not installed (pip install -e '.[image]' adds it)"
	$(PIP) install -e .
	@touch $@

# Everything the tests exercise, on top of the base install.
$(STAMP): $(BASE_STAMP)
	@echo "==> adding the test tools, the image source's olmocr stack, the Label Studio client and the docs builder"
	@echo "    (pip install -e '.[test,image,labelstudio,docs]')"
	$(PIP) install -e '.[test,image,labelstudio,docs]'
	@touch $@

demo: $(BASE_STAMP)
	@echo "==> building the audio (AMI) sample into release 0.1.0, offline"
	$(PY) -m build_split --source ami --sample --release 0.1.0 --allow-unreviewed

docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict

system-deps:
	bash scripts/install_system_deps.sh
	bash scripts/install_label_studio.sh $(LABEL_STUDIO_VENV)

test: $(STAMP) system-deps
	@echo "==> ruff, then the tests"
	$(VENV)/bin/ruff check .
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) benchmarks/bench_text_pipeline.py --records 25000
	$(PY) benchmarks/bench_ami.py
	$(PY) benchmarks/bench_ocr.py
	$(PY) benchmarks/bench_llm_judge.py
	$(PY) benchmarks/bench_labelstudio.py
	$(PY) benchmarks/bench_release.py

clean:
	rm -rf $(VENV) workspace
