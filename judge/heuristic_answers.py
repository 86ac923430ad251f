"""`seed_answer_mismatch`: does the answer agree with the dataset's own answer to the question (in the field the
question asks for, and not the other option of a choice)?"""

from __future__ import annotations

import re
from typing import Any

from rapidfuzz import fuzz

from judge.heuristic_text import (
    _ENTITY,
    _KEY_WORD,
    _NUMBER,
    _STOP,
    _YES_NO_START,
    FILLERS,
    NO,
    YES,
    Leaf,
    _as_number,
    _content_words,
    _converted_at,
    _numbers,
    _spelled,
    leaf_list,
    normalize,
)
from validation.field_rules.words import shape_of
from validation.readings import string_places
from validation.readings.numbers import number_mentions


def is_meaningful(value: Any) -> bool:
    """A value that answers something: a number, a boolean, or a string with a word that is no filler."""
    if isinstance(value, bool | int | float):
        return True
    if isinstance(value, str):
        return any(word not in FILLERS for word in normalize(value).split())
    return False


def _entities(question: str) -> set[str]:
    """Names in a question (capitalised phrases and quoted titles), its first word aside."""
    found = set()
    first, _, rest = question.strip().partition(" ")  # the question's first word is capitalised anyway
    text = rest if first.lower() in _STOP or _YES_NO_START.match(first) else question
    for match in _ENTITY.finditer(text):
        phrase = match.group().strip('"“” ')
        if phrase and normalize(phrase) not in _STOP:
            found.add(normalize(phrase))
    return found


_OPPOSITES = [
    ("older", "younger"), ("oldest", "youngest"), ("earlier", "later"), ("first", "last"), ("before", "after"),
    ("larger", "smaller"), ("bigger", "smaller"), ("more", "fewer"), ("more", "less"), ("taller", "shorter"),
    ("longer", "shorter"), ("higher", "lower"), ("earliest", "latest"), ("largest", "smallest"), ("most", "least"),
]  # fmt: skip


def _opposite_comparison(question: str, seed: str) -> bool:
    asked, seeded = set(normalize(question).split()), set(normalize(seed).split())
    return any((a in asked and b in seeded and a not in seeded) or (b in asked and a in seeded and b not in seeded)
               for a, b in _OPPOSITES)  # fmt: skip


def _named(entity: str, asked: str) -> bool:
    """The question names the entity: in full, or by its longest word ("Derrickson" for "Scott Derrickson")."""
    if entity in asked:
        return True
    longest = max(entity.split(), key=len, default="")
    return len(longest) >= 4 and f" {longest} " in f" {asked} "


def asks_seed_question(question: str, seed: str) -> bool:
    """Does the curator's question still ask the source's seed question (same, or reworded)? It must name the
    same things and, for a yes/no seed, still be a yes/no question."""
    if normalize(question) == normalize(seed):
        return True
    if _opposite_comparison(question, seed):
        return False  # "who is younger" does not ask "who is older": the seed answer answers the other
    entities = _entities(seed)
    asked = normalize(question)
    if not entities or not all(_named(entity, asked) for entity in entities):
        return False
    if bool(_YES_NO_START.match(seed.strip())) != bool(_YES_NO_START.match(question.strip())):
        return False
    if _YES_NO_START.match(seed.strip()):
        return True
    # What the seed asks of its entities ("population", "capacity") must be asked too, not only the entities.
    entity_words = {w for entity in entities for w in entity.split()}
    wants = [w for w in _content_words(seed) if w not in entity_words and len(w) >= 4]
    if wants and sum(1 for w in wants if f" {w}" in f" {asked}") * 2 < len(wants):
        return False
    return fuzz.token_set_ratio(" ".join(_content_words(seed)), " ".join(_content_words(question))) >= 70


def _key_words(path: str) -> set[str]:
    keys = _KEY_WORD.findall(path)
    return {w for key in keys for w in key.lower().split("_") if w and w not in _STOP}


def answering_boolean(question: str, ground_truth: dict[str, Any], derived: set[str]) -> tuple[str, bool] | None:
    """The boolean leaf the question asks about: the only one, else the one whose field name shares the most
    words with the question (ties broken by evidence naming it derived, then by `answer`-like names)."""
    return _answering_boolean(question, leaf_list(ground_truth), derived)


def _answering_boolean(question: str, flat: list[Leaf], derived: set[str]) -> tuple[str, bool] | None:
    booleans = [(path, value) for path, value in flat if isinstance(value, bool)]
    if len(booleans) <= 1:
        return booleans[0] if booleans else None
    asked = set(_content_words(question)) | {w.rstrip("s") for w in _content_words(question)}
    scored = []
    for path, value in booleans:
        words = _key_words(path.rsplit(".", 1)[-1])
        score = len(words & asked) * 10 + (5 if path in derived else 0) + (3 if words & {"answer", "final"} else 0)
        scored.append((score, path, value))
    scored.sort(key=lambda s: s[0], reverse=True)
    if scored[0][0] == 0 or (len(scored) > 1 and scored[0][0] == scored[1][0]):
        return None
    return scored[0][1], scored[0][2]


def answer_match(
    answer: str, ground_truth: dict[str, Any], question: str = "", derived: set[str] | None = None
) -> tuple[int, str]:
    """How well the seed answer is given by the ground truth (score, rationale)."""
    return _answer_match(answer, leaf_list(ground_truth), question, derived or set())


def _answer_match(answer: str, flat: list[Leaf], question: str, derived: set[str]) -> tuple[int, str]:
    wanted = normalize(answer)
    if wanted in YES or wanted in NO:
        truth = wanted in YES
        found = _answering_boolean(question, flat, derived)
        if found is None:
            strings = [(p, normalize(v)) for p, v in flat if isinstance(v, str)]
            said = [(p, v) for p, v in strings if v in YES | NO]
            if len(said) == 1:
                path, text = said[0]
                ok = (text in YES) == truth
                return (
                    (100, f"the seed answer {answer!r} is at {path}")
                    if ok
                    else (10, f"{path} says {text!r}, the seed answer is {answer!r}")
                )
            return 60, f"cannot tell which boolean answers the question; the seed answer is {answer!r}"
        path, value = found
        if value == truth:
            return 100, f"the seed answer {answer!r} is the boolean at {path}"
        return 10, f"{path} is {str(value).lower()}, but the seed answer is {answer!r}"
    values = [(path, leaf) for path, leaf in flat if leaf is not None and not isinstance(leaf, bool)]
    seed_numbers = _numbers(answer) or _spelled(answer)
    seed_words = [w for w in _content_words(answer) if not _NUMBER.fullmatch(w) and not _spelled(w)]
    compared = _compared_lists(question, answer, values)
    for path, leaf in values:
        if normalize(str(leaf)) == wanted and _array_root(path) not in compared:
            elsewhere = _asked_field_disagrees(question, path, answer, values)
            if elsewhere is not None:
                return 30, elsewhere
            return 100, f"the seed answer {answer!r} is at {path}"
    wrong_choice = _wrong_choice(question, answer, values)
    if wrong_choice is not None:
        return 10, wrong_choice
    for path, leaf in values:
        if normalize(str(leaf)) == wanted:
            return 100, f"the seed answer {answer!r} is at {path}"
    if seed_numbers and len(seed_words) <= 1:
        # A numeric answer ("3,677 seated", "from 1986 to 2013"): every number must be a leaf's number.
        leaf_numbers = [
            n
            for _, leaf in values
            for n in ([_as_number(leaf)] if _as_number(leaf) is not None else _numbers(str(leaf)))
        ]
        if all(any(abs(n - m) < 1e-9 for m in leaf_numbers) for n in seed_numbers):
            return 100, f"the numbers of the seed answer {answer!r} are the ground truth's"
        other = [float(v) for _, _, v, _ in number_mentions(answer)]
        if other and any(any(abs(n - m) < 1e-9 * max(1.0, abs(n)) for m in leaf_numbers) for n in other):
            return 90, f"the seed answer {answer!r} is written another way in the ground truth"
        converted = _converted_at(answer, values)
        if converted is not None:
            return 90, f"the seed answer {answer!r} is given converted to the unit of {converted}"
        return 15, f"the seed answer {answer!r} has numbers {seed_numbers} that the ground truth does not give"
    for path, leaf in values:
        if isinstance(leaf, str) and (string_places(leaf, answer) or string_places(answer, leaf)):
            return 90, f"the seed answer {answer!r} is written another way at {path}"
    best = 0
    for _path, leaf in values:
        if not isinstance(leaf, str):
            continue
        got = normalize(leaf)
        if not got:
            continue
        padded_got, padded_wanted = f" {got} ", f" {wanted} "
        if padded_wanted in padded_got and (len(wanted) >= 0.5 * len(got) or len(wanted.split()) >= 2):
            best = max(best, 90)
        elif padded_got in padded_wanted and len(got) >= 0.6 * len(wanted):
            best = max(best, 85)
        elif fuzz.ratio(wanted, got) >= 90:
            best = max(best, 85)
    if best:
        return best, f"the seed answer {answer!r} is (nearly) a leaf of the ground truth"
    # Spread over several leaves ("Greenwich Village" + "New York City"): each a phrase of the seed answer,
    # together all of its words.
    pieces = [normalize(str(leaf)) for _, leaf in values]
    pieces = [piece for piece in pieces if piece and f" {piece} " in f" {wanted} "]
    covered = {word for piece in pieces for word in piece.split()}
    if len(pieces) >= 2 and seed_words and all(w in covered for w in seed_words):
        return 85, f"the seed answer {answer!r} is spread over several leaves"
    # A descriptive seed answer ("American film director") given in part ("director"): no proof of an error.
    leaf_words = {w for _, leaf in values for w in normalize(str(leaf)).split()}
    if len(seed_words) >= 3 and sum(w in leaf_words for w in seed_words) * 2 >= len(seed_words):
        return 70, f"most words of the seed answer {answer!r} are in the ground truth"
    return 20, f"the seed answer {answer!r} is not among the ground truth's leaves"


_WH_TARGET = re.compile(r"\b(?:what|which|whose)\s+((?:[a-z-]+\s+){0,2}?[a-z-]+)\b", re.IGNORECASE)


_WH_SKIP = {"is", "was", "are", "were", "did", "does", "do", "the", "a", "an", "kind", "type", "of", "year", "name"}


def _asked_field_disagrees(question: str, found_at: str, answer: str, values: list[tuple[str, Any]]) -> str | None:
    """The seed answer sits in one field while the field the question asks for ("What screenwriter ...":
    `screenwriter`) holds something else: the answer is in the wrong place."""
    match = _WH_TARGET.search(question)
    if match is None:
        return None
    target = [w for w in match.group(1).lower().split() if w not in _WH_SKIP]
    if not target:
        return None
    head = target[-1].rstrip("s")
    asked = [
        (path, leaf) for path, leaf in values
        if head in {w.rstrip("s") for w in _key_words(path.rsplit(".", 1)[-1].split("[")[0])}
    ]  # fmt: skip
    if not asked or any(path == found_at for path, _ in asked):
        return None
    wanted = normalize(answer)
    if any(normalize(str(leaf)) == wanted for _, leaf in asked):
        return None
    path, leaf = asked[0]
    if shape_of(leaf) != shape_of(answer):
        return None  # a decade asked, the seed year given beside it: another form, not another answer
    return f"the question asks for the {head} ({path} gives {leaf!r}), but the seed answer is at {found_at}"


_CHOICE = re.compile(r",\s*(?:the\s+)?(.+?)\s+or\s+(?:the\s+)?(.+?)\s*\??\s*$")


def _array_root(path: str) -> str | None:
    return path[: path.rfind("[")] if "[" in path else None


def _compared_lists(question: str, answer: str, values: list[tuple[str, Any]]) -> set[str | None]:
    """Arrays of the compared entities of a choice question ("..., A or B?"): both options stand in them, so
    the seed answer found there answers nothing."""
    match = _CHOICE.search(question)
    if match is None:
        return set()
    options = [normalize(option) for option in match.groups()]
    roots: dict[str | None, set[str]] = {}
    for path, leaf in values:
        text = normalize(str(leaf))
        for option in options:
            if option and (text == option or f" {option} " in f" {text} "):
                roots.setdefault(_array_root(path), set()).add(option)
    return {root for root, found in roots.items() if root is not None and len(found) == len(set(options))}


def _wrong_choice(question: str, answer: str, values: list[tuple[str, Any]]) -> str | None:
    """A choice question ("Which writer was from England, Henry Roth or Robert Erskine Childers?") answered
    with the other option: a leaf giving it outside the list of compared entities where both stand."""
    match = _CHOICE.search(question)
    if match is None:
        return None
    options = [normalize(option) for option in match.groups()]
    wanted = normalize(answer)
    chosen = [o for o in options if o and (f" {o} " in f" {wanted} " or f" {wanted} " in f" {o} ")]
    if len(chosen) != 1:
        return None
    other = next(o for o in options if o != chosen[0])
    texts = [(path, normalize(str(leaf))) for path, leaf in values]
    seed_roots = {_array_root(path) for path, text in texts if f" {chosen[0]} " in f" {text} " or text == wanted}
    for path, text in texts:
        if text == other and (_array_root(path) is None or _array_root(path) not in seed_roots):
            if _key_words(path.rsplit(".", 1)[-1].split("[")[0]) & _CONTRAST_WORDS and None in seed_roots:
                continue  # `other_writer` beside the chosen one: the option not chosen, named as such
            return f"{path} gives {other!r}, the option the seed answer {answer!r} did not choose"
    return None


# Field words that name the option a comparison did not choose (`other_writer`, `runner_up`, `loser`).
_CONTRAST_WORDS = {"other", "rival", "loser", "losing", "runner", "alternative", "compared", "versus", "opponent",
                   "not", "non"}  # fmt: skip
