"""`possible_swap` of crossed pairs, `comparison_against_values` and `value_in_wrong_field` under another label: values
read beside each other."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from validation.neighbour_articles import _QUESTION_STOP, _value
from validation.readings.numbers import to_decimal

PAIRING_RATIO = 0.6  # crossed pairs this much closer in the text than the pairs given: likely swapped


_LAST_STEP = re.compile(r"(\[\d+\]|\.[^.\[]+)$")


@lru_cache(maxsize=4096)
def _container_of(parent: str) -> str:
    """`$.a[0]` and `$.a[1]` are items of `$.a`, `$.x.p` and `$.x.q` members of `$.x`."""
    return _LAST_STEP.sub("", parent)


def _objects(leaves: list[Any], spans: dict[str, tuple[int, int]]) -> list[list[dict[str, Any]]]:
    """Groups of objects with the same fields: the objects of one array or one parent, and the root's fields
    grouped by their first word (`offered_name`, `offered_held_at` / `sought_name`, `sought_held_at`). Each
    object maps a field to its leaf; only located leaves count."""
    by_parent: dict[str, dict[str, Any]] = {}
    roots: dict[str, dict[str, Any]] = {}
    for leaf in leaves:
        if not leaf.key or leaf.path not in spans or isinstance(leaf.value, bool):
            continue
        if leaf.parent == "$":
            head, _, rest = leaf.key.partition("_")
            if rest:
                roots.setdefault(head, {})[rest] = leaf
        else:
            by_parent.setdefault(leaf.parent, {})[leaf.key] = leaf
    groups: dict[str, list[dict[str, Any]]] = {}
    for parent, fields in by_parent.items():
        container = _container_of(parent)
        groups.setdefault(container, []).append(fields)
    groups["$ by prefix"] = list(roots.values())
    return [objects for objects in groups.values() if len(objects) >= 2]


def check_cross_pairing(
    leaves: list[Any], spans: dict[str, tuple[int, int]], doubt: Any, on_line_of: Any = None
) -> None:
    """Two objects of one kind whose values of two fields are each written next to the other object's value: the
    offered prisoner's name beside the place where the other one is held. The pairs given are far apart in the
    text and the crossed pairs close: the values are likely swapped between the objects."""
    for objects in _objects(leaves, spans):
        for i, first in enumerate(objects):
            for second in objects[i + 1 :]:
                keys = sorted(set(first) & set(second))
                for n, key_a in enumerate(keys):
                    for key_b in keys[n + 1 :]:
                        a1, b1, a2, b2 = first[key_a], first[key_b], second[key_a], second[key_b]
                        if a1.value == a2.value or b1.value == b2.value:
                            continue
                        given = _gap(spans[a1.path], spans[b1.path]) + _gap(spans[a2.path], spans[b2.path])
                        crossed = _gap(spans[a1.path], spans[b2.path]) + _gap(spans[a2.path], spans[b1.path])
                        if crossed < PAIRING_RATIO * given:
                            if on_line_of is not None and on_line_of(b1, a1) and on_line_of(b2, a2):
                                continue  # each also written on its own object's line: a small number found first
                            message = (
                                f"{_value(b1.value)} and {_value(b2.value)} are each written beside the other "
                                f"object's {key_a!r} ({_value(a2.value)}, {_value(a1.value)}): swapped between objects?"
                            )
                            doubt("possible_swap", message, b1.path)
                            doubt("possible_swap", message, b2.path)
                            return


def _gap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, max(a[0], b[0]) - min(a[1], b[1]))


_HIGHER = {"younger", "later", "latest", "longer", "longest", "larger", "largest", "bigger", "biggest", "taller",
           "tallest", "higher", "highest", "more", "most", "greater", "greatest", "newer", "newest"}  # fmt: skip


_LOWER = {"older", "oldest", "earlier", "earliest", "first", "shorter", "shortest", "smaller", "smallest",
          "lower", "lowest", "fewer", "fewest", "less", "least"}  # fmt: skip


_TIME_COMPARATIVES = {"younger", "older", "youngest", "oldest", "earlier", "earliest", "later", "latest", "first",
                      "last", "newer", "newest", "born", "before", "after"}  # fmt: skip


_DATE_WORDS = {"birth", "born", "date", "year", "founded", "formed", "published", "released", "opened", "dob"}


_ISO = re.compile(r"\d{4}(?:-\d{2}(?:-\d{2})?)?")


def _order_value(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip() if _ISO.fullmatch(value.strip()) else None
    return to_decimal(value)


def _comparison(key_words: frozenset[str]) -> str | None:
    """'max' or 'min': which of the compared values the field's comparative picks (for birth dates or years,
    the younger is the later one)."""
    if key_words & _HIGHER:
        return "max"
    if key_words & _LOWER:
        return "min"
    return None


def _split_key(key: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", key).lower()) if w]


def check_comparison(leaves: list[Any], words_of: Any, doubt: Any) -> None:
    """A comparative field (`younger`, `born_first`, `longer`) naming one of two entities while the answer's own
    values of the two (`annie_morton_birth_year` 1970, `terry_richardson_birth_year` 1965) say the other: the
    answer contradicts itself. The two values are fields that end alike (`_birth_year`) and begin with a word of
    each entity's name."""
    root = [leaf for leaf in leaves if leaf.parent == "$" and leaf.key]
    ordered = [(leaf, _order_value(leaf.value)) for leaf in root if not isinstance(leaf.value, bool)]
    ordered = [(leaf, order) for leaf, order in ordered if order is not None]
    for leaf in root:
        picks = _comparison(words_of(leaf.key)) if isinstance(leaf.value, str) else None
        named = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", leaf.value)} if picks else set()
        if not named:
            continue
        key_words = words_of(leaf.key)
        for i, (x, x_order) in enumerate(ordered):
            for y, y_order in ordered[i + 1 :]:
                if type(x_order) is not type(y_order) or x_order == y_order:
                    continue  # a date and a number do not compare
                wx, wy = _split_key(x.key), _split_key(y.key)
                size = 0
                while size < min(len(wx), len(wy)) - 1 and wx[-1 - size] == wy[-1 - size]:
                    size += 1
                if not size:
                    continue
                attribute = set(wx[-size:])
                mine = [bool(set(wx[:-size]) & named), bool(set(wy[:-size]) & named)]
                if mine.count(True) != 1:
                    continue
                if bool(key_words & _TIME_COMPARATIVES) != bool(attribute & (_DATE_WORDS | {"age"})):
                    continue  # "longer" compares lengths, not years; "earlier" compares dates, not lengths
                if attribute & {"death", "died"} and key_words & {"born", "birth", "older", "younger", "oldest"}:
                    continue  # death years say nothing of who was born first
                direction = picks
                if "age" in attribute and key_words & {"younger", "older", "youngest", "oldest"}:
                    direction = "min" if picks == "max" else "max"  # the younger has the lower age
                values = [x_order, y_order]
                winner = (max if direction == "max" else min)(range(2), key=lambda n: values[n])
                if not mine[winner]:
                    doubt(
                        "comparison_against_values",
                        f"{leaf.value!r} is given as {leaf.key!r}, but the answer's own values say the other: "
                        f"{x.key} {x_order}, {y.key} {y_order}",
                        leaf.path,
                    )
                    return


_LINE_LABEL = re.compile(r"^[ \t*#>-]*([A-Z][A-Za-z /&()-]{1,40}):", re.MULTILINE)


_NAME_KEYS = {"name", "person", "full_name", "title"}


def _label_stems(text: str) -> set[str]:
    return {w.lower()[:5] for w in re.findall(r"[A-Za-z]{2,}", text) if w.lower() not in _QUESTION_STOP}


def _field_name(leaf: Any) -> str | None:
    """The name a value's field goes by: its key, or for an array's item (or an item's `name`) the array's key."""
    if leaf.key and leaf.key not in _NAME_KEYS:
        return leaf.key
    match = re.search(r"\.([^.\[]+)\[\d+\](?:\.[^.\[]+)?$", leaf.path)
    return match.group(1) if match else leaf.key


@lru_cache(maxsize=64)
def _labels_of(text: str) -> frozenset[str]:
    """The "Label:" words that open the lines of a document."""
    return frozenset(m.group(1).strip() for m in _LINE_LABEL.finditer(text))


def check_labels(leaves: list[Any], spans: dict[str, tuple[int, int]], layout: Any, doubt: Any) -> None:
    """A value written after a label ("Co-Authors: Russell Bennett") that names its field less than another label
    of the document does ("Presenting Author:" for `presenter`): it is likely taken from the neighbouring field."""
    labels: frozenset[str] | None = None  # read only once a value is found under a label: most are not
    for leaf in leaves:
        if leaf.path not in spans or not isinstance(leaf.value, str):
            continue
        label = layout.label(spans[leaf.path][0]).strip()
        name = _field_name(leaf) if label else None
        if not name:
            continue
        labels = _labels_of(layout.text) if labels is None else labels
        if len(labels) < 2 or label not in labels:
            continue
        wanted = _label_stems(name.replace("_", " "))
        here = len(wanted & _label_stems(label))
        best = max(labels - {label}, key=lambda other: len(wanted & _label_stems(other)))
        if len(wanted & _label_stems(best)) > here:
            doubt(
                "value_in_wrong_field",
                f"{_value(leaf.value)} stands under {label!r}, while the label {best!r} names {name!r}",
                leaf.path,
            )
