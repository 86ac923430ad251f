"""Token counts with all-MiniLM-L6-v2's tokenizer (packaged, offline) or the stated fallback, and the
card's plots and provenance."""

from __future__ import annotations

import json
import random

import exports.stats
from exports import write_release
from exports.stats import FALLBACK_TOKENIZER, ChunkCounter, get_tokenizer


def real_texts(test_data) -> list[str]:
    rows = json.loads((test_data / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json").read_text())
    texts = ["\n\n".join(title + "\n" + "".join(sentences) for title, sentences in r["context"]) for r in rows]
    utterances = [json.loads(line)["text"] for line in (test_data / "ami" / "ES2002d.ihm.jsonl").open()]
    texts.append(" ".join(utterances))
    texts += [p.read_text() for p in sorted((test_data / "olmocr_bench").rglob("*.md"))]
    return texts


def test_chunked_counts_equal_the_tokenizer(test_data):
    # Shipped with the toolkit (exports/tokenizer/PROVENANCE.md): no skip, a missing tokenizer must fail the run.
    import hashlib

    import tokenizers

    from exports.stats import TOKENIZER_FILE

    shipped = hashlib.sha256(TOKENIZER_FILE.read_bytes()).hexdigest()
    assert shipped == "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"  # as PROVENANCE.md says
    tok = tokenizers.Tokenizer.from_file(str(TOKENIZER_FILE))
    tok.no_truncation()
    tok.no_padding()
    rng = random.Random(7)
    pool = [chr(c) for c in range(0x0, 0x3100)] + list("\t\n\r\x0b\x0c\x1c\x85\u2028\u2029\ufffd\u200b\xa0İΣσς中文한")
    fuzz = [
        "".join(rng.choice(pool) if rng.random() < 0.4 else rng.choice("ab de") for _ in range(rng.randint(0, 60)))
        for _ in range(3000)
    ]
    texts = real_texts(test_data) + fuzz + ["the\x0bre", "naïve café 1990–1995", ""]
    expected = [len(e.ids) for e in tok.encode_batch(texts, add_special_tokens=False)]
    counter = ChunkCounter(tok)
    assert counter(texts) == expected
    assert counter(texts) == expected  # again, from the chunk cache
    assert ChunkCounter(tok).total(texts) == sum(expected)  # every chunk new
    assert counter.total(texts) == sum(expected)  # every chunk cached

    used = get_tokenizer()
    assert used.exact and "all-MiniLM-L6-v2" in used.name and "the toolkit's copy" in used.name


def test_fallback_when_the_tokenizer_cannot_load(monkeypatch, store, workspace, factory, judge_kwargs):
    monkeypatch.setattr(exports.stats, "_packaged_tokenizer", lambda: None)
    monkeypatch.setattr(exports.stats, "_cached_transformers_tokenizer", lambda: None)
    get_tokenizer.cache_clear()
    try:
        tok = get_tokenizer()
        assert tok.name == FALLBACK_TOKENIZER and not tok.exact
        assert tok.count(["Hello, world!"]) == [4]
        factory.add_records(store, "hotpotqa", range(4))
        result = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
        card = (result.path / "README.md").read_text(encoding="utf-8")
        assert "regex word-piece approximation" in card and "token figures are an approximation" in card
        assert json.loads((result.path / "manifest.json").read_text())["tokenizer"] == FALLBACK_TOKENIZER
    finally:
        get_tokenizer.cache_clear()


def test_card_shows_plots_provenance_and_judge(release_history):
    path = release_history.paths["default-1.1.0"]
    card = (path / "README.md").read_text(encoding="utf-8")
    for name in ("schema_complexity", "judge_scores", "funnel", "flags"):
        png = path / "plots" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
        assert f"](plots/{name}.png)" in card
    assert "| curator | `curator-a` | 34 |" in card and "| drafting model | `draft-llm` | 34 |" in card
    # the heuristic scored these rows: its scores are labelled as the pre-filter's, never as a judge's
    assert "### Pre-filter scores of the released records" in card and "| faithfulness | 34 |" in card
    assert "| curator | `withdrawn` | 1 |" in card  # the funnel's reasons, by stage
    stats = json.loads((path / "manifest.json").read_text())["statistics"]
    assert stats["judge_scores"]["faithfulness"]["median"] == 90
    assert stats["annotators"] == {"curator-a": 34}


def test_release_without_plots_says_so(store, workspace, factory, judge_kwargs):
    factory.add_records(store, "ami", range(3))
    result = write_release(store, "ami", "0.1.0", workspace, **(judge_kwargs | {"plots": False}))
    assert not (result.path / "plots").exists()
    card = (result.path / "README.md").read_text(encoding="utf-8")
    assert "No plots in this release: plots were not requested" in card
    assert json.loads((result.path / "manifest.json").read_text())["assets"] == {}
