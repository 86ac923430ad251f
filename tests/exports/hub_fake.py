"""A small Hugging Face Hub on 127.0.0.1 for the publishing tests.

It answers the endpoints `huggingface_hub.HfApi` calls to publish a dataset release, so the real
client code runs end to end: repo creation, repo info, recursive tree listing, refs, README
download (`resolve`), YAML validation, `preupload`, the LFS batch API with single-part PUT
uploads, NDJSON commits (regular files as base64, LFS pointers, deletions; `parentCommit`
checked) and tags. Repos live in memory as a list of commits, each with its full file tree.

`fail(method, pattern, status, times, after=False)` scripts faults: the next `times` requests
matching get `status`; with `after=True` the request is carried out first and only its answer is
lost (a commit that lands but whose response never arrives).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import yaml
from huggingface_hub.utils.sha import git_hash

LFS_SUFFIXES = (".parquet", ".png", ".arrow", ".bin")


def git_oid(data: bytes) -> str:
    """The git blob id the Hub reports for a file (huggingface_hub's own helper computes it the same way)."""
    return git_hash(data)


@dataclass
class Blob:
    data: bytes
    lfs: bool

    @property
    def oid(self) -> str:
        if self.lfs:  # the Hub's oid of an LFS file is the git id of its pointer file
            pointer = f"version https://git-lfs.github.com/spec/v1\noid sha256:{self.sha256}\nsize {len(self.data)}\n"
            return git_oid(pointer.encode())
        return git_oid(self.data)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass
class Commit:
    oid: str
    parent: str | None
    title: str
    description: str
    files: dict[str, Blob]


@dataclass
class Repo:
    repo_id: str
    private: bool
    commits: list[Commit] = field(default_factory=list)
    tags: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (commit oid, message)

    @property
    def head(self) -> Commit:
        return self.commits[-1]

    def commit_by(self, revision: str) -> Commit | None:
        if revision == "main":
            return self.head
        if revision in self.tags:
            revision = self.tags[revision][0]
        return next((c for c in self.commits if c.oid == revision), None)


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    status: int
    times: int
    after: bool


class FakeHub:
    def __init__(self, token: str = "hf_fake_write_token") -> None:
        self.token = token
        self.repos: dict[str, Repo] = {}
        self.lfs: dict[str, bytes] = {}
        self.requests: list[tuple[str, str]] = []
        self.authorizations: set[str] = set()
        self.faults: list[Fault] = []
        self.lock = threading.RLock()
        self._server: ThreadingHTTPServer | None = None
        self.endpoint = ""

    # --- control ---------------------------------------------------------------------------

    def start(self) -> str:
        hub = self

        class Handler(_Handler):
            pass

        Handler.hub = hub
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        return self.endpoint

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def fail(self, method: str, pattern: str, status: int = 503, times: int = 1, after: bool = False) -> None:
        self.faults.append(Fault(method, re.compile(pattern), status, times, after))

    def repo(self, repo_id: str) -> Repo:
        return self.repos[repo_id]

    def files(self, repo_id: str, revision: str = "main") -> dict[str, bytes]:
        commit = self.repos[repo_id].commit_by(revision)
        assert commit is not None
        return {path: blob.data for path, blob in commit.files.items()}

    def count(self, method: str, pattern: str) -> int:
        rx = re.compile(pattern)
        return sum(1 for m, p in self.requests if m == method and rx.search(p))

    # --- helpers for the handler -----------------------------------------------------------

    def _fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.times > 0 and fault.method == method and fault.pattern.search(path):
                    fault.times -= 1
                    return fault
        return None

    def _new_commit(self, repo: Repo, title: str, description: str, files: dict[str, Blob]) -> Commit:
        parent = repo.commits[-1].oid if repo.commits else None
        seed = json.dumps([parent, title, sorted((p, b.oid) for p, b in files.items()), len(repo.commits)])
        commit = Commit(hashlib.sha1(seed.encode()).hexdigest(), parent, title, description, files)
        repo.commits.append(commit)
        return commit


class _Handler(BaseHTTPRequestHandler):
    hub: FakeHub
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else each answer waits ~40 ms for a delayed ACK
    wbufsize = 1 << 16  # headers and body in one write (flushed after every request)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # --- plumbing ----------------------------------------------------------------------------

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, body: Any = None, headers: dict[str, str] | None = None, raw: bytes | None = None):
        data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if raw is None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _error(self, status: int, message: str, code: str | None = None) -> None:
        headers = {"X-Error-Message": message}
        if code:
            headers["X-Error-Code"] = code
        self._send(status, {"error": message}, headers)

    def _authorized(self) -> bool:
        auth = self.headers.get("Authorization", "")
        if auth:
            self.hub.authorizations.add(auth)
        return auth == f"Bearer {self.hub.token}"

    def _dispatch(self) -> None:
        hub = self.hub
        url = urlsplit(self.path)
        path = unquote(url.path)
        query = parse_qs(url.query)
        body = self._body() if self.command in ("POST", "PUT") else b""
        with hub.lock:
            hub.requests.append((self.command, path))
        fault = hub._fault(self.command, path)
        if fault is not None and not fault.after:
            self._error(fault.status, f"scripted fault {fault.status}")
            return
        with hub.lock:
            status, payload, headers, raw = self._route(self.command, path, query, body)
        if fault is not None:
            self._error(fault.status, f"scripted fault {fault.status} (after the request was carried out)")
            return
        self._send(status, payload, headers, raw)

    do_GET = do_POST = do_PUT = do_HEAD = _dispatch  # noqa: N815

    # --- routes ------------------------------------------------------------------------------

    def _repo(self, repo_id: str) -> Repo | None:
        repo = self.hub.repos.get(repo_id)
        if repo is None or (repo.private and not self._authorized()):
            return None
        return repo

    def _not_found(self) -> tuple[int, Any, dict[str, str], None]:
        return 404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"}, None

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: bytes):
        hub = self.hub
        if method == "POST" and path == "/api/repos/create":
            if not self._authorized():
                return (
                    401,
                    {"error": "Invalid credentials"},
                    {"X-Error-Message": "Invalid credentials in Authorization header"},
                    None,
                )
            payload = json.loads(body)
            assert payload.get("type") == "dataset", payload
            repo_id = f"{payload['organization']}/{payload['name']}" if payload.get("organization") else payload["name"]
            if repo_id in hub.repos:
                return (
                    409,
                    {"error": "You already created this dataset repo", "url": f"{hub.endpoint}/datasets/{repo_id}"},
                    {},
                    None,
                )
            private = payload.get("visibility") == "private" or bool(payload.get("private"))
            repo = Repo(repo_id, private)
            hub.repos[repo_id] = repo
            attributes = Blob(
                b"*.parquet filter=lfs diff=lfs merge=lfs -text\n*.png filter=lfs diff=lfs merge=lfs -text\n", False
            )
            hub._new_commit(repo, "initial commit", "", {".gitattributes": attributes})
            return 200, {"url": f"{hub.endpoint}/datasets/{repo_id}", "name": repo_id}, {}, None

        if method == "POST" and path == "/api/validate-yaml":
            content = json.loads(body)["content"]
            if content.startswith("---\n"):
                try:
                    yaml.safe_load(content.split("---\n", 2)[1])
                except yaml.YAMLError as exc:
                    return 400, {"errors": [{"message": str(exc)}]}, {}, None
            return 200, {"errors": [], "warnings": []}, {}, None

        match = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)(?:/revision/(.+))?", path)
        if method == "GET" and match:
            repo = self._repo(match.group(1))
            if repo is None:
                return self._not_found()
            commit = repo.commit_by(match.group(2) or "main")
            if commit is None:
                return 404, {"error": "Revision not found"}, {"X-Error-Code": "RevisionNotFound"}, None
            siblings = [{"rfilename": p} for p in sorted(commit.files)]
            return (
                200,
                {
                    "id": repo.repo_id,
                    "_id": repo.repo_id,
                    "sha": commit.oid,
                    "private": repo.private,
                    "siblings": siblings,
                },
                {},
                None,
            )

        match = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/tree/([^/]+)(/.*)?", path)
        if method == "GET" and match:
            repo = self._repo(match.group(1))
            if repo is None:
                return self._not_found()
            commit = repo.commit_by(match.group(2))
            if commit is None:
                return 404, {"error": "Revision not found"}, {"X-Error-Code": "RevisionNotFound"}, None
            prefix = (match.group(3) or "").strip("/")
            recursive = query.get("recursive", ["False"])[0].lower() in ("1", "true")
            return 200, _tree(commit.files, prefix, recursive), {}, None

        match = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/refs", path)
        if method == "GET" and match:
            repo = self._repo(match.group(1))
            if repo is None:
                return self._not_found()
            tags = [{"name": n, "ref": f"refs/tags/{n}", "targetCommit": c} for n, (c, _) in sorted(repo.tags.items())]
            branches = [{"name": "main", "ref": "refs/heads/main", "targetCommit": repo.head.oid}]
            return 200, {"branches": branches, "converts": [], "tags": tags}, {}, None

        match = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/preupload/(.+)", path)
        if method == "POST" and match:
            if not self._authorized():
                return 401, {"error": "Invalid credentials"}, {}, None
            repo = self._repo(match.group(1))
            if repo is None:
                return self._not_found()
            files = []
            for item in json.loads(body)["files"]:
                lfs = item["path"].endswith(LFS_SUFFIXES) or item["size"] > 10 * 1024 * 1024
                current = repo.head.files.get(item["path"])
                oid = None
                if current is not None:
                    oid = current.sha256 if current.lfs else current.oid
                files.append(
                    {"path": item["path"], "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False, "oid": oid}
                )
            return 200, {"files": files}, {}, None

        match = re.fullmatch(r"/datasets/([^/]+/[^/]+)\.git/info/lfs/objects/batch", path)
        if method == "POST" and match:
            if not self._authorized():
                return 401, {"message": "Invalid credentials"}, {}, None
            payload = json.loads(body)
            objects = []
            for obj in payload["objects"]:
                entry: dict[str, Any] = {"oid": obj["oid"], "size": obj["size"]}
                if obj["oid"] not in hub.lfs:
                    entry["actions"] = {"upload": {"href": f"{hub.endpoint}/_lfs/{obj['oid']}", "header": {}}}
                objects.append(entry)
            return 200, {"transfer": "basic", "objects": objects}, {}, None

        match = re.fullmatch(r"/_lfs/([0-9a-f]{64})", path)
        if method == "PUT" and match:
            if hashlib.sha256(body).hexdigest() != match.group(1):
                return 400, {"error": "sha256 mismatch"}, {}, None
            hub.lfs[match.group(1)] = body
            return 200, {}, {"ETag": '"ok"'}, None

        match = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/commit/(.+)", path)
        if method == "POST" and match:
            if not self._authorized():
                return 401, {"error": "Invalid credentials"}, {}, None
            repo = self._repo(match.group(1))
            if repo is None:
                return self._not_found()
            return self._commit(repo, body)

        match = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/tag/(.+)", path)
        if method == "POST" and match:
            if not self._authorized():
                return 401, {"error": "Invalid credentials"}, {}, None
            repo = self._repo(match.group(1))
            if repo is None:
                return self._not_found()
            payload = json.loads(body)
            commit = repo.commit_by(match.group(2))
            if commit is None:
                return 404, {"error": "Revision not found"}, {"X-Error-Code": "RevisionNotFound"}, None
            if payload["tag"] in repo.tags:
                return 409, {"error": "Tag already exists"}, {}, None
            repo.tags[payload["tag"]] = (commit.oid, payload.get("message", ""))
            return 200, {}, {}, None

        match = re.fullmatch(r"/datasets/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
        if method in ("GET", "HEAD") and match:
            repo = self._repo(match.group(1))
            if repo is None:
                return self._not_found()
            commit = repo.commit_by(match.group(2))
            blob = commit.files.get(match.group(3)) if commit else None
            if commit is None or blob is None:
                return 404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"}, None
            headers = {"X-Repo-Commit": commit.oid, "ETag": f'"{blob.sha256 if blob.lfs else blob.oid}"'}
            if blob.lfs:
                headers |= {"X-Linked-Etag": f'"{blob.sha256}"', "X-Linked-Size": str(len(blob.data))}
            return 200, None, headers, blob.data

        return 404, {"error": f"fake hub: no route for {method} {path}"}, {}, None

    def _commit(self, repo: Repo, body: bytes):
        hub = self.hub
        lines = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
        header = lines[0]["value"]
        parent = header.get("parentCommit")
        if parent is not None and parent != repo.head.oid:
            return 412, {"error": "A commit has happened since. Please refresh and try again."}, {}, None
        files = dict(repo.head.files)
        for line in lines[1:]:
            key, value = line["key"], line["value"]
            if key == "file":
                files[value["path"]] = Blob(base64.b64decode(value["content"]), False)
            elif key == "lfsFile":
                data = hub.lfs.get(value["oid"])
                if data is None:
                    return 422, {"error": f"LFS object {value['oid']} was never uploaded"}, {}, None
                files[value["path"]] = Blob(data, True)
            elif key == "deletedFile":
                if value["path"] not in files:
                    return (
                        404,
                        {"error": "A file with this name doesn't exist"},
                        {"X-Error-Code": "EntryNotFound"},
                        None,
                    )
                del files[value["path"]]
            elif key == "deletedFolder":
                prefix = value["path"].rstrip("/") + "/"
                files = {p: b for p, b in files.items() if not p.startswith(prefix)}
            else:
                return 400, {"error": f"unknown commit line {key}"}, {}, None
        commit = hub._new_commit(repo, header["summary"], header.get("description", ""), files)
        url = f"{hub.endpoint}/datasets/{repo.repo_id}/commit/{commit.oid}"
        return 200, {"success": True, "commitOid": commit.oid, "commitUrl": url}, {}, None


def _tree(files: dict[str, Blob], prefix: str, recursive: bool) -> list[dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = {}
    base = f"{prefix}/" if prefix else ""
    for path, blob in sorted(files.items()):
        if not path.startswith(base):
            continue
        rest = path[len(base) :]
        parts = rest.split("/")
        for depth in range(1, len(parts)):
            folder = base + "/".join(parts[:depth])
            if recursive or depth == 1:
                entries.setdefault(
                    folder, {"type": "directory", "oid": git_oid(folder.encode()), "size": 0, "path": folder}
                )
            if not recursive:
                break
        if recursive or len(parts) == 1:
            entry: dict[str, Any] = {"type": "file", "oid": blob.oid, "size": len(blob.data), "path": path}
            if blob.lfs:
                entry["lfs"] = {"oid": blob.sha256, "size": len(blob.data), "pointerSize": 134}
            entries[path] = entry
    return list(entries.values())
