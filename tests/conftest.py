"""Test-wide guards: no network beyond this machine, no hub downloads; the real data slices in tests/data."""

from __future__ import annotations

import ipaddress
import os
import socket
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TEST_DATA = Path(__file__).resolve().parent / "data"  # real slices, copied in: see tests/data/README.md

# Nothing in the tests may load a model or dataset from a hub.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.pop("HF_TOKEN", None)
# A developer's real keys never reach a test: without them the default judge is the offline one.
PROVIDER_KEYS = (
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENAI_API_KEY",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "LABEL_STUDIO_API_KEY",
)
for _name in PROVIDER_KEYS:
    os.environ.pop(_name, None)
os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="sob-hf-datasets-"))


def _is_local(address: object) -> bool:
    if not isinstance(address, tuple):  # unix sockets
        return True
    host = str(address[0])
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _guarded_connect(self: socket.socket, address: object) -> object:
    if not _is_local(address):
        raise RuntimeError(f"test tried to reach {address}: tests may only talk to servers on this machine")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not _is_local(address):
        raise RuntimeError(f"test tried to reach {address}: tests may only talk to servers on this machine")
    return _real_connect_ex(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def test_data() -> Path:
    if not TEST_DATA.is_dir():
        pytest.fail(f"test data not found at {TEST_DATA}")
    return TEST_DATA
