"""The deterministic offline judge: a pre-filter, never an acceptor on its own.

It may reject (clear structural or evidence failures, a wrong seed answer, an empty or lazy answer) and
is free, so it runs before a paid LLM judge (`--prefilter`). A record it passes is only "not obviously
wrong": a release whose records no LLM judge or second human checked says so (`review: heuristic-only`)
and is refused without `--allow-unreviewed`.

What it reads: the validation report (grounding against each value's own evidence, and the doubts found
there: values not near their entity, values under another field's label) and the record's resolved
evidence; the seed answer of the source dataset when the question still asks the seed question (also
when reworded); the schema.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from decimal import Decimal
from functools import lru_cache
from typing import Any

from rapidfuzz import fuzz

from core.evidence import Evidence
from core.models import Record
from core.verdicts import GateFlag, GroundingIssue, JudgeVerdict, ValidationReport
from judge.rubric import RUBRIC_VERSION, dimensions_for
from validation.evidence import places_of
from validation.field_rules.words import shape_of
from validation.grounding import fold, normalize_text
from validation.number_words import spelled_number
from validation.readings import conversion_supports, string_places
from validation.readings.clock import clock_mentions, clock_value
from validation.readings.dates import date_places
from validation.readings.fields import field_hint
from validation.readings.numbers import number_mentions

VERSION = f"heuristic-3/rubric-{RUBRIC_VERSION}"
YES = {"yes", "true", "y"}
NO = {"no", "false", "n"}
GENERIC_NAMES = {"answer", "value", "result", "data", "output", "field", "info", "response", "text"}
# Words that carry no answer: back-channels of meetings, hedges.
FILLERS = {
    "yeah", "yes", "yep", "okay", "ok", "um", "uh", "mm", "hmm", "mm-hmm", "mmhmm", "right", "so", "well", "oh", "ah",
    "no", "sure", "alright", "like", "i", "you", "the", "a", "and", "n/a", "na", "none", "unknown", "null", "-",
}  # fmt: skip
_STOP = {
    "the", "a", "an", "of", "in", "on", "at", "to", "for", "and", "or", "is", "are", "was", "were", "be", "by", "with",
    "from", "as", "what", "which", "who", "whom", "whose", "when", "where", "how", "did", "do", "does", "that", "this",
    "both", "same", "their", "its", "his", "her", "it", "they", "many", "much",
}  # fmt: skip
_YES_NO_START = re.compile(r"^(are|is|was|were|do|does|did|can|could|has|have|had|will|would|should)\b", re.IGNORECASE)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_ENTITY = re.compile(r"\"[^\"]+\"|“[^”]+”|(?:[A-Z][\w'’.-]*|\d+)(?:\s+(?:of|the|de|von|N|&)?\s*[A-Z][\w'’.-]*)*")
_TRANSCRIPT_LINE = re.compile(r"^\[[\d:]+\] [^:]+: (.*)$")
_NUMBER_STRING = re.compile(r"-?\d[\d,]*(\.\d+)?")
_KEY_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_PATH_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
COPY_MIN_CHARS = 200  # a string this long that is most of the context is a copy, not an answer


def normalize(text: str) -> str:
    """The same normalisation as the grounding check, so both agree on what matches. Cached: a record's
    values, question and context are normalised several times over (a long text only in a tiny cache)."""
    return _normalize_short(text) if len(text) <= SHORT_TEXT_CHARS else _normalize_long(text)


SHORT_TEXT_CHARS = 1000


@lru_cache(maxsize=8192)
def _normalize_short(text: str) -> str:
    return normalize_text(text)


@lru_cache(maxsize=4)
def _normalize_long(text: str) -> str:
    return normalize_text(text)


Leaf = tuple[str, Any]  # (JSON path, scalar value)


def leaves(value: Any, path: str = "$") -> Iterator[Leaf]:
    yield from leaf_list(value, path)


def leaf_list(value: Any, path: str = "$") -> list[Leaf]:
    """Every (path, scalar) of a value in document order, as a list: the judge walks a ground truth once per
    record and hands the list to each check (a recursive generator per check was a third of its time)."""
    found: list[Leaf] = []
    _collect(value, path, found)
    return found


def _collect(value: Any, path: str, found: list[Leaf]) -> None:
    if isinstance(value, dict):
        for key, child in value.items():
            _collect(child, f"{path}.{key}", found)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            _collect(child, f"{path}[{i}]", found)
    else:
        found.append((path, value))


def _content_words(text: str) -> list[str]:
    return [w for w in normalize(text).split() if w not in _STOP]


def _spelled(text: str) -> list[float]:
    """A seed answer that is a number in words ("seven", "twelve and a half")."""
    value = spelled_number(text) if text.strip() and len(text.split()) <= 6 else None
    return [float(value)] if value is not None else []


def _converted_at(answer: str, values: list[tuple[str, Any]]) -> str | None:
    """The path of a number whose field names a unit that the seed answer's quantity converts to ("11.6
    kilometres" as `length_miles` 7.2), if one does."""
    for path, leaf in values:
        if isinstance(leaf, int | float) and not isinstance(leaf, bool):
            key = re.sub(r"\[\d+\]", "", path).rsplit(".", 1)[-1]
            unit = field_hint(key).unit
            if unit and conversion_supports(leaf, answer, None, unit):
                return path
    return None


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in _NUMBER.findall(text) if any(c.isdigit() for c in n)]


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _NUMBER_STRING.fullmatch(value.strip()):
        return float(value.strip().replace(",", ""))
    return None


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


def schema_quality(schema: dict[str, Any], report: ValidationReport) -> tuple[int, str]:
    """Rules a reviewer would apply: typed, structured, described, not a lone answer field."""
    score, notes = 100, []
    properties = schema.get("properties") or {}
    complexity = report.complexity
    if len(properties) < 3:
        score -= 50
        notes.append("fewer than three properties")
    generic = sorted(name for name in properties if name.lower() in GENERIC_NAMES)
    if generic and len(properties) <= 3:
        score -= 20
        notes.append(f"generic names {generic}")
    described = sum(1 for p in properties.values() if isinstance(p, dict) and p.get("description"))
    if properties and described < len(properties) / 2:
        score -= 10
        notes.append("most properties lack a description")
    if complexity is not None and complexity.level == "easy":
        score -= 15
        notes.append("flat schema: no nested reasoning structure")
    if complexity is not None and complexity.required < complexity.properties:
        score -= 15
        notes.append("not every property is required")
    return max(score, 0), "; ".join(notes) or "typed, structured and described"


def _newlines(context: str) -> list[int]:
    """Offsets of the context's line breaks, so the line of an offset is a binary search, not a count."""
    found, at = [], context.find("\n")
    while at != -1:
        found.append(at)
        at = context.find("\n", at + 1)
    return found


def _line_of(context: str, offset: int, newlines: list[int] | None = None) -> int:
    if newlines is None or offset < 0:
        return context.count("\n", 0, offset)
    return bisect_left(newlines, offset)


def multi_turn(
    context: str, ground_truth: dict[str, Any], spans: dict[str, tuple[int, int]] | None = None
) -> tuple[int, str]:
    """How many utterances the answer's meaningful values need: a value with curated evidence counts the utterance
    of its evidence, any other the fewest utterances that hold them all; fillers ("YEAH") and nulls count for
    nothing."""
    fixed = spans or {}
    newlines = _newlines(context)
    options: list[set[int]] = []
    for path, value in leaf_list(ground_truth):
        if not is_meaningful(value) or isinstance(value, bool):
            continue
        if path in fixed:
            options.append({_line_of(context, fixed[path][0], newlines)})
        else:
            found = {_line_of(context, start, newlines) for start, _, _ in places_of(value, context)}
            if found:
                options.append(found)
    lines = _fewest_lines(options)
    if len(lines) >= 3:
        return 100, f"values come from {len(lines)} utterances"
    if len(lines) == 2:
        return 75, "values come from two utterances"
    return 30, f"values come from {len(lines)} utterance(s): one turn answers it"


def _fewest_lines(options: list[set[int]]) -> set[int]:
    """The fewest utterances that hold every value (greedy set cover): "THE REMOTE", said ten times, does not
    make a one-line answer multi-turn."""
    chosen: set[int] = set()
    left = [o for o in options if o]
    while left:
        counts: dict[int, int] = {}
        for option in left:
            for line in option:
                counts[line] = counts.get(line, 0) + 1
        best = max(counts, key=lambda line: (counts[line], -line))
        chosen.add(best)
        left = [o for o in left if best not in o]
    return chosen


def _spans(evidence: dict[str, Evidence]) -> dict[str, tuple[int, int]]:
    return {p: (e.start, e.end) for p, e in evidence.items() if e.start is not None and e.end is not None}


def _value_at(ground_truth: Any, path: str) -> Any:
    node = ground_truth
    for key, index in _PATH_STEP.findall(path):
        try:
            node = node[int(index)] if index else node[key]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def laziness(record: Record, report: ValidationReport) -> tuple[int, str] | None:
    """An answer that answers nothing (all null, fillers), is mostly unexplained nulls, or copies the context."""
    flat = leaf_list(record.output.ground_truth)
    return _laziness(record, flat, _meaningful(flat))


def _meaningful(flat: list[Leaf]) -> list[Any]:
    return [value for _, value in flat if is_meaningful(value)]


def _laziness(record: Record, flat: list[Leaf], meaningful: list[Any]) -> tuple[int, str] | None:
    if not meaningful:
        return 0, "the answer holds no value: every leaf is null, empty or a filler word"
    absent = {p for p, e in record.output.evidence.items() if e.kind == "absent"}
    unexplained = [p for p, v in flat if (v is None or v == "") and p not in absent]
    if len(unexplained) > len(meaningful):
        return 30, f"{len(unexplained)} null leaves without `absent` evidence against {len(meaningful)} values"
    context: str | None = None  # normalised only when a value is long enough to be a copy
    for path, value in flat:
        if isinstance(value, str) and len(value) >= COPY_MIN_CHARS:
            context = normalize(record.input.context) if context is None else context
            if len(normalize(value)) >= 0.5 * len(context):
                return 0, f"{path} copies most of the context ({len(value)} characters): that is not an answer"
    return None


def question_quality(record: Record) -> tuple[int, str]:
    """Answerable from this context, more than a lookup of a single field."""
    return _question_quality(record, len(_meaningful(leaf_list(record.output.ground_truth))))


def _question_quality(record: Record, meaningful: int) -> tuple[int, str]:
    question = record.input.question
    words = _content_words(question)
    if len(question.split()) < 5:
        return 30, "the question is too short to ask for a structured answer"
    if words and not any_word_in_context([w for w in words if len(w) >= 4], record.input.context):
        # OCR and transcripts spell words their own way: reported, not flagged.
        return 60, "none of the question's words occur in the context: is it about this context?"
    if meaningful <= 1:
        return 45, "one value answers it: a lookup of a single field, not a structured question"
    return 90, "about this context, answered by several related values"


# Characters `normalize` drops to join a word ("U.S." -> "us"): never a word boundary.
_JOINING = "'.,’ʼ"
MAX_WORD_HITS = 64  # occurrences of one word tried in the folded context before normalising it after all


def any_word_in_context(words: list[str], context: str) -> bool:
    """Is one of these normalised words a whole word of the normalised context? Tried first in the folded
    context, which costs a fraction of normalising a long context: a hit between characters that normalising
    turns into spaces is a word of the normalised text too. Without such a hit, the normalised context says."""
    if not words:
        return False
    folded = fold(context)
    if any(_between_separators(word, folded) for word in words):
        return True
    padded = f" {normalize(context)} "
    return any(f" {w} " in padded for w in words)


def _between_separators(word: str, folded: str) -> bool:
    """A sure (not complete) test: `word` occurs in the folded text between separators (and holds no joining
    mark: "ʼ" is a letter that survives normalising, but is dropped between two word characters)."""
    if any(mark in word for mark in _JOINING):
        return False
    at, end = folded.find(word), len(folded)
    for _ in range(MAX_WORD_HITS):
        if at == -1:
            return False
        after = at + len(word)
        if (at == 0 or _separates(folded[at - 1])) and (after == end or _separates(folded[after])):
            return True
        at = folded.find(word, at + 1)
    return False


def _separates(char: str) -> bool:
    """Does normalising turn this character into a space? Whitespace, ASCII punctuation other than the joining
    marks, and any other non-ASCII character that is neither a letter nor a digit; an ASCII control character
    stays part of its word."""
    if char.isspace():
        return True
    if char.isalnum() or char in _JOINING:
        return False
    return not char.isascii() or "!" <= char <= "~"


def must_be_stated(ground_truth: dict[str, Any], ungrounded: list[str]) -> list[str]:
    """Ungrounded values that cannot be a paraphrase: numbers, and short strings (names, codes, dates).
    Long free text, or a lower-case label ("origin"), may reword the context; "9,948" for "9,984" or an
    invented name or code may not."""
    stated = []
    for path in ungrounded:
        value = _value_at(ground_truth, path)
        short_name = isinstance(value, str) and len(value.split()) <= 5 and re.search(r"[A-Z0-9]", value)
        if (isinstance(value, int | float) and not isinstance(value, bool)) or short_name:
            stated.append(path)
    return stated


_ACRONYM_WORD = re.compile(r"\b[A-Z]{2,5}\b")
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")
_NAME_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]{3,}")


def near_miss(value: Any, context: str) -> str | None:
    """Why a value the context does not hold looks like a slip rather than a rewording: a number with the
    digits of one of the context's numbers transposed or one digit off ("9948" for "9,984"), or a name none of
    whose words the context uses (an invention). None when it may be a conversion, a computation or a
    paraphrase, which a flag would only hold back."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        slip = _number_slip(value, context)
        if slip is not None:
            return slip
        digits = (
            str(abs(value)).replace(".", "").lstrip("0").rstrip("0") if isinstance(value, float) else str(abs(value))
        )
        if len(digits) < 3:
            return None
        for token in _DIGITS.findall(context):
            written = token.replace(",", "").replace(".", "").lstrip("0")
            if written == digits or len(written) != len(digits):
                continue
            if sorted(written) == sorted(digits) or sum(a != b for a, b in zip(written, digits, strict=True)) == 1:
                return f"{value!r} is not in the context, but {token!r} is: a slip of the digits?"
        return None
    if isinstance(value, str) and _ISO_DATE.fullmatch(value.strip()):
        return _date_slip(value.strip(), context)
    if isinstance(value, str) and (slip := _clock_slip(value.strip(), context)):
        return slip
    if isinstance(value, str) and value.strip() in _currency_codes():
        # Not found: the context names this currency in no way (code, name, plural, symbol) the toolkit reads.
        return f"{value!r}: the context never names this currency (its code, name or symbol)"
    if isinstance(value, str):
        words = {w.lower() for w in _NAME_WORD.findall(value)}
        lowered = context.lower()
        acronyms = {a.lower() for a in _ACRONYM_WORD.findall(value)}  # "TV" of "the TV screen" is a word too
        said = any(re.search(rf"\b{re.escape(a)}\b", lowered) for a in acronyms)
        if words and not said and not any(w in lowered or _abbreviated_in(w, lowered) for w in words):
            return f"{value!r}: none of its words is in the context"
        proper = value.split()
        if 2 <= len(proper) <= 4 and all(w[:1].isupper() for w in proper) and all(w in lowered for w in words):
            return f"{value!r}: each of its words is in the context, but never together"
    return None


@lru_cache(maxsize=1)
def _calendar_abbreviations() -> dict[str, tuple[str, ...]]:
    """Day and month names with their short forms ("tuesday" -> tue, tues), from the standard calendar."""
    import calendar

    names = [*zip(calendar.day_name, calendar.day_abbr, strict=True)]
    names += [*zip(calendar.month_name, calendar.month_abbr, strict=True)][1:]
    extra = {"tuesday": ("tues",), "thursday": ("thur", "thurs"), "september": ("sept",)}
    return {full.lower(): (short.lower(), *extra.get(full.lower(), ())) for full, short in names}


def _abbreviated_in(word: str, lowered_context: str) -> bool:
    """A day or month name written short in the context ("Tue" for "Tuesday" on a form)."""
    shorts = _calendar_abbreviations().get(word, ())
    return any(re.search(rf"\b{short}\b\.?", lowered_context) for short in shorts)


@lru_cache(maxsize=1)
def _currency_codes() -> frozenset[str]:
    from babel.numbers import list_currencies

    return frozenset(list_currencies())


_ISO_DATE = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")
_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december",
)  # fmt: skip


def _date_slip(value: str, context: str) -> str | None:
    """A date the context writes in no form the toolkit reads: its year never stands within a few words of its
    month (by name, or as a number of a numeric date). A year of another event ("2023-02" where the text says
    "February 2022" and "Jan 29, 2023") looks like this; a date written another way seldom does."""
    match = _ISO_DATE.fullmatch(value)
    assert match is not None
    year, month = match.group(1), int(match.group(2))
    if not 1 <= month <= 12:
        return None
    name = _MONTHS[month - 1]
    if date_places(value, context):
        return None  # "14.03.2025", or "the first of June" with the year said elsewhere
    lowered = context.lower()
    at = lowered.find(year)
    while at >= 0:
        window = lowered[max(0, at - 30) : at + 34]
        if name[:3] in window or re.search(rf"(?<!\d)0?{month}[/.-]|[/.-]0?{month}(?!\d)", window):
            return None
        at = lowered.find(year, at + 1)
    return f"{value!r}: the context never writes {year} with its month ({name.title()})"


def _clock_slip(value: str, context: str) -> str | None:
    """A time given on the wrong side of the clock: "11:10" where the context says "11.10 pm" (23:10), or "14:20"
    where it says "2:20 a.m." (02:20). Only times the context pins to one half of the day count."""
    minutes = clock_value(value) if re.fullmatch(r"\d{1,2}:\d{2}", value) else None
    if minutes is None or len(minutes) != 1:
        return None
    wanted = next(iter(minutes))
    for start, end, said in clock_mentions(context):
        if len(said) == 1 and abs(next(iter(said)) - wanted) == 720:
            hour, minute = divmod(next(iter(said)), 60)
            written = context[start:end].strip()
            return f"{value!r} is not in the context, but {written!r} is: {hour:02d}:{minute:02d}, twelve hours apart"
    return None


_DOWNWARD = re.compile(
    r"\b(?:down(?:ward|wards)?|below|beneath|under|minus|negative|loss|losses|lost|deficit|decrease[sd]?|"
    r"decline[sd]?|fell|fall|falls|drop(?:ped|s)?|lower(?:ed)?|shrank|debt|owe[sd]?|overdrawn|south|west)\b",
    re.IGNORECASE,
)


def _said_downward(magnitude: float, context: str) -> bool:
    """Is the number written beside a word that gives it a negative direction (a fall, a loss, downward)?"""
    number = f"{magnitude:g}"
    for match in re.finditer(rf"(?<![\d.]){re.escape(number)}(?![\d])", context):
        window = context[max(0, match.start() - 50) : match.end() + 30]
        if _DOWNWARD.search(window):
            return True
    return False


def _number_slip(value: float, context: str) -> str | None:
    """A number whose sign, fraction or place the context contradicts: 4.2 where it says -4.2, 12 where it
    says twelve and a half, 40 found only in a transcript's timestamps."""
    from validation.grounding import NormalizedContext, is_grounded

    if value and is_grounded(-value, NormalizedContext(context)):
        if value < 0 and _said_downward(-value, context):
            return None  # "thrown downward with a speed of 8" is -8: the sign is the direction the text gives
        return f"{value!r} is not in the context, but {-value!r} is: the sign dropped?"
    halves = [v for _, _, v, how in number_mentions(context) if v != int(v) and int(v) == value]
    if halves:
        return f"{value!r} is not in the context, but {float(halves[0])!r} is: the fraction dropped?"
    if isinstance(value, int) and 0 <= value < 60 and re.search(rf"^\[\d+:{value:02d}\] ", context, re.M):
        return f"{value!r} is found only in the transcript's timestamps, which are no evidence"
    return _percent_slip(value, context)


_PERCENT_AFTER = re.compile(r"\s?(?:%|percent\b|per cent\b)", re.IGNORECASE)


def _percent_slip(value: float, context: str) -> str | None:
    """A fraction ten times too small or too large for a percentage the context gives: 0.023 or 2.3 where it says
    "23 percent" (0.23)."""
    if not 0 < abs(value) < 10 or isinstance(value, bool):
        return None
    wanted = Decimal(repr(value))
    for start, end, said, _ in number_mentions(context) if len(context) < 200_000 else ():
        if not _PERCENT_AFTER.match(context, end) or said == 0:
            continue
        if wanted in (said / 1000, said / 10) and wanted != said / 100:
            written = context[start : end + 8].strip()
            return f"{value!r} is not in the context, but {written!r} is: {said / 100} as a fraction?"
    for match in re.finditer(r"(?<![\d.,])\d+(?:\.\d+)?(?=\s?(?:%|percent\b|per cent\b))", context):
        said = Decimal(match.group())
        if said and wanted in (said / 1000, said / 10) and wanted != said / 100:
            return f"{value!r} is not in the context, but {match.group()}% is: {said / 100} as a fraction?"
    return None


QUALITY_FLAGS = {"schema_quality": "weak_schema", "question_quality": "weak_question"}
# Doubts of validation that the gate raises as flags for a person (validation/evidence.py, field_checks.py).
FLAGGED_DOUBTS = frozenset(
    {
        "value_not_near_entity", "value_in_wrong_field", "evidence_unverified", "unit_mismatch",
        "number_from_other_phrase", "boolean_against_text", "absent_but_stated", "duplicate_item", "copied_span",
        "speaker_mismatch", "possible_swap", "value_from_other_phrase", "too_few_properties", "scale_dropped",
        "count_mismatch", "letter_not_in_context", "corrected_value", "list_missing_item", "value_from_other_entity",
        "comparison_against_values", "sign_against_text",
    }
)  # fmt: skip


def _doubts(issues: list[GroundingIssue]) -> list[GroundingIssue]:
    return [issue for issue in issues if issue.code in FLAGGED_DOUBTS]


class HeuristicJudge:
    name = "heuristic"
    version = VERSION
    runs_in_workers = True  # a pure function of the record: large runs judge in worker processes

    def judge(self, record: Record, report: ValidationReport, threshold: int) -> JudgeVerdict:
        scores: dict[str, int] = {}
        rationales: dict[str, str] = {}
        grounding = report.grounding
        fraction = grounding.fraction if grounding else 0.0
        issues = grounding.issues if grounding else []
        derived = {p for p, e in record.output.evidence.items() if e.kind == "derived"}
        seed = record.metadata.extra.get("seed_answer") or record.metadata.extra.get("answer")
        seed_question = record.metadata.extra.get("seed_question")
        asks_seed = seed is not None and (
            seed_question is None or asks_seed_question(record.input.question, seed_question)
        )
        flat = leaf_list(record.output.ground_truth)  # walked once, read by every check
        meaningful = _meaningful(flat)
        accuracy: list[tuple[int, str]] = []
        flags: list[GateFlag] = []
        if asks_seed:
            score, why = _answer_match(str(seed), flat, record.input.question, derived)
            if score < 60:  # the dataset's answer disagrees: likely wrong, but a person decides
                flags.append(GateFlag(code="seed_answer_mismatch", path="$", reason=why))
            accuracy.append((max(score, 60), why))
        else:
            accuracy.append((round(60 + 40 * fraction), "no seed answer for this question; scored from grounding"))
        lazy = _laziness(record, flat, meaningful)
        if lazy is not None:
            if lazy[0] == 0 and not meaningful:
                accuracy.append(lazy)  # no value at all: nothing to release, whatever a person says
            else:
                flags.append(GateFlag(code="lazy_answer", path="$", reason=lazy[1]))
        stated = must_be_stated(record.output.ground_truth, grounding.ungrounded_paths if grounding else [])
        for path in stated:
            # A value not found is most often a right one written in a way the toolkit does not read (a
            # conversion, a computation): only a near miss of the context, or a name it never mentions, is asked.
            why = near_miss(_value_at(record.output.ground_truth, path), record.input.context)
            if why is not None:
                flags.append(GateFlag(code="ungrounded_value", path=path, reason=why))
        for doubt in _doubts(issues):
            flags.append(GateFlag(code=doubt.code, path=doubt.path, reason=doubt.message))
        scores["accuracy"], rationales["accuracy"] = min(accuracy, key=lambda s: s[0])
        # Values not found may be paraphrases: the stated ones are flagged above; the score asks, never rejects.
        scores["grounding"] = max(round(100 * fraction), threshold)
        missing = ", ".join(grounding.ungrounded_paths[:5]) if grounding else "no grounding report"
        rationales["grounding"] = (
            "every value is supported by its evidence or found in the context"
            if grounding and not grounding.ungrounded_paths
            else f"{fraction:.0%} of values grounded; not found: {missing}"
        )
        quality: dict[str, tuple[int, str]] = {"schema_quality": schema_quality(record.input.json_schema, report)}
        dims = dimensions_for(record.metadata.source)
        if "question_quality" in dims:
            quality["question_quality"] = _question_quality(record, len(meaningful))
        if "multi_turn" in dims:
            curated = {p: e for p, e in record.output.evidence.items() if not e.auto}
            quality["multi_turn"] = multi_turn(record.input.context, record.output.ground_truth, _spans(curated))
        for dim, (score, why) in quality.items():
            # A rule of thumb on quality cannot prove a record unfit: below the threshold it asks a person
            # (one meeting utterance is no error at all: the LLM judge weighs it, the pre-filter only reports it).
            if score < threshold:
                if dim in QUALITY_FLAGS:
                    flags.append(GateFlag(code=QUALITY_FLAGS[dim], path="$", reason=f"{dim} {score}: {why}"))
                why = f"{why} (measured {score}; the pre-filter does not reject on it)"
                score = threshold
            scores[dim], rationales[dim] = score, why
        return JudgeVerdict(
            judge=self.name,
            version=self.version,
            scores=scores,
            rationales=rationales,
            threshold=threshold,
            flags=flags,
        )
