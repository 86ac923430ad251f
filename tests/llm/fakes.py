"""Local HTTP servers that speak the Gemini REST API and the OpenAI chat-completions API.

They run on 127.0.0.1 in a thread, answer through a scripted `answer` function, and can be told
to be slow, to fail with 429 + Retry-After or 500, to stall past the client's timeout, to send
malformed JSON, an empty candidate or `finishReason: SAFETY`. Every request is recorded.
Faults that need the whole request (`fault`): refuse the key like Gemini does (`key_invalid`,
HTTP 400 API_KEY_INVALID) or with a 401, or fail with an error body that repeats the API key the
client sent (`echo_key`). `down()` closes the port: the server is gone, connections are refused.
Gemini batch endpoints are here too: `models/{m}:batchGenerateContent`, `batches/{id}`, `batches`,
resumable file upload (`upload/{v}/files`) and `files/{id}:download`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
import socket
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict/list -> JSON; str/bytes -> sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class ModelRequest:
    """A generate request, whichever API it came through."""

    model: str
    system: str
    user: str
    schema: dict[str, Any]

    @property
    def properties(self) -> list[str]:
        return list((self.schema or {}).get("properties", {}).keys())

    @property
    def user_hash(self) -> str:
        return hashlib.sha256(self.user.encode()).hexdigest()[:16]


def judge_answer(scores: dict[str, int] | int = 90) -> Callable[[ModelRequest], str]:
    """An answerer that scores every dimension the reply schema asks for (and raises no reviewer flag)."""

    def answer(req: ModelRequest) -> str:
        if req.properties == ["flags"]:  # the reviewer pass (judge/reviewer.py): a reviewer that finds nothing
            return json.dumps({"flags": []})
        out = {}
        for dim in req.properties:
            score = scores if isinstance(scores, int) else scores.get(dim, 90)
            out[dim] = {"score": score, "rationale": f"{dim} looks right."}
        return json.dumps(out)

    return answer


def review_answer(flags: Callable[[dict[str, Any]], list[dict[str, str]]]) -> Callable[[ModelRequest], str]:
    """A reviewer-pass answerer: `flags(record)` gets the record the prompt quotes and returns its flags."""

    def answer(req: ModelRequest) -> str:
        return json.dumps({"flags": flags(quoted_record(req))})

    return answer


class FirstAsked:
    """The first `count` distinct keys a stand-in is asked about (None: every key), chosen safely: the
    stand-ins answer on several threads, and a check-then-add on a plain set lets a third key in."""

    def __init__(self, count: int | None) -> None:
        self.count = count
        self.keys: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, key: str) -> bool:
        with self._lock:
            if key in self.keys:
                return True
            if self.count is None or len(self.keys) < self.count:
                self.keys.add(key)
                return True
            return False

    def clear(self) -> None:
        """No key is chosen from now on (the server is healthy again)."""
        with self._lock:
            self.keys.clear()
            self.count = 0


def draft_reply(question: str, schema: dict[str, Any], truth: dict[str, Any], evidence: Any = None) -> str:
    """What a drafting model sends back: schema, answer and evidence travel as JSON text."""
    reply = {"question": question, "json_schema": json.dumps(schema), "ground_truth": json.dumps(truth)}
    if evidence is not None:
        reply["evidence"] = evidence if isinstance(evidence, str) else json.dumps(evidence)
    return json.dumps(reply)


def gemini_body(text: str | None, finish: str = "STOP", prompt_tokens: int = 100, model: str = "m") -> dict[str, Any]:
    candidate: dict[str, Any] = {"index": 0, "finishReason": finish}
    if text is not None:
        candidate["content"] = {"role": "model", "parts": [{"text": text}]}
    out_tokens = len(text or "") // 4
    return {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": out_tokens,
            "thoughtsTokenCount": 10,
            "totalTokenCount": prompt_tokens + out_tokens + 10,
        },
        "modelVersion": model,
        "responseId": "fake",
    }


def gemini_error(status: int, message: str = "fault") -> dict[str, Any]:
    names = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 400: "INVALID_ARGUMENT"}
    return {"error": {"code": status, "message": message, "status": names.get(status, "UNKNOWN")}}


def api_key_sent(seen: Seen) -> str:
    """The key a client sent: Gemini's `x-goog-api-key` (or `?key=`), or OpenAI's bearer token."""
    bearer = seen.headers.get("authorization", "").removeprefix("Bearer ").strip()
    return seen.headers.get("x-goog-api-key") or seen.query.get("key", [""])[0] or bearer


def key_invalid(status: int = 400) -> Callable[[Seen], Reply]:
    """Refuse every request's key: Gemini's 400 API_KEY_INVALID, or a plain 401/403."""
    if status == 400:
        body = {
            "error": {
                "code": 400,
                "message": "API key not valid. Please pass a valid API key.",
                "status": "INVALID_ARGUMENT",
                "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}],
            }
        }
    else:
        body = {"error": {"code": status, "message": "Incorrect API key provided.", "status": "UNAUTHENTICATED"}}
    return lambda seen: Reply(status, body)


def echo_key(status: int = 500) -> Callable[[Seen], Reply]:
    """Fail with an error body that repeats the API key the request carried (a leaky proxy)."""

    def fault(seen: Seen) -> Reply:
        key = api_key_sent(seen)
        message = f"upstream failure for request with key={key} (token {key})"
        return Reply(status, {"error": {"code": status, "message": message, "status": "INTERNAL"}})

    return fault


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes: without NODELAY, Nagle + delayed ACK add 40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        parsed = urlparse(self.path)
        seen = Seen(
            self.command,
            parsed.path,
            parse_qs(parsed.query),
            {k.lower(): v for k, v in self.headers.items()},
            body,
            time.monotonic(),
        )
        owner = self.server.owner
        owner.enter()
        try:
            reply = owner.handle(seen)
            if reply.delay:
                time.sleep(reply.delay)
        finally:
            owner.leave()
        payload = reply.body
        if isinstance(payload, dict | list):
            data = json.dumps(payload).encode()
        elif isinstance(payload, str):
            data = payload.encode()
        else:
            data = payload or b""
        try:
            self.send_response(reply.status)
            headers = {"Content-Type": "application/json"} | reply.headers
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_GET = do_POST = do_DELETE = _handle


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256
    owner: FakeServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that hung up is not news
            super().handle_error(request, client_address)


class FakeServer:
    """Base: a threaded HTTP server on a free port of 127.0.0.1 with a script of replies."""

    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self.script: deque[Reply | Callable[[ModelRequest], Reply]] = deque()  # next model calls, in order
        self.answer: Callable[[ModelRequest], str | Reply] = judge_answer()
        self.latency = 0.0
        self.rate_limit_fraction = 0.0
        self.retry_after = "1"
        self.rng = random.Random(1234)
        self.model_calls: Counter[str] = Counter()  # user-prompt hash -> model calls (any outcome)
        self.answered: Counter[str] = Counter()  # user-prompt hash -> 200 answers
        self.lock = threading.Lock()
        self.in_flight = 0
        self.errors: list[Exception] = []
        self.max_in_flight = 0
        # Answers any request before routing when it returns a Reply (see `key_invalid`, `echo_key`).
        self.fault: Callable[[Seen], Reply | None] | None = None
        self.faulted = 0
        self._closed = False
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._httpd.shutdown()
        self._httpd.server_close()

    def down(self) -> None:
        """The server goes away: its port refuses connections from now on."""
        self.close()

    def enter(self) -> None:
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def enqueue(self, *replies: Reply | Callable[[ModelRequest], Reply]) -> None:
        with self.lock:
            self.script.extend(replies)

    def handle(self, seen: Seen) -> Reply:
        if seen.path == "/_stats":  # for a server running in another process (the benchmark)
            with self.lock:
                stats = {"model_calls": self.total_model_calls, "answered": sum(self.answered.values())}
            return Reply(200, stats)
        with self.lock:
            self.requests.append(seen)
        if self.fault is not None and (faulty := self.fault(seen)) is not None:
            with self.lock:
                self.faulted += 1
            return faulty
        try:
            return self.route(seen)
        except Exception as exc:  # a broken script: answer 500 and keep it for the test to see
            self.errors.append(exc)
            return Reply(500, {"error": {"code": 500, "message": f"fake server error: {exc!r}"}})

    def route(self, seen: Seen) -> Reply:  # pragma: no cover - subclasses
        raise NotImplementedError

    def model_reply(self, req: ModelRequest, ok: Callable[[str], dict[str, Any]], error: Callable[[int], Any]) -> Reply:
        """The reply to one model call: the script first, then random 429s, then the answerer."""
        with self.lock:
            self.model_calls[req.user_hash] += 1
            step = self.script.popleft() if self.script else None
            limited = step is None and self.rate_limit_fraction and self.rng.random() < self.rate_limit_fraction
        if step is not None:
            reply = step(req) if callable(step) else step
        elif limited:
            reply = Reply(429, error(429), {"Retry-After": self.retry_after})
        else:
            answer = self.answer(req)
            reply = answer if isinstance(answer, Reply) else Reply(200, ok(answer), delay=self.latency)
        if reply.status == 200 and reply.body is None:
            reply = Reply(200, ok(self._text(req)), reply.headers, reply.delay)
        if reply.status == 200:
            with self.lock:
                self.answered[req.user_hash] += 1
        return reply

    def _text(self, req: ModelRequest) -> str:
        answer = self.answer(req)
        return answer if isinstance(answer, str) else json.dumps(answer.body)

    @property
    def total_model_calls(self) -> int:
        return sum(self.model_calls.values())


_GENERATE = re.compile(r"^/(?P<ver>v1\w*)/models/(?P<model>[^/:]+):generateContent$")
_BATCH_CREATE = re.compile(r"^/(?P<ver>v1\w*)/models/(?P<model>[^/:]+):batchGenerateContent$")
_BATCH_GET = re.compile(r"^/(?P<ver>v1\w*)/batches/(?P<id>[^/:]+)$")
_BATCH_LIST = re.compile(r"^/(?P<ver>v1\w*)/batches$")
_UPLOAD = re.compile(r"^/upload/(?P<ver>v1\w*)/files$")
_DOWNLOAD = re.compile(r"^/(?P<ver>v1\w*)/files/(?P<id>[^/:]+):download$")


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return "".join(p.get("text", "") for p in content.get("parts", []))
    if isinstance(content, list):
        return "".join(_texts(c) for c in content)
    return ""


def gemini_model_request(model: str, body: dict[str, Any]) -> ModelRequest:
    generation = body.get("generationConfig") or {}
    schema = generation.get("responseSchema") or generation.get("responseJsonSchema") or {}
    return ModelRequest(
        model=model,
        system=_texts(body.get("systemInstruction")),
        user=_texts(body.get("contents")),
        schema=schema,
    )


@dataclass
class FakeBatch:
    name: str
    model: str
    display_name: str
    requests: list[tuple[str, dict[str, Any]]]  # (key, request)
    from_file: bool
    polls: int = 0
    outputs: list[dict[str, Any]] | None = None
    state: str = "BATCH_STATE_PENDING"


class FakeGemini(FakeServer):
    """Speaks the Gemini Developer API (any `v1*` version prefix)."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: dict[str, FakeBatch] = {}
        self.files: dict[str, bytes] = {}
        self.uploads: dict[str, dict[str, Any]] = {}
        self.polls_before_done = 1  # GETs that answer RUNNING before the job succeeds
        self.batch_final_state = "BATCH_STATE_SUCCEEDED"
        self.batch_item: Callable[[ModelRequest], dict[str, Any]] | None = None  # override one batch answer
        self.batch_create_failures = 0  # answer the next N batch creations with 503
        self._ids = itertools.count(1)

    # -- routing -------------------------------------------------------------------------------
    def route(self, seen: Seen) -> Reply:
        path = seen.path
        if seen.method == "POST" and (m := _GENERATE.match(path)):
            req = gemini_model_request(m["model"], seen.body or {})
            return self.model_reply(req, lambda text: gemini_body(text, model=m["model"]), gemini_error)
        if seen.method == "POST" and (m := _BATCH_CREATE.match(path)):
            return self._create_batch(m["model"], seen.body or {})
        if seen.method == "GET" and (m := _BATCH_GET.match(path)):
            return self._get_batch(f"batches/{m['id']}")
        if seen.method == "GET" and _BATCH_LIST.match(path):
            with self.lock:
                ops = [self._operation(b) for b in self.batches.values()]
            return Reply(200, {"operations": ops})
        if seen.method == "POST" and (m := _UPLOAD.match(path)):
            return self._upload(seen, m["ver"])
        if seen.method == "GET" and (m := _DOWNLOAD.match(path)):
            data = self.files.get(f"files/{m['id']}")
            if data is None:
                return Reply(404, gemini_error(404, "no such file"))
            return Reply(200, data, {"Content-Type": "application/octet-stream"})
        return Reply(404, gemini_error(404, f"no route for {seen.method} {path}"))

    # -- files -----------------------------------------------------------------------------------
    def _upload(self, seen: Seen, ver: str) -> Reply:
        command = seen.headers.get("x-goog-upload-command", "")
        if command == "start":
            upload_id = f"u{next(self._ids)}"
            meta = (seen.body or {}).get("file", {}) if isinstance(seen.body, dict) else {}
            self.uploads[upload_id] = meta
            url = f"{self.url}/upload/{ver}/files?upload_id={upload_id}"
            return Reply(200, {}, {"x-goog-upload-url": url, "x-goog-upload-status": "active"})
        upload_id = seen.query.get("upload_id", [""])[0]
        name = f"files/in{next(self._ids)}"
        data = seen.body if isinstance(seen.body, bytes) else json.dumps(seen.body).encode()
        self.files[name] = data
        file = {"name": name, "mimeType": "jsonl", "sizeBytes": str(len(data)), "state": "ACTIVE"}
        file |= {k: v for k, v in self.uploads.get(upload_id, {}).items() if k == "displayName"}
        return Reply(200, {"file": file}, {"x-goog-upload-status": "final"})

    # -- batches ---------------------------------------------------------------------------------
    def _create_batch(self, model: str, body: dict[str, Any]) -> Reply:
        if self.batch_create_failures:
            self.batch_create_failures -= 1
            return Reply(503, gemini_error(503))
        batch = body.get("batch", {})
        config = batch.get("inputConfig", {})
        requests: list[tuple[str, dict[str, Any]]] = []
        from_file = "fileName" in config
        if from_file:
            for line in self.files[config["fileName"]].decode().splitlines():
                if line.strip():
                    row = json.loads(line)
                    requests.append((row["key"], row["request"]))
        else:
            for item in config.get("requests", {}).get("requests", []):
                requests.append((item.get("metadata", {}).get("key"), item["request"]))
        with self.lock:
            name = f"batches/b{next(self._ids)}"
            job = FakeBatch(name, model, batch.get("displayName", ""), requests, from_file)
            self.batches[name] = job
        return Reply(200, self._operation(job))

    def _get_batch(self, name: str) -> Reply:
        with self.lock:
            job = self.batches.get(name)
        if job is None:
            return Reply(404, gemini_error(404, "no such batch"))
        job.polls += 1
        if job.polls > self.polls_before_done and job.outputs is None:
            job.state = self.batch_final_state
            if job.state == "BATCH_STATE_SUCCEEDED":
                # Reversed: results must be matched by key, not by position.
                job.outputs = [self._batch_output(job.model, key, req) for key, req in reversed(job.requests)]
                if job.from_file:
                    self.files[f"files/out-{job.name.split('/')[-1]}"] = "\n".join(
                        json.dumps(o) for o in job.outputs
                    ).encode()
        elif job.outputs is None:
            job.state = "BATCH_STATE_RUNNING"
        return Reply(200, self._operation(job))

    def _batch_output(self, model: str, key: str, request: dict[str, Any]) -> dict[str, Any]:
        req = gemini_model_request(model, request)
        with self.lock:
            self.model_calls[req.user_hash] += 1
            self.answered[req.user_hash] += 1
        if self.batch_item is not None:
            return {"key": key, **self.batch_item(req)}
        return {"key": key, "response": gemini_body(self._text(req), model=model)}

    def _operation(self, job: FakeBatch) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
            "model": f"models/{job.model}",
            "displayName": job.display_name,
            "state": job.state,
            "createTime": "2025-01-01T00:00:00Z",
        }
        if job.outputs is not None:
            if job.from_file:
                metadata["output"] = {"responsesFile": f"files/out-{job.name.split('/')[-1]}"}
            else:
                inlined = []
                for out in job.outputs:
                    item: dict[str, Any] = {"metadata": {"key": out["key"]}}
                    item |= {k: v for k, v in out.items() if k in ("response", "error")}
                    inlined.append(item)
                metadata["output"] = {"inlinedResponses": {"inlinedResponses": inlined}}
        op: dict[str, Any] = {"name": job.name, "metadata": metadata}
        if job.outputs is not None:
            op["done"] = True
        return op

    @property
    def batch_creates(self) -> int:
        return sum(1 for r in self.requests if r.method == "POST" and _BATCH_CREATE.match(r.path))


def openai_body(text: str | None, model: str = "m", finish: str = "stop", prompt_tokens: int = 100) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": len(text or "") // 4,
            "total_tokens": prompt_tokens + len(text or "") // 4,
        },
    }


def openai_error(status: int, message: str = "fault") -> dict[str, Any]:
    return {"error": {"message": message, "type": "server_error", "code": status}}


class FakeOpenAI(FakeServer):
    """Speaks `POST /v1/chat/completions` (vLLM, Ollama, OpenRouter style)."""

    def route(self, seen: Seen) -> Reply:
        if seen.method == "POST" and seen.path.rstrip("/").endswith("/chat/completions"):
            body = seen.body or {}
            messages = body.get("messages", [])
            fmt = body.get("response_format") or {}
            req = ModelRequest(
                model=body.get("model", ""),
                system="".join(m["content"] for m in messages if m["role"] == "system"),
                user="".join(m["content"] for m in messages if m["role"] == "user"),
                schema=(fmt.get("json_schema") or {}).get("schema", {}),
            )
            return self.model_reply(req, lambda text: openai_body(text, model=req.model), openai_error)
        return Reply(404, openai_error(404, f"no route for {seen.method} {seen.path}"))


def quoted_record(req: ModelRequest) -> dict[str, Any]:
    """The record a judge prompt quotes between <record> and </record>."""
    start = req.user.index("<record>") + len("<record>")
    end = req.user.index("</record>")
    return json.loads(req.user[start:end])


def main() -> None:
    """Serve in this process until stdin closes: `python -m tests.llm.fakes gemini --latency 0.3`."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["gemini", "openai"])
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--rate-limited", type=float, default=0.0)
    parser.add_argument("--retry-after", default="1")
    args = parser.parse_args()
    server: FakeServer = FakeGemini() if args.kind == "gemini" else FakeOpenAI()
    server.latency = args.latency
    server.rate_limit_fraction = args.rate_limited
    server.retry_after = args.retry_after
    print(server.url, flush=True)
    sys.stdin.read()
    server.close()


if __name__ == "__main__":
    main()
