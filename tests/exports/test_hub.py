"""Publishing releases: the real `huggingface_hub` client against a fake Hub on 127.0.0.1, and the
local-folder target that lays out exactly the files the Hub repo gets."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import datasets
import huggingface_hub
import pytest
import yaml
from huggingface_hub import DatasetCard
from huggingface_hub.utils import disable_progress_bars

from exports.columns import column_names
from exports.hub import (
    ConfigRelease,
    HubUnavailableError,
    PublishError,
    Target,
    parse_target,
    publish_release,
    tag_name,
)
from tests.exports.hub_fake import FakeHub

datasets.disable_progress_bars()
REPO = "sob-curators/sob-structured"


@pytest.fixture
def hub(monkeypatch):
    """The fake Hub, with huggingface_hub allowed online for it (the suite is offline otherwise),
    the legacy LFS upload path (hf_xet needs a Xet storage server), and a token in HF_TOKEN."""
    fake = FakeHub()
    fake.start()
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)
    monkeypatch.setenv("HF_TOKEN", fake.token)
    disable_progress_bars()
    yield fake
    fake.stop()


@pytest.fixture
def releases(release_history) -> dict[str, Path]:
    return release_history.paths


def push(hub: FakeHub, release: Path, **kwargs):
    lines: list[str] = []
    result = publish_release(release, REPO, endpoint=hub.endpoint, echo=lines.append, **kwargs)
    return result, "\n".join(lines)


def data_name(release: Path, split: str) -> str:
    """The name of a split's data file in a release (content-addressed)."""
    (path,) = (release / "data").glob(f"{split}-*.parquet")
    return path.name


def front_matter(text: str) -> dict:
    return yaml.safe_load(text.split("---\n", 2)[1])


def readme(files: dict[str, bytes]) -> str:
    return files["README.md"].decode()


def owned(files: dict[str, bytes], config: str) -> dict[str, bytes]:
    return {p: b for p, b in files.items() if p.startswith((f"data/{config}/", f"meta/{config}/"))}


def test_first_push_then_another_config_leaves_the_first_alone(hub, releases):
    result, out = push(hub, releases["default-1.0.0"], private=True)
    repo = hub.repo(REPO)
    assert result.status == "published" and repo.private
    assert len(repo.commits) == 2  # the Hub's initial commit, then the release: one commit
    assert repo.tags["v1.0.0"][0] == result.commit == repo.head.oid
    files = hub.files(REPO)
    first = releases["default-1.0.0"]
    assert sorted(owned(files, "default")) == [
        f"data/default/{data_name(first, 'test')}",
        f"data/default/{data_name(first, 'train')}",
        f"data/default/{data_name(first, 'validation')}",
        "meta/default/card.md",
        "meta/default/manifest.json",
        "meta/default/plots/flags.png",
        "meta/default/plots/funnel.png",
        "meta/default/plots/judge_scores.png",
        "meta/default/plots/schema_complexity.png",
    ]
    for name in ("train", "validation", "test"):
        local = (first / "data" / data_name(first, name)).read_bytes()
        assert files[f"data/default/{data_name(first, name)}"] == local
    assert hub.count("PUT", r"^/_lfs/") == 7  # parquet and PNG went through the LFS batch API
    assert "published default 1.0.0" in out and "tag v1.0.0" in out

    before = hub.files(REPO)
    default_entry = front_matter(readme(before))["configs"]
    default_section = ConfigRelease.of(first, json.loads(files["meta/default/manifest.json"])).section()
    assert default_section in readme(before)
    image, _ = push(hub, releases["image-1.0.0"])
    after = hub.files(REPO)
    assert owned(after, "default") == owned(before, "default")  # not one byte of the other config moved
    meta = front_matter(readme(after))
    assert meta["configs"][0] == default_entry[0]
    assert meta["configs"][1] == {
        "config_name": "image",
        "data_files": [{"split": "train", "path": f"data/image/{data_name(releases['image-1.0.0'], 'train')}"}],
    }
    infos = meta["dataset_info"]  # every config keeps its features and sizes
    assert [i["config_name"] for i in infos] == ["default", "image"]
    assert infos[0] == front_matter(readme(before))["dataset_info"][0]
    assert infos[1] == {**front_matter((releases["image-1.0.0"] / "README.md").read_text())["dataset_info"]}
    assert [f["name"] for f in infos[1]["features"]] == column_names("olmocr")
    assert DatasetCard(readme(after)).data.dataset_info == infos
    image_section = ConfigRelease.of(releases["image-1.0.0"], json.loads(after["meta/image/manifest.json"])).section()
    assert readme(after).index(default_section) < readme(after).index(image_section)  # one section per config
    assert after["meta/image/card.md"] == (releases["image-1.0.0"] / "README.md").read_bytes()
    assert meta["license"] == ["cc-by-sa-4.0", "odc-by"]
    assert repo.tags["image-v1.0.0"][0] == image.commit == repo.head.oid
    assert repo.tags["v1.0.0"][0] == result.commit  # the first tag did not move
    assert not owned(hub.files(REPO, "v1.0.0"), "image")  # the tagged commit holds only its release
    card = readme(after)
    assert "](meta/image/plots/funnel.png)" in card and "](meta/default/plots/funnel.png)" in card
    assert "ODC-BY" in card or "ODC-By" in card
    assert "CC BY-SA 4.0" in card


def test_publishing_the_same_release_twice_changes_nothing(hub, releases):
    push(hub, releases["default-1.0.0"])
    push(hub, releases["image-1.0.0"])
    commits, tags = len(hub.repo(REPO).commits), dict(hub.repo(REPO).tags)
    posts, puts = hub.count("POST", r"/commit/"), hub.count("PUT", r"^/_lfs/")

    for key in ("default-1.0.0", "image-1.0.0"):
        result, out = push(hub, releases[key])
        assert result.status == "unchanged" and "nothing to do" in out
    assert len(hub.repo(REPO).commits) == commits and hub.repo(REPO).tags == tags
    assert hub.count("POST", r"/commit/") == posts and hub.count("PUT", r"^/_lfs/") == puts
    assert hub.count("POST", r"/tag/") == 2


def test_new_version_is_one_commit_and_old_versions_cannot_roll_back(hub, releases):
    first, _ = push(hub, releases["default-1.0.0"])
    second, out = push(hub, releases["default-1.1.0"])
    repo = hub.repo(REPO)
    assert second.status == "published" and len(repo.commits) == 3
    assert repo.tags["v1.1.0"][0] == second.commit and repo.tags["v1.0.0"][0] == first.commit
    head = repo.head
    assert head.title == "Release default 1.1.0 (HotpotQA, 34 records)"
    assert head.description.startswith("Parent release: 1.0.0\ntrain: +")
    manifest = json.loads(hub.files(REPO)["meta/default/manifest.json"])
    assert manifest["version"] == "1.1.0" and manifest["parent_version"] == "1.0.0"
    assert manifest["changelog"]["totals"] == {"added": 5, "removed": 1, "changed": 1, "unchanged": 28}

    with pytest.raises(PublishError, match="roll it back"):
        push(hub, releases["default-1.0.0"])
    assert len(hub.repo(REPO).commits) == 3


def test_a_failed_upload_is_retried_by_huggingface_hub_within_one_publish(hub, releases):
    hub.fail("PUT", r"^/_lfs/", status=503)  # huggingface_hub's http_backoff retries uploads itself
    result, out = push(hub, releases["default-1.0.0"])
    repo = hub.repo(REPO)
    assert result.status == "published" and hub.count("PUT", r"^/_lfs/") == 8  # 7 files, one sent twice
    assert len(repo.commits) == 2 and repo.tags["v1.0.0"][0] == repo.head.oid == result.commit
    assert "retrying" not in out  # no retry loop of our own


def test_a_failed_commit_ends_the_publish_and_publishing_again_lands_it_once(hub, releases):
    hub.fail("POST", r"/commit/", status=503)
    with pytest.raises(HubUnavailableError, match="HTTP 503.*publish again") as caught:
        push(hub, releases["default-1.0.0"])
    assert "127.0.0.1" in str(caught.value)  # the host that failed
    assert hub.count("POST", r"/commit/") == 1 and len(hub.repo(REPO).commits) == 1  # created, nothing committed

    result, _ = push(hub, releases["default-1.0.0"])
    repo = hub.repo(REPO)
    assert result.status == "published" and len(repo.commits) == 2
    assert repo.tags["v1.0.0"][0] == repo.head.oid == result.commit


def test_commit_whose_answer_was_lost_is_not_made_twice(hub, releases):
    push(hub, releases["default-1.0.0"])
    hub.fail("POST", r"/commit/", status=502, after=True)  # lands, but the client sees a 502
    with pytest.raises(HubUnavailableError, match="502"):
        push(hub, releases["image-1.0.0"])
    hub.fail("POST", r"/tag/", status=429)
    with pytest.raises(HubUnavailableError, match="429"):
        push(hub, releases["image-1.0.0"])
    result, _ = push(hub, releases["image-1.0.0"])
    repo = hub.repo(REPO)
    assert len(repo.commits) == 3  # init, default, image: exactly one commit for the image release
    assert result.status == "tagged" and hub.count("POST", r"/commit/") == 2
    assert repo.tags["image-v1.0.0"][0] == repo.head.oid == result.commit  # the commit that carries the version
    assert f"data/image/{data_name(releases['image-1.0.0'], 'train')}" in hub.files(REPO, "image-v1.0.0")


def test_errors_that_are_not_transient_are_not_retried(hub, releases):
    hub.fail("POST", r"/commit/", status=400, times=5)
    with pytest.raises(PublishError, match="400") as caught:
        push(hub, releases["default-1.0.0"])
    assert not isinstance(caught.value, HubUnavailableError)  # a refusal, not a network failure
    assert hub.count("POST", r"/commit/") == 1


def test_a_repo_changed_by_someone_else_meanwhile_is_said_so(hub, releases):
    hub.fail("POST", r"/commit/", status=412)  # the Hub's answer when the parent commit is no longer the head
    with pytest.raises(PublishError, match="changed while publishing") as caught:
        push(hub, releases["default-1.0.0"])
    assert not isinstance(caught.value, HubUnavailableError)
    result, _ = push(hub, releases["default-1.0.0"])
    assert result.status == "published" and len(hub.repo(REPO).commits) == 2


def test_dry_run_prints_the_commit_and_changes_nothing(hub, releases):
    result, out = push(hub, releases["default-1.0.0"], dry_run=True, private=True)
    assert result.status == "dry-run" and REPO not in hub.repos
    assert "create the repo (private)" in out and "one commit: Release default 1.0.0" in out
    assert f"add     data/default/{data_name(releases['default-1.0.0'], 'train')}" in out and "tag v1.0.0" in out
    assert not [r for r in hub.requests if r[0] in ("POST", "PUT")]

    push(hub, releases["default-1.0.0"])
    requests = len(hub.requests)
    result, out = push(hub, releases["default-1.1.0"], dry_run=True)
    assert "add     meta/default/manifest.json" in out and "tag v1.1.0 on the new commit" in out
    assert not [r for r in hub.requests[requests:] if r[0] in ("POST", "PUT")]
    assert len(hub.repo(REPO).commits) == 2


def test_token_comes_from_hf_token_and_is_never_written(hub, releases, tmp_path, monkeypatch, capsys):
    _, out = push(hub, releases["default-1.0.0"])
    assert hub.authorizations == {f"Bearer {hub.token}"}
    folder = tmp_path / "mirror"
    publish_release(releases["default-1.0.0"], str(folder))
    written = b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())
    assert hub.token not in out and hub.token.encode() not in written
    assert all(hub.token.encode() not in data for data in hub.files(REPO).values())
    assert hub.token not in capsys.readouterr().out

    monkeypatch.delenv("HF_TOKEN")
    monkeypatch.setattr("huggingface_hub.get_token", lambda: None)
    with pytest.raises(PublishError, match="HF_TOKEN"):
        push(hub, releases["default-1.1.0"])


def test_folder_target_holds_exactly_the_repo_files_and_loads(hub, releases, tmp_path):
    folder = tmp_path / "mirror"
    for key in ("default-1.0.0", "image-1.0.0", "default-1.1.0"):
        push(hub, releases[key])
        result = publish_release(releases[key], str(folder), echo=lambda _: None)
        assert result.status == "published"
    on_hub = {p: b for p, b in hub.files(REPO).items() if p != ".gitattributes"}  # the Hub adds it on creation
    in_folder = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    tags_doc = json.loads(in_folder.pop("tags.json"))
    assert tags_doc["target"] == "folder"  # a folder has no commits: no commit ids, and it says so
    tags = tags_doc["tags"]
    assert not [tag for tag in tags.values() if "commit" in tag]
    first_manifest = (releases["default-1.0.0"] / "manifest.json").read_bytes()
    assert tags["v1.0.0"]["manifest_sha256"] == hashlib.sha256(first_manifest).hexdigest()
    assert in_folder == on_hub
    assert set(tags) == set(hub.repo(REPO).tags) == {"v1.0.0", "image-v1.0.0", "v1.1.0"}
    assert tags["v1.1.0"]["version"] == "1.1.0" and tags["image-v1.0.0"]["config"] == "image"

    again = publish_release(releases["image-1.0.0"], str(folder), echo=lambda _: None)
    assert again.status == "unchanged"
    assert {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()} == {
        **in_folder,
        "tags.json": (folder / "tags.json").read_bytes(),
    }

    cache = str(tmp_path / "hf-datasets")
    test = datasets.load_dataset(str(folder), split="test", cache_dir=cache)  # `default` needs no name
    manifest = json.loads(in_folder["meta/default/manifest.json"])
    assert test.num_rows == manifest["splits"]["test"] and test.column_names == column_names("hotpotqa")
    image = datasets.load_dataset(str(folder), "image", split="train", cache_dir=cache)
    assert image.num_rows == 6 and image.column_names == column_names("olmocr")
    assert image.column_names[9:11] == ["source_pdf", "source_category"]
    train = datasets.load_dataset(str(folder), "default", split="train", cache_dir=cache)
    assert json.loads(train[0]["json_schema"])["type"] == "object"


def test_modified_release_is_not_published(releases, tmp_path):
    release = tmp_path / "copy"
    shutil.copytree(releases["default-1.0.0"], release)
    target = release / "data" / data_name(release, "test")
    assert not target.stat().st_mode & 0o222  # written releases are read-only
    target.chmod(0o644)
    target.write_bytes(target.read_bytes() + b"x")
    with pytest.raises(PublishError, match="modified after it was written"):
        publish_release(release, str(tmp_path / "mirror"))
    assert not (tmp_path / "mirror").exists()


def test_push_targets_and_tags():
    assert parse_target("owner/name") == Target("hub", repo_id="owner/name")
    assert parse_target("hf://datasets/owner/name") == Target("hub", repo_id="owner/name")
    assert parse_target("./owner/name") == Target("folder", folder=Path("./owner/name"))
    assert parse_target("/tmp/out").kind == "folder"
    assert parse_target("mirror").kind == "folder"
    assert parse_target("a/b/c").kind == "folder"
    assert parse_target("~/x").kind == "folder"
    with pytest.raises(ValueError):
        parse_target(" ")
    assert tag_name("default", "1.2.0") == "v1.2.0"
    assert tag_name("image", "1.2.0") == "image-v1.2.0"
    assert tag_name("audio", "0.1.0") == "audio-v0.1.0"


def test_folder_target_never_replaces_a_file_it_did_not_write(releases, tmp_path):
    published = tmp_path / "mirror"
    publish_release(releases["default-1.0.0"], str(published), echo=lambda _: None)
    data = sorted(published.glob("data/default/*.parquet"))[0].relative_to(published)
    fresh = tmp_path / "curators-folder"
    (fresh / data).parent.mkdir(parents=True)
    (fresh / data).write_bytes(b"the curator's own file, where the release would write its data")
    with pytest.raises(PublishError, match=str(data)):
        publish_release(releases["default-1.0.0"], str(fresh), echo=lambda _: None)
    assert (fresh / data).read_bytes().startswith(b"the curator's own file")
    assert not (fresh / "tags.json").exists()


def test_a_hub_that_cannot_be_reached_fails_at_once_as_a_network_failure(releases, monkeypatch):
    import socket

    with socket.socket() as sock:  # a port on this machine where nothing listens: connection refused
        sock.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{sock.getsockname()[1]}"
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_TOKEN", "hf_not_a_real_token")
    lines: list[str] = []
    with pytest.raises(HubUnavailableError, match="could not be reached") as caught:
        publish_release(releases["default-1.0.0"], REPO, endpoint=endpoint, echo=lines.append)
    assert not lines  # no retry loop on a refused connection
    assert "hf_not_a_real_token" not in str(caught.value)


def test_a_dns_failure_is_one_attempt_that_names_the_host(releases, monkeypatch):
    import socket

    host, lookups = "hub.sob-test.invalid", []
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(name, *args, **kwargs):
        if name == host:
            lookups.append(name)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real_getaddrinfo(name, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_TOKEN", "hf_not_a_real_token")
    lines: list[str] = []
    with pytest.raises(HubUnavailableError, match=f"Hub at {host} could not be reached") as caught:
        publish_release(releases["default-1.0.0"], REPO, endpoint=f"https://{host}", echo=lines.append)
    assert lookups == [host] and not lines  # one try, no retry loop
    assert "\n" not in str(caught.value) and "hf_not_a_real_token" not in str(caught.value)
