"""`--ocr-server URL` to vLLM serving an olmOCR model: the request olmocr's pipeline sends must be
what that server expects.

The server is the one docs/sources.md documents, olmocr's own launch of vLLM:

    vllm serve allenai/olmOCR-2-7B-1025-FP8 --served-model-name olmocr --max-model-len 16384 ...

so it answers to the model name `olmocr` only, and the model (per its card) reads one page image
whose longest side is 1288 pixels, with olmOCR-2's v4 YAML prompt. The CPU endpoint stands in for
vLLM at the network boundary: it serves the same model name, answers a wrong one with vLLM's 404,
and captures every request the real olmocr pipeline sends.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest

from loaders.ocr import OcrSetupError, request_model, run_olmocr
from loaders.ocr_server import serve_cpu_ocr
from tests.ci import missing

SLICE_PDFS = Path(__file__).resolve().parents[1] / "data" / "olmocr_bench" / "pdfs"
SERVED_MODEL = "olmocr"  # vLLM's --served-model-name in docs/sources.md, as olmocr's own launch sets it
OLMOCR_2_IMAGE_LONG_SIDE = 1288  # "rendered such that the longest dimension is 1288 pixels" (model card)
OLMOCR_2_PROMPT = (
    "Attached is one page of a document that you must process. Just return the plain text representation of "
    "this document as if you were reading it naturally. Convert equations to LateX and tables to HTML.\n"
    "If there are any figures or charts, label them with the following markdown syntax "
    "![Alt text describing the contents of the figure](page_startx_starty_width_height.png)\n"
    "Return your output as markdown, with a front matter section on top specifying values for the "
    "primary_language, is_rotation_valid, rotation_correction, is_table, and is_diagram parameters."
)
MAX_MODEL_LEN = 16384  # vLLM's --max-model-len in docs/sources.md


def require_tools() -> None:
    absent = [t for t in ("tesseract", "pdftoppm") if shutil.which(t) is None]
    if absent:
        missing(f"needs {', '.join(absent)} (apt-get install -y tesseract-ocr poppler-utils)")


def test_the_pipeline_sends_the_served_model_name_a_1288_pixel_page_and_olmocr2s_prompt(tmp_path: Path) -> None:
    require_tools()
    from olmocr.prompts import build_no_anchoring_v4_yaml_prompt

    assert build_no_anchoring_v4_yaml_prompt() == OLMOCR_2_PROMPT  # the installed olmocr is the one documented
    pdfs = {name: SLICE_PDFS / name for name in ("earnings.pdf", "small_page_size.pdf")}
    with serve_cpu_ocr(served_model=SERVED_MODEL) as server:
        # as `--ocr-server URL` without --ocr-model: the name comes from the server's /models
        run = run_olmocr(pdfs, tmp_path / "ocr", server=server.url)
        captured = list(server.requests)
    assert all(result.error is None for result in run.results.values())
    assert len(captured) == 2  # one request per page, none retried
    for request in captured:
        assert request.model == SERVED_MODEL
        assert max(request.image_width, request.image_height) == OLMOCR_2_IMAGE_LONG_SIDE
        assert request.prompt == OLMOCR_2_PROMPT
        assert request.max_tokens is not None and request.max_tokens < MAX_MODEL_LEN
    assert f"--model {SERVED_MODEL}" in run.log_path.read_text().splitlines()[0]


def test_a_model_name_the_server_does_not_serve_is_refused_before_any_page_is_sent(tmp_path: Path) -> None:
    require_tools()
    with serve_cpu_ocr(served_model=SERVED_MODEL) as server:
        # olmocr's own default --model is the Hub id, which vLLM started as documented does not answer to
        with pytest.raises(OcrSetupError, match="serves olmocr, not 'allenai/olmOCR-2-7B-1025-FP8'"):
            run_olmocr(
                {"earnings.pdf": SLICE_PDFS / "earnings.pdf"},
                tmp_path / "ocr",
                server=server.url,
                model="allenai/olmOCR-2-7B-1025-FP8",
            )
        assert not server.requests and server.pages_served == 0
        assert request_model(server.url, "olmocr") == "olmocr"
        # the endpoint itself refuses such a request as vLLM does, so the test above can fail
        refused = httpx.post(
            f"{server.url}/chat/completions",
            json={"model": "allenai/olmOCR-2-7B-1025-FP8", "messages": []},
            trust_env=False,
        )
        assert refused.status_code == 404 and refused.json()["message"] == (
            "The model `allenai/olmOCR-2-7B-1025-FP8` does not exist."
        )


def test_an_endpoint_that_does_not_answer_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(OcrSetupError, match="does not answer"):
        request_model("http://127.0.0.1:9/v1", None)
