"""`duplicate_item`, `count_mismatch`, `possible_swap` of bounds, and a list's items from another entry or that left:
the rules on lists and their counts."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from rapidfuzz import fuzz

from validation.field_hints import hint_for
from validation.field_rules.words import Doubt, LayoutLike, _answer_counts, key_meaning
from validation.neighbour_checks import (
    check_list_gaps,
)
from validation.readings.fields import FieldHint, field_words
from validation.readings.numbers import to_decimal

_CURRENT_WORDS = {"current", "currently", "active", "present", "remaining", "existing", "still", "today", "now"}


_DEPARTED_AFTER = re.compile(
    r"[^.;\n]{0,40}?\b(?:departed|left|quit|resigned|retired|was dropped|were dropped|was fired|was replaced|"
    r"no longer|stepped down|leaving|exited)\b",
    re.IGNORECASE,
)


_FORMER_BEFORE = re.compile(r"\b(?:former|ex-|formerly|past)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)


def _check_departed_items(
    leaves: list[Any], containers: dict[str, Any], spans: dict[str, tuple[int, int]], layout: LayoutLike, doubt: Doubt
) -> None:
    """An item of a list of current members (`current_members`, `active_players`) written as one who left
    ("Taehyun, who later departed from the group", "former member X")."""
    text = layout.text
    for leaf in leaves:
        if leaf.key is not None or not isinstance(leaf.value, str) or leaf.path not in spans:
            continue
        if not isinstance(containers.get(leaf.parent), list):
            continue
        list_key = leaf.parent.rsplit(".", 1)[-1]
        if not field_words(list_key) & _CURRENT_WORDS:
            continue
        start, end = spans[leaf.path]
        after = _DEPARTED_AFTER.match(text, end)
        before = _FORMER_BEFORE.search(text[max(0, start - 30) : start])
        if after or before:
            said = (text[end : after.end()] if after else text[max(0, start - 30) + before.start() : end]).strip()  # type: ignore[union-attr]
            doubt(
                "value_from_other_phrase",
                f"{leaf.value!r} is listed in {list_key!r}, but the text says it left: {said[:80]!r}",
                leaf.path,
            )


def _check_list_runs(
    leaves: list[Any],
    containers: dict[str, Any],
    spans: dict[str, tuple[int, int]],
    layout: LayoutLike,
    question: str,
    doubt: Doubt,
) -> None:
    """Lists of strings, each checked against the enumeration of the context it was taken from."""
    items: dict[str, list[str]] = {}
    for leaf in leaves:
        if leaf.key is None and isinstance(leaf.value, str) and isinstance(containers.get(leaf.parent), list):
            items.setdefault(leaf.parent, []).append(leaf.path)
    for path, item_paths in items.items():
        if len(item_paths) == len(containers[path]):
            check_list_gaps(path, item_paths, spans, layout, question, doubt)


_BOUNDS = [
    ("min", "max"), ("minimum", "maximum"), ("low", "high"), ("lower", "upper"), ("start", "end"), ("from", "to"),
    ("first", "last"), ("earliest", "latest"), ("begin", "end"), ("opens", "closes"), ("birth", "death"),
    ("born", "died"), ("founded", "dissolved"), ("opened", "closed"),
]  # fmt: skip


_BOUND_WORDS = frozenset(word for pair in _BOUNDS for word in pair)


def _check_bounds(leaves: list[Any], doubt: Doubt) -> None:
    """Two siblings that bound a range (min/max, start/end, first/last) in the wrong order: swapped."""
    by_parent: dict[str, dict[str, Any]] = {}
    for leaf in leaves:
        if not leaf.key or isinstance(leaf.value, bool) or not field_words(leaf.key) & _BOUND_WORDS:
            continue  # most fields bound nothing: settled by one set lookup
        if to_decimal(leaf.value) is not None or _is_date(leaf.value):
            by_parent.setdefault(leaf.parent, {})[leaf.key] = leaf
    for fields in by_parent.values():
        if len(fields) < 2:
            continue
        for low_word, high_word in _BOUNDS:
            lows = [f for k, f in fields.items() if low_word in field_words(k)]
            highs = [f for k, f in fields.items() if high_word in field_words(k)]
            if len(lows) != 1 or len(highs) != 1:
                continue
            low, high = lows[0], highs[0]
            if field_words(low.key) - {low_word} != field_words(high.key) - {high_word}:
                continue  # `first_album_year` and `last_tour_year` bound no common range
            if _order_key(low.value) > _order_key(high.value):
                message = f"{low.key!r} ({low.value!r}) is after {high.key!r} ({high.value!r}): swapped?"
                doubt("possible_swap", message, low.path)
                doubt("possible_swap", message, high.path)


def _is_date(value: Any) -> bool:
    return isinstance(value, str) and bool(re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?|\d{1,2}:\d{2}", value.strip()))


def _order_key(value: Any) -> Any:
    number = to_decimal(value)
    return (0, number, "") if number is not None else (1, Decimal(0), str(value).strip().zfill(5))


def _check_counts(
    leaves: list[Any], containers: dict[str, Any], hints: dict[str, FieldHint] | None, doubt: Doubt
) -> None:
    """A count whose own list, in the same answer, has another length (`num_action_items` 3 beside four
    `action_items`): the answer contradicts itself."""
    lists = {path.rsplit(".", 1)[-1]: value for path, value in containers.items() if isinstance(value, list)}
    if not lists:
        return
    for leaf in leaves:
        if not leaf.key or isinstance(leaf.value, bool) or not isinstance(leaf.value, int):
            continue
        hint = hint_for(hints, leaf.path, leaf.key)
        if not hint.is_count:
            continue
        counted = key_meaning(leaf.key) - {"num", "number", "count", "total", "of", "n"}
        # The lists of what it counts (`member_count`: `current_members` and `former_members`): one of the
        # count's length answers it; else the one that names the fewest other things is contradicted.
        named = [(len(key_meaning(name) - counted), name, items) for name, items in lists.items()
                 if counted & key_meaning(name)]  # fmt: skip
        if not named or any(leaf.value in _answer_counts({name: items}) for _, name, items in named):
            continue  # its length, or how many of its objects a boolean field marks (`not_yet_adopted` of three)
        _, name, items = min(named, key=lambda found: found[0])
        doubt(
            "count_mismatch",
            f"{leaf.key!r} is {leaf.value}, but the answer's own list {name!r} has {len(items)} item(s)",
            leaf.path,
        )


_ENTRY_CHARS = 240  # a reference entry, a table row or a listing: one short line holding one item's values


_ENTRY_START = re.compile(r"\s*(?:\[\d+\]|\d+[.)]\s|[-*•]\s|\|)")  # "[7]", "7.", "- ", a table row


_YEAR_TOKEN = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def _check_year_outside_entry(
    leaves: list[Any], spans: dict[str, tuple[int, int]], layout: LayoutLike, doubt: Doubt
) -> None:
    """A year taken from another entry: every other value of its object stands in one short line (a
    reference, a table row), which gives a year of its own, while this year stands elsewhere ("Mathematische
    Nachrichten 9 (1953)" in entry 7, the year given 1949, that of entry 5)."""
    by_parent: dict[str, list[Any]] = {}
    for leaf in leaves:
        if leaf.key and leaf.path in spans and not isinstance(leaf.value, bool) and leaf.value is not None:
            by_parent.setdefault(leaf.parent, []).append(leaf)
    text = layout.text
    for siblings in by_parent.values():
        if len(siblings) < 4:
            continue
        lines = [layout.line(spans[leaf.path][0]) for leaf in siblings]
        for index, leaf in enumerate(siblings):
            value = str(leaf.value).strip()
            if not _YEAR_TOKEN.fullmatch(value):
                continue
            others = {line for i, line in enumerate(lines) if i != index}
            if len(others) != 1 or lines[index] in others:
                continue
            start, end = next(iter(others))
            if end - start > _ENTRY_CHARS or not _ENTRY_START.match(text, start):
                continue  # not an entry of a list or a table: a sentence may hold several events' years
            years = [y for y in _YEAR_TOKEN.findall(text[start:end]) if y != value]
            if years:
                doubt(
                    "value_from_other_entity",
                    f"{value} stands in another line than every other value of its object, whose line gives "
                    f"{years[0]}: {text[start:end].strip()[:90]!r}",
                    leaf.path,
                )


def _check_duplicates(containers: dict[str, Any], doubt: Doubt) -> None:
    for path, value in containers.items():
        if not isinstance(value, list) or len(value) < 2:
            continue
        seen: list[str] = []
        for position, item in enumerate(value):
            exact = isinstance(item, dict)  # objects differ by one field (two speakers saying "yeah")
            text = _plain(str(item)) if not exact else _item_text(item)
            if not text:
                continue
            for earlier in seen:
                if text == earlier or (
                    not exact and ((len(text) >= 12 and fuzz.ratio(text, earlier) >= 92) or _abbreviates(text, earlier))
                ):
                    doubt(
                        "duplicate_item", f"item {position} repeats an earlier item of the list", f"{path}[{position}]"
                    )
                    break
            seen.append(text)


def _abbreviates(a: str, b: str) -> bool:
    """One item is the initials of the other ("pm" and "philip morris")."""
    short, long = (a, b) if len(a) < len(b) else (b, a)
    words = long.split()
    return 2 <= len(short) <= 6 and " " not in short and len(words) >= 2 and "".join(w[0] for w in words) == short


def _plain(text: str) -> str:
    """Lower case, no leading article, single spaces: "The Hollin Canal" and "Hollin Canal" are one item."""
    words = text.lower().split()
    while words and words[0] in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words)


def _item_text(item: dict[str, Any]) -> str:
    return " | ".join(_plain(str(v)) for _, v in sorted(item.items()) if v not in (None, "", []))
