"""Characters nobody can see: found in ground-truth values, shown escaped, compared in one normalisation."""

from __future__ import annotations

from validation.characters import normalised, value_problems, visible


def test_decomposed_accents_become_one_character() -> None:
    assert normalised({"name": "Ingrid So\u0301lvang"}) == {"name": "Ingrid S\u00f3lvang"}
    assert normalised(["Ingrid Solvang", 3]) == ["Ingrid Solvang", 3]


def test_hidden_characters_are_named_at_their_path() -> None:
    problems = list(value_problems({"people": [{"name": "Ed\u200bWood"}, {"name": "Tim Burton"}]}))
    assert [(path, code) for path, code, _ in problems] == [("$.people[0].name", "invisible_character")]
    assert "\\u200b (ZERO WIDTH SPACE)" in problems[0][2]


def test_line_breaks_and_tabs_and_other_alphabets_are_values() -> None:
    for value in ("line one\nline two", "a\tb", "Москва", "Αθήνα", "β-carotene", "東京"):
        assert list(value_problems({"v": value})) == [], value


def test_a_word_mixing_latin_and_cyrillic_is_flagged() -> None:
    problems = list(value_problems({"city": "Lond\u043en"}))
    assert [(p, c) for p, c, _ in problems] == [("$.city", "mixed_script")]


def test_visible_escapes_terminal_controls_and_keeps_letters() -> None:
    assert visible("\x1b[2Jok\r\n") == "\\x1b[2Jok\\r\\n"
    assert visible("S\u00f3lvang\u00a0\u200b") == "S\u00f3lvang\\xa0\\u200b"
